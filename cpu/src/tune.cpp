// Engine calibration, its per-CPU cache, and the choice of engine by measured speed.
#include "poreplab/cpu/tune.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "poreplab/cpu/features.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/json_input.hpp"
#include "poreplab/sdr/label.hpp"

namespace poreplab::cpu {

namespace {

using clock_type = std::chrono::steady_clock;

// The chain length of one labeling call (a node's ~20 compressions) and a data set that
// stays in L1: the calibration times the engine, not memory.
constexpr std::size_t kBlocksPerCall = sdr::kLabelCompressions;
constexpr std::size_t kMaxCacheBytes = 1 << 20;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

// One engine's timing harness: state and inputs sized for its full width.
struct harness {
  const engine* e;
  std::vector<std::uint8_t> data;
  std::vector<const std::uint8_t*> chunks;
  std::vector<std::uint32_t> state32;
  std::vector<std::uint64_t> state64;
  std::size_t calls = 1;  // calls per sample, sized by the first run
  double best_ns_per_lane_block = std::numeric_limits<double>::infinity();

  explicit harness(const engine& eng) : e(&eng) {
    const std::size_t lanes = e->lanes;
    const std::size_t block_chunks = compression_block_bytes(e->algo) / 32;
    data.resize(block_chunks * kBlocksPerCall * lanes * 32);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 131 + 7);
    for (std::size_t k = 0; k < block_chunks * kBlocksPerCall; ++k)
      for (std::size_t j = 0; j < lanes; ++j) chunks.push_back(data.data() + (k * lanes + j) * 32);
    state32.assign(8 * lanes, 0x6a09e667u);
    state64.assign(8 * lanes, 0x6a09e667f3bcc908ULL);
  }

  // As a labeling call of layers 2.. runs it, SHA-256's repeated blocks and all.
  void call() {
    void* state = state_word_bytes(e->algo) == 8 ? static_cast<void*>(state64.data()) : state32.data();
    compress_chains(*e, state, chunks.data(), sdr::kLaterLayerBlockRepeats.first_of, kBlocksPerCall, e->lanes);
  }

  double run(std::size_t n) {
    const auto t0 = clock_type::now();
    for (std::size_t i = 0; i < n; ++i) call();
    return std::chrono::duration<double>(clock_type::now() - t0).count();
  }

  void sample(double seconds) {
    if (calls == 1) {  // size the sample: double until it lasts a quarter of the target
      double t = run(1);
      while (t < seconds / 4 && calls < (std::size_t{1} << 30)) t = run(calls *= 2);
      calls = std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(calls) * seconds / std::max(t, 1e-9)));
    }
    const double t = run(calls);
    const double per = t * 1e9 / (static_cast<double>(calls) * kBlocksPerCall * static_cast<double>(e->lanes));
    best_ns_per_lane_block = std::min(best_ns_per_lane_block, per);
  }

  void forget() { best_ns_per_lane_block = std::numeric_limits<double>::infinity(); }
};

const std::vector<hash_family>& algos() { return hash_families(); }

std::string tuning_text_error(const std::filesystem::path& file, const std::string& what) {
  return file.string() + ": " + what;
}

std::mutex g_mu;
std::optional<engine_tuning> g_tuning;

engine_tuning static_tuning() {
  engine_tuning t;
  t.cpu_model = detect().model;
  t.build = tune_build_id();
  t.source = "static";
  return t;
}

// Writes the cache atomically: a reader sees the old file or the new one, never half.
void write_cache(const engine_tuning& t, const std::filesystem::path& file) {
  make_directories(file.parent_path());
  write_file_atomic(file, tuning_json(t));
}

engine_tuning calibrate_and_cache(int rounds, double sample_seconds) {
  engine_tuning t = calibrate_engines(rounds, sample_seconds);
  const auto file = tune_cache_file();
  try {
    write_cache(t, file);
    t.source = "calibrated now (cached in " + file.string() + ")";
  } catch (const std::exception& e) {
    t.source = std::string("calibrated now (not cached: ") + e.what() + ")";
    std::cerr << "poreplab: warning: engine calibration not cached: " << e.what() << "\n";
  }
  return t;
}

