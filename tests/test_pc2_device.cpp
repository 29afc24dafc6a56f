// PC2's device code on the host: the GPU's 32-bit-word Fr arithmetic (fr32.hpp) against
// fr::mont, and the device Poseidon kernel under cuda-emu against the reference hasher,
// the vectors and pc2_sealed. [cuda]: the same on a real device, skipped without one.
#include <algorithm>
#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_support.hpp"
#include "poreplab/field/fr.hpp"
#include "poreplab/field/fr32.hpp"
#include "poreplab/field/fr_mont.hpp"
#include "poreplab/hash/poseidon.hpp"
#include "poreplab/hash/poseidon_fr32.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/emulated_backend.hpp"
#include "poreplab/sdr/pc2_build.hpp"
#include "poreplab/sdr/pc2_kernel.hpp"
#include "poreplab/seal/vector_file.hpp"
#include "support.hpp"
#include "bench/pc2.hpp"
#include "util/field_data.hpp"

#ifdef POREPLAB_WITH_CUDA
#include "poreplab/cuda/backend.hpp"
#endif

using namespace poreplab;
namespace m = poreplab::fr::mont;

namespace {

// Canonical values where carries and the final subtraction turn, then random ones.
std::vector<m::elem> test_values(std::size_t random) {
  const m::elem r{{fr::modulus_limb(0), fr::modulus_limb(1), fr::modulus_limb(2), fr::modulus_limb(3)}};
  m::elem r1 = r, r2 = r;
  r1.l[0] -= 1;
  r2.l[0] -= 2;
  const std::uint64_t all = ~std::uint64_t{0};
  std::vector<m::elem> v{{{0, 0, 0, 0}},
                         {{1, 0, 0, 0}},
                         r1,
                         r2,
                         {{all, all, all, 0}},
                         {{0, 0, 0, std::uint64_t{1} << 62}},
                         {{all, 0, all, 0x73eda753299d7d47ull}},
                         m::one()};
  std::mt19937_64 rng(0x32);
  while (v.size() < 8 + random) {
    const m::elem x{{rng(), rng(), rng(), rng() >> 1}};
    if (!fr::geq_modulus(x.l)) v.push_back(x);
  }
  return v;
}

std::vector<std::uint8_t> nodes(std::uint64_t n, std::uint64_t seed) { return field_element_data(32 * n, seed); }

// The hasher against the reference for columns of 2 and 11 layers and levels of 2 and
// 8, at counts around a block's and a warp's edges; nothing written past `count`.
void check_against_reference(sdr::pc2_hasher& h, const std::vector<std::uint64_t>& counts) {
  auto ref = sdr::make_reference_pc2_hasher(0);
  for (const std::uint64_t count : counts) {
    INFO(count << " hashes");
    for (const std::size_t layers : {std::size_t{2}, std::size_t{11}}) {
      INFO(layers << " layers");
      std::vector<std::vector<std::uint8_t>> lab;
      std::vector<const std::uint8_t*> ptr;
      for (std::size_t l = 0; l < layers; ++l) lab.push_back(nodes(count, 7 * count + l + 1));
      for (const auto& x : lab) ptr.push_back(x.data());
      std::vector<std::uint8_t> got(32 * count + 32, 0xee), want(32 * count);
      h.hash_columns(ptr, count, got.data());
      ref->hash_columns(ptr, count, want.data());
      CHECK(std::memcmp(got.data(), want.data(), want.size()) == 0);
      CHECK(got[32 * count] == 0xee);
    }
    for (const std::uint32_t arity : {2u, 8u}) {
      INFO("arity " << arity);
      const auto in = nodes(count * arity, 11 * count + arity);
      std::vector<std::uint8_t> got(32 * count + 32, 0xee), want(32 * count);
      h.hash_level(in.data(), count, arity, got.data());
      ref->hash_level(in.data(), count, arity, want.data());
      CHECK(std::memcmp(got.data(), want.data(), want.size()) == 0);
      CHECK(got[32 * count] == 0xee);
    }
  }
  CHECK_THROWS_WITH(h.hash_level(nullptr, 1, 4, nullptr), Catch::Contains("no PC2 kernel hashes 4 inputs"));
}

// Runs PTX text of the integer subset fr32.hpp's device code uses (add, sub, mad.lo/hi,
// their carry forms, .cc) over 32-bit operands: reg[n] is operand %n, and an operand may
// be a number. The carry flag as the PTX ISA defines it: carry out of add and mad, borrow
// out of sub.
void run_ptx(const char* text, std::vector<std::uint32_t>& reg) {
  std::istringstream in(text);
  std::string line;
  bool cf = false;
  auto value = [&](const std::string& t) -> std::uint64_t {
    if (t[0] == '%') return reg.at(std::stoul(t.substr(1)));
    return std::stoull(t, nullptr, 0);
  };
  while (std::getline(in, line, ';')) {
    std::istringstream words(line);
    std::string op, operand;
    std::vector<std::string> args;
    words >> op;
    if (op.empty()) continue;
    while (std::getline(words >> std::ws, operand, ',')) args.push_back(operand.substr(0, operand.find_last_not_of(" \t\n") + 1));
    const bool sets_cf = op.find(".cc") != std::string::npos;
    const std::string base = op.substr(0, op.find('.'));
    const bool carry_in = base == "addc" || base == "subc" || base == "madc";
    REQUIRE(op.substr(op.size() - 4) == ".u32");
    const std::uint64_t a = value(args.at(1)), b = value(args.at(2)), in_cf = carry_in && cf ? 1 : 0;
    std::uint64_t wide = 0;
    bool out_cf = false;
    if (base == "add" || base == "addc") {
      wide = a + b + in_cf;
      out_cf = (wide >> 32) != 0;
    } else if (base == "sub" || base == "subc") {
      wide = a - b - in_cf;
      out_cf = a < b + in_cf;
    } else if (base == "mad" || base == "madc") {
      const std::uint64_t p = a * b;
      const bool hi = op.find(".hi") != std::string::npos;
      REQUIRE((hi || op.find(".lo") != std::string::npos));
      wide = (hi ? p >> 32 : p & 0xffffffffu) + value(args.at(3)) + in_cf;
      out_cf = (wide >> 32) != 0;
    } else {
      FAIL("run_ptx: no " << op);
    }
    reg.at(std::stoul(args.at(0).substr(1))) = static_cast<std::uint32_t>(wide);
    if (sets_cf) cf = out_cf;
  }
}

void check_2kib_vector(sdr::pc2_hasher& h) {
  const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  std::vector<std::vector<std::uint8_t>> layers;
  for (const auto& hex : v.json.at("labels_hex")) layers.push_back(from_hex(hex.get<std::string>(), 64 * 32, "labels"));
  const auto replica = from_hex(v.json.at("replica_hex").get<std::string>(), 64 * 32, "replica");
  const std::uint8_t* ptr[2] = {layers[0].data(), layers[1].data()};
  const sdr::pc2_result r = sdr::build_pc2_in_memory(ptr, replica.data(), 64, sdr::tree_shape_for_sector_size(2048), h);
  CHECK(to_hex(r.comm_c) == v.json.at("comm_c").get<std::string>());
  CHECK(to_hex(r.comm_r_last) == v.json.at("comm_r_last").get<std::string>());
  CHECK(to_hex(r.comm_r) == v.json.at("comm_r").get<std::string>());
}

}  // namespace

