#include "poreplab/cpu/floor.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "label_message.hpp"
#include "poreplab/cpu/labeler.hpp"

namespace poreplab::cpu {

double measure_floor_seconds(const engine& e, std::size_t sectors, std::uint64_t nodes_times_layers, int threads) {
  return measure_floor_seconds(e, sdr::kFilecoinScheme, sectors, nodes_times_layers, threads);
}

double measure_floor_seconds(const engine& e, sdr::label_scheme scheme, std::size_t sectors,
                             std::uint64_t nodes_times_layers, int threads, const floor_repeats& repeats) {
  if (e.algo != scheme.hash)
    throw std::invalid_argument("labeling floor: engine '" + std::string(e.name) + "' is a " +
                                std::string(hash_family_name(e.algo)) + " engine, the scheme " +
                                sdr::scheme_name(scheme) + " hashes with " + sdr::label_hash_name(scheme.hash));
  const bool after_header = repeats.after_header && scheme == sdr::kFilecoinScheme;
  const std::size_t nblocks = after_header ? sdr::kChainedCompressions : sdr::compressions_per_node(scheme);
  const bool reuse = repeats.reuse && scheme == sdr::kFilecoinScheme;
  const double layer1_share = std::clamp(repeats.layer1_share, 0.0, 1.0);
  const std::size_t width = std::max<std::size_t>(1, e.lanes);
  const std::size_t block_chunks = compression_block_bytes(e.algo) / 32;
  const std::size_t groups = (sectors + width - 1) / width;
  const int used = static_cast<int>(std::min<std::size_t>(groups, static_cast<std::size_t>(std::max(1, threads))));
  // Each thread runs its groups' chains; small jobs are repeated until the measurement
  // lasts long enough to dwarf thread start-up, then scaled back to one job.
  constexpr double kMinSeconds = 0.05;
  std::uint64_t reps = 1;
  for (;;) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(used)
    {
      alignas(64) std::uint8_t data[64 * 40] = {};
      for (std::size_t i = 0; i < sizeof data; ++i) data[i] = static_cast<std::uint8_t>(i * 7);
      std::vector<const std::uint8_t*> chunks(block_chunks * nblocks * width);
#pragma omp for schedule(static)
      for (std::int64_t g = 0; g < static_cast<std::int64_t>(groups); ++g) {
        const std::size_t lanes = std::min(width, sectors - static_cast<std::size_t>(g) * width);
        const std::uint64_t chains = nodes_times_layers * reps;
        for (std::size_t k = 0; k < block_chunks * nblocks; ++k)
          for (std::size_t j = 0; j < lanes; ++j) chunks[k * lanes + j] = data + 32 * ((k + j) % 80);
        const auto layer1 = static_cast<std::uint64_t>(static_cast<double>(chains) * layer1_share + 0.5);
        const std::uint8_t* first = after_header ? sdr::kLayer1ChainedRepeats.first_of : sdr::kLayer1BlockRepeats.first_of;
        const std::uint8_t* later =
            after_header ? sdr::kLaterLayerChainedRepeats.first_of : sdr::kLaterLayerBlockRepeats.first_of;
        sdr::with_scheme(scheme, [&](auto v, auto h) {
          detail::floor_chains<decltype(v)::value, decltype(h)::value>(
              e, chunks.data(), static_cast<std::uint32_t>(lanes), chains, nblocks, layer1,
              reuse ? first : nullptr, reuse ? later : nullptr);
        });
      }
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s >= kMinSeconds || reps >= (1ull << 30)) return s / static_cast<double>(reps);
    reps = std::max<std::uint64_t>(reps * 2, static_cast<std::uint64_t>(kMinSeconds / std::max(s, 1e-6) * static_cast<double>(reps) * 1.2));
  }
}

}  // namespace poreplab::cpu
