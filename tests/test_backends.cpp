// The backend registry: the table of backends and knobs, typed settings, the knob axes of
// the runner (optional ones stay out of records unless named), and the timing hook.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>

#include "backends/backends.hpp"
#include "bench/label.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "runner/config.hpp"
#include "runner/kinds.hpp"
#include "runner/param_renames.hpp"
#include "support.hpp"

using nlohmann::json;
using namespace poreplab;

TEST_CASE("backend registry: names, knobs and who reads them", "[backends]") {
  CHECK(backend_names() == std::vector<std::string>{"reference", "cpu", "cuda-emu", "cuda"});
  for (const auto& b : backends()) {
    CHECK_FALSE(b.description.empty());
    CHECK(b.make);
  }
  CHECK_THROWS_WITH(find_backend("tpu"), Catch::Contains("unknown backend 'tpu'") && Catch::Contains("cuda-emu"));
  std::set<std::string> names;
  for (const auto& k : backend_knobs()) {
    CHECK(names.insert(k.name).second);  // one entry a knob
    CHECK_FALSE(k.backends.empty());
    for (const auto& b : k.backends) CHECK_NOTHROW(find_backend(b));
  }
  auto read_by = [](const char* backend) {
    std::set<std::string> out;
    for (const auto* k : knobs_of(backend)) out.insert(k->name);
    return out;
  };
  CHECK(read_by("cpu") == std::set<std::string>{"engine", "threads", "prefetch_distance", "prefetch_level",
                                               "assembly", "encoding", "huge_pages", "pad_precompute", "schedule_reuse", "header_ahead",
                                               "whole_node", "producer", "ring_depth", "hashers_per_coordinator", "placement"});
  CHECK(read_by("cuda").count("device") == 1);
  CHECK(read_by("cuda-emu").count("device") == 0);
  CHECK(read_by("cuda-emu").count("launch_nodes") == 1);
}

TEST_CASE("backends by device class: one per class, each name classified, unknown names not", "[backends]") {
  for (const auto c : {device_class::oracle, device_class::host_cpu, device_class::gpu_emulated, device_class::gpu}) {
    CHECK(device_class_of(backend_of(c)) == c);
    CHECK(kDeviceClasses.parse(kDeviceClasses.name(c)) == c);
  }
  for (const auto& b : backends()) CHECK(backend_is(b.name, b.device));
  CHECK_FALSE(device_class_of("tpu").has_value());  // a record of another build: read, not classified
  CHECK_FALSE(backend_is("", device_class::host_cpu));
  CHECK(backends_of({device_class::host_cpu, device_class::gpu}) == std::vector<std::string>{"cpu", "cuda"});
}

// Product code tells backends apart by their class: a comparison with a backend's name
// outside experiments/src/backends/ is a second spelling of that name. Tests and docs may
// name backends.
TEST_CASE("backend names are compared nowhere outside the backends table", "[backends]") {
  namespace fs = std::filesystem;
  const fs::path root = POREPLAB_SOURCE_DIR;
  std::string names;
  for (const auto& n : backend_names()) names += (names.empty() ? "" : "|") + n;  // no regex metacharacters in them
  REQUIRE(std::regex_match(names, std::regex("[a-z0-9|-]+")));
  const std::regex compared("(==|!=)\\s*\"(" + names + ")\"|\"(" + names + ")\"\\s*(==|!=)|\\bin \\([^)]*\"(" + names + ")\"");
  std::vector<std::string> found;
  std::size_t files = 0;
  for (const char* dir : {"common", "cpu", "cuda", "experiments/src", "experiments/plots"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      const fs::path& p = e.path();
      const std::string ext = p.extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".cu" && ext != ".cuh" && ext != ".py")) continue;
      if (p.parent_path() == root / "experiments/src/backends") continue;
      ++files;
      std::ifstream in(p);
      std::string line;
      for (int n = 1; std::getline(in, line); ++n)
        if (std::regex_search(line, compared)) found.push_back(fs::relative(p, root).string() + ":" + std::to_string(n) + ": " + line);
    }
  }
  CHECK(files > 100);
  INFO([&] {
    std::string t;
    for (const auto& f : found) t += f + "\n";
    return t;
  }());
  CHECK(found.empty());
}

