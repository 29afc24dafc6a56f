#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "poreplab/field/fr.hpp"
#include "poreplab/field/fr_mont.hpp"
#include "poreplab/hash/poseidon.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/pc2.hpp"
#include "poreplab/seal/vector_file.hpp"
#include "support.hpp"

using namespace poreplab;
namespace m = poreplab::fr::mont;

namespace {

using limbs = std::array<std::uint64_t, 4>;

limbs r_limbs() { return {fr::modulus_limb(0), fr::modulus_limb(1), fr::modulus_limb(2), fr::modulus_limb(3)}; }

m::elem mont_of(const limbs& x) { return m::to_mont(x.data()); }

limbs canon(const m::elem& a) {
  limbs x;
  m::from_mont(a, x.data());
  return x;
}

std::array<std::uint8_t, 32> bytes_of(const limbs& x) {
  std::array<std::uint8_t, 32> b;
  fr::store(b.data(), x.data());
  return b;
}

limbs random_canonical(std::mt19937_64& rng) {
  for (;;) {
    limbs x{rng(), rng(), rng(), rng() >> 1};
    if (!fr::geq_modulus(x.data())) return x;
  }
}

// a * b mod r by double-and-add over fr::add (normal form): shares nothing with the
// Montgomery code it checks.
limbs mulmod_reference(const limbs& a, const limbs& b) {
  const auto ab = bytes_of(a);
  std::array<std::uint8_t, 32> acc{};
  for (int i = 255; i >= 0; --i) {
    fr::add(acc.data(), acc.data(), acc.data());
    if ((b[static_cast<std::size_t>(i / 64)] >> (i % 64)) & 1) fr::add(acc.data(), ab.data(), acc.data());
  }
  limbs out;
  fr::load(acc.data(), out.data());
  return out;
}

// Random canonical elements as 32-byte little-endian nodes.
std::vector<std::uint8_t> random_nodes(std::mt19937_64& rng, std::uint64_t n) {
  std::vector<std::uint8_t> out(n * 32);
  for (std::uint64_t i = 0; i < n; ++i) {
    const limbs x = random_canonical(rng);
    fr::store(out.data() + 32 * i, x.data());
  }
  return out;
}

using node = std::array<std::uint8_t, 32>;

// Poseidon through the plain form, on bytes.
node plain_hash(const std::vector<node>& in) {
  std::vector<m::elem> e(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) REQUIRE(m::from_bytes(in[i].data(), e[i]));
  node out;
  m::to_bytes(poseidon::hash_plain(poseidon::constants_for(static_cast<int>(in.size())), e.data()), out.data());
  return out;
}

// An arity-8 root over leaves[first, first + count), by recursion on eighths.
node recursive_root(const std::vector<node>& leaves, std::size_t first, std::size_t count) {
  if (count == 1) return leaves[first];
  std::vector<node> kids;
  for (std::size_t k = 0; k < 8; ++k) kids.push_back(recursive_root(leaves, first + k * count / 8, count / 8));
  return plain_hash(kids);
}

std::vector<std::uint8_t> hex_bytes(const nlohmann::json& j) { return from_hex(j.get<std::string>()); }

std::string hex32(const sdr::bytes32& b) { return to_hex(b.data(), b.size()); }

}  // namespace

TEST_CASE("Montgomery Fr arithmetic against an independent double-and-add", "[pc2]") {
  std::mt19937_64 rng(20240601);
  const limbs r = r_limbs();
  limbs r_minus_1 = r, r_minus_2 = r;
  r_minus_1[0] -= 1;
  r_minus_2[0] -= 2;
  std::vector<limbs> values = {{0, 0, 0, 0}, {1, 0, 0, 0}, {2, 0, 0, 0}, r_minus_1, r_minus_2,
                               {~0ull, ~0ull, ~0ull, 0x3fffffffffffffffull}};
  for (int i = 0; i < 40; ++i) values.push_back(random_canonical(rng));

  for (std::size_t i = 0; i < values.size(); ++i) {
    const limbs& a = values[i];
    const limbs& b = values[(i * 7 + 3) % values.size()];
    INFO("case " << i);
    const m::elem ma = mont_of(a), mb = mont_of(b);
    CHECK(canon(ma) == a);
    CHECK(canon(m::mul(ma, mb)) == mulmod_reference(a, b));
    CHECK(canon(m::sqr(ma)) == mulmod_reference(a, a));
    const limbs a2 = mulmod_reference(a, a);
    CHECK(canon(m::pow5(ma)) == mulmod_reference(mulmod_reference(a2, a2), a));
    const auto ab = bytes_of(a), bb = bytes_of(b);
    std::array<std::uint8_t, 32> sum, diff;
    fr::add(ab.data(), bb.data(), sum.data());
    fr::sub(ab.data(), bb.data(), diff.data());
    std::array<std::uint8_t, 32> got;
    m::to_bytes(m::add(ma, mb), got.data());
    CHECK(got == sum);
    m::to_bytes(m::sub(ma, mb), got.data());
    CHECK(got == diff);
    CHECK(m::eq(m::add(m::neg(ma), ma), m::zero()));
    if (a != limbs{0, 0, 0, 0}) CHECK(m::eq(m::mul(m::inverse(ma), ma), m::one()));
  }
  CHECK(m::is_zero(m::inverse(m::zero())));
}

