#pragma once
// Verification that scales: instead of re-labeling a whole sector with the reference (a
// second copy of every layer), K nodes spread over every labeled layer and sector are
// captured with their 14 parent labels as each layer is done, then recomputed by the
// reference single-node code. A wrong label among the samples, or a wrong parent label
// it read, fails the check; a wrong label elsewhere is caught with probability about
// K / (labels) per wrong label (docs/scaling.md).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "poreplab/graph/graph_params.hpp"
#include "poreplab/sdr/backend.hpp"

namespace poreplab::sdr {

inline constexpr std::uint64_t kDefaultVerifySamples = 4096;

struct sampled_result {
  std::uint64_t checked = 0;
  std::uint64_t mismatched = 0;
  std::string first_mismatch;  // "layer 3, node 1234, sector 0"; empty when none
  bool ok() const { return checked > 0 && mismatched == 0; }
};

// Re-labels sampled nodes of a finished layer kept in a file (one sector, node i's label at
// offset 32 * i) with the reference single-node code, from their parents' labels in that
// file (base parents) and in the previous layer's (expander parents; none for layer 1),
// the parents computed node by node from the graph definition: every node when the layer
// has at most `samples`, else `samples` drawn from seed. A resumed seal runs it on every
// layer it keeps, since seal-state.json's digests can be rewritten with the files. A layer
// of another seal, or one wrong in a share s of its labels, fails with probability about
// 1 - (1 - 7s)^samples (each sample reads 7 labels of the layer); one wrong label among N
// with about 7 * samples / N. Reads 15 labels a sample; throws std::runtime_error for I/O.
inline constexpr std::uint64_t kLayerSamplesSeed = 0x6c6179657273ull;
sampled_result check_layer_file_samples(const graph::graph_params& g, const std::uint8_t* replica_id,
                                        std::uint32_t layer, const std::filesystem::path& layer_file,
                                        const std::filesystem::path& previous_layer_file, std::uint64_t samples,
                                        std::uint64_t seed = kLayerSamplesSeed);

// Forwards to `inner`; at layer_done(l) captures layer l's samples (the layer and the
// one before it are still readable then, in every store), then forwards layer_done.
class sampling_layer_store final : public layer_store {
 public:
  // samples: spread evenly over the job's labeled layers (at least one a layer), nodes and
  // sectors drawn from seed. sdr only; throws std::invalid_argument for zigzag.
  sampling_layer_store(layer_store& inner, const label_job& job, std::uint64_t samples, std::uint64_t seed);
  std::uint8_t* layer(std::uint32_t l) override { return inner_.layer(l); }
  void layer_done(std::uint32_t l) override;
  // Recomputes every captured sample with the reference; empty until layers are done.
  sampled_result verify() const;
  std::uint64_t samples() const { return picks_.size(); }

 private:
  struct pick {
    std::uint32_t layer;
    std::uint32_t sector;
    std::uint64_t node;
    bool captured = false;
    std::uint8_t label[32];
    std::uint8_t parents[32 * kParents];
  };
  layer_store& inner_;
  const label_job job_;
  std::vector<pick> picks_;
};

}  // namespace poreplab::sdr
