#include "poreplab/memory_check.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace poreplab {

std::uint64_t available_memory_bytes() {
  if (const char* env = std::getenv("POREPLAB_MEM_AVAILABLE"); env != nullptr && *env != '\0') {
    std::uint64_t v = 0;
    const char* end = env + std::strlen(env);
    if (auto [p, ec] = std::from_chars(env, end, v); ec == std::errc() && p == end) return v;
  }
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    const char* p = line.c_str() + 13;
    while (*p == ' ') ++p;
    std::uint64_t kib = 0;
    if (auto [q, ec] = std::from_chars(p, line.c_str() + line.size(), kib); ec != std::errc()) return 0;
    return kib > (UINT64_MAX >> 10) ? UINT64_MAX : kib << 10;
  }
  return 0;
}

namespace {

// The first line of `file` as a number of bytes; "max" (v2) and unreadable files give 0.
std::uint64_t read_limit_file(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  if (!std::getline(in, line)) return 0;
  std::uint64_t v = 0;
  if (auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), v); ec != std::errc()) return 0;
  return v;
}

}  // namespace

std::uint64_t cgroup_memory_limit_bytes() { return cgroup_memory_limit_bytes(std::string()); }

std::uint64_t cgroup_memory_limit_bytes(const std::string& root) {
  const std::string base = root == "/" ? std::string() : root;
  // Lines of /proc/self/cgroup are "id:controllers:path"; v1's memory controller names
  // "memory", v2's single hierarchy has id 0 and no controllers.
  std::ifstream in(base + "/proc/self/cgroup");
  std::string line;
  std::uint64_t limit = 0;
  while (std::getline(in, line)) {
    const auto a = line.find(':');
    const auto b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    const std::string path = line.substr(b + 1);
    std::uint64_t v = 0;
    if (controllers == "memory" || controllers.find("memory,") == 0 || controllers.find(",memory") != std::string::npos)
      v = read_limit_file(base + "/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes");
    else if (line.rfind("0::", 0) == 0)
      v = read_limit_file(base + "/sys/fs/cgroup" + path + "/memory.max");
    // v1 writes "no limit" as a page-rounded 2^63 - 1.
    if (v != 0 && v < (std::uint64_t{1} << 62) && (limit == 0 || v < limit)) limit = v;
  }
  return limit;
}

std::uint64_t memory_budget_bytes() {
  const std::uint64_t avail = available_memory_bytes();
  const std::uint64_t cg = cgroup_memory_limit_bytes();
  if (avail == 0) return cg;
  return cg != 0 && cg < avail ? cg : avail;
}

std::string byte_size_text(std::uint64_t bytes) {
  static const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double v = static_cast<double>(bytes) / 1024;
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

std::string memory_shortfall_text(std::uint64_t need) {
  const std::uint64_t avail = available_memory_bytes();
  if (avail == 0 || need <= avail) return {};
  return "needs " + byte_size_text(need) + " (" + std::to_string(need) + " bytes), " + byte_size_text(avail) +
         " available (MemAvailable)";
}

void require_memory(std::uint64_t need, std::string_view what) {
  if (auto m = memory_shortfall_text(need); !m.empty())
    throw insufficient_memory(std::string(what) + ": does not fit in memory: " + m);
}

}  // namespace poreplab
