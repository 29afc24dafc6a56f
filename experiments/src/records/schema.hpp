#pragma once
// The record schema (poreplab-records/1): the key of every field of a record's envelope and
// the words of its status, spelled once. C++ names them from here; plot.py reads the same
// names from experiments/data/record-schema.json, which a test holds equal to this file.
// What a kind puts under "axes", "context" and "rates" is the kind's own (docs/experiments.md),
// but for the keys kinds and readers share (payload_keys.hpp).
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "poreplab/name_table.hpp"
#include "records/payload_keys.hpp"

namespace poreplab::records {

// A record of records.jsonl: one header per run, one point per measured or skipped point.
enum class record_type { header, point };
inline constexpr name_table kRecordTypes{"record type", std::array{named<record_type>{record_type::header, "header"},
                                                                   named<record_type>{record_type::point, "point"}}};

// ok: measured and verified (or modeled, and marked so); failed: an error, or a required
// backend that cannot run; skipped: a backend this machine or build cannot run.
enum class point_status { ok, failed, skipped };
inline constexpr name_table kPointStatuses{"point status", std::array{named<point_status>{point_status::ok, "ok"},
                                                                      named<point_status>{point_status::failed, "failed"},
                                                                      named<point_status>{point_status::skipped, "skipped"}}};

// What a point measured: the runner's kinds (runner/kinds/), named here, below the readers,
// so that reports and the model classify records by kind without spelling one. The order
// is the order kinds() and config errors list them in.
enum class record_kind { hash, label, seal, tree_d, pc2, limits, gpu_model, profile, latency_under_load, disk_label, reads, disk };
inline constexpr name_table kRecordKinds{"kind", std::array{named<record_kind>{record_kind::hash, "hash"},
                                                            named<record_kind>{record_kind::label, "label"},
                                                            named<record_kind>{record_kind::seal, "seal"},
                                                            named<record_kind>{record_kind::tree_d, "tree_d"},
                                                            named<record_kind>{record_kind::pc2, "pc2"},
                                                            named<record_kind>{record_kind::limits, "limits"},
                                                            named<record_kind>{record_kind::gpu_model, "gpu-model"},
                                                            named<record_kind>{record_kind::profile, "profile"},
                                                            named<record_kind>{record_kind::latency_under_load, "latency_under_load"},
                                                            named<record_kind>{record_kind::disk_label, "disk_label"},
                                                            named<record_kind>{record_kind::reads, "reads"},
                                                            named<record_kind>{record_kind::disk, "disk"}}};
inline std::string kind_name(record_kind k) { return std::string(kRecordKinds.name(k)); }

namespace key {
// Both kinds of record.
inline constexpr const char* type = "type";
inline constexpr const char* repeat = "repeat";  // header: the run's --repeat; point: which repeat
inline constexpr const char* run = "run";        // which run of the directory (resumes add runs)
// A header: the run.
inline constexpr const char* schema = "schema";
inline constexpr const char* config_digest = "config_digest";
inline constexpr const char* config = "config";
inline constexpr const char* source = "source";
inline constexpr const char* argv = "argv";
inline constexpr const char* require = "require";
inline constexpr const char* shard = "shard";
inline constexpr const char* points_total = "points_total";
inline constexpr const char* points_in_shard = "points_in_shard";
inline constexpr const char* started = "started";
inline constexpr const char* environment = "environment";
inline constexpr const char* shard_dir = "shard_dir";    // a merged run's: the shard directory it came from
inline constexpr const char* merge = "merge";            // the header a merge writes: true
inline constexpr const char* shard_dirs = "shard_dirs";  // the merge's: the shard directories merged
// A point.
inline constexpr const char* index = "index";
inline constexpr const char* experiment = "experiment";
inline constexpr const char* kind = "kind";
inline constexpr const char* axes = "axes";
inline constexpr const char* description = "description";
inline constexpr const char* warmup = "warmup";
inline constexpr const char* samples_requested = "samples_requested";
inline constexpr const char* status = "status";
inline constexpr const char* reason = "reason";
inline constexpr const char* metric = "metric";
inline constexpr const char* samples = "samples";
inline constexpr const char* stats = "stats";
inline constexpr const char* noisy = "noisy";
inline constexpr const char* rates = "rates";
inline constexpr const char* context = "context";
inline constexpr const char* digest = "digest";
inline constexpr const char* verified = "verified";
inline constexpr const char* verified_against = "verified_against";
inline constexpr const char* modeled = "modeled";
inline constexpr const char* stopped_by = "stopped_by";          // which stopping rule ended the sampling
inline constexpr const char* budget_limited = "budget_limited";  // fewer samples than asked: the time budget
inline constexpr const char* elapsed_s = "elapsed_s";
inline constexpr const char* finished = "finished";
}  // namespace key

// The keys of each record type, in the order the runner writes them (the schema file's lists).
inline constexpr std::array kHeaderKeys{key::type,   key::schema, key::run, key::config_digest, key::config,
                                        key::source, key::argv,   key::require,       key::shard,
                                        key::points_total, key::points_in_shard, key::started, key::environment,
                                        key::repeat, key::shard_dir, key::merge, key::shard_dirs};
inline constexpr std::array kPointKeys{key::type,     key::index,    key::experiment,   key::kind,
                                       key::axes,     key::description, key::run,        key::warmup,
                                       key::samples_requested, key::repeat, key::status, key::reason,
                                       key::metric,   key::samples,  key::stats,        key::noisy,
                                       key::rates,    key::context,  key::digest,       key::verified,
                                       key::verified_against, key::modeled, key::stopped_by, key::budget_limited,
                                       key::elapsed_s, key::finished};

// A point that measured what it was asked (status ok).
inline bool is_ok(const nlohmann::json& record) {
  const auto it = record.find(key::status);
  return it != record.end() && it->is_string() && it->get_ref<const std::string&>() == kPointStatuses.name(point_status::ok);
}

// A point's kind; nullopt for a record without one or of a kind this build does not know.
inline std::optional<record_kind> kind_of(const nlohmann::json& record) {
  const auto it = record.find(key::kind);
  if (it == record.end() || !it->is_string() || !kRecordKinds.has(it->get_ref<const std::string&>())) return std::nullopt;
  return kRecordKinds.parse(it->get_ref<const std::string&>());
}
// An ok point of kind k.
inline bool is_ok(const nlohmann::json& record, record_kind k) { return is_ok(record) && kind_of(record) == k; }

// A point's status; a point without one counts as failed (the reader has checked the word).
inline point_status status_of(const nlohmann::json& record) {
  const auto it = record.find(key::status);
  return it != record.end() && it->is_string() ? kPointStatuses.parse(it->get_ref<const std::string&>()) : point_status::failed;
}

}  // namespace poreplab::records
