// CUDA backend. [emu]: the kernel functors and the launch sequence run on the host
// (cuda-emu) against the vectors and the reference backend; the memory planner's
// arithmetic. [cuda]: the real device against the reference, skipped (with a warning)
// where no device is usable.
// Longer than most: every layout, launch shape and kernel variant is checked on both
// sides against the same references, and the two sides are easiest to compare together.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "poreplab/graph/graph_params.hpp"
#include "poreplab/graph/parents.hpp"
#include "poreplab/grid.hpp"
#include "poreplab/hash/blake2b.hpp"
#include "poreplab/hash/blake2s.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/backend.hpp"
#include "poreplab/sdr/emulated_backend.hpp"
#include "poreplab/hash/chain_kernel.hpp"
#include "poreplab/sdr/label_kernel.hpp"
#include "poreplab/seal/vector_file.hpp"
#include "cuda_support.hpp"
#include "poreplab/sdr/label_driver.hpp"
#include "support.hpp"

#ifdef POREPLAB_WITH_CUDA
#include "poreplab/cuda/backend.hpp"
#include "poreplab/cuda/bench.hpp"
#include "poreplab/cuda/devices.hpp"
#include "poreplab/cuda/memory_plan.hpp"
#endif

using namespace poreplab;
using byte_vector = std::vector<std::uint8_t>;

namespace {

constexpr sdr::sector_layout kLayouts[] = {sdr::sector_layout::sector_minor, sdr::sector_layout::sector_major};

struct vector_case {
  seal::sdr_vector v;
  std::vector<std::uint32_t> parents;
  byte_vector replica_id;
};

vector_case load_case(const char* name) {
  vector_case c{seal::load_sdr_vector(test::data_dir() / "vectors" / name), {}, {}};
  for (const auto& node : c.v.json.at("parents_all"))
    for (const auto& p : node) c.parents.push_back(p.get<std::uint32_t>());
  c.replica_id = from_hex(c.v.json.at("replica_id").get<std::string>(), 32);
  return c;
}

// A graph of `nodes` nodes for the 2KiB vector's porep_id, from the portable generator.
std::vector<std::uint32_t> make_parents(std::uint64_t nodes) {
  const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  const auto g = graph::make_graph_params(v.porep_id.data(), graph::api_version::v1_1_0, nodes);
  std::vector<std::uint32_t> table(nodes * 14);
  for (std::uint64_t i = 0; i < nodes; ++i) graph::node_parents(g, i, table.data() + 14 * i);
  return table;
}

// A different replica id per sector.
byte_vector make_ids(std::uint32_t sectors) {
  byte_vector ids(32ull * sectors);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::uint8_t>(i * 131 + (i >> 5) * 7 + 1);
  return ids;
}

// Every layer of `job` through `be`, concatenated.
byte_vector label_all(sdr::backend& be, const sdr::label_job& job) {
  sdr::memory_layer_store store(job.nodes * job.sectors * 32, job.layers);
  be.label(job, store);
  byte_vector out;
  for (std::uint32_t l = 1; l <= job.layers; ++l) out.insert(out.end(), store.layer(l), store.layer(l) + store.layer_bytes());
  return out;
}

// Index of the first differing byte, or -1: a readable failure instead of a hex dump.
std::int64_t first_difference(const byte_vector& a, const byte_vector& b) {
  if (a.size() != b.size()) return 0;
  const auto m = std::mismatch(a.begin(), a.end(), b.begin());
  return m.first == a.end() ? -1 : m.first - a.begin();
}

}  // namespace

TEST_CASE("cuda-emu: grid cover and emulate_grid visit every index once", "[cuda][emu]") {
  CHECK(cover(1, 32).blocks == 1);
  CHECK(cover(1, 256).threads == 32);  // a lone sector does not start 256 threads
  CHECK(cover(33, 32).blocks == 2);
  CHECK(cover(64, 32).blocks == 2);
  CHECK(cover(1000, 256).blocks == 4);
  CHECK(cover(1000, 256).threads == 256);
  CHECK(cover(5, 0).threads == 1);
  for (const grid_dims d : {grid_dims{1, 1}, grid_dims{3, 32}, grid_dims{7, 5}}) {
    std::vector<int> seen(d.total(), 0);
    emulate_grid(d, [&](std::uint64_t gid) { ++seen[gid]; });
    CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  }
}

TEST_CASE("cuda-emu: labels of the 2KiB and 64-node/11-layer vectors", "[cuda][emu]") {
  for (const char* name : {"StackedDrg2KiBV1_1-A.json", "Custom64Nodes11LayersPorep32GiBV1_1-A.json"}) {
    const auto c = load_case(name);
    REQUIRE(c.parents.size() == c.v.nodes * 14);
    // One sector, then three sectors sharing the vector's replica id (each must equal it).
    for (const std::uint32_t sectors : {1u, 3u}) {
      byte_vector ids;
      for (std::uint32_t s = 0; s < sectors; ++s) ids.insert(ids.end(), c.replica_id.begin(), c.replica_id.end());
      const sdr::label_job job{c.v.nodes, c.parents.data(), c.v.layers, sectors, ids.data()};
      for (const auto layout : kLayouts)
        for (const std::uint64_t chunk : {0ull, 16ull, 7ull}) {
          INFO(name << ", " << sectors << " sectors, " << sdr::sector_layout_name(layout) << ", chunk " << chunk);
          auto be = sdr::make_emulated_backend({layout, 32, chunk});
          CHECK(be->name() == "cuda-emu");
          sdr::memory_layer_store store(c.v.nodes * sectors * 32, c.v.layers);
          be->label(job, store);
          for (std::uint32_t l = 1; l <= c.v.layers; ++l)
            for (std::uint32_t s = 0; s < sectors; ++s) {
              byte_vector sector(c.v.nodes * 32);
              for (std::uint64_t i = 0; i < c.v.nodes; ++i)
                std::copy_n(store.layer(l) + (i * sectors + s) * 32, 32, sector.begin() + 32 * i);
              INFO("layer " << l << " sector " << s);
              CHECK(to_hex(sector) == c.v.json.at("labels_hex")[l - 1].get<std::string>());
            }
        }
    }
  }
}

