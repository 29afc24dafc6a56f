#pragma once
// Engine choice by measurement: a short calibration times every available engine on this
// CPU, its result is cached per CPU model and build, and `auto` picks the engine measured
// fastest for the request (algorithm, lanes needed). No engine order is tuned for one
// vendor: the static best-first order of engines.cpp is only the fallback when tuning is
// off (POREPLAB_TUNE=static) or the table lacks an engine.
#include <cstddef>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "poreplab/cpu/engines.hpp"

namespace poreplab::cpu {

inline constexpr const char* kTuneDirEnv = "POREPLAB_TUNE_DIR";  // where the cache lives
inline constexpr const char* kTuneEnv = "POREPLAB_TUNE";         // "static": no measurement
// POREPLAB_TUNE=trust-cache: a cache that passes tuning_rates_problem is used without the
// spot check (a pinned choice, or a cache planted on purpose).
inline constexpr const char* kTuneTrustCache = "trust-cache";
inline constexpr const char* kTuneSchema = "poreplab-engine-tune/1";

struct engine_rate {
  hash_family algo = hash_family::sha256;
  std::string engine;
  std::size_t lanes = 1;
  // Nanoseconds per compressed block per lane with every lane of the engine busy: the
  // cost of one chain's block when the caller fills the engine's width.
  double ns_per_lane_block = 0;
};

struct engine_tuning {
  std::string cpu_model;  // as /proc/cpuinfo or CPUID's brand string gives it
  std::string build;      // version, compiler and compiled engines: the cache key's other half
  std::string calibrated_at;  // UTC, ISO 8601
  double seconds = 0;         // the calibration's wall time
  std::vector<engine_rate> rates;
  std::string source;  // "cache <file>", "calibrated now (cached in <file>)", "calibrated now (not cached: ...)", "static"

  const engine_rate* find(hash_family algo, std::string_view engine) const;
};

// $POREPLAB_TUNE_DIR, else $XDG_CACHE_HOME/poreplab, else $HOME/.cache/poreplab, else
// /var/tmp/poreplab.
std::filesystem::path tune_cache_dir();
// tune_cache_dir() / "engines-<16 hex digits of a hash of the CPU model and the build>.json".
std::filesystem::path tune_cache_file();
// The build half of the key: version, compiler, compiled engines of every algorithm, and
// whether the build is sanitized or unoptimized (its rates rank the engines differently).
std::string tune_build_id();

// Times every engine this CPU can run: rounds of short samples, engines interleaved so a
// burst of other load hits them alike; each rate is the fastest sample (load only ever
// slows a sample down). `rounds` >= 1, `sample_seconds` in (0, 1].
engine_tuning calibrate_engines(int rounds = 7, double sample_seconds = 0.002);

// The cache file's JSON text (schema, cpu_model, build, calibrated_at, seconds, rates).
std::string tuning_json(const engine_tuning& t);
// Parses a cache file's text; throws std::runtime_error "<file>: <problem>" on anything
// malformed (wrong schema, unknown algorithm, non-positive or non-finite rates, ...).
engine_tuning parse_tuning(std::string_view text, const std::filesystem::path& file);
// What is wrong with a parsed cache's rates for this build and CPU ("<JSON pointer>:
// <problem>"), or "" when nothing is: an engine this build does not have or with other
// lanes, a second entry for one engine, a rate outside 0.05 ns..1 ms per lane-block, an
// engine this CPU runs without a rate. A cache is data that can be damaged or edited, and
// `auto` believed any of these (a portable engine at 1e-300 ns won every width): such a
// cache is reported and measured again.
std::string tuning_rates_problem(const engine_tuning& t);

// The process's tuning, loaded or measured once: POREPLAB_TUNE=static gives an empty
// table (source "static"); else the cache file when it matches this CPU and build, has no
// tuning_rates_problem and survives a spot check (every engine timed: none 4x off its
// cached rate, and at every lane count the cache's pick within 1.2x of the cheapest); else a
// calibration, written to the cache atomically (a cache that cannot be read or written is
// reported once on stderr and the calibration is used for this process only).
const engine_tuning& current_tuning();
// Calibrates now and replaces the cache file (poreplab tune --recalibrate); the process's
// tuning becomes the new one.
const engine_tuning& recalibrate_tuning(int rounds = 7, double sample_seconds = 0.002);
// Forgets the process's tuning so the next current_tuning() reads the environment and the
// cache again (tests).
void reset_tuning();

// The time of one block step for `lanes_needed` chains on an engine of `width` lanes
// measured at ns_per_lane_block on one thread, with `threads` threads on as many cores:
// the ceil(lanes_needed / width) groups (idle lanes of a partly filled one still cost) run
// threads at a time. One thread: ceil(lanes_needed / width) x width x ns_per_lane_block.
double chains_step_ns(double ns_per_lane_block, std::size_t width, std::size_t lanes_needed, std::size_t threads);

// Among the available engines of width min_lanes..max_lanes, the one measured fastest for
// `lanes_needed` chains on `threads` threads (chains_step_ns; 0 lanes: each engine's width
// filled, i.e. the lowest ns_per_lane_block); nullptr when there is none or the tuning
// lacks a rate for one of them (static order).
const engine* measured_fastest(hash_family algo, std::size_t min_lanes, std::size_t max_lanes,
                               std::size_t lanes_needed, std::size_t threads = 1);

// The best available engine whose width lies in [min_lanes, max_lanes]: the one
// POREPLAB_FORCE_ENGINE names (forced_engine, engines.hpp), else the one measured fastest
// per lane on this CPU, else the static best-first order when tuning is off or lacks a rate.
// std::invalid_argument when no available engine has such a width.
const engine& best_engine(hash_family algo, std::size_t min_lanes = 1,
                          std::size_t max_lanes = std::numeric_limits<std::size_t>::max());

// The engine measured fastest for `lanes_needed` chains on `threads` threads
// (chains_step_ns): on several cores, one-lane engines on a thread each can beat a wider
// engine that leaves a core idle. lanes_needed 1 keeps to one-lane engines.
// POREPLAB_FORCE_ENGINE wins; without a measured rate for every candidate the static order
// decides, as before.
const engine& fastest_engine(hash_family algo, std::size_t lanes_needed, std::size_t threads = 1);

}  // namespace poreplab::cpu
