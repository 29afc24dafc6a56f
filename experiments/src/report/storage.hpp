#pragma once
// The storage model (model/storage_model.hpp) fed from a run's records and from target
// machine files: the machine the records ran on (its cores, RAM and measured core clock, its
// disk from a `disk` record), a core's labeling rate at the 32GiB node window (measured with
// every core hashing where a record has it, else one core alone), and a
// target machine's own figures (quoted) with this run's cycles per label carried to its
// clock (extrapolated), or the hashing rate it quotes where that is asked for.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "model/storage_model.hpp"
#include "poreplab/name_table.hpp"
#include "report/amax.hpp"
#include "report/machines.hpp"

namespace poreplab::verdict {

struct cpu_evidence {
  std::optional<storage_model::hash_rate> hash;  // a core's labels/s (see cpu_evidence_of)
  storage_model::cpu_machine machine;            // where those records ran
};

// From the ok label records of CPU `device` (the records' CPU model), parents in place or
// gathered by coordinators (their cores counted, storage.cpp's core_rate), one
// core's share of each: a node window at `size` first, else the window of the nearest size,
// else the whole sector of the nearest size (extrapolated, named); at one size, a window
// labeled by every core at once (its labels/s over the labeling threads, its sectors a core
// likewise) before one core alone; the machine from that record's environment and the
// latest ok `disk` record of the same CPU.
cpu_evidence cpu_evidence_of(const records::result_set& in, const std::string& device, std::uint64_t size);

// A machine file as the model reads it (its figures quoted from the file).
storage_model::cpu_machine model_machine(const machine& m);

// Which hashing rate sizes a machine file: the results' measured one, carried to its clock,
// or the one the file quotes (pc1_hashing); each falls back to the other where it is missing.
enum class rate_source { measured, quoted };
inline constexpr name_table kRateSources{
    "rate source", std::array{named<rate_source>{rate_source::measured, "measured"}, named<rate_source>{rate_source::quoted, "quoted"}}};

// The rate `prefer` names: this run's rate carried to the machine (extrapolated: the model
// scales it by the clocks), or its own quoted one (pc1_hashing at its all-core clock); the
// other where it is missing, saying so.
std::optional<storage_model::hash_rate> machine_hash_rate(const machine& m,
                                                          const std::optional<storage_model::hash_rate>& measured,
                                                          rate_source prefer = rate_source::measured);

}  // namespace poreplab::verdict
