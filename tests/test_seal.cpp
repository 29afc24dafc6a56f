#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "backends/backends.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/seal/seal.hpp"
#include "poreplab/sdr/tree_d.hpp"
#include "poreplab/seal/vector_file.hpp"
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

seal::seal_inputs inputs_of(const seal::sdr_vector& v) { return seal::seal_inputs_of(v); }

}  // namespace

TEST_CASE("seal writes rust-fil-proofs' PC1 files byte for byte, unseal recovers the data", "[seal]") {
  const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  test::temp_dir tmp("seal");
  const auto data = seal::generate_data(v.generator, v.sector_size);
  write(tmp.path / "staged", data);
  auto be = sdr::make_reference_backend();
  const auto r = seal::seal(inputs_of(v), tmp.path / "staged", tmp.path / "out", *be, tmp.path / "cache");
  CHECK(to_hex(r.comm_d) == v.json.at("comm_d").get<std::string>());
  CHECK(to_hex(r.replica_id) == v.json.at("replica_id").get<std::string>());
  for (const auto& f : v.json.at("files_after_pc1")) {
    const auto name = f.at("name").get<std::string>();
    INFO(name);
    REQUIRE(fs::exists(tmp.path / "out" / name));
    CHECK(fs::file_size(tmp.path / "out" / name) == f.at("bytes").get<std::uint64_t>());
  }
  for (std::uint32_t l = 1; l <= v.layers; ++l)
    CHECK(sha(read(tmp.path / "out" / seal::layer_file_name(l))) ==
          v.json.at("labels").at(l - 1).at("sha256").get<std::string>());
  CHECK(sha(read(tmp.path / "out" / seal::kReplicaFile)) == v.json.at("replica").at("sha256").get<std::string>());
  // The parent cache file has rust-fil-proofs' name and content.
  const auto cache_name = v.json.at("parents").at("parent_cache_file_written_by_pc1").get<std::string>();
  REQUIRE(fs::exists(tmp.path / "cache" / cache_name));
  CHECK(sha(read(tmp.path / "cache" / cache_name)) == v.json.at("parents").at("sha256").get<std::string>());
  for (const auto& e : fs::directory_iterator(tmp.path / "out")) CHECK(e.path().extension() != ".tmp");

  for (bool recompute : {false, true}) {
    const auto out = tmp.path / (recompute ? "unsealed-recomputed" : "unsealed");
    const auto u = seal::unseal(tmp.path / "out", out, *be, recompute, tmp.path / "cache");
    CHECK(u.recomputed == recompute);
    CHECK(read(out) == data);
  }
}

TEST_CASE("unseal detects a corrupt replica and writes nothing", "[seal]") {
  const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  test::temp_dir tmp("seal");
  write(tmp.path / "staged", seal::generate_data(v.generator, v.sector_size));
  auto be = sdr::make_reference_backend();
  seal::seal(inputs_of(v), tmp.path / "staged", tmp.path / "out", *be);
  auto replica = read(tmp.path / "out" / seal::kReplicaFile);
  replica[100] ^= 1;
  write(tmp.path / "out" / seal::kReplicaFile, replica);
  // seal.json's digest of the replica names the damaged file first.
  CHECK_THROWS_WITH(seal::unseal(tmp.path / "out", tmp.path / "data", *be, false),
                    Catch::Contains("replica.dat: SHA-256") && Catch::Contains("/files/replica.dat/sha256"));
  CHECK_FALSE(fs::exists(tmp.path / "data"));
  CHECK_FALSE(fs::exists(tmp.path / "data.tmp"));
  // Without recorded digests, comm_d still catches it.
  auto manifest = nlohmann::json::parse(test::read_text(tmp.path / "out" / seal::kSealManifest));
  manifest.erase("files");
  test::write_text(tmp.path / "out" / seal::kSealManifest, manifest.dump(2));
  CHECK_THROWS_WITH(seal::unseal(tmp.path / "out", tmp.path / "data", *be, false),
                    Catch::Contains("does not match comm_d"));
  CHECK_FALSE(fs::exists(tmp.path / "data"));
  CHECK_FALSE(fs::exists(tmp.path / "data.tmp"));
}

