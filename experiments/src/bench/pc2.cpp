#include "bench/pc2.hpp"

#include <omp.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <chrono>
#include <random>
#include <stdexcept>

#include "backends/device_class.hpp"
#include "bench/pc2_window_files.hpp"
#include "model/pc2_model.hpp"
#include "poreplab/cpu/poseidon_bench.hpp"
#include "poreplab/cpu/poseidon_engines.hpp"
#include "poreplab/field/fr32.hpp"
#include "poreplab/field/fr_mont.hpp"
#include "poreplab/hash/poseidon.hpp"
#include "poreplab/hash/poseidon_fr32.hpp"
#include "poreplab/hash/poseidon_perm.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/interrupt.hpp"
#include "poreplab/memory_check.hpp"
#include "poreplab/sampling.hpp"
#include "poreplab/sdr/pc2_build.hpp"
#include "poreplab/seal/pc2_seal.hpp"
#include "poreplab/seal/seal.hpp"
#include "poreplab/stats.hpp"
#include "poreplab/storage/disk_probe.hpp"
#include "records/schema.hpp"
#include "util/field_data.hpp"
#include "util/share_dir.hpp"
#include "util/text.hpp"

#ifdef POREPLAB_WITH_CUDA
#include "poreplab/cuda/devices.hpp"
#endif

