// Hash library: official and independent known answers, streaming at every split,
// agreement with OpenSSL on random inputs, and the raw compression entry points.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "poreplab/hash/algo.hpp"
#include "poreplab/hash/blake2b.hpp"
#include "poreplab/hash/blake2s.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/hash/sha256_bulk.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "support.hpp"

using namespace poreplab;
using bytes = std::vector<std::uint8_t>;

namespace {

bytes pattern(std::size_t len) {
  bytes b(len);
  for (std::size_t i = 0; i < len; ++i) b[i] = static_cast<std::uint8_t>((i * 37 + 11) % 256);
  return b;
}

bytes random_bytes(std::mt19937_64& rng, std::size_t len) {
  bytes b(len);
  for (auto& x : b) x = static_cast<std::uint8_t>(rng());
  return b;
}

// The digests this file checks, each through the header APIs directly (not through
// algo.hpp) and by its key in hash-vectors.json. A new family's known answers live in a
// test file of its own.
struct direct_hash {
  hash_algo algo;
  const char* key;
  void (*digest)(std::uint8_t* out, const std::uint8_t* m, std::size_t len);
};
constexpr direct_hash kDirect[] = {
    {hash_algo::sha256, "sha256", [](std::uint8_t* o, const std::uint8_t* m, std::size_t n) { sha256::digest(o, m, n); }},
    {hash_algo::blake2s_256, "blake2s256",
     [](std::uint8_t* o, const std::uint8_t* m, std::size_t n) { blake2s::digest(o, 32, m, n); }},
    {hash_algo::blake2b_256, "blake2b256",
     [](std::uint8_t* o, const std::uint8_t* m, std::size_t n) { blake2b::digest(o, 32, m, n); }},
    {hash_algo::blake2b_512, "blake2b512",
     [](std::uint8_t* o, const std::uint8_t* m, std::size_t n) { blake2b::digest(o, 64, m, n); }}};

bytes direct_digest(hash_algo a, const bytes& m) {
  bytes out(hash_algo_digest_bytes(a));
  for (const auto& d : kDirect)
    if (d.algo == a) d.digest(out.data(), m.data(), m.size());
  return out;
}

// Streams `m` cut at the given offsets (ascending, each <= m.size()).
bytes streamed(hash_algo a, const bytes& m, std::initializer_list<std::size_t> cuts) {
  streaming_hash h(a);
  std::size_t pos = 0;
  for (std::size_t c : cuts) {
    h.update(m.data() + pos, c - pos);
    pos = c;
  }
  h.update(m.data() + pos, m.size() - pos);
  return h.finish();
}

std::optional<hash_algo> algo_for_field(const std::string& key) {
  for (const auto& d : kDirect)
    if (d.key == key) return d.algo;
  return std::nullopt;
}

template <class H>
bytes blake2_keyed(const bytes& m, std::size_t outlen, const bytes& key, std::size_t split) {
  typename H::ctx c;
  H::init(c, outlen, key.data(), key.size());
  H::update(c, m.data(), split);
  H::update(c, m.data() + split, m.size() - split);
  bytes out(outlen);
  H::final(c, out.data());
  return out;
}

template <class H>
bytes blake2_oneshot(const bytes& m, std::size_t outlen, const bytes& key) {
  bytes out(outlen);
  H::digest(out.data(), outlen, m.data(), m.size(), key.data(), key.size());
  return out;
}

bytes openssl_digest(const EVP_MD* md, const bytes& m) {
  bytes out(static_cast<std::size_t>(EVP_MD_get_size(md)));
  unsigned len = 0;
  REQUIRE(EVP_Digest(m.data(), m.size(), out.data(), &len, md, nullptr) == 1);
  REQUIRE(len == out.size());
  return out;
}

// Unkeyed BLAKE2b-256 where the provider honours a digest size (OpenSSL >= 3.2);
// OpenSSL 3.0/3.1 ignore the parameter and return 64 bytes, then this gives nullopt.
std::optional<bytes> openssl_blake2b256(const bytes& m) {
  EVP_MD* md = EVP_MD_fetch(nullptr, "BLAKE2B-512", nullptr);
  if (md == nullptr) return std::nullopt;
  EVP_MD_CTX* c = EVP_MD_CTX_new();
  std::size_t size = 32;
  OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_SIZE, &size), OSSL_PARAM_END};
  bytes out(64);
  unsigned len = 0;
  const bool ok = EVP_DigestInit_ex2(c, md, params) == 1 && EVP_DigestUpdate(c, m.data(), m.size()) == 1 &&
                  EVP_DigestFinal_ex(c, out.data(), &len) == 1;
  EVP_MD_CTX_free(c);
  EVP_MD_free(md);
  if (!ok || len != 32) return std::nullopt;
  out.resize(32);
  return out;
}