TEST_CASE("backend settings are typed and checked against their knob", "[backends]") {
  backend_settings s;
  CHECK(s.text("engine") == "auto");  // fallbacks
  CHECK(s.count("threads_per_block") == 32);
  CHECK_FALSE(s.is_set("threads_per_block"));
  s.set("threads_per_block", 256).set("kernel", "vec16");
  CHECK(s.count("threads_per_block") == 256);
  CHECK(s.text("kernel") == "vec16");
  CHECK(s.values() == json{{"threads_per_block", 256}, {"kernel", "vec16"}});
  CHECK_THROWS_WITH(s.set("threads_per_block", 0), "expected an integer from 1 to 1024, got 0");
  CHECK_THROWS_WITH(s.set("threads_per_block", -3), Catch::StartsWith("expected an integer from 1 to 1024"));
  CHECK_THROWS_WITH(s.set("threads_per_block", "64"), Catch::StartsWith("expected an integer"));
  CHECK_THROWS_WITH(s.set("kernel", "fast"), Catch::Contains("unknown kernel \"fast\" (known: auto, standard, vec16, rolled, staged and 1 more)"));
  CHECK_THROWS_WITH(s.set("ring_depth", 100), "expected an integer from 0 to 4096, 0 or a power of two, got 100");
  CHECK_THROWS_WITH(s.set("ring_depth", 8192), "expected an integer from 0 to 4096, 0 or a power of two, got 8192");
  CHECK(s.set("ring_depth", 0).set("ring_depth", 64).count("ring_depth") == 64);
  CHECK_THROWS_WITH(s.set("warp_size", 32), Catch::Contains("unknown backend option 'warp_size'"));
  CHECK_THROWS_AS(s.count("kernel"), std::logic_error);  // a text knob read as a count
  CHECK(s.count("threads_per_block") == 256);             // a refused value changes nothing
}

TEST_CASE("one parameter spec: a knob is its axis and its flag, checked by one rule", "[backends][runner]") {
  CHECK(flag_of("threads_per_block") == "--threads-per-block");
  const param_spec depth = *find_knob("ring_depth");
  CHECK(depth.power_of == 2);
  CHECK(param_value(depth, 0) == 0);
  CHECK(param_value(depth, 256.0) == 256);
  CHECK_THROWS_WITH(param_value(depth, 24), "expected an integer from 0 to 4096, 0 or a power of two, got 24");
  CHECK_THROWS_WITH(param_value(depth, "8"), "expected an integer from 0 to 4096, 0 or a power of two, got string \"8\"");
  const param_spec size = size_param("sector_size", 2048, 2048, true, "");
  CHECK(param_value(size, "8MiB") == 8u << 20);
  CHECK_THROWS_WITH(param_value(size, "3KiB"), "\"3KiB\" is not a power-of-two size");
  CHECK_THROWS_WITH(param_value(size, 1024), "1024 is below the smallest sector_size 2KiB");
  // The runner's axis of every knob carries the knob's rule: the config refuses what the
  // flag and the settings refuse, in the same words.
  for (const auto& k : backend_knobs()) {
    const auto axes = runner::labeling_axes(true, true);
    const auto ax = std::find_if(axes.begin(), axes.end(), [&](const param_spec& a) { return a.name == k.name; });
    REQUIRE(ax != axes.end());
    CHECK(ax->type == k.type);
    CHECK(ax->min == k.min);
    CHECK(ax->max == k.max);
    CHECK(ax->power_of == k.power_of);
  }
  const std::string e = [] {
    try {
      runner::parse_config(R"({"schema": "poreplab-experiments/1", "experiments": [{"name": "a", "kind": "label",
                              "axes": {"backend": ["cpu"], "ring_depth": [24]}}]})",
                           "t.json");
    } catch (const std::exception& x) {
      return std::string(x.what());
    }
    return std::string();
  }();
  CHECK(e == "t.json: /experiments/0/axes/ring_depth/0: expected an integer from 0 to 4096, 0 or a power of two, got 24");
  // Renamed parameters: the list maps each old name to a current one.
  CHECK(runner::renamed_param("window") == "window_nodes");
  CHECK(runner::renamed_param("window_nodes") == "window_nodes");
}

