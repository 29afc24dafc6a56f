#pragma once
// `poreplab plan`: the sealing planner. For a sector size and a machine (the one the
// results were measured on, or a machine file): the PC1 batch and where its layers live,
// hashing and other cores, RAM and 1 GiB huge pages, layer-disk capacity, IOPS, PC1 and PC2
// time per batch, sectors per hour and per day, and the binding constraint. Every figure
// says whether it is measured, extrapolated, quoted or MODELED (model/storage_model.hpp).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/storage_model.hpp"
#include "report/machines.hpp"
#include "report/storage.hpp"
#include "util/figure.hpp"

namespace poreplab::verdict {

inline constexpr const char* kPlanSchema = "poreplab-plan/1";

struct plan_item {
  std::string item;   // "hashing cores"
  std::string text;   // "16 of 32, 4 sectors each"
  figure value;       // the number behind it, with its source
};

struct machine_plan {
  std::string machine, file;  // file: "" for the machine the results ran on
  storage_model::plan pc1;
  std::optional<storage_model::plan> gpu_pc1;  // PC1 on its GPUs instead
  figure sectors_per_hour;                     // PC1 then PC2
  std::string bottleneck;                      // "PC1" | "PC2"
  std::string pc1_alone;                       // why sectors per hour are PC1's alone ("" when PC2 is sized)
  std::string binding;                         // the constraint that sets sectors per hour
  std::vector<plan_item> items;
};

struct plan_report {
  std::string proof;
  std::uint64_t sector_size = 0;
  std::uint32_t layers = 0;
  std::vector<std::string> dirs;
  std::vector<machine_plan> machines;
};

// Thrown for what the planner cannot size: no usable record of this machine, a machine
// file without a hashing rate when the results have none either.
struct plan_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `machines` empty: the machine the results' CPU records ran on; `rates`: the hashing rate
// that sizes a machine file (machine_hash_rate).
plan_report make_plan(const std::string& proof, const std::vector<std::filesystem::path>& dirs,
                      const std::vector<machine>& machines, rate_source rates = rate_source::measured);

std::string plan_markdown(const plan_report& r);
nlohmann::json plan_json(const plan_report& r);

}  // namespace poreplab::verdict
