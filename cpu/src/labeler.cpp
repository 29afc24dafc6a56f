#include "poreplab/cpu/labeler.hpp"
#include "poreplab/sdr/pc2_build.hpp"
#include "poreplab/cpu/poseidon_engines.hpp"
#include "poreplab/cpu/placed_backend.hpp"
#include "poreplab/cpu/topology.hpp"
#include "poreplab/cpu/tree_d.hpp"
#include "poreplab/cpu/tune.hpp"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <utility>
#include <vector>

#include "layer_loop.hpp"

namespace poreplab::cpu {

namespace {

// The CPUs of this process's affinity mask, in order.
std::vector<int> allowed_cpus() { return affinity_cpus(); }

// A coordinator team's thread onto its CPU (-1: none). A placed labeling (`placer`,
// topology.hpp) records it; placement none pins nothing.
void pin_team_thread(int cpu, thread_role role, thread_placer* placer) {
  const int t = omp_get_thread_num();
  const bool pin = cpu >= 0 && (placer == nullptr || placer->cpu_for(t) != -1);
  if (pin) pin_this_thread(cpu);
  if (placer != nullptr) placer->ran(t, role, pin);
}

// Labeling thread `index`: on the CPU its placement gives (`placer`, topology.hpp) in a
// placed labeling, else on the index-th CPU of the affinity mask.
void pin_current_thread(int index, thread_placer* placer) {
  if (placer != nullptr) {
    const int placed = placer->cpu_for(index);
    if (placed >= 0) pin_this_thread(placed);
    placer->ran(index, thread_role::label, placed >= 0);
    return;
  }
  const std::vector<int> cpus = allowed_cpus();
  if (cpus.size() > 1) pin_this_thread(cpus[static_cast<std::size_t>(index) % cpus.size()]);
}

// Advisory: a range the kernel cannot advise (a file mapping, THP compiled out) keeps
// its pages as they are, which is what the "default" setting measures anyway.
void advise_pages(const void* p, std::size_t bytes, huge_pages mode) {
  if (mode == huge_pages::system || p == nullptr || bytes == 0) return;
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + page - 1) / page * page;
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) / page * page;
  if (end <= begin) return;
  (void)madvise(reinterpret_cast<void*>(begin), end - begin,
                mode == huge_pages::on ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
}

// "auto" (or no name): the engine is chosen by measured speed for the job's lanes.
bool engine_is_auto(std::string_view name) { return name.empty() || name == "auto"; }

// An engine name given to the backend must name an engine of some algo (which one is
// checked per job, against the job's hash); one that no algo can run here is refused now.
void check_engine_name(const std::string& name) {
  if (engine_is_auto(name)) return;
  std::exception_ptr unavailable;
  std::string valid;
  for (hash_family a : hash_families()) {
    try {
      find_engine(a, name);
      return;
    } catch (const engine_unavailable&) {
      if (!unavailable) unavailable = std::current_exception();
    } catch (const std::invalid_argument&) {
    }
    std::string names;
    for (const auto& e : compiled_engines(a)) names += (names.empty() ? "" : ", ") + std::string(e.name);
    valid += (valid.empty() ? "" : "; ") + std::string(hash_family_name(a)) + ": " + names;
  }
  if (unavailable) std::rethrow_exception(unavailable);
  throw std::invalid_argument("unknown engine '" + name + "' (valid: " + valid + ")");
}

// Engines run groups of lanes (sectors), as many as they are wide.
std::uint32_t lane_width(const engine& e) { return static_cast<std::uint32_t>(std::max<std::size_t>(1, e.lanes)); }

int threads_used(const labeler_options& opt, std::uint32_t groups) {
  const int threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
  return static_cast<int>(std::min<std::uint32_t>(groups, static_cast<std::uint32_t>(threads)));
}

// Where the coordinators run (off: none), their teams, and the groups of lanes each hasher
// owns (hasher h, counted over the teams in order: groups [first[h], first[h + 1])).
struct coordination {
  parent_producer where = parent_producer::off;
  std::vector<coordinator_team> teams;
  std::vector<std::uint32_t> first;
  std::uint32_t hashers() const { return static_cast<std::uint32_t>(first.empty() ? 0 : first.size() - 1); }
};

// Keeps the first `hashers` hashers of the teams (a team left without one goes) and gives
// them the groups in contiguous, balanced slices.
coordination with_hashers(parent_producer where, std::vector<coordinator_team> teams, std::uint32_t hashers,
                          std::uint32_t groups) {
  coordination c{where, {}, {}};
  std::uint32_t kept = 0;
  for (auto& t : teams) {
    if (kept == hashers) break;
    t.hashers.resize(std::min<std::size_t>(t.hashers.size(), hashers - kept));
    kept += static_cast<std::uint32_t>(t.hashers.size());
    c.teams.push_back(std::move(t));
  }
  for (std::uint32_t h = 0; h <= kept; ++h) c.first.push_back(static_cast<std::uint32_t>(std::uint64_t{groups} * h / kept));
  return c;
}

std::string hashers_flag(std::size_t k) { return "hashers_per_coordinator (--hashers-per-coordinator) " + std::to_string(k); }

// The teams for `job`: `used` hashing threads wanted (threads_used). Pinned, a team asked
// for must fit the CPUs of this process; unpinned (or on one CPU) it runs where the OS puts it.
coordination coordination_plan(const labeler_options& opt, const sdr::label_job& job, const engine& e, int used) {
  if (opt.producer == parent_producer::off) return {};
  const bool fits =
      sdr::label_scheme{job.scheme.variant, e.algo}.is_filecoin() && opt.assembly != message_assembly::gather;
  const std::uint32_t groups = (job.sectors + lane_width(e) - 1) / lane_width(e);
  const std::vector<int> cpus = allowed_cpus();
  const std::size_t k = opt.hashers_per_coordinator;
  if (opt.producer != parent_producer::automatic) {
    if (!fits)
      throw std::invalid_argument("producer " + std::string(kParentProducers.name(opt.producer)) +
                                  ": parents are gathered ahead for SDR SHA-256 jobs with in-place assembly only "
                                  "(use producer off or auto)");
    if (opt.pin_threads && cpus.size() > 1 && k + 1 > cpus.size())
      throw std::invalid_argument(hashers_flag(k) + ": a coordinator and its hashers need " + std::to_string(k + 1) +
                                  " CPUs, this process may run on " + std::to_string(cpus.size()) +
                                  " (valid: 0 (auto) to " + std::to_string(cpus.size() - 1) + ")");
    std::vector<coordinator_team> teams;
    if (opt.pin_threads) teams = coordinator_teams(opt.producer, k, topology(), cpus);
    if (teams.empty()) {  // unpinned teams of k (or one) hashers
      const std::size_t per = std::max<std::size_t>(1, k);
      for (std::size_t h = 0; h < static_cast<std::size_t>(used); h += per)
        teams.push_back({-1, std::vector<int>(std::min(per, static_cast<std::size_t>(used) - h), -1)});
    }
    std::uint32_t room = 0;
    for (const auto& t : teams) room += static_cast<std::uint32_t>(t.hashers.size());
    return with_hashers(opt.producer, std::move(teams), std::min(room, static_cast<std::uint32_t>(used)), groups);
  }
  if (!fits || 32ull * job.nodes * job.sectors <= producer_min_layer_bytes(last_level_cache_bytes())) return {};
  // Another core only: it is what was measured (docs/cpu-backend.md); a sibling shares the
  // core's ports with the hash chains, and is used when asked for.
  std::vector<coordinator_team> teams = coordinator_teams(parent_producer::core, k, topology(), cpus);
  std::uint32_t room = 0;
  for (const auto& t : teams) room += static_cast<std::uint32_t>(t.hashers.size());
  if (room < static_cast<std::uint32_t>(used)) return {};
  return with_hashers(parent_producer::core, std::move(teams), static_cast<std::uint32_t>(used), groups);
}

class cpu_backend final : public sdr::backend {
 public:
  explicit cpu_backend(const labeler_options& opt) : opt_(opt) {}