TEST_CASE("cuda-emu equals the reference backend at 1/31/32/33 sectors", "[cuda][emu]") {
  struct shape {
    std::uint64_t nodes;
    std::uint32_t layers;
    std::vector<std::uint32_t> sectors;
  };
  // 2KiB with three layers (both layer buffers reused), 64KiB with two.
  for (const shape& sh : {shape{64, 3, {1, 31, 32, 33}}, shape{2048, 2, {1, 3}}}) {
    const auto parents = make_parents(sh.nodes);
    for (const std::uint32_t sectors : sh.sectors) {
      const byte_vector ids = make_ids(sectors);
      const sdr::label_job job{sh.nodes, parents.data(), sh.layers, sectors, ids.data()};
      const byte_vector expected = label_all(*sdr::make_reference_backend(), job);
      for (const auto layout : kLayouts) {
        // Chunked launches and odd block sizes at 2KiB only: they test index arithmetic.
        const bool small = sh.nodes == 64;
        const std::uint64_t chunk = small ? 24 : 0;
        for (const std::uint32_t tpb : {32u, 7u}) {
          if (!small && tpb != 32) continue;
          INFO(sh.nodes * 32 << " B, " << sectors << " sectors, " << sdr::sector_layout_name(layout) << ", "
                              << tpb << " threads/block, chunk " << chunk);
          auto be = sdr::make_emulated_backend({layout, tpb, chunk});
          CHECK(first_difference(label_all(*be, job), expected) == -1);
        }
      }
    }
  }
}

namespace {

// An executor that runs like cuda-emu and records what the driver asks of it.
struct recording_executor {
  struct launch_record {
    std::uint32_t layer;
    std::uint64_t begin, end;
  };
  std::vector<launch_record> launches;
  int loads = 0;
  bool launched_before_load = false;
  byte_vector layers[2], ids;
  std::vector<std::uint32_t> table, chunk[2];

  explicit recording_executor(std::uint64_t layer_bytes) : layers{byte_vector(layer_bytes), byte_vector(layer_bytes)} {}
  std::uint8_t* layer_buffer(int i) { return layers[i].data(); }
  const std::uint8_t* upload_replica_ids(const std::uint8_t* p, std::uint64_t n) {
    ids.assign(p, p + n);
    return ids.data();
  }
  void upload_layer(int i, const std::uint8_t* p, std::uint64_t n) { std::copy_n(p, n, layers[i].begin()); }
  const std::uint32_t* upload_parents(const std::uint32_t* p, std::uint64_t rows) {
    table.assign(p, p + rows * sdr::kParents);
    return table.data();
  }
  const std::uint32_t* stage_parents(int slot, const std::uint32_t* p, std::uint64_t count) {
    chunk[slot].assign(p, p + count * sdr::kParents);
    return chunk[slot].data();
  }
  void release_parents(int) {}
  template <class K>
  void load(const K&) {
    ++loads;
  }
  template <sdr::porep_variant V, hash_family H, sdr::kernel_variant K>
  void launch(const sdr::label_layer_kernel<V, H, K>& k, grid_dims d) {
    launched_before_load = launched_before_load || loads < 2;
    launches.push_back({k.layer, k.node_begin, k.node_end});
    emulate_grid(d, k);
  }
  void launch(const sdr::relayout_kernel& k, grid_dims d) { emulate_grid(d, k); }
  void layer_written(int) {}
  void download(std::uint8_t* host, int buf, std::uint64_t off, std::uint64_t n) {
    std::copy_n(layers[buf].begin() + static_cast<std::ptrdiff_t>(off), n, host + off);
  }
  void finish() {}
};

}  // namespace