TEST_CASE("seal rejects bad data and leaves nothing behind", "[seal]") {
  const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  test::temp_dir tmp("seal");
  auto be = sdr::make_reference_backend();
  auto in = inputs_of(v);
  SECTION("a node that is not a field element") {
    auto data = seal::generate_data("pattern37", 2048);
    for (int i = 0; i < 32; ++i) data[32 * 5 + i] = 0xff;
    write(tmp.path / "staged", data);
    CHECK_THROWS_WITH(seal::seal(in, tmp.path / "staged", tmp.path / "out", *be), Catch::Contains("node 5"));
  }
  SECTION("a size that is not a power-of-two node count") {
    write(tmp.path / "staged", std::vector<std::uint8_t>(3 * 32, 0));
    CHECK_THROWS_WITH(seal::seal(in, tmp.path / "staged", tmp.path / "out", *be), Catch::Contains("not nodes * 32"));
  }
  SECTION("a size other than the proof's") {
    write(tmp.path / "staged", std::vector<std::uint8_t>(4096, 0));
    in.expected_sector_size = 2048;
    in.proof_name = "StackedDrg2KiBV1_1";
    CHECK_THROWS_WITH(seal::seal(in, tmp.path / "staged", tmp.path / "out", *be), Catch::Contains("2048"));
  }
  SECTION("a missing data file") {
    CHECK_THROWS_WITH(seal::seal(in, tmp.path / "nope", tmp.path / "out", *be), Catch::Contains("nope"));
  }
  if (fs::exists(tmp.path / "out"))
    for (const auto& e : fs::directory_iterator(tmp.path / "out")) FAIL("left behind: " << e.path());
}

TEST_CASE("vector verify passes every public vector except the slow one", "[sdr][vectors]") {
  // The reference up to 2KiB; above, the cpu backend (the reference's plain Poseidon would
  // spend minutes of a sanitizer build on the 8MiB PC2; `vector verify --backend all`
  // runs both everywhere). The sanitizer build stops at the 64-node vectors.
  auto ref = sdr::make_reference_backend();
  auto cpu = make_backend("cpu");
  for (const auto& e : fs::directory_iterator(test::data_dir() / "vectors")) {
    if (e.path().extension() != ".json" || e.path().filename().string().find("512MiB") != std::string::npos)
      continue;
    INFO(e.path().filename());
    const auto v = seal::load_sdr_vector(e.path());
    if (test::kSanitized && v.nodes > 64) continue;
    sdr::backend* be = v.sector_size <= 2048 ? ref.get() : cpu.get();
    INFO(be->name());
    std::size_t checks = 0;
    const bool ok = seal::verify_vector(v, *be, [&](const seal::check_result& r) {
      ++checks;
      INFO(r.name << ": " << r.detail);
      CHECK(r.ok);
    });
    CHECK(ok);
    CHECK(checks >= 5);
  }
}