  std::string name() const override { return "cpu"; }

  std::unique_ptr<sdr::pc2_hasher> make_pc2_hasher() override { return make_cpu_pc2_hasher(opt_.threads); }
  sdr::tree_d_row_hasher tree_d_rows() override { return make_tree_d_row_hasher(opt_.threads); }

  void label(const sdr::label_job& job, sdr::layer_store& store) override {
    sdr::validate(job);
    const engine& e = label_engine(opt_, job);
    if (opt_.pad_precompute && e.sha256_pad64 == nullptr)  // set on SHA-256 engines only
      throw std::invalid_argument("pad_precompute: engine '" + std::string(e.name) +
                                  "' has no precomputed-padding path (SHA-256 engines with one: " + [] {
                                    std::string s;
                                    for (const auto& x : compiled_engines(hash_family::sha256))
                                      if (x.sha256_pad64 != nullptr) s += (s.empty() ? "" : ", ") + std::string(x.name);
                                    return s;
                                  }() + ")");
    const std::uint32_t width = lane_width(e);
    const std::uint32_t groups = (job.sectors + width - 1) / width;
    const int used = threads_used(opt_, groups);
    const coordination plan = coordination_plan(opt_, job, e, used);
    // Pinning runs on the calling thread too (it is OpenMP's thread 0): its own affinity
    // comes back when the labeling ends, or the next job would see one allowed CPU.
    const affinity_guard restore_affinity;
    sdr::with_scheme(job.scheme, [&](auto v, auto h) {
      run<decltype(v)::value, decltype(h)::value>(e, job, store, width, groups, used, plan);
    });
  }

