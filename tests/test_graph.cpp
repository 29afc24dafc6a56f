#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "poreplab/graph/chacha8.hpp"
#include "poreplab/graph/expander.hpp"
#include "poreplab/graph/feistel.hpp"
#include "poreplab/graph/graph_params.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/graph/parents.hpp"
#include "poreplab/hash/blake2b.hpp"
#include "poreplab/hash/bytes.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "support.hpp"

using namespace poreplab;
using graph::api_version;
using graph::graph_params;
using graph::kParentsPerNode;

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> vector_files() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(test::data_dir() / "vectors"))
    if (e.path().extension() == ".json") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  REQUIRE(out.size() >= 4);
  return out;
}

// From the explicit fields, never the proof name (the Custom vector has no registered proof).
graph_params params_of_vector(const nlohmann::json& j) {
  const auto id = from_hex(j.at("porep_id").get<std::string>(), 32, "porep_id");
  return graph::make_graph_params(id.data(), sdr::parse_api_version(j.at("api_version").get<std::string>()),
                                  j.at("nodes").get<std::uint64_t>());
}

graph_params params_of(std::string_view proof, std::uint64_t nodes = 0) {
  const auto& p = sdr::find_registered_proof(proof);
  const auto id = sdr::porep_id_of(p);
  return graph::make_graph_params(id.data(), p.api, nodes != 0 ? nodes : p.nodes());
}

std::vector<std::uint32_t> row_of(const nlohmann::json& j) {
  std::vector<std::uint32_t> r;
  for (const auto& x : j) r.push_back(x.get<std::uint32_t>());
  return r;
}

std::vector<std::uint32_t> parents(const graph_params& g, std::uint64_t v) {
  std::vector<std::uint32_t> r(kParentsPerNode);
  graph::node_parents(g, v, r.data());
  return r;
}

std::string table_sha256(const graph_params& g) {
  const auto t = graph::parent_table::generate(g);
  const auto d = graph::parent_table_digest(t.words());
  return to_hex(d.data(), d.size());
}

void check_table_digest(const fs::path& file) {
  const auto j = test::load_json(file);
  const auto g = params_of_vector(j);
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(table_sha256(g) == j.at("parents").at("sha256").get<std::string>());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("parent table %s (%llu nodes): generate + sha256 %.2f s\n", file.filename().c_str(),
              static_cast<unsigned long long>(g.nodes), s);
}

void flip_byte(const fs::path& file, std::uint64_t offset) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(f);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x01);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

