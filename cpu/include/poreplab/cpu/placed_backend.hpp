#pragma once
// The cpu backend with its labeling threads placed as a thread_placement (topology.hpp)
// says, and the record of where each thread ran.
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "poreplab/cpu/labeler.hpp"
#include "poreplab/cpu/topology.hpp"
#include "poreplab/name_table.hpp"

namespace poreplab::cpu {

// Where one thread of a labeling ran (its last layer).
// What a labeling's thread did: label nodes, or gather parents for a labeling thread.
enum class thread_role { label, producer };
inline constexpr name_table<thread_role, 2> kThreadRoles{
    "thread role", {named<thread_role>{thread_role::label, "label"}, named<thread_role>{thread_role::producer, "producer"}}};

struct thread_cpu {
  int thread = 0;         // OpenMP thread number
  int cpu = -1;           // sched_getcpu() just after placement
  int core = -1;          // that CPU's core in topology()
  thread_role role = thread_role::label;  // a producer: a parent producer (labeler.hpp)
  bool pinned = false;
  bool moved = false;     // unpinned, and on another CPU at an earlier layer
};

// What a placed labeling tells the labeler (labeler_options::placer): the CPU of each
// labeling thread, and where each thread ran. One labeling at a time uses it.
class thread_placer {
 public:
  virtual ~thread_placer() = default;
  // The CPU to pin OpenMP thread `index` to; -1: none (placement none).
  virtual int cpu_for(int index) const = 0;
  // Thread `index` is placed (pinned or not) and now runs where sched_getcpu() says.
  virtual void ran(int index, thread_role role, bool pinned) = 0;
};

// The cpu backend with its labeling threads placed by `p` (pin_threads is then ignored:
// none is no pinning) and the map of where each thread ran kept after every labeling.
// Producers (labeler_options::producer) keep their own CPU pairs, recorded as such.
class placed_backend final : public sdr::backend {
 public:
  placed_backend(const labeler_options& opt, thread_placement p);
  std::string name() const override { return inner_->name(); }
  void label(const sdr::label_job& job, sdr::layer_store& store) override;
  sdr::label_run_times timed_label(const sdr::label_job& job, sdr::layer_store& store) override;
  std::unique_ptr<sdr::pc2_hasher> make_pc2_hasher() override;
  sdr::tree_d_row_hasher tree_d_rows() override { return inner_->tree_d_rows(); }
  thread_placement placement() const { return placement_; }
  // The last labeling's threads, by role then thread number.
  std::vector<thread_cpu> last_threads() const;

 private:
  // Runs `labeling` (the inner backend's) with the threads placed, and keeps where they ran.
  void run_placed(const std::function<void()>& labeling);

  // This backend's labeling in progress: the CPUs of its threads and where they ran.
  class run_record final : public thread_placer {
   public:
    int cpu_for(int index) const override;
    void ran(int index, thread_role role, bool pinned) override;
    void record(int index, thread_role role, bool pinned, int cpu);
    std::vector<int> cpus;  // thread i's CPU at [i % size]; empty: no pinning
    std::vector<thread_cpu> seen;

   private:
    std::mutex mu_;
  };

  std::mutex one_run_;  // one labeling of this backend at a time: they share run_
  run_record run_;      // before inner_: the labeler holds its address
  std::unique_ptr<sdr::backend> inner_;
  thread_placement placement_;
  mutable std::mutex mu_;
  std::vector<thread_cpu> last_;
};

// Throws what make_cpu_backend throws, and unavailable_error for siblings without SMT
// siblings to use (as producer sibling does).
std::unique_ptr<placed_backend> make_placed_cpu_backend(const labeler_options& opt, thread_placement p);


}  // namespace poreplab::cpu
