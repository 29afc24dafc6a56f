// PC2 of a node window from files (bench/pc2_window_files.hpp, `bench pc2 --source files
// --window-nodes N`, the pc2 kind's `source` axis): the window's labels and replica written
// to files, read back through the sealed directory's reader (O_DIRECT where it can, else
// buffered) and hashed to the very trees of the same window from memory; a damaged file
// named with its node; a file already at a scratch name never written over; the scratch
// files gone after success and failure. And the kind reading a sector the runner sealed.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/pc2.hpp"
#include "bench/pc2_window_files.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/interrupt.hpp"
#include "poreplab/storage/disk_probe.hpp"
#include "support.hpp"
#include "util/share_dir.hpp"

using namespace poreplab;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t k32GiB = std::uint64_t{32} << 30;

// Options for a window of `nodes` nodes of a 32GiB sector, one sample, from memory.
pc2_bench_options window_options(const std::string& backend, std::uint32_t layers, std::uint64_t nodes) {
  pc2_bench_options o;
  o.backend = &find_backend(backend);
  o.sector_size = k32GiB;
  o.layers = layers;
  o.window_nodes = nodes;
  o.samples = 1;
  o.verify_samples = 16;
  return o;
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> n;
  for (const auto& e : fs::directory_iterator(dir)) n.push_back(e.path().filename().string());
  return n;
}

// The bytes of `p` with node `node` set to 32 bytes of 0xff (not a field element).
void spoil_node(const fs::path& p, std::uint64_t node) {
  std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(node * 32));
  const std::string ff(32, '\xff');
  f.write(ff.data(), 32);
}

// The window from files, each chunk size given, against the window from memory: the same
// comm_r (tree_c, tree_r_last and comm_r), verified, its disk figures recorded, no file left.
void window_from_files_equals_memory(const std::string& backend, std::uint32_t layers, std::uint64_t nodes,
                                     std::initializer_list<std::uint64_t> chunks) {
  pc2_bench_options o = window_options(backend, layers, nodes);
  const pc2_bench_result memory = run_pc2_bench(o);
  CHECK_FALSE(pc2_bench_json(memory).contains(pc2_key::disk_seq_read_gib_per_s));
  for (const std::uint64_t chunk : chunks) {
    INFO(backend << ", " << layers << " layers, " << nodes << " nodes, chunks of " << chunk);
    test::temp_dir tmp("pc2-window");
    o.source = pc2_source::files;
    o.layer_dir = tmp.path.string();
    o.chunk_nodes = chunk;
    std::vector<fs::path> seen;
    o.after_window_written = [&](const std::vector<fs::path>& files) {
      seen = files;
      for (const auto& f : files) CHECK(fs::file_size(f) == nodes * 32);
    };
    const pc2_bench_result files = run_pc2_bench(o);
    REQUIRE(seen.size() == layers + 1);
    CHECK(seen.front() == tmp.path / pc2_window_files::layer_name(1));
    CHECK(seen.back() == tmp.path / pc2_window_files::replica_name());
    CHECK(files.digest == memory.digest);
    CHECK(files.verified);
    CHECK_THAT(files.verified_against, Catch::Contains("equal to the same window's PC2 from memory"));
    CHECK(files.bytes_read == (layers + 1) * nodes * 32);
    CHECK(files.scratch_bytes == (layers + 1) * nodes * 32);
    CHECK(files.chunks == 2 * nodes / chunk);
    CHECK(files.disk_seq_read_gib_per_s > 0);
    CHECK(files.feed_alone_gib_per_s > 0);
    CHECK(files.feed_over_disk > 0);
    // 8 nodes are 256-byte reads (buffered); 512 nodes 16 KiB ones (O_DIRECT where the disk takes it).
    if (chunk == 8) CHECK_THAT(files.feed_how, Catch::StartsWith("buffered"));
    if (chunk == 512 && storage::direct_io_supported(tmp.path)) CHECK_THAT(files.feed_how, Catch::StartsWith("O_DIRECT"));
    CHECK(files.layer_dir == tmp.path.string());
    CHECK(names_in(tmp.path).empty());  // removed after
    const nlohmann::json j = pc2_bench_json(files);
    for (const char* key : {pc2_key::disk_seq_read_gib_per_s, pc2_key::feed_over_disk, pc2_key::feed_alone_gib_per_s,
                            pc2_key::page_cache_share_before_read, pc2_key::layer_dir, pc2_key::feed_how})
      CHECK(j.contains(key));
    CHECK(j.at(pc2_key::source) == "files");
  }
}

}  // namespace

