// `poreplab bench label`: timed, verified SDR labeling on one backend.
#include <iomanip>
#include <iostream>

#include "backends/device_class.hpp"
#include "cli/backend_flags.hpp"
#include "cli/bench_cli.hpp"
#include "bench/label.hpp"
#include "poreplab/memory_check.hpp"
#include "poreplab/stats.hpp"
#include "cli/cli.hpp"
#include "records/payload_keys.hpp"
#include "runner/config.hpp"
#include "util/text.hpp"

namespace poreplab::cli {

namespace {

std::string join_indices(const std::vector<std::size_t>& v) {
  std::string s;
  for (const std::size_t i : v) s += (s.empty() ? "" : ", #") + std::to_string(i);
  return s;
}

std::string stop_text(const label_bench_result& r) {
  const std::string n = std::to_string(r.samples_ns_per_node_layer.size()) + " samples";
  if (r.stopped_by == stop_reason::ci_target) return "the interval target (" + n + ")";
  if (r.stopped_by == stop_reason::time_budget) {
    std::string s = "the time budget (" + n;
    if (r.options.target_ci > 0) s += "; the interval target was not reached";
    return s + ")";
  }
  return "the sample count (" + n + ")";
}

std::string verify_text(const label_bench_result& r) {
  return r.verified_by.text() + " (checked against " + r.verified_by.against() + ")";
}

// What ran: scheme, backend and engine, threads, the window.
void print_setup(const label_bench_result& r) {
  std::cout << std::fixed << std::setprecision(1) << "scheme " << sdr::scheme_name(r.options.scheme)
            << (r.options.scheme.is_filecoin() ? " (Filecoin)" : " (what-if variant, not Filecoin)") << "\n"
            << "backend " << r.options.backend->name << ", engine " << r.engine
            << (r.producer != cpu::parent_producer::off
                    ? ", parents gathered by coordinators (" + std::string(cpu::kParentProducers.name(r.producer)) + ")"
                    : std::string())
            << ", " << r.options.sectors << " x " << format_size(r.options.sector_size) << " ("
            << r.nodes << " nodes), " << r.options.layers << " layers, porep_id " << r.porep_id_source << "\n";
  if (!r.thread_map.empty()) {
    std::cout << "  threads            placement " << r.placement << ":";
    for (std::size_t i = 0; i < r.thread_map.size(); ++i) {
      const auto& t = r.thread_map[i];
      std::cout << (i ? ", " : " ") << (cpu::kThreadRoles.parse(t["role"].get<std::string>()) == cpu::thread_role::producer ? "p" : "t") << t["thread"].get<int>() << "->cpu "
                << t["cpu"].get<int>() << " (core " << t["core"].get<int>() << (t["pinned"].get<bool>() ? "" : ", unpinned")
                << (t.value("moved", false) ? ", moved" : "") << ")";
    }
    std::cout << "\n";
  }
  if (r.options.window_nodes > 0)
    std::cout << "  window             nodes [" << r.window_first_node << ", " << r.window_first_node + r.options.window_nodes
              << ") of layer " << r.options.layers << "; layers " << r.options.layers - 1 << " and "
              << r.options.layers << " full-size in " << sdr::window_backing_name(r.window_backing)
              << (sdr::window_backing_uses_dir(r.window_backing) ? " (sparse, unlinked, in " + r.window_dir + ")" : "")
              << (r.window_alias_period > 0 ? " (" + sdr::page_size_text(r.window_page) + " pages, bytes repeating every " + byte_size_text(r.window_alias_period) + ")" : "")
              << ", "
              << r.window_pages_filled << " pages (" << byte_size_text(r.window_bytes_filled)
              << ") filled and touched before timing, " << byte_size_text(r.window_resident_bytes)
              << " resident after; NOT a whole-sector run\n";
}

// The rates, the clock and the CPU share.
void print_rates(const label_bench_result& r) {
  std::cout << std::fixed << std::setprecision(1) << "  ns/node/layer      " << r.ns_per_node_layer << " [" << r.ns_lo
            << ", " << r.ns_hi << "]\n"
            << "  labels/s           " << std::setprecision(0) << r.labels_per_s << "\n"
            << std::setprecision(2) << "  cycles/byte        " << r.cycles_per_byte << " (TSC, one stream, "
            << r.hashed_bytes_per_node << " B hashed a node)";
  if (r.cycles_per_byte_core > 0) std::cout << ", " << r.cycles_per_byte_core << " (core clock)";
  std::cout << "\n";
  if (r.core_hz > 0) {
    std::cout << std::setprecision(3) << "  core clock         " << r.core_hz / 1e9 << " GHz median (add chain), "
              << r.clock_flagged.size() << " of " << r.clock_hz.size() << " samples more than "
              << format_number(kClockTolerance * 100) << "% off";
    if (!r.clock_flagged.empty()) std::cout << " (#" << join_indices(r.clock_flagged) << ")";
    std::cout << "\n";
  }
  if (!r.cpu_share.empty()) {
    std::cout << std::setprecision(2) << "  CPU share          " << median(r.cpu_share)
              << " median (timing thread's CPU time / wall time), " << r.preempted.size() << " of "
              << r.cpu_share.size() << " samples preempted (below " << format_number(kMinCpuShare * 100) << "%)";
    if (!r.preempted.empty()) std::cout << " (#" << join_indices(r.preempted) << ")";
    std::cout << "\n";
  }
}

// Against the floor, per layer, why sampling stopped, memory and verification.
void print_quality(const label_bench_result& r) {
  if (!r.pairs.empty())
    std::cout << std::setprecision(1) << "  floor ns/node/layer " << r.floor_ns_per_node_layer << "\n"
              << std::setprecision(3) << "  efficiency         " << r.efficiency << " [" << r.efficiency_lo << ", "
              << r.efficiency_hi << "] (median of " << r.pairs.size() << " floor/label pairs, 95% interval; "
              << std::setprecision(1) << "pair spread " << r.efficiency_spread * 100 << "%)\n";
  if (r.chain_efficiency > 0)
    std::cout << std::setprecision(1) << "  19-block floor     " << r.chain_floor_ns_per_node_layer
              << " ns/node/layer (the header compressed ahead)\n"
              << std::setprecision(3) << "  efficiency vs 19   " << r.chain_efficiency << " (median of the pairs)\n";
  if (r.coordinators > 0)
    std::cout << "  coordinators       " << r.coordinators << " feeding " << r.hashers << " hashers (floor and efficiency: "
              << "each hashing thread's); busy " << std::setprecision(3) << r.coordinator_busy_share << ", "
              << std::setprecision(0) << r.parent_rows_per_s << " parent rows/s, could feed "
              << r.hashers_per_coordinator_max << " hashers at their floor; " << r.labels_per_s_per_cpu
              << " labels/s per CPU, coordinators counted\n";
  if (r.layer_groups.size() > 1) {
    std::cout << std::setprecision(1) << "  per layer          ";
    for (std::size_t g = 0; g < r.layer_groups.size(); ++g)
      std::cout << (g ? ", " : "") << r.layer_groups[g].first << " " << r.layer_groups[g].second;
    std::cout << " ns/node (" << (r.options.backend->device == device_class::gpu ? "as each layer reached the host" : "host clock")
              << ", median of samples, mean over the group's layers)\n";
  }
  std::cout << "  stopped by         " << stop_text(r) << "\n"
            << std::setprecision(1);
  if (r.options.window_nodes == 0) std::cout << "  RSS bytes/node     " << r.rss_bytes_per_node << "\n";
  if (r.parent_table_s > 0)
    std::cout << std::setprecision(3) << "  parent table       " << r.parent_table_s << " s to generate, "
              << r.parent_table_vs_layer << "x one layer's labeling\n";
  std::cout << "  verified           " << (r.verified ? "yes, " : "NO, ") << verify_text(r) << "  " << r.digest << "\n";
  if (!r.verify_failure.empty()) std::cout << "  first mismatch     " << r.verify_failure << "\n";
}

}  // namespace

void add_bench_label_command(CLI::App& app) {
  auto opt = std::make_shared<label_bench_options>();
  auto size = std::make_shared<std::string>("2KiB");
  auto json = std::make_shared<bool>(false);
  auto* cmd = bench_group(app)->add_subcommand("label", "labeling speed (any variant x hash) against its hash-only floor, verified");
  add_backend_option(cmd, opt->backend, join(backend_names(), " | "));
  add_named_option(cmd, "--variant", opt->scheme.variant, sdr::kPorepVariants, "sdr (Filecoin) | zigzag (r2)");
  add_parsed_option(cmd, "--hash", opt->scheme.hash, sdr::label_hash_names(), sdr::parse_label_hash,
                    sdr::label_hash_name(opt->scheme.hash), "sha256 | blake2s | blake2b-256 (other than sdr + sha256: what-if)");
  cmd->add_option("--sectors", opt->sectors, "sectors labeled together")->capture_default_str();
  cmd->add_option("--sector-size", *size, "e.g. 2KiB, 8MiB, 512MiB, or bytes")->capture_default_str();
  cmd->add_option("--layers", opt->layers, "layers (with --window: the layer the window is in)")->capture_default_str();
  auto proof = std::make_shared<std::string>();
  cmd->add_option("--proof", *proof, "a registered proof (e.g. StackedDrg32GiBV1_1): its sector size and porep_id");
  auto* window = add_param_option(cmd, records::axis::window_nodes, opt->window_nodes,
                                  "time this many consecutive nodes of one layer of a full-size sector (sdr; docs/scaling.md)");
  cmd->add_option("--window-offset", opt->window_offset, "the window's first node (default: drawn at random)")
      ->needs(window);
  add_named_option(cmd, "--window-backing", opt->window_backing, sdr::kWindowBackings,
                   "where the window's two full-size layers live: " + sdr::kWindowBackings.valid() +
                       " (auto: ram when they fit; " + sdr::window_backing_name(sdr::window_backing::aliased) +
                       ": on huge pages, --window-page, docs/scaling.md)");
  auto period = std::make_shared<std::string>();
  cmd->add_option("--window-alias-period", *period,
                  "aliased windows: bytes after which a layer's bytes repeat (default 4GiB; 64MiB keeps them in a "
                  "last-level cache)")
      ->needs(window);
  auto page = std::make_shared<std::string>();
  cmd->add_option("--window-page", *page,
                  "aliased windows: the layers' page size, " + sdr::alias_pages_text() +
                      " (default 2MiB; 1GiB needs 1 GiB huge pages reserved)")
      ->needs(window);
  cmd->add_option("--window-dir", opt->window_dir, "directory of mmap-file windows' (unlinked) files (default: /dev/shm when it has room, else the temp directory)");
  add_named_option(cmd, "--verify", opt->verify, kVerifyModes,
                   kVerifyModes.valid() + ": re-label with the reference, or recompute --verify-samples nodes (auto: full when it fits)");
  cmd->add_option("--verify-samples", opt->verify_samples, "nodes recomputed by sampled verification")->capture_default_str();
  auto knobs = std::make_shared<backend_settings>();
  const auto apply_knobs = add_backend_flags(cmd, knobs);
  cmd->add_option("--warmup", opt->warmup, "untimed runs first")->capture_default_str();
  cmd->add_option("--samples", opt->samples,
                  "timed runs, each beside a floor run where there is a floor; with --target-ci the fewest (at least 5)")
      ->capture_default_str();
  cmd->add_option("--target-ci", opt->target_ci,
                  "sample until the 95% interval of the median efficiency is within +- this fraction of it (e.g. 0.02); "
                  "without a floor, of the median time");
  cmd->add_option("--max-seconds", opt->max_seconds,
                  "stop sampling after about this many seconds (default with --target-ci: 30)");
  cmd->add_flag("--json", *json, "one JSON object per row");
  cmd->callback([opt, size, proof, period, page, json, knobs, apply_knobs] {
    apply_knobs();
    opt->knobs = *knobs;
    const auto bytes = parse_size(*size);
    if (!bytes) throw usage_error("--sector-size: '" + *size + "' is not a size (e.g. 2KiB, 8MiB or bytes)");
    opt->sector_size = *bytes;
    if (!period->empty()) {
      const auto p = parse_size(*period);
      if (!p) throw usage_error("--window-alias-period: '" + *period + "' is not a size (e.g. 64MiB, 4GiB or bytes)");
      opt->window_alias_period = *p;
    }
    if (!page->empty()) {
      const auto p = parse_size(*page);
      if (!p) throw usage_error("--window-page: '" + *page + "' is not a size (e.g. 2MiB or 1GiB)");
      opt->window_page = *p;
    }
    if (!proof->empty()) {
      if (*size != "2KiB") throw usage_error("--proof sets the sector size: give one or the other");
      opt->proof = &sdr::find_registered_proof(*proof);
    }
    const auto r = bench_label(*opt);
    if (*json) {
      std::cout << to_json(r).dump() << "\n";
    } else {
      print_setup(r);
      print_rates(r);
      print_quality(r);
    }
    if (!r.verified) set_exit_status(1);
  });
}

}  // namespace poreplab::cli
