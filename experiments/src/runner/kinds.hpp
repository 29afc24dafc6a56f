#pragma once
// The experiment kinds the runner knows: their typed axes and how one point is run.
// Adding a kind is its file, kinds/<stem>.cpp, defining `kind_spec <stem>_kind()`, and its
// name in records::kRecordKinds (docs/contributing.md).
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/backends.hpp"

#include "poreplab/cpu/engines.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "poreplab/memory_check.hpp"
#include "poreplab/sampling.hpp"

namespace poreplab::runner {

// What a kind reports for one point; the runner adds statistics, status and identity.
struct measurement {
  std::string metric;            // name of the sampled quantity, e.g. records::rate::ns_per_node_layer
  std::vector<double> samples;   // one value per timed sample, in that unit
  nlohmann::json context = nlohmann::json::object();  // facts: engine used, device, sizes...
  std::string digest;            // hex digest of the output that was checked
  bool verified = false;         // the digest equals that of an independent implementation
  std::string verified_against;  // what it was compared with
  // A figure computed by a model (gpu-model), not measured: the record gets
  // "modeled": true, is never marked verified, and is not failed for that.
  bool modeled = false;
  // Why sampling ended, recorded as the record's "stopped_by" (the runner sets it for
  // kinds without run_sampled).
  std::optional<stop_reason> stopped_by;
};

// An experiment's sampling plan, for kinds that follow it themselves.
struct sampling {
  std::uint32_t warmup = 1;
  std::uint32_t samples = 5;
  double time_budget_s = 0;  // 0: none
  double ci_target = 0;      // 0: none; else the interval half-width / median to reach
};

// Thrown by a kind when the point cannot run on this machine or build: recorded as
// "skipped" with the message as its reason (as is any unavailable_error).
struct point_unavailable : unavailable_error {
  using unavailable_error::unavailable_error;
};

struct kind_spec {
  std::string name;
  std::string help;
  std::vector<param_spec> axes;
  // Reason the point cannot run here (engine missing on this CPU, no GPU, too large for
  // memory), or empty when it can. Checked before run.
  std::function<std::string(const nlohmann::json& axes)> unavailable;
  // Runs warmup + samples timed repetitions. Empty: not implemented in this build.
  std::function<measurement(const nlohmann::json& axes, std::uint32_t warmup, std::uint32_t samples)> run;
  // Optional: runs the whole sampling plan, time budget and ci_target included, in one
  // call (kinds that interleave pairs and stop on an interval). When set the runner calls
  // it instead of run, and only these kinds accept the config key "ci_target".
  std::function<measurement(const nlohmann::json& axes, const sampling& plan)> run_sampled;
  // Derived rates (labels/s, GB/s, cycles/byte, efficiency...) from the point's axes, the
  // measurement context and the median sample.
  std::function<nlohmann::json(const nlohmann::json& axes, const nlohmann::json& context, double median)> rates;
};

// Every kind, in the order `poreplab run --help` and the docs list them.
const std::vector<kind_spec>& kinds();
const kind_spec* find_kind(std::string_view name);  // nullptr when unknown
std::vector<std::string> kind_names();
// Whether some kind declares the axis a size in bytes (report.md shows it as 2MiB).
bool is_size_axis(const std::string& axis);

// Bytes of memory available to a new allocation now (MemAvailable), 0 if unknown.
using poreplab::available_memory_bytes;

// ---- building blocks of the kind definitions (kinds/*.cpp) ----

// The labeling axes: backend, with_scheme: variant and hash, the knobs engine, layout,
// threads_per_block and kernel, sector_size, with_sectors: sectors, layers, the knob
// threads; then every other backend knob as an optional axis. Each knob axis applies
// where the point's backend reads the knob.
std::vector<param_spec> labeling_axes(bool with_sectors, bool with_scheme = false);
// The backend knobs a point sets (its knob axes that are present and apply).
backend_settings knobs_of_point(const nlohmann::json& axes);

// Engine names compiled for an algo, and those of every algo, each once.
std::vector<std::string> engine_names(hash_family algo);
std::vector<std::string> all_engine_names();
// The `algo` axis (sha256, blake2s, blake2b) and a point's value of it.
param_spec algo_axis();
hash_family algo_of(const nlohmann::json& axes);
// The labeling scheme axes: `variant` (sdr, zigzag) and `hash` (sha256, blake2s, blake2b-256).
param_spec variant_axis();
param_spec label_hash_axis();
// A point's scheme from those axes (sdr and sha256 where they do not apply).
sdr::label_scheme scheme_of(const nlohmann::json& axes);
// The `engine` axis of a labeling kind: "auto" or an engine name; `all` expands to every
// compiled engine of the point's `hash` (sha256 when there is none).
param_spec label_engine_axis(std::string help);

// A cpu engine's (or a reference implementation's) digest of a fixed 1000-byte message, compared with
// the portable implementation: the digest hash and limits records carry.
struct known_answer {
  std::string digest;
  bool matches = false;
  std::string against;
};
known_answer engine_known_answer(hash_family a, const std::string& name);
// Why the engine (axes "algo", "engine") cannot run here, or empty.
std::string engine_unavailable_reason(const nlohmann::json& axes);

// Why `need` bytes do not fit in the memory available now, or empty when they do.
std::string memory_shortfall(double need_bytes);
// The axis value as a string, or `fallback` when it is null (does not apply).
std::string text_or(const nlohmann::json& v, const std::string& fallback);
// "12.5 GiB"
std::string gib_text(double bytes);

}  // namespace poreplab::runner