TEST_CASE("Montgomery Fr known answers and canonical byte loading", "[pc2]") {
  // a, b, a*b, a^5, a^-1 mod r, computed with Python integers.
  const limbs kat[][5] = {
      {{0xa22a6f2270d23540ull, 0x0879d8d124cee4edull, 0x31e91b313f44ad56ull, 0x3bbaeab5aa0462dbull},
       {0xe1e07c8798a24989ull, 0xad745028bf2c5f38ull, 0x7e7bb40ce099258bull, 0x01d435cfbf8c7f97ull},
       {0x6716cfcde5181a2bull, 0x54f13bd23b4f088dull, 0xad8fd91b50e5b44cull, 0x08b57836041f68c2ull},
       {0x1e982d3ebb560e46ull, 0x09143d18c226064cull, 0xeef2485dc8005806ull, 0x43c50927d131323eull},
       {0x82d7682de066a4d3ull, 0x2226f32c9ec4315full, 0xbf2f1cf3e302c004ull, 0x362fad6aeefeb8d1ull}},
      {{0xc81e1f7bba050dc7ull, 0xd662447efa420cefull, 0xc271096bc8441bb7ull, 0x27da8153e2fd0765ull},
       {0x4410ed9699b62987ull, 0x80eaa35060c63277ull, 0x656dd4e617612419ull, 0x68ec67792ec38ddeull},
       {0x72f8fcf8a19c1b0cull, 0x86d457ab0b37cd01ull, 0xaed2e8f10697a195ull, 0x23ba43caf3069bdbull},
       {0xe048e11d15932f85ull, 0xc979d4c450a89072ull, 0x0c3d61c937e3f1bfull, 0x6b046e1e34069e00ull},
       {0xb5e6bd31141c7391ull, 0x301fc041cd895363ull, 0xc6284cb6c5802664ull, 0x10e7b8850d6f5214ull}},
      {{0xdc221cf931d19505ull, 0x9f45c787fea40591ull, 0x546459db80799dc4ull, 0x3534c8d02b48f659ull},
       {0x54930c06bb9c390bull, 0x2fc4ced124b481a7ull, 0xfea81b6442deb477ull, 0x09185ee9c1046dd4ull},
       {0x6cee321850a9af06ull, 0x8c3f20a29b1888e3ull, 0x3ad32e1ec5147249ull, 0x4931e03ee08e9d4bull},
       {0x74e583d578fe6464ull, 0xe4a31e48a69a14d8ull, 0xe23543090cb3f5f4ull, 0x5b5ff1625374c65aull},
       {0x7506fbdc96ba6bd0ull, 0x76c7073abef71693ull, 0xbb9f1e000cb185fcull, 0x490ba7ca70e8ef22ull}},
      {{0x7daa881c912f06a1ull, 0x71d054e4c9c93b7eull, 0x74b22502fea91d34ull, 0x5d73ce020b9df961ull},
       {0xcf3944fa89dd7af9ull, 0xbe42a764b98b824aull, 0x6ecc50cc91277fc8ull, 0x3a418592e0ba7d7dull},
       {0x454e1c7e14823d4aull, 0x16086775c53d1044ull, 0x9bdaba20537c89bbull, 0x4439ab0b9946740aull},
       {0xc317187053f7364cull, 0x35542f385a0bd0cfull, 0xfd763a7855410a24ull, 0x157b597f77baee15ull},
       {0x9bf9998985d93499ull, 0xd3ae33535d1765f3ull, 0x1bb60a0bdab4b0feull, 0x3a07d839654a7e63ull}},
      // (r-1)(r-2) = 2, (r-1)^5 = r-1, (r-1)^-1 = r-1
      {{0xffffffff00000000ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull, 0x73eda753299d7d48ull},
       {0xfffffffeffffffffull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull, 0x73eda753299d7d48ull},
       {2, 0, 0, 0},
       {0xffffffff00000000ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull, 0x73eda753299d7d48ull},
       {0xffffffff00000000ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull, 0x73eda753299d7d48ull}},
      // 2 * (r+1)/2 = 1, 2^5 = 32, 2^-1 = (r+1)/2
      {{2, 0, 0, 0},
       {0x7fffffff80000001ull, 0xa9ded2017fff2dffull, 0x199cec0404d0ec02ull, 0x39f6d3a994cebea4ull},
       {1, 0, 0, 0},
       {32, 0, 0, 0},
       {0x7fffffff80000001ull, 0xa9ded2017fff2dffull, 0x199cec0404d0ec02ull, 0x39f6d3a994cebea4ull}},
  };
  for (const auto& k : kat) {
    const m::elem a = mont_of(k[0]), b = mont_of(k[1]);
    CHECK(canon(m::mul(a, b)) == k[2]);
    CHECK(canon(m::pow5(a)) == k[3]);
    CHECK(canon(m::inverse(a)) == k[4]);
  }
  CHECK(canon(m::one()) == limbs{1, 0, 0, 0});
  CHECK(canon(m::from_u64(12345)) == limbs{12345, 0, 0, 0});

  m::elem e = m::from_u64(7);
  const limbs r = r_limbs();
  limbs r_plus_1 = r;
  r_plus_1[0] += 1;
  for (const limbs& bad : {r, r_plus_1, limbs{~0ull, ~0ull, ~0ull, ~0ull}}) {
    const auto b = bytes_of(bad);
    CHECK_FALSE(m::from_bytes(b.data(), e));
  }
  CHECK(canon(e) == limbs{7, 0, 0, 0});  // untouched by the rejections
  limbs r_minus_1 = r;
  r_minus_1[0] -= 1;
  const auto b = bytes_of(r_minus_1);
  REQUIRE(m::from_bytes(b.data(), e));
  std::array<std::uint8_t, 32> back;
  m::to_bytes(e, back.data());
  CHECK(back == b);
}

