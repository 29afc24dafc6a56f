// `poreplab parent-cache generate | verify | list | bench`: parent-table cache files in
// rust-fil-proofs' directory ($FIL_PROOFS_PARENT_CACHE, default /var/tmp/filecoin-parents).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <vector>

#include "cli/cli.hpp"
#include "runner/config.hpp"
#include "poreplab/graph/known_parent_caches.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "util/text.hpp"

namespace poreplab::cli {

namespace {

namespace fs = std::filesystem;

struct graph_options {
  std::string proof, porep_id, api_version, sector_size, dir;
  bool force = false, regenerate = false;
  std::uint64_t samples = graph::kDefaultSampledRows;
  std::vector<std::string> methods;
};

void add_graph_options(CLI::App* cmd, graph_options& o, bool with_dir = true) {
  cmd->add_option("--proof", o.proof, "registered proof, e.g. StackedDrg32GiBV1_1");
  cmd->add_option("--porep-id", o.porep_id, "porep_id (32 bytes hex), instead of --proof");
  cmd->add_option("--api-version", o.api_version, "with --porep-id: 1.0.0 | 1.1.0 | 1.2.0");
  cmd->add_option("--sector-size", o.sector_size, "with --porep-id: e.g. 2KiB, 512MiB, 32GiB, or bytes");
  if (with_dir)
    cmd->add_option("--dir", o.dir, std::string("cache directory (default $FIL_PROOFS_PARENT_CACHE, else ") +
                                         graph::kDefaultParentCacheDir + ")");
}

fs::path cache_dir(const graph_options& o) { return o.dir.empty() ? graph::default_parent_cache_dir() : fs::path(o.dir); }

// The graph named by the options, or nullopt when none is named.
std::optional<graph::graph_params> graph_of(const graph_options& o) {
  if (!o.proof.empty()) {
    if (!o.porep_id.empty() || !o.api_version.empty() || !o.sector_size.empty())
      throw usage_error("--proof names the graph; give --porep-id, --api-version and --sector-size only without it");
    return sdr::graph_params_of(sdr::find_registered_proof(o.proof));
  }
  if (o.porep_id.empty()) {
    if (!o.api_version.empty() || !o.sector_size.empty())
      throw usage_error("--api-version and --sector-size go with --porep-id");
    return std::nullopt;
  }
  if (o.api_version.empty() || o.sector_size.empty())
    throw usage_error("--porep-id needs --api-version and --sector-size");
  const auto id = from_hex(o.porep_id, 32, "--porep-id");
  const auto bytes = parse_size(o.sector_size);
  if (!bytes || *bytes % 32 != 0)
    throw usage_error("--sector-size: '" + o.sector_size + "' is not a sector size (e.g. 2KiB, 32GiB or bytes)");
  const auto api = sdr::parse_api_version(o.api_version);
  try {
    return graph::make_graph_params(id.data(), api, *bytes / 32);
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--sector-size: ") + e.what());
  }
}

graph::graph_params require_graph(const graph_options& o) {
  auto g = graph_of(o);
  if (!g) throw usage_error("give --proof NAME, or --porep-id HEX with --api-version and --sector-size");
  return *g;
}

// The registered proof (at its own sector size) whose cache file has this name.
std::optional<std::string> proof_of_file(const std::string& file_name) {
  for (const auto& p : sdr::registered_proofs())
    if (graph::parent_cache_file_name(sdr::graph_params_of(p)) == file_name) return std::string(p.name);
  return std::nullopt;
}

std::vector<fs::path> cache_files(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw usage_error("parent cache directory " + dir.string() + " does not exist");
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const auto name = e.path().filename().string();
    if (e.is_regular_file() && name.starts_with("v28-sdr-parent-") && name.ends_with(".cache")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string hex_of(const graph::digest32& d) { return to_hex(d.data(), d.size()); }

// User + system CPU time of the process, all threads.
double process_cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  const auto tv = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return tv(u.ru_utime) + tv(u.ru_stime);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// What verify_file checked: `how` in words; `partial` when only the sidecar could be
// checked (a graph neither named nor registered cannot be recomputed).
struct file_check {
  std::string how;
  bool partial = false;
};

// Checks one file, throws std::runtime_error naming the problem. A digest proves only
// that the file is the one its sidecar was written for (both can be rewritten together):
// with the graph known, `samples` rows are also recomputed from its definition.
file_check verify_file(const fs::path& file, const std::optional<graph::graph_params>& named, bool regenerate,
                        std::uint64_t samples) {
  std::optional<graph::graph_params> g = named;
  if (!g) {
    if (const auto proof = proof_of_file(file.filename().string()))
      g = sdr::graph_params_of(sdr::find_registered_proof(*proof));
  }
  const bool has_sidecar = fs::exists(graph::parent_cache_sidecar_path(file));
  std::string how;
  if (has_sidecar && g) {
    // The sidecar, then the published digest of a production graph; rows are sampled here.
    const auto t = graph::load_parent_cache(file.parent_path(), *g, graph::cache_check::digest, 0);
    how = "sha256 " + hex_of(graph::read_parent_cache_sidecar(file)) + " matches the sidecar";
    if (graph::find_known_parent_cache(file.filename().string()) != nullptr) how += " and the published digest";
    const std::uint64_t rows = graph::check_sampled_rows(*g, t, file, samples);
    how += "; " + std::to_string(rows) + (rows == g->nodes ? " rows (all)" : " sampled rows") +
           " equal the graph's";
  } else if (has_sidecar) {
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    if (ec) throw std::runtime_error("parent cache " + file.string() + ": " + ec.message());
    const std::uint64_t nodes = size / (graph::kParentsPerNode * 4);
    const auto t = graph::parent_table::map_file(file, nodes == 0 ? 1 : nodes);
    const auto want = graph::read_parent_cache_sidecar(file);
    const auto got = graph::parent_table_digest(t.words());
    if (got != want)
      throw std::runtime_error("parent cache " + file.string() + ": SHA-256 " + hex_of(got) + " does not match " +
                               hex_of(want) + " in its .sha256 sidecar; the file is corrupt");
    how = "sha256 " + hex_of(got) +
          " matches the sidecar; rows not recomputed (not a registered proof's graph: name it with --proof or "
          "--porep-id)";
    if (!regenerate) return {how, true};
  }
  if (regenerate || !has_sidecar) {
    if (!g)
      throw std::runtime_error("parent cache " + file.string() +
                               ": no .sha256 sidecar and not a registered proof's graph; name the graph "
                               "(--proof or --porep-id) to verify it by regeneration");
    graph::load_parent_cache(file.parent_path(), *g, graph::cache_check::regenerate);
    how += std::string(how.empty() ? "" : "; ") + "equals the regenerated table";
  }
  return {how, false};
}

void run_generate(const graph_options& o) {
  const auto g = require_graph(o);
  const fs::path dir = cache_dir(o);
  const fs::path file = graph::parent_cache_path(dir, g);
  if (fs::exists(file) && !o.force) {
    const std::string how = verify_file(file, g, false, o.samples).how;
    std::cout << file.string() << ": present, " << how << " (--force regenerates it)\n";
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto t = graph::parent_table::generate(g);
  const double gen_s = seconds_since(t0);
  graph::write_parent_cache(dir, g, t.words());
  std::printf("%s: %llu nodes, %zu bytes, generated in %.3f s, written in %.3f s\n", file.string().c_str(),
              static_cast<unsigned long long>(g.nodes), t.size_bytes(), gen_s,
              seconds_since(t0) - gen_s);
}

void run_verify(const graph_options& o) {
  const auto g = graph_of(o);
  const fs::path dir = cache_dir(o);
  std::vector<fs::path> files;
  if (g) {
    files.push_back(graph::parent_cache_path(dir, *g));
    if (!fs::exists(files.back())) throw usage_error("parent cache " + files.back().string() + " does not exist");
  } else {
    files = cache_files(dir);
  }
  std::size_t bad = 0;
  std::string first_error;
  for (const auto& f : files) {
    try {
      // Checked before anything is printed: a failing file's line says FAILED only.
      const file_check c = verify_file(f, g, o.regenerate, o.samples);
      std::cout << f.filename().string() << (c.partial ? ": sidecar only, " : ": ok, ") << c.how << "\n";
    } catch (const std::runtime_error& e) {
      std::cout << f.filename().string() << ": FAILED\n";
      std::cout.flush();
      if (bad++ == 0) first_error = e.what();
    }
  }
  if (bad != 0 && g) throw std::runtime_error(first_error);
  if (bad != 0)
    throw std::runtime_error(std::to_string(bad) + " of " + std::to_string(files.size()) +
                             " parent cache files failed verification; first: " + first_error);
  if (files.empty()) std::cout << "no parent cache files in " << dir.string() << "\n";
}

void run_list(const graph_options& o) {
  const fs::path dir = cache_dir(o);
  const auto files = cache_files(dir);
  for (const auto& f : files) {
    std::error_code ec;
    const auto size = fs::file_size(f, ec);
    const auto proof = proof_of_file(f.filename().string());
    const bool sidecar = fs::exists(graph::parent_cache_sidecar_path(f));
    std::cout << f.filename().string() << "  " << size << " bytes  " << size / (graph::kParentsPerNode * 4)
              << " nodes  " << (sidecar ? "sidecar" : "no-sidecar") << "  " << (proof ? *proof : "-") << "\n";
  }
  if (files.empty()) std::cout << "no parent cache files in " << dir.string() << "\n";
}

// Table generation time of each method, in one process (writes nothing).
void run_bench(const graph_options& o) {
  const auto g = require_graph(o);
  std::vector<std::string> methods = o.methods;
  if (methods.empty() || (methods.size() == 1 && methods[0] == "all")) methods = {"feistel-table", "per-node"};
  std::vector<graph::parent_table_method> ms;
  for (const auto& m : methods) {
    if (m == "feistel-table")
      ms.push_back(graph::parent_table_method::feistel_table);
    else if (m == "per-node")
      ms.push_back(graph::parent_table_method::per_node);
    else
      throw usage_error("--method: '" + m + "' is not one of all, feistel-table, per-node");
  }
  std::optional<graph::digest32> first_digest;
  double first_s = 0;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const double cpu0 = process_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    const auto t = graph::parent_table::generate(g, ms[i]);
    const double s = seconds_since(t0);
    const double cpu = process_cpu_seconds() - cpu0;
    const auto d = graph::parent_table_digest(t.words());
    if (!first_digest) {
      first_digest = d;
      first_s = s;
    }
    std::printf("%-14s %llu nodes  %9.3f s  %8.1f ns/node  x%.3f of the first  cpu %9.3f s  sha256 %s%s\n",
                methods[i].c_str(), static_cast<unsigned long long>(g.nodes), s, s * 1e9 / static_cast<double>(g.nodes),
                s / first_s, cpu, hex_of(d).c_str(), d == *first_digest ? "" : "  MISMATCH");
    std::fflush(stdout);
    if (d != *first_digest) set_exit_status(1);
  }
}

}  // namespace

void add_parent_cache_command(CLI::App& app) {
  auto* pc = app.add_subcommand("parent-cache", "Parent-table cache files, as rust-fil-proofs keeps them");
  pc->require_subcommand(1);
  auto o = std::make_shared<graph_options>();

  auto* gen = pc->add_subcommand("generate", "Generate the graph's cache file and its .sha256 sidecar");
  add_graph_options(gen, *o);
  gen->add_flag("--force", o->force, "regenerate and replace an existing file");
  gen->callback([o] { run_generate(*o); });

  auto* ver = pc->add_subcommand(
      "verify", "Check the graph's cache file (or, without a graph, every file in the directory) against its "
                ".sha256 sidecar, or by regeneration when it has none");
  add_graph_options(ver, *o);
  ver->add_flag("--regenerate", o->regenerate, "also compare with the regenerated table");
  ver->add_option("--samples", o->samples,
                  "rows recomputed from the graph definition (seeded; all rows of a smaller graph)")
      ->check(CLI::PositiveNumber);
  ver->callback([o] { run_verify(*o); });

  auto* list = pc->add_subcommand("list", "List the cache files: size, nodes, sidecar, registered proof");
  list->add_option("--dir", o->dir, std::string("cache directory (default $FIL_PROOFS_PARENT_CACHE, else ") +
                                        graph::kDefaultParentCacheDir + ")");
  list->callback([o] { run_list(*o); });

  auto* bench = pc->add_subcommand("bench", "Time table generation by each method in one process (writes nothing)");
  add_graph_options(bench, *o, false);
  bench->add_option("--method", o->methods, "all (default), feistel-table, per-node");
  bench->callback([o] { run_bench(*o); });
}

}  // namespace poreplab::cli
