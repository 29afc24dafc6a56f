#pragma once
// Reference datasets: GPU measurements the project committed (docs/results of a checkout,
// share/poreplab/reference of an install), shown beside a machine's own figures where it has
// no GPU. Only their GPU records are read: a reference never feeds this machine's CPU rows.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "records/result_set.hpp"
#include "report/machines.hpp"

namespace poreplab::verdict {

// What the verdict shows beside this machine's own figures where they fall short: datasets
// measured elsewhere, read for their GPU records where no GPU was measured here; machine
// files, sized at 32GiB and 64GiB with this machine's per-core rate where it seals no batch
// itself.
struct reference_inputs {
  std::vector<std::filesystem::path> datasets;
  std::vector<machine> machines;
};

// The datasets `--reference` names: "none" alone, or dataset directories. nullopt: the
// shipped ones (shipped_reference_datasets). Throws std::invalid_argument for "none" among
// directories.
std::optional<std::vector<std::filesystem::path>> parse_reference_flag(const std::vector<std::string>& values);

// Every dataset directory under the shipped root (a checkout's docs/results, an install's
// share/poreplab/reference; empty when neither is found), sorted by name.
std::vector<std::filesystem::path> shipped_reference_datasets();

// `choice` with no machine, or, when it is nullopt, the shipped datasets and the shipped
// machine files (machines/*.json of the share directory; one that does not load is a
// warning on stderr and left out).
reference_inputs reference_inputs_for(const std::optional<std::vector<std::filesystem::path>>& choice);

// The GPU records of the datasets (every records.jsonl at most three folders down), each
// point's `where` naming its dataset; the datasets that hold one, and a one-line warning for
// each dataset that is missing, unreadable or corrupt (never an exception).
struct reference_records {
  records::result_set set;
  std::vector<std::string> dataset;  // per record of set: the dataset_label of its dataset
  std::vector<std::string> warnings;
};
reference_records load_reference_records(const std::vector<std::filesystem::path>& datasets);

// How a dataset directory is named in reports: relative to the working directory when below
// it (docs/results/NAME from a checkout), else as given.
std::string dataset_label(const std::filesystem::path& dataset);

}  // namespace poreplab::verdict
