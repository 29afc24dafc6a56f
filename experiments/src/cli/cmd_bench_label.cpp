// `poreplab bench label`: timed, verified SDR labeling on one backend.
#include <iomanip>
#include <iostream>

#include "cli/backend_flags.hpp"
#include "cli/bench_cli.hpp"
#include "bench/label.hpp"
#include "cli/cli.hpp"
#include "runner/config.hpp"
#include "util/text.hpp"

namespace poreplab::cli {

void add_bench_label_command(CLI::App& app) {
  auto opt = std::make_shared<label_bench_options>();
  auto size = std::make_shared<std::string>("2KiB");
  auto json = std::make_shared<bool>(false);
  auto* cmd = bench_group(app)->add_subcommand("label", "labeling speed (any variant x hash) against its hash-only floor, verified");
  cmd->add_option("--backend", opt->backend, join(backend_names(), " | "))->capture_default_str();
  cmd->add_option("--variant", opt->variant, "sdr (Filecoin) | zigzag (r2)")->capture_default_str();
  cmd->add_option("--hash", opt->hash, "sha256 | blake2s | blake2b-256 (other than sdr + sha256: what-if)")
      ->capture_default_str();
  cmd->add_option("--sectors", opt->sectors, "sectors labeled together")->capture_default_str();
  cmd->add_option("--sector-size", *size, "e.g. 2KiB, 8MiB, 512MiB, or bytes")->capture_default_str();
  cmd->add_option("--layers", opt->layers, "layers")->capture_default_str();
  auto knobs = std::make_shared<backend_settings>();
  const auto apply_knobs = add_backend_flags(cmd, knobs);
  cmd->add_option("--warmup", opt->warmup, "untimed runs first")->capture_default_str();
  cmd->add_option("--samples", opt->samples, "timed runs")->capture_default_str();
  cmd->add_flag("--json", *json, "one JSON object per row");
  cmd->callback([opt, size, json, knobs, apply_knobs] {
    apply_knobs();
    opt->knobs = *knobs;
    const auto bytes = parse_size(*size);
    if (!bytes) throw usage_error("--sector-size: '" + *size + "' is not a size (e.g. 2KiB, 8MiB or bytes)");
    opt->sector_size = *bytes;
    const auto r = bench_label(*opt);
    if (*json) {
      std::cout << to_json(r).dump() << "\n";
    } else {
      std::cout << std::fixed << std::setprecision(1) << "scheme " << r.scheme
                << (r.scheme_status == "filecoin" ? " (Filecoin)" : " (what-if variant, not Filecoin)") << "\n"
                << "backend " << r.options.backend << ", engine " << r.engine
                << ", " << r.options.sectors << " x " << format_size(r.options.sector_size) << " ("
                << r.nodes << " nodes), " << r.options.layers << " layers\n"
                << "  ns/node/layer      " << r.ns_per_node_layer << "\n"
                << "  labels/s           " << std::setprecision(0) << r.labels_per_s << "\n"
                << std::setprecision(2) << "  cycles/byte        " << r.cycles_per_byte << " (TSC, one stream, "
                << r.hashed_bytes_per_node << " B hashed a node)\n"
                << std::setprecision(1) << "  floor ns/node/layer " << r.floor_ns_per_node_layer << "\n"
                << std::setprecision(3) << "  efficiency         " << r.efficiency << "\n"
                << std::setprecision(1) << "  RSS bytes/node     " << r.rss_bytes_per_node << "\n"
                << "  verified           " << (r.verified ? "yes (last layer equals the portable reference)" : "NO")
                << "  " << r.digest << "\n";
    }
    if (!r.verified) set_exit_status(1);
  });
}

}  // namespace poreplab::cli
