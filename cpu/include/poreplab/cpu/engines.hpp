#pragma once
// Hash engines: every implementation of one hash compression behind one signature,
// listed best first, picked at run time from the CPU's features (or by name).
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "poreplab/hash/algo.hpp"
#include "poreplab/hash/family.hpp"
#include "poreplab/name_table.hpp"
#include "poreplab/unavailable.hpp"

namespace poreplab::cpu {

// SHA-256 over `lanes` independent chains of `nblocks` compressions each, shaped for SDR
// labeling, where each 64-byte block is two 32-byte chunks that live anywhere.
//   state:  lanes * 8 words, lane-major (state[lane * 8 + i]), updated in place.
//   chunks: 2 * nblocks rows of `lanes` pointers; block k of lane j is
//           chunks[(2k) * lanes + j] || chunks[(2k + 1) * lanes + j], read in place.
// Engines accept any lanes >= 1; lanes beyond the engine's width run as further groups,
// and a partly filled group never reads chunk pointers or state past `lanes`.
using sha256_chains_fn = void (*)(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                                  std::size_t lanes);

// As sha256_chains_fn, told which blocks repeat: first_of[k] <= k is the first block whose
// 64 bytes equal block k's in every lane (k itself for a first occurrence). The engine keeps
// the W+K of the first 8 repeated first occurrences among blocks 0..31 (in every lane, any
// lane count) and runs their repeats on it without reading those repeats' chunk rows, which
// the caller may leave pointing anywhere readable; other repeats are recomputed from their
// rows. Optional per engine.
using sha256_repeat_fn = void (*)(std::uint32_t* state, const std::uint8_t* const* chunks,
                                  const std::uint8_t* first_of, std::size_t nblocks, std::size_t lanes);

// The constant padding block of a 64-byte message (0x80, zeros, bit length 512) applied to
// `lanes` states (lane-major, as above) with its W+K precomputed: no message schedule
// (docs/spec/merkle-padding.md). Optional per engine.
using sha256_pad64_fn = void (*)(std::uint32_t* state, std::size_t lanes);

// A chain with a second one-block chain interleaved into its first block: for each lane
// j, ahead[lane j] (set by the caller, e.g. to the IV) absorbs the one block
// ahead_chunks[j] || ahead_chunks[lanes + j] while state[lane j] absorbs its nblocks >= 1
// blocks as sha256_chains_fn does. The labeler's 19-block chain with the next node's
// header block filling the first block's idle sha256rnds2 slots. Optional per engine
// (one-chain engines, whose chain leaves those slots idle).
using sha256_chain_ahead_fn = void (*)(std::uint32_t* state, const std::uint8_t* const* chunks, std::size_t nblocks,
                                       std::uint32_t* ahead, const std::uint8_t* const* ahead_chunks,
                                       std::size_t lanes);

// One SDR node's chain after its header block, one lane, to its label: from the header
// state (8 words) over the message's 37 parent chunks, chunk k being the 32 bytes at
// parents[k % cycle], and its padding; out[0, 32) = the digest with its top two bits
// cleared. cycle is the layer's parent count, sdr::kBaseDegree (layer 1) or sdr::kParents.
// With `ahead` (else null), ahead's 8 words (set by the caller, e.g. to the IV) also absorb
// the block ahead_lo || ahead_hi, interleaved with the chain's first block: the next node's
// header, made in the sha256rnds2 slots a lone chain leaves idle.
// The one-sector labeler's node, its header state made by a producer or beside the previous
// node: no chunk rows, no state or digest round trip through memory. Optional per engine
// (one-chain engines).
using sha256_sdr_node_fn = void (*)(const std::uint32_t* header_state, const std::uint8_t* const* parents,
                                    std::uint32_t cycle, std::uint8_t* out, std::uint32_t* ahead,
                                    const std::uint8_t* ahead_lo, const std::uint8_t* ahead_hi);

// SDR nodes of `lanes` sectors (at most the engine's lanes), one a lane, laid out as a
// node-major layer holds them: lane j's replica_id at replica_ids + 32 j, its label of the
// node's parent k at parents[k] + 32 j (k < cycle, the chunks cycling as in
// sha256_sdr_node), its label written to out + 32 j. The header block (replica_id, layer,
// node) and the chain in one call, or the chain from header_states where they were made
// ahead (lane j's 8 words at header_states + 8 j; null: the call makes them); the states in
// registers to the stored, masked digests: no chunk rows, no state or digest round trip
// through memory. Optional per engine (many-lane engines).
using sha256_sdr_nodes_fn = void (*)(const std::uint8_t* replica_ids, std::uint32_t layer, std::uint64_t node,
                                     const std::uint32_t* header_states, const std::uint8_t* const* parents,
                                     std::uint32_t cycle, std::size_t lanes, std::uint8_t* out);

// tree_d's parents whole: out[i] = SHA-256(in[64 i, 64 i + 64)) with its top two bits
// cleared (out[32 i + 31] &= 0x3f), i < count, from the IV to the stored digest in one
// kernel; the padding block from its precomputed W+K or, without pad_precompute, from
// its message schedule (the A/B). Optional per engine.
using sha256_pairs_fn = void (*)(const std::uint8_t* in, std::size_t count, std::uint8_t* out, bool pad_precompute);

// BLAKE2 compression of `lanes` independent messages of one length, shaped like
// sha256_chains_fn: block k of lane j is the 32-byte chunks chunks[(C k + c) * lanes + j],
// c < C, read in place (C = 2 for BLAKE2s' 64-byte blocks, 4 for BLAKE2b's 128-byte ones).
// h: lanes * 8 words, lane-major (h[lane * 8 + i]), updated in place. Block k is
// compressed with the counter t_first + k * block bytes (RFC 7693's t: message bytes
// absorbed up to and including that block); when last_is_final the last block gets the
// final flag. A short final block is zero-padded by the caller (zero chunks) and passed
// as its own call with t_first = the message length. Engines accept any lanes >= 1, as
// sha256_chains_fn does.
using blake2s_chains_fn = void (*)(std::uint32_t* h, const std::uint8_t* const* chunks, std::size_t nblocks,
                                   std::uint64_t t_first, bool last_is_final, std::size_t lanes);
using blake2b_chains_fn = void (*)(std::uint64_t* h, const std::uint8_t* const* chunks, std::size_t nblocks,
                                   std::uint64_t t_first, bool last_is_final, std::size_t lanes);
// The chunks of a BLAKE2 block.
constexpr std::size_t blake2_block_chunks(hash_family a) { return compression_block_bytes(a) / 32; }

// The instruction set an engine's kernel is written in. Engine names begin with their
// ISA's text ("shani-x4", "avx2-1"): a name from a record of another build still tells
// its ISA (engine_isa_of).
enum class engine_isa : std::uint8_t { portable, sha_ni, avx2, avx512 };
inline constexpr name_table kEngineIsas{
    "engine isa",
    std::array{named<engine_isa>{engine_isa::portable, "portable"}, named<engine_isa>{engine_isa::sha_ni, "shani"},
               named<engine_isa>{engine_isa::avx2, "avx2"}, named<engine_isa>{engine_isa::avx512, "avx512"}}};

// How an engine lays a compression over the core: what its critical path is made of
// (latency.hpp prices each shape in the engine's ISA).
enum class engine_shape : std::uint8_t {
  scalar,         // rounds in general registers, one message (a SIMD message schedule beside them too)
  sha_ni_chains,  // sha256rnds2 rounds, `lanes` chains interleaved
  multi_buffer,   // a message per SIMD lane, `lanes` of them
  row_vector,     // one message, its state rows in SIMD registers (BLAKE2's G on four columns)
};
inline constexpr name_table kEngineShapes{
    "engine shape",
    std::array{named<engine_shape>{engine_shape::scalar, "scalar"},
               named<engine_shape>{engine_shape::sha_ni_chains, "sha-ni-chains"},
               named<engine_shape>{engine_shape::multi_buffer, "multi-buffer"},
               named<engine_shape>{engine_shape::row_vector, "row-vector"}}};

struct engine {
  std::string_view name;         // unique within its algo, e.g. "avx512-x16"
  std::string_view description;  // one line: technique
  hash_family algo;
  std::size_t lanes;             // independent messages per call at full width
  engine_isa isa;
  engine_shape shape;
  std::string_view required;     // features it needs, as features::names() spells them
  bool (*available)();           // this CPU and OS can run it
  // Exactly one is set, the one matching algo.
  sha256_chains_fn sha256 = nullptr;
  blake2s_chains_fn blake2s = nullptr;
  blake2b_chains_fn blake2b = nullptr;
  sha256_pad64_fn sha256_pad64 = nullptr;  // SHA-256 engines that have one
  sha256_repeat_fn sha256_repeat = nullptr;  // SHA-256 engines that reuse repeated blocks' schedules
  sha256_pairs_fn sha256_pairs = nullptr;    // SHA-256 engines with a whole-message tree_d kernel
  sha256_chain_ahead_fn sha256_chain_ahead = nullptr;  // one-chain SHA-256 engines
  sha256_sdr_node_fn sha256_sdr_node = nullptr;        // one-chain SHA-256 engines
  sha256_sdr_nodes_fn sha256_sdr_nodes = nullptr;      // many-lane SHA-256 engines