  sdr::label_run_times timed_label(const sdr::label_job& job, sdr::layer_store& store) override {
    account_ = {};
    sdr::label_run_times t = sdr::backend::timed_label(job, store);
    t.coordination = account_;
    return t;
  }

  template <sdr::porep_variant V, hash_family H>
  void run(const engine& e, const sdr::label_job& job, sdr::layer_store& store, std::uint32_t width,
           std::uint32_t groups, int used, const coordination& plan) {
    std::vector<std::unique_ptr<detail::parent_ring>> rings;
    for (std::size_t t = 0, h = 0; t < plan.teams.size(); h += plan.teams[t].hashers.size(), ++t) {
      const std::uint32_t lanes = std::min(job.sectors, plan.first[h + plan.teams[t].hashers.size()] * width) - plan.first[h] * width;
      const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
      const auto depth = opt_.ring_depth != 0 ? static_cast<std::uint32_t>(opt_.ring_depth)
                                              : detail::parent_ring::auto_slots(lanes, l2 > 0 ? static_cast<std::uint64_t>(l2) : 0);
      rings.push_back(std::make_unique<detail::parent_ring>(depth, lanes,
                                                            static_cast<std::uint32_t>(plan.teams[t].hashers.size())));
    }
    for (std::uint32_t l = job.start_layer(); l <= job.layers; ++l) {
      sdr::report_layer_start(job, l);
      const sdr::layer_inputs in = sdr::begin_layer(job, store, l);
      const std::size_t layer_bytes = 32ull * job.nodes * job.sectors;
      advise_pages(in.cur, layer_bytes, opt_.pages);
      advise_pages(in.prev, layer_bytes, opt_.pages);
      advise_pages(job.parents, 4ull * sdr::kParents * job.parent_rows(), opt_.pages);
      if (!rings.empty()) {
        if constexpr (V == sdr::porep_variant::sdr && H == hash_family::sha256) {
          label_with_coordinators<H>(e, job, l, in, width, plan, rings);
          sdr::report_nodes(job, job.nodes);
          store.layer_done(l);
          continue;
        }
      }
#pragma omp parallel num_threads(used)
      {
        if (opt_.pin_threads && used > 1) pin_current_thread(omp_get_thread_num(), opt_.placer);
#pragma omp for schedule(static)
        for (std::int64_t g = 0; g < static_cast<std::int64_t>(groups); ++g) {
          const auto first = static_cast<std::uint32_t>(g) * width;
          const detail::lane_layer<V> at(job, l, in, first, std::min(width, job.sectors - first));
          detail::phase_ticks untimed;
          detail::label_lanes<false, V, H>(e, job, at, opt_, {}, untimed);
        }
      }
      sdr::report_nodes(job, job.nodes);
      store.layer_done(l);
    }
    for (const auto& r : rings) {
      account_.coordinators += 1;
      account_.hashers += r->hashers();
      account_.coordinator_ticks += r->ticks;
      account_.coordinator_wait_ticks += r->wait_ticks;
      account_.parent_rows_copied += r->rows_copied;
    }
  }

