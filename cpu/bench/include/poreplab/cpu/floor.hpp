#pragma once
// The hash-only floor of labeling, the denominator of labeling efficiency.
#include <cstddef>
#include <cstdint>

#include "poreplab/cpu/engines.hpp"
#include "poreplab/sdr/scheme.hpp"

namespace poreplab::cpu {

// How the labeler runs SDR's repeated message blocks (labeler_options::schedule_reuse):
// with reuse, a floor chain's blocks repeat as a layer-1 node's for layer1_share of the
// chains and as a later layer's for the rest, so the floor does the labeler's hash work.
// after_header (Filecoin's scheme): the chain a node waits on when its header block is
// compressed ahead (labeler_options::header_ahead): 19 compressions, not 20.
struct floor_repeats {
  bool reuse = false;
  double layer1_share = 0;
  bool after_header = false;
};

// The time floor of labeling: per sector, nodes_times_layers dependent chains of the
// scheme's compressions per node on `e` with L1-resident inputs, run by `threads`
// threads the way the labeler groups sectors. Returns seconds for that work.
double measure_floor_seconds(const engine& e, sdr::label_scheme s, std::size_t sectors,
                             std::uint64_t nodes_times_layers, int threads, const floor_repeats& repeats = {});
// The Filecoin scheme (20 SHA-256 compressions per node).
double measure_floor_seconds(const engine& e, std::size_t sectors, std::uint64_t nodes_times_layers, int threads);

}  // namespace poreplab::cpu
