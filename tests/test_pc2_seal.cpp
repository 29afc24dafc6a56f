// PC2 of a sealed directory (pc2_seal.hpp) and `poreplab pc2` / `seal --through pc2`: the
// vectors' comm_c, comm_r_last, comm_r and tree files, seal.json's /pc2, and bad input
// (missing, truncated or damaged inputs, other layer counts, an interrupt) leaving the
// directory as it was.
#include <catch2/catch.hpp>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "backends/backends.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/interrupt.hpp"
#include "poreplab/seal/pc2_seal.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/seal/seal.hpp"
#include "poreplab/seal/vector_file.hpp"
#include "support.hpp"

using namespace poreplab;
namespace fs = std::filesystem;

namespace {

using test::read_bytes;
using test::write_bytes;

seal::seal_inputs inputs_of(const seal::sdr_vector& v) { return seal::seal_inputs_of(v); }

// Name -> bytes of every file in a directory: what "left as it was" compares.
std::map<std::string, std::vector<std::uint8_t>> snapshot(const fs::path& dir) {
  std::map<std::string, std::vector<std::uint8_t>> m;
  for (const auto& e : fs::directory_iterator(dir)) m[e.path().filename().string()] = read_bytes(e.path());
  return m;
}

// A sealed directory of a public vector's inputs.
fs::path seal_vector(const test::temp_dir& tmp, const seal::sdr_vector& v, sdr::backend& be) {
  write_bytes(tmp / "staged", seal::generate_data(v.generator, v.sector_size));
  seal::seal(inputs_of(v), tmp / "staged", tmp / "out", be);
  return tmp / "out";
}

void check_against_vector(const seal::sdr_vector& v, const fs::path& dir, const seal::pc2_seal_result& r) {
  CHECK(to_hex(r.trees.comm_c) == v.json.at("comm_c").get<std::string>());
  CHECK(to_hex(r.trees.comm_r_last) == v.json.at("comm_r_last").get<std::string>());
  CHECK(to_hex(r.trees.comm_r) == v.json.at("comm_r").get<std::string>());
  CHECK(r.inputs_checked);
  std::size_t trees = 0;
  for (const auto& f : v.json.at("files_after_pc2")) {
    const std::string name = f.at("name").get<std::string>();
    if (!name.starts_with("sc-02-data-tree-c") && !name.starts_with("sc-02-data-tree-r-last")) continue;
    INFO(name);
    ++trees;
    REQUIRE(fs::exists(dir / name));
    CHECK(fs::file_size(dir / name) == f.at("bytes").get<std::uint64_t>());
  }
  CHECK(trees == 2);
  const auto m = test::load_json(dir / seal::kSealManifest);
  CHECK(m.at("pc2").at("comm_r") == v.json.at("comm_r"));
  CHECK(m.at("pc2").at("files").size() == 2);
  for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().extension() != ".tmp");
}

}  // namespace

TEST_CASE("pc2 of a sealed 2KiB vector: comm_r and rust-fil-proofs' tree files on every host backend",
          "[pc2][seal]") {
  const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  for (const char* backend : {"reference", "cpu", "cuda-emu"}) {
    INFO(backend);
    test::temp_dir tmp("pc2");
    auto be = make_backend(backend);
    const fs::path dir = seal_vector(tmp, v, *be);
    auto h = be->make_pc2_hasher();
    const auto r = seal::pc2_sealed(dir, *h, be->name());
    check_against_vector(v, dir, r);
    // The files are pc2_reference's, byte for byte.
    std::vector<std::vector<std::uint8_t>> layers;
    for (std::uint32_t l = 1; l <= 2; ++l) layers.push_back(read_bytes(dir / seal::layer_file_name(l)));
    const auto replica = read_bytes(dir / seal::kReplicaFile);
    const std::uint8_t* ptr[2] = {layers[0].data(), layers[1].data()};
    const auto want = sdr::pc2_reference_for_sector(ptr, replica.data(), 2048, true);
    CHECK(read_bytes(dir / "sc-02-data-tree-c.dat") == want.tree_c_files[0]);
    CHECK(read_bytes(dir / "sc-02-data-tree-r-last.dat") == want.tree_r_last_files[0]);
    // Done once: again is an error naming /pc2, and the directory is untouched.
    const auto before = snapshot(dir);
    CHECK_THROWS_WITH(seal::pc2_sealed(dir, *h, be->name()), Catch::Contains("/pc2") && Catch::Contains("--force"));
    CHECK(snapshot(dir) == before);
    seal::pc2_seal_options force;
    force.existing = seal::existing_output::replace;
    CHECK(seal::pc2_sealed(dir, *h, be->name(), force).trees.comm_r == r.trees.comm_r);
  }
}

