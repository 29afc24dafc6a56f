#pragma once
// Caps the OpenMP threads of the parallel regions the calling thread starts, for the
// scope's lifetime: a backend's thread count without touching anyone else's.

namespace poreplab {

class omp_threads_scope {
 public:
  explicit omp_threads_scope(int threads);  // 0: leave the OpenMP default
  ~omp_threads_scope();
  omp_threads_scope(const omp_threads_scope&) = delete;
  omp_threads_scope& operator=(const omp_threads_scope&) = delete;

 private:
  int saved_ = 0;
};

}  // namespace poreplab
