// `poreplab plan` (report/plan.hpp) and `poreplab bench reads`: the planner on the shipped
// machine files and on hand-made result directories, their command lines and bad input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "report/plan.hpp"
#include "support.hpp"

using namespace poreplab;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

fs::path machines_dir() { return fs::path(POREPLAB_SOURCE_DIR) / "experiments" / "machines"; }

const verdict::plan_item* item(const verdict::machine_plan& m, const std::string& name) {
  for (const auto& it : m.items)
    if (it.item == name) return &it;
  return nullptr;
}

json header(const std::string& cpu, int cores, double ram) {
  return {{"type", "header"},
          {"run", 0},
          {"environment", {{"cpu", {{"model", cpu}, {"logical_cores", cores}}}, {"memory", {{"total_bytes", ram}}}}}};
}

// One core labeling `sectors` sectors of a 32GiB window at `labels` labels/s.
json window(const std::string& cpu, std::uint32_t sectors, double labels, double hz) {
  return {{"type", "point"},
          {"run", 0},
          {"experiment", "w"},
          {"kind", "label"},
          {"axes", {{"backend", "cpu"}, {"sector_size", 32ull << 30}, {"sectors", sectors}, {"layers", 2},
                    {"threads", 1}, {"window_nodes", 65536}}},
          {"status", "ok"},
          {"stats", {{"median", sectors * 1e9 / labels}, {"n", 3}}},
          {"rates", {{"labels_per_s", labels}}},
          {"context", {{"scheme", "sdr/sha256"}, {"device", cpu}, {"producer", "off"}, {"core_hz", hz}}}};
}

json disk(double iops, double free_bytes) {
  return {{"type", "point"},
          {"run", 0},
          {"experiment", "disk"},
          {"kind", "disk"},
          {"axes", {{"disk_dir", "cwd"}, {"queue_depth", 32}}},
          {"status", "ok"},
          {"stats", {{"median", iops}, {"n", 2}}},
          {"context", {{"free_bytes", free_bytes}, {"disk_device", "vda"}, {"engine", "io_uring"}, {"queue_depth", 32},
                       {"dir", "/work"}}}};
}

void write_records(const fs::path& dir, std::initializer_list<json> records) {
  std::string text;
  for (const auto& r : records) text += r.dump() + "\n";
  test::write_text(dir / "records.jsonl", text);
}

}  // namespace

TEST_CASE("plan: supraseal's rig and the shipped machines", "[plan]") {
  const auto rig = verdict::load_machine(machines_dir() / "supraseal-5975wx-12nvme.json");
  const auto r = verdict::make_plan("StackedDrg32GiBV1_1", {}, {rig});
  REQUIRE(r.machines.size() == 1);
  const auto& m = r.machines[0];
  CHECK(m.pc1.batch == 64);
  CHECK(m.pc1.hashing_cores == 16);
  REQUIRE(item(m, "published PC1 record"));
  CHECK(item(m, "published PC1 record")->value.from.status == figure_status::quoted);
  CHECK(item(m, "hashing rate per core")->value.from.status == figure_status::quoted);
  CHECK(item(m, "layer disk")->value.from.status == figure_status::modeled);
  CHECK(item(m, "random reads per node")->value.from.detail.find("counted on the graph") == 0);
  // No results: no PC2 figure for its CPU; sectors per hour are PC1's alone, said so.
  REQUIRE(item(m, "sectors per hour"));
  CHECK(item(m, "sectors per hour")->text.find("PC1 alone") != std::string::npos);
  const std::string md = verdict::plan_markdown(r);
  CHECK(md.find("# Sealing plan: 32GiB (StackedDrg32GiBV1_1, 11 layers)") == 0);
  CHECK(md.find("| binding constraint | hash-bound, 64 sectors") != std::string::npos);
  const json j = verdict::plan_json(r);
  CHECK(j["schema"] == "poreplab-plan/1");
  CHECK(j["machines"][0]["batch"] == 64);

  // Every shipped machine is sized at 32GiB and 64GiB from a run's window record.
  test::temp_dir s("plan");
  write_records(s.path, {header("Test CPU", 2, 24.0 * (1ull << 30)), window("Test CPU", 4, 1.2e6, 3e9),
                         window("Test CPU", 1, 6e5, 3e9)});
  std::vector<verdict::machine> ms;
  for (const auto& e : fs::directory_iterator(machines_dir())) ms.push_back(verdict::load_machine(e.path()));
  for (const char* proof : {"StackedDrg32GiBV1_1", "StackedDrg64GiBV1_1"}) {
    const auto all = verdict::make_plan(proof, {s.path}, ms);
    REQUIRE(all.machines.size() == ms.size());
    for (const auto& p : all.machines) {
      INFO(p.machine << " " << proof);
      CHECK(p.pc1.feasible);
      CHECK(p.sectors_per_hour.value.value_or(0) > 0);
      CHECK_FALSE(p.binding.empty());
    }
  }
}

