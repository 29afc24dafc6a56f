#pragma once
// Random 4 KiB page reads per node of S sectors labeled together with their layers on
// disk, for node caches of C nodes, counted on sampled runs of the real graph
// (sdr/parent_reads.hpp). Shared by `poreplab bench reads` and the runner's `reads` kind.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "poreplab/sdr/parent_reads.hpp"

namespace poreplab {

struct reads_options {
  std::uint64_t sector_size = 32ull << 30;
  std::vector<std::uint32_t> sectors = {1};
  std::vector<std::uint64_t> cache_nodes = {0};
  std::uint32_t layers = 11;
  sdr::read_sample_plan plan;
  std::uint64_t check_nodes = 1024;  // of run 0, recounted by the reference
};

struct reads_row {
  sdr::read_geometry geometry;
  sdr::reads_estimate estimate;
  double reads_per_label() const { return estimate.mean() / geometry.sectors; }
};

struct reads_result {
  reads_options options;
  std::string graph;       // "registered StackedDrg32GiBV1_1"
  std::string sample;      // parent_row_sample::describe()
  std::string check;       // "" when the reference recount agreed, else the difference
  std::uint64_t checked_nodes = 0;
  std::uint64_t nodes = 0;
  double seconds = 0;      // drawing the sample and counting
  std::vector<reads_row> rows;  // sectors-major, then cache sizes
};

// std::invalid_argument for bad options (a size that is no power of two of at least 64
// bytes, a geometry out of range, a sample over its limit).
reads_result count_reads(const reads_options& opt);

nlohmann::json reads_row_json(const reads_row& r);
nlohmann::json reads_json(const reads_result& r);
// A Markdown table with a header line saying what was counted and how.
std::string reads_markdown(const reads_result& r);

}  // namespace poreplab
