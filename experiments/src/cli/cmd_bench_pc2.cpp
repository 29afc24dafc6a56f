// `poreplab bench pc2`: timed, sample-verified PC2 on one backend's Poseidon.
#include <algorithm>
#include <iomanip>
#include <iostream>

#include "bench/pc2.hpp"
#include "cli/backend_flags.hpp"
#include "cli/bench_cli.hpp"
#include "cli/cli.hpp"
#include "records/payload_keys.hpp"
#include "util/text.hpp"

namespace poreplab::cli {

void add_bench_pc2_command(CLI::App& app) {
  auto opt = std::make_shared<pc2_bench_options>();
  auto size = std::make_shared<std::string>("8MiB");
  auto json = std::make_shared<bool>(false);
  auto* cmd = bench_group(app)->add_subcommand(
      "pc2", "PC2 speed (tree_c, tree_r_last, comm_r) through the pipeline (a reader thread reading and checking "
             "the next chunks while the hasher hashes one): from a sealed directory's layer files and replica "
             "(--source files --from DIR, as `poreplab pc2` reads them) or over labels generated in memory "
             "(--source memory, the synthetic figure); the feed rate, hashing time, end to end and the stage that set "
             "the pace, ns per node, seconds per sector, Fr multiplies/s against the multiply's bound (the engine's "
             "on the host cores, the modeled device on cuda); sample-verified");
  cmd->add_option("--backend", opt->backend, join(backend_names(), " | "))->capture_default_str();
  auto source = std::make_shared<std::string>(std::string(kPc2Sources.name(pc2_source::memory)));
  cmd->add_option("--source", *source,
                  "memory: labels and replica generated in memory (synthetic, no disk); files: the layers and "
                  "replica of --from, read from the disk each sample and checked against seal.json's digests")
      ->capture_default_str();
  cmd->add_option("--from", opt->from,
                  "the sealed directory (what `poreplab seal` wrote) for --source files: its seal.json gives the "
                  "sector size and layers; the directory is only read");
  cmd->add_option("--buffers", opt->buffers,
                  "chunk buffers between the reader and the hasher (1 to 16); 1 serializes reading and hashing")
      ->capture_default_str();
  cmd->add_option("--chunk", opt->chunk_nodes,
                  "leaves per chunk (a power of 8); 0 = the hasher's preference, else build_pc2's default")
      ->capture_default_str();
  cmd->add_option("--sector-size", *size, "2KiB, 8MiB, 512MiB, 32GiB, 64GiB (a size with a rust-fil-proofs tree shape)")
      ->capture_default_str();
  cmd->add_option("--layers", opt->layers, "2 or 11 (the column arity)")->capture_default_str();
  add_param_option(cmd, records::axis::window_nodes, opt->window_nodes,
                   "hash a window of this many nodes (a power of 8): its columns and one tree, standing for the "
                  "sector's per-node work; 0 = the whole sector");
  cmd->add_option("--warmup", opt->warmup, "untimed runs first")->capture_default_str();
  cmd->add_option("--samples", opt->samples, "timed runs")->capture_default_str();
  cmd->add_option("--verify-samples", opt->verify_samples,
                  "column hashes and tree nodes recomputed with the plain permutation after the runs")
      ->capture_default_str();
  auto knobs = std::make_shared<backend_settings>();
  const auto apply_knobs = add_backend_flags(cmd, knobs, {}, work_pc2);
  cmd->add_flag("--json", *json, "one JSON object");
  cmd->callback([cmd, opt, size, source, json, knobs, apply_knobs] {
    apply_knobs();
    opt->knobs = *knobs;
    try {
      opt->source = kPc2Sources.parse(*source);
    } catch (const std::invalid_argument& e) {
      throw usage_error(std::string("--source: ") + e.what());
    }
    if (opt->source == pc2_source::memory && !opt->from.empty())
      throw usage_error("--from: only with --source files (memory generates its labels)");
    if (opt->source == pc2_source::files && opt->from.empty())
      throw usage_error("--source files: name the sealed directory with --from DIR");
    if (opt->source == pc2_source::files && (cmd->count("--sector-size") > 0 || cmd->count("--layers") > 0))
      throw usage_error("--sector-size, --layers: with --source files the directory's seal.json gives them");
    const auto bytes = parse_size(*size);
    if (!bytes) throw usage_error("--sector-size: '" + *size + "' is not a size (e.g. 8MiB, 32GiB or bytes)");
    opt->sector_size = *bytes;
    const auto r = run_pc2_bench(*opt);
    if (!r.verified) set_exit_status(1);
    if (*json) {
      std::cout << pc2_bench_json(r).dump() << "\n";
      return;
    }
    const std::string who = r.threads > 0 ? std::to_string(r.threads) + " threads" : std::string("the device");
    std::cout << std::fixed << std::setprecision(1) << "pc2 on " << r.options.backend << " (" << r.hasher << "), "
              << format_size(r.options.sector_size) << ", " << r.options.layers << " layers, " << who << "; "
              << (r.options.window_nodes == 0 ? "the whole sector"
                                              : "a window of " + std::to_string(r.nodes_hashed) + " nodes")
              << "\n  source             "
              << (r.options.source == pc2_source::files
                      ? "files: the layers and replica of " + r.options.from + ", read from the disk"
                      : std::string("memory: generated labels, no disk (synthetic)"))
              << "\n  feed               " << std::setprecision(3) << r.feed_s << " s, " << r.feed_gib_per_s
              << " GiB/s read and checked (" << r.bytes_read << " bytes, " << r.chunks << " chunks of " << r.chunk_nodes << " nodes)"
              << "\n  hashing            " << r.hash_s << " s"
              << "\n  end to end         " << r.end_to_end_s << " s (" << std::setprecision(2)
              << r.end_to_end_s / std::max({r.feed_s, r.hash_s, 1e-9}) << " x the busier stage; " << r.options.buffers
              << " buffers, " << r.overlapped_reads << " of " << r.chunks << " chunk reads overlapped a hash)"
              << "\n  pace set by        " << sdr::kPc2Paces.name(r.pace) << std::setprecision(1)
              << "\n  ns per node        " << r.median_ns_per_node << " (median of " << r.samples_ns_per_node.size()
              << ")";
    if (r.kernel_ns_per_node >= 0)
      std::cout << "\n  kernels alone      " << r.kernel_ns_per_node << " ns per node (device events)";
    std::cout << "\n  one sector         " << std::setprecision(2) << r.sector_seconds << " s ("
              << (r.options.window_nodes == 0 ? "measured" : "extrapolated from the window")
              << ")\n  Fr multiplies/s    " << std::setprecision(3) << r.fr_mul_per_s / 1e6 << " M ("
              << r.multiplies_per_node << " per node)"
              << "\n  bound              " << r.bound_mul_per_s / 1e6 << " M multiplies/s, " << r.bound_basis
              << "\n  vs bound           " << std::setprecision(2) << r.vs_bound << "\n  comm_r             "
              << r.digest << "\n  verified           " << (r.verified ? "ok: " : "MISMATCH: ") << r.verified_against
              << "\n";
  });
}

}  // namespace poreplab::cli