TEST_CASE("device driver: kernels loaded first, launches bounded, stop between launches", "[cuda][emu]") {
  const auto parents = make_parents(64);
  const byte_vector ids = make_ids(3);
  const sdr::label_job job{64, parents.data(), 3, 3, ids.data()};
  const byte_vector expected = label_all(*sdr::make_reference_backend(), job);
  // Resident (chunk 0) and streamed (chunk 24) tables; launches of at most 10 nodes, or unbounded.
  for (const std::uint64_t chunk : {0ull, 24ull})
    for (const std::uint64_t launch_nodes : {0ull, 10ull, 1ull}) {
      INFO("chunk " << chunk << ", launch_nodes " << launch_nodes);
      recording_executor ex(64 * 3 * 32);
      sdr::memory_layer_store store(64 * 3 * 32, 3);
      sdr::run_label_job(ex, job, store, sdr::device_plan{sdr::sector_layout::sector_minor, 32, chunk, launch_nodes, {}});
      CHECK(ex.loads == 2);
      CHECK_FALSE(ex.launched_before_load);
      // Every layer's launches cover 0..63 exactly once, in order, none longer than the bound.
      std::uint64_t next = 0;
      std::uint32_t layer = 1;
      for (const auto& l : ex.launches) {
        if (next == 64) {
          next = 0;
          ++layer;
        }
        CHECK(l.layer == layer);
        CHECK(l.begin == next);
        CHECK(l.end > l.begin);
        if (launch_nodes != 0) CHECK(l.end - l.begin <= launch_nodes);
        if (chunk != 0) CHECK(l.end - l.begin <= chunk);
        next = l.end;
      }
      CHECK(layer == 3);
      CHECK(next == 64);
      const std::uint64_t per_layer = launch_nodes == 0 ? (chunk == 0 ? 1 : 3) : (launch_nodes == 10 ? (chunk == 0 ? 7 : 8) : 64);
      CHECK(ex.launches.size() == 3 * per_layer);
      byte_vector got;
      for (std::uint32_t l = 1; l <= 3; ++l) got.insert(got.end(), store.layer(l), store.layer(l) + store.layer_bytes());
      CHECK(first_difference(got, expected) == -1);
    }

  // A stop request ends the job before the next launch.
  recording_executor ex(64 * 3 * 32);
  sdr::memory_layer_store store(64 * 3 * 32, 3);
  int polls = 0;
  sdr::device_plan plan{sdr::sector_layout::sector_minor, 32, 0, 16, [&] { return ++polls > 5; }};
  CHECK_THROWS_AS(sdr::run_label_job(ex, job, store, plan), sdr::label_interrupted);
  CHECK(ex.launches.size() == 5);
  CHECK(ex.launches.back().layer == 2);

  // cuda-emu with bounded launches stays bit-exact on the vectors' graph for both layouts.
  for (const auto layout : kLayouts)
    CHECK(first_difference(label_all(*sdr::make_emulated_backend({layout, 32, 0, 7}), job), expected) == -1);
}

TEST_CASE("cuda-emu: every kernel variant of sdr/sha256 equals the reference", "[cuda][emu]") {
  const auto c = load_case("Custom64Nodes11LayersPorep32GiBV1_1-A.json");
  const sdr::label_job vjob{c.v.nodes, c.parents.data(), c.v.layers, 1, c.replica_id.data()};
  const auto parents = make_parents(64);
  for (const auto& name : sdr::kernel_variant_names()) {
    const auto k = sdr::parse_kernel_variant(name);
    CHECK(sdr::kernel_variant_name(k) == name);
    for (const auto layout : kLayouts) {
      INFO(name << ", " << sdr::sector_layout_name(layout));
      // The 64-node/11-layer vector.
      sdr::memory_layer_store store(c.v.nodes * 32, c.v.layers);
      sdr::make_emulated_backend({layout, 32, 0, 0, k})->label(vjob, store);
      for (std::uint32_t l = 1; l <= c.v.layers; ++l)
        CHECK(to_hex(store.layer(l), c.v.nodes * 32) == c.v.json.at("labels_hex")[l - 1].get<std::string>());
      // 1, 31, 32, 33 sectors, streamed in 24-node chunks, launches of 10 nodes.
      for (const std::uint32_t sectors : {1u, 31u, 32u, 33u}) {
        const byte_vector ids = make_ids(sectors);
        const sdr::label_job job{64, parents.data(), 3, sectors, ids.data()};
        CHECK(first_difference(label_all(*sdr::make_emulated_backend({layout, 32, 24, 10, k}), job),
                               label_all(*sdr::make_reference_backend(), job)) == -1);
      }
    }
  }
  // Other schemes have the standard kernel only.
  const byte_vector ids = make_ids(1);
  sdr::label_job bjob{64, parents.data(), 1, 1, ids.data()};
  bjob.scheme = {sdr::porep_variant::sdr, hash_family::blake2s};
  sdr::memory_layer_store store(64 * 32, 1);
  CHECK_THROWS_WITH(sdr::make_emulated_backend({sdr::sector_layout::sector_minor, 32, 0, 0, sdr::kernel_variant::vec16})
                        ->label(bjob, store),
                    Catch::Contains("exists for sdr/sha256 only"));
  CHECK_THROWS_WITH(sdr::parse_kernel_variant("fast"), Catch::Contains("valid: auto, standard, vec16, rolled, staged, split"));
  // Block sizes a CUDA launch would refuse are refused by the emulation too.
  for (const std::uint32_t tpb : {0u, 1025u})
    CHECK_THROWS_WITH(sdr::make_emulated_backend({sdr::sector_layout::sector_minor, tpb}),
                      Catch::Contains("threads per block must be 1..1024"));
}