TEST_CASE("a renamed flag still reads into its parameter and says so, and both at once are refused", "[backends][cli]") {
  test::temp_dir dir("renamed-flag");
  auto r = test::run_poreplab("bench pc2 --backend cpu --sector-size 32GiB --layers 2 --window 64 --samples 1", dir);
  CHECK(r.status == 0);
  CHECK(r.err.find("poreplab: note: --window is now --window-nodes (read as it)") != std::string::npos);
  CHECK(r.out.find("64") != std::string::npos);
  r = test::run_poreplab("bench pc2 --backend cpu --sector-size 32GiB --window 64 --window-nodes 64", dir);
  CHECK(r.status == 1);
  CHECK(r.err == "poreplab: error: --window is --window-nodes, which is given too\n");
  r = test::run_poreplab("bench pc2 --backend cpu --sector-size 32GiB --window-nodes 64 --window 64", dir);
  CHECK(r.err == "poreplab: error: --window is --window-nodes, which is given too\n");
  r = test::run_poreplab("bench pc2 --help", dir);
  CHECK(r.out.find("--window-nodes") != std::string::npos);
  CHECK(r.out.find("--window ") == std::string::npos);
}

TEST_CASE("the cpu knobs reach the labeler, the gpu knobs reach cuda-emu", "[backends]") {
  // Every setting labels the same; a refused one is refused by the backend it reaches.
  backend_settings cpu;
  cpu.set("threads", 1).set("placement", "none").set("prefetch_distance", 0).set("engine", "portable");
  const auto* e = find_backend("cpu").floor_engine(sdr::kFilecoinScheme, 1, cpu);
  REQUIRE(e != nullptr);
  CHECK(std::string(e->name) == "portable");
  CHECK(find_backend("cuda-emu").floor_engine == nullptr);

  label_bench_options o;
  o.sector_size = 4096;
  o.warmup = 0;
  o.samples = 1;
  for (const std::string backend : {"reference", "cpu", "cuda-emu"}) {
    o.backend = &find_backend(backend);
    o.knobs = backend_settings{};
    if (backend == "cpu") o.knobs = cpu;
    if (backend == "cuda-emu") o.knobs.set("launch_nodes", 16).set("chunk_nodes", 32).set("threads", 1);
    if (backend == "reference") o.knobs.set("threads", 1);
    const auto r = bench_label(o);
    CHECK(r.verified);
    CHECK(r.samples_ns_per_node_layer.size() == 1);
    CHECK(r.samples_ns_per_node_layer[0] > 0);
    CHECK(r.kernel_samples_ns_per_node_layer.empty());  // host backends: wall time only
  }
}

TEST_CASE("the default timing hook times label() on the host clock", "[backends]") {
  const auto id = sdr::benchmark_porep_id(2048);
  const auto g = graph::make_graph_params(id.data(), graph::api_version::v1_1_0, 64);
  const auto table = graph::parent_table::generate(g);
  std::vector<std::uint8_t> ids(32, 1);
  ids[31] = 0;
  const sdr::label_job job{64, table.data(), 2, 1, ids.data()};
  sdr::rolling_layer_store store(64 * 32);
  const auto t = make_backend("reference")->timed_label(job, store);
  CHECK(t.end_to_end_s > 0);
  CHECK(t.kernel_s < 0);
  CHECK(t.device.empty());
}

