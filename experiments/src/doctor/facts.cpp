#include "doctor/facts.hpp"

#include <omp.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/floor.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/cpu/latency.hpp"
#include "poreplab/cpu/tune.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/memory_check.hpp"
#include "records/environment.hpp"
#ifdef POREPLAB_WITH_CUDA
#include "poreplab/cuda/devices.hpp"
#endif

namespace poreplab::doctor {

namespace fs = std::filesystem;

namespace {

// root / an absolute path ("/proc/meminfo" under "/tmp/fixture" is "/tmp/fixture/proc/meminfo").
fs::path under(const fs::path& root, const fs::path& p) { return root / p.relative_path(); }

// The file's first line, "" when it cannot be read.
std::string first_line(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line;
}

std::optional<std::uint64_t> to_u64(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  return v;
}

std::uint64_t u64_file(const fs::path& p) { return to_u64(first_line(p)).value_or(0); }

// The selected word of a sysfs choice such as "always [madvise] never".
std::string selected_word(const std::string& line) {
  const auto a = line.find('['), b = line.find(']');
  if (a == std::string::npos || b == std::string::npos || b < a) return line;
  return line.substr(a + 1, b - a - 1);
}

// KiB fields of /proc/meminfo, in bytes.
std::uint64_t kib_field(const std::string& line, std::string_view key) {
  if (line.rfind(key, 0) != 0) return 0;
  const auto v = to_u64(std::string_view(line).substr(key.size()));
  return v ? *v * 1024 : 0;
}

// The soft limit of one row of /proc/self/limits: a number, "unlimited", or none.
std::optional<std::uint64_t> soft_limit(const fs::path& file, std::string_view row) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(row, 0) != 0) continue;
    std::istringstream words(line.substr(row.size()));
    std::string soft;
    words >> soft;
    if (soft == "unlimited") return kUnlimited;
    return to_u64(soft);
  }
  return std::nullopt;
}

// mountinfo writes a space in a path as \040 (and tab, newline, backslash likewise).
std::string unescape_mount_path(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool is_within(const fs::path& dir, const fs::path& mount_point) {
  auto d = dir.begin();
  for (auto m = mount_point.begin(); m != mount_point.end(); ++m, ++d) {
    if (m->empty()) continue;  // a trailing separator
    if (d == dir.end() || *d != *m) return false;
  }
  return true;
}

std::uint64_t largest_cache(const cpu::features& f) {
  std::uint64_t best = 0;
  for (const auto& c : f.caches)
    if (c.type != "instruction") best = std::max(best, c.bytes);
  return best;
}

// The labeling floor of the planned sectors on one engine: ns per node of all sectors.
double floor_ns_per_node(const std::string& name, const seal_plan& plan, int threads) {
  // Nodes per sector: the floor repeats short chains to a measurable length, and many
  // sectors get shorter ones so that one pass over them stays short.
  const std::uint64_t chain = std::clamp<std::uint64_t>(8192 / plan.sectors, 16, 2048);
  cpu::floor_repeats repeats;
  repeats.reuse = true;
  repeats.layer1_share = 1.0 / plan.layers;
  const cpu::engine& e = cpu::find_engine(hash_family::sha256, name);
  // The fastest of a few: other work only ever slows a sample down.
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i)
    best = std::min(best, cpu::measure_floor_seconds(e, sdr::kFilecoinScheme, plan.sectors, chain, threads, repeats));
  return best * 1e9 / static_cast<double>(chain);
}

