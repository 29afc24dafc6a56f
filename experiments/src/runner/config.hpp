#pragma once
// Experiment configs (schema "poreplab-experiments/1"): parsing, validation with JSON
// pointer paths, normalisation, --set overrides and expansion into the ordered point list.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace poreplab::runner {

inline constexpr std::string_view kConfigSchema = "poreplab-experiments/1";
// Most points one experiment may expand to (its axes' cross product).
inline constexpr std::uint64_t kMaxPoints = 100000;

// A config the user has to fix; the message names the file and the JSON pointer.
struct config_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct experiment {
  std::string name;
  std::string kind;
  std::string description;
  // Every axis of the kind in the kind's order, each a non-empty list of normalised values.
  std::vector<std::pair<std::string, std::vector<nlohmann::json>>> axes;
  std::uint32_t warmup = 1;
  std::uint32_t samples = 5;
  std::optional<double> time_budget_s;
  // Kinds with a stopping rule (label): sample until the 95% interval of the median ratio
  // has a half-width <= ci_target x the median, within time_budget_s (default 30 s).
  std::optional<double> ci_target;
};

struct config {
  std::string source;       // file path or "(embedded default.json)"
  std::string description;
  std::vector<experiment> experiments;
  // Config-level reports written into the output directory after the points (key
  // "reports"): "amax" = amax.md and amax.json (experiments/src/report/amax.hpp).
  std::vector<std::string> reports;
  nlohmann::json normalized;  // canonical form: defaults filled in, sizes in bytes
  // Axes given under an older name (kParamRenames) and read as the new one: one line each,
  // for the caller to report.
  std::vector<std::string> renames;
  std::string digest;         // SHA-256 (hex) of normalized.dump()
};

// One cell of an experiment's cross product. Axes that do not apply to the point (e.g.
// the SHA-256 engine of the cuda backend) are null, so that it appears once.
struct point {
  std::size_t index = 0;  // position in the full ordered list of the config
  std::size_t experiment_index = 0;
  std::string experiment;
  std::string kind;
  nlohmann::json axes;  // object: axis -> value or null
  // `run --repeat N`: which pass over the points this is, 1..N; none for a single pass.
  std::optional<std::size_t> repeat;
  std::string key() const;       // experiment name + axis values (+ repeat): identity for resume and merge
  std::string describe() const;  // "name axis=value ... [(repeat R)]" for progress lines
};

// Throws config_error (validation) with "<source>: <pointer>: <problem>" or
// "<source>: parse error at line L, column C: ...".
config parse_config(std::string_view text, const std::string& source);
config load_config_file(const std::string& path);
config embedded_default_config();
// Rebuilds a config from its normalised JSON (as stored in records), revalidating it.
// Errors name `where` (e.g. the records file it was read from), else `source`.
config config_from_json(const nlohmann::json& normalized, const std::string& source, const std::string& where = {});

// --set AXIS=V1,V2 (every experiment with that axis), --set EXPERIMENT.AXIS=V1,V2 (one),
// also warmup, samples, time_budget_s and ci_target. Returns the new, revalidated config.
config apply_overrides(const config& c, const std::vector<std::string>& sets);

std::vector<point> expand_points(const config& c);
// `passes` passes over `points`, each point once a pass (repeat 1..passes): one point's
// repeats are as far apart as the list allows, not back to back. passes <= 1: unchanged.
std::vector<point> repeat_points(const std::vector<point>& points, std::size_t passes);

// The names the config key "reports" accepts.
const std::vector<std::string>& report_names();
// The kinds that accept the experiment key "ci_target" (they have a stopping rule).
std::vector<std::string> stopping_kinds();

}  // namespace poreplab::runner