TEST_CASE("knob axes: every knob is an axis, the new ones stay out of records unless named", "[backends]") {
  using namespace poreplab::runner;
  const kind_spec* label = find_kind("label");
  REQUIRE(label != nullptr);
  for (const auto& k : backend_knobs())
    CHECK(std::any_of(label->axes.begin(), label->axes.end(), [&](const param_spec& a) { return a.name == k.name; }));

  const std::string base = R"({"schema": "poreplab-experiments/1", "experiments": [{"name": "a", "kind": "label",
    "axes": {"backend": ["cpu", "cuda-emu"])";
  auto points = [&](const std::string& extra) { return expand_points(parse_config(base + extra + "}}]}", "t.json")); };

  const auto plain = points("");
  REQUIRE(plain.size() == 2);
  for (const auto& p : plain) {
    CHECK(p.axes.contains("threads_per_block"));  // recorded as before
    CHECK_FALSE(p.axes.contains("prefetch_distance"));
    CHECK_FALSE(p.axes.contains("launch_nodes"));
  }
  // Named: present, null where the backend does not read it, so no duplicate points.
  const auto named = points(R"(, "prefetch_distance": [0, 8], "launch_nodes": [16])");
  REQUIRE(named.size() == 3);
  CHECK(named[0].axes["prefetch_distance"] == 0);
  CHECK(named[0].axes["launch_nodes"].is_null());
  CHECK(named[2].axes["backend"] == "cuda-emu");
  CHECK(named[2].axes["prefetch_distance"].is_null());
  CHECK(named[2].axes["launch_nodes"] == 16);
  const backend_settings s = knobs_of_point(named[2].axes);
  CHECK(s.count("launch_nodes") == 16);
  CHECK_FALSE(s.is_set("prefetch_distance"));

  CHECK_THROWS_WITH(points(R"(, "prefetch_distance": [5000])"), Catch::Contains("/experiments/0/axes/prefetch_distance/0"));
}

TEST_CASE("every knob is a flag of bench label, seal, unseal and vector verify", "[backends][cli]") {
  const poreplab::test::temp_dir dir("backend-flags");
  for (const char* cmd : {"bench label", "seal", "unseal", "vector verify"}) {
    const auto help = poreplab::test::run_poreplab(std::string(cmd) + " --help", dir);
    CHECK(help.status == 0);
    for (const auto& k : backend_knobs()) {
      std::string flag = "--" + k.name;
      std::replace(flag.begin(), flag.end(), '_', '-');
      INFO(cmd << " " << flag);
      CHECK(help.out.find(flag) != std::string::npos);
    }
  }
  // PC2's commands list the knobs that act on PC2's hasher, not the labeling switches.
  for (const char* cmd : {"bench pc2", "pc2"}) {
    const auto help = poreplab::test::run_poreplab(std::string(cmd) + " --help", dir);
    CHECK(help.status == 0);
    for (const auto& k : backend_knobs()) {
      std::string flag = "--" + k.name + " ";
      std::replace(flag.begin(), flag.end(), '_', '-');
      INFO(cmd << " " << flag);
      CHECK((help.out.find(flag) != std::string::npos) == ((k.works & work_pc2) != 0));
    }
  }
  auto bad = poreplab::test::run_poreplab("bench label --backend cuda-emu --launch-nodes -1", dir);
  CHECK(bad.status == 1);
  CHECK(bad.err == "poreplab: error: --launch-nodes: '-1' is not an integer from 0 to 1099511627776\n");
  bad = poreplab::test::run_poreplab("bench label --backend cpu --prefetch-distance 2000", dir);
  CHECK(bad.status == 1);
  CHECK(bad.err == "poreplab: error: --prefetch-distance: expected an integer from 0 to 1024, got 2000\n");
  bad = poreplab::test::run_poreplab("bench label --backend cpu --prefetch-level l3", dir);
  CHECK(bad.status == 1);
  CHECK(bad.err.find("--prefetch-level") != std::string::npos);
  CHECK(bad.err.find("l3") != std::string::npos);
  bad = poreplab::test::run_poreplab("bench label --backend cpu --producer smt", dir);
  CHECK(bad.status == 1);
  CHECK(bad.err == "poreplab: error: --producer: unknown producer \"smt\" (known: off, auto, core, sibling)\n");
  bad = poreplab::test::run_poreplab("bench label --backend cpu --ring-depth 100", dir);
  CHECK(bad.status == 1);
  CHECK(bad.err == "poreplab: error: --ring-depth: expected an integer from 0 to 4096, 0 or a power of two, got 100\n");
  bad = poreplab::test::run_poreplab("bench label --backend cpu --ring-depth 8192", dir);
  CHECK(bad.status == 1);
  CHECK(bad.err.find("--ring-depth") != std::string::npos);
}
