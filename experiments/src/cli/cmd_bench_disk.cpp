// `poreplab bench disk`: what a directory's disk is and how many random 4 KiB reads a
// second it serves at a queue depth (the bound of labeling with layers on disk).
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/bench_cli.hpp"
#include "cli/cli.hpp"
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

nlohmann::json disk_json(const storage::disk_description& d) {
  return {{"device", d.device}, {"model", d.model}, {"size_bytes", d.size_bytes}, {"rotational", d.rotational},
          {"filesystem", d.filesystem}};
}

nlohmann::json read_probe_json(const storage::read_probe_result& r) {
  return {{"reads_per_s", r.reads_per_s},   {"mib_per_s", r.mib_per_s},     {"mean_latency_us", r.mean_latency_us},
          {"reads", r.reads},               {"seconds", r.seconds},         {"queue_depth", r.queue_depth},
          {"block_bytes", r.block_bytes},   {"file_bytes", r.file_bytes},
          {"engine", storage::io_engine_name(r.engine)}, {"direct", r.direct}};
}

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
      std::cout << nlohmann::json{{"dir", o->dir}, {"disk", disk_json(d)}, {"random_reads", read_probe_json(r)}}.dump()
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

}  // namespace poreplab::cli