TEST_CASE("vector verify of the 512MiB vector", "[sdr][vectors][slow]") {
  auto be = make_backend("cpu");
  const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg512MiBV1_1-A.json");
  CHECK(seal::verify_vector(v, *be, [](const seal::check_result& r) {
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
  CHECK_THROWS_WITH(seal::load_sdr_vector(write_json(text.substr(0, text.size() / 2))), Catch::Contains("not valid JSON"));
  auto bad = good;
  bad["format"] = "something/2";
  CHECK_THROWS_WITH(seal::load_sdr_vector(write_json(bad.dump())), Catch::Contains("unknown format"));
  bad = good;
  bad["data"]["generator"] = "random";
  CHECK_THROWS_WITH(seal::load_sdr_vector(write_json(bad.dump())), Catch::Contains("unknown generator"));
  bad = good;
  bad.erase("porep_id");
  CHECK_THROWS_WITH(seal::load_sdr_vector(write_json(bad.dump())), Catch::Contains("porep_id: missing"));
  bad = good;
  bad["nodes"] = 65;
  CHECK_THROWS_WITH(seal::load_sdr_vector(write_json(bad.dump())), Catch::Contains("nodes"));
  CHECK_THROWS_WITH(seal::load_sdr_vector(tmp.path / "absent.json"), Catch::Contains("cannot open"));
}

// ---- bounded memory and resume ----

namespace {

// Every file of a directory, by name.
std::map<std::string, std::vector<std::uint8_t>> files_of(const fs::path& dir) {
  std::map<std::string, std::vector<std::uint8_t>> out;
  for (const auto& e : fs::directory_iterator(dir)) out[e.path().filename().string()] = read(e.path());
  return out;
}

// A custom graph of 8192 nodes (256 KiB), 3 layers: large enough for chunks of a few
// nodes to cut every stream many times, small enough to seal in well under a second.
seal::seal_inputs custom_inputs() {
  seal::seal_inputs in;
  in.porep_id[0] = 5;
  in.api = graph::api_version::v1_1_0;
  in.layers = 3;
  in.prover_id[0] = 1;
  in.sector_id = 7;
  in.ticket[3] = 9;
  return in;
}

// The backend, with a hook called after each layer the store has taken.
class hooked_backend final : public sdr::backend {
 public:
  hooked_backend(sdr::backend& inner, std::function<void(std::uint32_t)> hook) : inner_(inner), hook_(std::move(hook)) {}
  std::string name() const override { return inner_.name(); }
  void label(const sdr::label_job& job, sdr::layer_store& store) override {
    struct hooked_store final : sdr::layer_store {
      sdr::layer_store& s;
      std::function<void(std::uint32_t)>& h;
      hooked_store(sdr::layer_store& s_, std::function<void(std::uint32_t)>& h_) : s(s_), h(h_) {}
      std::uint8_t* layer(std::uint32_t l) override { return s.layer(l); }
      void layer_done(std::uint32_t l) override {
        s.layer_done(l);
        h(l);
      }
    } hooked(store, hook_);
    inner_.label(job, hooked);
  }

 private:
  sdr::backend& inner_;
  std::function<void(std::uint32_t)> hook_;
};

// What a seal killed after `layers` finished layers leaves: the directory copied at that
// moment (its state file and .tmp files), in `to`.
void killed_after(std::uint32_t layers, const seal::seal_inputs& in, const fs::path& data, const fs::path& cache,
                  const fs::path& to, const test::temp_dir& tmp) {
  auto ref = sdr::make_reference_backend();
  const fs::path work = tmp.path / "killed-work";
  hooked_backend be(*ref, [&](std::uint32_t l) {
    if (l == layers) fs::copy(work, to, fs::copy_options::recursive);
  });
  seal::seal(in, data, work, be, cache);
  fs::remove_all(work);
}

}  // namespace

TEST_CASE("bounded seal writes the in-memory seal's files byte for byte", "[seal][bounded]") {
  test::temp_dir tmp("seal");
  auto be = sdr::make_reference_backend();
  SECTION("the 2KiB vector, rust-fil-proofs' digests") {
    const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
    write(tmp.path / "staged", seal::generate_data(v.generator, v.sector_size));
    seal::seal(inputs_of(v), tmp.path / "staged", tmp.path / "mem", *be, tmp.path / "cache");
    for (std::uint64_t limit : {std::uint64_t{1}, std::uint64_t{3072}}) {  // previous layer mapped, then resident
      INFO("memory limit " << limit);
      seal::seal_options opt;
      opt.memory_limit = limit;
      opt.chunk_bytes = 256;  // 8 nodes
      const fs::path out = tmp.path / ("bounded" + std::to_string(limit));
      const auto r = seal::seal(inputs_of(v), tmp.path / "staged", out, *be, tmp.path / "cache", opt);
      CHECK(r.mode == seal::seal_mode::bounded);
      CHECK(r.resident_previous == (limit == 3072));
      CHECK(files_of(out) == files_of(tmp.path / "mem"));
      CHECK(sha(read(out / seal::kReplicaFile)) == v.json.at("replica").at("sha256").get<std::string>());
      CHECK(seal::unseal(out, tmp.path / ("back" + std::to_string(limit)), *be, false).comm_d == r.comm_d);
      CHECK(read(tmp.path / ("back" + std::to_string(limit))) == seal::generate_data(v.generator, v.sector_size));
    }
  }
  SECTION("a custom 256KiB graph, chunks of 32 nodes") {
    write(tmp.path / "staged", seal::generate_data("pattern37", 256 << 10));
    const auto in = custom_inputs();
    const auto r0 = seal::seal(in, tmp.path / "staged", tmp.path / "mem", *be, tmp.path / "cache");
    CHECK(r0.mode == seal::seal_mode::in_memory);
    seal::seal_options opt;
    opt.memory_limit = 1;
    opt.chunk_bytes = 1024;  // 32 nodes
    const auto r = seal::seal(in, tmp.path / "staged", tmp.path / "bounded", *be, tmp.path / "cache", opt);
    CHECK(r.mode == seal::seal_mode::bounded);
    CHECK(r.comm_d == r0.comm_d);
    CHECK(files_of(tmp.path / "bounded") == files_of(tmp.path / "mem"));
  }
}

TEST_CASE("streamed tree_d equals build_tree_d for every chunk size", "[seal][bounded]") {
  const auto data = seal::generate_data("pattern37", 64 * 32);
  std::vector<std::uint8_t> want(sdr::tree_d_bytes(64));
  const auto root = sdr::build_tree_d(data.data(), 64, want.data());
  for (std::uint64_t chunk : {1, 2, 8, 64, 128}) {
    INFO("chunk " << chunk);
    std::vector<std::uint8_t> got(want.size(), 0xee);
    const auto r = sdr::build_tree_d_streamed(
        64, chunk, [&](std::uint64_t first, std::uint64_t count, std::uint8_t* out) {
          std::copy(data.begin() + static_cast<std::ptrdiff_t>(first * 32),
                    data.begin() + static_cast<std::ptrdiff_t>((first + count) * 32), out);
        },
        [&](std::uint64_t off, const std::uint8_t* b, std::uint64_t n) { std::copy(b, b + n, got.begin() + static_cast<std::ptrdiff_t>(off)); });
    CHECK(r == root);
    CHECK(got == want);
  }
}

TEST_CASE("seal resumes an interrupted seal and gives the same files", "[seal][resume]") {
  test::temp_dir tmp("seal");
  write(tmp.path / "staged", seal::generate_data("pattern37", 256 << 10));
  const auto in = custom_inputs();
  auto be = sdr::make_reference_backend();
  seal::seal(in, tmp.path / "staged", tmp.path / "whole", *be, tmp.path / "cache");
  const auto whole = files_of(tmp.path / "whole");
  const fs::path out = tmp.path / "out";
  killed_after(2, in, tmp.path / "staged", tmp.path / "cache", out, tmp);
  REQUIRE(fs::exists(out / seal::kSealState));
  REQUIRE_FALSE(fs::exists(out / seal::kSealManifest));
  seal::seal_options opt;
  std::ostringstream progress;
  opt.progress = &progress;

  SECTION("after two good layers: labeling goes on at layer 3") {
    const auto r = seal::seal(in, tmp.path / "staged", out, *be, tmp.path / "cache", opt);
    CHECK(r.tree_d_reused);
    CHECK(r.layers_reused == 2);
    CHECK(progress.str().find("resuming after layer 2") != std::string::npos);
  }
  SECTION("bounded mode resumes an in-memory seal's files") {
    opt.memory_limit = 1;
    opt.chunk_bytes = 1024;
    const auto r = seal::seal(in, tmp.path / "staged", out, *be, tmp.path / "cache", opt);
    CHECK(r.mode == seal::seal_mode::bounded);
    CHECK(r.layers_reused == 2);
  }
  SECTION("a truncated layer 2 is not trusted: labeling again from layer 2") {
    fs::resize_file(out / (seal::layer_file_name(2) + ".tmp"), 1000);
    const auto r = seal::seal(in, tmp.path / "staged", out, *be, tmp.path / "cache", opt);
    CHECK(r.layers_reused == 1);
    CHECK(progress.str().find("layer 2's file does not match") != std::string::npos);
  }
  SECTION("a damaged layer 1 (one bit, same size) is not trusted: every layer again") {
    const fs::path l1 = out / (seal::layer_file_name(1) + ".tmp");
    auto bytes = read(l1);
    bytes[4000] ^= 0x01;
    write(l1, bytes);
    const auto r = seal::seal(in, tmp.path / "staged", out, *be, tmp.path / "cache", opt);
    CHECK(r.layers_reused == 0);
  }
  SECTION("a damaged tree_d: built again, and no layer is trusted") {
    const fs::path t = out / (std::string(seal::kTreeDFile) + ".tmp");
    auto bytes = read(t);
    bytes.back() ^= 0x01;
    write(t, bytes);
    const auto r = seal::seal(in, tmp.path / "staged", out, *be, tmp.path / "cache", opt);
    CHECK_FALSE(r.tree_d_reused);
    CHECK(r.layers_reused == 0);
  }
  CHECK(files_of(out) == whole);
}

TEST_CASE("seal refuses to resume another seal's state, and hostile state files", "[seal][resume][reliability]") {
  test::temp_dir tmp("seal");
  write(tmp.path / "staged", seal::generate_data("pattern37", 256 << 10));
  const auto in = custom_inputs();
  auto be = sdr::make_reference_backend();
  const fs::path out = tmp.path / "out";
  killed_after(1, in, tmp.path / "staged", tmp.path / "cache", out, tmp);
  const auto partial = files_of(out);
  auto state = test::load_json(out / seal::kSealState);
  auto seal_again = [&](const seal::seal_inputs& i, seal::existing_output e = seal::existing_output::refuse) {
    return seal::seal(i, tmp.path / "staged", out, *be, tmp.path / "cache", e);
  };
  SECTION("other inputs") {
    auto other = in;
    other.sector_id = 8;
    CHECK_THROWS_WITH(seal_again(other), Catch::Contains("unfinished seal of other inputs") &&
                                             Catch::Contains("sector_id 7 there, 8 now") && Catch::Contains("--force"));
    CHECK(files_of(out) == partial);
    // --force discards it.
    CHECK(seal_again(other, seal::existing_output::replace).layers_reused == 0);
    CHECK(fs::exists(out / seal::kSealManifest));
    CHECK_FALSE(fs::exists(out / seal::kSealState));
  }
  SECTION("other data") {
    auto data = read(tmp.path / "staged");
    data[0] ^= 1;
    write(tmp.path / "staged", data);
    CHECK_THROWS_WITH(seal_again(in), Catch::Contains("data_sha256"));
  }
  SECTION("hostile state files: one error naming the file and the field") {
    const std::string file = (out / seal::kSealState).string();
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"{\"format\": ", "malformed"},
        {"[]", "/format"},
        {R"({"format": "poreplab-seal-state/2"})", "/format"},
        {[&] {
           auto j = state;
           j.erase("layers");
           return j.dump();
         }(),
         "/layers: missing"},
    };
    for (const auto& [text, what] : cases) {
      INFO(text);
      std::ofstream(out / seal::kSealState) << text;
      CHECK_THROWS_WITH(seal_again(in), Catch::Contains(file) && Catch::Contains(what));
    }
    auto bad = state;
    bad["layers"] = nlohmann::json::array({"zz", "00"});
    std::ofstream(out / seal::kSealState) << bad.dump();
    CHECK_THROWS_WITH(seal_again(in), Catch::Contains("/layers/0") && Catch::Contains("hex"));
    bad = state;
    bad["layers"] = std::vector<std::string>(65, std::string(64, 'a'));
    std::ofstream(out / seal::kSealState) << bad.dump();
    CHECK_THROWS_WITH(seal_again(in), Catch::Contains("/layers") && Catch::Contains("more than the 3"));
    bad = state;
    bad["comm_d"] = 7;
    std::ofstream(out / seal::kSealState) << bad.dump();
    CHECK_THROWS_WITH(seal_again(in), Catch::Contains("/comm_d"));
    // Nothing was touched; --force starts afresh.
    CHECK(seal_again(in, seal::existing_output::replace).layers_reused == 0);
  }
  SECTION("a complete seal is not resumed over") {
    seal_again(in);
    std::ofstream(out / seal::kSealState) << state.dump();
    CHECK_THROWS_WITH(seal_again(in), Catch::Contains("not empty") && Catch::Contains("--force"));
  }
}

TEST_CASE("seal reports progress: mode, layers, rate and ETA", "[seal][bounded]") {
  test::temp_dir tmp("seal");
  write(tmp.path / "staged", seal::generate_data("pattern37", 256 << 10));
  auto be = sdr::make_reference_backend();
  std::ostringstream progress;
  seal::seal_options opt;
  opt.memory_limit = 1;
  opt.chunk_bytes = 4096;
  opt.progress = &progress;
  seal::seal(custom_inputs(), tmp.path / "staged", tmp.path / "out", *be, tmp.path / "cache", opt);
  const std::string p = progress.str();
  INFO(p);
  CHECK(p.find("seal: bounded memory") != std::string::npos);
  for (int l = 1; l <= 3; ++l) CHECK(p.find("seal: layer " + std::to_string(l) + "/3 done in ") != std::string::npos);
  CHECK(p.find("M nodes/s), ETA ") != std::string::npos);
}