TEST_CASE("Poseidon known answers: neptune hash_values and filecoin-hashers", "[pc2]") {
  // neptune src/poseidon.rs hash_values (Strength::Standard): preimage [0, 1, .., arity-1].
  const std::pair<int, limbs> neptune[] = {
      {2, {0x2e203c369a02e7ffull, 0xa6fba9339d05a69dull, 0x739e0fd902efe161ull, 0x396508d75e76a56bull}},
      {4, {0x019814ff6662075dull, 0xfb6b4605bf1327ecull, 0x00db3c6579229399ull, 0x58a54b10a9e5848aull}},
      {8, {0x2a9934f56d38a5e6ull, 0x4b682e9d9cc4aed9ull, 0x1201004211677077ull, 0x2394611da3a5de55ull}},
      {11, {0xcee3bbc32b693163ull, 0x09f3dcd8ccb08fc1ull, 0x6ca537e232ebe87aull, 0x0c0fc1b2e5227f28ull}},
      {16, {0x1291c74060266d37ull, 0x5b8dbc6d30680a6full, 0xc1c2fb5a6f871e63ull, 0x2d3ae2663381ae8aull}},
  };
  for (const auto& [arity, expected] : neptune) {
    INFO("arity " << arity);
    const auto& c = poseidon::constants_for(arity);
    CHECK(c.width == arity + 1);
    CHECK(c.full_rounds == 8);
    std::vector<m::elem> in;
    for (int i = 0; i < arity; ++i) in.push_back(m::from_u64(static_cast<std::uint64_t>(i)));
    CHECK(canon(poseidon::hash(c, in.data())) == expected);
    CHECK(canon(poseidon::hash_plain(c, in.data())) == expected);
  }
  CHECK(poseidon::constants_for(2).partial_rounds == 55);
  CHECK(poseidon::constants_for(4).partial_rounds == 56);
  CHECK(poseidon::constants_for(8).partial_rounds == 57);
  CHECK(poseidon::constants_for(11).partial_rounds == 57);
  CHECK(poseidon::constants_for(16).partial_rounds == 59);

  // filecoin-hashers src/poseidon.rs test_poseidon_hasher: leaves Fr::ONE, ZERO, ZERO, ONE
  // (field elements, repr little-endian), a binary tree whose leaves are not re-hashed.
  const auto one = bytes_of({1, 0, 0, 0}), zero = bytes_of({0, 0, 0, 0});
  std::array<std::uint8_t, 64> pair;
  std::array<std::uint8_t, 32> i1, i2, root;
  std::memcpy(pair.data(), one.data(), 32);
  std::memcpy(pair.data() + 32, zero.data(), 32);
  poseidon::hash_bytes(2, pair.data(), i1.data());
  std::memcpy(pair.data(), zero.data(), 32);
  std::memcpy(pair.data() + 32, one.data(), 32);
  poseidon::hash_bytes(2, pair.data(), i2.data());
  std::memcpy(pair.data(), i1.data(), 32);
  std::memcpy(pair.data() + 32, i2.data(), 32);
  poseidon::hash_bytes(2, pair.data(), root.data());
  CHECK(i1 == bytes_of({0xb339ff6079800b5eull, 0xec5907b3dc3094afull, 0x93c003cc74a24f26ull, 0x042f94ffbe786bc3ull}));
  CHECK(root == bytes_of({0xefbb8be3e291e671ull, 0x77cc72b8cb2b5ad2ull, 0x30eb6385ae6b74aeull, 0x1effebb7b26ad9ebull}));
}