// Keyed BLAKE2 with any digest length through OpenSSL's BLAKE2SMAC / BLAKE2BMAC.
bytes openssl_blake2_mac(const char* name, const bytes& key, std::size_t outlen, const bytes& m) {
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, name, nullptr);
  REQUIRE(mac != nullptr);
  EVP_MAC_CTX* c = EVP_MAC_CTX_new(mac);
  OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &outlen), OSSL_PARAM_END};
  bytes out(64);
  std::size_t len = 0;
  const bool ok = EVP_MAC_init(c, key.data(), key.size(), params) == 1 &&
                  EVP_MAC_update(c, m.data(), m.size()) == 1 && EVP_MAC_final(c, out.data(), &len, out.size()) == 1;
  EVP_MAC_CTX_free(c);
  EVP_MAC_free(mac);
  REQUIRE(ok);
  REQUIRE(len == outlen);
  out.resize(len);
  return out;
}

}  // namespace

TEST_CASE("one hash family: digests, labels and engines name the same families", "[hash]") {
  for (const auto& d : kDigests) {
    INFO(d.name);
    CHECK(parse_hash_algo(d.name) == d.algo);
    CHECK(hash_algo_name(d.algo) == d.name);
    CHECK(family_of(d.algo) == d.family);
    CHECK(hash_bytes(d.algo, "abc", 3).size() == d.bytes);
  }
  // A family's name is its full digest: blake2b is blake2b-512, not the 256-bit label hash.
  for (const hash_family f : hash_families()) {
    INFO(hash_family_name(f));
    const hash_algo full = parse_hash_algo(hash_family_name(f));
    CHECK(family_of(full) == f);
    CHECK(hash_algo_digest_bytes(full) == full_digest_bytes(f));
    CHECK(full == full_digest(f));
    CHECK(parse_hash_family(hash_family_name(f)) == f);
    CHECK(sdr::parse_label_hash(sdr::label_hash_name(f)) == f);
  }
  CHECK(hash_algo_name(parse_hash_algo("blake2b")) == "blake2b-512");
  CHECK(hash_algo_name(parse_hash_algo("blake2s")) == "blake2s-256");
  CHECK(sdr::label_hash_names() == std::vector<std::string>{"sha256", "blake2s", "blake2b-256"});
  CHECK(compression_block_bytes(hash_family::blake2b) == 128);
  CHECK_THROWS_WITH(parse_hash_algo("md5"), Catch::Contains("unknown hash algorithm 'md5'") && Catch::Contains("blake2b-512"));
  CHECK_THROWS_WITH(sdr::parse_label_hash("blake2b"),
                    Catch::Contains("unknown label hash 'blake2b'") && Catch::Contains("blake2b-256"));
  CHECK_THROWS_WITH(parse_hash_family("sha3"), Catch::Contains("unknown hash family 'sha3'"));
}