void measure_engines(cpu_facts& c, const seal_plan& plan) {
  const cpu::engine_tuning& t = cpu::current_tuning();
  c.tune_source = t.source;
  for (const cpu::engine* e : cpu::available_engines(hash_family::sha256)) {
    const cpu::engine_rate* r = t.find(hash_family::sha256, e->name);
    if (r == nullptr) continue;
    c.engines.push_back({std::string(e->name), e->lanes, e->uses_sha_ni(), r->ns_per_lane_block, 0});
  }
  for (const cpu::engine& e : cpu::compiled_engines(hash_family::sha256))
    if (!e.available()) c.unavailable_engines.push_back({std::string(e.name), e.lanes, std::string(e.required)});
  c.auto_engine = std::string(cpu::pick_label_engine(plan.sectors, c.label_threads).name);
  // Floors of what the checks compare: auto's engine, and the fastest with and without SHA-NI.
  std::vector<std::string> timed = {c.auto_engine};
  for (const bool sha : {true, false})
    if (const engine_facts* best = fastest_engine(c.engines, sha, plan.sectors, static_cast<std::size_t>(c.label_threads)))
      timed.push_back(best->name);
  for (auto& e : c.engines)
    if (std::find(timed.begin(), timed.end(), e.name) != timed.end())
      e.floor_ns_per_node = floor_ns_per_node(e.name, plan, c.label_threads);
  // After the floors: the core has been busy long enough to be at its working clock.
  c.core_hz = cpu::measure_core_hz();
}

parent_cache_facts read_parent_cache(const fs::path& root, const request& req, const seal_plan& plan,
                                     std::uint64_t samples) {
  parent_cache_facts p;
  p.dir = req.parent_cache_dir.empty() ? graph::default_parent_cache_dir() : req.parent_cache_dir;
  p.file = graph::parent_cache_path(p.dir, plan.graph);
  p.expected_bytes = plan.memory.parent_table_bytes;
  p.space = read_dir_facts(root, p.dir);
  std::error_code ec;
  // Seal's own check of the path: what it refuses is a failure here too.
  try {
    p.present = graph::parent_cache_present(p.dir, plan.graph);
  } catch (const std::exception& e) {
    p.path_error = e.what();
    return p;
  }
  if (!p.present) return p;
  p.bytes = fs::file_size(p.file, ec);
  p.sidecar = fs::exists(graph::parent_cache_sidecar_path(p.file), ec);
  if (samples == 0 || p.bytes != p.expected_bytes) return p;
  try {
    const graph::parent_table t = graph::parent_table::map_file(p.file, plan.nodes);
    p.rows_checked = graph::check_sampled_rows(plan.graph, t, p.file, samples);
  } catch (const std::exception& e) {
    p.check_error = e.what();
  }
  return p;
}

}  // namespace

std::uint64_t memory_facts::budget() const {
  if (available_bytes == 0) return cgroup_limit_bytes;
  return cgroup_limit_bytes != 0 ? std::min(available_bytes, cgroup_limit_bytes) : available_bytes;
}

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> out;
  std::istringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (part.empty()) continue;
    const auto dash = part.find('-');
    const auto a = to_u64(part.substr(0, dash));
    const auto b = dash == std::string::npos ? a : to_u64(part.substr(dash + 1));
    if (!a || !b || *b < *a || *b > 65535) return {};
    for (std::uint64_t c = *a; c <= *b; ++c) out.push_back(static_cast<int>(c));
  }
  return out;
}

memory_facts read_memory_facts(const fs::path& root) {
  memory_facts m;
  std::ifstream in(under(root, "/proc/meminfo"));
  std::string line;
  while (std::getline(in, line)) {
    m.total_bytes += kib_field(line, "MemTotal:");
    m.available_bytes += kib_field(line, "MemAvailable:");
    m.swap_total_bytes += kib_field(line, "SwapTotal:");
    m.swap_free_bytes += kib_field(line, "SwapFree:");
  }
  m.cgroup_limit_bytes = cgroup_memory_limit_bytes(root.string());
  const fs::path thp = under(root, "/sys/kernel/mm/transparent_hugepage");
  m.thp_enabled = selected_word(first_line(thp / "enabled"));
  m.thp_defrag = selected_word(first_line(thp / "defrag"));
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(under(root, "/sys/kernel/mm/hugepages"), ec)) {
    const std::string name = e.path().filename().string();  // hugepages-2048kB
    const auto kib = name.rfind("hugepages-", 0) == 0 ? to_u64(std::string_view(name).substr(10)) : std::nullopt;
    if (!kib) continue;
    m.hugepages.push_back({*kib * 1024, u64_file(e.path() / "nr_hugepages"), u64_file(e.path() / "free_hugepages")});
  }
  std::sort(m.hugepages.begin(), m.hugepages.end(),
            [](const hugepage_pool& a, const hugepage_pool& b) { return a.page_bytes < b.page_bytes; });
  m.memlock_bytes = soft_limit(under(root, "/proc/self/limits"), "Max locked memory");
  return m;
}