// A rate no engine reaches or falls to: a compression of 64 or 128 bytes per lane in under
// 0.05 ns (20 per ns per lane) or over 1 ms. Real ones lie between about 1 and 1000 ns.
constexpr double kMinPlausibleNs = 0.05;
constexpr double kMaxPlausibleNs = 1e6;

std::string number_text(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

// The candidate cheapest for `lanes_needed` chains on `threads` threads at `rates` (one per
// candidate; 0 lanes: the lowest rate), among those at most `max_lanes` wide, and its cost;
// the first of equals. {cands.size(), inf} when none qualifies.
std::pair<std::size_t, double> cheapest(const std::vector<const engine*>& cands, const std::vector<double>& rates,
                                        std::size_t lanes_needed, std::size_t threads,
                                        std::size_t max_lanes = std::numeric_limits<std::size_t>::max()) {
  std::pair<std::size_t, double> best{cands.size(), std::numeric_limits<double>::infinity()};
  for (std::size_t i = 0; i < cands.size(); ++i) {
    if (cands[i]->lanes > max_lanes) continue;
    const double cost = lanes_needed == 0 ? rates[i] : chains_step_ns(rates[i], cands[i]->lanes, lanes_needed, threads);
    if (cost < best.second) best = {i, cost};
  }
  return best;
}

// A spot check of a loaded cache: per algorithm, every engine is timed for a few short
// samples, interleaved. No engine may run more than kSpotRateFactor slower or faster than
// the cache says, and at every lane count from 1 to the widest engine's width (on one
// thread, as measured_fastest counts), the cache's pick must not cost more than
// kSpotPickFactor times the engine measured cheapest there. A cache measured by a slower
// build or under load can rank a 2-lane engine below a 1-lane one: its pick at full width
// holds, its choice for 2 or 4 sectors runs 1.2-1.3x slower. Both factors lie above the
// spread of best-of-3 samples on a quiet core (a few percent), and a finding must show
// twice. "" when the cache holds.
constexpr double kSpotSampleSeconds = 0.0004;
constexpr int kSpotRounds = 3;
constexpr double kSpotPickFactor = 1.2;
constexpr double kSpotRateFactor = 4.0;

std::string spot_check_once(const engine_tuning& t) {
  for (hash_family a : algos()) {
    std::vector<const engine*> cands;
    std::vector<double> cached;
    std::size_t widest = 1;
    for (const engine* e : available_engines(a))
      if (const engine_rate* r = t.find(a, e->name); r != nullptr) {
        cands.push_back(e);
        cached.push_back(r->ns_per_lane_block);
        widest = std::max(widest, e->lanes);
      }
    if (cands.empty()) continue;
    std::vector<harness> hs;
    for (const engine* e : cands) hs.emplace_back(*e);
    for (auto& h : hs) h.sample(kSpotSampleSeconds);  // sizes each sample and wakes the core
    for (auto& h : hs) h.forget();
    for (int r = 0; r < kSpotRounds; ++r)
      for (auto& h : hs) h.sample(kSpotSampleSeconds);
    std::vector<double> measured;
    for (const auto& h : hs) measured.push_back(h.best_ns_per_lane_block);
    const std::string algo(hash_family_name(a));
    for (std::size_t i = 0; i < cands.size(); ++i)
      if (measured[i] > kSpotRateFactor * cached[i] || cached[i] > kSpotRateFactor * measured[i])
        return "the cache gives " + algo + " engine " + std::string(cands[i]->name) + " " + number_text(cached[i]) +
               " ns per lane-block, but a spot check measured " + number_text(measured[i]) + " ns";
    for (std::size_t lanes = 1; lanes <= widest; ++lanes) {
      // One chain keeps to one-lane engines, as fastest_engine does.
      const std::size_t max_lanes = lanes == 1 ? 1 : std::numeric_limits<std::size_t>::max();
      const std::size_t pick = cheapest(cands, cached, lanes, 1, max_lanes).first;
      if (pick == cands.size()) continue;
      const auto [best, best_cost] = cheapest(cands, measured, lanes, 1, max_lanes);
      if (chains_step_ns(measured[pick], cands[pick]->lanes, lanes, 1) > kSpotPickFactor * best_cost) {
        return "for " + std::to_string(lanes) + " " + algo + " chains the cache picks " + std::string(cands[pick]->name) +
               " (" + number_text(cached[pick]) + " ns per lane-block cached, " + number_text(measured[pick]) +
               " measured) over " + std::string(cands[best]->name) + " (" + number_text(cached[best]) + " cached, " +
               number_text(measured[best]) + " measured)";
      }
    }
  }
  return {};
}

// A finding must show twice: a burst of other load during one check is not a verdict.
std::string spot_check(const engine_tuning& t) {
  if (spot_check_once(t).empty()) return {};
  return spot_check_once(t);
}

engine_tuning load_or_calibrate() {
  if (env(kTuneEnv) == "static") return static_tuning();
  const auto file = tune_cache_file();
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) {
    try {
      engine_tuning t = parse_tuning(read_small_file(file, {.max_bytes = kMaxCacheBytes, .follow_links = false}), file);
      // A cache from another CPU or build (copied home directories, an upgrade) is stale.
      if (t.cpu_model == detect().model && t.build == tune_build_id()) {
        if (const std::string problem = tuning_rates_problem(t); !problem.empty())
          throw std::runtime_error(tuning_text_error(file, problem));
        if (env(kTuneEnv) != kTuneTrustCache) {
          if (const std::string problem = spot_check(t); !problem.empty())
            throw std::runtime_error(tuning_text_error(file, problem));
          t.source = "cache " + file.string() + " (spot-checked)";
        } else {
          t.source = "cache " + file.string() + " (trusted: " + std::string(kTuneEnv) + "=" + kTuneTrustCache + ")";
        }
        return t;
      }
    } catch (const std::exception& e) {
      std::cerr << "poreplab: warning: ignoring the engine calibration cache: " << e.what() << "; calibrating again\n";
    }
  }
  return calibrate_and_cache(7, 0.002);
}

