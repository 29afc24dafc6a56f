#include "poreplab/omp_threads.hpp"

#include <omp.h>

namespace poreplab {

omp_threads_scope::omp_threads_scope(int threads) {
  if (threads <= 0) return;
  saved_ = omp_get_max_threads();
  omp_set_num_threads(threads);
}

omp_threads_scope::~omp_threads_scope() {
  if (saved_ > 0) omp_set_num_threads(saved_);
}

}  // namespace poreplab