namespace poreplab {

namespace key = records::key;
namespace axis = records::axis;
namespace ctx = records::ctx;

namespace {

namespace m = fr::mont;
namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

// One core's fastest Fr product on `e` (cpu::bench_poseidon's fastest verified sample):
// its dense-matrix rows summed as its rounds sum them where it has that form, else
// independent chains of full multiplies filling its lanes. Every product PC2 counts costs
// at least this: the rate a core could sustain if PC2 were nothing but such products.
struct product_rate {
  double ns = 0;
  std::string form;
};
product_rate engine_product_ns(const cpu::poseidon_engine& e) {
  cpu::poseidon_bench_options o;
  o.arities = {};  // multiply and product rows only
  o.min_time_s = 0.01;
  o.repetitions = 3;
  product_rate best;
  for (const auto& row : cpu::bench_poseidon(e.name, o)) {
    if (!row.verified || (best.ns > 0 && row.min_ns >= best.ns)) continue;
    best.ns = row.min_ns;
    best.form = row.what == cpu::poseidon_row::product_throughput
                    ? "the dense MDS matrix of width " + std::to_string(row.arity + 1) + ", rows summed as its rounds sum them"
                    : "independent chains of full multiplies filling its lanes";
  }
  if (best.ns <= 0) throw std::runtime_error("bench pc2: engine " + std::string(e.name) + " gave no verified multiply rate");
  return best;
}

// One core's multiply of the device code's 32-bit words (fr32.hpp) as the host runs it
// under cuda-emu, same batch.
double fr32_mul_ns() {
  constexpr std::size_t n = 4096;
  std::vector<fr32::elem> a(n), b(n), out(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = fr32::from_limbs(m::from_u64(i + 3));
    b[i] = fr32::from_limbs(m::from_u64(7 * i + 11));
  }
  double best = 1e30;
  for (int round = 0; round < 7; ++round) {
    const auto t0 = clock_type::now();
    for (int rep = 0; rep < 8; ++rep)
      for (std::size_t i = 0; i < n; ++i) out[i] = fr32::mul(a[i], b[i]);
    best = std::min(best, std::chrono::duration<double, std::nano>(clock_type::now() - t0).count() / (8.0 * n));
    a.swap(out);
  }
  return best;
}

// The device's multiplies/s as modeled (pc2_model: this build's multiply's SASS, else its
// FMA pipe saturated), with this
// device's SM count and clock; false when no CUDA device or latency-table entry.
bool device_mul_bound(double& per_s, std::string& basis) {
#ifdef POREPLAB_WITH_CUDA
  const auto report = cuda::query_devices();
  if (!report.available || report.devices.empty()) return false;
  const auto& d = report.devices.front();
  const std::string arch = "sm_" + std::to_string(d.sm_major * 10 + d.sm_minor);
  const auto table = gpu_model::load_latency_table({});
  if (table.archs.count(arch) == 0) return false;
  gpu_model::arch_params a = gpu_model::arch_of(table, arch);
  a.device = d.name;
  a.sm_count = d.multiprocessors;
  a.clock_mhz = d.clock_khz / 1000.0;
  const auto e = gpu_model::best_pc2_model(a, 1.0);
  per_s = e.fr_mul_per_s;
  basis = "modeled: " + e.basis;
  return true;
#else
  (void)per_s;
  (void)basis;
  return false;
#endif
}

m::elem load(const std::uint8_t* p) {
  m::elem e;
  m::from_bytes(p, e);
  return e;
}

bool equal_bytes(const m::elem& e, const std::uint8_t* p) {
  std::uint8_t b[32];
  m::to_bytes(e, b);
  return std::equal(b, b + 32, p);
}

// The multiplies/s no engine of this backend's class can beat: the device modeled, else one
// core's fastest product measured here times the threads.
void set_mul_bound(const pc2_bench_options& opt, pc2_bench_result& r) {
  r.threads = opt.knobs.is_set(axis::threads) && opt.knobs.count(axis::threads) > 0 ? static_cast<int>(opt.knobs.count(axis::threads))
                                                                           : omp_get_max_threads();
  const device_class on = opt.backend->device;
  if (on == device_class::gpu) {
    r.threads = 0;
    r.mul_engine = "the device";
    if (!device_mul_bound(r.bound_mul_per_s, r.bound_basis)) r.bound_basis = "no model of this device";
  } else {
    // The host CPU backend's engine; the emulated GPU's device arithmetic on the host; else
    // (the oracle) the portable multiply.
    if (on == device_class::gpu_emulated) {
      r.mul_engine = "fr32 (the device code's 32-bit words, on the host)";
      r.fr_mul_ns_bound = fr32_mul_ns();
      r.mul_form = "a batch of independent full multiplies";
      if (const double matrix = fr32_matrix_product_ns(); matrix > 0 && matrix < r.fr_mul_ns_bound) {
        r.fr_mul_ns_bound = matrix;
        r.mul_form = "the dense MDS matrix of width 12 in the device code's form, rows summed as its rounds sum them";
      }
    } else {
      const cpu::poseidon_engine& e =
          on == device_class::host_cpu ? cpu::default_poseidon_engine() : cpu::poseidon_engine_named("portable");
      r.mul_engine = std::string(e.name);
      const product_rate p = engine_product_ns(e);
      r.fr_mul_ns_bound = p.ns;
      r.mul_form = p.form;
    }
    r.bound_mul_per_s = double(r.threads) * 1e9 / r.fr_mul_ns_bound;
    r.bound_basis = "measured: " + format_number(r.fr_mul_ns_bound, 3) + " ns per product on one core (" +
                    r.mul_engine + ", " + r.mul_form + ") x " + std::to_string(r.threads) + " threads";
  }
}

}  // namespace

// One core's product in the device code's own form, as the host runs it under cuda-emu:
// the dense MDS matrix of width 12 applied over and over through optimized_rounds'
// mds_dense with fr32::ops, state in locals as the kernel keeps it in registers; the
// fastest of 1, 2 and 4 states stepped together, each checked against fr::mont's M^reps x.
// Zero when a result disagrees (the bound then falls back to the full multiply).
double fr32_matrix_product_ns() {
  constexpr int width = 12;
  constexpr std::size_t w = width;
  constexpr std::size_t reps = 256;  // about 3 ms a round on a host core
  using rounds = poseidon::optimized_rounds<fr32::ops, poseidon::device_constants<width>>;
  const poseidon::packed_constants packed = poseidon::pack_constants(poseidon::constants_for(width - 1));
  const auto c = poseidon::view_constants<width>(packed, packed.words.data());
  constexpr std::size_t most = 4;
  std::vector<std::uint64_t> want(most * w * 4, 0);  // canonical limbs, state by state
  fr32::elem start[most][w];
  for (std::size_t j = 0; j < most; ++j)
    for (std::size_t k = 0; k < w; ++k) {
      std::uint64_t* x = want.data() + 4 * (j * w + k);
      x[0] = 1000 * j + k * k + 5;
      start[j][k] = fr32::from_limbs(m::to_mont(x));
    }
  cpu::matrix_reference(want, width, reps);
  double best = 0;
  for (const std::size_t chains : {std::size_t{1}, std::size_t{2}, std::size_t{4}}) {
    double fastest = 1e30;
    bool agrees = true;
    for (int round = 0; round < 15; ++round) {
      fr32::elem s[most][w];
      std::copy(&start[0][0], &start[0][0] + most * w, &s[0][0]);
      const auto t0 = clock_type::now();
      for (std::size_t r = 0; r < reps; ++r)
        for (std::size_t j = 0; j < chains; ++j) rounds::mds_dense(c, s[j]);
      fastest = std::min(fastest, std::chrono::duration<double, std::nano>(clock_type::now() - t0).count() /
                                      static_cast<double>(reps * chains * w * w));
      for (std::size_t j = 0; j < chains; ++j)
        for (std::size_t k = 0; k < w; ++k) {
          std::uint64_t got[4];
          m::from_mont(fr32::to_limbs(s[j][k]), got);
          agrees = agrees && std::equal(got, got + 4, want.data() + 4 * (j * w + k));
        }
    }
    if (agrees && (best == 0 || fastest < best)) best = fastest;
  }
  return best;
}

namespace {

// What one run hashes: the whole sector or a window of it, in memory, from a sealed
// directory, or from a window's files written first.
struct pc2_plan {
  bool from_files = false;
  bool window_files = false;  // from files a window: written to layer_dir first
  fs::path dir;               // the sealed directory
  fs::path layer_dir;
  std::optional<seal::seal_manifest> sm;
  std::uint32_t layers = 0;
  sdr::tree_shape sector_shape;
  sdr::tree_shape shape;
  std::uint64_t nodes = 0;
  std::uint64_t per_tree = 0;  // nodes per tree_c file
  bool sealed_dir() const { return from_files && !window_files; }
};

// The options checked and the run's extent fixed; from a sealed directory, the sector size
// and layers are its.
pc2_plan plan_pc2_run(const pc2_bench_options& opt, pc2_bench_result& r) {
  pc2_plan p;
  if (opt.samples == 0) throw std::invalid_argument("samples: at least 1");
  p.from_files = opt.source == pc2_source::files;
  p.window_files = p.from_files && opt.window_nodes != 0;
  p.dir = opt.from;
  if (!p.window_files && !opt.layer_dir.empty())
    throw std::invalid_argument("--layer-dir: only for a window from files (--source files --window-nodes N)");
  if (p.window_files) {
    if (!opt.from.empty())
      throw std::invalid_argument("--window-nodes: --from DIR is a sealed sector, hashed whole; a window from files "
                                  "is written to --layer-dir");
    p.layer_dir = opt.layer_dir.empty() ? default_layer_dir() : fs::path(opt.layer_dir);
    r.layer_dir = p.layer_dir.string();
  } else if (p.from_files) {
    if (opt.from.empty())
      throw std::invalid_argument("--source files: name the sealed directory (--from DIR) or a window (--window-nodes N)");
    p.sm = seal::read_seal_manifest(p.dir / seal::kSealManifest);
    r.options.sector_size = p.sm->sector_bytes;
    r.options.layers = p.sm->layers;
  }
  p.layers = r.options.layers;
  if (p.layers != 2 && p.layers != 11)
    throw std::invalid_argument(
        (p.sealed_dir() ? (p.dir / seal::kSealManifest).string() + ": /inputs/layers: " : "layers: ") +
        std::to_string(p.layers) + " (PC2 hashes columns of 2 or 11 layers)");
  p.sector_shape = sdr::tree_shape_for_sector_size(r.options.sector_size);
  r.sector_nodes = r.options.sector_size / 32;
  p.shape = p.sector_shape;
  p.nodes = r.sector_nodes;
  if (opt.window_nodes != 0) {
    if (!sdr::is_power_of_8(opt.window_nodes) || opt.window_nodes < 64 || opt.window_nodes > r.sector_nodes)
      throw std::invalid_argument("window_nodes: " + std::to_string(opt.window_nodes) +
                                  " nodes is not a power of 8 from 64 to the sector's " +
                                  std::to_string(r.sector_nodes));
    p.shape = sdr::tree_shape{8, 0, 0};
    p.nodes = opt.window_nodes;
  }
  r.nodes_hashed = p.nodes;
  p.per_tree = p.nodes / p.shape.base_count();
  return p;
}

// The run's memory: tree_c as the builds write it, and (from memory, or a window's files
// to write) the labels and replica.
struct pc2_buffers {
  std::vector<std::vector<std::uint8_t>> labels;
  std::vector<const std::uint8_t*> ptr;
  std::vector<std::uint8_t> replica;
  std::vector<std::vector<std::uint8_t>> tree_c;
};

pc2_buffers allocate_pc2_buffers(const pc2_plan& p) {
  const double tree_c_bytes = double(sdr::tree_nodes(p.per_tree, 8)) * 32 * p.shape.base_count();
  const bool labels = !p.sealed_dir();
  require_memory(static_cast<std::uint64_t>(tree_c_bytes + (labels ? double(p.nodes) * 32 * (p.layers + 1) : 0.0)),
                 "pc2 bench");
  pc2_buffers b;
  if (labels) {
    const auto seed = [](std::uint64_t i) { return 0x9e3779b97f4a7c15ull ^ (i * 0xbf58476d1ce4e5b9ull); };
    for (std::uint32_t l = 0; l < p.layers; ++l) b.labels.push_back(field_element_data(p.nodes * 32, seed(l + 1)));
    for (const auto& v : b.labels) b.ptr.push_back(v.data());
    b.replica = field_element_data(p.nodes * 32, seed(1000));
  }
  b.tree_c.assign(p.shape.base_count(), std::vector<std::uint8_t>(sdr::tree_nodes(p.per_tree, 8) * 32));
  return b;
}

// A window from files: the labels and replica in `b` written to the scratch files, synced
// and dropped; then the caller's look at them, then the same window's PC2 from memory (the
// result every sample must equal).
sdr::pc2_result write_window_files(const pc2_bench_options& opt, const pc2_plan& p, const pc2_buffers& b,
                                   pc2_window_files& files, sdr::pc2_hasher& h, pc2_bench_result& r) {
  const auto t0 = clock_type::now();
  for (std::uint32_t l = 0; l < p.layers; ++l) {
    throw_if_interrupted();
    files.write(l, b.ptr[l]);
  }
  files.write(p.layers, b.replica.data());
  files.sync_and_drop();  // each build drops them again and records what stayed (disk_beside)
  r.scratch_write_s = std::chrono::duration<double>(clock_type::now() - t0).count();
  r.scratch_bytes = files.bytes();
  if (opt.after_window_written) opt.after_window_written(files.paths());
  return sdr::build_pc2_in_memory(b.ptr, b.replica.data(), p.nodes, p.shape, h);
}

// Hashing that does nothing: build_pc2's feed timed with the cores to itself.
class no_hashing final : public sdr::pc2_hasher {
 public:
  std::string name() const override { return "none (the feed alone)"; }
  void hash_columns(std::span<const std::uint8_t* const>, std::uint64_t, std::uint8_t*) override {}
  void hash_level(const std::uint8_t*, std::uint64_t, std::uint32_t, std::uint8_t*) override {}
};

// From files: each build's inputs dropped from the page cache first (the largest share a
// file kept recorded), and beside each sample, before its build in even samples and after
// it in odd ones: the disk's sequential read of the same files, and the feed alone (the
// reader through build_pc2 with no_hashing: its rate when hashing takes no host core).
struct disk_beside {
  std::vector<fs::path> files;
  std::function<sdr::pc2_pipeline_stats()> feed_alone;
  std::vector<double> probes, alone;  // GiB/s
  double cached = 0;                  // the largest share seen; -1: not known
  std::string how;

