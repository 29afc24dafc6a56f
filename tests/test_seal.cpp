#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "poreplab/graph/parent_table.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/sdr/seal.hpp"
#include "poreplab/sdr/vector_file.hpp"
#include "support.hpp"

using namespace poreplab;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::vector<std::uint8_t>& d) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(d.data()), static_cast<std::streamsize>(d.size()));
}

std::vector<std::uint8_t> read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::string sha(const std::vector<std::uint8_t>& d) { return sha256_hex(d.data(), d.size()); }

sdr::seal_inputs inputs_of(const sdr::sdr_vector& v) {
  sdr::seal_inputs in;
  in.porep_id = v.porep_id;
  in.api = sdr::parse_api_version(v.api_version);
  in.layers = v.layers;
  in.prover_id = v.prover_id;
  in.sector_id = v.sector_id;
  in.ticket = v.ticket;
  return in;
}

}  // namespace

TEST_CASE("seal writes rust-fil-proofs' PC1 files byte for byte, unseal recovers the data", "[seal]") {
  const auto v = sdr::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  test::temp_dir tmp("seal");
  const auto data = sdr::generate_data(v.generator, v.sector_size);
  write(tmp.path / "staged", data);
  auto be = sdr::make_reference_backend();
  const auto r = sdr::seal(inputs_of(v), tmp.path / "staged", tmp.path / "out", *be, tmp.path / "cache");
  CHECK(to_hex(r.comm_d) == v.json.at("comm_d").get<std::string>());
  CHECK(to_hex(r.replica_id) == v.json.at("replica_id").get<std::string>());
  for (const auto& f : v.json.at("files_after_pc1")) {
    const auto name = f.at("name").get<std::string>();
    INFO(name);
    REQUIRE(fs::exists(tmp.path / "out" / name));
    CHECK(fs::file_size(tmp.path / "out" / name) == f.at("bytes").get<std::uint64_t>());
  }
  for (std::uint32_t l = 1; l <= v.layers; ++l)
    CHECK(sha(read(tmp.path / "out" / sdr::layer_file_name(l))) ==
          v.json.at("labels").at(l - 1).at("sha256").get<std::string>());
  CHECK(sha(read(tmp.path / "out" / sdr::kReplicaFile)) == v.json.at("replica").at("sha256").get<std::string>());
  // The parent cache file has rust-fil-proofs' name and content.
  const auto cache_name = v.json.at("parents").at("parent_cache_file_written_by_pc1").get<std::string>();
  REQUIRE(fs::exists(tmp.path / "cache" / cache_name));
  CHECK(sha(read(tmp.path / "cache" / cache_name)) == v.json.at("parents").at("sha256").get<std::string>());
  for (const auto& e : fs::directory_iterator(tmp.path / "out")) CHECK(e.path().extension() != ".tmp");

  for (bool recompute : {false, true}) {
    const auto out = tmp.path / (recompute ? "unsealed-recomputed" : "unsealed");
    const auto u = sdr::unseal(tmp.path / "out", out, *be, recompute, tmp.path / "cache");
    CHECK(u.recomputed == recompute);
    CHECK(read(out) == data);
  }
}

TEST_CASE("unseal detects a corrupt replica and writes nothing", "[seal]") {
  const auto v = sdr::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  test::temp_dir tmp("seal");
  write(tmp.path / "staged", sdr::generate_data(v.generator, v.sector_size));
  auto be = sdr::make_reference_backend();
  sdr::seal(inputs_of(v), tmp.path / "staged", tmp.path / "out", *be);
  auto replica = read(tmp.path / "out" / sdr::kReplicaFile);
  replica[100] ^= 1;
  write(tmp.path / "out" / sdr::kReplicaFile, replica);
  CHECK_THROWS_WITH(sdr::unseal(tmp.path / "out", tmp.path / "data", *be, false),
                    Catch::Contains("does not match comm_d"));
  CHECK_FALSE(fs::exists(tmp.path / "data"));
  CHECK_FALSE(fs::exists(tmp.path / "data.tmp"));
}