TEST_CASE("fr32 (the GPU's 32-bit words): multiply, add and byte forms equal fr::mont's", "[pc2][emu]") {
  const auto v = test_values(300);
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = i; j < v.size(); j += (i < 8 ? 1 : 37)) {
      INFO(i << " x " << j);
      const fr32::elem a = fr32::from_limbs(v[i]), b = fr32::from_limbs(v[j]);
      CHECK(m::eq(fr32::to_limbs(fr32::mul(a, b)), m::mul(v[i], v[j])));
      CHECK(m::eq(fr32::to_limbs(fr32::add(a, b)), m::add(v[i], v[j])));
      CHECK(m::eq(fr32::to_limbs(fr32::sqr(a)), m::sqr(v[i])));
    }
  for (const m::elem& x : v) {
    std::uint8_t bytes[32], back[32], want[32];
    fr::store(bytes, x.l);
    m::elem mx{};
    REQUIRE(m::from_bytes(bytes, mx));
    const fr32::elem y = fr32::from_bytes(bytes);
    CHECK(m::eq(fr32::to_limbs(y), mx));
    fr32::to_bytes(y, back);
    m::to_bytes(mx, want);
    CHECK(std::memcmp(back, want, 32) == 0);
    CHECK(std::memcmp(back, bytes, 32) == 0);
  }
}

