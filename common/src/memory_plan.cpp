#include "poreplab/cuda/memory_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace poreplab::cuda {

namespace {

constexpr std::uint64_t kParentRowBytes = 14 * 4;
constexpr std::uint64_t kIdBytes = 32;

// Device bytes of S sectors of `sector_bytes` with the table resident.
std::uint64_t resident_need(std::uint64_t sector_bytes, std::uint64_t sectors, std::uint64_t rows_per_node) {
  return 2 * sectors * sector_bytes + sector_bytes / 32 * rows_per_node * kParentRowBytes + sectors * kIdBytes;
}

// Device bytes with the table streamed in the smallest chunks allowed.
std::uint64_t streamed_floor(std::uint64_t sector_bytes, std::uint64_t sectors) {
  const std::uint64_t chunk = std::min(sector_bytes / 32, kMinChunkNodes);
  return 2 * sectors * sector_bytes + 2 * chunk * kParentRowBytes + sectors * kIdBytes;
}

std::string plural(std::uint64_t n, const char* one) {
  return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  std::uint64_t whole = bytes;
  while (whole >= 1024 && u < 4) {
    whole /= 1024;
    ++u;
  }
  const std::uint64_t unit = 1ull << (10 * u);
  char buf[48];
  if (bytes % unit == 0)
    std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(bytes / unit), units[u]);
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", static_cast<double>(bytes) / static_cast<double>(unit), units[u]);
  return buf;
}

memory_plan plan_memory(const memory_request& req) {
  const std::uint64_t n = req.sector_bytes;
  if (n < 64 || (n & (n - 1)) != 0)
    throw std::invalid_argument("memory plan: sector size " + std::to_string(n) + " is not a power of two >= 64");
  if (req.sectors == 0) throw std::invalid_argument("memory plan: zero sectors");
  const std::uint64_t s = req.sectors;

  memory_plan p;
  p.nodes = n / 32;
  p.layer_bytes = s * n;
  const std::uint64_t rows_per_node = std::max<std::uint32_t>(1, req.table_rows_per_node);
  p.parent_table_bytes = p.nodes * rows_per_node * kParentRowBytes;
  p.replica_id_bytes = s * kIdBytes;
  p.resident_bytes = resident_need(n, s, rows_per_node);
  p.host_store_bytes = std::uint64_t{req.layers} * p.layer_bytes;
  p.available_bytes = req.free_bytes > req.reserve_bytes ? req.free_bytes - req.reserve_bytes : 0;
  const std::uint64_t avail = p.available_bytes;

  // Most sectors for this size: each sector adds two layers and an id.
  const std::uint64_t per_sector = 2 * n + kIdBytes;
  auto most = [&](std::uint64_t fixed) -> std::uint32_t {
    if (avail <= fixed) return 0;
    return static_cast<std::uint32_t>(std::min<std::uint64_t>((avail - fixed) / per_sector, 0xffffffffu));
  };
  p.max_resident_sectors = most(p.parent_table_bytes);
  p.max_sectors = std::max(p.max_resident_sectors, most(2 * std::min(p.nodes, kMinChunkNodes) * kParentRowBytes));
  for (std::uint64_t size = 64; size <= (1ull << 40); size *= 2)
    if (streamed_floor(size, s) <= avail || resident_need(size, s, rows_per_node) <= avail) p.max_sector_bytes = size;

  const std::string what = plural(s, "sector") + " of " + format_bytes(n);
  const std::uint64_t forced_chunk = req.chunk_nodes < p.nodes ? req.chunk_nodes : 0;
  if (forced_chunk == 0 && p.resident_bytes <= avail) {
    p.parents = parent_placement::resident;
    p.device_bytes = p.resident_bytes;
    p.message = what + ": " + format_bytes(p.device_bytes) + " of device memory, parent table resident (" +
                format_bytes(avail) + " available)";
    return p;
  }

  const std::uint64_t base = 2 * p.layer_bytes + p.replica_id_bytes;
  std::uint64_t chunk = 0;
  if (forced_chunk != 0) {
    chunk = forced_chunk;
  } else if (avail > base) {
    chunk = std::min({(avail - base) / (2 * kParentRowBytes), kMaxChunkNodes, p.nodes});
    if (chunk < std::min(p.nodes, kMinChunkNodes)) chunk = 0;
  }
  if (chunk != 0 && base + 2 * chunk * kParentRowBytes <= avail) {
    p.parents = parent_placement::streamed;
    p.chunk_nodes = chunk;
    p.chunk_bytes = chunk * kParentRowBytes;
    p.device_bytes = base + 2 * p.chunk_bytes;
    p.pinned_host_bytes = 2 * p.chunk_bytes;
    p.message = what + ": " + format_bytes(p.device_bytes) + " of device memory, parent table (" +
                format_bytes(p.parent_table_bytes) + ") streamed in chunks of " + std::to_string(chunk) + " nodes (" +
                format_bytes(avail) + " available)";
    return p;
  }

  p.parents = parent_placement::refused;
  p.message = what + " need " + format_bytes(streamed_floor(n, s)) + " of device memory (two layers of " +
              format_bytes(p.layer_bytes) + " each, parent table streamed) but " + format_bytes(avail) +
              " is available (" + format_bytes(req.free_bytes) + " free, " + format_bytes(req.reserve_bytes) +
              " reserved); ";
  if (p.max_sectors > 0)
    p.message += "at most " + plural(p.max_sectors, "sector") + " of " + format_bytes(n) + " fit";
  else
    p.message += "not even one sector of " + format_bytes(n) + " fits";
  if (p.max_sector_bytes != 0)
    p.message += "; " + plural(s, "sector") + (s == 1 ? " fits" : " fit") + " at up to " +
                 format_bytes(p.max_sector_bytes) + (s == 1 ? "" : " each");
  return p;
}

std::uint64_t launch_nodes_for(std::uint64_t sectors, std::uint64_t thread_slots) {
  if (thread_slots == 0) thread_slots = 1;
  const std::uint64_t waves = sectors == 0 ? 1 : (sectors + thread_slots - 1) / thread_slots;
  const std::uint64_t n = kLaunchNodeSteps / waves;
  return n < kMinLaunchNodes ? kMinLaunchNodes : n;
}

}  // namespace poreplab::cuda