TEST_CASE("BLAKE2 official KATs, one-shot and streamed in two pieces", "[hash]") {
  const auto kat = test::load_json(test::data_dir() / "kat" / "blake2-kat.json");
  REQUIRE(kat.is_array());
  std::map<std::string, int> counts;
  std::size_t idx = 0;
  for (const auto& e : kat) {
    ++idx;
    REQUIRE(e.size() == 4);
    const std::string hash = e.at("hash").get<std::string>();
    const bytes in = from_hex(e.at("in").get<std::string>());
    const bytes key = from_hex(e.at("key").get<std::string>());
    const std::string want = e.at("out").get<std::string>();
    const std::size_t outlen = want.size() / 2;
    const std::size_t split = in.empty() ? 0 : (idx * 31) % (in.size() + 1);
    INFO(hash << " entry " << idx << " in=" << in.size() << " key=" << key.size() << " split=" << split);
    if (hash == "blake2s") {
      REQUIRE(outlen == 32);
      CHECK(to_hex(blake2_oneshot<blake2s>(in, outlen, key)) == want);
      CHECK(to_hex(blake2_keyed<blake2s>(in, outlen, key, split)) == want);
      if (key.empty()) CHECK(to_hex(hash_bytes(hash_algo::blake2s_256, in.data(), in.size())) == want);
    } else if (hash == "blake2b") {
      REQUIRE(outlen == 64);
      CHECK(to_hex(blake2_oneshot<blake2b>(in, outlen, key)) == want);
      CHECK(to_hex(blake2_keyed<blake2b>(in, outlen, key, split)) == want);
      if (key.empty()) CHECK(to_hex(hash_bytes(hash_algo::blake2b_512, in.data(), in.size())) == want);
    } else {
      FAIL("unexpected hash '" << hash << "' in blake2-kat.json");
    }
    ++counts[hash + (key.empty() ? "" : "-keyed")];
  }
  CHECK(counts.size() == 4);
  CHECK(counts["blake2s"] == 256);
  CHECK(counts["blake2s-keyed"] == 256);
  CHECK(counts["blake2b"] == 256);
  CHECK(counts["blake2b-keyed"] == 256);
  REQUIRE(idx == 1024);
}

TEST_CASE("hash-vectors.json: pattern inputs, SHA-256 lengths 0..300, FIPS 180-4 examples", "[hash]") {
  const auto doc = test::load_json(test::data_dir() / "kat" / "hash-vectors.json");
  REQUIRE(doc.is_object());
  std::map<std::string, int> checked;  // digests checked per section

  // Checks every digest field of `e` against `msg`; fields other than digests must be in `meta`.
  auto check_entry = [&](const nlohmann::json& e, const bytes& msg, const std::string& section,
                         std::initializer_list<const char*> meta) {
    for (const auto& [k, v] : e.items()) {
      bool is_meta = false;
      for (const char* m : meta) is_meta = is_meta || k == m;
      if (is_meta) continue;
      const auto algo = algo_for_field(k);
      if (!algo) FAIL("unknown field '" << k << "' in " << section);
      INFO(section << " " << k << " len=" << msg.size());
      const std::string want = v.get<std::string>();
      REQUIRE(want.size() == 2 * hash_algo_digest_bytes(*algo));
      CHECK(to_hex(hash_bytes(*algo, msg.data(), msg.size())) == want);
      CHECK(to_hex(direct_digest(*algo, msg)) == want);
      // Uneven streaming chunks.
      streaming_hash h(*algo);
      for (std::size_t pos = 0, step = 1; pos < msg.size(); pos += step, step = step * 3 + 1)
        h.update(msg.data() + pos, std::min(step, msg.size() - pos));
      CHECK(to_hex(h.finish()) == want);
      ++checked[section];
    }
  };

  for (const auto& [section, value] : doc.items()) {
    if (section == "source") continue;
    REQUIRE(value.is_array());
    if (section == "vectors") {
      for (const auto& e : value) {
        REQUIRE(e.at("rule").get<std::string>() == "byte i = (i*37+11) mod 256");
        check_entry(e, pattern(e.at("len").get<std::size_t>()), section, {"len", "rule"});
      }
    } else if (section == "all_lengths_0_300") {
      std::size_t expect_len = 0;
      for (const auto& e : value) {
        REQUIRE(e.at("len").get<std::size_t>() == expect_len++);
        check_entry(e, pattern(e.at("len").get<std::size_t>()), section, {"len"});
      }
    } else if (section == "fips180_examples") {
      static const std::regex repeated(R"(^(.) x ([0-9]+)$)");
      for (const auto& e : value) {
        const std::string text = e.at("msg_ascii").get<std::string>();
        std::smatch mm;
        bytes msg;
        if (std::regex_match(text, mm, repeated))
          msg.assign(std::stoul(mm[2].str()), static_cast<std::uint8_t>(mm[1].str()[0]));
        else
          msg.assign(text.begin(), text.end());
        check_entry(e, msg, section, {"msg_ascii"});
      }
    } else {
      FAIL("unknown section '" << section << "' in hash-vectors.json");
    }
  }
  CHECK(checked["vectors"] == 20 * 4);
  CHECK(checked["all_lengths_0_300"] == 301);
  CHECK(checked["fips180_examples"] == 3);
}

