#include "poreplab/cpu/labeler.hpp"
#include "poreplab/cpu/tune.hpp"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <exception>

#include "layer_loop.hpp"

namespace poreplab::cpu {

namespace {

void pin_current_thread(int index) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  const int count = CPU_COUNT(&allowed);
  if (count <= 1) return;
  int target = index % count;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    if (target-- == 0) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      pthread_setaffinity_np(pthread_self(), sizeof one, &one);
      return;
    }
  }
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
  for (engine_algo a : engine_algos()) {
    try {
      find_engine(a, name);
      return;
    } catch (const engine_unavailable&) {
      if (!unavailable) unavailable = std::current_exception();
    } catch (const std::invalid_argument&) {
    }
    std::string names;
    for (const auto& e : compiled_engines(a)) names += (names.empty() ? "" : ", ") + std::string(e.name);
    valid += (valid.empty() ? "" : "; ") + std::string(engine_algo_name(a)) + ": " + names;
  }
  if (unavailable) std::rethrow_exception(unavailable);
  throw std::invalid_argument("unknown engine '" + name + "' (valid: " + valid + ")");
}

class cpu_backend final : public sdr::backend {
 public:
  explicit cpu_backend(const labeler_options& opt) : opt_(opt) {}

  std::string name() const override { return "cpu"; }

  void label(const sdr::label_job& job, sdr::layer_store& store) override {
    sdr::validate(job);
    const engine& e = pick_label_engine(job.scheme, job.sectors, opt_.engine);
    if (opt_.assembly == message_assembly::in_place && e.algo != engine_algo::sha256)
      throw std::invalid_argument("assembly in-place needs a SHA-256 job: the " + std::string(engine_algo_name(e.algo)) +
                                  " engines take contiguous blocks, so their messages are always gathered");
    if (opt_.pad_precompute && (e.algo != engine_algo::sha256 || e.sha256_pad64 == nullptr))
      throw std::invalid_argument("pad_precompute: engine '" + std::string(e.name) +
                                  "' has no precomputed-padding path (SHA-256 engines with one: " + [] {
                                    std::string s;
                                    for (const auto& x : compiled_engines(engine_algo::sha256))
                                      if (x.sha256_pad64 != nullptr) s += (s.empty() ? "" : ", ") + std::string(x.name);
                                    return s;
                                  }() + ")");
    // SHA-256 engines run groups of lanes (sectors); BLAKE2 engines one sector a call.
    const std::uint32_t width =
        e.algo == engine_algo::sha256 ? static_cast<std::uint32_t>(std::max<std::size_t>(1, e.lanes)) : 1;
    const std::uint32_t groups = (job.sectors + width - 1) / width;
    const int threads = opt_.threads > 0 ? opt_.threads : omp_get_max_threads();
    const int used = static_cast<int>(std::min<std::uint32_t>(groups, static_cast<std::uint32_t>(threads)));
    sdr::with_scheme(job.scheme, [&](auto v, auto h) {
      run<decltype(v)::value, decltype(h)::value>(e, job, store, width, groups, used);
    });
  }

 private:
  template <sdr::porep_variant V, sdr::label_hash H>
  void run(const engine& e, const sdr::label_job& job, sdr::layer_store& store, std::uint32_t width,
           std::uint32_t groups, int used) const {
    for (std::uint32_t l = job.start_layer(); l <= job.layers; ++l) {
      sdr::report_layer_start(job, l);
      const sdr::layer_inputs in = sdr::begin_layer(job, store, l);
      const std::size_t layer_bytes = 32ull * job.nodes * job.sectors;
      advise_pages(in.cur, layer_bytes, opt_.pages);
      advise_pages(in.prev, layer_bytes, opt_.pages);
      advise_pages(job.parents, 4ull * sdr::kParents * job.parent_rows(), opt_.pages);
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

  labeler_options opt_;
};

}  // namespace

message_assembly parse_message_assembly(std::string_view s) {
  if (s == "auto") return message_assembly::automatic;
  if (s == "in-place") return message_assembly::in_place;
  if (s == "gather") return message_assembly::gather;
  throw std::invalid_argument("unknown message assembly '" + std::string(s) + "' (valid: auto, in-place, gather)");
}

field_encoding parse_field_encoding(std::string_view s) {
  if (s == "normal") return field_encoding::normal;
  if (s == "montgomery") return field_encoding::montgomery;
  throw std::invalid_argument("unknown field encoding '" + std::string(s) + "' (valid: normal, montgomery)");
}

huge_pages parse_huge_pages(std::string_view s) {
  if (s == "default") return huge_pages::system;
  if (s == "on") return huge_pages::on;
  if (s == "off") return huge_pages::off;
  throw std::invalid_argument("unknown huge_pages setting '" + std::string(s) + "' (valid: default, on, off)");
}

prefetch_level parse_prefetch_level(std::string_view s) {
  if (s == "l1") return prefetch_level::l1;
  if (s == "l2") return prefetch_level::l2;
  throw std::invalid_argument("unknown prefetch level '" + std::string(s) + "' (valid: l1, l2)");
}

const engine& pick_label_engine(std::size_t sectors) {
  return fastest_engine(engine_algo::sha256, std::max<std::size_t>(1, sectors));
}

std::unique_ptr<sdr::backend> make_cpu_backend(const labeler_options& opt) {
  check_engine_name(opt.engine);
  return std::make_unique<cpu_backend>(opt);
}

engine_algo label_engine_algo(sdr::label_hash h) {
  switch (h) {
    case sdr::label_hash::blake2s: return engine_algo::blake2s;
    case sdr::label_hash::blake2b_256: return engine_algo::blake2b;
    default: return engine_algo::sha256;
  }
}

const engine& pick_label_engine(sdr::label_scheme s, std::size_t sectors, std::string_view name) {
  const engine_algo algo = label_engine_algo(s.hash);
  if (!name.empty() && name != "auto") return find_engine(algo, name);
  return algo == engine_algo::sha256 ? pick_label_engine(sectors) : best_engine(algo);
}

}  // namespace poreplab::cpu
