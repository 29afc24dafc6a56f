#pragma once
// Sealing a sector the way rust-fil-proofs' PC1 lays out its files, plus the encoded
// replica, and recovering the data from a sealed directory.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "poreplab/graph/graph_params.hpp"
#include "poreplab/sdr/backend.hpp"
#include "poreplab/sdr/replica_id.hpp"

namespace poreplab::seal {

inline constexpr const char* kReplicaFile = "replica.dat";
inline constexpr const char* kTreeDFile = "sc-02-data-tree-d.dat";
inline constexpr const char* kSealManifest = "seal.json";
// An unfinished seal's progress: its inputs and the digest of every finished file.
inline constexpr const char* kSealState = "seal-state.json";
std::string layer_file_name(std::uint32_t layer);  // sc-02-data-layer-<l>.dat

struct seal_inputs {
  sdr::bytes32 porep_id{};
  graph::api_version api = graph::api_version::v1_1_0;
  std::uint32_t layers = 0;
  sdr::bytes32 prover_id{};
  std::uint64_t sector_id = 0;
  sdr::bytes32 ticket{};
  std::optional<std::uint64_t> expected_sector_size;  // set when sealing for a registered proof
  std::string proof_name;                             // informational, may be empty
};

// How a seal holds the sector. in_memory: the data, tree_d and replica in memory (4x the
// sector, plus the parent table when no cache directory is given). bounded: everything
// streamed in chunks from and to files, the parent table mapped from its cache file;
// memory is one layer (resident_previous) or only chunks (the previous layer is then
// left to the page cache).
enum class seal_mode { in_memory, bounded };

struct seal_result {
  sdr::bytes32 comm_d{};
  sdr::bytes32 replica_id{};
  nlohmann::json manifest;  // what seal.json holds
  seal_mode mode = seal_mode::in_memory;
  bool resident_previous = false;
  std::uint32_t layers_reused = 0;  // finished layers of an interrupted seal, checked and kept
  bool tree_d_reused = false;
};

// What seal() and unseal() do when their output already exists.
enum class existing_output {
  refuse,   // an error naming it (the default): results already written are never replaced
  replace,  // seal: replace a previous seal in the directory (its layer files, tree_d,
            // replica.dat, seal.json and their .tmp files; nothing else), once the new seal
            // is complete. unseal: replace the file.
};

struct seal_options {
  existing_output existing = existing_output::refuse;
  // Bytes the seal may use; 0: memory_budget_bytes() (MemAvailable, capped by the
  // cgroup's limit). In-memory when 4x the sector (+ the table) fits, else bounded.
  std::uint64_t memory_limit = 0;
  std::uint64_t chunk_bytes = std::uint64_t{64} << 20;  // bounded mode's unit of I/O (a power of two)
  std::ostream* progress = nullptr;                      // progress lines; null: none
  double progress_interval_s = 10;                       // between two lines within a layer
};

// The memory a bounded seal of a sector of `size` bytes needs to keep its previous layer
// in memory: the layer, and room beside it for the chunk buffers and for the page cache
// that the layer being written (its base parents are read back at random) and the parent
// table go through.
std::uint64_t resident_previous_need(std::uint64_t size, const seal_options& opt = {});
// The disk a seal of a sector of `size` bytes with `layers` layers writes: tree_d, the
// layer files, the replica and a few KiB of seal.json (checked before its first byte).
std::uint64_t seal_disk_need(std::uint64_t size, std::uint32_t layers);

// Seals `data_file` into `out_dir`: the layer files, tree_d, replica.dat and seal.json.
// Every file is written under a temporary name and renamed only once all succeeded
// (seal.json last), so an interrupted or failed seal leaves nothing that looks complete.
// A failed seal removes its temporary files, except those an earlier run left that this
// one checked (a failed resume loses nothing it found). A signal recorded by interrupt.hpp
// stops it between layers with poreplab::interrupted, keeping tree_d, the finished layers
// and seal-state.json for the same command to resume (the partial layer is removed).
// parent_cache_dir: where the parent table is cached (empty = generate in memory).
// A non-empty out_dir is refused unless `existing` is replace.
// Resume: while it runs, out_dir/seal-state.json (written atomically) records the inputs
// (with the data's SHA-256) and the digest of tree_d and of every finished layer. A seal
// that was killed leaves it with its .tmp files; the same seal run again checks each
// recorded file against its digest and continues after the last good layer. A state of
// other inputs is refused (replaced with `replace`); a malformed one is an error naming it.
// Throws std::invalid_argument for bad inputs (size, non-field data) and
// std::runtime_error for I/O problems, naming the path.
seal_result seal(const seal_inputs& in, const std::filesystem::path& data_file, const std::filesystem::path& out_dir,
                 sdr::backend& be, const std::filesystem::path& parent_cache_dir = {},
                 existing_output existing = existing_output::refuse);
seal_result seal(const seal_inputs& in, const std::filesystem::path& data_file, const std::filesystem::path& out_dir,
                 sdr::backend& be, const std::filesystem::path& parent_cache_dir, const seal_options& opt);

// An unfinished seal's progress as seal-state.json records it.
struct seal_state {
  nlohmann::json identity;  // the inputs that decide every byte (with the data's SHA-256)
  std::string tree_d_sha256;
  sdr::bytes32 comm_d{};
  std::vector<std::string> layers;  // sha256 of layers 1..k, finished in that order
  // Every file is staged and the commit's renames have begun: files recorded here may be
  // under their final names, and a seal.json beside this state is this seal's.
  bool committing = false;
  std::string mac;  // HMAC-SHA256 of the other fields under the machine key (machine_key.hpp); "" if none
};

// Parses seal-state.json's text (at most max_layers layers); throws std::runtime_error
// "<file>: <JSON pointer>: <problem>". Each recorded file must still be checked against
// its digest, and its labels against their parents, before it is used.
seal_state parse_seal_state(std::string_view text, const std::filesystem::path& file, std::uint32_t max_layers);

// What unseal() and pc2 read from seal.json, checked and cross-checked: the format,
// 32-byte hex fields, layers 1..64, nodes a power of two whose * 32 fits and equals
// /inputs/sector_size, a known api version, /replica_id the one its inputs and comm_d
// give, /files naming only this seal's files with their sizes, a MAC of 64 hex digits.
struct seal_manifest {
  sdr::bytes32 comm_d{};
  sdr::bytes32 replica_id{};
  sdr::bytes32 porep_id{};
  graph::api_version api = graph::api_version::v1_1_0;
  std::uint32_t layers = 0;
  std::uint64_t nodes = 0;
  std::uint64_t sector_bytes = 0;  // nodes * 32
  // The SHA-256 seal.json records for replica.dat and the last layer file (/files/<name>/
  // sha256, 64 lowercase hex digits); both empty when it records no /files.
  std::string replica_sha256, last_layer_sha256;
  std::vector<std::string> layer_sha256;  // every layer's, 1 first; empty without /files
  std::string mac;                         // /mac: HMAC-SHA256 of the rest; "" if none
  nlohmann::json document;                 // the whole of seal.json
};

// Parses seal.json's text; throws std::runtime_error "<file>: <JSON pointer>: <problem>".
seal_manifest parse_seal_manifest(std::string_view text, const std::filesystem::path& file);
// Reads (at most 16 MiB, a regular file, not through a link) and parses seal.json.
seal_manifest read_seal_manifest(const std::filesystem::path& file);

// A file's SHA-256 (`got`, hex) against the one `manifest` records for it (`recorded`):
// std::runtime_error naming the file, both digests and the manifest's field when they differ.
void check_file_digest(const std::filesystem::path& file, const std::filesystem::path& manifest,
                       const std::string& recorded, const std::string& got);

// Sets seal.json's /mac, the MAC of every other field under this machine's key
// (machine_key.hpp), when `sign` and a key can be had; else removes it.
void sign_seal_manifest(nlohmann::json& manifest, bool sign);

// How far a sealed directory's seal.json is trusted before its layers are used. Its digests
// alone can be rewritten with the files they describe: they vouch for the layers only
// under a MAC that verifies with this machine's key. Otherwise `why` says what is missing,
// and the layers were re-labeled in part from their parents (`sampled` labels each).
struct manifest_trust {
  bool mac_verified = false;
  std::string why;
  std::uint64_t sampled = 0;
  std::string text() const;  // one line for the user
};

// Checks seal.json's MAC; without one that verifies here, re-labels kDefaultVerifySamples
// labels of each layer from first_layer to the last (sampled_check.hpp). Throws
// std::runtime_error naming the layer file and the first node that differs.
manifest_trust check_seal_layers(const seal_manifest& sm, const std::filesystem::path& sealed_dir,
                                 std::uint32_t first_layer);

// comm_d of the data replica.dat and the last layer file decode to, in chunks: what a
// replica whose digest in seal.json may have been rewritten is checked by.
sdr::bytes32 decoded_comm_d(const seal_manifest& sm, const std::filesystem::path& sealed_dir);

struct unseal_result {
  sdr::bytes32 comm_d{};
  bool recomputed = false;       // labels recomputed rather than read from the layer file
  bool digests_checked = false;  // the files read matched seal.json's digests (false: it has none)
  manifest_trust trust;          // the last layer's, when it was read rather than recomputed
};

// Recovers the data of a sealed directory into out_file (written atomically), reading
// the last layer file chunk by chunk (memory: a few chunks) or recomputing the labels, and checks it against comm_d. An
// existing out_file is refused unless `existing` is replace. The replica and the layer
// file are checked against the digests seal.json records, as they are read (a damaged
// layer is named as such, before comm_d would only say that something differs).

unseal_result unseal(const std::filesystem::path& sealed_dir, const std::filesystem::path& out_file, sdr::backend& be,
                     bool recompute, const std::filesystem::path& parent_cache_dir = {},
                     existing_output existing = existing_output::refuse);

}  // namespace poreplab::seal
