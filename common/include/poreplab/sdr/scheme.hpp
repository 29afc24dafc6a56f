#pragma once
// What a labeling job computes: the PoRep structure (variant) and the hash that derives
// each node's key. `sdr` + `sha256` is Filecoin's SDR and the only combination that must
// match rust-fil-proofs; every other one is a what-if variant for the hash study and is
// labelled so wherever it is reported.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "poreplab/hash/family.hpp"
#include "poreplab/name_table.hpp"

namespace poreplab::sdr {

enum class porep_variant : std::uint8_t {
  sdr,     // docs/spec/sdr.md: 6 + 8 parents, layers in separate buffers, header hashed
  zigzag,  // docs/spec/r2-zigzag.md: 5 + 8 parents, alternating direction, in place
};

struct label_scheme {
  porep_variant variant = porep_variant::sdr;
  hash_family hash = hash_family::sha256;
  friend constexpr bool operator==(label_scheme, label_scheme) = default;
  constexpr bool is_filecoin() const { return *this == label_scheme{}; }  // the defaults are Filecoin's
};

inline constexpr label_scheme kFilecoinScheme{};

inline constexpr name_table kPorepVariants{
    "PoRep variant", std::array{named<porep_variant>{porep_variant::sdr, "sdr"}, named<porep_variant>{porep_variant::zigzag, "zigzag"}}};
inline const char* variant_name(porep_variant v) { return kPorepVariants.name(v).data(); }

inline const std::vector<std::string>& variant_names() {
  static const std::vector<std::string> v = kPorepVariants.names();
  return v;
}

inline porep_variant parse_variant(std::string_view s) { return kPorepVariants.parse(s); }

// A label keeps 32 bytes of its family's output: "sha256", "blake2s", "blake2b-256".
inline constexpr std::size_t kLabelBytes = 32;
inline std::string label_hash_name(hash_family h) { return hash_output_name(h, kLabelBytes); }
inline const std::vector<std::string>& label_hash_names() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    for (const auto f : hash_families()) out.push_back(label_hash_name(f));
    return out;
  }();
  return v;
}
// Throws std::invalid_argument "unknown label hash 'x' (valid: sha256, blake2s, blake2b-256)".
inline hash_family parse_label_hash(std::string_view s) {
  std::string valid;
  for (const auto f : hash_families()) {
    if (label_hash_name(f) == s) return f;
    valid += (valid.empty() ? "" : ", ") + label_hash_name(f);
  }
  throw std::invalid_argument("unknown label hash '" + std::string(s) + "' (valid: " + valid + ")");
}

// How the GPU label kernel of Filecoin's scheme (sdr/sha256) reads and walks its parents;
// every variant computes the same labels. Other schemes have the standard kernel only.
enum class kernel_variant : std::uint8_t {
  standard,  // one thread per sector; parent labels read byte by byte, the parent-pair loop fully unrolled
  vec16,     // one thread per sector; each 32-byte parent label read as two aligned 16-byte loads
  rolled,    // one thread per sector; the parent-pair loop left rolled: far fewer instructions to fetch
  staged,    // one block per sector: a loader warp stages the next node's parents in shared memory
  split,     // one block per sector: as staged, plus message schedules and the header block computed
             // a node ahead, so the serial thread runs little more than the rounds (label_pipelined.hpp)
  automatic, // not a kernel: split for few sectors, standard for many (resolve_kernel)
};

// What a user may ask for: a kernel or "auto".
inline constexpr name_table kKernelChoices{
    "kernel variant",
    std::array{named<kernel_variant>{kernel_variant::automatic, "auto"}, named<kernel_variant>{kernel_variant::standard, "standard"},
               named<kernel_variant>{kernel_variant::vec16, "vec16"}, named<kernel_variant>{kernel_variant::rolled, "rolled"},
               named<kernel_variant>{kernel_variant::staged, "staged"}, named<kernel_variant>{kernel_variant::split, "split"}}};

// The kernels, in enum order (automatic is a choice, not a kernel).
inline const std::vector<std::string>& kernel_variant_names() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    for (const auto& e : kKernelChoices.entries)
      if (e.value != kernel_variant::automatic) out.emplace_back(e.name);
    return out;
  }();
  return v;
}

inline const std::vector<std::string>& kernel_choice_names() {
  static const std::vector<std::string> v = kKernelChoices.names();
  return v;
}

inline const char* kernel_variant_name(kernel_variant k) { return kKernelChoices.name(k).data(); }
inline kernel_variant parse_kernel_variant(std::string_view s) { return kKernelChoices.parse(s); }

// The sector count up to which `auto` picks the latency design where the device's
// multiprocessor count is unknown (cuda-emu): an H100 SXM's 132.
inline constexpr std::uint32_t kDefaultLatencySectors = 132;

// `auto` for a job: the latency design (split) while sectors <= latency_sectors, for
// Filecoin's scheme; one thread per sector (standard) otherwise. Any other choice stays.
inline kernel_variant resolve_kernel(kernel_variant k, label_scheme s, std::uint64_t sectors,
                                     std::uint32_t latency_sectors) {
  if (k != kernel_variant::automatic) return k;
  return s.is_filecoin() && sectors <= latency_sectors ? kernel_variant::split : kernel_variant::standard;
}

// One thread per sector (a block of them shares nothing) or one cooperating block per sector.
inline constexpr bool is_block_per_sector(kernel_variant k) {
  return k == kernel_variant::staged || k == kernel_variant::split;
}

// "sdr/sha256", "zigzag/blake2s", ...
inline std::string scheme_name(label_scheme s) {
  return std::string(variant_name(s.variant)) + "/" + label_hash_name(s.hash);
}

// "filecoin" or "what-if": printed beside every figure of a scheme.
inline const char* scheme_status(label_scheme s) { return s.is_filecoin() ? "filecoin" : "what-if"; }

// Bytes the hash consumes per regular node (header and parents, before padding), and
// the compressions that takes: the figures cycles/byte and floors are computed from.
inline constexpr std::uint64_t kSdrMessageBytes = 64 + 37 * 32;  // header + 37 parent chunks, 1248
inline constexpr std::uint64_t kZigzagMessageBytes = 14 * 32;  // replica_id + 13 parents, 448

constexpr std::uint64_t message_bytes(porep_variant v) {
  return v == porep_variant::sdr ? kSdrMessageBytes : kZigzagMessageBytes;
}

constexpr std::uint32_t compressions_per_node(label_scheme s) {
  return static_cast<std::uint32_t>(compressions_for(s.hash, message_bytes(s.variant)));
}

// Default layer counts: SDR's 11 (V1_1 proofs of 32GiB and 64GiB use 11; small ones 2)
// are chosen per proof elsewhere; ZigZag uses 10.
inline constexpr std::uint32_t kZigzagLayers = 10;

}  // namespace poreplab::sdr