TEST_CASE("pc2 of a window from files gives the window's trees from memory, bit for bit, on cpu", "[pc2]") {
  window_from_files_equals_memory("cpu", 11, 4096, {512, 8});
}

TEST_CASE("pc2 of a window from files gives the window's trees from memory, bit for bit, on cuda-emu", "[pc2][emu]") {
  window_from_files_equals_memory("cuda-emu", 2, 512, {64});
}

TEST_CASE("pc2 of a window from files: a file cut short or holding a value >= r is one line naming the file and node",
          "[pc2][reliability]") {
  test::temp_dir tmp("pc2-window");
  pc2_bench_options o = window_options("cpu", 2, 512);
  o.source = pc2_source::files;
  o.layer_dir = tmp.path.string();
  const fs::path layer2 = tmp.path / pc2_window_files::layer_name(2);
  const fs::path replica = tmp.path / pc2_window_files::replica_name();
  const auto fails_with = [&](const std::function<void()>& damage, const std::string& says) {
    o.after_window_written = [&](const std::vector<fs::path>&) { damage(); };
    try {
      run_pc2_bench(o);
      FAIL("no error for: " << says);
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()) == says);
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
    }
    CHECK(names_in(tmp.path).empty());
  };
  fails_with([&] { fs::resize_file(layer2, 1000); },
             layer2.string() + ": size 1000 bytes, not the 16384 of this window's 512 nodes: cut short at node 31 "
                               "(truncated or replaced?)");
  fails_with([&] { spoil_node(layer2, 37); },
             "pc2: " + layer2.string() + ": layer 2 label of node 37 is not a canonical field element (>= r)");
  fails_with([&] { spoil_node(replica, 500); },
             "pc2: " + replica.string() + ": replica node 500 is not a canonical field element (>= r)");
  o.chunk_nodes = 8;  // the buffered reads name it alike
  fails_with([&] { spoil_node(layer2, 300); },
             "pc2: " + layer2.string() + ": layer 2 label of node 300 is not a canonical field element (>= r)");
}

TEST_CASE("pc2 of a window from files never writes over a file already at one of its names", "[pc2][reliability]") {
  test::temp_dir tmp("pc2-window");
  pc2_bench_options o = window_options("cpu", 2, 512);
  o.source = pc2_source::files;
  o.layer_dir = tmp.path.string();
  const fs::path layer2 = tmp.path / pc2_window_files::layer_name(2);
  test::write_text(layer2, "keep");
  CHECK_THROWS_WITH(run_pc2_bench(o), layer2.string() + ": already exists; the window's scratch files are never "
                                                         "written over (remove it, or name another --layer-dir)");
  CHECK(test::read_text(layer2) == "keep");
  CHECK(names_in(tmp.path) == std::vector<std::string>{layer2.filename().string()});

  // The CLI: one line naming it, exit 1, the file as it was.
  const std::string args = "bench pc2 --source files --sector-size 32GiB --layers 2 --window-nodes 512 --samples 1 "
                           "--layer-dir " + test::shell_quote(tmp.path.string());
  auto run = test::run_poreplab(args, tmp);
  CHECK(run.status == 1);
  CHECK(run.err == "poreplab: error: " + layer2.string() + ": already exists; the window's scratch files are never "
                                                            "written over (remove it, or name another --layer-dir)\n");
  CHECK(test::read_text(layer2) == "keep");
  fs::remove(layer2);

  // A link planted at a name is refused too, its target untouched.
  const fs::path replica = tmp.path / pc2_window_files::replica_name();
  test::write_text(tmp / "target", "target");
  fs::create_symlink(tmp / "target", replica);
  CHECK_THROWS_WITH(run_pc2_bench(o), Catch::StartsWith(replica.string() + ": already exists"));
  CHECK(test::read_text(tmp / "target") == "target");
  fs::remove(replica);
  fs::remove(tmp / "target");

  o.layer_dir = (tmp / "absent").string();
  CHECK_THROWS_WITH(run_pc2_bench(o), Catch::StartsWith((tmp / "absent").string() + ": no such directory"));

  // Files that do not fit on the disk: one error before any label is made or file written.
  o.layer_dir = tmp.path.string();
  o.window_nodes = std::uint64_t{1} << 30;  // the whole 32GiB sector: 3 x 32 GiB of files
  if (available_disk_bytes(tmp.path) < 3 * (std::uint64_t{32} << 30)) {
    CHECK_THROWS_AS(run_pc2_bench(o), no_space);
    CHECK_THROWS_WITH(run_pc2_bench(o), Catch::StartsWith("no space left on " + tmp.path.string() + ": need "));
    CHECK(names_in(tmp.path).empty());
  }
}