// The measured rate of every candidate, or nullopt when one lacks a rate.
std::optional<std::vector<double>> rates_of(const engine_tuning& t, const std::vector<const engine*>& cands) {
  std::vector<double> v;
  for (const engine* e : cands) {
    const engine_rate* r = t.find(e->algo, e->name);
    if (r == nullptr || r->lanes != e->lanes) return std::nullopt;
    v.push_back(r->ns_per_lane_block);
  }
  return v;
}

}  // namespace

std::string tuning_rates_problem(const engine_tuning& t) {
  for (std::size_t i = 0; i < t.rates.size(); ++i) {
    const engine_rate& r = t.rates[i];
    const std::string at = "/rates/" + std::to_string(i);
    const std::string algo(hash_family_name(r.algo));
    const auto& compiled = compiled_engines(r.algo);
    const auto known = std::find_if(compiled.begin(), compiled.end(), [&](const engine& e) { return e.name == r.engine; });
    if (known == compiled.end()) return at + "/engine: '" + r.engine + "' is not a " + algo + " engine of this build";
    if (known->lanes != r.lanes)
      return at + "/lanes: " + std::to_string(r.lanes) + ", but " + r.engine + " has " + std::to_string(known->lanes);
    if (&r != t.find(r.algo, r.engine)) return at + ": a second entry for " + algo + " engine " + r.engine;
    if (r.ns_per_lane_block < kMinPlausibleNs || r.ns_per_lane_block > kMaxPlausibleNs)
      return at + "/ns_per_lane_block: " + number_text(r.ns_per_lane_block) + " ns is not a plausible rate (" +
             number_text(kMinPlausibleNs) + " to " + number_text(kMaxPlausibleNs) + ")";
  }
  for (hash_family a : algos())
    for (const engine* e : available_engines(a))
      if (t.find(a, e->name) == nullptr)
        return "/rates: no entry for " + std::string(hash_family_name(a)) + " engine " + std::string(e->name) +
               ", which this CPU runs";
  return {};
}

const engine_rate* engine_tuning::find(hash_family algo, std::string_view engine) const {
  for (const auto& r : rates)
    if (r.algo == algo && r.engine == engine) return &r;
  return nullptr;
}

std::filesystem::path tune_cache_dir() {
  if (auto d = env(kTuneDirEnv); !d.empty()) return d;
  if (auto d = env("XDG_CACHE_HOME"); !d.empty()) return std::filesystem::path(d) / "poreplab";
  if (auto d = env("HOME"); !d.empty()) return std::filesystem::path(d) / ".cache" / "poreplab";
  return "/var/tmp/poreplab";
}

