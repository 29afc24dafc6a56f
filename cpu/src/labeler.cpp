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
#include <utility>
#include <vector>

#include "layer_loop.hpp"

namespace poreplab::cpu {

namespace {

// The CPUs of this process's affinity mask, in order.
std::vector<int> allowed_cpus() { return affinity_cpus(); }

// The producer pairs' pinning (label_with_producers: odd OpenMP threads are producers).
// A placed labeling (topology.hpp) records it; placement none pins nothing.
void pin_to_cpu(int cpu) {
  const int t = omp_get_thread_num();
  const int placed = detail::placed_cpu(t);
  if (placed != -1) pin_this_thread(cpu);
  if (placed != detail::kNotPlaced) detail::note_thread(t, t % 2 == 1 ? thread_role::producer : thread_role::label, placed != -1);
}

// Labeling thread `index`: on the CPU its placement gives (topology.hpp) in a placed
// labeling, else on the index-th CPU of the affinity mask.
void pin_current_thread(int index) {
  if (const int placed = detail::placed_cpu(index); placed != detail::kNotPlaced) {
    if (placed >= 0) pin_this_thread(placed);
    detail::note_thread(index, thread_role::label, placed >= 0);
    return;
  }
  const std::vector<int> cpus = allowed_cpus();
  if (cpus.size() > 1) pin_this_thread(cpus[static_cast<std::size_t>(index) % cpus.size()]);
}

// (labeling CPU, producer CPU) pairs over this process's CPUs (topology.hpp).
std::vector<std::pair<int, int>> producer_pairs(parent_producer where) {
  return producer_cpu_pairs(where, topology(), allowed_cpus());
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

// An engine name given to the backend must name an engine of some algo (which one is
// checked per job, against the job's hash); one that no algo can run here is refused now.
void check_engine_name(const std::string& name) {
  if (name.empty() || name == "auto") return;
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

// Where the producers run (off: none) and the CPU pairs of the labeling threads and their
// producers (one unpinned pair where core is asked for on a single CPU).
struct producer_placement {
  parent_producer where = parent_producer::off;
  std::vector<std::pair<int, int>> pairs;
};

producer_placement producer_plan(const labeler_options& opt, const sdr::label_job& job, const engine& e, int used) {
  if (opt.producer == parent_producer::off) return {};
  const bool fits = job.scheme.variant == sdr::porep_variant::sdr && e.algo == hash_family::sha256 &&
                    opt.assembly != message_assembly::gather;
  if (opt.producer != parent_producer::automatic) {
    if (!fits)
      throw std::invalid_argument("producer " + std::string(kParentProducers.name(opt.producer)) +
                                  ": parents are gathered ahead for SDR SHA-256 jobs with in-place assembly only "
                                  "(use producer off or auto)");
    producer_placement p{opt.producer, producer_pairs(opt.producer)};
    if (p.pairs.empty()) p.pairs.emplace_back(-1, -1);
    return p;
  }
  if (!fits || 32ull * job.nodes * job.sectors <= producer_min_layer_bytes(last_level_cache_bytes())) return {};
  // Another core only: it is what was measured (docs/cpu-backend.md); a sibling shares the
  // core's ports with the hash chain, and is used when asked for.
  producer_placement p{parent_producer::core, producer_pairs(parent_producer::core)};
  if (p.pairs.size() >= static_cast<std::size_t>(used)) return p;
  return {};
}

class cpu_backend final : public sdr::backend {
 public:
  explicit cpu_backend(const labeler_options& opt) : opt_(opt) {}

  std::string name() const override { return "cpu"; }

  std::unique_ptr<sdr::pc2_hasher> make_pc2_hasher() override { return make_cpu_pc2_hasher(opt_.threads); }
  sdr::tree_d_row_hasher tree_d_rows() override { return make_tree_d_row_hasher(opt_.threads); }

  void label(const sdr::label_job& job, sdr::layer_store& store) override {
    sdr::validate(job);
    const engine& e = pick_label_engine(job.scheme, job.sectors, opt_.engine, opt_.threads);
    if (opt_.pad_precompute && (e.algo != hash_family::sha256 || e.sha256_pad64 == nullptr))
      throw std::invalid_argument("pad_precompute: engine '" + std::string(e.name) +
                                  "' has no precomputed-padding path (SHA-256 engines with one: " + [] {
                                    std::string s;
                                    for (const auto& x : compiled_engines(hash_family::sha256))
                                      if (x.sha256_pad64 != nullptr) s += (s.empty() ? "" : ", ") + std::string(x.name);
                                    return s;
                                  }() + ")");
    const std::uint32_t width = lane_width(e);
    const std::uint32_t groups = (job.sectors + width - 1) / width;
    int used = threads_used(opt_, groups);
    const std::vector<std::pair<int, int>> pairs = producer_plan(opt_, job, e, used).pairs;
    if (!pairs.empty()) used = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(used), pairs.size()));
    // Pinning runs on the calling thread too (it is OpenMP's thread 0): its own affinity
    // comes back when the labeling ends, or the next job would see one allowed CPU.
    const affinity_guard restore_affinity;
    sdr::with_scheme(job.scheme, [&](auto v, auto h) {
      run<decltype(v)::value, decltype(h)::value>(e, job, store, width, groups, used, pairs);
    });
  }

  template <sdr::porep_variant V, hash_family H>
  void run(const engine& e, const sdr::label_job& job, sdr::layer_store& store, std::uint32_t width,
           std::uint32_t groups, int used, const std::vector<std::pair<int, int>>& pairs) const {
    std::vector<std::unique_ptr<detail::parent_ring>> rings;
    if (!pairs.empty())
      for (int p = 0; p < used; ++p)
        rings.push_back(std::make_unique<detail::parent_ring>(static_cast<std::uint32_t>(opt_.ring_depth), width));
    for (std::uint32_t l = job.start_layer(); l <= job.layers; ++l) {
      sdr::report_layer_start(job, l);
      const sdr::layer_inputs in = sdr::begin_layer(job, store, l);
      const std::size_t layer_bytes = 32ull * job.nodes * job.sectors;
      advise_pages(in.cur, layer_bytes, opt_.pages);
      advise_pages(in.prev, layer_bytes, opt_.pages);
      advise_pages(job.parents, 4ull * sdr::kParents * job.parent_rows(), opt_.pages);
      if (!pairs.empty()) {
        if constexpr (V == sdr::porep_variant::sdr && H == hash_family::sha256) {
          label_with_producers<H>(e, job, l, in, width, groups, used, pairs, rings);
          sdr::report_nodes(job, job.nodes);
          store.layer_done(l);
          continue;
        }
      }
#pragma omp parallel num_threads(used)
      {
        if (opt_.pin_threads && used > 1) pin_current_thread(omp_get_thread_num());
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
  }

  // Pair p: thread 2p labels groups p, p + used, ...; thread 2p + 1 produces their
  // parents. A team smaller than asked (OpenMP limits) labels without producers.
  template <hash_family H>
  void label_with_producers(const engine& e, const sdr::label_job& job, std::uint32_t l, const sdr::layer_inputs& in,
                            std::uint32_t width, std::uint32_t groups, int used,
                            const std::vector<std::pair<int, int>>& pairs,
                            std::vector<std::unique_ptr<detail::parent_ring>>& rings) const {
    constexpr auto kSdr = sdr::porep_variant::sdr;
    const std::uint64_t nodes = job.node_end() - job.node_begin();
#pragma omp parallel num_threads(2 * used)
    {
      const int t = omp_get_thread_num(), team = omp_get_num_threads();
      const bool paired = team == 2 * used;
      const int pair = paired ? t / 2 : t;
      const bool producer = paired && t % 2 == 1;
      if (opt_.pin_threads && paired && pairs[static_cast<std::size_t>(pair)].first >= 0) {
        const auto& cpus = pairs[static_cast<std::size_t>(pair)];
        pin_to_cpu(producer ? cpus.second : cpus.first);
      }
      std::uint64_t pos = paired ? rings[static_cast<std::size_t>(pair)]->next : 0;
      for (std::uint32_t g = static_cast<std::uint32_t>(pair); g < groups; g += static_cast<std::uint32_t>(paired ? used : team)) {
        const std::uint32_t first = g * width;
        const detail::lane_layer<kSdr> at(job, l, in, first, std::min(width, job.sectors - first));
        detail::parent_ring& ring = *rings[static_cast<std::size_t>(pair % used)];  // paired: pair < used
        if (!paired) {
          detail::phase_ticks untimed;
          detail::label_lanes<false, kSdr, H>(e, job, at, opt_, {}, untimed);
        } else if (producer) {
          detail::produce_parents(at, ring, pos, opt_.prefetch_distance == 0 ? 0 : 16, opt_.header_ahead ? &e : nullptr);
        } else {
          detail::label_lanes_from_ring<H>(e, job, at, opt_, ring, pos);
        }
        pos += nodes;
      }
    }
    // Both threads of a pair started from ring.next: it moves on by the pair's nodes only now.
    for (std::uint32_t p = 0; p < static_cast<std::uint32_t>(used); ++p)
      rings[p]->next += nodes * ((groups - p + static_cast<std::uint32_t>(used) - 1) / static_cast<std::uint32_t>(used));
  }

  labeler_options opt_;
};

}  // namespace

const engine& pick_label_engine(std::size_t sectors, int threads) {
  return pick_label_engine(sdr::kFilecoinScheme, sectors, "auto", threads);
}

parent_producer planned_producer(const labeler_options& opt, const sdr::label_job& job) {
  const engine& e = pick_label_engine(job.scheme, job.sectors, opt.engine, opt.threads);
  const std::uint32_t groups = (job.sectors + lane_width(e) - 1) / lane_width(e);
  return producer_plan(opt, job, e, threads_used(opt, groups)).where;
}

bool header_off_chain(const labeler_options& opt, const sdr::label_job& job) {
  if (!opt.header_ahead || job.scheme != sdr::kFilecoinScheme) return false;
  if (planned_producer(opt, job) != parent_producer::off) return true;
  const engine& e = pick_label_engine(job.scheme, job.sectors, opt.engine, opt.threads);
  return header_ahead_in_thread(opt, std::min<std::size_t>(job.sectors, lane_width(e)));
}

std::unique_ptr<sdr::backend> make_cpu_backend(const labeler_options& opt) {
  check_engine_name(opt.engine);
  if (opt.ring_depth < 4 || opt.ring_depth > 4096 || (opt.ring_depth & (opt.ring_depth - 1)) != 0)
    throw std::invalid_argument("ring_depth (--ring-depth) " + std::to_string(opt.ring_depth) +
                                " is not a power of two from 4 to 4096");
  if (opt.producer == parent_producer::sibling && producer_pairs(parent_producer::sibling).empty())
    throw unavailable_error(
        "producer sibling: no CPU of this process has an SMT sibling it may run on (one thread per core here); "
        "valid here: off, auto, core");
  return std::make_unique<cpu_backend>(opt);
}

const engine& pick_label_engine(sdr::label_scheme s, std::size_t sectors, std::string_view name, int threads) {
  const hash_family algo = s.hash;
  if (!name.empty() && name != "auto") return find_engine(algo, name);
  const int t = threads > 0 ? threads : omp_get_max_threads();
  return fastest_engine(algo, std::max<std::size_t>(1, sectors), static_cast<std::size_t>(std::max(t, 1)));
}

}  // namespace poreplab::cpu
