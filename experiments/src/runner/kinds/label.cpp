// The `label` kind: SDR labeling of S sectors on one backend, through bench_label (the
// same measurement as `poreplab bench label`), checked against the portable reference.
#include <algorithm>

#include "backends/backends.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "bench/label.hpp"
#include "records/schema.hpp"
#include "runner/kinds.hpp"

namespace poreplab::runner {

namespace axis = records::axis;
namespace ctx = records::ctx;
namespace rate = records::rate;

using nlohmann::json;

namespace {

std::uint64_t count_or(const json& axes, const char* key, std::uint64_t fallback) {
  return axes.contains(key) && axes[key].is_number() ? axes[key].get<std::uint64_t>() : fallback;
}

// Whether the point's window lives on aliased pages (window_store.hpp).
bool aliased_window(const json& axes) {
  return count_or(axes, axis::window_nodes, 0) > 0 && axes.contains(axis::window_backing) && axes[axis::window_backing].is_string() &&
         sdr::parse_window_backing(axes[axis::window_backing].get<std::string>()) == sdr::window_backing::aliased;
}

// Host memory a point needs, roughly. Whole sectors: two layer buffers for the measured
// backend, the parent table (14 x u32 a row, two rows a node for zigzag), and for zigzag
// its input data and two more layers for the full reference check (sdr points that do
// not fit those are verified by samples). Windows: the window's rows and at most 14
// filled pages a node (mmap-file), or both layers in RAM when smaller; aliased windows'
// layers on huge pages are reserved apart (aliased_shortfall_text).
double memory_estimate(const json& axes) {
  const double sector = axes[axis::sector_size].get<double>();
  const double sectors = axes[axis::sectors].get<double>();
  const bool zigzag = scheme_of(axes).variant == sdr::porep_variant::zigzag;
  if (const double w = static_cast<double>(count_or(axes, axis::window_nodes, 0)); w > 0) {
    if (!aliased_window(axes)) return w * 56 + std::min(2 * sector * sectors, w * 15 * 4096);
    // On 4 KiB pages its layers are ordinary memory: two periods and the window's rows.
    const double page = static_cast<double>(count_or(axes, "window_page", sdr::window_alias{}.page));
    const double period = static_cast<double>(count_or(axes, "window_alias_period", sdr::window_alias{}.period));
    return w * 56 + (page > 4096 ? 0 : 2 * std::min(period, sector * sectors) + w * 32 * sectors);
  }
  return (zigzag ? 5 : 2) * sector * sectors + sector / 32 * 14 * 4 * (zigzag ? 2 : 1);
}

std::string unavailable(const json& axes) {
  if (auto m = memory_shortfall(memory_estimate(axes)); !m.empty()) return m;
  if (aliased_window(axes)) {
    const std::uint64_t w = count_or(axes, axis::window_nodes, 0);
    // Its huge pages: the periods and the pages the window's rows lie in, wherever it starts.
    const std::uint64_t node = 32 * count_or(axes, axis::sectors, 1);
    const std::uint32_t regions = count_or(axes, axis::layers, 2) > 1 ? 2 : 1;
    const sdr::window_alias alias{count_or(axes, "window_alias_period", sdr::window_alias{}.period),
                                  count_or(axes, "window_page", sdr::window_alias{}.page)};
    if (auto m = sdr::aliased_shortfall_text(count_or(axes, axis::sector_size, 0) * node / 32,
                                             sdr::aliased_own_bytes_at_most(w * node, alias.page), regions, alias);
        !m.empty())
      return m;
  }
  try {
    const backend_settings knobs = knobs_of_point(axes);
    const backend_entry& b = find_backend(axes[axis::backend].get<std::string>());
    // Cheap: says why a backend, an engine or an option cannot run here.
    if (b.floor_engine) b.floor_engine(scheme_of(axes), axes[axis::sectors].get<std::size_t>(), knobs);
    b.make(knobs);
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

measurement run_plan(const json& axes, const sampling& plan) {
  label_bench_options o;
  o.backend = &find_backend(axes[axis::backend].get<std::string>());
  o.scheme = scheme_of(axes);
  o.knobs = knobs_of_point(axes);
  o.sector_size = axes[axis::sector_size];
  o.sectors = axes[axis::sectors];
  o.layers = axes[axis::layers];
  o.warmup = plan.warmup;
  o.samples = plan.samples;
  o.target_ci = plan.ci_target;
  o.max_seconds = plan.time_budget_s;
  o.window_nodes = count_or(axes, axis::window_nodes, 0);
  if (axes.contains(axis::window_backing) && axes[axis::window_backing].is_string())
    o.window_backing = sdr::parse_window_backing(axes[axis::window_backing].get<std::string>());
  o.window_alias_period = count_or(axes, "window_alias_period", o.window_alias_period);
  o.window_page = count_or(axes, "window_page", o.window_page);
  if (axes.contains("verify") && axes["verify"].is_string()) o.verify = kVerifyModes.parse(axes["verify"].get<std::string>());
  const label_bench_result r = bench_label(o);
  measurement m;
  m.metric = rate::ns_per_node_layer;
  m.samples = r.samples_ns_per_node_layer;
  m.digest = r.digest;
  m.verified = r.verified;
  m.verified_against = r.verified_by.against();
  m.stopped_by = r.stopped_by;
  // bench label's row whole, less what the record keeps elsewhere: the point's own axes
  // and the measurement (samples, digest, verdict).
  m.context = to_json(r);
  for (const char* echo : {records::key::kind, records::key::digest, records::key::verified, "samples_ns_per_node_layer",
                           axis::backend, axis::variant, "hash", "layout", axis::sector_size, axis::sectors, axis::threads, axis::layers,
                           axis::window_nodes})
    m.context.erase(echo);
  return m;
}

measurement run(const json& axes, std::uint32_t warmup, std::uint32_t samples) {
  return run_plan(axes, sampling{warmup, samples, 0, 0});
}

json rates(const json& axes, const json& ctx, double median) {
  json r = {{rate::ns_per_node_layer, median}};
  // bench_label reports rates at its own median; rescale them to this point's median,
  // which differs when a time budget split the samples over two calls.
  const double own = ctx.value(ctx::ns_per_node_layer, 0.0);
  double labels = ctx.value(ctx::labels_per_s, 0.0);
  if (own > 0 && median > 0) labels *= own / median;
  if (labels <= 0 && median > 0) labels = axes[axis::sectors].get<double>() * 1e9 / median;
  r[rate::labels_per_s] = labels;
  // Bytes hashed per label (the scheme's message, as the 2019 Supranational PoRep report counts them).
  const double hashed = ctx.value("hashed_bytes_per_node", double(sdr::kSdrMessageBytes));
  r["gb_per_s"] = labels * hashed / 1e9;
  // cycles/byte of one sector's stream, rescaled to this point's median.
  const double cpb = ctx.value("cycles_per_byte", 0.0);
  if (cpb > 0 && own > 0 && median > 0) r["cycles_per_byte"] = cpb * median / own;
  const double floor = ctx.value("floor_ns_per_node_layer", 0.0);
  if (floor > 0 && median > 0) {
    r["floor_ns_per_node_layer"] = floor;
    // The median of the pairs' ratios (each floor timed beside its sample); older records
    // without pairs: the floor over the median.
    r[rate::efficiency] = ctx.value(ctx::efficiency, floor / median);
  }
  // Against the 19-block chain a node waits on with its header ahead.
  if (const double chain = ctx.value("chain_floor_ns_per_node_layer", 0.0); chain > 0 && median > 0) {
    r["chain_floor_ns_per_node_layer"] = chain;
    r["chain_efficiency"] = ctx.value("chain_efficiency", chain / median);
  }
  if (const double c = ctx.value("cycles_per_byte_core", 0.0); c > 0 && own > 0 && median > 0)
    r["cycles_per_byte_core"] = c * median / own;
  if (ctx.value("rss_bytes_per_node", 0.0) > 0) r["bytes_per_node"] = ctx["rss_bytes_per_node"];
  if (const double k = ctx.value("kernel_ns_per_node_layer", 0.0); k > 0) {
    r["kernel_ns_per_node_layer"] = k;
    r["kernel_labels_per_s"] = axes[axis::sectors].get<double>() * 1e9 / k;
  }
  return r;
}

}  // namespace

kind_spec label_kind() {
  kind_spec k;
  k.name = records::kind_name(records::record_kind::label);
  k.help = "labeling of S sectors (sdr or zigzag, any hash) on one backend, checked against the reference (bench_label)";
  k.axes = labeling_axes(true, true);
  param_spec w = count_param(axis::window_nodes, 0, 0, 1ull << 32,
                           "> 0: time a window of this many nodes of layer `layers` of a full-size sector (sdr)");
  w.optional = true;
  k.axes.push_back(std::move(w));
  param_spec b = text_param(axis::window_backing, "auto", [] { return sdr::kWindowBackings.names(); },
                          "where a window's two full-size layers live");
  b.optional = true;
  k.axes.push_back(std::move(b));
  param_spec ap = size_param("window_alias_period", sdr::window_alias{}.period, 2u << 20, false,
                           "aliased windows: bytes after which a layer's bytes repeat (64MiB: in a last-level cache)");
  ap.optional = true;
  ap.applies = aliased_window;
  k.axes.push_back(std::move(ap));
  param_spec pg = size_param("window_page", sdr::window_alias{}.page, 4u << 10, true,
                           "aliased windows: the layers' page size, " + sdr::alias_pages_text() +
                               " (a machine holding its layers on such pages)");
  pg.optional = true;
  pg.applies = aliased_window;
  k.axes.push_back(std::move(pg));
  param_spec v = text_param("verify", "auto", [] { return kVerifyModes.names(); },
                          "full re-label by the reference, sampled nodes, or auto (full when it fits)");
  v.optional = true;
  k.axes.push_back(std::move(v));
  k.unavailable = unavailable;
  k.run = run;
  k.run_sampled = run_plan;
  k.rates = rates;
  return k;
}

}  // namespace poreplab::runner
