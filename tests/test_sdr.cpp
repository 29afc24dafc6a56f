#include <catch2/catch.hpp>

#include "poreplab/field/fr.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/backend.hpp"
#include "poreplab/sdr/label.hpp"
#include "poreplab/sdr/replica_id.hpp"
#include "poreplab/sdr/tree_d.hpp"
#include "poreplab/seal/vector_file.hpp"
#include "support.hpp"

using namespace poreplab;

namespace {

std::vector<std::uint32_t> parents_all(const nlohmann::json& j) {
  std::vector<std::uint32_t> out;
  for (const auto& node : j.at("parents_all"))
    for (const auto& p : node) out.push_back(p.get<std::uint32_t>());
  return out;
}

sdr::bytes32 b32(const std::string& hex) {
  sdr::bytes32 out;
  const auto v = from_hex(hex, 32);
  std::copy(v.begin(), v.end(), out.begin());
  return out;
}

}  // namespace

TEST_CASE("labels from the vectors' parent lists match every layer", "[sdr]") {
  for (const char* name : {"StackedDrg2KiBV1_1-A.json", "Custom64Nodes11LayersPorep32GiBV1_1-A.json"}) {
    INFO(name);
    const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / name);
    const auto parents = parents_all(v.json);
    REQUIRE(parents.size() == v.nodes * 14);
    const auto id = b32(v.json.at("replica_id").get<std::string>());
    sdr::memory_layer_store store(v.nodes * 32, v.layers);
    sdr::label_job job{v.nodes, parents.data(), v.layers, 1, id.data()};
    sdr::make_reference_backend()->label(job, store);
    REQUIRE(v.json.at("labels_hex").size() == v.layers);
    for (std::uint32_t l = 1; l <= v.layers; ++l) {
      INFO("layer " << l);
      CHECK(to_hex(store.layer(l), v.nodes * 32) == v.json.at("labels_hex")[l - 1].get<std::string>());
    }
  }
}

TEST_CASE("comm_d, tree_d and replica_id of the 2KiB vector", "[sdr]") {
  const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  const auto data = seal::generate_data(v.generator, v.sector_size);
  std::vector<std::uint8_t> tree(sdr::tree_d_bytes(v.nodes));
  const auto root = sdr::build_tree_d(data.data(), v.nodes, tree.data());
  CHECK(to_hex(root) == v.json.at("comm_d").get<std::string>());
  CHECK(sdr::comm_d(data.data(), v.nodes) == root);
  CHECK(std::equal(root.begin(), root.end(), tree.end() - 32));
  const auto id = sdr::replica_id(v.prover_id, v.sector_id, v.ticket, root, v.porep_id);
  CHECK(to_hex(id) == v.json.at("replica_id").get<std::string>());
}

TEST_CASE("comm_d of an all-zero 2KiB sector", "[sdr]") {
  const std::vector<std::uint8_t> zero(2048, 0);
  CHECK(to_hex(sdr::comm_d(zero.data(), 64)) == "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833");
}

TEST_CASE("field add/sub in normal form", "[sdr][field]") {
  // r - 1 + 1 wraps to 0; r - 1 + r - 1 = r - 2.
  std::uint8_t rm1[32] = {}, one[32] = {1}, out[32], zero[32] = {};
  const std::uint64_t limbs[4] = {0xffffffff00000000ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                                  0x73eda753299d7d48ull};
  fr::store(rm1, limbs);
  CHECK(fr::is_canonical(rm1));
  fr::add(rm1, one, out);
  CHECK(std::equal(out, out + 32, zero));
  fr::sub(zero, one, out);
  CHECK(std::equal(out, out + 32, rm1));
  fr::add(rm1, rm1, out);
  fr::sub(out, rm1, out);
  CHECK(std::equal(out, out + 32, rm1));
  std::uint8_t rr[32];
  const std::uint64_t rl[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                               0x73eda753299d7d48ull};
  fr::store(rr, rl);
  CHECK_FALSE(fr::is_canonical(rr));
}
