#pragma once
// Amax: how much faster custom hardware could run one dependent chain of hash
// compressions (the PoRep labeling pattern) than the best off-the-shelf device measured
// here. Amax = custom single-stream GB/s / best off-the-shelf single-stream GB/s, per hash.
//
// Off-the-shelf figures come from experiment records (poreplab run / merge directories):
// `hash` records in mode chain (one dependent chain per lane; lane_ns_per_block is one
// chain's time per block), CPU and, where recorded, GPU (backend cuda), and `limits`
// records (measured single-stream core cycles per byte and the calibrated core clock).
// The best engine per hash and device is kept. Custom figures come from a data file
// (experiments/data/custom-hardware.json): cycles per block, block bytes and clock of
// published hardware designs, each quoted from a source, derived from another entry with a
// stated model, or assumed with a reason; where published, each design's architecture
// (iterative, unrolled, folded, pipelined), area and power.
// Every figure carries its provenance: measured (record FILE:LINE), quoted (SOURCE), derived
// (MODEL) or assumed (REASON); nothing quoted, derived or assumed is shown as measured.
//
// Per hash the report gives the Amax range: low = the fastest low-area core as published
// (iterative or folded), high = the core that finishes one block of one chain in the fewest
// ns (unrolled and pipelined cores count by their latency: a pipeline adds throughput for
// independent messages, not speed for one chain).
//
// Used by `poreplab report amax` (cmd_report.cpp) and by the runner for a config with
// "reports": ["amax"] (DIR/amax.md, DIR/amax.json).
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "records/result_set.hpp"
#include "util/figure.hpp"

