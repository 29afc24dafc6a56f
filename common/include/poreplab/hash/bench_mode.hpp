#pragma once
// How a hash benchmark feeds its compressions, on every backend: many independent
// messages (throughput) or one dependent chain per lane (chain: labeling's pattern, the
// compression's latency).
#include <array>
#include <string_view>

#include "poreplab/name_table.hpp"

namespace poreplab {

enum class hash_bench_mode { throughput, chain };

inline constexpr name_table kHashBenchModes{
    "bench mode", std::array{named<hash_bench_mode>{hash_bench_mode::throughput, "throughput"},
                             named<hash_bench_mode>{hash_bench_mode::chain, "chain"}}};

inline std::string_view hash_bench_mode_name(hash_bench_mode m) { return kHashBenchModes.name(m); }
inline hash_bench_mode parse_hash_bench_mode(std::string_view s) { return kHashBenchModes.parse(s); }

}  // namespace poreplab