TEST_CASE("fr32 row operation: acc += x * y over ten words, carries through the top", "[pc2][emu]") {
  std::mt19937_64 rng(0x33);
  for (int t = 0; t < 500; ++t) {
    std::uint32_t acc[10], x[8];
    for (auto& w : acc) w = static_cast<std::uint32_t>(rng());
    acc[9] >>= 1;  // room for the sum
    for (auto& w : x) w = t % 5 == 0 ? 0xffffffffu : static_cast<std::uint32_t>(rng());
    const std::uint32_t y = t % 7 == 0 ? 0xffffffffu : static_cast<std::uint32_t>(rng());
    // Schoolbook in 64-bit words of the same 320-bit value.
    std::uint32_t want[10];
    std::memcpy(want, acc, sizeof want);
    std::uint64_t carry = 0;
    for (int j = 0; j < 10; ++j) {
      const std::uint64_t p = j < 8 ? static_cast<std::uint64_t>(x[j]) * y : 0;
      // Add the low half here; the high half goes one word up with the carry.
      const std::uint64_t s = static_cast<std::uint64_t>(want[j]) + static_cast<std::uint32_t>(p) + (carry & 0xffffffffu);
      want[j] = static_cast<std::uint32_t>(s);
      carry = (s >> 32) + (carry >> 32) + (p >> 32);
    }
    if (carry != 0) continue;  // the caller keeps the sum below 2^320
    fr32::mad_row(acc, x, y);
    CHECK(std::memcmp(acc, want, sizeof want) == 0);
  }
}

