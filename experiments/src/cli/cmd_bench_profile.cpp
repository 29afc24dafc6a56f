// `poreplab bench profile`: where the time of one scheme's replication goes (fetch, hash,
// encode, io, other), the timers' overhead, the production backend beside it, verified.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "cli/bench_cli.hpp"
#include "bench/profile.hpp"
#include "cli/cli.hpp"
#include "runner/config.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "util/text.hpp"

namespace poreplab::cli {

namespace {

void print_profile(const profile_bench_result& r) {
  const auto& p = r.profile;
  const bool filecoin = r.options.scheme.is_filecoin();
  std::printf("profile %s (%s%s), engine %s, 1 x %s (%llu nodes), %u layers, %u sample%s, timer %s\n",
              sdr::scheme_name(r.options.scheme).c_str(), sdr::scheme_status(r.options.scheme),
              filecoin ? ": Filecoin's SDR" : ": not Filecoin's scheme, a variant for the hash study", p.engine.c_str(),
              format_size(r.options.sector_size).c_str(), static_cast<unsigned long long>(p.nodes), p.layers,
              p.samples, p.samples == 1 ? "" : "s", p.timer.c_str());
  const double work = static_cast<double>(p.nodes) * p.layers * p.sectors;
  std::printf("  %-8s %8s %15s\n", "phase", "share", "ns/node/layer");
  const struct {
    const char* name;
    double share, seconds;
  } rows[] = {{"fetch", p.share.fetch, p.seconds.fetch},    {"hash", p.share.hash, p.seconds.hash},
              {"encode", p.share.encode, p.seconds.encode}, {"io", p.share.io, p.seconds.io},
              {"other", p.share.other, p.seconds.other}};
  for (const auto& row : rows) std::printf("  %-8s %7.2f%% %15.1f\n", row.name, 100 * row.share, row.seconds * 1e9 / work);
  std::printf("  %-8s %7.2f%% %15.1f  (timed run, TSC)\n", "total", 100 * p.share.sum(), p.seconds.sum() * 1e9 / work);
  for (const auto& d : p.directions) {
    std::printf("  %-10s %u layer%s: fetch %5.2f%%, hash %5.2f%% of its layers' time, %.1f ns/node (timed run, TSC)",
                d.group.c_str(), d.layers, d.layers == 1 ? "" : "s", 100 * d.fetch_share, 100 * d.hash_share,
                d.ns_per_node);
    if (d.llc_misses_per_node >= 0) std::printf(", %.3f LLC misses/node (untimed)", d.llc_misses_per_node);
    std::printf("\n");
  }
  std::printf("  LLC misses              %s\n", p.llc_counter.c_str());
  std::printf("  timed ns/node/layer     %10.1f\n", p.timed_ns_per_node_layer);
  std::printf("  untimed ns/node/layer   %10.1f  (the same code, timers compiled out)\n", p.untimed_ns_per_node_layer);
  std::printf("  overhead                %+9.1f%%  (timed / untimed - 1)\n", 100 * p.overhead);
  std::printf("  backend ns/node/layer   %10.1f  (cpu backend, engine %s, 1 thread; %.2fx the untimed profile's time)\n",
              p.backend_ns_per_node_layer, p.engine.c_str(),
              p.untimed_ns_per_node_layer > 0 ? p.backend_ns_per_node_layer / p.untimed_ns_per_node_layer : 0.0);
  std::printf("  cycles/byte (TSC)       %10.3f  (untimed; %llu hashed bytes per node; backend %.3f; TSC %.3f GHz)\n",
              p.cycles_per_byte, static_cast<unsigned long long>(sdr::message_bytes(p.scheme.variant)),
              p.backend_cycles_per_byte, p.tsc_hz / 1e9);
  std::printf("  verified                %s  %s\n",
              p.verified ? ("yes (every run equals " + p.verified_against + ")").c_str() : "NO", p.digest.c_str());
  std::printf("  status                  %s\n",
              filecoin ? "filecoin: the scheme rust-fil-proofs seals with"
                       : "what-if: this scheme is not Filecoin's; figures are for the hash study only");
}

}  // namespace

void add_bench_profile_command(CLI::App& app) {
  auto opt = std::make_shared<profile_bench_options>();
  auto size = std::make_shared<std::string>("2KiB");
  auto json = std::make_shared<bool>(false);
  auto no_fence = std::make_shared<bool>(false);
  auto* cmd = bench_group(app)->add_subcommand(
      "profile", "replication profile: fetch / hash / encode / io shares per node, timer overhead, verified");
  add_named_option(cmd, "--variant", opt->scheme.variant, sdr::kPorepVariants, "sdr | zigzag");
  add_parsed_option(cmd, "--hash", opt->scheme.hash, sdr::label_hash_names(), sdr::parse_label_hash,
                    sdr::label_hash_name(opt->scheme.hash), "sha256 | blake2s | blake2b-256");
  cmd->add_option("--engine", opt->engine, "engine of the hash (single stream), or auto")->capture_default_str();
  cmd->add_option("--sector-size", *size, "e.g. 2KiB, 8MiB, or bytes")->capture_default_str();
  cmd->add_option("--layers", opt->layers, "layers; 0 = the variant's usual (sdr 2, zigzag 10)")->capture_default_str();
  cmd->add_option("--warmup", opt->warmup, "untimed rounds first")->capture_default_str();
  cmd->add_option("--samples", opt->samples, "rounds (timed, untimed and backend run each)")->capture_default_str();
  cmd->add_flag("--no-fence", *no_fence, "plain rdtsc per phase (no lfence): less overhead, blurred boundaries");
  cmd->add_flag("--json", *json, "one JSON object");
  cmd->callback([opt, size, json, no_fence] {
    const auto bytes = parse_size(*size);
    if (!bytes) throw usage_error("--sector-size: '" + *size + "' is not a size (e.g. 2KiB, 8MiB or bytes)");
    opt->sector_size = *bytes;
    opt->fenced = !*no_fence;
    const auto r = bench_profile(*opt);
    if (*json)
      std::cout << to_json(r).dump() << "\n";
    else
      print_profile(r);
    if (!r.profile.verified) set_exit_status(1);
  });
}

}  // namespace poreplab::cli
