// The engine table: which kernels this build holds, which this CPU can run, choice by
// name or by POREPLAB_FORCE_ENGINE, and whole-message digests through any engine.
#include "poreplab/cpu/engines.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "blake2_kernels.hpp"
#include "sha256_kernels.hpp"
#include "poreplab/cpu/features.hpp"
#include "poreplab/cpu/reference.hpp"
#include "poreplab/hash/blake2b.hpp"
#include "poreplab/hash/blake2s.hpp"
#include "poreplab/hash/sha256.hpp"

namespace poreplab::cpu {

namespace {

// --- portable engines: the common/ compression functions behind the engine signatures

void sha256_chains_portable(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                            std::size_t lanes) {
  for (std::size_t j = 0; j < lanes; ++j)
    for (std::size_t k = 0; k < nblocks; ++k)
      sha256::compress2(state + j * 8, chunks[2 * k * lanes + j], chunks[(2 * k + 1) * lanes + j]);
}

void sha256_pad64_portable(std::uint32_t* state, std::size_t lanes) {
  for (std::size_t j = 0; j < lanes; ++j) sha256::compress_padding64(state + j * 8);
}

template <class H>
void blake2_blocks_portable(typename H::word* h, const std::uint8_t* blocks, std::size_t nblocks,
                            std::uint64_t t_first, bool last_is_final) {
  for (std::size_t k = 0; k < nblocks; ++k)
    H::compress(h, blocks + k * H::kBlockBytes, t_first + k * H::kBlockBytes, last_is_final && k + 1 == nblocks);
}

// A single-stream BLAKE2 kernel behind the lanes signature, one message after the other:
// a lane whose chunks lie back to back is compressed in place, others through a buffer.
template <class W, std::size_t C, void (*F)(W*, const std::uint8_t*, std::size_t, std::uint64_t, bool)>
void blake2_one_lane(W* h, const std::uint8_t* const* chunks, std::size_t nblocks, std::uint64_t t_first,
                     bool last_is_final, std::size_t lanes) {
  constexpr std::size_t kBlock = 32 * C, kBatch = 8;
  if (nblocks == 0) return;
  for (std::size_t j = 0; j < lanes; ++j) {
    const auto first = reinterpret_cast<std::uintptr_t>(chunks[j]);
    bool contiguous = true;
    for (std::size_t c = 1; c < C * nblocks && contiguous; ++c)
      contiguous = reinterpret_cast<std::uintptr_t>(chunks[c * lanes + j]) == first + 32 * c;
    if (contiguous) {
      F(h + 8 * j, chunks[j], nblocks, t_first, last_is_final);
      continue;
    }
    alignas(64) std::uint8_t buf[kBatch * kBlock];
    for (std::size_t k = 0; k < nblocks; k += kBatch) {
      const std::size_t n = std::min(kBatch, nblocks - k);
      for (std::size_t c = 0; c < C * n; ++c) std::memcpy(buf + 32 * c, chunks[(C * k + c) * lanes + j], 32);
      F(h + 8 * j, buf, n, t_first + k * kBlock, last_is_final && k + n == nblocks);
    }
  }
}

bool always() { return true; }
[[maybe_unused]] bool has_shani() { return detect().can_shani(); }
[[maybe_unused]] bool has_avx2() { return detect().can_avx2(); }
[[maybe_unused]] bool has_avx512() { return detect().can_avx512(); }

[[maybe_unused]] constexpr std::string_view kShaniFeatures = "sha_ni sse4.1 ssse3";
constexpr std::string_view kAvx2Features = "avx2 bmi2";
[[maybe_unused]] constexpr std::string_view kAvx512Features = "avx512f avx512vl avx512bw";

std::vector<engine> make_sha256() {
  std::vector<engine> v;
  auto with_pad = [](engine e, sha256_pad64_fn pad) {
    e.sha256_pad64 = pad;
    return e;
  };
  [[maybe_unused]] auto with_repeat = [](engine e, sha256_repeat_fn repeat) {
    e.sha256_repeat = repeat;
    return e;
  };
  [[maybe_unused]] auto with_pairs = [](engine e, sha256_pairs_fn pairs) {
    e.sha256_pairs = pairs;
    return e;
  };
  const auto a = hash_family::sha256;
  // Static best-first order, used only when engines are not measured (tune.cpp); callers
  // with fewer chains than an engine's width narrow the choice through the lane range.
#if defined(POREPLAB_HAVE_SHANI)
  engine x4 = with_repeat(with_pad({"shani-x4", "SHA-NI, four chains interleaved: sha256rnds2 issued every cycle where its throughput allows",
                                    a, 4, engine_isa::sha_ni, engine_shape::sha_ni_chains, kShaniFeatures, has_shani,
                                    kernels::sha256_chains_shani_x4},
                                   kernels::sha256_pad64_shani),
                          kernels::sha256_repeat_shani_x4);
  x4.sha256_sdr_nodes = kernels::sha256_sdr_nodes_shani_x4;
  v.push_back(x4);
  v.push_back(with_pad({"shani-x3", "SHA-NI, three chains interleaved", a, 3, engine_isa::sha_ni,
                        engine_shape::sha_ni_chains, kShaniFeatures, has_shani, kernels::sha256_chains_shani_x3},
                       kernels::sha256_pad64_shani));
  engine x2 = with_pad({"shani-x2", "SHA-NI, two chains interleaved to fill sha256rnds2's latency", a, 2,
                        engine_isa::sha_ni, engine_shape::sha_ni_chains, kShaniFeatures, has_shani,
                        kernels::sha256_chains_shani_x2},
                       kernels::sha256_pad64_shani);
  x2.sha256_sdr_nodes = kernels::sha256_sdr_nodes_shani_x2;
  v.push_back(x2);
#endif
#if defined(POREPLAB_HAVE_AVX512)
  engine x16 = with_pairs(with_pad(with_repeat({"avx512-x16", "AVX-512 multi-buffer, 16 chains in zmm, vprord + vpternlogd",
                                                a, 16, engine_isa::avx512, engine_shape::multi_buffer, kAvx512Features,
                                                has_avx512, kernels::sha256_chains_avx512_x16},
                                               kernels::sha256_repeat_avx512_x16),
                                   kernels::sha256_pad64_avx512_x16),
                          kernels::sha256_pairs_avx512_x16);
  x16.sha256_sdr_nodes = kernels::sha256_sdr_nodes_avx512_x16;
  v.push_back(x16);
  engine x8 = with_pairs(with_pad(with_repeat({"avx512-x8", "AVX-512VL multi-buffer, 8 chains in ymm, vprord + vpternlogd",
                                               a, 8, engine_isa::avx512, engine_shape::multi_buffer, kAvx512Features,
                                               has_avx512, kernels::sha256_chains_avx512_x8},
                                              kernels::sha256_repeat_avx512_x8),
                                  kernels::sha256_pad64_avx512_x8),
                         kernels::sha256_pairs_avx512_x8);
  x8.sha256_sdr_nodes = kernels::sha256_sdr_nodes_avx512_x8;
  v.push_back(x8);
#endif
#if defined(POREPLAB_HAVE_SHANI)
  engine shani = with_pad({"shani", "SHA-NI, one chain: 32 dependent sha256rnds2 per block", a, 1, engine_isa::sha_ni,
                           engine_shape::sha_ni_chains, kShaniFeatures, has_shani, kernels::sha256_chains_shani},
                          kernels::sha256_pad64_shani);
  shani.sha256_chain_ahead = kernels::sha256_chain_ahead_shani;
  shani.sha256_sdr_node = kernels::sha256_sdr_node_shani;
  v.push_back(shani);
#endif
#if defined(POREPLAB_HAVE_AVX2)
  v.push_back({"avx2-x8", "AVX2 multi-buffer, 8 chains, shift/xor rotations", a, 8, engine_isa::avx2,
               engine_shape::multi_buffer, kAvx2Features, has_avx2, kernels::sha256_chains_avx2_x8});
  // The single-stream path of CPUs without SHA-NI (one sector, or a latency figure).
  v.push_back(with_pad({"avx2-1", "AVX2/BMI2 one chain: message schedule 4 words per xmm op, rounds scalar (rorx)", a,
                        1, engine_isa::avx2, engine_shape::scalar, kAvx2Features, has_avx2,
                        kernels::sha256_chains_avx2_1},
                       kernels::sha256_pad64_avx2_1));
#endif
  v.push_back(with_pad({"portable", "portable C++ (common/ sha256::compress2), one chain at a time", a, 1, engine_isa::portable,
                        engine_shape::scalar, "", always, sha256_chains_portable},
                       sha256_pad64_portable));
  return v;
}

[[maybe_unused]] constexpr std::string_view kRowAvx512 =
    "AVX-512VL row-vectorised G, vpror rotations, vpermd/vpermt2q message schedule";
[[maybe_unused]] constexpr std::string_view kRowAvx2 = "AVX2 row-vectorised G, shuffle and shift rotations";

// Multi-buffer engines first (wider first), then the single-stream ones (the latency path).
template <hash_family A>
std::vector<engine> make_blake2() {
  static_assert(A == hash_family::blake2s || A == hash_family::blake2b, "BLAKE2 families only");
  using W = state_word_t<A>;
  constexpr bool kS = state_word_bytes(A) == 4;  // of the two BLAKE2s, the 32-bit one
  using H = std::conditional_t<kS, blake2s, blake2b>;
  using fn = void (*)(W*, const std::uint8_t* const*, std::size_t, std::uint64_t, bool, std::size_t);
  constexpr std::size_t C = blake2_block_chunks(A);
  std::vector<engine> v;
  auto add = [&](std::string_view name, std::string_view desc, std::size_t lanes, engine_isa isa, engine_shape shape,
                 std::string_view req, bool (*avail)(), fn f) {
    engine e{name, desc, A, lanes, isa, shape, req, avail};
    if constexpr (kS)
      e.blake2s = f;
    else
      e.blake2b = f;
    v.push_back(e);
  };
#if defined(POREPLAB_HAVE_AVX512)
  if constexpr (kS)
    add("avx512-x16", "AVX-512 multi-buffer, 16 messages in zmm dwords, vprord", 16, engine_isa::avx512,
        engine_shape::multi_buffer, kAvx512Features, has_avx512, kernels::blake2s_chains_avx512_x16);
  else
    add("avx512-x8", "AVX-512 multi-buffer, 8 messages in zmm qwords, vprorq", 8, engine_isa::avx512,
        engine_shape::multi_buffer, kAvx512Features, has_avx512, kernels::blake2b_chains_avx512_x8);
#endif
#if defined(POREPLAB_HAVE_AVX2)
  if constexpr (kS)
    add("avx2-x8", "AVX2 multi-buffer, 8 messages in ymm dwords, shuffle and shift rotations", 8, engine_isa::avx2,
        engine_shape::multi_buffer, kAvx2Features, has_avx2, kernels::blake2s_chains_avx2_x8);
  else
    add("avx2-x4", "AVX2 multi-buffer, 4 messages in ymm qwords, shuffle and shift rotations", 4, engine_isa::avx2,
        engine_shape::multi_buffer, kAvx2Features, has_avx2, kernels::blake2b_chains_avx2_x4);
#endif
#if defined(POREPLAB_HAVE_AVX512)
  if constexpr (kS)
    add("avx512", kRowAvx512, 1, engine_isa::avx512, engine_shape::row_vector, kAvx512Features, has_avx512,
        blake2_one_lane<W, C, kernels::blake2s_blocks_avx512>);
  else
    add("avx512", kRowAvx512, 1, engine_isa::avx512, engine_shape::row_vector, kAvx512Features, has_avx512,
        blake2_one_lane<W, C, kernels::blake2b_blocks_avx512>);
#endif
#if defined(POREPLAB_HAVE_AVX2)
  if constexpr (kS)
    add("avx2", kRowAvx2, 1, engine_isa::avx2, engine_shape::row_vector, kAvx2Features, has_avx2,
        blake2_one_lane<W, C, kernels::blake2s_blocks_avx2>);
  else
    add("avx2", kRowAvx2, 1, engine_isa::avx2, engine_shape::row_vector, kAvx2Features, has_avx2,
        blake2_one_lane<W, C, kernels::blake2b_blocks_avx2>);
#endif
  add("portable", "portable C++ (common/ blake2 compress)", 1, engine_isa::portable, engine_shape::scalar, "", always,
      blake2_one_lane<W, C, blake2_blocks_portable<H>>);
  return v;
}

std::string names_of(const std::vector<engine>& v) {
  std::string s;
  for (const auto& e : v) {
    if (!s.empty()) s += ", ";
    s += e.name;
  }
  return s;
}

const engine* lookup(hash_family algo, std::string_view name) {
  for (const auto& e : compiled_engines(algo))
    if (e.name == name) return &e;
  return nullptr;
}

const engine& checked(const engine& e) {
  if (!e.available())
    throw engine_unavailable(std::string(hash_family_name(e.algo)) + " engine '" + std::string(e.name) +
                             "' needs CPU features this machine (or its OS) lacks: " + std::string(e.required) +
                             " (available: " + [&] {
                               std::string s;
                               for (const engine* x : available_engines(e.algo)) {
                                 if (!s.empty()) s += ", ";
                                 s += x->name;
                               }
                               return s;
                             }() + ")");
  return e;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The name POREPLAB_FORCE_ENGINE picks for `algo`, or empty.
std::string forced_name(hash_family algo) {
  const char* env = std::getenv(kForceEngineEnv);
  if (env == nullptr) return {};
  std::string qualified, bare;
  std::string_view rest(env);
  for (;;) {
    const auto comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    if (!item.empty()) {
      const auto colon = item.find(':');
      if (colon != std::string_view::npos) {
        const hash_family a = parse_hash_family(trim(item.substr(0, colon)));
        const std::string_view name = trim(item.substr(colon + 1));
        if (lookup(a, name) == nullptr)
          throw std::invalid_argument(std::string(kForceEngineEnv) + ": unknown " + std::string(hash_family_name(a)) +
                                      " engine '" + std::string(name) + "' (valid: " +
                                      names_of(compiled_engines(a)) + ")");
        if (a == algo) qualified = name;
      } else {
        bool known = false;
        for (hash_family a : hash_families()) known = known || lookup(a, item) != nullptr;
        if (!known) {
          std::string valid;
          for (hash_family a : hash_families())
            valid += (valid.empty() ? "" : "; ") + std::string(hash_family_name(a)) + ": " +
                     names_of(compiled_engines(a));
          throw std::invalid_argument(std::string(kForceEngineEnv) + ": unknown engine '" + std::string(item) +
                                      "' (valid: " + valid + ")");
        }
        if (lookup(algo, item) != nullptr) bare = item;
      }
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return qualified.empty() ? bare : qualified;
}

}  // namespace

const std::vector<engine>& compiled_engines(hash_family algo) {
  static const std::vector<engine> sha = make_sha256();
  static const std::vector<engine> b2s = make_blake2<hash_family::blake2s>();
  static const std::vector<engine> b2b = make_blake2<hash_family::blake2b>();
  switch (algo) {
    case hash_family::sha256: return sha;
    case hash_family::blake2s: return b2s;
    case hash_family::blake2b: return b2b;
  }
  throw std::invalid_argument("unknown hash algorithm");
}

std::vector<const engine*> available_engines(hash_family algo) {
  std::vector<const engine*> v;
  for (const auto& e : compiled_engines(algo))
    if (e.available()) v.push_back(&e);
  return v;
}

const engine* compiled_engine(hash_family algo, std::string_view name) { return lookup(algo, name); }

std::optional<engine_isa> engine_isa_of(hash_family algo, std::string_view name) {
  if (const engine* e = lookup(algo, name)) return e->isa;
  for (const auto& i : kEngineIsas.entries)
    if (name.starts_with(i.name)) return i.value;
  return std::nullopt;
}

bool sha256_engine_uses_sha_ni(std::string_view name) {
  if (const reference* r = find_reference(name)) return r->uses_sha_ni;
  return engine_isa_of(hash_family::sha256, name) == engine_isa::sha_ni;
}

const engine& find_engine(hash_family algo, std::string_view name) {
  const engine* e = lookup(algo, name);
  if (e == nullptr)
    throw std::invalid_argument("unknown " + std::string(hash_family_name(algo)) + " engine '" + std::string(name) +
                                "' (valid: " + names_of(compiled_engines(algo)) + ")");
  return checked(*e);
}

const engine* forced_engine(hash_family algo, std::size_t min_lanes, std::size_t max_lanes) {
  const std::string forced = forced_name(algo);
  if (forced.empty()) return nullptr;
  const engine& e = checked(*lookup(algo, forced));
  if (e.lanes < min_lanes || e.lanes > max_lanes)
    throw std::invalid_argument(std::string(kForceEngineEnv) + ": engine '" + forced + "' runs " + std::to_string(e.lanes) +
                                " lanes, outside the " + std::to_string(min_lanes) + ".." + std::to_string(max_lanes) +
                                " this caller needs");
  return &e;
}

std::array<std::uint8_t, 32> sha256_digest(const engine& e, const void* data, std::size_t len) {
  if (e.sha256 == nullptr) throw std::invalid_argument("engine '" + std::string(e.name) + "' is not a SHA-256 engine");
  const auto* p = static_cast<const std::uint8_t*>(data);
  std::uint32_t h[8];
  sha256::init_state(h);
  // Whole blocks straight from the message, in batches of chunk pointers.
  const std::size_t full = len / 64;
  const std::uint8_t* ptrs[2 * 64];
  for (std::size_t k = 0; k < full;) {
    const std::size_t n = full - k < 64 ? full - k : 64;
    for (std::size_t i = 0; i < n; ++i) {
      ptrs[2 * i] = p + 64 * (k + i);
      ptrs[2 * i + 1] = p + 64 * (k + i) + 32;
    }
    e.sha256(h, ptrs, n, 1);
    k += n;
  }
  // FIPS 180-4 5.1.1: 0x80, zeros, 64-bit bit length; one or two more blocks.
  std::uint8_t tail[128] = {};
  const std::size_t rem = len - 64 * full;
  if (rem != 0) std::memcpy(tail, p + 64 * full, rem);
  tail[rem] = 0x80;
  const std::size_t tail_blocks = rem < 56 ? 1 : 2;
  store_be64(tail + 64 * tail_blocks - 8, static_cast<std::uint64_t>(len) * 8);
  const std::uint8_t* tp[4] = {tail, tail + 32, tail + 64, tail + 96};
  e.sha256(h, tp, tail_blocks, 1);
  std::array<std::uint8_t, 32> out{};
  sha256::store_digest(h, out.data());
  return out;
}

namespace {

template <class H, class Fn>
std::vector<std::uint8_t> blake2_digest_with(Fn fn, std::size_t outlen, const void* data, std::size_t len,
                                             const void* key, std::size_t keylen) {
  constexpr std::size_t B = H::kBlockBytes, C = B / 32, kBatch = 64;
  if (outlen == 0 || outlen > H::kMaxDigestBytes || keylen > H::kMaxKeyBytes)
    throw std::invalid_argument("blake2 digest: output length must be 1.." + std::to_string(H::kMaxDigestBytes) +
                                " and key length 0.." + std::to_string(H::kMaxKeyBytes) + " bytes");
  typename H::word h[8];
  H::init_state(h, outlen, keylen);
  // n contiguous blocks in lane 0, their chunks pointed at in batches.
  const auto compress = [&](const std::uint8_t* src, std::size_t n, std::uint64_t t_first, bool final) {
    const std::uint8_t* rows[kBatch * C];
    for (std::size_t k = 0; k < n; k += kBatch) {
      const std::size_t m = std::min(kBatch, n - k);
      for (std::size_t c = 0; c < C * m; ++c) rows[c] = src + B * k + 32 * c;
      fn(h, rows, m, t_first + k * B, final && k + m == n, 1);
    }
  };
  const auto* p = static_cast<const std::uint8_t*>(data);
  std::uint64_t t = 0;
  alignas(64) std::uint8_t block[B];
  if (keylen != 0) {  // RFC 7693 3.3: the zero-padded key is the first block
    std::memset(block, 0, B);
    std::memcpy(block, key, keylen);
    t = B;
    compress(block, 1, t, len == 0);
  }
  if (len != 0 || keylen == 0) {
    // Every block but the last goes in place; the last (possibly short) gets the flag.
    const std::size_t whole = len == 0 ? 0 : (len - 1) / B;
    if (whole != 0) compress(p, whole, t + B, false);
    t += whole * B;
    const std::size_t rem = len - whole * B;
    std::memset(block, 0, B);
    if (rem != 0) std::memcpy(block, p + whole * B, rem);
    compress(block, 1, t + rem, true);
  }
  std::uint8_t full[H::kMaxDigestBytes];
  for (int i = 0; i < 8; ++i) {
    if constexpr (sizeof(typename H::word) == 4)
      store_le32(full + 4 * i, h[i]);
    else
      store_le64(full + 8 * i, h[i]);
  }
  return {full, full + outlen};
}

}  // namespace

std::vector<std::uint8_t> blake2_digest(const engine& e, std::size_t outlen, const void* data, std::size_t len,
                                        const void* key, std::size_t keylen) {
  if (e.blake2s != nullptr) return blake2_digest_with<blake2s>(e.blake2s, outlen, data, len, key, keylen);
  if (e.blake2b != nullptr) return blake2_digest_with<blake2b>(e.blake2b, outlen, data, len, key, keylen);
  throw std::invalid_argument("engine '" + std::string(e.name) + "' is not a BLAKE2 engine");
}

std::vector<std::uint8_t> full_digest_of(const engine& e, const void* data, std::size_t len) {
  switch (e.algo) {
    case hash_family::sha256: {
      const auto d = sha256_digest(e, data, len);
      return {d.begin(), d.end()};
    }
    case hash_family::blake2s:
    case hash_family::blake2b: return blake2_digest(e, full_digest_bytes(e.algo), data, len);
  }
  throw std::invalid_argument("engine '" + std::string(e.name) + "': no digest for its family");
}

void compress_chains(const engine& e, void* state, const std::uint8_t* const* chunks, const std::uint8_t* first_of,
                     std::size_t nblocks, std::size_t lanes) {
  const std::uint64_t block = compression_block_bytes(e.algo);
  switch (e.algo) {
    case hash_family::sha256:
      sha256_chains_repeating(e, static_cast<std::uint32_t*>(state), chunks, first_of, nblocks, lanes);
      return;
    case hash_family::blake2s: e.blake2s(static_cast<std::uint32_t*>(state), chunks, nblocks, block, false, lanes); return;
    case hash_family::blake2b: e.blake2b(static_cast<std::uint64_t*>(state), chunks, nblocks, block, false, lanes); return;
  }
}

}  // namespace poreplab::cpu
