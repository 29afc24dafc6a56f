// PC2 built chunk by chunk (pc2_build.hpp) against the whole-sector reference
// (pc2_reference): commitments and every tree file byte, for each host hasher, every
// shape, 2 and 11 layers and chunk sizes from 8 nodes to a whole tree.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/gpu_model.hpp"
#include "model/pc2_model.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/pc2.hpp"
#include "poreplab/sdr/pc2_build.hpp"
#include "poreplab/seal/vector_file.hpp"
#include "support.hpp"

using namespace poreplab;
using namespace poreplab::sdr;

namespace {

std::vector<std::uint8_t> random_nodes(std::mt19937_64& rng, std::uint64_t nodes) {
  std::vector<std::uint8_t> v(nodes * 32);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  for (std::uint64_t i = 0; i < nodes; ++i) v[32 * i + 31] &= 0x3f;  // below 2^254 < r
  return v;
}

struct built {
  pc2_result res;
  std::vector<std::vector<std::uint8_t>> files;  // pc2_tree_files order
};

built build(std::span<const std::uint8_t* const> labels, const std::uint8_t* replica, std::uint64_t nodes,
            const tree_shape& shape, pc2_hasher& h, std::uint64_t chunk) {
  built out;
  const std::uint64_t per_tree = nodes / shape.base_count();
  out.files.resize(2 * shape.base_count());
  for (std::uint32_t t = 0; t < shape.base_count(); ++t) {
    out.files[t].assign(tree_nodes(per_tree, 8) * 32, 0xee);
    out.files[shape.base_count() + t].assign(tree_r_last_stored_nodes(per_tree, 8) * 32, 0xee);
  }
  pc2_job job;
  job.nodes = nodes;
  job.layers = static_cast<std::uint32_t>(labels.size());
  job.shape = shape;
  job.chunk_nodes = chunk;
  job.read_label = [&](std::uint32_t l, std::uint64_t first, std::uint64_t count, std::uint8_t* o) {
    std::memcpy(o, labels[l - 1] + 32 * first, 32 * count);
  };
  job.read_replica = [&](std::uint64_t first, std::uint64_t count, std::uint8_t* o) {
    std::memcpy(o, replica + 32 * first, 32 * count);
  };
  job.write = [&](std::uint32_t f, std::uint64_t off, const std::uint8_t* p, std::uint64_t n) {
    REQUIRE(f < out.files.size());
    REQUIRE(off + n <= out.files[f].size());
    std::memcpy(out.files[f].data() + off, p, n);
  };
  out.res = build_pc2(job, h);
  return out;
}

void check_against_reference(std::span<const std::uint8_t* const> labels, const std::uint8_t* replica,
                             std::uint64_t nodes, const tree_shape& shape, const std::vector<std::uint64_t>& chunks) {
  const pc2_output want = pc2_reference(labels, replica, nodes, shape, true);
  auto ref = make_reference_pc2_hasher();
  auto host = make_host_pc2_hasher(2);
  for (pc2_hasher* h : {ref.get(), host.get()})
    for (const std::uint64_t chunk : chunks) {
      INFO(h->name() << ", chunk " << chunk << ", " << nodes << " nodes, " << labels.size() << " layers, "
                     << shape.base_count() << " trees");
      const built got = build(labels, replica, nodes, shape, *h, chunk);
      CHECK(got.res.comm_c == want.comm_c);
      CHECK(got.res.comm_r_last == want.comm_r_last);
      CHECK(got.res.comm_r == want.comm_r);
      for (std::uint32_t t = 0; t < shape.base_count(); ++t) {
        CHECK(got.files[t] == want.tree_c_files[t]);
        CHECK(got.files[shape.base_count() + t] == want.tree_r_last_files[t]);
      }
    }
}

}  // namespace