TEST_CASE("plan: the machine the results ran on", "[plan]") {
  test::temp_dir s("plan-here");
  const double ram = 24.0 * (1ull << 30);
  write_records(s.path, {header("Test CPU", 2, ram), window("Test CPU", 4, 1.2e6, 3e9), disk(50000, 80e9)});
  auto r = verdict::make_plan("StackedDrg32GiBV1_1", {s.path}, {});
  REQUIRE(r.machines.size() == 1);
  CHECK(r.machines[0].machine == "this machine (Test CPU)");
  // 80 GB of disk holds no 32GiB sector's 11 layers; nor does 24 GiB two layers.
  CHECK_FALSE(r.machines[0].pc1.feasible);
  CHECK(r.machines[0].binding.find("capacity") == 0);
  CHECK(*r.machines[0].sectors_per_hour.value == 0);
  // With room on the disk: IOPS-bound, one core hashing, one for the rest.
  write_records(s.path, {header("Test CPU", 2, ram), window("Test CPU", 4, 1.2e6, 3e9), disk(50000, 10e12)});
  r = verdict::make_plan("StackedDrg32GiBV1_1", {s.path}, {});
  const auto& m = r.machines[0];
  CHECK(m.pc1.feasible);
  CHECK(m.pc1.binding == "IOPS");
  CHECK(m.pc1.hashing_cores == 1);
  CHECK(item(m, "IOPS")->value.from.status == figure_status::modeled);
  CHECK(item(m, "hashing rate per core")->value.from.status == figure_status::measured);
}

TEST_CASE("plan: what it cannot size is refused, on the command line too", "[plan][reliability]") {
  CHECK_THROWS_AS(verdict::make_plan("StackedDrg32GiBV1_1", {}, {}), verdict::plan_error);
  test::temp_dir s("plan-bad");
  test::write_text(s / "m.json", R"({"schema": "poreplab-machine/1", "name": "M", "cpu": {"cores": 8}, "ram": "64GiB"})");
  CHECK_THROWS_WITH(verdict::make_plan("StackedDrg32GiBV1_1", {}, {verdict::load_machine(s / "m.json")}),
                    Catch::Contains("m.json: no hashing rate"));
  const std::string rig = test::shell_quote((machines_dir() / "supraseal-5975wx-12nvme.json").string());
  auto r = test::run_poreplab("plan --machine " + rig, s);
  CHECK(r.status == 0);
  CHECK(r.out.find("| published PC1 record |") != std::string::npos);
  r = test::run_poreplab("plan --json --sector-size 64GiB --machine " + rig, s);
  REQUIRE(r.status == 0);
  CHECK(json::parse(r.out)["sector_size"] == 64ull << 30);
  test::write_text(s / "bad.json", R"({"schema": "poreplab-machine/1", "name": "M", "cpu": {"cores": 8}, "ram": "64GiB",
      "disks": [{"count": 1, "random_read_iops": -5, "capacity": "1TB", "source": "s"}]})");
  for (const auto& [args, want] : std::vector<std::pair<std::string, std::string>>{
           {"plan --sector-size 3GiB --machine " + rig, "--sector-size 3GiB"},
           {"plan --machine " + test::shell_quote((s / "bad.json").string()), "/disks/0/random_read_iops"},
           {"plan --results " + test::shell_quote((s / "missing").string()), "missing"}}) {
    INFO(args);
    r = test::run_poreplab(args, s);
    test::check_refused(r, want);
    CHECK(r.err.find("poreplab: error: ") == 0);
    CHECK(r.out.empty());
  }
}