TEST_CASE("cuda-emu: block-per-sector kernels with the predecessor in any base slot", "[cuda][emu]") {
  // The pipelined kernels leave node u - 1 to the round thread wherever a base parent
  // names it. A graph where every base slot often does (api 1.0.0 puts the predecessor in
  // slot 5, random parents sample it too), with launches cut at odd places so that the
  // first node of a launch takes its predecessor from memory.
  constexpr std::uint64_t kNodes = 128;
  std::vector<std::uint32_t> parents(kNodes * sdr::kParents, 0);
  std::uint64_t x = 0x9e3779b97f4a7c15ull;
  auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  std::size_t predecessors = 0;
  for (std::uint64_t v = 1; v < kNodes; ++v)
    for (std::uint32_t k = 0; k < sdr::kParents; ++k) {
      std::uint32_t& p = parents[v * sdr::kParents + k];
      if (k < sdr::kBaseDegree)
        p = next() % 2 == 0 ? static_cast<std::uint32_t>(v - 1) : static_cast<std::uint32_t>(next() % v);
      else
        p = static_cast<std::uint32_t>(next() % kNodes);
      predecessors += k < sdr::kBaseDegree && p + 1 == v;
    }
  CHECK(predecessors > kNodes * 2);
  for (const std::uint32_t sectors : {1u, 3u}) {
    const byte_vector ids = make_ids(sectors);
    const sdr::label_job job{kNodes, parents.data(), 3, sectors, ids.data()};
    const byte_vector expected = label_all(*sdr::make_reference_backend(), job);
    for (const auto k : {sdr::kernel_variant::staged, sdr::kernel_variant::split})
      for (const auto layout : kLayouts)
        for (const std::uint64_t launch : {0ull, 1ull, 5ull, 17ull}) {
          INFO(sdr::kernel_variant_name(k) << ", " << sectors << " sectors, " << sdr::sector_layout_name(layout)
                                           << ", launches of " << launch << " nodes");
          auto be = sdr::make_emulated_backend({layout, 32, launch == 17 ? 40ull : 0ull, launch, k});
          CHECK(first_difference(label_all(*be, job), expected) == -1);
        }
  }
}

TEST_CASE("label kernels: auto picks the latency design for few sectors, block kernels keep their block size",
          "[cuda][emu]") {
  using sdr::kernel_variant;
  const sdr::label_scheme filecoin{};
  const sdr::label_scheme blake{sdr::porep_variant::sdr, hash_family::blake2s};
  CHECK(sdr::resolve_kernel(kernel_variant::automatic, filecoin, 1, 132) == kernel_variant::split);
  CHECK(sdr::resolve_kernel(kernel_variant::automatic, filecoin, 132, 132) == kernel_variant::split);
  CHECK(sdr::resolve_kernel(kernel_variant::automatic, filecoin, 133, 132) == kernel_variant::standard);
  CHECK(sdr::resolve_kernel(kernel_variant::automatic, blake, 1, 132) == kernel_variant::standard);
  CHECK(sdr::resolve_kernel(kernel_variant::rolled, filecoin, 1, 132) == kernel_variant::rolled);
  CHECK(sdr::parse_kernel_variant("auto") == kernel_variant::automatic);
  CHECK(sdr::kernel_choice_names().front() == "auto");
  for (const auto& n : sdr::kernel_variant_names()) CHECK(n != "auto");

  // The emulated backend reports the kernel it ran.
  const auto parents = make_parents(64);
  for (const std::uint32_t sectors : {1u, 200u}) {
    const byte_vector ids = make_ids(sectors);
    const sdr::label_job job{64, parents.data(), 1, sectors, ids.data()};
    sdr::memory_layer_store store(64 * 32ull * sectors, 1);
    const auto t = sdr::make_emulated_backend()->timed_label(job, store);
    CHECK(t.kernel == (sectors == 1 ? "split" : "standard"));
  }

  // One block of the kernel's own size per sector, whatever threads_per_block says.
  using split_k = sdr::label_layer_kernel<sdr::porep_variant::sdr, hash_family::sha256, kernel_variant::split>;
  using standard_k = sdr::label_layer_kernel<sdr::porep_variant::sdr, hash_family::sha256>;
  static_assert(block_functor<split_k> && !block_functor<standard_k>);
  CHECK(sdr::label_grid<split_k>(33, 7).blocks == 33);
  CHECK(sdr::label_grid<split_k>(33, 7).threads == sdr::kPipelinedThreads);
  CHECK(sdr::label_grid<standard_k>(33, 32).blocks == 2);
  // A block kernel launched with another block size is refused, as the device would run it wrong.
  const byte_vector ids = make_ids(1);
  byte_vector layer(64 * 32);
  split_k k;
  static_cast<sdr::label_layer_args&>(k) = {parents.data(), 64, 1, 1, ids.data(), layer.data(), nullptr,
                                            sdr::sector_layout::sector_minor};
  CHECK_THROWS_WITH(emulate_grid(grid_dims{1, 32}, k), Catch::Contains("launched with 32 threads"));
}

TEST_CASE("grid cover refuses grids past CUDA's block limit", "[cuda][emu]") {
  CHECK(cover(kMaxGridBlocks * 32, 32).blocks == kMaxGridBlocks);
  CHECK_THROWS_AS(cover(kMaxGridBlocks * 32 + 1, 32), std::length_error);
  CHECK_THROWS_WITH(cover(1ull << 40, 1), Catch::Contains("more than a grid holds"));
}

