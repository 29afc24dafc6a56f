#pragma once
// One check before any allocation that grows with the input (sector size, sector count,
// node count read from a file): refuse up front, with the figures, instead of letting
// the allocation fail half-way or the kernel's OOM killer end the process.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace poreplab {

// Bytes a new allocation can get now without swapping (MemAvailable in /proc/meminfo),
// 0 when unknown. POREPLAB_MEM_AVAILABLE (bytes) overrides it, for tests.
std::uint64_t available_memory_bytes();

// The memory limit of this process's cgroup (v1 memory.limit_in_bytes or v2 memory.max),
// 0 when there is none or it cannot be read. MemAvailable does not see it: inside a
// 3 GiB cgroup on a 24 GiB machine it still says about 24 GiB.
std::uint64_t cgroup_memory_limit_bytes();
// The same with /proc and /sys read below `root` ("" or "/": the machine's own).
std::uint64_t cgroup_memory_limit_bytes(const std::string& root);

// What a new allocation may take: available_memory_bytes(), capped by the cgroup's
// limit; 0 when unknown.
std::uint64_t memory_budget_bytes();

// Empty when `need` bytes fit in the memory available now (or that is unknown), else
// "needs 2.0 GiB (2147483648 bytes), 1.5 GiB available (MemAvailable)".
std::string memory_shortfall_text(std::uint64_t need);

// Refusal of an allocation that does not fit.
struct insufficient_memory : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws insufficient_memory "<what>: needs X, Y available (MemAvailable)" when `need`
// bytes do not fit.
void require_memory(std::uint64_t need, std::string_view what);

// "1.5 GiB", "512.0 MiB", "2.0 KiB", "100 bytes"
std::string byte_size_text(std::uint64_t bytes);

}  // namespace poreplab
