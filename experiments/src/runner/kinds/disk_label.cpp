// The `disk_label` kind: SDR labeling of S sectors with their layers on a disk (the
// production design at 32GiB: a RAM node cache, every other parent read from the disk),
// through bench_disk_label (the same measurement as `poreplab bench disk-label`). The
// layer directory is POREPLAB_LAYER_DIR, else /var/tmp: a run measures the disk it is
// given, and records say which.
#include "bench/disk_label.hpp"
#include "bench/label.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/storage/disk_probe.hpp"
#include "records/schema.hpp"
#include "runner/kinds.hpp"
#include "util/share_dir.hpp"

namespace poreplab::runner {

namespace axis = records::axis;
namespace rate = records::rate;

using nlohmann::json;

namespace {

disk_label_bench_options options_of(const json& axes) {
  disk_label_bench_options o;
  o.sector_size = axes[axis::sector_size];
  o.sectors = static_cast<std::uint32_t>(axes[axis::sectors].get<std::uint64_t>());
  o.layers = static_cast<std::uint32_t>(axes[axis::layers].get<std::uint64_t>());
  o.window_nodes = axes[axis::window_nodes];
  o.disk.layer_dir = default_layer_dir();
  o.disk.cache_nodes = axes["cache_nodes"];
  o.disk.lookahead = static_cast<std::uint32_t>(axes["lookahead"].get<std::uint64_t>());
  o.disk.queue_depth = static_cast<std::uint32_t>(axes["queue_depth"].get<std::uint64_t>());
  o.disk.io = storage::parse_io_engine(axes["io_engine"].get<std::string>());
  o.disk.direct = axes["direct"].get<std::uint64_t>() != 0;
  o.disk.hashing_threads = static_cast<std::uint32_t>(axes[axis::threads].get<std::uint64_t>());
  o.disk.engine = axes[axis::engine].get<std::string>();
  return o;
}

std::string unavailable(const json& axes) {
  const disk_label_bench_options o = options_of(axes);
  const double row = 32.0 * o.sectors;
  if (auto m = memory_shortfall(static_cast<double>(o.disk.cache_nodes + o.disk.lookahead) * row +
                                static_cast<double>(o.disk.lookahead) * 14 * (row + 8192));
      !m.empty())
    return m;
  std::string why;
  if (o.disk.direct && !storage::direct_io_supported(o.disk.layer_dir, &why)) return why + " (" + kLayerDirEnv + ")";
  if (o.disk.io == storage::io_engine::io_uring && !storage::io_uring_available(&why)) return why;
  return {};
}

measurement run_plan(const json& axes, const sampling& plan) {
  disk_label_bench_options o = options_of(axes);
  o.warmup = plan.warmup;
  o.samples = plan.samples;
  o.max_seconds = plan.time_budget_s;
  const disk_label_bench_result r = bench_disk_label(o);
  measurement m;
  m.metric = rate::ns_per_node_layer;
  m.samples = r.samples_ns_per_node_layer;
  m.digest = r.digest;
  m.verified = r.verified;
  m.verified_against = r.verified_by.against() + (r.verified_by.method == check_method::sampled ? " on the disk" : "");
  m.context = to_json(r);
  m.context.erase("samples_ns_per_node_layer");
  m.stopped_by = r.stopped_by;
  return m;
}

measurement run(const json& axes, std::uint32_t warmup, std::uint32_t samples) {
  return run_plan(axes, sampling{warmup, samples, 0, 0});
}

json rates(const json& axes, const json& ctx, double median) {
  json r = {{rate::ns_per_node_layer, median}};
  if (median > 0) r[rate::labels_per_s] = axes[axis::sectors].get<double>() * 1e9 / median;
  for (const char* key : {"reads_per_node", "reads_per_s", "read_amplification", "base_cache_hit_ratio", "read_wait_share",
                          "iops_bound_labels_per_s", "vs_iops_bound"})
    if (ctx.contains(key)) r[key] = ctx[key];
  return r;
}

}  // namespace

kind_spec disk_label_kind() {
  kind_spec k;
  k.name = records::kind_name(records::record_kind::disk_label);
  k.help = "SDR labeling of S sectors with their layers on a disk (" + std::string(kLayerDirEnv) +
           ", else /var/tmp): a RAM node cache, every other parent read ahead from the disk";
  k.axes = {size_param(axis::sector_size, 2048, 64, true, "sector size, a power of two"),
            count_param(axis::sectors, 1, 1, 4096, "sectors labeled together (a node's row: 32 bytes each)"),
            count_param(axis::layers, 2, 1, 64, "layers labeled (a window: the layer it is in)"),
            count_param(axis::window_nodes, 0, 0, 1ull << 32, "> 0: a window of this many nodes of a full-size sector"),
            count_param("cache_nodes", 1u << 20, 0, 1ull << 36, "the current layer's most recent rows kept in RAM"),
            count_param("lookahead", 256, 2, 65536, "nodes whose parents are read ahead (a power of two)"),
            count_param("queue_depth", 64, 1, 4096, "reads in flight"),
            text_param("io_engine", "auto", [] { return storage::kIoEngines.names(); },
                      "how reads are issued"),
            count_param("direct", 1, 0, 1, "1: O_DIRECT (the page cache does not answer); 0: buffered"),
            count_param(axis::threads, 1, 1, 256, "hashing threads (a producer and a writer run beside them)"),
            label_engine_axis("SHA-256 engine, or auto")};
  k.unavailable = unavailable;
  k.run = run;
  k.run_sampled = run_plan;
  k.rates = rates;
  return k;
}

}  // namespace poreplab::runner
