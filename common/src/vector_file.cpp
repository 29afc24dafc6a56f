#include "poreplab/sdr/vector_file.hpp"

#include <fstream>
#include <stdexcept>

#include "poreplab/checked.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/json_input.hpp"
#include "poreplab/hex.hpp"

namespace poreplab::sdr {

namespace {

struct field_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const sdr_vector& v, const std::string& field, const std::string& problem) {
  throw std::runtime_error(v.path.string() + ": " + field + ": " + problem);
}

const nlohmann::json& require(const sdr_vector& v, const nlohmann::json& obj, const std::string& key) {
  if (!obj.is_object() || !obj.contains(key)) fail(v, key, "missing");
  return obj.at(key);
}

std::string require_string(const sdr_vector& v, const nlohmann::json& obj, const std::string& key) {
  const auto& x = require(v, obj, key);
  if (!x.is_string()) fail(v, key, "expected a string, got " + std::string(x.type_name()));
  return x.get<std::string>();
}

std::uint64_t require_uint(const sdr_vector& v, const nlohmann::json& obj, const std::string& key) {
  const auto& x = require(v, obj, key);
  if (!x.is_number_unsigned()) fail(v, key, "expected a non-negative integer, got " + x.dump());
  return x.get<std::uint64_t>();
}

bytes32 require_bytes32(const sdr_vector& v, const nlohmann::json& obj, const std::string& key) {
  const auto s = require_string(v, obj, key);
  std::vector<std::uint8_t> b;
  try {
    b = from_hex(s, 32, key);
  } catch (const std::invalid_argument& e) {
    fail(v, key, e.what());
  }
  bytes32 out;
  std::copy(b.begin(), b.end(), out.begin());
  return out;
}

}  // namespace

sdr_vector load_sdr_vector(const std::filesystem::path& path) {
  sdr_vector v;
  v.path = path;
  // A directory or device is an error here, not a C++ library message half-way through.
  const std::string text = read_text_input(path, 256 << 20);
  try {
    v.json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path.string() + ": not valid JSON (truncated or malformed): " + json_reason(e));
  }
  if (!v.json.is_object()) fail(v, "/", "expected a JSON object");
  const auto format = require_string(v, v.json, "format");
  if (format != "poreplab-sdr-vector/1") fail(v, "format", "unknown format '" + format + "'");
  v.porep_id = require_bytes32(v, v.json, "porep_id");
  v.api_version = require_string(v, v.json, "api_version");
  if (v.api_version != "1.0.0" && v.api_version != "1.1.0" && v.api_version != "1.2.0")
    fail(v, "api_version", "unknown api version '" + v.api_version + "'");
  v.nodes = require_uint(v, v.json, "nodes");
  if (v.nodes < 2 || (v.nodes & (v.nodes - 1)) != 0) fail(v, "nodes", "not a power of two >= 2");
  const auto layers = require_uint(v, v.json, "layers");
  if (layers == 0 || layers > 64) fail(v, "layers", "must be 1..64");
  v.layers = static_cast<std::uint32_t>(layers);
  v.sector_size = require_uint(v, v.json, "sector_size");
  std::uint64_t bytes = 0;
  try {
    bytes = checked_mul(v.nodes, 32, "nodes * 32");
  } catch (const size_overflow& e) {
    fail(v, "nodes", e.what());
  }
  if (v.sector_size != bytes) fail(v, "sector_size", "is not nodes * 32");
  if (v.json.contains("base_degree") && require_uint(v, v.json, "base_degree") != 6)
    fail(v, "base_degree", "only 6 is supported");
  if (v.json.contains("exp_degree") && require_uint(v, v.json, "exp_degree") != 8)
    fail(v, "exp_degree", "only 8 is supported");
  v.prover_id = require_bytes32(v, v.json, "prover_id");
  v.sector_id = require_uint(v, v.json, "sector_id");
  v.ticket = require_bytes32(v, v.json, "ticket");
  v.generator = require_string(v, require(v, v.json, "data"), "generator");
  if (v.generator != "pattern37" && v.generator != "zero")
    fail(v, "data/generator", "unknown generator '" + v.generator + "' (known: pattern37, zero)");
  require_bytes32(v, v.json, "comm_d");
  require_bytes32(v, v.json, "replica_id");
  const auto& labels = require(v, v.json, "labels");
  if (!labels.is_array() || labels.size() != v.layers) fail(v, "labels", "expected one entry per layer");
  return v;
}

std::vector<std::uint8_t> generate_data(const std::string& generator, std::uint64_t bytes) {
  std::vector<std::uint8_t> d(bytes, 0);
  if (generator == "zero") return d;
  if (generator != "pattern37")
    throw std::invalid_argument("unknown data generator '" + generator + "' (known: pattern37, zero)");
  for (std::uint64_t k = 0; k < bytes; ++k) {
    auto b = static_cast<std::uint8_t>((k * 37 + 11) & 0xff);
    if (k % 32 == 31) b &= 0x3f;
    d[k] = b;
  }
  return d;
}

}  // namespace poreplab::sdr