TEST_CASE("Poseidon round constants match neptune's published parameter file", "[pc2]") {
  // neptune parameters/round_constants-1-1-255-9-8-57-73EDA753...00000001.txt (t = 9,
  // R_F 8, R_P 57, made by the Poseidon authors' generate_parameters_grain.sage).
  const auto rc = poseidon::generate_round_constants(9, 8, 57);
  REQUIRE(rc.size() == 585);
  const auto hex_be = [&](std::size_t i) {
    const limbs x = canon(rc[i]);
    std::array<std::uint8_t, 32> be;
    for (int k = 0; k < 32; ++k) be[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(x[3 - k / 8] >> (56 - 8 * (k % 8)));
    return to_hex(be.data(), 32);
  };
  CHECK(hex_be(0) == "6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9");
  CHECK(hex_be(1) == "0ccd9b480c84022b25a75b52c8e89d80b4fa6378d32e58f3a175504940bcec39");
  CHECK(hex_be(2) == "513ad11016ab7bb8c7ce9ae51256040e062487edf7168d206ba1b86dfe963629");
  CHECK(hex_be(300) == "233d4a56502bc122851f26f1b971a2f5148aaea7215fcf137d92a0377e604bb6");
  CHECK(hex_be(584) == "3b3a75eb91b0f723bcc4ab7e449e4a011b8960063efe74670c05e545519d9a8c");
  // SHA-256 of all 585, each as 32 little-endian bytes, in file order.
  std::vector<std::uint8_t> all(585 * 32);
  for (std::size_t i = 0; i < rc.size(); ++i) m::to_bytes(rc[i], all.data() + 32 * i);
  CHECK(sha256_hex(all.data(), all.size()) == "9a4a743575f0eaf285c93d73f8adaf4e7ef4042c2445b42bddaf1a64e5face72");
  // The constants neptune hashes with for arity 8 are these.
  const auto& c8 = poseidon::constants_for(8);
  REQUIRE(c8.round_constants.size() == rc.size());
  for (std::size_t i = 0; i < rc.size(); ++i) REQUIRE(m::eq(c8.round_constants[i], rc[i]));
}

TEST_CASE("Poseidon optimized form equals the plain form", "[pc2]") {
  std::mt19937_64 rng(7);
  for (int arity : {2, 4, 8, 11, 16}) {
    INFO("arity " << arity);
    const auto& c = poseidon::constants_for(arity);
    CHECK(c.compressed_round_constants.size() == static_cast<std::size_t>(c.full_rounds * c.width + c.partial_rounds));
    CHECK(c.sparse_w_hat.size() == static_cast<std::size_t>(c.partial_rounds * c.width));
    for (int k = 0; k < 25; ++k) {
      std::vector<m::elem> in;
      for (int i = 0; i < arity; ++i) {
        // A few edge values among the random ones.
        const int pick = static_cast<int>(rng() % 8);
        if (pick == 0)
          in.push_back(m::zero());
        else if (pick == 1)
          in.push_back(m::neg(m::one()));
        else
          in.push_back(mont_of(random_canonical(rng)));
      }
      REQUIRE(m::eq(poseidon::hash(c, in.data()), poseidon::hash_plain(c, in.data())));
    }
  }
  CHECK_THROWS_AS(poseidon::constants_for(3), std::invalid_argument);
  std::vector<std::uint8_t> in(64, 0xff);
  std::array<std::uint8_t, 32> out;
  CHECK_THROWS_AS(poseidon::hash_bytes(2, in.data(), out.data()), std::invalid_argument);
}

TEST_CASE("PC2 of the 2KiB vector: comm_c, comm_r_last, comm_r and the tree files", "[pc2]") {
  const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  REQUIRE(v.layers == 2);
  std::vector<std::vector<std::uint8_t>> layers;
  for (const auto& h : v.json.at("labels_hex")) layers.push_back(hex_bytes(h));
  const auto replica = hex_bytes(v.json.at("replica_hex"));
  const std::vector<const std::uint8_t*> ptrs = {layers[0].data(), layers[1].data()};
  const auto out = sdr::pc2_reference_for_sector(ptrs, replica.data(), v.sector_size, true);
  CHECK(hex32(out.comm_c) == v.json.at("comm_c").get<std::string>());
  CHECK(hex32(out.comm_r_last) == v.json.at("comm_r_last").get<std::string>());
  CHECK(hex32(out.comm_r) == v.json.at("comm_r").get<std::string>());

  const auto files = sdr::pc2_tree_files(v.sector_size);
  REQUIRE(files.size() == 2);
  REQUIRE(out.tree_c_files.size() == 1);
  REQUIRE(out.tree_r_last_files.size() == 1);
  CHECK(out.tree_c_files[0].size() == files[0].bytes);
  CHECK(out.tree_r_last_files[0].size() == files[1].bytes);
  // tree_c: the column hashes first, comm_c last; tree_r_last: just the root here.
  const auto& tc = out.tree_c_files[0];
  for (std::uint64_t i : {0ull, 1ull, 63ull}) {
    const auto h = sdr::column_hash(ptrs, i);
    CHECK(std::equal(h.begin(), h.end(), tc.begin() + static_cast<std::ptrdiff_t>(32 * i)));
  }
  CHECK(std::equal(out.comm_c.begin(), out.comm_c.end(), tc.end() - 32));
  CHECK(std::equal(out.comm_r_last.begin(), out.comm_r_last.end(), out.tree_r_last_files[0].begin()));
}

TEST_CASE("PC2 tree file names and sizes match the vectors' files_after_pc2", "[pc2]") {
  for (const char* name : {"StackedDrg2KiBV1_1-A.json", "StackedDrg8MiBV1_1-A.json", "StackedDrg512MiBV1_1-A.json"}) {
    INFO(name);
    const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / name);
    std::vector<sdr::pc2_file> expected;
    for (const auto& f : v.json.at("files_after_pc2")) {
      const auto n = f.at("name").get<std::string>();
      if (n.starts_with("sc-02-data-tree-c") || n.starts_with("sc-02-data-tree-r-last"))
        expected.push_back({n, f.at("bytes").get<std::uint64_t>()});
    }
    auto got = sdr::pc2_tree_files(v.sector_size);
    const auto by_name = [](const sdr::pc2_file& a, const sdr::pc2_file& b) { return a.name < b.name; };
    std::sort(expected.begin(), expected.end(), by_name);
    std::sort(got.begin(), got.end(), by_name);
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].name == expected[i].name);
      CHECK(got[i].bytes == expected[i].bytes);
    }
  }
}