  // Missing on a CPU without the SHA extensions.
  constexpr bool uses_sha_ni() const { return isa == engine_isa::sha_ni; }
};

// e.sha256_repeat where the engine has one and first_of is given, else e.sha256.
inline void sha256_chains_repeating(const engine& e, std::uint32_t* state, const std::uint8_t* const* chunks,
                                    const std::uint8_t* first_of, std::size_t nblocks, std::size_t lanes) {
  if (e.sha256_repeat != nullptr && first_of != nullptr)
    e.sha256_repeat(state, chunks, first_of, nblocks, lanes);
  else
    e.sha256(state, chunks, nblocks, lanes);
}

// A known engine that this CPU (or OS) cannot run.
struct engine_unavailable : unavailable_error {
  using unavailable_error::unavailable_error;
};

inline constexpr const char* kForceEngineEnv = "POREPLAB_FORCE_ENGINE";

// Every engine compiled into this binary for the algo, in a static best-first order (the
// fallback when engines are not measured, tune.hpp).
const std::vector<engine>& compiled_engines(hash_family algo);
// The compiled engines this CPU can run, best first; "portable" is always last.
std::vector<const engine*> available_engines(hash_family algo);
// By name. Unknown name: std::invalid_argument listing the valid names.
// Known but not runnable here: engine_unavailable naming the missing features.
const engine& find_engine(hash_family algo, std::string_view name);
// By name, runnable here or not; nullptr when this build has no such engine (a record's
// name from another build, a reference implementation). Where text becomes an engine.
const engine* compiled_engine(hash_family algo, std::string_view name);

// The ISA of an engine named as records spell it: a compiled engine's, else the one whose
// text begins the name (an engine of another build); empty for other names.
std::optional<engine_isa> engine_isa_of(hash_family algo, std::string_view name);

// Whether the SHA-256 implementation named (as records spell it: an engine, compiled here
// or not, or a reference implementation, reference.hpp) runs on the CPU's SHA extensions,
// i.e. would be missing on an AVX-only CPU.
bool sha256_engine_uses_sha_ni(std::string_view name);

// The engine POREPLAB_FORCE_ENGINE names for `algo`, or nullptr when it names none: a
// comma-separated list of `name` or `algo:name` entries (e.g. "shani" or
// "sha256:avx2-x8,blake2s:portable"). For this algo the `algo:name` entry wins over a bare
// name; a bare name that is an engine of another algo only is ignored here. A name no algo
// knows is std::invalid_argument, as is a forced engine outside [min_lanes, max_lanes]; an
// unrunnable one is engine_unavailable. The choice by measured speed is tune.hpp's
// (best_engine, fastest_engine): engines know nothing of tuning.
const engine* forced_engine(hash_family algo, std::size_t min_lanes = 1,
                            std::size_t max_lanes = std::numeric_limits<std::size_t>::max());

// Whole-message digests through an engine (standard padding / parameter block), for tests
// and for checking engines against known answers. SHA-256 runs the message in lane 0.
std::array<std::uint8_t, 32> sha256_digest(const engine& e, const void* data, std::size_t len);
// BLAKE2s (outlen 1..32, keylen 0..32) or BLAKE2b (outlen 1..64, keylen 0..64) by e.algo;
// throws std::invalid_argument for lengths out of range or a SHA-256 engine.
std::vector<std::uint8_t> blake2_digest(const engine& e, std::size_t outlen, const void* data, std::size_t len,
                                        const void* key = nullptr, std::size_t keylen = 0);
// The engine's family's full digest (full_digest_bytes(e.algo) bytes) of a message.
std::vector<std::uint8_t> full_digest_of(const engine& e, const void* data, std::size_t len);
// One call of the engine's chain function, whatever its family: `lanes` chains of `nblocks`
// mid-message blocks (chunks as sha256_chains_fn lays them, compression_block_bytes / 32
// a block). state: lanes * 8 state words of the family (state_word_bytes each). first_of:
// the blocks that repeat, for a SHA-256 engine that reuses their schedules (null: none;
// other families have no such reuse). What tuning and the hash floor time.
void compress_chains(const engine& e, void* state, const std::uint8_t* const* chunks, const std::uint8_t* first_of,
                     std::size_t nblocks, std::size_t lanes);

}  // namespace poreplab::cpu
