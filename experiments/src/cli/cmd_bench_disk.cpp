// `poreplab bench disk`: what a directory's disk is and how many random 4 KiB reads a
// second it serves at a queue depth (the bound of labeling with layers on disk); `poreplab
// bench disk-label`: labeling with the layers on that disk (bench/disk_label.hpp).
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/bench_cli.hpp"
#include "cli/cli.hpp"
#include "records/payload_keys.hpp"
#include "bench/disk_label.hpp"
#include "poreplab/storage/disk_probe.hpp"
#include "util/text.hpp"

namespace poreplab::cli {

namespace {

struct disk_cli_options {
  std::string dir = "/var/tmp";
  std::uint32_t depth = 32;
  double seconds = 2;
  std::string file_size = "256MiB";
  std::string engine = "auto";
  bool buffered = false;
  bool json = false;
};

}  // namespace

void add_bench_disk_command(CLI::App& app) {
  auto o = std::make_shared<disk_cli_options>();
  auto* cmd = bench_group(app)->add_subcommand(
      "disk", "random 4 KiB reads per second of a directory's disk at a queue depth (O_DIRECT unless --buffered)");
  cmd->add_option("--dir", o->dir, "a directory on the disk to measure (a scratch file is made there, never left behind)")
      ->capture_default_str();
  cmd->add_option("--depth", o->depth, "reads kept in flight (1..4096)")->capture_default_str();
  cmd->add_option("--seconds", o->seconds, "how long the reads run")->capture_default_str();
  cmd->add_option("--file-size", o->file_size, "the scratch file the reads fall in (written first)")->capture_default_str();
  cmd->add_option("--engine", o->engine, "auto | io_uring | pread-pool")->capture_default_str();
  cmd->add_flag("--buffered", o->buffered, "through the page cache (the reads then measure memory once it holds the file)");
  cmd->add_flag("--json", o->json, "one JSON object");
  cmd->callback([o] {
    storage::read_probe_options p;
    const auto bytes = parse_size(o->file_size);
    if (!bytes || *bytes < 4096) throw usage_error("--file-size '" + o->file_size + "': expected a size of at least 4KiB");
    if (o->depth == 0 || o->depth > 4096) throw usage_error("--depth " + std::to_string(o->depth) + ": expected 1..4096");
    if (!(o->seconds > 0 && o->seconds <= 600)) throw usage_error("--seconds: expected more than 0, at most 600");
    try {
      p.engine = storage::parse_io_engine(o->engine);
    } catch (const std::invalid_argument& e) {
      throw usage_error(std::string("--engine: ") + e.what());
    }
    p.file_bytes = *bytes;
    p.queue_depth = o->depth;
    p.seconds = o->seconds;
    p.direct = !o->buffered;
    const storage::disk_description d = storage::describe_disk(o->dir);
    storage::read_probe_result r;
    try {
      r = storage::probe_random_reads(o->dir, p);
    } catch (const std::runtime_error& e) {
      throw usage_error(e.what());
    }
    if (o->json) {
      std::cout << nlohmann::json{{"dir", o->dir}, {"disk", to_json(d)}, {"random_reads", to_json(r)}}.dump()
                << "\n";
      return;
    }
    std::printf("dir:    %s\ndisk:   %s%s%s, %s, %s%s\n", o->dir.c_str(), d.device.empty() ? "(unknown)" : d.device.c_str(),
                d.model.empty() ? "" : " ", d.model.c_str(), d.size_bytes ? format_size(d.size_bytes).c_str() : "size unknown",
                d.filesystem.empty() ? "filesystem unknown" : d.filesystem.c_str(), d.rotational ? ", rotational" : "");
    std::printf("reads:  %.0f random %u-byte reads/s (%.1f MiB/s), mean latency %.1f us, depth %u, %s, %s, over %s in %.1f s\n",
                r.reads_per_s, r.block_bytes, r.mib_per_s, r.mean_latency_us, r.queue_depth,
                storage::io_engine_name(r.engine), r.direct ? "O_DIRECT" : "buffered", format_size(r.file_bytes).c_str(),
                r.seconds);
  });
}

namespace {

struct disk_label_cli_options {
  std::string sector_size = "32GiB";
  std::string proof;
  std::uint32_t sectors = 16;
  std::uint32_t layers = 2;
  std::uint64_t window = 8192;
  std::int64_t window_offset = -1;
  std::string dir = "/var/tmp";
  std::uint64_t cache_nodes = 1u << 20;
  std::uint32_t lookahead = 256;
  std::uint32_t depth = 64;
  std::string engine_io = "auto";
  bool buffered = false;
  std::uint32_t threads = 1;
  std::string engine = "auto";
  std::uint32_t samples = 3;
  double probe_seconds = 1;
  bool json = false;
};

}  // namespace

void add_bench_disk_label_command(CLI::App& app) {
  auto o = std::make_shared<disk_label_cli_options>();
  auto* cmd = bench_group(app)->add_subcommand(
      "disk-label", "SDR labeling of S sectors with their layers on a disk: a RAM node cache, other parents read ahead");
  cmd->add_option("--sector-size", o->sector_size, "sector size (a window of it, or a whole sector up to 1GiB)")
      ->capture_default_str();
  cmd->add_option("--proof", o->proof, "a registered proof (its size, porep_id and api version)");
  cmd->add_option("--sectors", o->sectors, "sectors labeled together")->capture_default_str();
  cmd->add_option("--layers", o->layers, "layers (a window: the layer it is in)")->capture_default_str();
  add_param_option(cmd, records::axis::window_nodes, o->window, "nodes of a window of the last layer; 0: the whole sector")->capture_default_str();
  cmd->add_option("--window-offset", o->window_offset, "the window's first node; default: drawn at random");
  cmd->add_option("--layer-dir", o->dir, "the directory on the disk that holds the layers (nameless files)")
      ->capture_default_str();
  cmd->add_option("--cache-nodes", o->cache_nodes, "the current layer's most recent rows kept in RAM")->capture_default_str();
  cmd->add_option("--lookahead", o->lookahead, "nodes whose parents are read ahead (a power of two)")->capture_default_str();
  cmd->add_option("--depth", o->depth, "reads in flight")->capture_default_str();
  cmd->add_option("--io", o->engine_io, "auto | io_uring | pread-pool")->capture_default_str();
  cmd->add_flag("--buffered", o->buffered, "through the page cache instead of O_DIRECT");
  cmd->add_option("--threads", o->threads, "hashing threads")->capture_default_str();
  cmd->add_option("--engine", o->engine, "SHA-256 engine, or auto")->capture_default_str();
  cmd->add_option("--samples", o->samples, "timed samples")->capture_default_str();
  cmd->add_option("--probe-seconds", o->probe_seconds, "the disk's random reads at the same depth, first; 0: not measured")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "one JSON object");
  cmd->callback([o] {
    disk_label_bench_options b;
    const auto size = parse_size(o->sector_size);
    if (!size) throw usage_error("--sector-size '" + o->sector_size + "': not a size");
    b.sector_size = *size;
    b.proof = o->proof.empty() ? nullptr : &sdr::find_registered_proof(o->proof);
    b.sectors = o->sectors;
    b.layers = o->layers;
    b.window_nodes = o->window;
    b.window_offset = o->window_offset;
    b.samples = o->samples;
    b.probe_seconds = o->probe_seconds;
    b.disk.layer_dir = o->dir;
    b.disk.cache_nodes = o->cache_nodes;
    b.disk.lookahead = o->lookahead;
    b.disk.queue_depth = o->depth;
    b.disk.direct = !o->buffered;
    b.disk.hashing_threads = o->threads;
    b.disk.engine = o->engine;
    try {
      b.disk.io = storage::parse_io_engine(o->engine_io);
    } catch (const std::invalid_argument& e) {
      throw usage_error(std::string("--io: ") + e.what());
    }
    disk_label_bench_result r;
    try {
      r = bench_disk_label(b);
    } catch (const std::invalid_argument& e) {
      throw usage_error(e.what());
    } catch (const std::runtime_error& e) {
      throw usage_error(e.what());
    }
    const nlohmann::json j = to_json(r);
    if (o->json) {
      std::cout << j.dump() << "\n";
      return;
    }
    std::printf("%s x %u sectors, %s on %s (%s, %s): %.0f ns/node/layer = %.4g labels/s (%s, %s verified: %s)\n",
                format_size(r.options.sector_size).c_str(), r.options.sectors,
                r.options.window_nodes > 0 ? ("a " + std::to_string(r.options.window_nodes) + "-node window at node " +
                                              std::to_string(r.first_node)).c_str()
                                           : "whole",
                r.options.disk.layer_dir.c_str(), r.disk.device.empty() ? "disk unknown" : r.disk.device.c_str(),
                r.disk.filesystem.c_str(), r.ns_per_node_layer, r.labels_per_s, r.stats.engine.c_str(),
                r.verified_by.text().c_str(), r.verified ? "yes" : "NO");
    std::printf("reads:  %.2f a node (%.0f/s), read amplification %.2f, base parents from the cache %.1f%%, "
                "hashing waited for reads %.1f%% of the time\n",
                j["reads_per_node"].get<double>(), j["reads_per_s"].get<double>(), j["read_amplification"].get<double>(),
                100 * j["base_cache_hit_ratio"].get<double>(), 100 * j["read_wait_share"].get<double>());
    std::printf("cache:  %s rows (%s of RAM with the read buffers), lookahead %u, depth %u, %s, %s\n",
                std::to_string(r.stats.cache_nodes).c_str(), format_size(r.stats.ram_bytes).c_str(), r.stats.lookahead,
                r.stats.queue_depth, storage::io_engine_name(r.stats.io), r.stats.direct ? "O_DIRECT" : "buffered");
    if (j.contains("iops_bound_labels_per_s"))
      std::printf("disk:   %.0f random 4 KiB reads/s at depth %u: IOPS bound %.4g labels/s; measured / bound %.2f\n",
                  r.probe.reads_per_s, r.probe.queue_depth, j["iops_bound_labels_per_s"].get<double>(),
                  j["vs_iops_bound"].get<double>());
    if (!r.verified) set_exit_status(1);
  });
}

}  // namespace poreplab::cli