TEST_CASE("PC2 shapes by sector size and the multi-tree file lists", "[pc2]") {
  using sdr::tree_shape;
  constexpr std::uint64_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;
  CHECK(sdr::tree_shape_for_sector_size(2 * KiB) == tree_shape{8, 0, 0});
  CHECK(sdr::tree_shape_for_sector_size(8 * MiB) == tree_shape{8, 0, 0});
  CHECK(sdr::tree_shape_for_sector_size(512 * MiB) == tree_shape{8, 0, 0});
  CHECK(sdr::tree_shape_for_sector_size(4 * KiB) == tree_shape{8, 2, 0});
  CHECK(sdr::tree_shape_for_sector_size(16 * MiB) == tree_shape{8, 2, 0});
  CHECK(sdr::tree_shape_for_sector_size(1 * GiB) == tree_shape{8, 2, 0});
  CHECK(sdr::tree_shape_for_sector_size(16 * KiB) == tree_shape{8, 8, 0});
  CHECK(sdr::tree_shape_for_sector_size(32 * GiB) == tree_shape{8, 8, 0});
  CHECK(sdr::tree_shape_for_sector_size(32 * KiB) == tree_shape{8, 8, 2});
  CHECK(sdr::tree_shape_for_sector_size(64 * GiB) == tree_shape{8, 8, 2});
  CHECK_THROWS_AS(sdr::tree_shape_for_sector_size(8 * KiB), std::invalid_argument);

  CHECK(sdr::tree_rows(64, 8) == 3);
  CHECK(sdr::tree_r_last_rows_to_discard(8, 8) == 0);
  CHECK(sdr::tree_r_last_rows_to_discard(64, 8) == 1);
  CHECK(sdr::tree_r_last_rows_to_discard(512, 8) == 2);
  CHECK(sdr::tree_r_last_rows_to_discard(std::uint64_t{1} << 27, 8) == 2);

  // No vector here covers 32GiB / 64GiB; these follow from merkletree's store sizes:
  // tree_c keeps every row of each 2^27-leaf base tree, tree_r_last the rows from 8^6 up.
  const auto f32 = sdr::pc2_tree_files(32 * GiB);
  REQUIRE(f32.size() == 16);
  CHECK(f32[0] == sdr::pc2_file{"sc-02-data-tree-c-0.dat", 4908534048ull});
  CHECK(f32[7] == sdr::pc2_file{"sc-02-data-tree-c-7.dat", 4908534048ull});
  CHECK(f32[8] == sdr::pc2_file{"sc-02-data-tree-r-last-0.dat", 9586976ull});
  const auto f64 = sdr::pc2_tree_files(64 * GiB);
  REQUIRE(f64.size() == 32);
  CHECK(f64[15] == sdr::pc2_file{"sc-02-data-tree-c-15.dat", 4908534048ull});
  CHECK(f64[31] == sdr::pc2_file{"sc-02-data-tree-r-last-15.dat", 9586976ull});
}