  // Thread 0 of each team's run coordinates, the next ones hash (in the plan's order). A
  // thread that throws stops every team; the first exception is the labeling's. A team
  // smaller than asked (OpenMP limits) labels in place.
  template <hash_family H>
  void label_with_coordinators(const engine& e, const sdr::label_job& job, std::uint32_t l, const sdr::layer_inputs& in,
                               std::uint32_t width, const coordination& plan,
                               std::vector<std::unique_ptr<detail::parent_ring>>& rings) const {
    constexpr auto kSdr = sdr::porep_variant::sdr;
    struct role {
      std::size_t team;
      int hasher;  // -1: the coordinator
      std::uint32_t global;  // hasher index over every team
    };
    std::vector<role> roles;
    for (std::size_t t = 0, h = 0; t < plan.teams.size(); ++t) {
      roles.push_back({t, -1, 0});
      for (std::size_t j = 0; j < plan.teams[t].hashers.size(); ++j, ++h)
        roles.push_back({t, static_cast<int>(j), static_cast<std::uint32_t>(h)});
    }
    std::vector<std::uint32_t> team_first(plan.teams.size());
    for (std::size_t t = 0; t < roles.size(); ++t)
      if (roles[t].hasher == 0) team_first[roles[t].team] = plan.first[roles[t].global];
    const std::uint64_t nodes = job.node_end() - job.node_begin();
    const std::uint32_t groups = plan.first.back();
    std::mutex failed_mu;
    std::exception_ptr failed;
    const auto stop_all = [&](std::exception_ptr ex) {
      {
        const std::lock_guard<std::mutex> lock(failed_mu);
        if (!failed) failed = std::move(ex);
      }
      for (auto& r : rings) r->stop();
    };
    bool teamed = true;
#pragma omp parallel num_threads(static_cast<int>(roles.size()))
    {
      const int t = omp_get_thread_num(), team = omp_get_num_threads();
      if (t == 0) teamed = team == static_cast<int>(roles.size());
      if (team != static_cast<int>(roles.size())) {
        for (std::uint32_t g = static_cast<std::uint32_t>(t); g < groups; g += static_cast<std::uint32_t>(team)) {
          const std::uint32_t first = g * width;
          const detail::lane_layer<kSdr> at(job, l, in, first, std::min(width, job.sectors - first));
          detail::phase_ticks untimed;
          detail::label_lanes<false, kSdr, H>(e, job, at, opt_, {}, untimed);
        }
      } else {
        const role& r = roles[static_cast<std::size_t>(t)];
        const coordinator_team& cpus = plan.teams[r.team];
        detail::parent_ring& ring = *rings[r.team];
        if (opt_.pin_threads)
          pin_team_thread(r.hasher < 0 ? cpus.coordinator : cpus.hashers[static_cast<std::size_t>(r.hasher)],
                          r.hasher < 0 ? thread_role::producer : thread_role::label, opt_.placer);
        const std::uint32_t lane0 = team_first[r.team] * width;
        try {
          if (r.hasher < 0) {
            const detail::lane_layer<kSdr> at(job, l, in, lane0, ring.lanes());
            detail::produce_parents(at, ring, ring.next, opt_.prefetch_distance == 0 ? 0 : 16,
                                    opt_.header_ahead ? &detail::header_engine() : nullptr);
          } else {
            detail::hasher_slice slice;
            slice.index = static_cast<std::uint32_t>(r.hasher);
            for (std::uint32_t g = plan.first[r.global]; g < plan.first[r.global + 1]; ++g) {
              const std::uint32_t first = g * width;
              slice.groups.emplace_back(job, l, in, first, std::min(width, job.sectors - first));
              slice.offsets.push_back(first - lane0);
            }
            detail::label_slice_from_ring<H>(e, job, slice, ring.lanes(), opt_, ring, ring.next);
          }
        } catch (const detail::team_stopped&) {
        } catch (...) {
          stop_all(std::current_exception());
        }
      }
    }
    if (failed) std::rethrow_exception(failed);
    if (teamed)
      for (auto& r : rings) r->next += nodes;
  }