cpufreq_facts read_cpufreq_facts(const fs::path& root) {
  cpufreq_facts f;
  const fs::path cpu = under(root, "/sys/devices/system/cpu");
  const fs::path dir = cpu / "cpu0" / "cpufreq";
  std::error_code ec;
  f.present = fs::is_directory(dir, ec);
  if (!f.present) return f;
  f.driver = first_line(dir / "scaling_driver");
  f.governor = first_line(dir / "scaling_governor");
  f.cur_khz = u64_file(dir / "scaling_cur_freq");
  f.max_khz = u64_file(dir / "cpuinfo_max_freq");
  if (const std::string b = first_line(cpu / "cpufreq" / "boost"); !b.empty())
    f.boost = b == "1";
  else if (const std::string t = first_line(cpu / "intel_pstate" / "no_turbo"); !t.empty())
    f.boost = t == "0";
  return f;
}

std::vector<std::vector<int>> read_numa_nodes(const fs::path& root) {
  std::vector<std::pair<int, std::vector<int>>> nodes;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(under(root, "/sys/devices/system/node"), ec)) {
    const std::string name = e.path().filename().string();
    const auto n = name.rfind("node", 0) == 0 ? to_u64(std::string_view(name).substr(4)) : std::nullopt;
    if (n && name.find_first_not_of("0123456789", 4) == std::string::npos)
      nodes.emplace_back(static_cast<int>(*n), parse_cpu_list(first_line(e.path() / "cpulist")));
  }
  std::sort(nodes.begin(), nodes.end());
  std::vector<std::vector<int>> out;
  for (auto& n : nodes) out.push_back(std::move(n.second));
  return out;
}

std::string mount_type(const fs::path& root, const fs::path& dir) {
  std::ifstream in(under(root, "/proc/self/mountinfo"));
  std::string line, best_type;
  std::size_t best_depth = 0;
  bool found = false;
  while (std::getline(in, line)) {
    // "36 35 98:0 /root /mnt rw,noatime master:1 - ext4 /dev/sda1 rw": the mount point is
    // the fifth field, the type the first after " - ".
    std::istringstream words(line);
    std::string id, parent, devno, source_root, mount_point;
    if (!(words >> id >> parent >> devno >> source_root >> mount_point)) continue;
    const auto sep = line.find(" - ");
    if (sep == std::string::npos) continue;
    std::istringstream rest(line.substr(sep + 3));
    std::string type;
    if (!(rest >> type)) continue;
    const fs::path mp = unescape_mount_path(mount_point);
    const auto depth = static_cast<std::size_t>(std::distance(mp.begin(), mp.end()));
    if (is_within(dir, mp) && (!found || depth >= best_depth)) {
      found = true;
      best_depth = depth;
      best_type = type;
    }
  }
  return best_type;
}

