#pragma once
// The SHA-256 of the parent cache file of every production graph rust-fil-proofs
// publishes (its parent-cache manifest, parent_cache.json: the v28 caches of the
// StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1 and V1_1 proofs). The 2KiB, 8MiB and
// 512MiB V1_1 entries are also in tests/data/vectors (parents.manifest_entry_for_cache_file).
// A cache file of one of these graphs is checked against this digest, whatever its
// .sha256 sidecar says: a file corrupted together with its sidecar is still caught.
#include <cstdint>
#include <span>
#include <string_view>

namespace poreplab::graph {

struct known_parent_cache {
  std::string_view name;  // "v28-sdr-parent-<key>" (the file is <name>.cache)
  std::uint64_t sector_size;
  std::string_view sha256;  // hex, of the whole file (= parent_table_digest)
};

std::span<const known_parent_cache> known_parent_caches();

// The entry of a cache file name ("v28-sdr-parent-<key>.cache", with or without the
// extension), or nullptr for a graph rust-fil-proofs does not publish.
const known_parent_cache* find_known_parent_cache(std::string_view file_name);

}  // namespace poreplab::graph
