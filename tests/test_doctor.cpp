// poreplab doctor: the fact readers on a fixture /proc and /sys, every check's branches on
// facts built here, the disk test, and the command itself on this machine.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "doctor/checks.hpp"
#include "doctor/disk.hpp"
#include "doctor/facts.hpp"
#include "doctor/plan.hpp"
#include "doctor/report.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "support.hpp"

using namespace poreplab;
using namespace poreplab::doctor;
using poreplab::test::temp_dir;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kOneGiB = std::uint64_t{1} << 30;

// A file below a fixture root, its directories made.
void put(const fs::path& root, const std::string& rel, const std::string& text) {
  fs::create_directories((root / rel).parent_path());
  test::write_text(root / rel, text);
}

// PUs 0..n-1, PU i on core core_of[i], one package.
cpu::machine_topology topology_of(const std::vector<int>& core_of) {
  cpu::machine_topology t;
  t.source = "test";
  t.packages = 1;
  for (std::size_t i = 0; i < core_of.size(); ++i) t.pus.push_back({static_cast<int>(i), core_of[i], 0});
  t.cores = static_cast<int>(std::set<int>(core_of.begin(), core_of.end()).size());
  std::vector<int> all;
  for (std::size_t i = 0; i < core_of.size(); ++i) all.push_back(static_cast<int>(i));
  t.l3 = {all};
  return t;
}

cpu::features full_features() {
  cpu::features f;
  f.vendor = "test";
  f.sse41 = f.ssse3 = f.sha_ni = true;
  f.avx2 = f.bmi2 = f.adx = f.os_avx = true;
  f.avx512f = f.avx512vl = f.avx512bw = f.os_avx512 = true;
  f.caches = {{3, "unified", 32ull << 20, 64, 16}};
  return f;
}

// A machine with nothing to warn about for one 32GiB sector: 8 cores, plenty of RAM, a
// fast disk, SHA-NI and AVX-512, a verified parent cache and one H100.
system_facts healthy() {
  system_facts f;
  cpu_facts& c = f.cpu;
  c.features = full_features();
  c.topology = topology_of({0, 1, 2, 3, 4, 5, 6, 7});
  c.allowed = {0, 1, 2, 3, 4, 5, 6, 7};
  c.numa_nodes = {{0, 1, 2, 3, 4, 5, 6, 7}};
  c.smt_control = "notsupported";
  c.llc_bytes = 32ull << 20;
  c.label_threads = 8;
  c.load_average = 0.1;
  c.tsc_hz = 3.0e9;
  c.core_hz = 3.5e9;
  c.engines = {{"shani", 1, true, 45, 900},
               {"shani-x4", 4, true, 30, 0},
               {"avx512-x16", 16, false, 8, 0},
               {"avx2-x8", 8, false, 16, 0},
               {"avx2-1", 1, false, 140, 2800},
               {"portable", 1, false, 300, 0}};
  c.auto_engine = "shani";
  memory_facts& m = f.memory;
  m.total_bytes = m.available_bytes = 512 * kOneGiB;
  m.thp_enabled = "madvise";
  m.thp_defrag = "madvise";
  m.hugepages = {{2ull << 20, 0, 0}, {kOneGiB, 0, 0}};
  m.memlock_bytes = kUnlimited;
  dir_facts d;
  d.path = d.probed = "/seal";
  d.exists = d.is_dir = d.writable = true;
  d.free_bytes = d.total_bytes = 4096 * kOneGiB;
  d.fs_type = "xfs";
  f.layer_dir = d;
  f.disk.ran = f.disk.o_direct = true;
  f.disk.file_bytes = 256ull << 20;
  f.disk.write_bytes_per_s = 2e9;
  f.disk.read_bytes_per_s = 3e9;
  f.disk.random_reads_per_s = 20000;
  f.disk.seconds = 3;
  parent_cache_facts& pc = f.parent_cache;
  pc.dir = "/var/tmp/filecoin-parents";
  pc.file = pc.dir / "v28-sdr-parent-test.cache";
  pc.present = pc.sidecar = true;
  pc.bytes = pc.expected_bytes = 56 * kOneGiB;
  pc.rows_checked = 256;
  pc.space = d;
  gpu_facts& g = f.gpu;
  g.compiled = g.available = true;
  g.driver_version = g.runtime_version = 12040;
  g.sass_archs = {80, 90};
  g.ptx_archs = {90};
  g.devices = {{0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 80 * kOneGiB, "", true}};
  return f;
}

const seal_plan& plan_32g() {
  static const seal_plan p = make_plan(32 * kOneGiB, 1);
  return p;
}

}  // namespace

