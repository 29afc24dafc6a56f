#pragma once
// Target machines for the verdict (`report verdict --machine FILE`): a JSON description of
// a machine one might buy or rent (CPU cores, RAM, GPUs by architecture, count and memory,
// optionally its price and power draw), which the verdict sizes from the rates a run
// measured (extrapolated) or the GPU latency model (MODELED).
//
// Schema "poreplab-machine/1":
//   {"schema": "poreplab-machine/1", "name": "...", "description": "...",
//    "cpu": {"cores": 64, "threads": 128, "model": "...", "all_core_ghz": 3.8,
//            "clock_source": "...", "ccx_cores": 8, "microarchitecture": "zen4"},
//    "ram": "1TiB",
//    "disks": [{"count": 12, "model": "...", "random_read_iops": 850000, "capacity": "3.84TB",
//               "source": "..."}],
//    "gpus": [{"arch": "sm_90", "name": "H100 SXM 80GB", "count": 8, "memory": "80GiB",
//              "link": "pcie5x16"}],
//    "pc1_hashing": {"sectors_per_core": 4, "cycles_per_node": 4200, "one_sector_cycles_per_node": 2560,
//                    "source": "..."},
//    "pc1_record": {<axis::sector_size>: "32GiB", "sectors": 64, "seconds": 12600, "source": "..."},
//    "price_usd": 250000, "power_watts": 6500, "source": "where the figures come from"}
// "cpu" and "ram" are required, the rest optional; sizes are "80GiB", decimal "3.84TB" or
// byte counts. disks: the drives that would hold the layers (the storage model's IOPS and
// capacity); pc1_hashing: a published per-core hashing rate (quoted; the model uses it
// instead of this run's); pc1_record: a published PC1 result on this machine, to compare.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace poreplab::verdict {

inline constexpr const char* kMachineSchema = "poreplab-machine/1";

struct machine_gpu {
  std::string arch;  // an architecture of the GPU latency table: "sm_80", "sm_90"
  std::string name;
  std::uint32_t count = 1;
  double memory_bytes = 0;  // each
  std::string link;         // storage_model::links(); "" not given
};

struct machine_disk {
  std::uint32_t count = 1;
  std::string model;
  double random_read_iops = 0;  // each, 4 KiB
  double capacity_bytes = 0;    // each
  std::string source;
};

// A core advances `sectors_per_core` sectors by one node in `cycles_per_node` cycles.
struct machine_hashing {
  std::uint32_t sectors_per_core = 1;
  double cycles_per_node = 0;
  double one_sector_cycles_per_node = 0;  // 0: not given
  std::string source;
};

struct machine_record {
  std::uint64_t sector_size = 0;
  std::uint32_t sectors = 0;
  double seconds = 0;
  std::string source;
};

struct machine {
  std::string file;  // where it was read from
  std::string name, description, source;
  std::string cpu_model;  // may be empty
  std::uint32_t cores = 0, threads = 0;
  double all_core_hz = 0;  // 0: not given
  std::string clock_source, microarchitecture;
  std::uint32_t ccx_cores = 0;  // 0: not given
  double ram_bytes = 0;
  std::vector<machine_disk> disks;
  std::vector<machine_gpu> gpus;
  std::optional<machine_hashing> hashing;
  std::optional<machine_record> pc1_record;
  std::optional<double> price_usd, power_watts;
};

// Thrown for a file that is not a valid machine description: "<file>: <JSON pointer>: <problem>".
struct machine_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Reads and checks one machine file. A GPU whose architecture has no entry in the GPU
// latency table is refused by name.
machine load_machine(const std::filesystem::path& file);
// The same from the file's text (`source` names it in errors; the fuzz target's entry).
machine parse_machine(std::string_view text, const std::string& source);

}  // namespace poreplab::verdict