TEST_CASE("streaming: every two-piece split and some three-piece splits equal one-shot", "[hash]") {
  std::mt19937_64 rng(7);
  for (std::size_t len : {0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 255, 256, 257, 300, 1000}) {
    const bytes m = random_bytes(rng, len);
    for (const auto& d : kDirect) {
      const hash_algo a = d.algo;
      const bytes want = hash_bytes(a, m.data(), m.size());
      REQUIRE(want == direct_digest(a, m));
      INFO(hash_algo_name(a) << " len=" << len);
      int bad = 0;
      for (std::size_t s = 0; s <= len; ++s) bad += streamed(a, m, {s}) != want;
      CHECK(bad == 0);
      const std::size_t offs[] = {0, 1, 31, 32, 63, 64, 65, 127, 128, 129, 200, len};
      for (std::size_t x : offs)
        for (std::size_t y : offs)
          if (x <= y && y <= len) {
            INFO("cuts " << x << ", " << y);
            CHECK(streamed(a, m, {x, x, y}) == want);
          }
    }
  }
}

TEST_CASE("random inputs equal OpenSSL", "[hash]") {
  std::mt19937_64 rng(0x5eed2026);
  const struct {
    hash_algo algo;
    const EVP_MD* md;
  } pairs[] = {{hash_algo::sha256, EVP_sha256()},
               {hash_algo::blake2s_256, EVP_blake2s256()},
               {hash_algo::blake2b_512, EVP_blake2b512()}};
  const bool have_b2b256 = openssl_blake2b256(bytes{}).has_value();
  if (!have_b2b256)
    WARN("OpenSSL " << OpenSSL_version(OPENSSL_VERSION_STRING)
                    << " has no unkeyed BLAKE2b-256; it is checked by KATs and keyed via BLAKE2BMAC");
  for (int i = 0; i < 300; ++i) {
    const bytes m = random_bytes(rng, rng() % 5001);
    INFO("input " << i << " len=" << m.size());
    for (const auto& p : pairs) {
      const bytes want = openssl_digest(p.md, m);
      CHECK(hash_bytes(p.algo, m.data(), m.size()) == want);
      const std::size_t cut = m.empty() ? 0 : rng() % (m.size() + 1);
      CHECK(streamed(p.algo, m, {cut}) == want);
    }
    if (have_b2b256) CHECK(hash_bytes(hash_algo::blake2b_256, m.data(), m.size()) == *openssl_blake2b256(m));

    // Keyed, with a random digest length, against the MACs.
    const bytes ks = random_bytes(rng, 1 + rng() % 32), kb = random_bytes(rng, 1 + rng() % 64);
    const std::size_t ols = 1 + rng() % 32, olb = (i % 2 == 0) ? 32 : 1 + rng() % 64;
    const std::size_t cut = m.empty() ? 0 : rng() % (m.size() + 1);
    INFO("keys " << ks.size() << "/" << kb.size() << " outlen " << ols << "/" << olb);
    const bytes ws = openssl_blake2_mac("BLAKE2SMAC", ks, ols, m), wb = openssl_blake2_mac("BLAKE2BMAC", kb, olb, m);
    CHECK(blake2_oneshot<blake2s>(m, ols, ks) == ws);
    CHECK(blake2_keyed<blake2s>(m, ols, ks, cut) == ws);
    CHECK(blake2_oneshot<blake2b>(m, olb, kb) == wb);
    CHECK(blake2_keyed<blake2b>(m, olb, kb, cut) == wb);
  }
}