TEST_CASE("seal --through pc2 of the 8MiB vector's inputs gives its comm_r and files", "[pc2][seal]") {
  // Minutes of arithmetic under the sanitizers; the 2KiB seals above take the same paths.
  if (test::kSanitized) return;
  const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg8MiBV1_1-A.json");
  test::temp_dir tmp("pc2");
  write_bytes(tmp / "staged", seal::generate_data(v.generator, v.sector_size));
  const std::string args = "seal --proof StackedDrg8MiBV1_1 --prover-id " + v.json.at("prover_id").get<std::string>() +
                           " --sector-id " + std::to_string(v.sector_id) + " --ticket " +
                           v.json.at("ticket").get<std::string>() + " --data " + (tmp / "staged").string() +
                           " --out " + (tmp / "out").string() + " --through pc2 --progress-interval 0 > " +
                           (tmp / "stdout").string() + " 2> " + (tmp / "stderr").string();
  REQUIRE(std::system(test::poreplab_command(args).c_str()) == 0);
  const std::string out = test::read_text(tmp / "stdout");
  CHECK_THAT(out, Catch::Contains("comm_r      " + v.json.at("comm_r").get<std::string>()));
  CHECK_THAT(out, Catch::Contains("comm_c      " + v.json.at("comm_c").get<std::string>()));
  CHECK_THAT(out, Catch::Contains("comm_r_last " + v.json.at("comm_r_last").get<std::string>()));
  const auto m = test::load_json(tmp / "out" / seal::kSealManifest);
  CHECK(m.at("pc2").at("comm_c") == v.json.at("comm_c"));
  for (const auto& f : v.json.at("files_after_pc2")) {
    const std::string name = f.at("name").get<std::string>();
    INFO(name);
    if (name.starts_with("sc-02-data-tree-c") || name.starts_with("sc-02-data-tree-r-last")) {
      REQUIRE(fs::exists(tmp / "out" / name));
      CHECK(fs::file_size(tmp / "out" / name) == f.at("bytes").get<std::uint64_t>());
    }
  }
  // A second pc2 is refused with one line and exit 1.
  const int rc = std::system(test::poreplab_command("pc2 --sealed " + (tmp / "out").string() + " > " +
                                                    (tmp / "stdout2").string() + " 2> " + (tmp / "stderr2").string())
                                 .c_str());
  CHECK(WEXITSTATUS(rc) == 1);
  CHECK_THAT(test::read_text(tmp / "stderr2"), Catch::Contains("already has its PC2"));
}

TEST_CASE("pc2 refuses bad sealed directories and leaves them as they were", "[pc2][seal][reliability]") {
  const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  test::temp_dir tmp("pc2");
  auto be = make_backend("cpu");
  const fs::path dir = seal_vector(tmp, v, *be);
  auto h = be->make_pc2_hasher();
  const auto pristine = snapshot(dir);
  const auto refused = [&](const std::function<void()>& damage, const std::string& says) {
    damage();
    const auto before = snapshot(dir);
    CHECK_THROWS_WITH(seal::pc2_sealed(dir, *h, be->name()), Catch::Contains(says));
    CHECK(snapshot(dir) == before);  // nothing written, nothing removed
    for (const auto& [name, bytes] : pristine) write_bytes(dir / name, bytes);
    for (const auto& e : fs::directory_iterator(dir))
      if (!pristine.contains(e.path().filename().string())) fs::remove(e.path());
  };
  const fs::path layer2 = dir / seal::layer_file_name(2);
  refused([&] { fs::remove(layer2); }, "sc-02-data-layer-2.dat");
  refused([&] { fs::resize_file(layer2, 2047); }, "sc-02-data-layer-2.dat: size 2047 bytes");
  refused([&] { fs::resize_file(dir / seal::kReplicaFile, 4096); }, "replica.dat: size 4096 bytes");
  refused(
      [&] {
        auto b = read_bytes(layer2);
        b[32 * 5] ^= 1;  // still a field element: only the digest sees it
        write_bytes(layer2, b);
      },
      "sc-02-data-layer-2.dat: SHA-256");
  refused(
      [&] {
        auto b = read_bytes(dir / seal::kReplicaFile);
        std::fill_n(b.begin() + 32 * 7, 32, 0xff);
        write_bytes(dir / seal::kReplicaFile, b);
      },
      "replica node 7 is not a canonical field element");
  refused([&] { test::write_text(dir / seal::kSealManifest, "{\"format\": "); }, "seal.json: malformed");
  refused(
      [&] {
        auto m = test::load_json(dir / seal::kSealManifest);
        m["inputs"]["layers"] = 3;
        m.erase("files");
        test::write_text(dir / seal::kSealManifest, m.dump());
      },
      "PC2 hashes columns of 2 or 11 layers");
  // An interrupt between chunks: the temporary files go, the directory is as it was.
  refused([&] { request_interrupt(SIGINT); }, "interrupted by SIGINT");
  clear_interrupt();
  // Without recorded digests PC2 still runs, and says it could not check its inputs.
  auto m = test::load_json(dir / seal::kSealManifest);
  m.erase("files");
  test::write_text(dir / seal::kSealManifest, m.dump());
  const auto r = seal::pc2_sealed(dir, *h, be->name());
  CHECK_FALSE(r.inputs_checked);
  CHECK(to_hex(r.trees.comm_r) == v.json.at("comm_r").get<std::string>());
}

TEST_CASE("seal --force removes the tree files of the seal it replaces", "[pc2][seal]") {
  const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  test::temp_dir tmp("pc2");
  auto be = make_backend("cpu");
  const fs::path dir = seal_vector(tmp, v, *be);
  auto h = be->make_pc2_hasher();
  seal::pc2_sealed(dir, *h, be->name());
  REQUIRE(fs::exists(dir / "sc-02-data-tree-c.dat"));
  seal::seal(inputs_of(v), tmp / "staged", dir, *be, {}, seal::existing_output::replace);
  CHECK_FALSE(fs::exists(dir / "sc-02-data-tree-c.dat"));
  CHECK_FALSE(fs::exists(dir / "sc-02-data-tree-r-last.dat"));
  CHECK_FALSE(test::load_json(dir / seal::kSealManifest).contains("pc2"));
}