  void drop() {
    for (const auto& f : files) {
      const double left = storage::drop_cached_pages(f);
      cached = left < 0 || cached < 0 ? -1 : std::max(cached, left);
    }
  }
  void probe() {
    const auto s = storage::probe_sequential_reads(files, storage::sequential_probe_options{});
    probes.push_back(s.gib_per_s);
    cached = cached < 0 ? -1 : std::max(cached, s.cached_share_before);
    how = std::string(s.direct ? "O_DIRECT" : "buffered after dropping the pages") + ", " +
          std::to_string(s.block_bytes >> 20) + " MiB reads, " + std::to_string(s.queue_depth) + " in flight (" +
          storage::io_engine_name(s.engine) + "), the files one after another";
    drop();
    const sdr::pc2_pipeline_stats f = feed_alone();
    alone.push_back(f.feed_s > 0 ? double(f.bytes_read) / f.feed_s / double(1ull << 30) : 0);
  }
};

// The timed builds: every sample's result and pipeline stats, and the disk beside them.
struct pc2_timing {
  sdr::pc2_result out;               // the last build's
  std::vector<sdr::pc2_result> all;  // every build's, warmup included
  std::vector<sdr::pc2_pipeline_stats> runs;
  disk_beside disk;
};

// One build of the job over the plan's inputs: from memory, or from files opened afresh
// (their pages dropped as read) and, for a sealed directory, their digests checked after.
sdr::pc2_result build_once(const pc2_plan& p, const pc2_buffers& b, const pc2_window_files* window, sdr::pc2_job& job,
                           sdr::pc2_hasher& h, std::string& how_read) {
  if (!p.from_files) {
    job.read_label = [&](std::uint32_t l, std::uint64_t first, std::uint64_t count, std::uint8_t* o) {
      std::copy_n(b.ptr[l - 1] + 32 * first, 32 * count, o);
    };
    job.read_replica = [&](std::uint64_t first, std::uint64_t count, std::uint8_t* o) {
      std::copy_n(b.replica.data() + 32 * first, 32 * count, o);
    };
    return sdr::build_pc2(job, h);
  }
  seal::pc2_file_inputs in = window != nullptr ? seal::pc2_file_inputs(window->inputs()) : seal::pc2_file_inputs(p.dir, *p.sm);
  in.feed(job);
  const auto out = sdr::build_pc2(job, h);
  if (window == nullptr) in.check_digests(p.dir / seal::kSealManifest);
  how_read = in.how_read();
  return out;
}

// Warmup builds, then builds until the stopping rule is met, each sample's ns per node
// (and the hasher's kernel time, where it keeps one) into r; from files, each build after
// its inputs' pages are dropped, and the disk's sequential read probed beside each sample.
pc2_timing time_pc2_builds(const pc2_bench_options& opt, const pc2_plan& p, pc2_buffers& b,
                           const pc2_window_files* window, sdr::pc2_hasher& h, pc2_bench_result& r) {
  sdr::pc2_job job;
  job.nodes = p.nodes;
  job.layers = p.layers;
  job.shape = p.shape;
  job.buffers = opt.buffers;
  job.readers = opt.readers;
  job.chunk_nodes = opt.chunk_nodes;
  job.write = [&](std::uint32_t f, std::uint64_t off, const std::uint8_t* src, std::uint64_t n) {
    if (f < p.shape.base_count()) std::copy_n(src, n, b.tree_c[f].data() + off);
  };
  job.progress = [](std::uint64_t, std::uint64_t) { throw_if_interrupted(); };
  pc2_timing t;
  if (p.from_files) {
    t.disk.files = window != nullptr ? window->paths() : seal::pc2_file_inputs(p.dir, *p.sm).paths();
    t.disk.feed_alone = [&] {
      sdr::pc2_job alone = job;
      alone.write = nullptr;
      no_hashing none;
      std::string how;
      return build_once(p, b, window, alone, none, how).pipeline;
    };
  }
  const auto build = [&] {
    if (p.from_files) t.disk.drop();
    t.out = build_once(p, b, window, job, h, r.feed_how);
    t.all.push_back(t.out);
  };
  std::vector<double> kernel_ns;
  for (std::uint32_t i = 0; i < opt.warmup; ++i) build();
  stopping_rule rule{stopping_options{opt.samples}};
  sample_until(
      rule,
      [&](std::size_t i) {
        if (p.from_files && i % 2 == 0) t.disk.probe();
        const double k0 = h.kernel_seconds();
        const auto t0 = clock_type::now();
        build();
        r.samples_ns_per_node.push_back(std::chrono::duration<double, std::nano>(clock_type::now() - t0).count() /
                                        double(p.nodes));
        t.runs.push_back(t.out.pipeline);
        if (k0 >= 0) kernel_ns.push_back((h.kernel_seconds() - k0) * 1e9 / double(p.nodes));
        if (p.from_files && i % 2 == 1) t.disk.probe();
      },
      [&]() -> const std::vector<double>& { return r.samples_ns_per_node; });
  r.kernel_ns_per_node = kernel_ns.empty() ? -1 : median(kernel_ns);
  return t;
}

// The pipeline's stages as the median sample ran them.
void record_pipeline_medians(const std::vector<sdr::pc2_pipeline_stats>& runs, pc2_bench_result& r) {
  const auto median_of = [&](auto field) {
    std::vector<double> v;
    for (const auto& s : runs) v.push_back(double(s.*field));
    return median(v);
  };
  sdr::pc2_pipeline_stats mid;
  mid.feed_s = r.feed_s = median_of(&sdr::pc2_pipeline_stats::feed_s);
  mid.hash_s = r.hash_s = median_of(&sdr::pc2_pipeline_stats::hash_s);
  mid.end_to_end_s = r.end_to_end_s = median_of(&sdr::pc2_pipeline_stats::end_to_end_s);
  r.pace = sdr::pace_of(mid);
  r.bytes_read = runs.back().bytes_read;
  r.chunks = runs.back().chunks;
  r.chunk_nodes = runs.back().chunk_nodes;
  r.buffers = runs.back().buffers;
  r.overlapped_reads = static_cast<std::uint64_t>(median_of(&sdr::pc2_pipeline_stats::overlapped_reads));
  r.feed_cpu_s = median_of(&sdr::pc2_pipeline_stats::feed_cpu_s);
  r.feed_queued_s = median_of(&sdr::pc2_pipeline_stats::feed_queued_s);
  r.digest_s = median_of(&sdr::pc2_pipeline_stats::digest_s);
  r.feed_gib_per_s = r.feed_s > 0 ? double(r.bytes_read) / r.feed_s / double(1ull << 30) : 0;
}

// Sampled check with the plain permutation: leaves (column hashes) and internal nodes of
// tree_c from the children the file holds, and comm_r from comm_c and comm_r_last.
void verify_pc2_output(const pc2_bench_options& opt, const pc2_plan& p, const pc2_buffers& b,
                       const sdr::pc2_result& out, pc2_bench_result& r) {
  std::optional<seal::pc2_file_inputs> check_files;
  if (p.sealed_dir()) check_files.emplace(p.dir, *p.sm);
  const auto label_at = [&](std::uint32_t l, std::uint64_t node) {
    if (!p.sealed_dir()) return load(b.ptr[l - 1] + 32 * node);
    std::uint8_t buf[32];
    check_files->read_node(l, node, buf);
    return load(buf);
  };
  std::mt19937_64 rng(7);
  bool ok = true;
  const auto& col = poseidon::constants_for(static_cast<int>(p.layers));
  const auto& oct = poseidon::constants_for(8);
  for (std::uint64_t s = 0; s < opt.verify_samples && ok; ++s) {
    const std::uint32_t t = static_cast<std::uint32_t>(rng() % p.shape.base_count());
    const std::uint64_t leaf = rng() % p.per_tree;
    const auto& tree = b.tree_c[t];
    m::elem in[11];
    for (std::uint32_t l = 0; l < p.layers; ++l) in[l] = label_at(l + 1, t * p.per_tree + leaf);
    ok = equal_bytes(poseidon::hash_plain(col, in), tree.data() + 32 * leaf);
    const std::uint64_t internal = rng() % ((p.per_tree - 1) / 7);  // node index above the leaves
    const std::uint64_t children = internal * 8;                    // its first child, counted from the file's start
    m::elem kids[8];
    for (int k = 0; k < 8; ++k) kids[k] = load(tree.data() + 32 * (children + static_cast<std::uint64_t>(k)));
    ok = ok && equal_bytes(poseidon::hash_plain(oct, kids), tree.data() + 32 * (p.per_tree + internal));
  }
  const m::elem pair[2] = {load(out.comm_c.data()), load(out.comm_r_last.data())};
  ok = ok && equal_bytes(poseidon::hash_plain(poseidon::constants_for(2), pair), out.comm_r.data());
  r.verified_against = std::to_string(opt.verify_samples) +
                       " sampled column hashes and tree_c nodes, and comm_r, recomputed with the plain permutation";
  // A directory whose PC2 was run holds its comm_r: the bench's must be it.
  if (p.sealed_dir() && p.sm->document.contains("pc2") && p.sm->document["pc2"].is_object() &&
      p.sm->document["pc2"].contains("comm_r")) {
    ok = ok && p.sm->document["pc2"]["comm_r"] == r.digest;
    r.verified_against += "; comm_r equal to seal.json's /pc2/comm_r";
  }
  r.verified = ok;
}

// A window from files: every build's comm_c, comm_r_last and comm_r equal to the same
// window's from memory.
void verify_against_memory(const std::vector<sdr::pc2_result>& builds, const sdr::pc2_result& memory,
                           pc2_bench_result& r) {
  bool same = !builds.empty();
  for (const auto& o : builds)
    same = same && o.comm_c == memory.comm_c && o.comm_r_last == memory.comm_r_last && o.comm_r == memory.comm_r;
  r.verified = r.verified && same;
  r.verified_against = "comm_c, comm_r_last and comm_r of every build (" + std::to_string(builds.size()) +
                       ") equal to the same window's PC2 from memory, over the labels the files were written from; " +
                       r.verified_against;
}

// The disk beside the feed, from the probes and drops of the timed builds.
void record_disk_beside(const disk_beside& d, pc2_bench_result& r) {
  r.page_cache_share_before_read = d.cached;
  r.disk_seq_read_samples_gib_per_s = d.probes;
  r.disk_seq_read_gib_per_s = d.probes.empty() ? 0 : median(d.probes);
  r.disk_seq_read_how = d.how;
  r.feed_over_disk = r.disk_seq_read_gib_per_s > 0 ? r.feed_gib_per_s / r.disk_seq_read_gib_per_s : 0;
  r.feed_alone_gib_per_s = d.alone.empty() ? 0 : median(d.alone);
  r.feed_alone_over_disk = r.disk_seq_read_gib_per_s > 0 ? r.feed_alone_gib_per_s / r.disk_seq_read_gib_per_s : 0;
}

}  // namespace

pc2_bench_result run_pc2_bench(const pc2_bench_options& opt) {
  pc2_bench_result r;
  r.options = opt;
  const pc2_plan p = plan_pc2_run(opt, r);
  auto be = opt.backend->make(opt.knobs);
  auto h = be->make_pc2_hasher();
  r.hasher = h->name();
  // A window's files: their names and room checked before the labels are made.
  std::optional<pc2_window_files> window;
  if (p.window_files) window.emplace(p.layer_dir, p.layers, p.nodes);
  pc2_buffers b = allocate_pc2_buffers(p);
  std::optional<sdr::pc2_result> from_memory;
  if (window) from_memory = write_window_files(opt, p, b, *window, *h, r);
  const pc2_timing t = time_pc2_builds(opt, p, b, window ? &*window : nullptr, *h, r);
  r.digest = to_hex(t.out.comm_r);
  record_pipeline_medians(t.runs, r);
  if (p.from_files) record_disk_beside(t.disk, r);
  verify_pc2_output(opt, p, b, t.out, r);
  if (from_memory) verify_against_memory(t.all, *from_memory, r);

  r.median_ns_per_node = median(r.samples_ns_per_node);
  r.sector_seconds = r.median_ns_per_node * double(r.sector_nodes) * 1e-9;
  r.multiplies_per_node = sdr::pc2_multiplies(r.sector_nodes, p.layers, p.sector_shape) / double(r.sector_nodes);
  r.fr_mul_per_s = r.multiplies_per_node / (r.median_ns_per_node * 1e-9);
  set_mul_bound(r.options, r);
  r.vs_bound = r.bound_mul_per_s > 0 ? r.fr_mul_per_s / r.bound_mul_per_s : 0;
  return r;
}

nlohmann::json pc2_bench_json(const pc2_bench_result& r) {
  nlohmann::json j = {{axis::backend, r.options.backend->name},
          {ctx::hasher, r.hasher},
          {pc2_key::source, kPc2Sources.name(r.options.source)},
          {"from", r.options.from},

          {"buffers", r.buffers},
          {"readers", std::min(r.options.readers, r.buffers)},
          {"chunk_nodes", r.chunk_nodes},
          {"feed_s", r.feed_s},
          {"feed_gib_per_s", r.feed_gib_per_s},
          {"bytes_read", r.bytes_read},
          {"hash_s", r.hash_s},
          {"end_to_end_s", r.end_to_end_s},
          {ctx::pace, sdr::kPc2Paces.name(r.pace)},
          {"chunks", r.chunks},
          {"overlapped_reads", r.overlapped_reads},
          {axis::sector_size, r.options.sector_size},
          {axis::layers, r.options.layers},
          {axis::window_nodes, r.options.window_nodes},
          {"nodes_hashed", r.nodes_hashed},
          {ctx::threads, r.threads},
          {"samples_ns_per_node", r.samples_ns_per_node},
          {"ns_per_node", r.median_ns_per_node},
          {"sector_seconds", r.sector_seconds},
          {"sector_seconds_is", r.options.window_nodes == 0 ? "measured" : "extrapolated from the window"},
          {"multiplies_per_node", r.multiplies_per_node},
          {"fr_mul_per_s", r.fr_mul_per_s},
          {"mul_engine", r.mul_engine},
          {"fr_mul_ns_core", r.fr_mul_ns_bound},
          {"bound_mul_per_s", r.bound_mul_per_s},
          {"bound_basis", r.bound_basis},
          {"vs_mul_bound", r.vs_bound},
          {ctx::kernel_ns_per_node, r.kernel_ns_per_node},
          {"comm_r", r.digest},
          {key::verified, r.verified},
          {key::verified_against, r.verified_against}};
  if (r.options.source == pc2_source::files) {
    j[pc2_key::feed_how] = r.feed_how;
    j[pc2_key::feed_cpu_s] = r.feed_cpu_s;
    j[pc2_key::feed_queued_s] = r.feed_queued_s;
    j[pc2_key::feed_alone_gib_per_s] = r.feed_alone_gib_per_s;
    j[pc2_key::feed_alone_over_disk] = r.feed_alone_over_disk;
    j[pc2_key::page_cache_share_before_read] = r.page_cache_share_before_read;
    j[pc2_key::disk_seq_read_gib_per_s] = r.disk_seq_read_gib_per_s;
    j[pc2_key::disk_seq_read_samples_gib_per_s] = r.disk_seq_read_samples_gib_per_s;
    j[pc2_key::disk_seq_read_how] = r.disk_seq_read_how;
    j[pc2_key::feed_over_disk] = r.feed_over_disk;
    j[pc2_key::digest_s] = r.digest_s;
  }
  if (!r.layer_dir.empty()) {
    j[pc2_key::layer_dir] = r.layer_dir;
    j[pc2_key::scratch_bytes] = r.scratch_bytes;
    j[pc2_key::scratch_write_s] = r.scratch_write_s;
  }
  return j;
}

}  // namespace poreplab
