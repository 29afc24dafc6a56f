#pragma once
// Target machines for the verdict (`report verdict --machine FILE`): a JSON description of
// a machine one might buy or rent (CPU cores, RAM, GPUs by architecture, count and memory,
// optionally its price and power draw), which the verdict sizes from the rates a run
// measured (extrapolated) or the GPU latency model (MODELED).
//
// Schema "poreplab-machine/1":
//   {"schema": "poreplab-machine/1", "name": "...", "description": "...",
//    "cpu": {"cores": 64, "threads": 128, "model": "..."}, "ram": "1TiB",
//    "gpus": [{"arch": "sm_90", "name": "H100 SXM 80GB", "count": 8, "memory": "80GiB"}],
//    "price_usd": 250000, "power_watts": 6500, "source": "where the figures come from"}
// "cpu" and "ram" are required, the rest optional; sizes are "80GiB" or byte counts.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace poreplab::verdict {

inline constexpr const char* kMachineSchema = "poreplab-machine/1";

struct machine_gpu {
  std::string arch;  // an architecture of the GPU latency table: "sm_80", "sm_90"
  std::string name;
  std::uint32_t count = 1;
  double memory_bytes = 0;  // each
};

struct machine {
  std::string file;  // where it was read from
  std::string name, description, source;
  std::string cpu_model;  // may be empty
  std::uint32_t cores = 0, threads = 0;
  double ram_bytes = 0;
  std::vector<machine_gpu> gpus;
  std::optional<double> price_usd, power_watts;
};

// Thrown for a file that is not a valid machine description: "<file>: <JSON pointer>: <problem>".
struct machine_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Reads and checks one machine file. A GPU whose architecture has no entry in the GPU
// latency table is refused by name.
machine load_machine(const std::filesystem::path& file);

}  // namespace poreplab::verdict
