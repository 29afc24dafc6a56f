// The labeling schemes (sdr | zigzag) x (sha256 | blake2s | blake2b-256). [variants]:
// the shared node code against messages assembled byte by byte and hashed by the
// streaming hashes, the zigzag graph's structure, zigzag decoding, and every backend of
// this file's reach against the portable reference for every scheme.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "poreplab/field/fr.hpp"
#include "poreplab/graph/bucket.hpp"
#include "poreplab/graph/feistel.hpp"
#include "poreplab/graph/graph_params.hpp"
#include "poreplab/graph/parent_table.hpp"
#include "poreplab/graph/zigzag_graph.hpp"
#include "poreplab/hash/algo.hpp"
#include "poreplab/hash/blake2b.hpp"
#include "poreplab/hash/blake2s.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/sdr/backend.hpp"
#include "poreplab/sdr/chunk_hash.hpp"
#include "poreplab/sdr/emulated_backend.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/sdr/zigzag.hpp"
#ifdef POREPLAB_WITH_CUDA
#include "poreplab/cuda/backend.hpp"
#include "poreplab/cuda/devices.hpp"
#include "cuda_support.hpp"
#endif

using namespace poreplab;
using bytes = std::vector<std::uint8_t>;

namespace {

const std::vector<hash_family>& kHashes = hash_families();
constexpr sdr::porep_variant kVariants[] = {sdr::porep_variant::sdr, sdr::porep_variant::zigzag};

// The 32-byte hash of a whole message by the streaming implementations (not chunk_hash.hpp).
bytes hash_message(hash_family h, const bytes& msg) { return hash_bytes(digest_with(h, 32), msg.data(), msg.size()); }

bytes random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  bytes b(n);
  for (auto& x : b) x = static_cast<std::uint8_t>(rng());
  return b;
}

// Canonical field elements: random with the top two bits cleared.
bytes random_data(std::uint64_t elements, std::uint32_t seed) {
  bytes d = random_bytes(elements * 32, seed);
  for (std::uint64_t i = 0; i < elements; ++i) d[32 * i + 31] &= 0x3f;
  return d;
}

template <std::uint32_t Count>
void check_chunks(hash_family h, const bytes& msg) {
  bytes out(32);
  auto chunk = [&](std::uint32_t k) { return msg.data() + 32 * k; };
  sdr::with_scheme(sdr::label_scheme{sdr::porep_variant::sdr, h}, [&](auto, auto hc) {
    sdr::hash_chunks<decltype(hc)::value, Count>(chunk, out.data());
  });
  CHECK(out == hash_message(h, bytes(msg.begin(), msg.begin() + 32 * Count)));
}

graph::graph_params graph_with_2kib_id(std::uint64_t nodes) {
  const auto id = sdr::porep_id_of(sdr::find_registered_proof("StackedDrg2KiBV1_1"));
  return graph::make_graph_params(id.data(), graph::api_version::v1_1_0, nodes);
}

std::vector<std::uint32_t> sdr_table(const graph::graph_params& g) {
  std::vector<std::uint32_t> t(g.nodes * 14);
  graph::fill_parent_rows(g, 0, g.nodes, t.data());
  return t;
}

std::vector<std::uint32_t> zigzag_table_words(const graph::graph_params& g) {
  const huge_buffer b = graph::zigzag_table(g);
  const auto* w = reinterpret_cast<const std::uint32_t*>(b.data());
  return {w, w + 2 * g.nodes * 14};
}

struct job_data {
  std::vector<std::uint32_t> table;
  bytes ids;
  bytes data;
  sdr::label_job job;
};

job_data make_job(sdr::label_scheme s, std::uint64_t nodes, std::uint32_t layers, std::uint32_t sectors) {
  const auto g = graph_with_2kib_id(nodes);
  job_data d;
  d.table = s.variant == sdr::porep_variant::zigzag ? zigzag_table_words(g) : sdr_table(g);
  d.ids = random_data(sectors, 7 + sectors);
  d.data = random_data(nodes * sectors, 11);
  d.job = sdr::label_job{nodes, d.table.data(), layers, sectors, d.ids.data(), s, d.data.data()};
  return d;
}

std::vector<bytes> run_layers(sdr::backend& b, const sdr::label_job& job) {
  sdr::memory_layer_store store(job.nodes * job.sectors * 32, job.layers);
  b.label(job, store);
  std::vector<bytes> layers;
  for (std::uint32_t l = 1; l <= job.layers; ++l) layers.emplace_back(store.layer(l), store.layer(l) + store.layer_bytes());
  return layers;
}

}  // namespace

TEST_CASE("chunk hashes equal the streaming hashes of the assembled message", "[variants]") {
  const bytes msg = random_bytes(39 * 32, 1);
  for (auto h : kHashes) {
    INFO(sdr::label_hash_name(h));
    check_chunks<1>(h, msg);
    check_chunks<2>(h, msg);
    check_chunks<3>(h, msg);
    check_chunks<4>(h, msg);
    check_chunks<5>(h, msg);
    check_chunks<14>(h, msg);
    check_chunks<39>(h, msg);
  }
}