TEST_CASE("bulk SHA-256 (file digests): both compressions and every split equal OpenSSL", "[hash]") {
  std::mt19937_64 rng(0xb01c);
  const std::string engine = sha256::bulk_engine();
  INFO("bulk engine " << engine);
  CHECK((engine == "shani" || engine == "portable"));
  for (int i = 0; i < 200; ++i) {
    const bytes m = random_bytes(rng, i < 130 ? static_cast<std::size_t>(i) : rng() % 20000);
    INFO("len " << m.size());
    const bytes want = openssl_digest(EVP_sha256(), m);
    bytes got(32);
    sha256::digest_bulk(got.data(), m.data(), m.size());
    CHECK(got == want);
    // Split at a random point and at one just past a block: the buffered head, then blocks.
    for (const std::size_t cut : {m.empty() ? std::size_t{0} : rng() % (m.size() + 1), std::min<std::size_t>(m.size(), 65)}) {
      sha256::ctx c;
      sha256::init(c);
      sha256::update_bulk(c, m.data(), cut);
      sha256::update_bulk(c, m.data() + cut, m.size() - cut);
      sha256::final(c, got.data());
      CHECK(got == want);
    }
    const std::size_t blocks = m.size() / 64;
    std::uint32_t h1[8], h2[8];
    sha256::init_state(h1);
    sha256::init_state(h2);
    sha256::compress_blocks_portable(h1, m.data(), blocks);
    for (std::size_t b = 0; b < blocks; ++b) sha256::compress(h2, m.data() + 64 * b);
    CHECK(std::equal(h1, h1 + 8, h2));
    if (engine == "shani") {
      sha256::init_state(h1);
      sha256::compress_blocks_shani(h1, m.data(), blocks);
      CHECK(std::equal(h1, h1 + 8, h2));
    }
  }
}

TEST_CASE("sha256 compression entry points", "[hash]") {
  std::mt19937_64 rng(11);
  SECTION("compress2 on separate halves equals compress on the block") {
    for (int i = 0; i < 16; ++i) {
      const bytes block = random_bytes(rng, 64);
      // Halves at odd offsets in separate buffers.
      bytes lo_buf(40), hi_buf(40);
      std::copy(block.begin(), block.begin() + 32, lo_buf.begin() + 3);
      std::copy(block.begin() + 32, block.end(), hi_buf.begin() + 5);
      std::uint32_t h1[8], h2[8], h3[8];
      sha256::init_state(h1);
      if (i % 2 == 1) sha256::compress(h1, random_bytes(rng, 64).data());  // a non-initial state
      std::copy(h1, h1 + 8, h2);
      std::copy(h1, h1 + 8, h3);
      sha256::compress(h1, block.data());
      sha256::compress2(h2, lo_buf.data() + 3, hi_buf.data() + 5);
      std::uint32_t w[16];
      for (int t = 0; t < 16; ++t) w[t] = load_be32(block.data() + 4 * t);
      sha256::compress_words(h3, w);
      CHECK(std::equal(h1, h1 + 8, h2));
      CHECK(std::equal(h1, h1 + 8, h3));
    }
  }
  SECTION("compress_length_block equals the explicit padding block") {
    for (std::uint64_t n : {0ull, 64ull, 128ull, 64ull * 1000003ull, 1ull << 40, (1ull << 61) - 64}) {
      bytes pad(64, 0);
      pad[0] = 0x80;
      store_be64(pad.data() + 56, n * 8);
      std::uint32_t h1[8], h2[8];
      sha256::init_state(h1);
      sha256::init_state(h2);
      sha256::compress_length_block(h1, n);
      sha256::compress(h2, pad.data());
      INFO("n=" << n);
      CHECK(std::equal(h1, h1 + 8, h2));
    }
  }
  SECTION("blocks + compress_length_block give the digest of a multiple-of-64 message") {
    for (std::size_t blocks : {1, 2, 3, 16}) {
      const bytes m = random_bytes(rng, 64 * blocks);
      std::uint32_t h[8];
      sha256::init_state(h);
      for (std::size_t b = 0; b < blocks; ++b) {
        if (b % 2 == 0) sha256::compress(h, m.data() + 64 * b);
        else sha256::compress2(h, m.data() + 64 * b, m.data() + 64 * b + 32);
      }
      sha256::compress_length_block(h, m.size());
      bytes out(32);
      sha256::store_digest(h, out.data());
      INFO("blocks=" << blocks);
      CHECK(out == hash_bytes(hash_algo::sha256, m.data(), m.size()));
    }
  }
}