TEST_CASE("seal rejects bad data and leaves nothing behind", "[seal]") {
  const auto v = sdr::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  test::temp_dir tmp("seal");
  auto be = sdr::make_reference_backend();
  auto in = inputs_of(v);
  SECTION("a node that is not a field element") {
    auto data = sdr::generate_data("pattern37", 2048);
    for (int i = 0; i < 32; ++i) data[32 * 5 + i] = 0xff;
    write(tmp.path / "staged", data);
    CHECK_THROWS_WITH(sdr::seal(in, tmp.path / "staged", tmp.path / "out", *be), Catch::Contains("node 5"));
  }
  SECTION("a size that is not a power-of-two node count") {
    write(tmp.path / "staged", std::vector<std::uint8_t>(3 * 32, 0));
    CHECK_THROWS_WITH(sdr::seal(in, tmp.path / "staged", tmp.path / "out", *be), Catch::Contains("not nodes * 32"));
  }
  SECTION("a size other than the proof's") {
    write(tmp.path / "staged", std::vector<std::uint8_t>(4096, 0));
    in.expected_sector_size = 2048;
    in.proof_name = "StackedDrg2KiBV1_1";
    CHECK_THROWS_WITH(sdr::seal(in, tmp.path / "staged", tmp.path / "out", *be), Catch::Contains("2048"));
  }
  SECTION("a missing data file") {
    CHECK_THROWS_WITH(sdr::seal(in, tmp.path / "nope", tmp.path / "out", *be), Catch::Contains("nope"));
  }
  if (fs::exists(tmp.path / "out"))
    for (const auto& e : fs::directory_iterator(tmp.path / "out")) FAIL("left behind: " << e.path());
}

TEST_CASE("vector verify passes every public vector except the slow one", "[sdr][vectors]") {
  auto be = sdr::make_reference_backend();
  for (const auto& e : fs::directory_iterator(test::data_dir() / "vectors")) {
    if (e.path().extension() != ".json" || e.path().filename().string().find("512MiB") != std::string::npos)
      continue;
    INFO(e.path().filename());
    const auto v = sdr::load_sdr_vector(e.path());
    std::size_t checks = 0;
    const bool ok = sdr::verify_vector(v, *be, [&](const sdr::check_result& r) {
      ++checks;
      INFO(r.name << ": " << r.detail);
      CHECK(r.ok);
    });
    CHECK(ok);
    CHECK(checks >= 5);
  }
}

TEST_CASE("vector verify of the 512MiB vector", "[sdr][vectors][slow]") {
  auto be = sdr::make_reference_backend();
  const auto v = sdr::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg512MiBV1_1-A.json");
  CHECK(sdr::verify_vector(v, *be, [](const sdr::check_result& r) {
    INFO(r.name << ": " << r.detail);
    CHECK(r.ok);
  }));
}

TEST_CASE("malformed vector files are clear errors", "[sdr][vectors]") {
  test::temp_dir tmp("seal");
  const auto good = test::load_json(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  auto write_json = [&](const std::string& text) {
    std::ofstream(tmp.path / "v.json") << text;
    return tmp.path / "v.json";
  };
  const std::string text = good.dump();
  CHECK_THROWS_WITH(sdr::load_sdr_vector(write_json(text.substr(0, text.size() / 2))), Catch::Contains("not valid JSON"));
  auto bad = good;
  bad["format"] = "something/2";
  CHECK_THROWS_WITH(sdr::load_sdr_vector(write_json(bad.dump())), Catch::Contains("unknown format"));
  bad = good;
  bad["data"]["generator"] = "random";
  CHECK_THROWS_WITH(sdr::load_sdr_vector(write_json(bad.dump())), Catch::Contains("unknown generator"));
  bad = good;
  bad.erase("porep_id");
  CHECK_THROWS_WITH(sdr::load_sdr_vector(write_json(bad.dump())), Catch::Contains("porep_id: missing"));
  bad = good;
  bad["nodes"] = 65;
  CHECK_THROWS_WITH(sdr::load_sdr_vector(write_json(bad.dump())), Catch::Contains("nodes"));
  CHECK_THROWS_WITH(sdr::load_sdr_vector(tmp.path / "absent.json"), Catch::Contains("cannot open"));
}
