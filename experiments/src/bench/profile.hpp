#pragma once
// The replication profile of one scheme (cpu::profile_labeling) on a job built the way
// bench_label builds its own: the V1_1 graph of the sector size, fixed replica id and
// data. Shared by `poreplab bench profile` and the runner's `profile` kind.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "poreplab/cpu/profile.hpp"
#include "poreplab/sdr/scheme.hpp"

namespace poreplab {

struct profile_bench_options {
  sdr::label_scheme scheme{sdr::porep_variant::sdr, hash_family::sha256};
  std::string engine = "auto";      // an engine of the hash's algo, or auto (best single-stream)
  std::uint64_t sector_size = 2048;  // bytes, power of two >= 64
  std::uint32_t layers = 0;          // 0 = the variant's usual count: sdr 2, zigzag 10
  std::uint32_t warmup = 0;
  std::uint32_t samples = 1;
  bool fenced = true;                // lfence around the per-node rdtsc
};

struct profile_bench_result {
  profile_bench_options options;     // layers resolved
  std::string device;                // CPU model
  cpu::profile_result profile;
};

// The layer count `layers` = 0 stands for.
std::uint32_t default_profile_layers(sdr::porep_variant variant);

// Throws std::invalid_argument for bad options or an engine the hash lacks,
// cpu::engine_unavailable for one this CPU cannot run.
profile_bench_result bench_profile(const profile_bench_options& opt);

// Host bytes a profile needs, roughly (layers, reference, data, replica, table).
double profile_memory_estimate(sdr::porep_variant variant, std::uint64_t sector_size);

// kind "profile": one object per run (`bench profile --json`).
nlohmann::json to_json(const profile_bench_result& r);

}  // namespace poreplab