std::string tune_build_id() {
  std::string s = "poreplab ";
#ifdef POREPLAB_VERSION
  s += POREPLAB_VERSION;
#endif
#ifdef __VERSION__
  s += "; cc ";
  s += __VERSION__;
#endif
  // A sanitized or unoptimized build runs its engines several times slower, and not alike:
  // its rates must not rank the engines of an optimized build of the same version.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  s += "; sanitized";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  s += "; sanitized";
#endif
#endif
#ifndef __OPTIMIZE__
  s += "; unoptimized";
#endif
  for (hash_family a : algos()) {
    s += "; ";
    s += hash_family_name(a);
    s += ":";
    for (const auto& e : compiled_engines(a)) {
      s += " ";
      s += e.name;
    }
  }
  return s;
}

std::filesystem::path tune_cache_file() {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(fnv1a(detect().model + "\n" + tune_build_id())));
  return tune_cache_dir() / (std::string("engines-") + hex + ".json");
}

engine_tuning calibrate_engines(int rounds, double sample_seconds) {
  if (rounds < 1) throw std::invalid_argument("engine calibration: rounds must be at least 1");
  if (!(sample_seconds > 0 && sample_seconds <= 1))
    throw std::invalid_argument("engine calibration: sample seconds must be in (0, 1]");
  const auto t0 = clock_type::now();
  std::vector<harness> hs;
  for (hash_family a : algos())
    for (const engine* e : available_engines(a)) hs.emplace_back(*e);
  // Wake the core's clock before the first sample counts.
  for (auto& h : hs) h.sample(sample_seconds);
  for (auto& h : hs) h.forget();
  for (int r = 0; r < rounds; ++r)
    for (auto& h : hs) h.sample(sample_seconds);
  engine_tuning t;
  t.cpu_model = detect().model;
  t.build = tune_build_id();
  t.calibrated_at = utc_now();
  for (const auto& h : hs) t.rates.push_back({h.e->algo, std::string(h.e->name), h.e->lanes, h.best_ns_per_lane_block});
  t.seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
  t.source = "calibrated now";
  return t;
}

std::string tuning_json(const engine_tuning& t) {
  nlohmann::json rates = nlohmann::json::array();
  for (const auto& r : t.rates)
    rates.push_back({{"algo", hash_family_name(r.algo)},
                     {"engine", r.engine},
                     {"lanes", r.lanes},
                     {"ns_per_lane_block", r.ns_per_lane_block}});
  const nlohmann::json j = {{"schema", kTuneSchema},     {"cpu_model", t.cpu_model},
                            {"build", t.build},          {"calibrated_at", t.calibrated_at},
                            {"seconds", t.seconds},      {"rates", rates}};
  return j.dump(2) + "\n";
}

engine_tuning parse_tuning(std::string_view text, const std::filesystem::path& file) {
  const nlohmann::json j = parse_json(text, file.string());
  const auto fail = [&](const std::string& what) { throw std::runtime_error(tuning_text_error(file, what)); };
  if (!j.is_object()) fail("not a JSON object");
  const auto str = [&](const char* key) {
    if (!j.contains(key) || !j.at(key).is_string()) fail(std::string("/") + key + ": missing or not a string");
    return j.at(key).get<std::string>();
  };
  if (str("schema") != kTuneSchema) fail(std::string("/schema: expected \"") + kTuneSchema + "\"");
  engine_tuning t;
  t.cpu_model = str("cpu_model");
  t.build = str("build");
  t.calibrated_at = str("calibrated_at");
  if (!j.contains("seconds") || !j.at("seconds").is_number()) fail("/seconds: missing or not a number");
  t.seconds = j.at("seconds").get<double>();
  if (!j.contains("rates") || !j.at("rates").is_array()) fail("/rates: missing or not an array");
  const auto& rates = j.at("rates");
  for (std::size_t i = 0; i < rates.size(); ++i) {
    const auto& r = rates[i];
    const std::string at = "/rates/" + std::to_string(i);
    if (!r.is_object()) fail(at + ": not an object");
    for (const char* k : {"algo", "engine"})
      if (!r.contains(k) || !r.at(k).is_string()) fail(at + "/" + k + ": missing or not a string");
    if (!r.contains("lanes") || !r.at("lanes").is_number_unsigned() || r.at("lanes").get<std::uint64_t>() == 0 ||
        r.at("lanes").get<std::uint64_t>() > 1024)
      fail(at + "/lanes: must be an integer 1..1024");
    if (!r.contains("ns_per_lane_block") || !r.at("ns_per_lane_block").is_number())
      fail(at + "/ns_per_lane_block: missing or not a number");
    const double ns = r.at("ns_per_lane_block").get<double>();
    if (!std::isfinite(ns) || ns <= 0) fail(at + "/ns_per_lane_block: must be a positive finite number");
    engine_rate e;
    try {
      e.algo = parse_hash_family(r.at("algo").get<std::string>());
    } catch (const std::invalid_argument& ex) {
      fail(at + "/algo: " + ex.what());
    }
    e.engine = r.at("engine").get<std::string>();
    e.lanes = r.at("lanes").get<std::size_t>();
    e.ns_per_lane_block = ns;
    t.rates.push_back(std::move(e));
  }
  return t;
}