  mutable sdr::coordination_account account_;
  labeler_options opt_;
};

}  // namespace

const engine& pick_label_engine(std::size_t sectors, int threads) {
  return pick_label_engine(sdr::kFilecoinScheme, sectors, "auto", threads);
}

const engine& label_engine(const labeler_options& opt, const sdr::label_job& job) {
  const engine& e = pick_label_engine(job.scheme, job.sectors, opt.engine, opt.threads);
  const bool forced_teams = opt.producer != parent_producer::off && opt.producer != parent_producer::automatic;
  if (!engine_is_auto(opt.engine) || !forced_teams) return e;
  const int used = threads_used(opt, (job.sectors + lane_width(e) - 1) / lane_width(e));
  const std::uint32_t hashers = coordination_plan(opt, job, e, used).hashers();
  if (hashers == 0 || hashers >= static_cast<std::uint32_t>(used)) return e;
  return pick_label_engine(job.scheme, job.sectors, opt.engine, static_cast<int>(hashers));
}

planned_teams planned_coordination(const labeler_options& opt, const sdr::label_job& job) {
  const engine& e = label_engine(opt, job);
  const std::uint32_t groups = (job.sectors + lane_width(e) - 1) / lane_width(e);
  const coordination c = coordination_plan(opt, job, e, threads_used(opt, groups));
  return {c.where, static_cast<std::uint32_t>(c.teams.size()), c.hashers()};
}

parent_producer planned_producer(const labeler_options& opt, const sdr::label_job& job) {
  return planned_coordination(opt, job).where;
}

bool header_off_chain(const labeler_options& opt, const sdr::label_job& job) {
  if (!opt.header_ahead || job.scheme != sdr::kFilecoinScheme) return false;
  if (planned_producer(opt, job) != parent_producer::off) return true;
  const engine& e = label_engine(opt, job);
  return header_ahead_in_thread(opt, std::min<std::size_t>(job.sectors, lane_width(e)));
}

std::unique_ptr<sdr::backend> make_cpu_backend(const labeler_options& opt) {
  check_engine_name(opt.engine);
  if (opt.ring_depth != 0 && (opt.ring_depth < 4 || opt.ring_depth > 4096 || (opt.ring_depth & (opt.ring_depth - 1)) != 0))
    throw std::invalid_argument("ring_depth (--ring-depth) " + std::to_string(opt.ring_depth) +
                                " is not 0 (auto) or a power of two from 4 to 4096");
  if (opt.hashers_per_coordinator > kMaxHashersPerCoordinator)
    throw std::invalid_argument(hashers_flag(opt.hashers_per_coordinator) + " is out of range (valid: 0 (auto) to " +
                                std::to_string(kMaxHashersPerCoordinator) + ")");
  if (opt.producer == parent_producer::sibling && opt.hashers_per_coordinator > 1)
    throw std::invalid_argument(hashers_flag(opt.hashers_per_coordinator) +
                                ": producer sibling feeds the one hasher of its core (valid: 0 or 1; more with producer core)");
  if (opt.producer == parent_producer::sibling &&
      coordinator_teams(parent_producer::sibling, 1, topology(), allowed_cpus()).empty())
    throw unavailable_error(
        "producer sibling: no CPU of this process has an SMT sibling it may run on (one thread per core here); "
        "valid here: off, auto, core");
  return std::make_unique<cpu_backend>(opt);
}

const engine& pick_label_engine(sdr::label_scheme s, std::size_t sectors, std::string_view name, int threads) {
  const hash_family algo = s.hash;
  if (!engine_is_auto(name)) return find_engine(algo, name);
  const int t = threads > 0 ? threads : omp_get_max_threads();
  return fastest_engine(algo, std::max<std::size_t>(1, sectors), static_cast<std::size_t>(std::max(t, 1)));
}

}  // namespace poreplab::cpu