TEST_CASE("cuda-emu: hash chain functors equal the portable streaming hashes", "[cuda][emu]") {
  constexpr std::uint64_t kChains = 37, kLength = 5;
  const grid_dims dims = cover(kChains, 32);  // two blocks, 27 idle threads

  SECTION("sha256") {
    byte_vector out(kChains * 32);
    emulate_grid(dims, hashbench::sha256_chain_kernel{kChains, kLength, out.data()});
    for (std::uint64_t gid = 0; gid < kChains; ++gid) {
      sha256::ctx c;
      sha256::init(c);
      for (std::uint64_t k = 0; k < kLength; ++k) {
        std::uint8_t block[64];
        sha256::store_digest(c.h, block);  // state words big-endian, then the chain's words
        for (int i = 0; i < 8; ++i) store_be32(block + 32 + 4 * i, hashbench::chain_word(gid, i));
        c.total = 0;
        c.buf_len = 0;
        sha256::update(c, block, 64);
      }
      std::uint8_t expect[32];
      sha256::store_digest(c.h, expect);
      CHECK(std::equal(expect, expect + 32, out.begin() + 32 * gid));
    }
  }
  SECTION("blake2s") {
    byte_vector out(kChains * 32);
    emulate_grid(dims, hashbench::blake2s_chain_kernel{kChains, kLength, out.data()});
    for (std::uint64_t gid = 0; gid < kChains; ++gid) {
      std::uint8_t state[32];
      std::uint32_t iv[8];
      blake2s::init_state(iv, 32, 0);
      for (int i = 0; i < 8; ++i) store_le32(state + 4 * i, iv[i]);
      for (std::uint64_t k = 0; k < kLength; ++k) {
        std::uint8_t block[64];
        std::copy_n(state, 32, block);
        for (int i = 0; i < 8; ++i) store_le32(block + 32 + 4 * i, hashbench::chain_word(gid, i));
        // A step from the IV is blake2s-256 of the block; later steps restart from the state.
        blake2s::ctx c;
        blake2s::init(c, 32);
        for (int i = 0; i < 8; ++i) c.h[i] = load_le32(state + 4 * i);
        blake2s::update(c, block, 64);
        blake2s::final(c, state);
        if (k == 0) {
          std::uint8_t d[32];
          blake2s::digest(d, 32, block, 64);
          CHECK(std::equal(d, d + 32, state));
        }
      }
      CHECK(std::equal(state, state + 32, out.begin() + 32 * gid));
    }
  }
  SECTION("blake2b") {
    byte_vector out(kChains * 64);
    emulate_grid(dims, hashbench::blake2b_chain_kernel{kChains, kLength, out.data()});
    for (std::uint64_t gid = 0; gid < kChains; ++gid) {
      std::uint8_t state[64];
      std::uint64_t iv[8];
      blake2b::init_state(iv, 64, 0);
      for (int i = 0; i < 8; ++i) store_le64(state + 8 * i, iv[i]);
      for (std::uint64_t k = 0; k < kLength; ++k) {
        std::uint8_t block[128];
        std::copy_n(state, 64, block);
        for (int i = 0; i < 16; ++i) store_le32(block + 64 + 4 * i, hashbench::chain_word(gid, i));
        blake2b::ctx c;
        blake2b::init(c, 64);
        for (int i = 0; i < 8; ++i) c.h[i] = load_le64(state + 8 * i);
        blake2b::update(c, block, 128);
        blake2b::final(c, state);
        if (k == 0) {
          std::uint8_t d[64];
          blake2b::digest(d, 64, block, 128);
          CHECK(std::equal(d, d + 64, state));
        }
      }
      CHECK(std::equal(state, state + 64, out.begin() + 64 * gid));
    }
  }
}

TEST_CASE("cuda-emu: sector-major to node-major transpose", "[cuda][emu]") {
  constexpr std::uint64_t kNodes = 5;
  constexpr std::uint32_t kSectors = 3;
  byte_vector src(kNodes * kSectors * 32), dst(src.size(), 0);
  for (std::uint32_t s = 0; s < kSectors; ++s)
    for (std::uint64_t i = 0; i < kNodes; ++i)
      std::fill_n(src.begin() + (s * kNodes + i) * 32, 32, static_cast<std::uint8_t>(16 * s + i));
  emulate_grid(cover(kNodes * kSectors, 4), sdr::relayout_kernel{src.data(), dst.data(), kNodes, kSectors});
  for (std::uint64_t i = 0; i < kNodes; ++i)
    for (std::uint32_t s = 0; s < kSectors; ++s) {
      const auto* p = dst.data() + (i * kSectors + s) * 32;
      CHECK(std::all_of(p, p + 32, [&](std::uint8_t b) { return b == 16 * s + i; }));
    }
}

TEST_CASE("cuda-emu: layout names", "[cuda][emu]") {
  CHECK(sdr::parse_sector_layout("sector-major") == sdr::sector_layout::sector_major);
  CHECK(std::string(sdr::sector_layout_name(sdr::parse_sector_layout("sector-minor"))) == "sector-minor");
  CHECK_THROWS_WITH(sdr::parse_sector_layout("rows"), Catch::Contains("valid: sector-minor, sector-major"));
}

#ifdef POREPLAB_WITH_CUDA

namespace {

constexpr std::uint64_t kGiB = 1ull << 30;

cuda::memory_plan plan(std::uint64_t sector_bytes, std::uint32_t sectors, std::uint64_t device_gib,
                       std::uint64_t chunk = 0) {
  cuda::memory_request r;
  r.sector_bytes = sector_bytes;
  r.sectors = sectors;
  r.layers = 11;
  r.free_bytes = device_gib * kGiB;
  r.chunk_nodes = chunk;
  return cuda::plan_memory(r);
}

}  // namespace

