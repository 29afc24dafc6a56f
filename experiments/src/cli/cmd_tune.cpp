// `poreplab tune`: the engine calibration behind `auto`, shown, redone or checked.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "poreplab/cpu/features.hpp"
#include "poreplab/cpu/tune.hpp"

namespace poreplab::cli {

namespace {

struct tune_options {
  bool recalibrate = false;
  bool json = false;
  bool check = false;
  int rounds = 7;
  double sample_ms = 2;
  double tolerance = 0.05;
};

// Lane counts a caller may ask an algo for: one stream, and the sector counts of multi-sector
// labeling (every algo labels sectors in lanes).
constexpr std::size_t kLaneRequests[] = {1, 2, 4, 8, 16, 32};

std::vector<std::size_t> requests_of(hash_family) { return {std::begin(kLaneRequests), std::end(kLaneRequests)}; }

// ceil(lanes / width) x width x ns: what one block of every requested chain costs.
// The labeler's threads (OpenMP's default): auto spreads a request's lane groups over them.
std::size_t label_threads() { return static_cast<std::size_t>(std::max(1, omp_get_max_threads())); }

double request_cost(const cpu::engine_rate& r, std::size_t lanes) {
  return cpu::chains_step_ns(r.ns_per_lane_block, r.lanes, lanes, label_threads());
}

nlohmann::json picks_json() {
  nlohmann::json picks = nlohmann::json::array();
  for (hash_family a : hash_families())
    for (std::size_t lanes : requests_of(a))
      picks.push_back({{"algo", hash_family_name(a)},
                       {"lanes_needed", lanes},
                       {"threads", label_threads()},
                       {"engine", cpu::fastest_engine(a, lanes, label_threads()).name}});
  return picks;
}

// Fresh rates against the choice: for every request, auto's engine vs the fastest in an
// independent calibration.
nlohmann::json check_json(const cpu::engine_tuning& fresh, double tolerance, bool& ok) {
  nlohmann::json rows = nlohmann::json::array();
  ok = true;
  for (hash_family a : hash_families())
    for (std::size_t lanes : requests_of(a)) {
      const cpu::engine& pick = cpu::fastest_engine(a, lanes, label_threads());
      const cpu::engine_rate* pr = fresh.find(a, pick.name);
      const cpu::engine_rate* best = nullptr;
      for (const auto& r : fresh.rates)
        if (r.algo == a && (lanes > 1 || r.lanes == 1) && (best == nullptr || request_cost(r, lanes) < request_cost(*best, lanes)))
          best = &r;
      if (pr == nullptr || best == nullptr) continue;
      const double slower = request_cost(*pr, lanes) / request_cost(*best, lanes) - 1;
      const bool pass = slower <= tolerance;
      ok = ok && pass;
      rows.push_back({{"algo", hash_family_name(a)},
                      {"lanes_needed", lanes},
                      {"auto", pick.name},
                      {"fastest_now", best->engine},
                      {"auto_slower_by", slower},
                      {"pass", pass}});
    }
  return rows;
}

void print_text(const cpu::engine_tuning& t, const nlohmann::json& picks) {
  std::cout << "cpu:     " << cpu::detect().model << "\n";
  std::cout << "tuning:  " << t.source << "\n";
  if (t.rates.empty()) {
    // Only the static tuning is empty (a cache without rates is refused and measured again).
    std::cout << "engines: static best-first order" << (t.source == "static" ? " (POREPLAB_TUNE=static)" : "")
              << "; no rates measured\n";
  } else {
    std::cout << "measured " << t.calibrated_at << " in " << t.seconds << " s; fastest sample of each engine\n";
    std::printf("%-8s %-12s %5s %16s %12s\n", "algo", "engine", "lanes", "ns/block/lane", "GB/s (all)");
    for (const auto& r : t.rates)
      std::printf("%-8s %-12s %5zu %16.2f %12.3f\n", std::string(hash_family_name(r.algo)).c_str(),
                  r.engine.c_str(), r.lanes, r.ns_per_lane_block,
                  static_cast<double>(compression_block_bytes(r.algo)) / r.ns_per_lane_block);
  }
  std::cout << "auto picks (" << label_threads() << " threads):";
  for (const auto& p : picks)
    std::cout << " " << p["algo"].get<std::string>() << "x" << p["lanes_needed"].get<std::size_t>() << "="
              << p["engine"].get<std::string>();
  std::cout << "\n";
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto o = std::make_shared<tune_options>();
  auto* cmd = app.add_subcommand(
      "tune", "Show the engine calibration `auto` uses (measured on this CPU, cached per CPU model and build); "
              "--recalibrate redoes it, --check compares auto's picks with a fresh measurement");
  cmd->add_flag("--recalibrate", o->recalibrate, "measure every engine again and replace the cache file");
  cmd->add_flag("--check", o->check,
                "measure again (without touching the cache) and exit 1 if an auto pick is slower than the fastest "
                "engine for its request by more than --tolerance");
  cmd->add_option("--tolerance", o->tolerance, "with --check: allowed relative slowdown (default 0.05)")
      ->check(CLI::Range(0.0, 10.0));
  cmd->add_option("--rounds", o->rounds, "samples per engine, engines interleaved (default 7)")->check(CLI::Range(1, 1000));
  cmd->add_option("--sample-ms", o->sample_ms, "length of one sample in milliseconds (default 2)")
      ->check(CLI::Range(0.01, 1000.0));
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o] {
    const cpu::engine_tuning& t =
        o->recalibrate ? cpu::recalibrate_tuning(o->rounds, o->sample_ms / 1000) : cpu::current_tuning();
    const nlohmann::json picks = picks_json();
    nlohmann::json out = nlohmann::json::parse(cpu::tuning_json(t));
    out["source"] = t.source;
    out["cache_file"] = cpu::tune_cache_file().string();
    out["auto"] = picks;
    if (!o->json) print_text(t, picks);
    if (o->check) {
      const cpu::engine_tuning fresh = cpu::calibrate_engines(o->rounds, o->sample_ms / 1000);
      bool ok = true;
      out["check"] = check_json(fresh, o->tolerance, ok);
      out["check_passed"] = ok;
      if (!o->json) {
        for (const auto& r : out["check"])
          std::printf("check %-8s x%-3zu auto %-11s fastest now %-11s auto slower by %+6.1f%%  %s\n",
                      r["algo"].get<std::string>().c_str(), r["lanes_needed"].get<std::size_t>(),
                      r["auto"].get<std::string>().c_str(), r["fastest_now"].get<std::string>().c_str(),
                      100 * r["auto_slower_by"].get<double>(), r["pass"].get<bool>() ? "ok" : "FAIL");
      }
      if (!ok) set_exit_status(1);
    }
    if (o->json) std::cout << out.dump(2) << "\n";
  });
}

}  // namespace poreplab::cli