TEST_CASE("fr32's device PTX, run by an interpreter, computes what its host branches compute", "[pc2][emu]") {
  // cuda-emu runs the host branches of fr32.hpp; this checks the asm text a GPU runs.
  std::mt19937_64 rng(0x34);
  // The same chain with its last carry dropped: the interpreter must tell it apart.
  std::string dropped = POREPLAB_FR32_MAD_ROW_PTX;
  dropped.replace(dropped.rfind("addc.u32"), 8, "add.u32 ");
  int told = 0;
  const auto word = [&](int t) { return t % 5 == 0 ? 0xffffffffu : t % 11 == 0 ? 0u : static_cast<std::uint32_t>(rng()); };
  for (int t = 0; t < 2000; ++t) {
    std::uint32_t acc[10], x[8];
    for (auto& w : acc) w = word(t);
    acc[9] >>= 1;  // room for the sum
    for (auto& w : x) w = word(t + 1);
    const std::uint32_t y = word(t + 2);
    std::vector<std::uint32_t> reg(acc, acc + 10);
    reg.insert(reg.end(), x, x + 8);
    reg.push_back(y);
    std::vector<std::uint32_t> without_carry = reg;
    run_ptx(POREPLAB_FR32_MAD_ROW_PTX, reg);
    run_ptx(dropped.c_str(), without_carry);
    told += without_carry != reg ? 1 : 0;
    fr32::mad_row(acc, x, y);
    INFO("row " << t);
    CHECK(std::equal(acc, acc + 10, reg.begin()));
  }
  CHECK(told > 0);
  const auto v = test_values(200);
  for (std::size_t i = 0; i + 1 < v.size(); ++i) {
    const fr32::elem a = fr32::from_limbs(v[i]), b = fr32::from_limbs(v[i + 1]);
    std::vector<std::uint32_t> reg(8, 0);
    reg.insert(reg.end(), a.w, a.w + 8);
    reg.insert(reg.end(), b.w, b.w + 8);
    run_ptx(POREPLAB_FR32_ADD_PTX, reg);
    fr32::elem sum;
    std::copy(reg.begin(), reg.begin() + 8, sum.w);
    // x - r with the borrow mask, on the unreduced sum (below 2r).
    std::vector<std::uint32_t> sub(9, 0);
    sub.insert(sub.end(), sum.w, sum.w + 8);
    for (int k = 0; k < 8; ++k) sub.push_back(fr32::modulus_word(k));
    run_ptx(POREPLAB_FR32_SUB_MODULUS_PTX, sub);
    fr32::elem reduced = sum;
    for (int k = 0; k < 8; ++k) reduced.w[k] = (sum.w[k] & sub[8]) | (sub[k] & ~sub[8]);
    INFO(i << " + " << i + 1);
    CHECK(m::eq(fr32::to_limbs(reduced), m::add(v[i], v[i + 1])));
  }
}

TEST_CASE("cuda-emu PC2: the device Poseidon kernel equals the reference hasher", "[pc2][emu]") {
  auto be = sdr::make_emulated_backend({});
  auto h = be->make_pc2_hasher();
  CHECK_THAT(h->name(), Catch::Contains("cuda-emu"));
  check_against_reference(*h, {1, 31, 33, 300});
  check_2kib_vector(*h);
  // The packed constants of each arity are neptune's, viewed at any base.
  for (const int a : sdr::kPc2Arities) {
    const auto p = poseidon::pack_constants(poseidon::constants_for(a));
    CHECK(p.width == a + 1);
    CHECK(p.words.size() == poseidon::constants_for(a).compressed_round_constants.size() +
                                static_cast<std::size_t>(2 * p.width * p.width) +
                                poseidon::constants_for(a).sparse_w_hat.size() +
                                poseidon::constants_for(a).sparse_v_rest.size());
  }
  CHECK_THROWS_WITH(poseidon::view_constants<3>(poseidon::pack_constants(poseidon::constants_for(8)), nullptr),
                    Catch::Contains("width 9 viewed as width 3"));
}

#ifdef POREPLAB_WITH_CUDA
TEST_CASE("cuda PC2: the device Poseidon kernel equals the reference hasher", "[pc2][cuda]") {
  if (!test::usable_cuda_device()) return;
  auto be = cuda::make_cuda_backend();
  auto h = be->make_pc2_hasher();
  INFO(h->name());
  // Past one piece (2^18 hashes), so both streams and the staging run.
  check_against_reference(*h, {1, 33, 300, (std::uint64_t{1} << 18) + 5});
  check_2kib_vector(*h);
  CHECK(h->kernel_seconds() > 0);
}