TEST_CASE("pc2 of a window from files leaves no file after success and after a failure", "[pc2][reliability]") {
  test::temp_dir tmp("pc2-window");
  pc2_bench_options o = window_options("cpu", 2, 512);
  o.source = pc2_source::files;
  o.layer_dir = tmp.path.string();
  std::size_t written = 0;
  o.after_window_written = [&](const std::vector<fs::path>& files) {
    for (const auto& f : files) written += fs::exists(f) ? 1 : 0;
    throw std::runtime_error("injected failure");
  };
  CHECK_THROWS_WITH(run_pc2_bench(o), "injected failure");
  CHECK(written == 3);
  CHECK(names_in(tmp.path).empty());
  CHECK_FALSE(any_registered_paths());

  // The command: verified, its disk figures in the record, nothing left.
  const auto run = test::run_poreplab("bench pc2 --source files --sector-size 32GiB --layers 2 --window-nodes 512 "
                                      "--samples 1 --json --layer-dir " + test::shell_quote(tmp.path.string()),
                                      tmp);
  INFO(run.err);
  REQUIRE(run.status == 0);
  const auto j = nlohmann::json::parse(run.out);
  CHECK(j.at("verified") == true);
  CHECK(j.at("layer_dir") == tmp.path.string());
  CHECK(j.at("disk_seq_read_gib_per_s").get<double>() > 0);
  CHECK(names_in(tmp.path).empty());

  // Flags that do not go together: one line each, exit 1.
  const auto refused = [&](const std::string& args, const std::string& says) {
    const auto r = test::run_poreplab("bench pc2 " + args, tmp);
    INFO(args << "\n" << r.err);
    test::check_refused(r, says);
  };
  refused("--layer-dir /var/tmp --sector-size 2KiB", "--layer-dir: only for a window from files");
  refused("--source files --from " + test::shell_quote(tmp.path.string()) + " --window-nodes 64",
          "--window-nodes: --from DIR is a sealed sector, hashed whole");
  refused("--source files", "--from DIR, or a window to write with --window-nodes N");
}

TEST_CASE("the runner's pc2 kind reads from files a window, as from memory, and a sector it sealed", "[pc2][runner]") {
  test::temp_dir tmp("pc2-window");
  const fs::path layers = tmp / "layers";
  fs::create_directories(layers);
  test::scoped_env dir(kLayerDirEnv, layers.c_str());
  const auto res = test::run_config(tmp, "pc2.json", R"({
  "schema": "poreplab-experiments/1",
  "experiments": [
    {"name": "w", "kind": "pc2", "warmup": 0, "samples": 1,
     "axes": {"backend": ["cpu"], "sector_size": ["32GiB"], "layers": [2], "window_nodes": [512],
              "source": ["files", "memory"]}},
    {"name": "s", "kind": "pc2", "warmup": 0, "samples": 1,
     "axes": {"backend": ["cpu"], "sector_size": ["2KiB"], "layers": [2], "source": ["files"]}}
  ]
})").results;
  REQUIRE(res.at("points").size() == 3);
  std::map<std::string, std::map<std::string, nlohmann::json>> by;  // experiment -> source -> point
  for (const auto& p : res.at("points")) {
    INFO(p.dump());
    REQUIRE(p.at("status") == "ok");
    CHECK(p.at("verified") == true);
    by[p.at("experiment")][p.at("axes").at("source")] = p;
  }
  // The window from files hashes the memory window's labels; the sector, its seal's.
  CHECK(by["w"]["files"].at("digest") == by["w"]["memory"].at("digest"));
  CHECK_THAT(by["w"]["files"].at("verified_against").get<std::string>(), Catch::Contains("from memory"));
  CHECK_THAT(by["s"]["files"].at("context").at("from").get<std::string>(), Catch::Contains("the runner sealed"));
  CHECK(by["s"]["files"].at("context").at("bytes_read") == 3 * 2048);
  for (const char* e : {"w", "s"}) CHECK(by[e]["files"].at("context").at("disk_seq_read_gib_per_s").get<double>() > 0);
  CHECK(names_in(layers).empty());
}
