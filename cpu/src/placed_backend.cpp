#include "poreplab/cpu/placed_backend.hpp"

#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <functional>
#include <utility>

#include "poreplab/sdr/pc2_build.hpp"
#include "poreplab/unavailable.hpp"

namespace poreplab::cpu {

int placed_backend::run_record::cpu_for(int index) const {
  if (cpus.empty()) return -1;
  return cpus[static_cast<std::size_t>(index) % cpus.size()];
}

void placed_backend::run_record::ran(int index, thread_role role, bool pinned) { record(index, role, pinned, sched_getcpu()); }

void placed_backend::run_record::record(int index, thread_role role, bool pinned, int cpu) {
  const std::lock_guard<std::mutex> lock(mu_);
  for (auto& t : seen)
    if (t.thread == index && t.role == role) {
      t.moved = t.moved || (!pinned && t.cpu != cpu);
      t.cpu = cpu;
      t.core = topology().core_of(cpu);
      t.pinned = pinned;
      return;
    }
  seen.push_back({index, cpu, topology().core_of(cpu), role, pinned, false});
}

namespace {

labeler_options placed_by(labeler_options opt, thread_placer* placer) {
  opt.placer = placer;
  return opt;
}

}  // namespace

placed_backend::placed_backend(const labeler_options& opt, thread_placement p)
    : inner_(make_cpu_backend(placed_by(opt, &run_))), placement_(p) {}

std::unique_ptr<sdr::pc2_hasher> placed_backend::make_pc2_hasher() { return inner_->make_pc2_hasher(); }

void placed_backend::label(const sdr::label_job& job, sdr::layer_store& store) {
  run_placed([&] { inner_->label(job, store); });
}

sdr::label_run_times placed_backend::timed_label(const sdr::label_job& job, sdr::layer_store& store) {
  sdr::label_run_times t;
  run_placed([&] { t = inner_->timed_label(job, store); });
  return t;
}

void placed_backend::run_placed(const std::function<void()>& labeling) {
  const std::lock_guard<std::mutex> one(one_run_);
  run_.cpus = placement_cpus(placement_, topology(), affinity_cpus());
  run_.seen.clear();
  // With one labeling thread the labeler pins nothing: the calling thread (OpenMP's thread
  // 0) is placed here, except for compact, where it never was.
  cpu_set_t saved;
  CPU_ZERO(&saved);
  const bool pin0 = placement_ != thread_placement::compact && !run_.cpus.empty() &&
                    sched_getaffinity(0, sizeof saved, &saved) == 0;
  if (pin0) pin_this_thread(run_.cpus[0]);
  const int cpu_before = sched_getcpu();
  struct unpin {
    bool pinned;
    cpu_set_t* mask;
    ~unpin() {
      if (pinned) pthread_setaffinity_np(pthread_self(), sizeof *mask, mask);
    }
  };
  {
    const unpin u{pin0, &saved};
    labeling();
    if (std::none_of(run_.seen.begin(), run_.seen.end(), [](const thread_cpu& t) { return t.thread == 0; })) {
      // Pinned here, or by the caller (a mask of one CPU).
      const bool pinned = pin0 || affinity_cpus().size() == 1;
      const int cpu = sched_getcpu();
      run_.record(0, thread_role::label, pinned, cpu_before);
      run_.record(0, thread_role::label, pinned, cpu);
    }
  }
  std::vector<thread_cpu> seen = std::move(run_.seen);
  run_.seen.clear();
  std::sort(seen.begin(), seen.end(), [](const thread_cpu& a, const thread_cpu& b) {
    return std::pair{a.role != thread_role::label, a.thread} < std::pair{b.role != thread_role::label, b.thread};
  });
  const std::lock_guard<std::mutex> lock(mu_);
  last_ = std::move(seen);
}

std::vector<thread_cpu> placed_backend::last_threads() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return last_;
}

std::unique_ptr<placed_backend> make_placed_cpu_backend(const labeler_options& opt, thread_placement p) {
  const std::vector<int> allowed = affinity_cpus();
  if (const std::string why = placement_unavailable(p, topology(), allowed); !why.empty()) throw unavailable_error(why);
  labeler_options o = opt;
  o.pin_threads = true;  // the hooks run; the placement decides whether they pin
  if (p == thread_placement::cores) {
    const int cores = static_cast<int>(placement_cpus(p, topology(), allowed).size());
    if (cores > 0) o.threads = std::min(o.threads > 0 ? o.threads : omp_get_max_threads(), cores);
  }
  return std::make_unique<placed_backend>(o, p);
}

}  // namespace poreplab::cpu