std::string load_error(const fs::path& dir, const graph_params& g, graph::cache_check check) {
  try {
    graph::load_parent_cache(dir, g, check);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

unsigned bit_length(std::uint64_t x) { return x == 0 ? 0u : 64u - static_cast<unsigned>(__builtin_clzll(x)); }

}  // namespace

TEST_CASE("parents of the vectors: first, sample and parents_all", "[graph]") {
  for (const auto& file : vector_files()) {
    INFO(file.filename().string());
    const auto j = test::load_json(file);
    const auto g = params_of_vector(j);
    const auto& jp = j.at("parents");
    REQUIRE(jp.at("first").size() == 8);
    for (std::uint64_t v = 0; v < 8; ++v) {
      INFO("node " << v);
      CHECK(parents(g, v) == row_of(jp.at("first")[v]));
    }
    REQUIRE(!jp.at("sample").empty());
    for (const auto& [node, row] : jp.at("sample").items()) {
      INFO("node " << node);
      CHECK(parents(g, std::stoull(node)) == row_of(row));
    }
    if (j.contains("parents_all")) {
      REQUIRE(j.at("parents_all").size() == g.nodes);
      const auto t = graph::parent_table::generate(g);
      for (std::uint64_t v = 0; v < g.nodes; ++v) {
        INFO("node " << v);
        const std::vector<std::uint32_t> got(t.row(v), t.row(v) + kParentsPerNode);
        CHECK(got == row_of(j.at("parents_all")[v]));
      }
    }
  }
}

TEST_CASE("whole parent table sha256 of the vectors up to 8MiB", "[graph]") {
  int checked = 0;
  for (const auto& file : vector_files()) {
    const auto j = test::load_json(file);
    if (j.at("nodes").get<std::uint64_t>() > (std::uint64_t{1} << 18)) continue;
    INFO(file.filename().string());
    check_table_digest(file);
    ++checked;
  }
  CHECK(checked == 3);
}

TEST_CASE("whole parent table sha256 of the vectors above 8MiB", "[graph][slow][.]") {
  for (const auto& file : vector_files()) {
    const auto j = test::load_json(file);
    if (j.at("nodes").get<std::uint64_t>() <= (std::uint64_t{1} << 18)) continue;
    INFO(file.filename().string());
    check_table_digest(file);
  }
}

TEST_CASE("parent rows with the Feistel table equal the reference rows", "[graph]") {
  // Small and large graphs of every API version; row ranges near the start and the end
  // (api 1.0.0's u32 truncation shows only when nodes * 8 > 2^32).
  struct range_case {
    const char* proof;
    std::uint64_t first;
    std::uint64_t count;
  };
  const range_case cases[] = {
      {"StackedDrg2KiBV1", 0, 64},
      {"StackedDrg8MiBV1_1", 0, 1000},
      {"StackedDrg8MiBV1_1", (std::uint64_t{1} << 18) - 333, 333},
      {"StackedDrg32GiBV1", (std::uint64_t{1} << 30) - 517, 517},
      {"StackedDrg64GiBV1", (std::uint64_t{1} << 31) - 200, 200},
      {"StackedDrg64GiBV1_1", 12345678, 300},
      {"StackedDrg512MiBV1_2_Feat_NonInteractivePoRep", (std::uint64_t{1} << 24) - 100, 100},
  };
  for (const auto& c : cases) {
    INFO(c.proof << " rows " << c.first << "+" << c.count);
    const auto g = params_of(c.proof);
    const auto t = graph::make_feistel_table(g);
    CHECK(t.f.size() == std::size_t{3} << g.feistel_pre.half_bits);
    std::vector<std::uint32_t> want(c.count * kParentsPerNode), got(want.size(), 0xffffffffu);
    graph::fill_parent_rows(g, c.first, c.count, want.data());
    graph::fill_parent_rows(g, t, c.first, c.count, got.data());
    CHECK(got == want);
  }
  // A table of another graph is refused.
  const auto small = graph::make_feistel_table(params_of("StackedDrg2KiBV1_1"));
  std::vector<std::uint32_t> row(kParentsPerNode);
  CHECK_THROWS_AS(graph::fill_parent_rows(params_of("StackedDrg8MiBV1_1"), small, 0, 1, row.data()),
                  std::invalid_argument);
  // Both methods give the same whole table.
  const auto g = params_of("StackedDrg8MiBV1_1", 1 << 14);
  std::vector<std::uint32_t> a(g.nodes * kParentsPerNode), b(a.size());
  graph::generate_parent_table(g, a, graph::parent_table_method::feistel_table);
  graph::generate_parent_table(g, b, graph::parent_table_method::per_node);
  CHECK(a == b);
}

TEST_CASE("parent table generation time, 8MiB", "[.bench][slow]") {
  const auto g = params_of("StackedDrg8MiBV1_1");
  std::vector<std::uint32_t> buf(g.nodes * kParentsPerNode);
  graph::generate_parent_table(g, buf);  // warm-up
  const auto t0 = std::chrono::steady_clock::now();
  graph::generate_parent_table(g, buf);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("8MiB parent table (%llu nodes): %.3f s, %.1f ns/node\n", static_cast<unsigned long long>(g.nodes), s,
              s * 1e9 / static_cast<double>(g.nodes));
}

TEST_CASE("parent cache file names and the crate manifest entries in the vectors", "[graph]") {
  const auto g = params_of("StackedDrg2KiBV1_1");
  CHECK(graph::parent_cache_file_name(g) ==
        "v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b.cache");
  int with_manifest = 0;
  for (const auto& file : vector_files()) {
    INFO(file.filename().string());
    const auto j = test::load_json(file);
    const auto& jp = j.at("parents");
    if (!jp.contains("parent_cache_file_written_by_pc1")) continue;
    const auto vg = params_of_vector(j);
    const std::string name = graph::parent_cache_file_name(vg);
    CHECK(name == jp.at("parent_cache_file_written_by_pc1").get<std::string>());
    // The crate's parent_cache.json is keyed by the name without extension and lists the
    // digest of the file, which is our table digest.
    CHECK(name == jp.at("matches_crate_manifest_parent_cache_json").get<std::string>() + ".cache");
    const auto& m = jp.at("manifest_entry_for_cache_file");
    CHECK(m.at("digest") == jp.at("sha256"));
    CHECK(m.at("sector_size").get<std::uint64_t>() == vg.nodes * 32);
    CHECK(jp.at("parent_cache_file_identical_to_table").get<bool>());
    ++with_manifest;
  }
  CHECK(with_manifest == 3);
}

TEST_CASE("parent cache: write, load, and detect corruption", "[graph]") {
  test::temp_dir tmp("graph-cache");
  const auto j = test::load_json(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  const auto g = params_of_vector(j);
  const auto table = graph::parent_table::generate(g);
  const auto file = graph::write_parent_cache(tmp.path, g, table.words());
  const auto sidecar = graph::parent_cache_sidecar_path(file);
  CHECK(file.filename() == graph::parent_cache_file_name(g));
  CHECK(fs::file_size(file) == g.nodes * 56);
  {  // sha256sum format, and nothing left behind but the two files
    std::ifstream in(sidecar);
    std::string line;
    std::getline(in, line);
    CHECK(line == j.at("parents").at("sha256").get<std::string>() + "  " + file.filename().string());
    CHECK(std::distance(fs::directory_iterator(tmp.path), fs::directory_iterator()) == 2);
  }
  for (auto check : {graph::cache_check::size_only, graph::cache_check::digest, graph::cache_check::regenerate}) {
    const auto loaded = graph::load_parent_cache(tmp.path, g, check);
    CHECK(loaded.is_mapped());
    CHECK(loaded.nodes() == g.nodes);
    CHECK(std::equal(loaded.words().begin(), loaded.words().end(), table.words().begin(), table.words().end()));
  }
  SECTION("flipped byte") {
    flip_byte(file, 56 * 37 + 9);
    const auto e = load_error(tmp.path, g, graph::cache_check::digest);
    CHECK_THAT(e, Catch::Contains(file.string()) && Catch::Contains("does not match") && Catch::Contains("corrupt"));
    const auto r = load_error(tmp.path, g, graph::cache_check::regenerate);
    CHECK_THAT(r, Catch::Contains(file.string()) && Catch::Contains("node 37 slot 2"));
    CHECK_THROWS_WITH(graph::load_or_create_parent_cache(tmp.path, g), Catch::Contains("corrupt"));
  }
  SECTION("truncated file") {
    fs::resize_file(file, g.nodes * 56 - 4);
    for (auto check : {graph::cache_check::size_only, graph::cache_check::digest, graph::cache_check::regenerate}) {
      const auto e = load_error(tmp.path, g, check);
      CHECK_THAT(e, Catch::Contains(file.string()) && Catch::Contains("truncated"));
    }
  }
  SECTION("corrupt or missing sidecar") {
    {
      std::ofstream out(sidecar, std::ios::trunc);
      out << "zz\n";
    }
    CHECK_THAT(load_error(tmp.path, g, graph::cache_check::digest), Catch::Contains("malformed digest sidecar"));
    fs::remove(sidecar);
    CHECK_THAT(load_error(tmp.path, g, graph::cache_check::digest),
               Catch::Contains(sidecar.string()) && Catch::Contains("cannot open"));
    // A file as rust-fil-proofs leaves it (no sidecar) is adopted after regeneration.
    const auto t = graph::load_or_create_parent_cache(tmp.path, g);
    CHECK(fs::exists(sidecar));
    CHECK(graph::load_parent_cache(tmp.path, g).nodes() == g.nodes);
    CHECK(std::equal(t.words().begin(), t.words().end(), table.words().begin(), table.words().end()));
  }
  SECTION("missing file and another graph's file") {
    fs::remove(file);
    CHECK_THAT(load_error(tmp.path, g, graph::cache_check::digest), Catch::Contains("does not exist"));
    // Generated slice by slice into the file, then mapped from it: never whole in memory.
    const auto t = graph::load_or_create_parent_cache(tmp.path, g);
    CHECK(t.is_mapped());
    const auto fresh = graph::parent_table::generate(g);
    CHECK(std::equal(t.words().begin(), t.words().end(), fresh.words().begin(), fresh.words().end()));
    CHECK(graph::read_parent_cache_sidecar(file) == graph::parent_table_digest(fresh.words()));
    // In slices of 5 rows (the last one short): the same file.
    fs::remove(file);
    graph::generate_parent_cache_file(tmp.path, g, 5);
    CHECK(graph::load_parent_cache(tmp.path, g, graph::cache_check::regenerate).nodes() == g.nodes);
    CHECK(graph::read_parent_cache_sidecar(file) == graph::parent_table_digest(fresh.words()));
    CHECK(graph::load_parent_cache(tmp.path, g).nodes() == g.nodes);
    // Same porep_id, other size: another name, so the 2KiB file is never picked up.
    const auto g128 = params_of("StackedDrg2KiBV1_1", 128);
    CHECK(graph::parent_cache_file_name(g128) != graph::parent_cache_file_name(g));
    CHECK_THAT(load_error(tmp.path, g128, graph::cache_check::size_only), Catch::Contains("does not exist"));
    fs::copy_file(file, graph::parent_cache_path(tmp.path, g128));
    CHECK_THAT(load_error(tmp.path, g128, graph::cache_check::size_only), Catch::Contains("expected 7168"));
  }
  CHECK_THROWS_AS(graph::write_parent_cache(tmp.path, g, table.words().subspan(1)), std::invalid_argument);
}

TEST_CASE("registered proofs and porep_id bytes", "[graph]") {
  CHECK(sdr::registered_proofs().size() == 20);
  for (std::size_t i = 0; i < sdr::registered_proofs().size(); ++i) CHECK(sdr::registered_proofs()[i].id == i);
  const auto& p = sdr::find_registered_proof("StackedDrg2KiBV1_1");
  CHECK(to_hex(sdr::porep_id_of(p)) == "05" + std::string(62, '0'));
  CHECK(p.api == api_version::v1_1_0);
  CHECK(p.layers == 2);
  CHECK(p.nodes() == 64);
  const auto& q = sdr::find_registered_proof("StackedDrg32GiBV1");
  CHECK(to_hex(sdr::porep_id_of(q)) == "03" + std::string(62, '0'));
  CHECK(q.api == api_version::v1_0_0);
  CHECK(q.layers == 11);
  CHECK(q.nodes() == (std::uint64_t{1} << 30));
  const auto gq = sdr::graph_params_of(q);
  CHECK(gq.nodes == q.nodes());
  CHECK(gq.api == api_version::v1_0_0);
  const auto& s = sdr::find_registered_proof("StackedDrg64GiBV1_1_Feat_SyntheticPoRep");
  CHECK(to_hex(sdr::porep_id_of(s)) == "0e" + std::string(62, '0'));
  CHECK(s.api == api_version::v1_2_0);
  CHECK(s.sector_size == (std::uint64_t{64} << 30));
  const auto& n = sdr::find_registered_proof("StackedDrg512MiBV1_2_Feat_NonInteractivePoRep");
  CHECK(n.id == 17);
  CHECK(n.layers == 2);
  CHECK(to_hex(sdr::make_porep_id(7, 0x0102)) == "07000000000000000201" + std::string(44, '0'));
  CHECK_THROWS_WITH(sdr::find_registered_proof("StackedDrg2KiB"),
                    Catch::Contains("'StackedDrg2KiB'") && Catch::Contains("StackedDrg2KiBV1_1 ") &&
                        Catch::Contains("StackedDrg64GiBV1_2_Feat_NonInteractivePoRep"));
  CHECK(sdr::parse_api_version("1.0.0") == api_version::v1_0_0);
  CHECK(sdr::parse_api_version("1.1.0") == api_version::v1_1_0);
  CHECK(sdr::parse_api_version("1.2.0") == api_version::v1_2_0);
  CHECK(sdr::api_version_name(api_version::v1_2_0) == "1.2.0");
  CHECK_THROWS_AS(sdr::parse_api_version("1.1"), std::invalid_argument);
  // The vectors' porep_ids are those of their registered proofs (Custom: the 32GiB one).
  for (const auto& file : vector_files()) {
    const auto j = test::load_json(file);
    const std::string name = j.at("registered_proof").get<std::string>();
    if (name.rfind("StackedDrg", 0) != 0) continue;  // the Custom vector
    INFO(name);
    const auto& r = sdr::find_registered_proof(name);
    CHECK(to_hex(sdr::porep_id_of(r)) == j.at("porep_id").get<std::string>());
    CHECK(std::string(sdr::api_version_name(r.api)) == j.at("api_version").get<std::string>());
    CHECK(r.nodes() == j.at("nodes").get<std::uint64_t>());
  }
}

TEST_CASE("graph params validation and seeds", "[graph]") {
  const auto id = sdr::make_porep_id(5);
  for (std::uint64_t bad : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{96},
                            (std::uint64_t{1} << 32) + 2, std::uint64_t{1} << 33})
    CHECK_THROWS_AS(graph::make_graph_params(id.data(), api_version::v1_1_0, bad), std::invalid_argument);
  CHECK_NOTHROW(graph::make_graph_params(id.data(), api_version::v1_1_0, 2));
  const auto g = graph::make_graph_params(id.data(), api_version::v1_1_0, std::uint64_t{1} << 32);
  CHECK(g.feistel_pre.half_bits == 18);  // N = 2^35 -> 4^18 = 2^36
  // docs/spec/sdr.md section 4 examples.
  const std::pair<std::uint64_t, std::uint32_t> examples[] = {
      {64, 5}, {std::uint64_t{1} << 18, 11}, {std::uint64_t{1} << 24, 14}, {std::uint64_t{1} << 30, 17}};
  for (const auto& [nodes, log4] : examples) {
    const auto p = graph::make_graph_params(id.data(), api_version::v1_1_0, nodes).feistel_pre;
    CHECK(p.half_bits == log4);
    CHECK(p.right_mask == (std::uint64_t{1} << log4) - 1);
    CHECK(p.left_mask == p.right_mask << log4);
  }
}

TEST_CASE("ChaCha8 keystream", "[graph]") {
  // ChaCha8, zero key, zero nonce, block 0 (draft-strombergson-chacha-test-vectors TC1).
  const std::uint32_t key[8] = {};
  std::uint32_t out[16];
  graph::chacha8_block(key, 0, out);
  std::uint8_t bytes[64];
  for (int i = 0; i < 16; ++i) store_le32(bytes + 4 * i, out[i]);
  CHECK(to_hex(bytes, 64) ==
        "3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e"
        "984ce172b9216f419f445367456d5619314a42a3da86b001387bfdb80e0cfe42");
  // u64 reads are the keystream as LE u64s, across block boundaries too.
  graph::chacha8_rng r;
  const std::uint8_t seed[32] = {};
  graph::chacha8_seed(r, seed);
  std::uint32_t second[16];
  graph::chacha8_block(key, 1, second);
  for (int i = 0; i < 8; ++i) CHECK(graph::chacha8_next_u64(r) == load_le64(bytes + 8 * i));
  CHECK(graph::chacha8_next_u64(r) == (second[0] | std::uint64_t{second[1]} << 32));
  CHECK(graph::chacha8_next_u32(r) == second[2]);
}

TEST_CASE("Feistel round function is BLAKE2b of u64_BE(r) || u64_BE(key)", "[graph]") {
  std::uint64_t x = 1;
  for (int i = 0; i < 1000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint64_t key = x ^ (x >> 29) * 0x9e3779b97f4a7c15ull;
    std::uint8_t in[16], out[64];
    store_be64(in, x);
    store_be64(in + 8, key);
    blake2b::digest(out, 64, in, 16);
    CHECK(graph::feistel_round(x, key, ~std::uint64_t{0}) == load_be64(out));
    CHECK(graph::feistel_round(x, key, 0x3ffff) == (load_be64(out) & 0x3ffff));
  }
}

TEST_CASE("Feistel permute is a bijection on its domain", "[graph]") {
  for (std::uint64_t nodes : {std::uint64_t{2}, std::uint64_t{64}, std::uint64_t{1024}}) {
    const auto g = params_of("StackedDrg2KiBV1_1", nodes);
    const std::uint64_t n = nodes * graph::kExpDegree;
    std::set<std::uint64_t> seen;
    for (std::uint64_t x = 0; x < n; ++x) {
      const auto y = graph::feistel_permute(n, x, g.feistel_keys, g.feistel_pre);
      CHECK(y < n);
      seen.insert(y);
    }
    CHECK(seen.size() == n);
  }
}

TEST_CASE("bucket count in f64 equals bit_length(meta - 1) near powers of two", "[graph]") {
  for (unsigned k = 1; k < 40; ++k) {
    const std::uint64_t p = std::uint64_t{1} << k;
    for (std::uint64_t meta = p > 40 ? p - 40 : 2; meta <= p + 40; ++meta) {
      INFO("meta " << meta);
      CHECK(graph::bucket_count(meta) == bit_length(meta - 1));
    }
    // Only multiples of 5 occur (meta = 5v).
    for (std::uint64_t v = p / 5 > 5 ? p / 5 - 3 : 2; v <= p / 5 + 3; ++v)
      CHECK(graph::bucket_count(5 * v) == bit_length(5 * v - 1));
  }
}

TEST_CASE("api 1.0.0 base parents: predecessor last, same random draws", "[graph]") {
  // Same porep_id, two api versions: the RNG stream is identical, only the slots move.
  for (std::uint64_t nodes : {std::uint64_t{64}, std::uint64_t{1} << 18, std::uint64_t{1} << 30}) {
    const auto id = sdr::make_porep_id(0);
    const auto g10 = graph::make_graph_params(id.data(), api_version::v1_0_0, nodes);
    const auto g11 = graph::make_graph_params(id.data(), api_version::v1_1_0, nodes);
    for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{17},
                            nodes / 2 + 1, nodes - 1}) {
      INFO("nodes " << nodes << " node " << v);
      std::uint32_t a[graph::kBaseDegree], b[graph::kBaseDegree];
      graph::base_parents(g10, v, a);
      graph::base_parents(g11, v, b);
      if (v < 2) {
        for (int k = 0; k < 6; ++k) CHECK((a[k] == 0 && b[k] == 0));
        continue;
      }
      CHECK(a[5] == v - 1);
      CHECK(b[0] == v - 1);
      for (int k = 0; k < 5; ++k) {
        CHECK(a[k] == b[k + 1]);
        CHECK(a[k] < v);
      }
    }
  }
  // The StackedDrg2KiBV1 graph (api 1.0.0, id 0) has the predecessor in slot 5 throughout.
  const auto g = params_of("StackedDrg2KiBV1");
  const auto t = graph::parent_table::generate(g);
  for (std::uint64_t v = 2; v < g.nodes; ++v) CHECK(t.row(v)[5] == v - 1);
}