TEST_CASE("bench reads: a table and JSON, bad flags refused", "[plan][cli]") {
  test::temp_dir s("reads");
  auto r = test::run_poreplab("bench reads --sector-size 8MiB --cache 0,1Ki --sectors 1,64 --runs 4 --run-nodes 1024", s);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("counted on the graph: 4 runs of 1024 nodes") != std::string::npos);
  CHECK(r.out.find("recounted by the reference: equal") != std::string::npos);
  CHECK(r.out.find("| 64 | 1Ki | 2MiB | 2 |") != std::string::npos);
  r = test::run_poreplab("bench reads --json --proof StackedDrg2KiBV1_1 --cache 1 --sectors 2", s);
  REQUIRE(r.status == 0);
  const json j = json::parse(r.out);
  CHECK(j["sample"] == "every node (64)");
  CHECK(j["rows"][0]["layers"] == 2);
  CHECK(j["reference_check"] == "equal");
  for (const auto& [args, want] : std::vector<std::pair<std::string, std::string>>{
           {"bench reads --cache 1Xi", "--cache '1Xi'"},
           {"bench reads --sectors 0", "sectors 0"},
           {"bench reads --sector-size 3MiB", "sector size"},
           {"bench reads --runs 0", "--runs 0"},
           {"bench reads --run-nodes 8Mi", "--run-nodes '8Mi'"},
           {"bench reads --proof Nope", "unknown registered proof"}}) {
    INFO(args);
    r = test::run_poreplab(args, s);
    test::check_refused(r, want);
    CHECK(r.err.find("poreplab: error: ") == 0);
  }
}

TEST_CASE("runner: the reads and disk kinds record counted reads and a probed disk", "[plan][runner]") {
  test::temp_dir s("reads-run");
  const auto res = test::run_config(s, "c.json", R"({"schema": "poreplab-experiments/1", "experiments": [
      {"name": "r", "kind": "reads", "axes": {"sector_size": ["8MiB"], "sectors": [1, 64], "cache_nodes": [0, 1024],
                                              "runs": [4], "run_nodes": [512]}, "samples": 1},
      {"name": "d", "kind": "disk", "axes": {"disk_dir": ["tmp"], "seconds": [1], "file_size": ["1MiB"],
                                             "queue_depth": [4]}, "warmup": 0, "samples": 1}]})").results;
  int reads = 0;
  for (const auto& p : res["points"]) {
    INFO(p.dump());
    if (p["kind"] == "reads") {
      ++reads;
      REQUIRE(p["status"] == "ok");
      CHECK(p["verified"] == true);
      CHECK(p["samples"].size() == 4);  // one a run
      const double mean = p["rates"]["mean_pages_per_node"];
      CHECK(p["rates"]["reads_per_label"].get<double>() == Approx(mean / p["axes"]["sectors"].get<double>()));
      CHECK(mean > 0);
      CHECK(mean < 14);
    } else if (p["status"] == "ok") {  // a temporary directory without O_DIRECT is skipped
      CHECK(p["verified"] == true);
      CHECK(p["rates"]["reads_per_s"].get<double>() > 0);
      CHECK(p["context"]["free_bytes"].get<double>() > 0);
    } else {
      CHECK(p["status"] == "skipped");
      CHECK_FALSE(p["reason"].get<std::string>().empty());
    }
  }
  CHECK(reads == 4);
}