// No rust-fil-proofs vector exists here for the 2-, 8- and 16-tree shapes or for 11-layer
// columns: these compare the reference with a construction written independently in this
// test (recursive roots through the plain Poseidon form, compound roots spelled out).
TEST_CASE("PC2 multi-tree shapes and 11-layer columns against an independent construction", "[pc2]") {
  std::mt19937_64 rng(99);
  constexpr std::uint64_t KiB = 1024;
  // 11-layer columns on one shape only: the plain arity-11 hash is the slow part.
  const std::pair<std::uint64_t, std::size_t> cases[] = {{4 * KiB, 2}, {16 * KiB, 2}, {16 * KiB, 11}, {32 * KiB, 2}};
  for (const auto& [size, layer_count] : cases) {
    INFO("sector " << size << " layers " << layer_count);
    const std::uint64_t nodes = size / 32;
    std::vector<std::vector<std::uint8_t>> layers;
    std::vector<const std::uint8_t*> ptrs;
    for (std::size_t l = 0; l < layer_count; ++l) layers.push_back(random_nodes(rng, nodes));
    for (const auto& l : layers) ptrs.push_back(l.data());
    const auto replica = random_nodes(rng, nodes);
    const auto out = sdr::pc2_reference_for_sector(ptrs, replica.data(), size, true);

    std::vector<node> columns(nodes), rep(nodes);
    for (std::uint64_t i = 0; i < nodes; ++i) {
      std::vector<node> col(layer_count);
      for (std::size_t l = 0; l < layer_count; ++l) std::memcpy(col[l].data(), layers[l].data() + 32 * i, 32);
      columns[i] = plain_hash(col);
      std::memcpy(rep[i].data(), replica.data() + 32 * i, 32);
    }
    const std::size_t trees = size == 4 * KiB ? 2 : size == 16 * KiB ? 8 : 16;
    const std::size_t per = nodes / trees;
    std::vector<node> c_roots, r_roots;
    for (std::size_t t = 0; t < trees; ++t) {
      c_roots.push_back(recursive_root(columns, t * per, per));
      r_roots.push_back(recursive_root(rep, t * per, per));
    }
    const auto combine = [&](const std::vector<node>& roots) {
      if (trees == 2 || trees == 8) return plain_hash(roots);
      const std::vector<node> lo(roots.begin(), roots.begin() + 8), hi(roots.begin() + 8, roots.end());
      return plain_hash({plain_hash(lo), plain_hash(hi)});
    };
    const node comm_c = combine(c_roots), comm_r_last = combine(r_roots);
    CHECK(out.comm_c == comm_c);
    CHECK(out.comm_r_last == comm_r_last);
    CHECK(out.comm_r == plain_hash({comm_c, comm_r_last}));

    const auto files = sdr::pc2_tree_files(size);
    REQUIRE(out.tree_c_files.size() == trees);
    REQUIRE(out.tree_r_last_files.size() == trees);
    for (std::size_t t = 0; t < trees; ++t) {
      const auto& tc = out.tree_c_files[t];
      const auto& tr = out.tree_r_last_files[t];
      CHECK(tc.size() == files[t].bytes);
      CHECK(tr.size() == files[trees + t].bytes);
      for (std::size_t i = 0; i < per; ++i)
        CHECK(std::equal(columns[t * per + i].begin(), columns[t * per + i].end(),
                         tc.begin() + static_cast<std::ptrdiff_t>(32 * i)));
      CHECK(std::equal(c_roots[t].begin(), c_roots[t].end(), tc.end() - 32));
      CHECK(std::equal(r_roots[t].begin(), r_roots[t].end(), tr.end() - 32));
    }
  }

  // Real 11-layer labels (64 nodes) from the custom vector, over the 2KiB shape.
  const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "Custom64Nodes11LayersPorep32GiBV1_1-A.json");
  REQUIRE(v.layers == 11);
  std::vector<std::vector<std::uint8_t>> layers;
  std::vector<const std::uint8_t*> ptrs;
  for (const auto& h : v.json.at("labels_hex")) layers.push_back(hex_bytes(h));
  for (const auto& l : layers) ptrs.push_back(l.data());
  std::vector<node> columns(v.nodes);
  for (std::uint64_t i = 0; i < v.nodes; ++i) {
    std::vector<node> col(11);
    for (std::size_t l = 0; l < 11; ++l) std::memcpy(col[l].data(), layers[l].data() + 32 * i, 32);
    columns[i] = plain_hash(col);
    const auto h = sdr::column_hash(ptrs, i);
    CHECK(std::equal(h.begin(), h.end(), columns[i].begin()));
  }
  const auto out = sdr::pc2_reference(ptrs, layers[10].data(), v.nodes, sdr::tree_shape{8, 0, 0});
  CHECK(out.comm_c == recursive_root(columns, 0, v.nodes));
}