const engine_tuning& current_tuning() {
  std::lock_guard<std::mutex> lk(g_mu);
  if (!g_tuning) g_tuning = load_or_calibrate();
  return *g_tuning;
}

const engine_tuning& recalibrate_tuning(int rounds, double sample_seconds) {
  std::lock_guard<std::mutex> lk(g_mu);
  g_tuning = calibrate_and_cache(rounds, sample_seconds);
  return *g_tuning;
}

void reset_tuning() {
  std::lock_guard<std::mutex> lk(g_mu);
  g_tuning.reset();
}

double chains_step_ns(double ns_per_lane_block, std::size_t width, std::size_t lanes_needed, std::size_t threads) {
  const std::size_t groups = (lanes_needed + width - 1) / width;
  const std::size_t rounds = (groups + std::max<std::size_t>(threads, 1) - 1) / std::max<std::size_t>(threads, 1);
  return static_cast<double>(rounds * width) * ns_per_lane_block;
}

const engine* measured_fastest(hash_family algo, std::size_t min_lanes, std::size_t max_lanes,
                               std::size_t lanes_needed, std::size_t threads) {
  std::vector<const engine*> cands;
  for (const engine* e : available_engines(algo))
    if (e->lanes >= min_lanes && e->lanes <= max_lanes) cands.push_back(e);
  if (cands.empty()) return nullptr;
  const auto rates = rates_of(current_tuning(), cands);
  if (!rates) return nullptr;
  const std::size_t best = cheapest(cands, *rates, lanes_needed, threads).first;
  return best < cands.size() ? cands[best] : nullptr;
}

const engine& best_engine(hash_family algo, std::size_t min_lanes, std::size_t max_lanes) {
  if (const engine* e = forced_engine(algo, min_lanes, max_lanes)) return *e;
  if (const engine* e = measured_fastest(algo, min_lanes, max_lanes, 0)) return *e;
  for (const engine* e : available_engines(algo))
    if (e->lanes >= min_lanes && e->lanes <= max_lanes) return *e;
  throw std::invalid_argument("no available " + std::string(hash_family_name(algo)) + " engine runs " +
                              std::to_string(min_lanes) + ".." + std::to_string(max_lanes) + " lanes");
}

const engine& fastest_engine(hash_family algo, std::size_t lanes_needed, std::size_t threads) {
  if (lanes_needed == 0) throw std::invalid_argument("fastest_engine: lanes needed must be at least 1");
  const std::size_t max_lanes = lanes_needed == 1 ? 1 : std::numeric_limits<std::size_t>::max();
  if (std::getenv(kForceEngineEnv) != nullptr) return best_engine(algo, 1, max_lanes);
  if (const engine* e = measured_fastest(algo, 1, max_lanes, lanes_needed, threads)) return *e;
  // Static order: the widest engine the request fills (wider ones would hash idle lanes).
  const engine* widest = nullptr;
  for (const engine* e : available_engines(algo))
    if (e->lanes <= lanes_needed && (widest == nullptr || e->lanes > widest->lanes)) widest = e;
  return widest != nullptr ? *widest : best_engine(algo, 1, max_lanes);
}

}  // namespace poreplab::cpu