TEST_CASE("doctor plan: graph, layers, memory and disk of a sector size", "[doctor]") {
  const seal_plan& p = plan_32g();
  CHECK(p.proof == "StackedDrg32GiBV1_1");
  CHECK(p.layers == 11);
  CHECK(p.nodes == std::uint64_t{1} << 30);
  CHECK(p.memory.parent_table_bytes == 56 * kOneGiB);
  CHECK(p.label_bytes == 64 * kOneGiB + 56 * kOneGiB);
  CHECK(p.kept_bytes == 11 * 32 * kOneGiB + 56 * kOneGiB);
  CHECK(p.resident_bytes == 40 * kOneGiB);
  CHECK(p.disk_bytes == 12 * 32 * kOneGiB + 64 * kOneGiB - 32 + (64 << 10));
  const seal_plan custom = make_plan(kOneGiB, 4);
  CHECK(custom.proof.empty());
  CHECK(custom.layers == 11);
  CHECK(custom.memory.layer_bytes == 4 * kOneGiB);
  CHECK(make_plan(2048, 1).layers == 2);
  CHECK_THROWS_AS(make_plan(3072, 1), std::invalid_argument);
  CHECK_THROWS_AS(make_plan(2048, 0), std::invalid_argument);
}

TEST_CASE("doctor facts: /proc and /sys read below a fixture root", "[doctor]") {
  temp_dir dir("doctor-root");
  const fs::path root = dir.path;
  put(root, "proc/meminfo",
      "MemTotal:       65536000 kB\nMemFree:        1000 kB\nMemAvailable:   32768000 kB\nSwapTotal:      8388608 kB\n"
      "SwapFree:       4194304 kB\n");
  put(root, "proc/self/limits",
      "Limit                     Soft Limit           Hard Limit           Units     \n"
      "Max locked memory         65536                unlimited            bytes     \n");
  put(root, "proc/self/cgroup", "0::/sealer\n");
  put(root, "sys/fs/cgroup/sealer/memory.max", "17179869184\n");
  put(root, "proc/loadavg", "3.50 2.00 1.00 4/300 1234\n");
  put(root, "proc/self/mountinfo",
      "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
      "30 22 0:25 / /mnt/fast\\040disk rw - xfs /dev/nvme0n1 rw\n"
      "31 22 0:26 / /dev/shm rw - tmpfs tmpfs rw\n");
  put(root, "sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]\n");
  put(root, "sys/kernel/mm/transparent_hugepage/defrag", "always defer defer+madvise [madvise] never\n");
  put(root, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "1024\n");
  put(root, "sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "1000\n");
  put(root, "sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "4\n");
  put(root, "sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages", "4\n");
  put(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_driver", "acpi-cpufreq\n");
  put(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n");
  put(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "1500000\n");
  put(root, "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "3500000\n");
  put(root, "sys/devices/system/cpu/cpufreq/boost", "0\n");
  put(root, "sys/devices/system/cpu/smt/control", "on\n");
  put(root, "sys/devices/system/node/node0/cpulist", "0-3,8-11\n");
  put(root, "sys/devices/system/node/node1/cpulist", "4-7,12-15\n");
  put(root, "sys/devices/system/node/online", "0-1\n");

  fact_source src;
  src.root = root;
  src.features = full_features();
  src.topology = topology_of({0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7});
  src.allowed = std::vector<int>{0, 1, 2, 3};
  src.gpu = gpu_facts{};
  src.measure = false;
  src.parent_cache_samples = 0;
  request req;
  req.parent_cache_dir = dir.path / "cache";
  const system_facts f = gather_facts(req, make_plan(2048, 1), src);

  const memory_facts& m = f.memory;
  CHECK(m.total_bytes == 65536000ull * 1024);
  CHECK(m.available_bytes == 32768000ull * 1024);
  CHECK(m.swap_total_bytes == 8 * kOneGiB);
  CHECK(m.swap_free_bytes == 4 * kOneGiB);
  CHECK(m.cgroup_limit_bytes == 16 * kOneGiB);
  CHECK(m.budget() == 16 * kOneGiB);
  CHECK(m.thp_enabled == "never");
  CHECK(m.thp_defrag == "madvise");
  REQUIRE(m.hugepages.size() == 2);
  CHECK(m.hugepages[0].page_bytes == 2ull << 20);
  CHECK(m.hugepages[0].pages == 1024);
  CHECK(m.hugepages[0].free_pages == 1000);
  CHECK(m.hugepages[1].page_bytes == kOneGiB);
  REQUIRE(m.memlock_bytes);
  CHECK(*m.memlock_bytes == 65536);

  const cpu_facts& c = f.cpu;
  CHECK(c.freq.present);
  CHECK(c.freq.driver == "acpi-cpufreq");
  CHECK(c.freq.governor == "powersave");
  CHECK(c.freq.cur_khz == 1500000);
  CHECK(c.freq.max_khz == 3500000);
  REQUIRE(c.freq.boost);
  CHECK_FALSE(*c.freq.boost);
  CHECK(c.smt_control == "on");
  CHECK(c.load_average == Approx(3.5));
  REQUIRE(c.numa_nodes.size() == 2);
  CHECK(c.numa_nodes[0] == std::vector<int>{0, 1, 2, 3, 8, 9, 10, 11});
  CHECK(c.llc_bytes == 32ull << 20);
  CHECK(c.allowed == std::vector<int>{0, 1, 2, 3});
  CHECK(c.engines.empty());  // nothing measured

  CHECK(mount_type(root, "/mnt/fast disk/layers") == "xfs");
  CHECK(mount_type(root, "/mnt/fast") == "ext4");
  CHECK(mount_type(root, "/dev/shm") == "tmpfs");
  CHECK(mount_type(root, "/home/x") == "ext4");
  CHECK(parse_cpu_list("0-2,5") == std::vector<int>{0, 1, 2, 5});
  CHECK(parse_cpu_list("3-1").empty());

  // An empty root: every fact unknown, no check throws.
  temp_dir empty("doctor-empty");
  src.root = empty.path;
  const system_facts none = gather_facts(req, plan_32g(), src);
  CHECK(none.memory.total_bytes == 0);
  CHECK_FALSE(none.memory.memlock_bytes);
  CHECK(none.memory.thp_enabled.empty());
  CHECK_FALSE(none.cpu.freq.present);
  CHECK(none.cpu.load_average < 0);
  const auto findings = run_checks(none, plan_32g());
  CHECK(findings.size() == 16);
  for (const auto& x : findings) {
    INFO(x.id << ": " << x.found);
    CHECK_FALSE(x.found.empty());
  }
}

TEST_CASE("doctor CPU checks: ok, warn and their costs", "[doctor]") {
  const seal_plan& p = plan_32g();
  const system_facts ok = healthy();
  for (const auto& x : {check_sha(ok, p), check_vector_units(ok, p), check_clock(ok, p), check_smt(ok, p),
                        check_topology(ok, p), check_cores(ok, p)}) {
    INFO(x.id << ": " << x.found << " / " << x.cost);
    CHECK(x.status == level::ok);
  }
  // SHA-NI: the measured floors as PC1 times, and the slowdown without them.
  const finding sha = check_sha(ok, p);
  CHECK_THAT(sha.found, Catch::Contains("shani") && Catch::Contains("avx2-1") && Catch::Contains("3.11x"));
  CHECK(sha.values["without_sha_ni_slower_by"].get<double>() == Approx(2800.0 / 900));
  CHECK(sha.values["pc1_floor_seconds"]["shani"].get<double>() == Approx(900e-9 * 11 * (1ull << 30)));
  {
    system_facts f = healthy();
    f.cpu.features.sha_ni = false;
    std::erase_if(f.cpu.engines, [](const engine_facts& e) { return e.sha_ni; });
    f.cpu.auto_engine = "avx2-1";
    const finding x = check_sha(f, p);
    CHECK(x.status == level::warn);
    CHECK_THAT(x.cost, Catch::Contains("avx2-1") && Catch::Contains("h on"));
    CHECK_FALSE(x.fix.empty());
  }
  // AVX-512: 32 sectors on a CPU whose widest engine is 8 lanes, with a 16-lane one missing.
  {
    system_facts f = healthy();
    f.cpu.features.avx512f = false;
    std::erase_if(f.cpu.engines, [](const engine_facts& e) { return e.name == "avx512-x16"; });
    f.cpu.unavailable_engines = {{"avx512-x16", 16, "avx512f avx512vl avx512bw"}};
    CHECK(check_vector_units(f, p).status == level::ok);  // one sector fills no wider engine
    const seal_plan many = make_plan(32 * kOneGiB, 32);
    const finding x = check_vector_units(f, many);
    CHECK(x.status == level::warn);
    CHECK_THAT(x.cost, Catch::Contains("avx512-x16") && Catch::Contains("8 lanes"));
  }
  // Clock: none exposed (ok), slow under powersave (warn with the floor at both clocks),
  // boost off (warn), performance at the maximum (ok).
  {
    system_facts f = healthy();
    CHECK_THAT(check_clock(f, p).found, Catch::Contains("no cpufreq"));
    f.cpu.freq.present = true;
    f.cpu.freq.driver = "acpi-cpufreq";
    f.cpu.freq.governor = "powersave";
    f.cpu.freq.max_khz = 3500000;
    f.cpu.core_hz = 1.75e9;
    finding x = check_clock(f, p);
    CHECK(x.status == level::warn);
    CHECK_THAT(x.fix, Catch::Contains("cpupower frequency-set -g performance"));
    CHECK_THAT(x.cost, Catch::Contains("1.75 GHz") && Catch::Contains("3.5 GHz"));
    f.cpu.freq.governor = "performance";
    f.cpu.core_hz = 3.45e9;
    CHECK(check_clock(f, p).status == level::ok);
    f.cpu.freq.boost = false;
    x = check_clock(f, p);
    CHECK(x.status == level::warn);
    CHECK_THAT(x.fix, Catch::Contains("cpufreq/boost"));
    f.cpu.freq.driver = "intel_pstate";
    CHECK_THAT(check_clock(f, p).fix, Catch::Contains("no_turbo"));
  }
  // SMT: 2 cores x 2 threads, 4 sectors of 8MiB (no producer: the layers fit the cache)
  // on a one-lane engine: four chains on two cores.
  {
    system_facts f = healthy();
    f.cpu.topology = topology_of({0, 1, 0, 1});
    f.cpu.allowed = {0, 1, 2, 3};
    f.cpu.label_threads = 4;
    f.cpu.auto_engine = "shani";
    const seal_plan small = make_plan(8ull << 20, 4);
    const finding x = check_smt(f, small);
    CHECK(x.status == level::warn);
    CHECK_THAT(x.cost, Catch::Contains("4 labeling threads on 2 cores"));
    CHECK(check_smt(f, make_plan(8ull << 20, 2)).status == level::ok);
    CHECK_THAT(check_smt(f, p).found, Catch::Contains("2 threads per core"));
  }
  // NUMA: a mask over two nodes.
  {
    system_facts f = healthy();
    f.cpu.numa_nodes = {{0, 1, 2, 3}, {4, 5, 6, 7}};
    const finding x = check_topology(f, p);
    CHECK(x.status == level::warn);
    CHECK_THAT(x.fix, Catch::Contains("numactl --cpunodebind"));
    f.cpu.allowed = {4, 5, 6, 7};
    CHECK(check_topology(f, p).status == level::ok);
  }
  // Cores: one CPU leaves no core for the producer; a busy machine; more lane groups
  // than threads.
  {
    system_facts f = healthy();
    f.cpu.allowed = {0};
    f.cpu.label_threads = 1;
    finding x = check_cores(f, p);
    CHECK(x.status == level::warn);
    CHECK_THAT(x.cost, Catch::Contains("no producers"));
    CHECK(x.values["producer_wanted"].get<bool>());
    CHECK_FALSE(x.values["producers"].get<bool>());
    f = healthy();
    f.cpu.load_average = 7.5;
    x = check_cores(f, p);
    CHECK(x.status == level::warn);
    CHECK_THAT(x.cost, Catch::Contains("other work"));
    // The floors were timed on that busy machine: the SHA finding says so.
    CHECK_THAT(check_sha(f, p).found, Catch::Contains("timed at a load average of 7.5 on 8 CPUs"));
    CHECK_THAT(check_sha(healthy(), p).found, !Catch::Contains("load average"));
    f = healthy();
    f.cpu.label_threads = 2;
    f.cpu.auto_engine = "shani";
    x = check_cores(f, make_plan(8ull << 20, 6));
    CHECK(x.status == level::warn);
    CHECK_THAT(x.cost, Catch::Contains("6 lane groups on 2 threads run in 3 rounds"));
    // Layers that fit in the cache want no producer.
    f = healthy();
    x = check_cores(f, make_plan(2048, 1));
    CHECK(x.status == level::ok);
    CHECK_FALSE(x.values["producer_wanted"].get<bool>());
  }
}

TEST_CASE("doctor memory checks: RAM against the plan, huge pages, memlock, swap", "[doctor]") {
  const seal_plan& p = plan_32g();
  const system_facts ok = healthy();
  for (const auto& x : {check_ram(ok, p), check_thp(ok, p), check_hugetlb(ok, p), check_memlock(ok, p), check_swap(ok, p)}) {
    INFO(x.id << ": " << x.found << " / " << x.cost);
    CHECK(x.status == level::ok);
  }
  CHECK_THAT(check_ram(ok, p).found, Catch::Contains("all 11 layers"));
  {
    system_facts f = healthy();
    f.memory.available_bytes = 128 * kOneGiB;
    finding x = check_ram(f, p);
    CHECK(x.status == level::ok);
    CHECK_THAT(x.found, Catch::Contains("two layers"));
    f.memory.available_bytes = 64 * kOneGiB;
    x = check_ram(f, p);
    CHECK(x.status == level::warn);
    CHECK_THAT(x.found, Catch::Contains("bounded"));
    // A cgroup's limit is the budget, whatever MemAvailable says.
    f.memory.available_bytes = 500 * kOneGiB;
    f.memory.cgroup_limit_bytes = 24 * kOneGiB;
    x = check_ram(f, p);
    CHECK(x.status == level::fail);
    CHECK_THAT(x.found, Catch::Contains("cgroup"));
    // The cost at the measured IOPS: 2 x 2^30 reads at 20000/s a layer.
    CHECK(x.values["layer_seconds_at_measured_iops"].get<double>() == Approx(2.0 * (1ull << 30) / 20000));
    f.disk.ran = false;
    CHECK_THAT(check_ram(f, p).cost, Catch::Contains("--layer-dir"));
    f.memory = memory_facts{};
    CHECK(check_ram(f, p).status == level::skip);
  }
  {
    system_facts f = healthy();
    f.memory.thp_enabled = "never";
    finding x = check_thp(f, p);
    CHECK(x.status == level::warn);
    CHECK_THAT(x.fix, Catch::Contains("transparent_hugepage/enabled"));
    f.memory.thp_enabled = "always";
    CHECK(check_thp(f, p).status == level::ok);
    f.memory.thp_enabled.clear();
    CHECK(check_thp(f, p).status == level::skip);
  }
  {
    system_facts f = healthy();
    f.memory.hugepages = {{2ull << 20, 1024, 1024}, {kOneGiB, 16, 16}};
    finding x = check_hugetlb(f, p);
    CHECK(x.status == level::warn);
    CHECK(x.values["reserved_bytes"].get<std::uint64_t>() == 18 * kOneGiB);
    f.memory.hugepages = {{kOneGiB, 128, 128}};
    CHECK(check_hugetlb(f, p).status == level::ok);
    f.memory.hugepages.clear();
    CHECK(check_hugetlb(f, p).status == level::skip);
    // A real size: the 2 MiB pages a timed window on the aliased backing needs, and how to
    // reserve them. 32 sectors of 32GiB: two 4 GiB periods (4096 pages) and the window's own
    // 64 MiB of rows, each side rounded to whole pages.
    const seal_plan big = make_plan(32ull << 30, 32);
    f.memory.hugepages = {{2ull << 20, 0, 0}};
    const finding w = check_hugetlb(f, big);
    const auto pages = w.values["window_pages_2mib"].get<std::uint64_t>();
    CHECK(pages == 4096 + 33);
    CHECK_THAT(w.found, Catch::Contains("sysctl vm.nr_hugepages=" + std::to_string(pages)));
    f.memory.hugepages = {{2ull << 20, 5000, 5000}};
    CHECK_THAT(check_hugetlb(f, big).found, Catch::Contains("needs " + std::to_string(pages) + " of them, 5000 free"));
    CHECK(check_hugetlb(f, make_plan(2048, 1)).values["window_pages_2mib"].get<std::uint64_t>() == 0);
  }
  {
    system_facts f = healthy();
    f.memory.memlock_bytes = 8ull << 20;
    finding x = check_memlock(f, p);
    CHECK(x.status == level::warn);
    CHECK_THAT(x.fix, Catch::Contains("ulimit -l unlimited"));
    f.memory.memlock_bytes = 200 * kOneGiB;
    CHECK(check_memlock(f, p).status == level::ok);
    f.memory.memlock_bytes.reset();
    CHECK(check_memlock(f, p).status == level::skip);
  }
  {
    system_facts f = healthy();
    f.memory.swap_total_bytes = 64 * kOneGiB;
    f.memory.swap_free_bytes = 60 * kOneGiB;
    CHECK(check_swap(f, p).status == level::ok);
    f.memory.available_bytes = 100 * kOneGiB;
    finding x = check_swap(f, p);
    CHECK(x.status == level::warn);
    CHECK_THAT(x.found, Catch::Contains("4 GiB used"));
    CHECK_THAT(x.fix, Catch::Contains("swapoff"));
  }
}

TEST_CASE("doctor storage checks: parent cache from files, layer directory, O_DIRECT, disk speed", "[doctor]") {
  temp_dir dir("doctor-storage");
  const seal_plan p2k = make_plan(2048, 1);
  fact_source src;
  src.root = dir.path / "root";  // nothing there: the readers find no /proc or /sys
  src.features = full_features();
  src.topology = topology_of({0, 1});
  src.allowed = std::vector<int>{0, 1};
  src.gpu = gpu_facts{};
  src.measure = false;
  request req;
  req.parent_cache_dir = dir.path / "cache";
  auto parent_check = [&] { return check_parent_cache(gather_facts(req, p2k, src), p2k); };

  // Absent, with room: warn with the command that generates it.
  finding x = parent_check();
  CHECK(x.status == level::warn);
  CHECK_THAT(x.fix, Catch::Contains("poreplab parent-cache generate --proof StackedDrg2KiBV1_1 --dir"));
  // Present: every row of the 64-node graph recomputed.
  const graph::parent_table t = graph::parent_table::generate(p2k.graph);
  const fs::path file = graph::write_parent_cache(req.parent_cache_dir, p2k.graph, t.words());
  x = parent_check();
  CHECK(x.status == level::ok);
  CHECK_THAT(x.found, Catch::Contains("64 sampled rows"));
  // One row changed (its sidecar left as it was): the sampled rows catch it.
  {
    std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(10 * 56 + 4);
    const char junk[4] = {1, 2, 3, 4};
    io.write(junk, 4);
  }
  x = parent_check();
  CHECK(x.status == level::fail);
  CHECK_THAT(x.fix, Catch::Contains("--force"));
  fs::resize_file(file, 100);
  x = parent_check();
  CHECK(x.status == level::fail);
  CHECK_THAT(x.found, Catch::Contains("100 B"));
  // Absent and no room for the table.
  {
    system_facts f = healthy();
    f.parent_cache.present = false;
    f.parent_cache.space.free_bytes = kOneGiB;
    x = check_parent_cache(f, plan_32g());
    CHECK(x.status == level::fail);
    CHECK_THAT(x.fix, Catch::Contains("FIL_PROOFS_PARENT_CACHE"));
  }
  // A custom size names its graph by porep_id.
  {
    system_facts f = healthy();
    f.parent_cache.present = false;
    CHECK_THAT(check_parent_cache(f, make_plan(kOneGiB, 1)).fix, Catch::Contains("--porep-id 08") &&
                                                                 Catch::Contains("--api-version 1.1.0 --sector-size 1GiB"));
  }

  // The layer directory: missing and a file are failures found, not errors thrown.
  req.layer_dir = dir.path / "missing" / "layers";
  system_facts f = gather_facts(req, p2k, src);
  x = check_layer_dir(f, p2k);
  CHECK(x.status == level::fail);
  CHECK_THAT(x.found, Catch::Contains("does not exist"));
  CHECK_THAT(x.fix, Catch::Contains("mkdir -p"));
  CHECK(check_o_direct(f, p2k).status == level::skip);
  CHECK(check_disk_speed(f, p2k).status == level::skip);
  test::write_text(dir.path / "a-file", "x");
  req.layer_dir = dir.path / "a-file";
  CHECK_THAT(check_layer_dir(gather_facts(req, p2k, src), p2k).found, Catch::Contains("not a directory"));
  req.layer_dir = dir.path;
  f = gather_facts(req, p2k, src);
  CHECK(check_layer_dir(f, p2k).status == level::ok);
  CHECK(f.layer_dir->free_bytes > 0);
  {
    system_facts g = healthy();
    g.layer_dir->writable = false;
    CHECK_THAT(check_layer_dir(g, plan_32g()).found, Catch::Contains("not writable"));
    g = healthy();
    g.layer_dir->free_bytes = 100 * kOneGiB;
    x = check_layer_dir(g, plan_32g());
    CHECK(x.status == level::fail);
    CHECK_THAT(x.found, Catch::Contains("writes 448.0 GiB"));
    g = healthy();
    g.layer_dir->fs_type = "tmpfs";
    CHECK(check_layer_dir(g, plan_32g()).status == level::warn);
    g.layer_dir->fs_type = "nfs4";
    CHECK_THAT(check_layer_dir(g, plan_32g()).cost, Catch::Contains("network"));
    g.layer_dir.reset();
    CHECK(check_layer_dir(g, plan_32g()).status == level::skip);
  }
  {
    system_facts g = healthy();
    CHECK(check_o_direct(g, plan_32g()).status == level::ok);
    g.disk.o_direct = false;
    g.disk.o_direct_error = "Invalid argument";
    x = check_o_direct(g, plan_32g());
    CHECK(x.status == level::warn);
    CHECK_THAT(x.found, Catch::Contains("Invalid argument"));
  }
  // Disk speed against the PC1 floor: 448 GiB at 2 GB/s in 4 min, PC1 hours (ok); at
  // 20 MB/s longer than PC1 (warn).
  {
    system_facts g = healthy();
    x = check_disk_speed(g, plan_32g());
    CHECK(x.status == level::ok);
    CHECK_THAT(x.found, Catch::Contains("20000 random 4 KiB reads/s"));
    g.disk.write_bytes_per_s = 20e6;
    x = check_disk_speed(g, plan_32g());
    CHECK(x.status == level::warn);
    CHECK(x.values["write_seconds"].get<double>() > x.values["pc1_floor_seconds"].get<double>());
  }
}

TEST_CASE("doctor disk test: bounded, leaves nothing behind, bad directories reported", "[doctor]") {
  temp_dir dir("doctor-disk");
  const auto t0 = std::chrono::steady_clock::now();
  const disk_result r = measure_disk(dir.path, 0.3, 64ull << 30, 32ull << 20);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.error);
  CHECK(r.ran);
  CHECK(r.file_bytes > 0);
  CHECK(r.file_bytes <= 32ull << 20);
  CHECK(r.write_bytes_per_s > 0);
  CHECK(r.read_bytes_per_s > 0);
  CHECK(r.random_reads_per_s > 0);
  CHECK(took < 5);
  CHECK(fs::is_empty(dir.path));
  const disk_result missing = measure_disk(dir.path / "nope", 0.3, 64ull << 30);
  CHECK_FALSE(missing.ran);
  CHECK_THAT(missing.error, Catch::Contains("nope"));
  const disk_result full = measure_disk(dir.path, 0.3, 10ull << 20);
  CHECK_FALSE(full.ran);
  CHECK_THAT(full.error, Catch::Contains("MiB free"));
}

TEST_CASE("doctor GPU checks: build, driver, SASS or PTX, sectors per GPU", "[doctor]") {
  const seal_plan& p = plan_32g();
  system_facts f = healthy();
  CHECK(check_gpu_driver(f, p).status == level::ok);
  std::vector<finding> d = check_gpu_devices(f, p);
  REQUIRE(d.size() == 1);
  CHECK(d[0].status == level::ok);
  CHECK_THAT(d[0].found, Catch::Contains("sm_90") && Catch::Contains("SASS") && Catch::Contains("at most 1 32GiB sector"));
  CHECK(d[0].values["parents"] == "streamed");
  // Two 32GiB sectors do not fit in 80 GiB.
  d = check_gpu_devices(f, make_plan(32 * kOneGiB, 2));
  CHECK(d[0].status == level::warn);
  CHECK_THAT(d[0].fix, Catch::Contains("--sectors 1"));
  // PTX only: runs after a JIT compile.
  f.gpu.devices = {{0, "NVIDIA L40S", 8, 9, 142, 48 * kOneGiB, "", false}};
  d = check_gpu_devices(f, make_plan(512ull << 20, 1));
  CHECK(d[0].status == level::warn);
  CHECK_THAT(d[0].found, Catch::Contains("JIT"));
  CHECK_THAT(d[0].fix, Catch::Contains("-DCMAKE_CUDA_ARCHITECTURES=89"));
  f.gpu.devices = {{1, "Tesla V100", 7, 0, 80, 32 * kOneGiB, "compute capability 7.0 cannot run this build's kernels", false}};
  d = check_gpu_devices(f, p);
  CHECK(d[0].status == level::fail);
  CHECK(d[0].id == "gpu.1");
  // The driver older than the runtime; no driver; no CUDA in the build.
  f.gpu.driver_version = 11080;
  CHECK(check_gpu_driver(f, p).status == level::fail);
  f.gpu.driver_version = 0;
  f.gpu.reason = "no CUDA driver is installed (libcuda not found)";
  CHECK(check_gpu_driver(f, p).status == level::skip);
  f.gpu = this_build_gpu_facts();
  const finding built = check_gpu_driver(f, p);
  CHECK(built.status != level::fail);
#ifndef POREPLAB_WITH_CUDA
  CHECK(built.status == level::skip);
  CHECK_THAT(built.found, Catch::Contains("built without CUDA"));
#endif
}

TEST_CASE("doctor report: exit status, JSON and text", "[doctor]") {
  const seal_plan& p = plan_32g();
  system_facts f = healthy();
  request req;
  req.layer_dir = "/seal";
  std::vector<finding> all = run_checks(f, p);
  for (const auto& x : all) {
    INFO(x.id << ": " << x.found << " / " << x.cost);
    CHECK(x.status == level::ok);
  }
  CHECK(exit_status(all) == 0);
  f.memory.thp_enabled = "never";
  all = run_checks(f, p);
  CHECK(exit_status(all) == 1);
  f.layer_dir->exists = false;
  all = run_checks(f, p);
  CHECK(exit_status(all) == 2);
  const nlohmann::json j = report_json(p, req, f, all);
  CHECK(j["status"] == "fail");
  CHECK(j["exit_status"] == 2);
  CHECK(j["plan"]["sector_size"] == "32GiB");
  CHECK(j["plan"]["proof"] == "StackedDrg32GiBV1_1");
  CHECK(j["counts"]["warn"] == 1);
  CHECK(j["counts"]["fail"] >= 1);
  std::set<std::string> sections;
  for (const auto& c : j["checks"]) {
    for (const char* k : {"id", "section", "title", "status", "found", "cost", "fix", "values"}) CHECK(c.contains(k));
    sections.insert(c["section"].get<std::string>());
  }
  CHECK(sections == std::set<std::string>{"cpu", "memory", "storage", "gpu"});
  std::ostringstream text;
  print_report(text, p, req, all, 100);
  const std::string s = text.str();
  CHECK_THAT(s, Catch::Contains("\nCPU\n") && Catch::Contains("\nMemory\n") && Catch::Contains("\nStorage\n") &&
                    Catch::Contains("\nGPU\n") && Catch::Contains("  fail  layer directory") &&
                    Catch::Contains("summary: ") && Catch::Contains("exit status 2"));
  std::istringstream lines(s);
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(line.size() <= 100);
  }
}

TEST_CASE("poreplab doctor on this machine: a table in seconds, findings not crashes", "[doctor][cli]") {
  temp_dir dir("doctor-cli");
  const std::string common = " --parent-cache " + test::shell_quote((dir / "cache").string()) + " --disk-seconds 0.3";
  {
    const auto r = test::run_poreplab("doctor --for 2KiB --layer-dir " + test::shell_quote(dir.path.string()) + common +
                                          " --json",
                                      dir);
    INFO(r.out << r.err);
    CHECK((r.status == 0 || r.status == 1 || r.status == 2));
    nlohmann::json j;
    REQUIRE_NOTHROW(j = nlohmann::json::parse(r.out));
    CHECK(j["exit_status"] == r.status);
    std::set<std::string> ids;
    for (const auto& c : j["checks"]) ids.insert(c["id"].get<std::string>());
    for (const char* id : {"cpu.sha", "cpu.cores", "memory.ram", "storage.parent_cache", "storage.layer_dir",
                           "storage.disk_speed", "gpu.driver"})
      CHECK(ids.count(id) == 1);
    for (const auto& c : j["checks"])
      if (c["id"] == "storage.disk_speed") CHECK(c["status"] != "skip");
    // The disk test left nothing in the layer directory (the cache was never created).
    CHECK(fs::is_empty(dir.path));
  }
  {
    const auto r = test::run_poreplab("doctor --for 32GiB --layer-dir " + test::shell_quote((dir / "missing").string()) +
                                          common,
                                      dir);
    INFO(r.out << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.out, Catch::Contains("fail  layer directory") && Catch::Contains("does not exist"));
    CHECK(r.err.empty());
  }
  {
    const auto r = test::run_poreplab("doctor --for 3KiB", dir);
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("--for 3KiB") && Catch::Contains("power of two"));
  }
}

TEST_CASE("poreplab doctor interrupted during its disk test leaves the layer directory empty", "[doctor][cli]") {
  temp_dir dir("doctor-int");
  const fs::path layers = dir / "layers";
  fs::create_directories(layers);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    ::execl(POREPLAB_BINARY, POREPLAB_BINARY, "doctor", "--for", "2KiB", "--layer-dir", layers.c_str(), "--parent-cache",
            (dir / "cache").c_str(), "--disk-seconds", "20", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  REQUIRE(pid > 0);
  // The test file never has a name in the directory, while it runs or after.
  bool empty_throughout = true;
  for (int i = 0; i < 100; ++i) {
    empty_throughout = empty_throughout && fs::is_empty(layers);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  CHECK(empty_throughout);
  CHECK(fs::is_empty(layers));
  CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGINT));
}
