#include "poreplab/seal/vector_file.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <stdexcept>

#include "poreplab/checked.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/format_keys.hpp"
#include "poreplab/json_input.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/hex.hpp"

namespace poreplab::seal {

using namespace sdr;  // the pipeline is written in the graph and kernels' vocabulary

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

bool is_hex_of(const nlohmann::json& x, std::uint64_t digits) {
  if (!x.is_string() || x.get_ref<const std::string&>().size() != digits) return false;
  const auto& t = x.get_ref<const std::string&>();
  return std::all_of(t.begin(), t.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

void hex32_field(const sdr_vector& v, const nlohmann::json& obj, const std::string& key, const std::string& field) {
  if (!obj.contains(key)) fail(v, field, "missing (the expected value; without it nothing is checked)");
  if (!is_hex_of(obj.at(key), 64)) fail(v, field, "expected 64 lowercase hex digits, got " + obj.at(key).dump());
}

std::uint64_t node_key(const sdr_vector& v, const std::string& k, const std::string& field) {
  std::uint64_t n = 0;
  const auto [p, ec] = std::from_chars(k.data(), k.data() + k.size(), n);
  if (k.empty() || ec != std::errc() || p != k.data() + k.size() || n >= v.nodes)
    fail(v, field, "'" + k + "' is not a node index below " + std::to_string(v.nodes));
  return n;
}

// `first` (nodes 0..) and `sample` (node -> value) of a labels / replica / parents entry,
// each value checked by `ok`.
template <class Check>
void first_and_sample(const sdr_vector& v, const nlohmann::json& obj, const std::string& field, Check ok,
                      const std::string& what) {
  if (obj.contains("first")) {
    const auto& f = obj.at("first");
    if (!f.is_array() || f.size() > v.nodes) fail(v, field + "/first", "expected a list of at most nodes " + what);
    for (std::size_t i = 0; i < f.size(); ++i)
      if (!ok(f[i])) fail(v, field + "/first/" + std::to_string(i), "expected " + what + ", got " + f[i].dump());
  }
  if (obj.contains("sample")) {
    const auto& m = obj.at("sample");
    if (!m.is_object()) fail(v, field + "/sample", "expected an object mapping node indices to " + what);
    for (const auto& [k, val] : m.items()) {
      node_key(v, k, field + "/sample");
      if (!ok(val)) fail(v, field + "/sample/" + k, "expected " + what + ", got " + val.dump());
    }
  }
}

// Every expected output must be there: a vector whose labels, replica or parents were
// deleted would otherwise verify nothing for them and still pass. The shapes are checked
// here, so that verification never meets a value it cannot compare.
void check_expected_outputs(const sdr_vector& v) {
  const auto& j = v.json;
  const auto label_ok = [](const nlohmann::json& x) { return is_hex_of(x, 64); };
  const auto row_ok = [&](const nlohmann::json& x) {
    if (!x.is_array() || x.size() != 14) return false;
    return std::all_of(x.begin(), x.end(),
                       [&](const nlohmann::json& p) { return p.is_number_unsigned() && p.get<std::uint64_t>() < v.nodes; });
  };
  const std::string row = "rows of 14 parent indices below nodes";

  const auto& parents = require(v, j, "parents");
  if (!parents.is_object()) fail(v, "parents", "expected an object");
  hex32_field(v, parents, "sha256", "parents/sha256");
  first_and_sample(v, parents, "parents", row_ok, row);
  if (j.contains("parents_all")) {
    const auto& a = j.at("parents_all");
    if (!a.is_array() || a.size() > v.nodes) fail(v, "parents_all", "expected a list of at most nodes " + row);
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!row_ok(a[i])) fail(v, "parents_all/" + std::to_string(i), "expected " + row + ", got " + a[i].dump());
  }

  const auto& labels = j.at("labels");
  for (std::size_t l = 0; l < labels.size(); ++l) {
    const std::string field = "labels/" + std::to_string(l);
    if (!labels[l].is_object()) fail(v, field, "expected an object");
    hex32_field(v, labels[l], "sha256", field + "/sha256");
    first_and_sample(v, labels[l], field, label_ok, "labels (64 hex digits)");
  }
  const std::uint64_t layer_hex = v.sector_size * 2;
  if (j.contains("labels_hex")) {
    const auto& h = j.at("labels_hex");
    if (!h.is_array() || h.size() != v.layers) fail(v, "labels_hex", "expected one entry per layer");
    for (std::size_t l = 0; l < h.size(); ++l)
      if (!is_hex_of(h[l], layer_hex))
        fail(v, "labels_hex/" + std::to_string(l), "expected " + std::to_string(layer_hex) + " hex digits");
  }

  // null: the vector's source produced labels only (no replica to compare).
  if (!j.contains("replica")) fail(v, "replica", "missing (the expected value, or null when the source made none)");
  const auto& replica = j.at("replica");
  if (!replica.is_null()) {
    if (!replica.is_object()) fail(v, "replica", "expected an object or null");
    hex32_field(v, replica, "sha256", "replica/sha256");
    first_and_sample(v, replica, "replica", label_ok, "nodes (64 hex digits)");
  }
  if (j.contains("replica_hex") && !is_hex_of(j.at("replica_hex"), layer_hex))
    fail(v, "replica_hex", "expected " + std::to_string(layer_hex) + " hex digits");
  if (j.contains("data_sha256") && !is_hex_of(j.at("data_sha256"), 64))
    fail(v, "data_sha256", "expected 64 lowercase hex digits");
  for (const char* f : kPc2Fields)
    if (j.contains(f) && !j.at(f).is_null() && !is_hex_of(j.at(f), 64))
      fail(v, f, "expected 64 lowercase hex digits, or null when the vector has no PC2, got " + j.at(f).dump());
  if (j.contains("files_after_pc2")) {
    const auto& files = j.at("files_after_pc2");
    if (!files.is_array()) fail(v, "files_after_pc2", "expected a list of {name, bytes}");
    for (std::size_t i = 0; i < files.size(); ++i) {
      const auto& f = files[i];
      const std::string field = "files_after_pc2/" + std::to_string(i);
      if (!f.is_object() || !f.contains("name") || !f.at("name").is_string() || !f.contains("bytes") ||
          !f.at("bytes").is_number_unsigned())
        fail(v, field, "expected {\"name\": a string, \"bytes\": a non-negative integer}, got " + f.dump());
    }
  }
}

}  // namespace

sdr_vector load_sdr_vector(const std::filesystem::path& path) {
  // A directory or device is an error here, not a C++ library message half-way through.
  return parse_sdr_vector(read_small_file(path, {.max_bytes = 256 << 20, .streams = true}), path);
}

sdr_vector parse_sdr_vector(std::string_view text, const std::filesystem::path& path) {
  sdr_vector v;
  v.path = path;
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
  if (v.nodes > (std::uint64_t{1} << 32)) fail(v, "nodes", "more than 2^32 (the largest graph)");
  const auto layers = require_uint(v, v.json, "layers");
  if (layers == 0 || layers > 64) fail(v, "layers", "must be 1..64");
  v.layers = static_cast<std::uint32_t>(layers);
  v.sector_size = require_uint(v, v.json, format_keys::sector_size);
  std::uint64_t bytes = 0;
  try {
    bytes = checked_mul(v.nodes, 32, "nodes * 32");
  } catch (const size_overflow& e) {
    fail(v, "nodes", e.what());
  }
  if (v.sector_size != bytes) fail(v, format_keys::sector_size, "is not nodes * 32");
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
  check_expected_outputs(v);
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

seal_inputs seal_inputs_of(const sdr_vector& v) {
  seal_inputs in;
  in.porep_id = v.porep_id;
  in.api = parse_api_version(v.api_version);
  in.layers = v.layers;
  in.prover_id = v.prover_id;
  in.sector_id = v.sector_id;
  in.ticket = v.ticket;
  return in;
}

}  // namespace poreplab::seal