TEST_CASE("cuda memory planner: 2KiB..64GiB sectors on 24/80/141 GiB devices", "[cuda][emu]") {
  for (const std::uint64_t dev : {24ull, 80ull, 141ull})
    for (std::uint64_t size = 2048; size <= 64 * kGiB; size *= 2) {
      INFO(size << " B sectors on a " << dev << " GiB device");
      const auto p1 = plan(size, 1, dev);
      CHECK(p1.nodes == size / 32);
      CHECK(p1.parent_table_bytes == size / 32 * 56);
      CHECK(p1.resident_bytes == 2 * size + size / 32 * 56 + 32);
      CHECK(p1.host_store_bytes == 11 * size);
      CHECK(p1.available_bytes == dev * kGiB - (256ull << 20));
      if (p1.fits()) CHECK(p1.device_bytes <= p1.available_bytes);
      // The largest count fits and one more does not.
      if (p1.max_sectors > 0 && p1.max_sectors < 100000) {
        CHECK(plan(size, p1.max_sectors, dev).fits());
        CHECK_FALSE(plan(size, p1.max_sectors + 1, dev).fits());
      }
      if (p1.max_resident_sectors > 0 && p1.max_resident_sectors < 100000) {
        CHECK(plan(size, p1.max_resident_sectors, dev).parents == cuda::parent_placement::resident);
        CHECK(plan(size, p1.max_resident_sectors + 1, dev).parents != cuda::parent_placement::resident);
      }
    }

  // 32 GiB: two layers (64 GiB) and the table (56 GiB) fit 141 GiB but not 80 GiB,
  // where the table is streamed in the largest chunks.
  CHECK(plan(32 * kGiB, 1, 141).parents == cuda::parent_placement::resident);
  const auto s80 = plan(32 * kGiB, 1, 80);
  CHECK(s80.parents == cuda::parent_placement::streamed);
  CHECK(s80.chunk_nodes == cuda::kMaxChunkNodes);
  CHECK(s80.device_bytes == 64 * kGiB + 32 + 2 * cuda::kMaxChunkNodes * 56);
  CHECK(s80.pinned_host_bytes == 2 * cuda::kMaxChunkNodes * 56);
  CHECK(plan(32 * kGiB, 2, 141).parents == cuda::parent_placement::streamed);
  CHECK(plan(32 * kGiB, 1, 141).max_sectors == 2);
  CHECK_FALSE(plan(32 * kGiB, 1, 24).fits());
  CHECK(plan(64 * kGiB, 1, 141).parents == cuda::parent_placement::streamed);

  // Refusals say what would fit.
  const auto r80 = plan(64 * kGiB, 1, 80);
  CHECK(r80.parents == cuda::parent_placement::refused);
  CHECK(r80.max_sectors == 0);
  CHECK(r80.max_sector_bytes == 32 * kGiB);
  CHECK_THAT(r80.message, Catch::Contains("not even one sector of 64 GiB fits") &&
                              Catch::Contains("; 1 sector fits at up to 32 GiB"));
  const auto r24 = plan(2 * kGiB, 8, 24);
  CHECK(r24.parents == cuda::parent_placement::refused);
  CHECK(r24.max_sectors == 5);
  CHECK_THAT(r24.message, Catch::Contains("at most 5 sectors of 2 GiB fit") && Catch::Contains("; 8 sectors fit at up to 1 GiB each"));

  // Small sectors: everything resident, hundreds of thousands of sectors possible.
  const auto small = plan(2048, 32, 24);
  CHECK(small.parents == cuda::parent_placement::resident);
  CHECK(small.device_bytes == 2 * 32 * 2048 + 64 * 56 + 32 * 32);
  CHECK(small.max_sectors > 1000000);

  // Forced streaming; a chunk at least the graph means resident.
  const auto forced = plan(2048, 4, 24, 16);
  CHECK(forced.parents == cuda::parent_placement::streamed);
  CHECK(forced.chunk_nodes == 16);
  CHECK(forced.device_bytes == 2 * 4 * 2048 + 4 * 32 + 2 * 16 * 56);
  CHECK(plan(2048, 4, 24, 64).parents == cuda::parent_placement::resident);

  CHECK(cuda::format_bytes(2048) == "2 KiB");
  CHECK(cuda::format_bytes(3 * kGiB / 2) == "1.5 GiB");
  CHECK(cuda::format_bytes(100) == "100 B");
  CHECK_THROWS_AS(plan(3000, 1, 24), std::invalid_argument);
  CHECK_THROWS_AS(plan(2048, 0, 24), std::invalid_argument);
}

namespace {

bool have_device() { return test::usable_cuda_device(); }

}  // namespace