TEST_CASE("scheme names, parsing and message sizes", "[variants]") {
  CHECK(sdr::kFilecoinScheme.is_filecoin());
  CHECK(sdr::scheme_name(sdr::kFilecoinScheme) == "sdr/sha256");
  CHECK(std::string(sdr::scheme_status(sdr::kFilecoinScheme)) == "filecoin");
  const sdr::label_scheme what_if{sdr::porep_variant::zigzag, hash_family::blake2s};
  CHECK(std::string(sdr::scheme_status(what_if)) == "what-if");
  CHECK(std::string(sdr::scheme_status({sdr::porep_variant::sdr, hash_family::blake2s})) == "what-if");
  CHECK(sdr::parse_label_hash("blake2b-256") == hash_family::blake2b);
  CHECK_THROWS_WITH(sdr::parse_label_hash("md5"), Catch::Contains("valid: sha256, blake2s, blake2b-256"));
  CHECK_THROWS_WITH(sdr::parse_variant("stacked"), Catch::Contains("valid: sdr, zigzag"));
  CHECK(sdr::compressions_per_node(sdr::kFilecoinScheme) == 20);
  CHECK(sdr::compressions_per_node({sdr::porep_variant::sdr, hash_family::blake2s}) == 20);
  CHECK(sdr::compressions_per_node({sdr::porep_variant::sdr, hash_family::blake2b}) == 10);
  CHECK(sdr::compressions_per_node({sdr::porep_variant::zigzag, hash_family::sha256}) == 8);
  CHECK(sdr::compressions_per_node(what_if) == 7);
  CHECK(sdr::compressions_per_node({sdr::porep_variant::zigzag, hash_family::blake2b}) == 4);
}

TEST_CASE("SDR labels with every hash equal mask(H(header || 37 parents))", "[variants]") {
  constexpr std::uint64_t kNodes = 64;
  for (auto h : kHashes) {
    INFO(sdr::label_hash_name(h));
    auto d = make_job({sdr::porep_variant::sdr, h}, kNodes, 3, 1);
    const auto layers = run_layers(*sdr::make_reference_backend(), d.job);
    for (std::uint32_t l = 1; l <= 3; ++l) {
      for (std::uint64_t v = 0; v < kNodes; ++v) {
        bytes msg(64, 0);
        std::memcpy(msg.data(), d.ids.data(), 32);
        for (int i = 0; i < 4; ++i) msg[32 + i] = static_cast<std::uint8_t>(l >> (24 - 8 * i));
        for (int i = 0; i < 8; ++i) msg[36 + i] = static_cast<std::uint8_t>(v >> (56 - 8 * i));
        if (v > 0) {
          for (std::uint32_t k = 0; k < 37; ++k) {
            const std::uint32_t slot = l == 1 ? k % 6 : k % 14;
            const std::uint32_t p = d.table[14 * v + slot];
            const bytes& src = slot < 6 ? layers[l - 1] : layers[l - 2];
            msg.insert(msg.end(), src.begin() + 32 * p, src.begin() + 32 * p + 32);
          }
        }
        bytes want = hash_message(h, msg);
        want[31] &= 0x3f;
        REQUIRE(bytes(layers[l - 1].begin() + 32 * v, layers[l - 1].begin() + 32 * v + 32) == want);
      }
    }
  }
}

TEST_CASE("zigzag graph: 5 sorted base + 8 expander parents, both directions sequential", "[variants]") {
  constexpr std::uint64_t n = 1024;
  const auto g = graph_with_2kib_id(n);
  const auto t = zigzag_table_words(g);
  // Kept forward expander edges, recomputed here from the Feistel permutation:
  // slot 8u + j of the permuted domain -> the node v whose edge lands there.
  std::map<std::uint64_t, std::uint32_t> landing;
  for (std::uint64_t v = 0; v < n; ++v) {
    const std::uint32_t* row = t.data() + 14 * v;
    REQUIRE(row[0] == v);
    REQUIRE(std::is_sorted(row + 1, row + 6));
    for (int k = 1; k <= 5; ++k) REQUIRE((v < 2 ? row[k] == 0 : row[k] < v));
    std::uint32_t sdr_base[6];
    graph::base_parents(g, v, sdr_base);
    std::vector<std::uint32_t> sampled(sdr_base + 1, sdr_base + 6);
    std::sort(sampled.begin(), sampled.end());
    REQUIRE(std::equal(sampled.begin(), sampled.end(), row + 1));
    for (std::uint32_t i = 0; i < 8; ++i) {
      const std::uint64_t x = graph::feistel_permute(8 * n, 8 * v + i, g.feistel_keys, g.feistel_pre);
      if (x / 8 < v) {
        REQUIRE(row[6 + i] == x / 8);
        landing[x] = static_cast<std::uint32_t>(v);
      } else {
        REQUIRE(row[6 + i] == 0);
      }
    }
  }
  REQUIRE(landing.size() > n);  // most of the 8n edges are kept
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint32_t* row = t.data() + 14 * (n + i);
    const std::uint64_t u = n - 1 - i;
    REQUIRE(row[0] == u);
    for (int k = 0; k < 5; ++k) REQUIRE(row[1 + k] == n - 1 - t[14 * (n - 1 - u) + 1 + k]);
    for (int k = 1; k <= 5; ++k) REQUIRE((u == n - 1 ? row[k] == u : row[k] > u));
    for (std::uint32_t j = 0; j < 8; ++j) {
      const auto it = landing.find(8 * u + j);
      REQUIRE(row[6 + j] == (it != landing.end() ? it->second : n - 1));
    }
  }
}

