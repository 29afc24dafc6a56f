// The `pc2` kind: PC2 (tree_c, tree_r_last, comm_r) on one backend's Poseidon, the whole
// sector or a window standing for its per-node work, over labels generated in memory or
// read from files on the disk of POREPLAB_LAYER_DIR (else /var/tmp): a window's labels
// written there first, or a whole sector the runner seals there first.
#include <optional>

#include "backends/device_class.hpp"
#include "bench/pc2.hpp"
#include "poreplab/sdr/pc2_build.hpp"
#include "records/schema.hpp"
#include "runner/kinds.hpp"
#include "runner/scratch_sector.hpp"
#include "util/share_dir.hpp"

namespace poreplab::runner {

namespace axis = records::axis;

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::uint64_t window_of(const json& axes) {
  return axes.contains(axis::window_nodes) && axes[axis::window_nodes].is_number_unsigned() ? axes[axis::window_nodes].get<std::uint64_t>()
                                                                                   : 0;
}

pc2_source source_of(const json& axes) {
  return axes.contains(pc2_key::source) && axes[pc2_key::source].is_string()
             ? kPc2Sources.parse(axes[pc2_key::source].get<std::string>())
             : pc2_source::memory;
}

// From files: the bytes the layer directory must hold (a window's files; a whole sector's
// seal: its data, layers, tree_d and replica), or why they do not fit.
std::string disk_shortfall(const json& axes, std::uint64_t nodes, std::uint64_t layers) {
  const double sector = axes[axis::sector_size].get<double>();
  const double need = window_of(axes) != 0 ? double(nodes) * 32 * double(layers + 1) : sector * double(layers + 4);
  std::error_code ec;
  const fs::path dir = default_layer_dir();
  const auto space = fs::space(dir, ec);
  if (ec) return dir.string() + ": " + ec.message() + " (" + kLayerDirEnv + ")";
  if (double(space.available) < need)
    return "does not fit on the disk of " + dir.string() + " (" + kLayerDirEnv + "): needs about " + gib_text(need) +
           ", " + gib_text(double(space.available)) + " free";
  return {};
}

std::string unavailable(const json& axes) {
  const std::uint64_t sector = axes[axis::sector_size];
  const std::uint64_t layers = axes[axis::layers];
  if (layers != 2 && layers != 11) return "PC2 hashes columns of 2 or 11 layers, not " + std::to_string(layers);
  sdr::tree_shape shape;
  try {
    shape = sdr::tree_shape_for_sector_size(sector);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  const std::uint64_t nodes = window_of(axes) != 0 ? window_of(axes) : sector / 32;
  const bool files = source_of(axes) == pc2_source::files;
  // Labels, replica and tree_c in memory; a sector the runner seals: its seal's too.
  const double seal_bytes = files && window_of(axes) == 0 ? 6.0 * double(sector) + double(sector) / 32 * 14 * 4 : 0;
  if (auto m = memory_shortfall(double(nodes) * 32 * double(layers + 1) + double(nodes) * 32 * 8 / 7 + seal_bytes);
      !m.empty())
    return m;
  if (files)
    if (auto d = disk_shortfall(axes, nodes, layers); !d.empty()) return d;
  try {
    make_backend(axes[axis::backend].get<std::string>(), knobs_of_point(axes))->make_pc2_hasher();
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

// A whole sector from files: sealed first (untimed) by the host CPU backend into `scratch`,
// whose sealed directory the bench reads.
std::string seal_for_pc2(const scratch_dir& scratch, std::uint64_t sector, std::uint32_t layers) {
  const fs::path data = scratch.path() / "data.bin";
  write_runner_sector_data(data, sector);
  auto be = make_backend(backend_of(device_class::host_cpu));
  const fs::path out = scratch.path() / "sealed";
  seal::seal(runner_seal_inputs(sector, layers), data, out, *be);
  fs::remove(data);
  return out.string();
}

measurement run(const json& axes, std::uint32_t warmup, std::uint32_t samples) {
  pc2_bench_options o;
  o.backend = &find_backend(axes[axis::backend].get<std::string>());
  o.knobs = knobs_of_point(axes);
  o.sector_size = axes[axis::sector_size];
  o.layers = static_cast<std::uint32_t>(axes[axis::layers].get<std::uint64_t>());
  o.window_nodes = window_of(axes);
  o.source = source_of(axes);
  o.warmup = warmup;
  o.samples = samples;
  std::optional<scratch_dir> sealed;
  if (o.source == pc2_source::files && o.window_nodes == 0) {
    sealed.emplace(default_layer_dir(), "poreplab-pc2-sector");
    o.from = seal_for_pc2(*sealed, o.sector_size, o.layers);
  } else if (o.source == pc2_source::files) {
    o.layer_dir = default_layer_dir().string();
  }
  const pc2_bench_result r = run_pc2_bench(o);
  measurement m;
  m.metric = "ns_per_node";
  m.samples = r.samples_ns_per_node;
  m.digest = r.digest;
  m.verified = r.verified;
  m.verified_against = r.verified_against;
  m.context = pc2_bench_json(r);
  m.context.erase("samples_ns_per_node");
  if (sealed) m.context["from"] = "a sector the runner sealed in " + sealed->path().string() + " (removed after)";
  return m;
}

json rates(const json& axes, const json& context, double median) {
  const double nodes = axes[axis::sector_size].get<double>() / 32;
  json r = {{"ns_per_node", median}};
  if (median > 0) {
    r["sector_seconds"] = median * nodes * 1e-9;
    r["nodes_per_s"] = 1e9 / median;
    if (context.contains("multiplies_per_node"))
      r["fr_mul_per_s"] = context["multiplies_per_node"].get<double>() * 1e9 / median;
  }
  return r;
}

}  // namespace

kind_spec pc2_kind() {
  kind_spec k;
  k.name = records::kind_name(records::record_kind::pc2);
  k.help = "PC2 (tree_c over the columns, tree_r_last, comm_r: Poseidon) over labels generated in memory or read "
           "from files on the disk, sample-verified";
  k.axes = labeling_axes(false);
  // The label kind's name for a node window: one name across kinds, records and readers.
  param_spec window = count_param(axis::window_nodes, 0, 0, std::uint64_t{1} << 36,
                                "nodes hashed (a power of 8): their columns and one tree, standing for the sector's "
                                "per-node work; 0 = the whole sector");
  window.power_of = 8;
  window.least_nonzero = 64;
  window.optional = true;
  k.axes.push_back(std::move(window));
  param_spec source = text_param(
      pc2_key::source, std::string(kPc2Sources.name(pc2_source::memory)),
      [] { return kPc2Sources.names(); },
      "memory: labels generated in memory; files: read from the disk of POREPLAB_LAYER_DIR (else /var/tmp), a window's "
      "labels written there first, a whole sector sealed there first (both untimed, removed after)");
  source.optional = true;
  k.axes.push_back(std::move(source));
  k.unavailable = unavailable;
  k.run = run;
  k.rates = rates;
  return k;
}

}  // namespace poreplab::runner
