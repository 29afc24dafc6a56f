#pragma once
// A result set: the latest record of each point of one or more result directories, each
// with the header of the run that measured it; of a `--repeat` run's passes that all
// measured the point, the pass whose median sample is the median of theirs. The one loader
// every report and the GPU model read records through.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "records/records.hpp"

namespace poreplab::records {

// One point record of a result directory, with the header of the run that measured it.
struct result_record {
  nlohmann::json point;
  nlohmann::json header;  // {} when the directory has none
  std::string where;      // "DIR/records.jsonl:LINE"
};

struct result_set {
  std::vector<std::string> dirs;
  std::vector<result_record> records;   // the latest (or median pass's) record of each point, every status
  std::vector<std::string> duplicates;  // points recorded ok twice (records_log::duplicates)
};

// Reads DIR/records.jsonl of each directory (read_records: every record validated).
// Throws std::invalid_argument for no directory; std::runtime_error for a missing
// directory, a directory without records.jsonl, or a malformed line or field (an
// incomplete last line is ignored, as after a crash).
// All the directories' records together must fit in memory at `per_byte`
// (require_records_memory) before the first is read.
result_set load_result_set(const std::vector<std::filesystem::path>& dirs, std::uint64_t per_byte = kReportMemoryPerByte);

}  // namespace poreplab::records