TEST_CASE("zigzag layers encode in place: node + mask(H(replica_id || parents)) mod r", "[variants]") {
  constexpr std::uint64_t n = 128;
  for (auto h : kHashes) {
    INFO(sdr::label_hash_name(h));
    auto d = make_job({sdr::porep_variant::zigzag, h}, n, 4, 1);
    const auto layers = run_layers(*sdr::make_reference_backend(), d.job);
    for (std::uint32_t l = 1; l <= 4; ++l) {
      const bytes& before = l == 1 ? d.data : layers[l - 2];
      const bytes& after = layers[l - 1];
      // Every parent is visited before its child in both directions, so the keys
      // come from the finished layer.
      for (std::uint64_t r = 0; r < n; ++r) {
        const std::uint32_t* row = d.table.data() + 14 * (sdr::zigzag_first_row(l, n) + r);
        bytes msg(d.ids.begin(), d.ids.end());
        if (row[1] != row[0])
          for (int k = 1; k < 14; ++k) msg.insert(msg.end(), after.begin() + 32 * row[k], after.begin() + 32 * row[k] + 32);
        bytes key = hash_message(h, msg);
        key[31] &= 0x3f;
        bytes want(32);
        fr::add(before.data() + 32 * row[0], key.data(), want.data());
        REQUIRE(bytes(after.begin() + 32 * row[0], after.begin() + 32 * row[0] + 32) == want);
      }
    }
    // Decoding the layers in reverse, rows in reverse, gives the data back.
    bytes buf = layers.back();
    for (std::uint32_t l = 4; l >= 1; --l)
      for (std::uint64_t r = n; r-- > 0;)
        sdr::with_scheme(d.job.scheme, [&](auto, auto hc) {
          sdr::zigzag_decode_node<decltype(hc)::value>(
              d.ids.data(), d.table.data() + 14 * (sdr::zigzag_first_row(l, n) + r), sdr::layer_ref{buf.data(), 32});
        });
    CHECK(buf == d.data);
  }
}

TEST_CASE("every scheme: cuda-emu equals the reference (layouts, sectors, streamed rows)", "[variants]") {
  for (auto v : kVariants)
    for (auto h : kHashes) {
      const sdr::label_scheme s{v, h};
      INFO(sdr::scheme_name(s));
      for (std::uint32_t sectors : {1u, 3u}) {
        auto d = make_job(s, 256, v == sdr::porep_variant::zigzag ? 3 : 2, sectors);
        const auto want = run_layers(*sdr::make_reference_backend(), d.job);
        for (auto layout : {sdr::sector_layout::sector_minor, sdr::sector_layout::sector_major})
          for (std::uint64_t chunk : {0ull, 48ull}) {
            INFO("sectors " << sectors << " " << sdr::sector_layout_name(layout) << " chunk " << chunk);
            auto emu = sdr::make_emulated_backend({layout, 2, chunk});
            CHECK(run_layers(*emu, d.job) == want);
          }
      }
    }
}

TEST_CASE("zigzag jobs are validated", "[variants]") {
  auto d = make_job({sdr::porep_variant::zigzag, hash_family::blake2s}, 64, 2, 1);
  auto job = d.job;
  job.data = nullptr;
  CHECK_THROWS_WITH(sdr::validate(job), Catch::Contains("zigzag encodes data in place"));
  d.data[32 * 5 + 31] = 0xff;
  CHECK_THROWS_WITH(sdr::validate(d.job), Catch::Contains("data element 5"));
}

#ifdef POREPLAB_WITH_CUDA
TEST_CASE("every scheme: the cuda device equals the reference", "[variants][cuda]") {
  if (!test::usable_cuda_device()) return;
  for (auto v : kVariants)
    for (auto h : kHashes) {
      const sdr::label_scheme s{v, h};
      INFO(sdr::scheme_name(s));
      for (std::uint32_t sectors : {1u, 33u}) {
        auto d = make_job(s, 1024, v == sdr::porep_variant::zigzag ? 4 : 3, sectors);
        const auto want = run_layers(*sdr::make_reference_backend(), d.job);
        for (auto layout : {sdr::sector_layout::sector_minor, sdr::sector_layout::sector_major})
          for (std::uint64_t chunk : {0ull, 300ull}) {
            INFO("sectors " << sectors << " " << sdr::sector_layout_name(layout) << " chunk " << chunk);
            cuda::backend_options o;
            o.layout = layout;
            o.chunk_nodes = chunk;
            CHECK(run_layers(*cuda::make_cuda_backend(o), d.job) == want);
          }
      }
    }
}
#endif
