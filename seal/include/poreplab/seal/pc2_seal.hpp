#pragma once
// PC2 of a sealed directory (what `poreplab seal` wrote): tree_c and tree_r_last files
// beside the layers, and comm_c, comm_r_last and comm_r added to its seal.json.
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "poreplab/sdr/pc2_build.hpp"
#include "poreplab/seal/pc2_inputs.hpp"
#include "poreplab/seal/seal.hpp"

namespace poreplab::seal {

struct pc2_seal_options {
  // refuse: a seal.json that already records PC2 (/pc2) is an error naming it. replace:
  // PC2 is computed again and its files and /pc2 replaced once all are written.
  existing_output existing = existing_output::refuse;
  std::uint64_t chunk_nodes = 0;  // build_pc2's; 0: it picks
  std::uint32_t buffers = sdr::pc2_job{}.buffers;  // build_pc2's chunk buffers
  std::ostream* progress = nullptr;
  double progress_interval_s = 10;
};

struct pc2_seal_result {
  sdr::pc2_result trees;
  std::vector<sdr::pc2_file> files;
  double seconds = 0;            // the whole call, digests and renames included
  bool inputs_checked = false;   // the layers and replica read matched seal.json's digests
  manifest_trust trust;          // seal.json's MAC, or the sampled labels and comm_d checked
  nlohmann::json manifest;       // seal.json as written
};

// Checks seal.json's MAC; without one that verifies here, re-labels a sample of every
// layer from its parents and decodes the replica back to comm_d (check_seal_layers,
// decoded_comm_d) before any work. Reads the layer files and replica.dat chunk by chunk
// (each checked against the digest seal.json records while it is read), writes the tree files under temporary names, and
// renames them into place, then seal.json with /pc2 (atomically): an error or a signal
// (interrupt.hpp, checked between chunks) leaves the directory as it was. Errors name the
// file: a seal of a layer count other than 2 or 11 or a sector size without a
// rust-fil-proofs tree shape (std::invalid_argument), a missing or truncated file, a digest
// that does not match, a value that is not a field element (std::runtime_error).
pc2_seal_result pc2_sealed(const std::filesystem::path& sealed_dir, sdr::pc2_hasher& h, const std::string& backend_name,
                           const pc2_seal_options& opt = {});

}  // namespace poreplab::seal