TEST_CASE("cuda PC2: a chunk built on the device equals the same device's row-at-a-time build", "[pc2][cuda]") {
  if (!test::usable_cuda_device()) return;
  auto h = cuda::make_cuda_backend()->make_pc2_hasher();
  // 2^21 leaves: 8 pieces of uploads and column kernels on the two streams, 7 rows above.
  const std::uint64_t leaves = std::uint64_t{1} << 21;
  const std::uint32_t levels = 7;
  const std::uint64_t row_bytes = 32 * sdr::chunk_row_offset(leaves, levels + 1);
  std::mt19937_64 rng(67);
  for (const std::uint32_t layers : {1u, 11u}) {
    INFO(layers << " layers");
    std::vector<std::vector<std::uint8_t>> in(layers, std::vector<std::uint8_t>(32 * leaves));
    std::vector<const std::uint8_t*> ptr;
    for (auto& v : in) {
      for (std::uint64_t i = 0; i < leaves; ++i) {
        const std::uint64_t w = rng();
        std::memcpy(v.data() + 32 * i, &w, 8);
        v[32 * i + 31] = static_cast<std::uint8_t>(w >> 58);  // below 2^254 < r
      }
      ptr.push_back(v.data());
    }
    std::vector<std::uint8_t> rows_by_row(row_bytes, 0), rows_on_device(row_bytes, 0);
    h->sdr::pc2_hasher::hash_chunk(ptr, leaves, levels, rows_by_row.data());
    h->hash_chunk(ptr, leaves, levels, rows_on_device.data());
    const std::ptrdiff_t from = layers == 1 ? static_cast<std::ptrdiff_t>(32 * leaves) : 0;
    CHECK(std::equal(rows_by_row.begin() + from, rows_by_row.end(), rows_on_device.begin() + from));
  }
}
#endif

// The cuda-emu bound times the device code's own matrix form; it counts only when that
// form computes what fr::mont computes.
TEST_CASE("bench pc2's cuda-emu bound: the device code's dense matrix agrees with fr::mont", "[pc2][emu]") {
  CHECK(poreplab::fr32_matrix_product_ns() > 0);
}

TEST_CASE("bench pc2 and the runner's pc2 kind on cuda-emu: verified, the same comm_r as cpu", "[pc2][emu][runner]") {
  test::temp_dir tmp("pc2-bench");
  const auto emu = test::run_poreplab("bench pc2 --backend cuda-emu --sector-size 2KiB --samples 1 --json", tmp);
  INFO(emu.err);
  REQUIRE(emu.status == 0);
  const auto e = nlohmann::json::parse(emu.out);
  CHECK(e.at("verified") == true);
  CHECK_THAT(e.at("hasher").get<std::string>(), Catch::Contains("cuda-emu"));
  CHECK_THAT(e.at("bound_basis").get<std::string>(), Catch::StartsWith("measured: ") && Catch::Contains("fr32"));
  CHECK(e.at("vs_mul_bound").get<double>() > 0);
  CHECK(e.at("kernel_ns_per_node").get<double>() < 0);  // the host: not timed apart
  const auto cpu = test::run_poreplab("bench pc2 --backend cpu --sector-size 2KiB --samples 1 --json", tmp);
  REQUIRE(cpu.status == 0);
  CHECK(nlohmann::json::parse(cpu.out).at("comm_r") == e.at("comm_r"));

  const auto res = test::run_config(tmp, "pc2.json", R"({
  "schema": "poreplab-experiments/1",
  "experiments": [
    {"name": "p", "kind": "pc2", "warmup": 0, "samples": 1,
     "axes": {"backend": ["cpu", "cuda-emu"], "sector_size": ["2KiB"], "layers": [2, 11], "window_nodes": [64]}}
  ]
})").results;
  REQUIRE(res.at("points").size() == 4);
  std::map<std::uint64_t, std::string> digest_of_layers;
  for (const auto& p : res.at("points")) {
    INFO(p.dump());
    REQUIRE(p.at("status") == "ok");
    CHECK(p.at("verified") == true);
    const std::uint64_t layers = p.at("axes").at("layers");
    if (digest_of_layers.count(layers) == 0) digest_of_layers[layers] = p.at("digest");
    CHECK(p.at("digest") == digest_of_layers[layers]);  // both backends, one comm_r
    CHECK(p.at("rates").at("fr_mul_per_s").get<double>() > 0);
  }
  CHECK(digest_of_layers.size() == 2);
}