TEST_CASE("PC2 built in chunks: the 2KiB vector's commitments on both host hashers", "[pc2]") {
  const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  std::vector<std::vector<std::uint8_t>> layers;
  for (const auto& hex : v.json.at("labels_hex")) layers.push_back(from_hex(hex.get<std::string>(), 64 * 32, "labels"));
  const auto replica = from_hex(v.json.at("replica_hex").get<std::string>(), 64 * 32, "replica");
  const std::uint8_t* ptr[2] = {layers[0].data(), layers[1].data()};
  std::unique_ptr<pc2_hasher> hashers[] = {make_reference_pc2_hasher(), make_host_pc2_hasher(0)};
  for (auto& h : hashers) {
    INFO(h->name());
    const pc2_result r = build_pc2_in_memory(ptr, replica.data(), 64, tree_shape_for_sector_size(2048), *h);
    CHECK(to_hex(r.comm_c) == v.json.at("comm_c").get<std::string>());
    CHECK(to_hex(r.comm_r_last) == v.json.at("comm_r_last").get<std::string>());
    CHECK(to_hex(r.comm_r) == v.json.at("comm_r").get<std::string>());
  }
  check_against_reference(ptr, replica.data(), 64, tree_shape_for_sector_size(2048), {8, 64, 512});
}

TEST_CASE("PC2 built in chunks equals the reference for every shape, 2 and 11 layers", "[pc2]") {
  // No rust-fil-proofs vector exists here for the 8- and 16-tree shapes or 11-layer
  // columns: the chunked build is checked against pc2_reference, which the vector and
  // known-answer tests of test_pc2.cpp check.
  std::mt19937_64 rng(0x9c2);
  const struct {
    std::uint64_t nodes;
    tree_shape shape;
  } cases[] = {{512, {8, 0, 0}}, {512, {8, 8, 0}}, {1024, {8, 8, 2}}, {128, {8, 2, 0}}};
  for (const auto& c : cases)
    for (const std::uint32_t layers : {2u, 11u}) {
      std::vector<std::vector<std::uint8_t>> lab;
      std::vector<const std::uint8_t*> ptr;
      for (std::uint32_t l = 0; l < layers; ++l) lab.push_back(random_nodes(rng, c.nodes));
      for (const auto& x : lab) ptr.push_back(x.data());
      const auto replica = random_nodes(rng, c.nodes);
      check_against_reference(ptr, replica.data(), c.nodes, c.shape,
                              test::kSanitized ? std::vector<std::uint64_t>{64} : std::vector<std::uint64_t>{8, 64, 512});
    }
}

TEST_CASE("PC2 build refuses bad shapes, chunk sizes and values that are not field elements", "[pc2]") {
  std::mt19937_64 rng(3);
  auto lab = random_nodes(rng, 64);
  auto rep = random_nodes(rng, 64);
  const std::uint8_t* two[2] = {lab.data(), lab.data()};
  const std::uint8_t* three[3] = {lab.data(), lab.data(), lab.data()};
  auto h = make_host_pc2_hasher(1);
  CHECK_THROWS_AS(build_pc2_in_memory(three, rep.data(), 64, {8, 0, 0}, *h), std::invalid_argument);
  CHECK_THROWS_AS(build_pc2_in_memory(two, rep.data(), 32, {8, 0, 0}, *h), std::invalid_argument);
  CHECK_THROWS_AS(build_pc2_in_memory(two, rep.data(), 64, {8, 8, 2}, *h), std::invalid_argument);  // 16 trees of 4
  pc2_job job;
  job.nodes = 64;
  job.layers = 2;
  job.chunk_nodes = 16;
  CHECK_THROWS_WITH(build_pc2(job, *h), Catch::Contains("chunk of 16 nodes"));
  lab[32 * 9 + 31] = 0xff;
  CHECK_THROWS_WITH(build_pc2_in_memory(two, rep.data(), 64, {8, 0, 0}, *h),
                    Catch::Contains("layer 1 label of node 9 is not a canonical field element"));
  lab[32 * 9 + 31] = 0;
  std::memset(rep.data() + 32 * 63, 0xff, 32);
  CHECK_THROWS_WITH(build_pc2_in_memory(two, rep.data(), 64, {8, 0, 0}, *h),
                    Catch::Contains("replica node 63 is not a canonical field element"));
}