TEST_CASE("cuda: launch bounds, build architectures, device requirement", "[cuda][emu]") {
  // Launches get fewer nodes as sectors need more waves of the device's thread slots.
  CHECK(cuda::launch_nodes_for(1, 270336) == cuda::kLaunchNodeSteps);
  CHECK(cuda::launch_nodes_for(270336, 270336) == cuda::kLaunchNodeSteps);
  CHECK(cuda::launch_nodes_for(270337, 270336) == cuda::kLaunchNodeSteps / 2);
  CHECK(cuda::launch_nodes_for(1u << 30, 1024) == cuda::kMinLaunchNodes);
  CHECK(cuda::launch_nodes_for(5, 0) == cuda::kLaunchNodeSteps / 5);

  const auto both = cuda::parse_archs("80;90");
  CHECK(both.sass == std::vector<int>{80, 90});
  CHECK(both.ptx == std::vector<int>{80, 90});
  const auto bundle = cuda::parse_archs("80-real,90");
  CHECK(bundle.sass == std::vector<int>{80, 90});
  CHECK(bundle.ptx == std::vector<int>{90});
  CHECK_FALSE(cuda::parse_archs("native").known);
  CHECK(cuda::unsupported_reason(8, 0, bundle).empty());
  CHECK(cuda::unsupported_reason(8, 6, bundle).empty());   // sm_80 SASS runs on 8.x
  CHECK(cuda::unsupported_reason(9, 0, bundle).empty());
  CHECK(cuda::unsupported_reason(12, 0, bundle).empty());  // JIT from compute_90
  CHECK_THAT(cuda::unsupported_reason(7, 0, bundle), Catch::Contains("compute capability 7.0") &&
                                                         Catch::Contains("needs sm_80 or newer"));
  CHECK_THAT(cuda::unsupported_reason(10, 0, cuda::parse_archs("80-real;90-real")),
             Catch::Contains("-DCMAKE_CUDA_ARCHITECTURES=100"));
  CHECK(cuda::unsupported_reason(7, 5, cuda::parse_archs("all")).empty());  // unknown list: the launch decides
  // This build's list is readable and covers sm_80 and sm_90.
  CHECK(cuda::compiled_archs().known);
  CHECK(cuda::unsupported_reason(8, 0, cuda::compiled_archs()).empty());
  CHECK(cuda::unsupported_reason(9, 0, cuda::compiled_archs()).empty());

  const char* old = std::getenv("POREPLAB_REQUIRE_CUDA");
  const std::string saved = old != nullptr ? old : "";
  setenv("POREPLAB_REQUIRE_CUDA", "1", 1);
  CHECK(cuda::cuda_required());
  setenv("POREPLAB_REQUIRE_CUDA", "0", 1);
  CHECK_FALSE(cuda::cuda_required());
  if (old != nullptr) setenv("POREPLAB_REQUIRE_CUDA", saved.c_str(), 1); else unsetenv("POREPLAB_REQUIRE_CUDA");
}

TEST_CASE("cuda: without a device the backend and benchmarks refuse clearly", "[cuda]") {
  const auto r = cuda::query_devices();
  if (r.available) {
    CHECK_THROWS_WITH(cuda::make_cuda_backend({sdr::sector_layout::sector_minor, 32, 9999}),
                      Catch::Contains("does not exist"));
    return;
  }
  CHECK_FALSE(r.reason.empty());
  CHECK_THROWS_WITH(cuda::make_cuda_backend(), Catch::StartsWith("cuda backend unavailable: ") &&
                                                   Catch::Contains(r.reason));
  CHECK_THROWS_WITH(cuda::bench_hash_gpu({}), Catch::Contains("unavailable"));
  const std::vector<std::uint32_t> parents(64 * 14, 0);
  const byte_vector ids(32, 1);
  sdr::memory_layer_store store(64 * 32, 1);
  CHECK_THROWS_WITH(cuda::time_label({64, parents.data(), 1, 1, ids.data()}, store), Catch::Contains("unavailable"));
  // cuda-emu needs no device.
  CHECK(cuda::make_cuda_emu_backend()->name() == "cuda-emu");
}

TEST_CASE("cuda: device labels equal the vectors and the reference", "[cuda]") {
  if (!have_device()) return;
  const auto c = load_case("Custom64Nodes11LayersPorep32GiBV1_1-A.json");
  const sdr::label_job vjob{c.v.nodes, c.parents.data(), c.v.layers, 1, c.replica_id.data()};
  for (const auto layout : kLayouts)
    for (const std::uint64_t chunk : {0ull, 16ull}) {
      INFO(sdr::sector_layout_name(layout) << ", chunk " << chunk);
      auto be = cuda::make_cuda_backend({layout, 32, 0, chunk, 0});
      CHECK(be->name() == "cuda");
      sdr::memory_layer_store store(c.v.nodes * 32, c.v.layers);
      be->label(vjob, store);
      for (std::uint32_t l = 1; l <= c.v.layers; ++l)
        CHECK(to_hex(store.layer(l), c.v.nodes * 32) == c.v.json.at("labels_hex")[l - 1].get<std::string>());
    }

  const auto parents = make_parents(2048);
  for (const std::uint32_t sectors : {1u, 31u, 32u, 33u, 200u}) {
    const byte_vector ids = make_ids(sectors);
    const sdr::label_job job{2048, parents.data(), 2, sectors, ids.data()};
    const byte_vector expected = label_all(*sdr::make_reference_backend(), job);
    for (const auto layout : kLayouts)
      for (const std::uint32_t tpb : {32u, 128u}) {
        INFO(sectors << " sectors, " << sdr::sector_layout_name(layout) << ", " << tpb << " threads/block");
        auto be = cuda::make_cuda_backend({layout, tpb, 0, sectors == 33 ? 300ull : 0ull, 0});
        CHECK(first_difference(label_all(*be, job), expected) == -1);
      }
  }
}