TEMPLATE_TEST_CASE("blake2 compression entry points", "[hash]", blake2s, blake2b) {
  using H = TestType;
  using word = typename H::word;
  constexpr std::size_t B = H::kBlockBytes;
  std::mt19937_64 rng(13);
  SECTION("compress2 on separate halves equals compress and compress_words") {
    const std::uint64_t counters[] = {B, 5 * B + 7, (1ull << 32) + 3, ~0ull - 5};
    for (std::uint64_t t : counters) {
      for (bool last : {false, true}) {
        const bytes block = random_bytes(rng, B);
        bytes lo_buf(B / 2 + 8), hi_buf(B / 2 + 8);
        std::copy(block.begin(), block.begin() + B / 2, lo_buf.begin() + 1);
        std::copy(block.begin() + B / 2, block.end(), hi_buf.begin() + 7);
        word h1[8], h2[8], h3[8];
        H::init_state(h1, 1 + rng() % H::kMaxDigestBytes, rng() % (H::kMaxKeyBytes + 1));
        std::copy(h1, h1 + 8, h2);
        std::copy(h1, h1 + 8, h3);
        H::compress(h1, block.data(), t, last);
        H::compress2(h2, lo_buf.data() + 1, hi_buf.data() + 7, t, last);
        word m[16];
        for (int i = 0; i < 16; ++i) {
          word w = 0;
          for (std::size_t j = 0; j < sizeof(word); ++j) w |= static_cast<word>(block[i * sizeof(word) + j]) << (8 * j);
          m[i] = w;
        }
        // The counter is 2 words; BLAKE2b's high word is 0 below 2^64 bytes.
        const word t_lo = static_cast<word>(t);
        const word t_hi = sizeof(word) == 4 ? static_cast<word>(t >> 32) : word{0};
        H::compress_words(h3, m, t_lo, t_hi, last);
        INFO("t=" << t << " last=" << last);
        CHECK(std::equal(h1, h1 + 8, h2));
        CHECK(std::equal(h1, h1 + 8, h3));
      }
    }
  }
  SECTION("init_state + compress/compress2 give the digest of whole-block messages") {
    for (std::size_t blocks : {1, 2, 3}) {
      for (std::size_t outlen : {std::size_t{32}, H::kMaxDigestBytes}) {
        const bytes m = random_bytes(rng, B * blocks);
        word h[8];
        H::init_state(h, outlen, 0);
        for (std::size_t b = 0; b < blocks; ++b) {
          const bool last = b + 1 == blocks;
          const std::uint8_t* p = m.data() + B * b;
          if (b % 2 == 0) H::compress(h, p, B * (b + 1), last);
          else H::compress2(h, p, p + B / 2, B * (b + 1), last);
        }
        bytes full(8 * sizeof(word));
        for (int i = 0; i < 8; ++i)
          for (std::size_t j = 0; j < sizeof(word); ++j)
            full[i * sizeof(word) + j] = static_cast<std::uint8_t>(h[i] >> (8 * j));
        full.resize(outlen);
        INFO("blocks=" << blocks << " outlen=" << outlen);
        CHECK(full == blake2_oneshot<H>(m, outlen, bytes{}));
      }
    }
  }
}
