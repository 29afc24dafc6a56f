#pragma once
// The OpenMP CPU backend: labeling of S sectors (sharing one graph) for every scheme
// (sdr | zigzag) x (sha256 | blake2s | blake2b-256), on an engine of the scheme's hash.
// Sectors run in groups of the engine's lane width (SHA-256 and BLAKE2 alike), the
// message's 32-byte chunks read in place (gathered only with assembly gather). Each thread
// drives whole groups (sectors) through the node loop of a layer, prefetching parents
// ahead. ZigZag layers are
// encoded in place (node + key mod r), after sdr::zigzag_begin_layer.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "poreplab/cpu/engines.hpp"
#include "poreplab/cpu/labeler_options.hpp"
#include "poreplab/sdr/backend.hpp"

namespace poreplab::cpu {

// Where label() runs the coordinators of `job` under `opt` (off, core or sibling: auto
// resolved), how many, and the hashers they feed in all. Throws what label() throws for an
// engine or a team it cannot use.
struct planned_teams {
  parent_producer where = parent_producer::off;
  std::uint32_t coordinators = 0, hashers = 0;
};
planned_teams planned_coordination(const labeler_options& opt, const sdr::label_job& job);
parent_producer planned_producer(const labeler_options& opt, const sdr::label_job& job);

// The engine label() hashes `job` with: the one opt.engine names, or auto's pick for the
// threads that hash, which a coordinator plan asked for (producer core or sibling) may
// leave fewer than opt.threads.
const engine& label_engine(const labeler_options& opt, const sdr::label_job& job);

// Whether label() hashes `job`'s regular nodes as 19 chained compressions, the header block
// made off the chain (labeler_options::header_ahead): by a producer, or in the labeling
// thread where the first group has one lane.
bool header_off_chain(const labeler_options& opt, const sdr::label_job& job);

// Throws std::invalid_argument (an engine name no algo knows) or engine_unavailable (no
// algo that knows the name can run it here). A name the job's hash algo lacks (e.g.
// "shani" for a blake2s job) makes label() throw std::invalid_argument naming the algo.
std::unique_ptr<sdr::backend> make_cpu_backend(const labeler_options& opt);

// The SHA-256 engine `auto` picks for S sectors labeled by `threads` threads (0: this
// process's OpenMP threads): fastest_engine(sha256, S, threads) (tune.hpp): measured on this CPU,
// one stream -> the fastest 1-lane engine, several -> the lowest time per block step for S
// chains with their groups spread over the threads; without measurements the widest
// engine S fills.
const engine& pick_label_engine(std::size_t sectors, int threads = 0);

// The engine the cpu backend uses for a scheme: `name` of the scheme's hash algo, or for
// "auto" fastest_engine(algo, S, threads) of the scheme's hash, as above. Throws
// std::invalid_argument naming the algo for an unknown name, engine_unavailable.
const engine& pick_label_engine(sdr::label_scheme s, std::size_t sectors, std::string_view name = "auto",
                                int threads = 0);

}  // namespace poreplab::cpu