dir_facts read_dir_facts(const fs::path& root, const fs::path& dir) {
  dir_facts d;
  d.path = dir;
  std::error_code ec;
  const fs::path abs = fs::absolute(dir, ec);
  d.exists = fs::exists(abs, ec);
  d.is_dir = fs::is_directory(abs, ec);
  d.writable = d.is_dir && ::access(abs.c_str(), W_OK | X_OK) == 0;
  // Free space and filesystem of the directory, or of where it would be created.
  fs::path probe = abs;
  while (!fs::is_directory(probe, ec) && probe.has_relative_path()) probe = probe.parent_path();
  d.probed = fs::weakly_canonical(probe, ec);
  if (ec) d.probed = probe;
  struct statvfs st {};
  if (::statvfs(d.probed.c_str(), &st) == 0) {
    d.free_bytes = static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
    d.total_bytes = static_cast<std::uint64_t>(st.f_blocks) * st.f_frsize;
    d.read_only = (st.f_flag & ST_RDONLY) != 0;
  }
  d.fs_type = mount_type(root, d.probed);
  return d;
}

gpu_facts this_build_gpu_facts() {
  gpu_facts g;
#ifdef POREPLAB_WITH_CUDA
  const cuda::device_report r = cuda::query_devices();
  const cuda::build_archs archs = cuda::compiled_archs();
  g.compiled = true;
  g.available = r.available;
  g.reason = r.reason;
  g.driver_version = r.driver_version;
  g.runtime_version = r.runtime_version;
  g.sass_archs = archs.sass;
  g.ptx_archs = archs.ptx;
  for (const auto& d : r.devices)
    g.devices.push_back({d.index, d.name, d.sm_major, d.sm_minor, d.multiprocessors, d.total_memory, d.unsupported,
                         cuda::runs_sass(d.sm_major, d.sm_minor, archs)});
#else
  g.reason = kNoCudaBuild;
#endif
  return g;
}

const engine_facts* fastest_engine(const std::vector<engine_facts>& engines, bool sha_ni, std::size_t sectors,
                                   std::size_t threads) {
  const engine_facts* best = nullptr;
  double best_ns = std::numeric_limits<double>::infinity();
  for (const auto& e : engines) {
    if (e.sha_ni != sha_ni || (sectors <= 1 && e.lanes != 1)) continue;
    const double ns = cpu::chains_step_ns(e.ns_per_lane_block, e.lanes, std::max<std::size_t>(sectors, 1), threads);
    if (ns < best_ns) best = &e, best_ns = ns;
  }
  return best;
}

system_facts gather_facts(const request& req, const seal_plan& plan, const fact_source& src) {
  system_facts f;
  const fs::path& root = src.root;
  cpu_facts& c = f.cpu;
  c.features = src.features ? *src.features : cpu::detect();
  c.topology = src.topology ? *src.topology : cpu::topology();
  c.allowed = src.allowed ? *src.allowed : cpu::affinity_cpus();
  c.numa_nodes = read_numa_nodes(root);
  c.smt_control = first_line(under(root, "/sys/devices/system/cpu/smt/control"));
  c.llc_bytes = src.features ? largest_cache(c.features) : cpu::last_level_cache_bytes();
  c.label_threads = std::max(1, omp_get_max_threads());
  // Before anything here runs: the load of the machine's other work.
  std::istringstream load(first_line(under(root, "/proc/loadavg")));
  if (double one = 0; load >> one) c.load_average = one;
  c.freq = read_cpufreq_facts(root);
  f.memory = read_memory_facts(root);
  f.gpu = src.gpu ? *src.gpu : this_build_gpu_facts();
  if (src.measure) {
    c.tsc_hz = cpu::tsc_hz();
    measure_engines(c, plan);
  }
  f.parent_cache = read_parent_cache(root, req, plan, src.parent_cache_samples);
  if (req.layer_dir) {
    f.layer_dir = read_dir_facts(root, *req.layer_dir);
    const dir_facts& d = *f.layer_dir;
    if (src.measure && req.disk_seconds > 0 && d.is_dir && d.writable)
      f.disk = measure_disk(d.path, req.disk_seconds, d.free_bytes);
  }
  return f;
}

}  // namespace poreplab::doctor
