#pragma once
// The 2019 Supranational PoRep report's tables beside this machine's regeneration: the
// cumulative optimisation steps (c/B per step, ZigZag/BLAKE2s and SDR/SHA-256), the
// hardware compute table with measured single-stream rows added (a "no SHA-NI" column
// included), its Amax table reproduced from the quoted rows, and the padding-precompute
// A/B beside the Merkle document's ~40%. Quoted figures come from
// experiments/data/report-2019.json; measured ones from result records.
//
// Record conventions (experiments/configs/report-2019.json):
//   label points of experiment "step-<id>-<scheme>" (scheme zigzag-blake2s | sdr-sha256,
//   id one of the data file's summary steps): rates.cycles_per_byte;
//   hash points in mode chain: single-stream GB/s = block_bytes / lane_ns_per_block;
//   tree_d points with axis pad_precompute 0/1: ns_per_node per engine.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "report/amax.hpp"

namespace poreplab::report2019 {

inline constexpr const char* kDataSchema = "poreplab-report-2019/1";

// data/report-2019.json of share_dir(), beside amax::default_custom_hardware_file().
std::filesystem::path default_data_file();
// Throws std::invalid_argument "<source>: <pointer>: <problem>" for a malformed file.
nlohmann::json parse_data(const std::string& text, const std::string& source);
nlohmann::json load_data(const std::filesystem::path& file);  // + std::runtime_error when unreadable

// Every section; the measured columns say "not measured" where the records lack them.
std::string markdown(const nlohmann::json& data, const records::result_set& in);
// Only the compute table and Amax (for `report amax --report-2019`).
std::string amax_markdown(const nlohmann::json& data, const records::result_set& in);

// DIR/report-2019.md for the runner's "reports": ["report-2019"]; false after a warning.
bool write_report_file(const std::filesystem::path& dir);

}  // namespace poreplab::report2019
