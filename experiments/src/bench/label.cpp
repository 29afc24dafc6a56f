#include "bench/label.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>

#include <omp.h>

#include "backends/backends.hpp"
#include "poreplab/cpu/features.hpp"
#include "poreplab/checked.hpp"
#include "poreplab/cpu/floor.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/graph/zigzag_graph.hpp"
#include "poreplab/huge_buffer.hpp"
#include "poreplab/memory_check.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/stats.hpp"

namespace poreplab {

namespace {

std::vector<std::uint8_t> replica_ids(std::uint32_t sectors) {
  std::vector<std::uint8_t> ids(32ull * sectors);
  for (std::uint32_t s = 0; s < sectors; ++s) {
    const std::string seed = "poreplab bench sector " + std::to_string(s);
    sha256::digest(ids.data() + 32ull * s, seed.data(), seed.size());
    ids[32ull * s + 31] &= 0x3f;
  }
  return ids;
}

std::uint64_t status_kib(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::stoull(line.substr(std::string(key).size()));
  return 0;
}

// Resets the kernel's peak-RSS counter so VmHWM measures from here (Linux >= 4.0).
void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

}  // namespace

label_bench_result bench_label(const label_bench_options& opt) {
  if (opt.sector_size < 64 || (opt.sector_size & (opt.sector_size - 1)) != 0)
    throw std::invalid_argument("sector size " + std::to_string(opt.sector_size) +
                                " is not a power of two of at least 64 bytes");
  if (opt.sectors == 0) throw std::invalid_argument("sectors must be at least 1");
  if (opt.layers == 0 || opt.layers > sdr::kMaxLayers)
    throw std::invalid_argument("layers: " + std::to_string(opt.layers) + " is not from 1 to " +
                                std::to_string(sdr::kMaxLayers));
  if (opt.samples == 0) throw std::invalid_argument("samples must be at least 1");
  {  // Two layer buffers for the backend and two for the reference check (zigzag: the data
     // too) and the parent table: refused before any of it is allocated.
    const bool zz = opt.variant == "zigzag";
    const std::uint64_t layer = checked_mul(opt.sector_size, opt.sectors, "sector size * sectors");
    require_memory(checked_add(checked_mul(layer, zz ? 5 : 4, "bench label memory"),
                               checked_mul(opt.sector_size / 32, zz ? 112 : 56, "bench label memory"), "bench label memory"),
                   "bench label");
  }
  label_bench_result r;
  r.options = opt;
  r.nodes = opt.sector_size / 32;
  r.device = cpu::detect().model;

  const backend_entry& entry = find_backend(opt.backend);
  auto be = entry.make(opt.knobs);  // throws if it cannot run here

  const sdr::label_scheme scheme{sdr::parse_variant(opt.variant), sdr::parse_label_hash(opt.hash)};
  r.scheme = sdr::scheme_name(scheme);
  r.scheme_status = sdr::scheme_status(scheme);
  r.hashed_bytes_per_node = sdr::message_bytes(scheme.variant);
  const cpu::engine* engine = entry.floor_engine ? entry.floor_engine(scheme, opt.sectors, opt.knobs) : nullptr;
  r.engine = engine != nullptr ? std::string(engine->name) : opt.backend;

  const auto id = sdr::benchmark_porep_id(opt.sector_size);
  const auto g = graph::make_graph_params(id.data(), graph::api_version::v1_1_0, r.nodes);
  const std::uint64_t layer_bytes = checked_mul(opt.sector_size, opt.sectors, "sector size * sectors");
  graph::parent_table sdr_table;
  huge_buffer zigzag_table;
  std::vector<std::uint8_t> data;
  const std::uint32_t* parents = nullptr;
  if (scheme.variant == sdr::porep_variant::zigzag) {
    zigzag_table = graph::zigzag_table(g);
    parents = reinterpret_cast<const std::uint32_t*>(zigzag_table.data());
    data = sdr::generated_field_data(layer_bytes, 0x9e3779b97f4a7c15ull);
  } else {
    sdr_table = graph::parent_table::generate(g);
    parents = sdr_table.data();
  }
  const auto ids = replica_ids(opt.sectors);
  const sdr::label_job job{r.nodes, parents, opt.layers, opt.sectors, ids.data(), scheme,
                           data.empty() ? nullptr : data.data()};

  // Peak RSS growth from here covers the two layer buffers and whatever the backend
  // allocates; the parent table (56 B/node, or mapped from a cache file) is not included.
  const std::uint64_t base_kib = status_kib("VmRSS:");
  reset_peak_rss();
  sdr::rolling_layer_store store(layer_bytes);
  const double work = static_cast<double>(r.nodes) * opt.layers;
  for (std::uint32_t i = 0; i < opt.warmup; ++i) be->label(job, store);
  std::vector<std::string> digests;
  double best_kernel_s = -1;
  for (std::uint32_t i = 0; i < opt.samples; ++i) {
    const sdr::label_run_times t = be->timed_label(job, store);
    r.samples_ns_per_node_layer.push_back(t.end_to_end_s * 1e9 / work);
    digests.push_back(sha256_hex(store.layer(opt.layers), layer_bytes));
    if (!t.device.empty()) {
      r.device = t.device;
      r.device_sm_count = t.device_multiprocessors;
      r.device_clock_mhz = t.device_clock_mhz;
    }
    if (t.kernel_s < 0) continue;
    // Device backends: samples are end to end; the label kernels alone are kept beside
    // them, with the fastest sample's breakdown.
    r.kernel_samples_ns_per_node_layer.push_back(t.kernel_s * 1e9 / work);
    if (best_kernel_s < 0 || t.kernel_s < best_kernel_s) {
      best_kernel_s = t.kernel_s;
      r.kernel_load_s = t.load_s;
      r.upload_s = t.upload_s;
      r.transpose_s = t.transpose_s;
      r.copy_s = t.copy_s;
      r.label_launches = t.label_launches;
      r.launch_nodes = t.launch_nodes;
      r.parent_placement = t.parent_placement;
    }
  }
  if (!r.kernel_samples_ns_per_node_layer.empty()) r.kernel_ns_per_node_layer = median(r.kernel_samples_ns_per_node_layer);
  const std::uint64_t peak_kib = std::max(status_kib("VmHWM:"), base_kib);

  // Every sample is checked against the portable reference's last layer.
  std::string want;
  {
    sdr::rolling_layer_store ref(layer_bytes);
    sdr::make_reference_backend()->label(job, ref);
    want = sha256_hex(ref.layer(opt.layers), layer_bytes);
  }

  r.digest = digests.back();
  r.verified = std::all_of(digests.begin(), digests.end(), [&](const std::string& d) { return d == want; });

  r.rss_bytes_per_node =
      static_cast<double>(peak_kib - base_kib) * 1024 / (static_cast<double>(r.nodes) * opt.sectors);
  r.ns_per_node_layer = median(r.samples_ns_per_node_layer);
  r.labels_per_s = static_cast<double>(opt.sectors) * 1e9 / r.ns_per_node_layer;
  // Per sector stream, as the seed report counts (rdtsc per hashed byte): every sector
  // advances one node per ns_per_node_layer.
  if (const double hz = cpu::tsc_hz(); hz > 0)
    r.cycles_per_byte = r.ns_per_node_layer * 1e-9 * hz / static_cast<double>(r.hashed_bytes_per_node);
  if (engine != nullptr) {
    const std::uint64_t knob_threads = opt.knobs.count("threads");
    const int threads = knob_threads > 0 ? static_cast<int>(knob_threads) : omp_get_max_threads();
    const double floor_s = cpu::measure_floor_seconds(*engine, scheme, opt.sectors, r.nodes * opt.layers, threads);
    r.floor_ns_per_node_layer = floor_s * 1e9 / work;
    r.efficiency = r.floor_ns_per_node_layer / r.ns_per_node_layer;
  }
  return r;
}

nlohmann::json to_json(const label_bench_result& r) {
  return {{"kind", "label"},
          {"backend", r.options.backend},
          {"variant", r.options.variant},
          {"hash", r.options.hash},
          {"scheme", r.scheme},
          {"scheme_status", r.scheme_status},
          {"hashed_bytes_per_node", r.hashed_bytes_per_node},
          {"cycles_per_byte", r.cycles_per_byte},
          {"engine", r.engine},
          {"device", r.device},
          {"device_sm_count", r.device_sm_count},
          {"device_clock_mhz", r.device_clock_mhz},
          {"layout", r.options.knobs.text("layout")},
          {"sector_size", r.options.sector_size},
          {"sectors", r.options.sectors},
          {"threads", r.options.knobs.count("threads")},
          {"nodes", r.nodes},
          {"layers", r.options.layers},
          {"ns_per_node_layer", r.ns_per_node_layer},
          {"labels_per_s", r.labels_per_s},
          {"floor_ns_per_node_layer", r.floor_ns_per_node_layer},
          {"efficiency", r.efficiency},
          {"verified", r.verified},
          {"digest", r.digest},
          {"rss_bytes_per_node", r.rss_bytes_per_node},
          {"samples_ns_per_node_layer", r.samples_ns_per_node_layer},
          {"kernel_ns_per_node_layer", r.kernel_ns_per_node_layer},
          {"kernel_samples_ns_per_node_layer", r.kernel_samples_ns_per_node_layer},
          {"threads_per_block", r.options.knobs.count("threads_per_block")},
          {"kernel", r.options.knobs.text("kernel")},
          {"kernel_load_s", r.kernel_load_s},
          {"upload_s", r.upload_s},
          {"transpose_s", r.transpose_s},
          {"copy_s", r.copy_s},
          {"label_launches", r.label_launches},
          {"launch_nodes", r.launch_nodes},
          {"parent_placement", r.parent_placement}};
}

}  // namespace poreplab