TEST_CASE("PC2 rejects values that are not canonical field elements", "[pc2]") {
  std::mt19937_64 rng(5);
  const std::uint64_t nodes = 64;
  auto l1 = random_nodes(rng, nodes), l2 = random_nodes(rng, nodes), replica = random_nodes(rng, nodes);
  const std::vector<const std::uint8_t*> ptrs = {l1.data(), l2.data()};
  const auto message = [&] {
    try {
      sdr::pc2_reference(ptrs, replica.data(), nodes, sdr::tree_shape{8, 0, 0});
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message() == "no error");

  const auto saved = l2;
  std::fill(l2.begin() + 32 * 17, l2.begin() + 32 * 18, std::uint8_t{0xff});
  auto msg = message();
  CHECK(msg.find("layer 2") != std::string::npos);
  CHECK(msg.find("node 17") != std::string::npos);
  CHECK_THROWS_AS(sdr::column_hash(ptrs, 17), std::runtime_error);
  std::copy(saved.begin(), saved.end(), l2.begin());

  const auto r = bytes_of(r_limbs());  // exactly r
  std::copy(r.begin(), r.end(), replica.begin() + 32 * 5);
  msg = message();
  CHECK(msg.find("replica") != std::string::npos);
  CHECK(msg.find("node 5") != std::string::npos);

  const std::vector<const std::uint8_t*> three = {l1.data(), l2.data(), l1.data()};
  CHECK_THROWS_AS(sdr::pc2_reference(three, replica.data(), nodes, sdr::tree_shape{8, 0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(sdr::pc2_reference(ptrs, replica.data(), 48, sdr::tree_shape{8, 0, 0}), std::invalid_argument);
}