TEST_CASE("cuda: every label kernel design on the device equals the vector and the reference", "[cuda]") {
  if (!have_device()) return;
  const auto c = load_case("Custom64Nodes11LayersPorep32GiBV1_1-A.json");
  const sdr::label_job vjob{c.v.nodes, c.parents.data(), c.v.layers, 1, c.replica_id.data()};
  const auto parents = make_parents(2048);
  for (const auto& name : sdr::kernel_variant_names()) {
    const auto k = sdr::parse_kernel_variant(name);
    for (const auto layout : kLayouts) {
      INFO(name << ", " << sdr::sector_layout_name(layout));
      cuda::backend_options o;
      o.layout = layout;
      o.kernel = k;
      sdr::memory_layer_store store(c.v.nodes * 32, c.v.layers);
      cuda::make_cuda_backend(o)->label(vjob, store);
      for (std::uint32_t l = 1; l <= c.v.layers; ++l)
        CHECK(to_hex(store.layer(l), c.v.nodes * 32) == c.v.json.at("labels_hex")[l - 1].get<std::string>());
      for (const std::uint32_t sectors : {1u, 31u, 32u, 33u}) {
        INFO(sectors << " sectors");
        const byte_vector ids = make_ids(sectors);
        const sdr::label_job job{2048, parents.data(), 2, sectors, ids.data()};
        o.launch_nodes = sectors == 33 ? 300 : 0;
        o.chunk_nodes = sectors == 31 ? 512 : 0;
        CHECK(first_difference(label_all(*cuda::make_cuda_backend(o), job),
                               label_all(*sdr::make_reference_backend(), job)) == -1);
      }
    }
  }
}

TEST_CASE("cuda: device memory limit and label timing and hash benchmarks", "[cuda]") {
  if (!have_device()) return;
  const auto parents = make_parents(64);
  const byte_vector ids = make_ids(4);
  const sdr::label_job job{64, parents.data(), 2, 4, ids.data()};
  sdr::memory_layer_store store(64 * 4 * 32, 2);
  // 1 KiB of device memory holds nothing: the refusal names what would fit.
  auto tiny = cuda::make_cuda_backend({sdr::sector_layout::sector_minor, 32, 0, 0, (256ull << 20) + 1024});
  CHECK_THROWS_WITH(tiny->label(job, store), Catch::Contains("cuda backend: ") && Catch::Contains("fit"));

  const auto t = cuda::time_label(job, store);
  CHECK(t.plan.parents == cuda::parent_placement::resident);
  CHECK(t.kernel_s > 0);
  CHECK(t.load_s > 0);
  CHECK(t.launch_nodes >= cuda::kMinLaunchNodes);
  CHECK(t.label_launches == 2);
  CHECK(t.thread_slots > 0);
  // A launch bound of 16 nodes: four launches a layer, same labels.
  cuda::backend_options bounded;
  bounded.launch_nodes = 16;
  const auto tb = cuda::time_label(job, store, bounded);
  CHECK(tb.label_launches == 8);
  // Blocks of 1024 threads: a job of 4 sectors launches one warp, which every kernel runs.
  cuda::backend_options wide;
  wide.threads_per_block = 1024;
  CHECK_NOTHROW(cuda::time_label(job, store, wide));
  {
    // 1024 BLAKE2b-256 sectors fill a 1024-thread block, more than a kernel of over 64
    // registers a thread can launch: refused before anything is allocated, naming the
    // limit, or (a kernel that fits) labeled right.
    sdr::label_job wide_job{64, parents.data(), 2, 1024, nullptr};
    const byte_vector wide_ids = make_ids(1024);
    wide_job.replica_ids = wide_ids.data();
    wide_job.scheme = {sdr::porep_variant::sdr, hash_family::blake2b};
    sdr::memory_layer_store wide_store(64 * 1024 * 32, 2);
    try {
      const auto tw = cuda::time_label(wide_job, wide_store, wide);
      CHECK(tw.thread_slots > 0);
      CHECK(first_difference(label_all(*sdr::make_reference_backend(), wide_job), [&] {
              byte_vector b(wide_store.layer(1), wide_store.layer(1) + wide_store.layer_bytes());
              b.insert(b.end(), wide_store.layer(2), wide_store.layer(2) + wide_store.layer_bytes());
              return b;
            }()) == -1);
    } catch (const std::invalid_argument& e) {
      CHECK_THAT(e.what(), Catch::Contains("threads per block, not 1024") && Catch::Contains("registers a thread"));
    }
  }
  CHECK(t.layer_kernel_s.size() == 2);
  CHECK(t.end_to_end_s >= t.kernel_s);
  CHECK(first_difference(label_all(*sdr::make_reference_backend(), job), [&] {
          byte_vector b(store.layer(1), store.layer(1) + store.layer_bytes());
          b.insert(b.end(), store.layer(2), store.layer(2) + store.layer_bytes());
          return b;
        }()) == -1);

  for (const hash_family a : hash_families())
    for (const auto mode : {hash_bench_mode::chain, hash_bench_mode::throughput}) {
      cuda::hash_bench_options o;
      o.algo = a;
      o.mode = mode;
      o.chain_length = 256;
      o.chains = mode == hash_bench_mode::throughput ? 4096 : 0;
      o.samples = 2;
      const auto r = cuda::bench_hash_gpu(o);
      INFO(hash_family_name(r.options.algo) << " " << hash_bench_mode_name(mode));
      CHECK(r.verified);
      CHECK(r.max_threads_per_block > 0);
      CHECK(r.compressions == (mode == hash_bench_mode::chain ? 256u : 4096u * 256u));
      CHECK(r.median_s > 0);
    }
}

#endif  // POREPLAB_WITH_CUDA