TEST_CASE("plan: a slower hasher whose coordinator feeds more of them wins where the cores bind", "[plan][storage_model]") {
  // One coordinator feeding one hasher of 4 sectors on a 32GiB window, measured twice: headers
  // made by the coordinator (3.6e6 labels/s, the coordinator able to feed 1 at the floor) and
  // by the hasher (3.4e6, able to feed 2). Both are candidates.
  const auto coordinated = [](double labels, std::uint32_t k_max) {
    json w = window("Test CPU", 4, labels, 3.7e9);
    w["context"]["producer"] = "core";
    w["context"]["coordinators"] = 1;
    w["context"]["hashers"] = 1;
    w["context"]["hashers_per_coordinator_max"] = k_max;
    w["axes"]["header_ahead"] = k_max == 1 ? 1 : 0;
    return w;
  };
  test::temp_dir s("plan-kmax");
  const auto rig = verdict::load_machine(machines_dir() / "supraseal-5975wx-12nvme.json");
  write_records(s.path, {header("Test CPU", 2, 24.0 * (1ull << 30)), coordinated(3.6e6, 1)});
  const auto one = verdict::make_plan("StackedDrg32GiBV1_1", {s.path}, {rig});
  // k_max 1: 64 sectors at 4 a core need 16 + 16 + 3 cores of 32; the batch stops at 32.
  CHECK(one.machines[0].pc1.batch < 64);
  write_records(s.path, {header("Test CPU", 2, 24.0 * (1ull << 30)), coordinated(3.6e6, 1), coordinated(3.4e6, 2)});
  const auto two = verdict::make_plan("StackedDrg32GiBV1_1", {s.path}, {rig});
  const auto& p = two.machines[0].pc1;
  // k_max 2: 16 hashing + 8 coordinators + 3 cores hold 64 sectors.
  CHECK(p.batch == 64);
  CHECK(p.hashing_cores == 16);
  CHECK(p.other_cores == 8 + 3);
  CHECK(p.labels_per_s.value.value_or(0) > one.machines[0].pc1.labels_per_s.value.value_or(0));
  // A faster core at 16 sectors heads the rates, but 64 sectors label faster at 4 a core: the
  // row names the count the bound chose.
  json wide = coordinated(4.2e6, 1);
  wide["axes"]["sectors"] = 16;
  wide["stats"]["median"] = 16 * 1e9 / 4.2e6;
  write_records(s.path, {header("Test CPU", 2, 24.0 * (1ull << 30)), coordinated(3.4e6, 2), wide});
  const auto mixed = verdict::make_plan("StackedDrg32GiBV1_1", {s.path}, {rig});
  CHECK(mixed.machines[0].pc1.sectors_per_core == 4);
  const auto* cores = item(mixed.machines[0], "hashing cores");
  REQUIRE(cores != nullptr);
  CHECK(cores->value.from.detail.starts_with("4 sectors per core"));
}

TEST_CASE("plan: the hashers a coordinator feeds come from its cost measured at the wider team", "[plan][storage_model]") {
  // One coordinator and one hasher, 4 sectors (3.4e6 labels/s: 1176 ns a node) and 8 sectors.
  // At 4 lanes the coordinator was busy 0.6 of the node (706 ns): alone, that says it feeds 1.
  // Its cost at 8 lanes, 0.4 of 2500 ns = 1000 ns, is within a 4-sector hasher's 1176 ns: 2.
  const auto coordinated = [](std::uint32_t sectors, double labels, double busy) {
    json w = window("Test CPU", sectors, labels, 3.7e9);
    w["axes"]["header_ahead"] = 0;
    w["context"]["producer"] = "core";
    w["context"]["coordinators"] = 1;
    w["context"]["hashers"] = 1;
    w["context"]["hashers_per_coordinator_max"] = 1;
    w["context"]["coordinator_busy_share"] = busy;
    w["context"]["ns_per_node_layer"] = sectors * 1e9 / labels;
    return w;
  };
  test::temp_dir s("plan-cost-curve");
  const auto rig = verdict::load_machine(machines_dir() / "supraseal-5975wx-12nvme.json");
  write_records(s.path, {header("Test CPU", 2, 24.0 * (1ull << 30)), coordinated(4, 3.4e6, 0.6)});
  const auto alone = verdict::make_plan("StackedDrg32GiBV1_1", {s.path}, {rig});
  CHECK(alone.machines[0].pc1.batch < 64);
  write_records(s.path, {header("Test CPU", 2, 24.0 * (1ull << 30)), coordinated(4, 3.4e6, 0.6), coordinated(8, 3.2e6, 0.4)});
  const auto wider = verdict::make_plan("StackedDrg32GiBV1_1", {s.path}, {rig});
  const auto& p = wider.machines[0].pc1;
  CHECK(p.batch == 64);
  CHECK(p.hashing_cores == 16);
  CHECK(p.other_cores == 8 + 3);
  const std::string why = p.labels_per_s.from.text();
  CHECK(why.find("k = 2 from the coordinator's cost a node measured at its team's widths (4 lanes 706 ns, 8 lanes 1000 ns)") !=
        std::string::npos);
  // A cost measured at a wider team of another design (headers made by the coordinator) says
  // nothing of this one's.
  json other = coordinated(8, 3.2e6, 0.4);
  other["axes"]["header_ahead"] = 1;
  write_records(s.path, {header("Test CPU", 2, 24.0 * (1ull << 30)), coordinated(4, 3.4e6, 0.6), other});
  CHECK(verdict::make_plan("StackedDrg32GiBV1_1", {s.path}, {rig}).machines[0].pc1.batch < 64);
}
