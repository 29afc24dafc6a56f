// `poreplab bench pc2`: timed, sample-verified PC2 on one backend's Poseidon.
#include <algorithm>
#include <iomanip>
#include <iostream>

#include "bench/pc2.hpp"
#include "cli/backend_flags.hpp"
#include "cli/bench_cli.hpp"
#include "cli/cli.hpp"
#include "poreplab/interrupt.hpp"
#include "records/payload_keys.hpp"
#include "util/text.hpp"

namespace poreplab::cli {

namespace {

// Which of --from, --window-nodes, --layer-dir, --sector-size and --layers go together.
void check_pc2_source_flags(const CLI::App& cmd, const pc2_bench_options& opt) {
  const bool window = opt.window_nodes != 0;
  if (opt.source == pc2_source::memory && !opt.from.empty())
    throw usage_error("--from: only with --source files (memory generates its labels)");
  if (!opt.layer_dir.empty() && (opt.source != pc2_source::files || !window))
    throw usage_error("--layer-dir: only for a window from files (--source files --window-nodes N)");
  if (opt.source != pc2_source::files) return;
  if (opt.from.empty() && !window)
    throw usage_error("--source files: name the sealed directory with --from DIR, or a window to write with "
                      "--window-nodes N");
  if (!opt.from.empty() && window)
    throw usage_error("--window-nodes: --from DIR is a sealed sector, hashed whole; a window from files is written "
                      "to --layer-dir");
  if (!opt.from.empty() && (cmd.count("--sector-size") > 0 || cmd.count("--layers") > 0))
    throw usage_error("--sector-size, --layers: with --source files --from DIR the directory's seal.json gives them");
}

// The disk beside the feed, for a run from files.
void print_disk_beside(const pc2_bench_result& r) {
  std::cout << "\n  feed reads         " << r.feed_how;
  if (r.feed_cpu_s >= 0)
    std::cout << std::setprecision(3) << "\n  feed's time        " << r.feed_cpu_s << " s on a CPU, " << r.feed_queued_s
              << " s waiting for one, the rest on their reads (" << std::min(r.options.readers, r.options.buffers)
              << " readers)";
  if (r.digest_s > 0)
    std::cout << std::setprecision(3) << "\n  digests            " << r.digest_s
              << " s checking the files' SHA-256 against seal.json, beside the feed and the hashing";
  std::cout << std::setprecision(3) << "\n  feed alone         " << r.feed_alone_gib_per_s
            << " GiB/s (no hashing beside it); feed alone / disk " << std::setprecision(2) << r.feed_alone_over_disk;
  std::cout << std::setprecision(3) << "\n  disk sequential    " << r.disk_seq_read_gib_per_s
            << " GiB/s (median of " << r.disk_seq_read_samples_gib_per_s.size() << ": " << r.disk_seq_read_how
            << "); feed / disk " << std::setprecision(2) << r.feed_over_disk << "\n  page cache         "
            << (r.page_cache_share_before_read < 0
                    ? std::string("not known whether the drop before each read took")
                    : format_number(100 * r.page_cache_share_before_read, 3) +
                          "% of a file at most still cached when a read began");
  if (!r.layer_dir.empty())
    std::cout << "\n  window files       " << format_size(r.scratch_bytes) << " written to " << r.layer_dir << " in "
              << std::setprecision(2) << r.scratch_write_s << " s (synced), removed after";
}

// The human-readable result.
void print_pc2_text(const pc2_bench_result& r) {
  const std::string who = r.threads > 0 ? std::to_string(r.threads) + " threads" : std::string("the device");
  std::cout << std::fixed << std::setprecision(1) << "pc2 on " << r.options.backend->name << " (" << r.hasher << "), "
            << format_size(r.options.sector_size) << ", " << r.options.layers << " layers, " << who << "; "
            << (r.options.window_nodes == 0 ? "the whole sector"
                                            : "a window of " + std::to_string(r.nodes_hashed) + " nodes")
            << "\n  source             "
            << (r.options.source == pc2_source::memory ? std::string("memory: generated labels, no disk (synthetic)")
                : r.layer_dir.empty() ? "files: the layers and replica of " + r.options.from + ", read from the disk"
                                      : "files: the window's generated labels and replica, written to " +
                                            r.layer_dir + " and read from the disk")
            << "\n  feed               " << std::setprecision(3) << r.feed_s << " s, " << r.feed_gib_per_s
            << " GiB/s read and checked (" << r.bytes_read << " bytes, " << r.chunks << " chunks of " << r.chunk_nodes
            << " nodes)";
  if (r.options.source == pc2_source::files) print_disk_beside(r);
  std::cout << std::setprecision(3) << "\n  hashing            " << r.hash_s << " s"
            << "\n  end to end         " << r.end_to_end_s << " s (" << std::setprecision(2)
            << r.end_to_end_s / std::max({r.feed_s, r.hash_s, 1e-9}) << " x the busier stage; " << r.buffers
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
}

}  // namespace

void add_bench_pc2_command(CLI::App& app) {
  auto opt = std::make_shared<pc2_bench_options>();
  auto size = std::make_shared<std::string>("8MiB");
  auto json = std::make_shared<bool>(false);
  auto* cmd = bench_group(app)->add_subcommand(
      "pc2", "PC2 speed (tree_c, tree_r_last, comm_r) through the pipeline (reader threads reading the next chunks "
             "and a thread checking their digests while the hasher hashes one): from a sealed directory's layer files and replica "
             "(--source files --from DIR, as `poreplab pc2` reads them), from a window's generated labels written to "
             "files first (--source files --window-nodes N [--layer-dir DIR]), or over labels generated in memory "
             "(--source memory, the synthetic figure); the feed rate, beside the disk's sequential read rate on the "
             "same files, hashing time, end to end and the stage that set the pace, ns per node, seconds per sector, "
             "Fr multiplies/s against the multiply's bound (the engine's on the host cores, the modeled device on "
             "cuda); sample-verified");
  add_backend_option(cmd, opt->backend, join(backend_names(), " | "));
  auto source = std::make_shared<std::string>(std::string(kPc2Sources.name(pc2_source::memory)));
  cmd->add_option("--source", *source,
                  "memory: labels and replica generated in memory (synthetic, no disk); files: the layers and "
                  "replica of --from, read from the disk each sample and checked against seal.json's digests, or "
                  "with --window-nodes a window's labels written to --layer-dir first and read from there")
      ->capture_default_str();
  cmd->add_option("--from", opt->from,
                  "the sealed directory (what `poreplab seal` wrote) for --source files: its seal.json gives the "
                  "sector size and layers; the directory is only read");
  cmd->add_option("--layer-dir", opt->layer_dir,
                  "--source files --window-nodes N: the directory on the disk the window's layer and replica files "
                  "are written in (never over a file already there), read from and removed after; default "
                  "$POREPLAB_LAYER_DIR, else /var/tmp");
  cmd->add_option("--buffers", opt->buffers,
                  "chunk buffers between the readers and the hasher (1 to 16); 1 serializes reading and hashing")
      ->capture_default_str();
  cmd->add_option("--readers", opt->readers,
                  "reader threads (1 to 16, at most --buffers run): with 2 one chunk's reads begin while the "
                  "other's last ones drain")
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
    check_pc2_source_flags(*cmd, *opt);
    const auto bytes = parse_size(*size);
    if (!bytes) throw usage_error("--sector-size: '" + *size + "' is not a size (e.g. 8MiB, 32GiB or bytes)");
    opt->sector_size = *bytes;
    const interrupt_scope on_signal;  // Ctrl-C stops between chunks, removing a window's files
    const auto r = run_pc2_bench(*opt);
    if (!r.verified) set_exit_status(1);
    if (*json) {
      std::cout << pc2_bench_json(r).dump() << "\n";
      return;
    }
    print_pc2_text(r);
  });
}

}  // namespace poreplab::cli