TEST_CASE("PC2 multiply counts: neptune's optimized form", "[pc2]") {
  CHECK(poseidon_multiplies(2) == 584);
  CHECK(poseidon_multiplies(8) == 8 * (81 + 27) + 57 * 20);
  CHECK(poseidon_multiplies(11) == 8 * (144 + 36) + 57 * 26);
  // 32GiB: 2^30 columns of 11, two trees of 8 x 8^9 leaves each.
  const double m = pc2_multiplies(std::uint64_t{1} << 30, 11, {8, 8, 0});
  CHECK(m > 3.7e12);
  CHECK(m < 3.8e12);
}

TEST_CASE("PC2's GPU model: the FMA-pipe bound of the latency table, IMAD.HI at either rate", "[pc2][gpu-model]") {
  const auto table = gpu_model::load_latency_table({});
  const auto& a = gpu_model::arch_of(table, "sm_90");
  const double mults = pc2_multiplies(std::uint64_t{1} << 30, 11, {8, 8, 0});
  const auto full = gpu_model::model_pc2(a, mults, true);
  const auto half = gpu_model::model_pc2(a, mults, false);
  // 256 slots a multiply at one pass each; the table's IMAD.HI (two passes) makes it 384.
  CHECK(full.slots_per_mul == Approx(256));
  CHECK(half.slots_per_mul == Approx(384));
  CHECK(full.fr_mul_per_s == Approx(a.sm_count * a.schedulers_per_sm * 32 / (256 * 2) * a.clock_mhz * 1e6));
  CHECK(full.sector_seconds == Approx(mults / full.fr_mul_per_s));
  CHECK(half.sector_seconds > full.sector_seconds);
  CHECK_THAT(full.basis, Catch::Contains("IMAD.HI the same"));
}

TEST_CASE("PC2's GPU model from this build's multiply: issue slots and pipes of fr32::mul's SASS", "[pc2][gpu-model]") {
  const auto table = gpu_model::load_latency_table({});
  const double mults = pc2_multiplies(std::uint64_t{1} << 30, 11, {8, 8, 0});
  bool any = false;
  for (const auto& [name, a] : table.archs) {
    const auto counts = gpu_model::fr32_mul_counts(a);
    if (!counts) continue;
    any = true;
    INFO(name << ": " << counts->instructions << " instructions, " << counts->busiest_pipe << " "
              << counts->pipe_cycles);
    // 8 x 8 words of products and reductions: at least the 128 products (a wide
    // multiply-add gives both halves of one), and far from an unrolled mess.
    CHECK(counts->instructions >= 128);
    CHECK(counts->instructions < 2000);
    // Each product's halves fused into one wide multiply-add with carry: at most 560 cycles
    // a warp multiply (the minimum is 512; the separate lo and hi chains took 615).
    CHECK(std::max(counts->issue_cycles, counts->pipe_cycles) <= 560);
    CHECK(counts->issue_cycles == Approx(static_cast<double>(counts->instructions) / a.issue_per_scheduler));
    const auto e = gpu_model::model_pc2_sass(a, mults);
    REQUIRE(e);
    CHECK(e->sector_seconds >= gpu_model::model_pc2(a, mults, true).sector_seconds * 0.99);
    CHECK_THAT(e->basis, Catch::Contains("fr32::mul's SASS"));
    CHECK(gpu_model::best_pc2_model(a, mults).sector_seconds == Approx(e->sector_seconds));
  }
#ifdef POREPLAB_WITH_CUDA
  // A CUDA build embeds the multiply for every architecture it compiled.
  if (gpu_model::embedded_note().empty()) CHECK(any);
#else
  CHECK_FALSE(any);
  const auto& a = gpu_model::arch_of(table, "sm_90");
  CHECK(gpu_model::best_pc2_model(a, mults).slots_per_mul == Approx(256));
#endif
}