TEST_CASE("api 1.0.0 expander parents truncate to u32 before dividing", "[graph]") {
  for (std::string_view proof : {"StackedDrg32GiBV1", "StackedDrg64GiBV1"}) {
    INFO(proof);
    const auto g10 = params_of(proof);
    auto g11 = g10;
    g11.api = api_version::v1_1_0;
    const std::uint64_t n = g10.nodes * graph::kExpDegree;
    REQUIRE(n > (std::uint64_t{1} << 32));
    int high = 0, low = 0;
    for (std::uint64_t v = 1000; v < 1064; ++v) {
      for (std::uint32_t i = 0; i < graph::kExpDegree; ++i) {
        const std::uint64_t permuted = graph::feistel_permute(n, v * 8 + i, g10.feistel_keys, g10.feistel_pre);
        const std::uint32_t p10 = graph::expander_parent(g10, v, i);
        const std::uint32_t p11 = graph::expander_parent(g11, v, i);
        CHECK(p10 == static_cast<std::uint32_t>(permuted) / 8);
        CHECK(p11 == permuted / 8);
        if (permuted >> 32 != 0) {
          ++high;
          CHECK(p10 != p11);
          CHECK(p11 - p10 == (permuted >> 32 << 29));
        } else {
          ++low;
          CHECK(p10 == p11);
        }
      }
    }
    // About half (32GiB) or three quarters (64GiB) of the domain lies above 2^32.
    CHECK(high > 100);
    CHECK(low > 50);
  }
  // Below 2^32 the versions agree: the 512MiB api 1.0.0 graph has the 1.1.0 expander.
  auto g = params_of("StackedDrg512MiBV1");
  auto h = g;
  h.api = api_version::v1_1_0;
  for (std::uint64_t v = 0; v < 4096; v += 17) {
    std::uint32_t a[8], b[8];
    graph::expander_parents(g, v, a);
    graph::expander_parents(h, v, b);
    CHECK(std::equal(a, a + 8, b));
  }
}