namespace poreplab::amax {

inline constexpr std::string_view kCustomSchema = "poreplab-custom-hardware/1";
inline constexpr std::string_view kAmaxSchema = "poreplab-amax/1";

// The hashes of the table, in order: "sha256", "blake2s", "blake2b".
const std::vector<std::string>& hash_names();
// A hash name (also "blake2s-256", "blake2b-256", "blake2b-512") as one of hash_names(),
// or nullopt.
std::optional<std::string> canonical_hash(std::string_view name);
// Bytes per compression block: 64 (sha256, blake2s), 128 (blake2b).
std::size_t block_bytes_of(const std::string& hash);

// Where a figure comes from: "measured", "quoted" or "assumed" here (util/figure.hpp).
using provenance = poreplab::provenance;

// A design's datapath in the terms of the GMU FPGA benchmarking methodology document
// (Gaj, "FPGA Benchmarking for High-Speed and Medium-Speed Implementations"): `iterative`
// one round per cycle; `unrolled` factor k rounds per cycle; `folded` one round in factor
// cycles; `pipelined` factor stages, each working on another message.
struct architecture_spec {
  std::string type;              // "iterative", "unrolled", "folded", "pipelined"; "" when not given
  std::optional<double> factor;  // k or stages; always 1 for iterative
  std::string note;
  std::string text() const;      // "iterative", "unrolled x64", "folded /2", "pipelined, 64 stages", "-"
};

// A quoted, derived or assumed figure of a design (its area or its power).
struct sourced_figure {
  double value = 0;        // area in `unit`; power in watts
  std::string unit;        // area: "um2", "mm2", "GE", "LUT", "ALM", "LE", "slices"; power: "W"
  std::string technology;  // area: the process or FPGA family the count belongs to
  std::string source;
  figure_status status = figure_status::assumed;  // quoted, derived or assumed
  std::string note;
};

// How a derived entry follows from a published one: the base core's cycles on rounds are
// merged into cycles_per_block cycles, each `merged` (= base_round_cycles / cycles_per_block)
// base cycles long minus the register overhead the merge removes:
//   T = merged x (T_base - t_reg) + t_reg,  t_reg = register_overhead x T_base.
struct derivation_spec {
  std::size_t from = 0;               // index of the base entry
  std::string from_pointer;           // "/entries/N"
  double base_round_cycles = 0;       // the base core's cycles spent on rounds (its other cycles are overhead)
  double register_overhead = 0;       // t_reg as a fraction of the base period, in (0, 1)
  std::string text;                   // the model and its assumptions, in words
  std::string source;                 // where the model comes from
  figure_status basis_status = figure_status::quoted;  // the worst status among the base's figures
  std::string basis_reason;           // why, when the base is assumed
};

// One design of the custom-hardware data file.
struct custom_entry {
  std::string hash;    // canonical
  std::string kind;    // "fpga", "asic"
  std::string design;  // e.g. "secworks/sha256 (iterative, one round per cycle)"
  std::string device;  // the FPGA part or the ASIC process
  double cycles_per_block = 0;
  std::size_t block_bytes = 0;
  double clock_mhz = 0;
  std::optional<double> cost_usd;
  std::string source;  // URL / citation
  figure_status status = figure_status::assumed;  // quoted, derived or assumed: the design's figures as a whole
  std::string reason;  // why, when assumed
  figure_status clock_status = figure_status::assumed;  // quoted, derived or assumed (defaults to status)
  std::string clock_reason;  // why, when the clock is assumed
  std::string note;
  std::string where;  // "FILE: /entries/N"
  architecture_spec architecture;    // type "" when the file does not say
  std::optional<sourced_figure> area;
  std::optional<sourced_figure> power;
  std::optional<derivation_spec> derivation;  // exactly when status is "derived"
};

struct custom_data {
  std::string file;
  std::string note;  // the file's "note": what its figures are and are not
  std::vector<custom_entry> entries;
};

// Throws std::invalid_argument "<source>: <JSON pointer>: <problem>" for a malformed file,
// an unknown hash, kind or architecture, an area or power without its source, or a derived
// entry whose figures do not follow from its derivation; "<source>: parse error at ..." for
// bad JSON.
custom_data parse_custom_hardware(std::string_view text, const std::string& source);
// As parse_custom_hardware; std::runtime_error when the file cannot be read.
custom_data load_custom_hardware(const std::filesystem::path& file);
// data/custom-hardware.json of share_dir() (util/share_dir.hpp: $POREPLAB_SHARE_DIR, a
// checkout's experiments/ or an install's share/poreplab); std::runtime_error when none is found.
std::filesystem::path default_custom_hardware_file();


struct row {
  std::string hash;
  bool custom = false;   // false: off-the-shelf (measured here)
  std::string kind;      // "cpu", "gpu", "fpga", "asic"
  std::string device;
  std::string implementation;  // engine, or the custom design
  double cycles_per_byte = 0;  // clock cycles per byte of one chain
  double clock_hz = 0;
  double gb_per_s = 0;         // one chain, 1e9 bytes per second
  std::optional<double> cost_usd;
  std::string cost_source;     // "--cost", or the data file's source
  std::optional<double> usd_per_gb_per_s;
  std::optional<double> amax;  // custom rows: gb_per_s / best off-the-shelf gb_per_s
  bool best = false;           // the best off-the-shelf row of its hash
  provenance source;           // of gb_per_s (and cycles per block for custom rows)
  provenance clock_source;     // of clock_hz
  std::string note;
  // The design space (custom rows; off-the-shelf rows have none of these).
  architecture_spec architecture;
  double ns_per_block = 0;     // one block of one chain
  std::optional<sourced_figure> area;
  std::optional<double> gb_per_s_per_area;  // GB/s (1 stream) per area_per
  std::string area_per;                     // "mm2", "1000 LUT", ...: the row's own unit
  std::optional<sourced_figure> power;
  std::optional<double> gb_per_s_per_watt;
  std::optional<double> independent_gb_per_s;  // pipelined: stages x one chain, for independent messages
  figure_status status = figure_status::none;  // the worst of the speed's parts: measured, quoted, derived, assumed
};

// One end of a hash's Amax range.
struct range_end {
  std::string label;        // "DESIGN (KIND)"
  std::string architecture; // architecture_spec::text()
  double gb_per_s = 0;
  double ns_per_block = 0;
  std::optional<double> amax;
  figure_status status = figure_status::none;  // quoted, derived, assumed
};

struct hash_table {
  std::string hash;
  std::vector<row> rows;  // off-the-shelf first (fastest first), then custom (fastest first)
  std::optional<double> best_gb_per_s;
  std::string best_label;  // "DEVICE (ENGINE)"
  // low: the fastest custom row that is not unrolled or pipelined (the low-area cores as
  // published); high: the custom row with the fewest ns per block of one chain.
  std::optional<range_end> low, high;
};

struct report {
  std::vector<std::string> dirs;
  std::string custom_file;
  std::string custom_note;
  std::vector<hash_table> tables;  // hash_names() order, hashes without any row left out
  std::vector<std::string> notes;
};

// Off-the-shelf device costs: exact device name, or a case-insensitive part of exactly
// one device's name, to USD.
using cost_map = std::map<std::string, double>;
// "DEVICE=USD" -> {DEVICE, USD}; throws std::invalid_argument.
std::pair<std::string, double> parse_cost(const std::string& text);

// Throws std::runtime_error when the records hold no usable off-the-shelf figure (ok
// `hash` records in mode chain or ok `limits` records), or a --cost names no device.
report compute(const records::result_set& in, const custom_data& custom, const cost_map& costs = {});

std::string to_markdown(const report& r);
nlohmann::json to_json(const report& r);

// The runner's "amax" report: DIR/amax.md and DIR/amax.json from the records in DIR. Returns
// false (after a warning on stderr) on failure.
bool write_report_files(const std::filesystem::path& dir);

}  // namespace poreplab::amax
