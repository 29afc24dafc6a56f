#pragma once
// Reference vector files (format poreplab-sdr-vector/1, tests/data/vectors/README.md):
// loading with validation, the data generators, and the full recomputation check.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "poreplab/sdr/backend.hpp"
#include "poreplab/sdr/replica_id.hpp"
#include "poreplab/seal/seal.hpp"

namespace poreplab::seal {

struct sdr_vector {
  std::filesystem::path path;
  nlohmann::json json;
  sdr::bytes32 porep_id{};
  std::string api_version;
  std::uint64_t nodes = 0;
  std::uint32_t layers = 0;
  std::uint64_t sector_size = 0;
  sdr::bytes32 prover_id{};
  std::uint64_t sector_id = 0;
  sdr::bytes32 ticket{};
  std::string generator;
};

// Throws std::runtime_error "<file>: <field>: <problem>" for a missing or malformed
// file, an unknown format, a missing or mistyped field, or inconsistent sizes. Every
// expected output must be present (parents, each layer's and the replica's sha256; the
// replica may be null in a labels-only vector), so that a vector cannot pass by
// lacking what it should be checked against.
sdr_vector load_sdr_vector(const std::filesystem::path& path);
// The same checks on a vector's text, `path` naming it in errors.
sdr_vector parse_sdr_vector(std::string_view text, const std::filesystem::path& path);

// What `seal` needs to reproduce the vector: porep_id, api version, layers, prover id,
// sector id and ticket (no registered-proof size check).
seal_inputs seal_inputs_of(const sdr_vector& v);

// The staged (fr32-padded) sector bytes: "pattern37" or "zero"; throws for others.
std::vector<std::uint8_t> generate_data(const std::string& generator, std::uint64_t bytes);

// PC2's expected values a vector may give (64 lowercase hex digits each); null or absent
// means not in the vector (PC1 is verified, PC2 not against it).
inline constexpr const char* kPc2Fields[] = {"comm_c", "comm_r_last", "comm_r"};

struct check_result {
  std::string name;
  bool ok = false;
  std::string detail;  // expected/actual on failure, or what was compared
  bool skipped = false;  // nothing to compare (ok stays true): detail says why
};

// Recomputes everything the vector lists (data, parents, comm_d, replica_id, every
// layer, replica) with `be` and reports one check per item through `report` as it goes.
// Returns true when every check passed.
bool verify_vector(const sdr_vector& v, sdr::backend& be, const std::function<void(const check_result&)>& report);

}  // namespace poreplab::seal
