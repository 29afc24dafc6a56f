// The `profile` kind: the replication profile of one scheme (bench_profile, as `poreplab
// bench profile`): shares of fetch, hash, encode, io and other in the labeling of one
// sector, the timers' overhead, the production backend's time for the same job, and
// cycles per hashed byte the way the 2019 Supranational PoRep report does. Every run is checked against the
// portable reference.
#include <algorithm>

#include "backends/device_class.hpp"
#include "bench/profile.hpp"
#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "records/schema.hpp"
#include "runner/kinds.hpp"

namespace poreplab::runner {

namespace key = records::key;
namespace axis = records::axis;
namespace rate = records::rate;


using nlohmann::json;

namespace {

std::vector<param_spec> profile_axes() {
  std::vector<param_spec> axes;
  // Only the host CPU's backend: the profiled loop and the production backend beside it run
  // on the CPU. The axis is there so that a config can name the backend as the label kind's
  // points do.
  axes.push_back(text_param(
      axis::backend, backend_of(device_class::host_cpu), [] { return backends_of({device_class::host_cpu}); },
      "where the profile runs: the host CPU's backend (the profiled loop and that backend beside it)"));
  axes.push_back(variant_axis());
  axes.push_back(label_hash_axis());
  axes.push_back(label_engine_axis(
      "engine of the point's hash, single stream; auto = the best; all = every compiled engine of that hash"));
  axes.push_back(size_param(axis::sector_size, 2048, 64, true, "sector size, a power of two: 2KiB, 8MiB..."));
  axes.push_back(count_param(axis::layers, 0, 0, 64, "layers; 0 = the variant's usual (sdr 2, zigzag 10)"));
  return axes;
}

std::string unavailable(const json& axes) {
  try {
    cpu::pick_label_engine(scheme_of(axes), 1, text_or(axes[axis::engine], "auto"));
  } catch (const std::exception& e) {
    return e.what();  // an engine of another hash, or one this CPU lacks
  }
  return memory_shortfall(profile_memory_estimate(scheme_of(axes).variant, axes[axis::sector_size].get<std::uint64_t>()));
}

measurement run(const json& axes, std::uint32_t warmup, std::uint32_t samples) {
  profile_bench_options o;
  o.scheme = scheme_of(axes);
  o.engine = text_or(axes[axis::engine], "auto");
  o.sector_size = axes[axis::sector_size];
  o.layers = axes[axis::layers];
  o.warmup = warmup;
  o.samples = std::max<std::uint32_t>(1, samples);
  const profile_bench_result r = bench_profile(o);
  const json row = to_json(r);
  measurement m;
  m.metric = rate::ns_per_node_layer;
  m.samples = row["samples_ns_per_node_layer"].get<std::vector<double>>();
  m.digest = r.profile.digest;
  m.verified = r.profile.verified;
  m.verified_against = r.profile.verified_against;
  m.context = row;
  for (const char* k : {key::kind, axis::variant, "hash", axis::sector_size, "samples_ns_per_node_layer", key::digest}) m.context.erase(k);
  return m;
}

json rates(const json&, const json& ctx, double median) {
  json r = {{rate::ns_per_node_layer, median}};
  const json share = ctx.value("share", json::object());
  for (const char* p : {"hash", "fetch", "encode", "io", "other"}) r[std::string("share_") + p] = share.value(p, 0.0);
  for (const char* k : {"overhead", "cycles_per_byte", "untimed_ns_per_node_layer", "backend_ns_per_node_layer"})
    r[k] = ctx.value(k, 0.0);
  return r;
}

}  // namespace

kind_spec profile_kind() {
  kind_spec k;
  k.name = records::kind_name(records::record_kind::profile);
  k.help = "replication profile of one scheme: fetch/hash/encode/io/other shares, timer overhead, backend beside it";
  k.axes = profile_axes();
  k.unavailable = unavailable;
  k.run = run;
  k.rates = rates;
  return k;
}

}  // namespace poreplab::runner
