#include "poreplab/cpu/labeler.hpp"

#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "poreplab/sdr/label.hpp"

namespace poreplab::cpu {

namespace {

constexpr std::size_t kChunks = 2 * sdr::kLabelCompressions;  // 40 chunk rows per label

// Constant chunks: the tail of a label's last block (0x80 .. bit length 9984) and the
// padding block of node 0's 64-byte message.
struct constant_chunks {
  alignas(64) std::uint8_t label_tail[32] = {};
  alignas(64) std::uint8_t pad64[64] = {};
  constant_chunks() {
    label_tail[0] = 0x80;
    label_tail[30] = static_cast<std::uint8_t>((sdr::kLabelMessageBytes * 8) >> 8);
    label_tail[31] = static_cast<std::uint8_t>(sdr::kLabelMessageBytes * 8);
    pad64[0] = 0x80;
    pad64[62] = 0x02;  // 512 bits
  }
};
const constant_chunks kConst;

void pin_current_thread(int index) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  const int count = CPU_COUNT(&allowed);
  if (count <= 1) return;
  int target = index % count;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    if (target-- == 0) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      pthread_setaffinity_np(pthread_self(), sizeof one, &one);
      return;
    }
  }
}

inline void prefetch(const void* p) { __builtin_prefetch(p, 0, 3); }

// Labels layer `layer` for sectors [first, first + lanes) of a node-major layout.
void label_group(const engine& e, const sdr::label_job& job, std::uint32_t layer, std::uint32_t first,
                 std::uint32_t lanes, std::uint8_t* cur, const std::uint8_t* prev, std::size_t prefetch_distance) {
  const std::uint64_t stride = 32ull * job.sectors;
  const std::uint64_t n = job.nodes;
  std::vector<const std::uint8_t*> chunks(kChunks * lanes);
  std::vector<std::uint32_t> state(8 * lanes);
  alignas(64) std::uint8_t header_hi[32] = {};  // u32_BE(layer) || u64_BE(node) || zeros
  store_be32(header_hi, layer);
  std::uint8_t* lane0 = cur + 32ull * first;
  const std::uint8_t* prev0 = prev != nullptr ? prev + 32ull * first : nullptr;
  const std::size_t line_span = 32ull * lanes;  // bytes of one node across the group

  for (std::uint32_t j = 0; j < lanes; ++j) chunks[j] = job.replica_ids + 32ull * (first + j);
  for (std::uint32_t j = 0; j < lanes; ++j) chunks[lanes + j] = header_hi;

  for (std::uint64_t v = 0; v < n; ++v) {
    if (prefetch_distance != 0 && v + prefetch_distance < n) {
      const std::uint32_t* ahead = job.parents + 14 * (v + prefetch_distance);
      const std::uint32_t parent_count = layer == 1 ? sdr::kBaseDegree : sdr::kParents;
      for (std::uint32_t k = 0; k < parent_count; ++k) {
        const std::uint8_t* p = (k < sdr::kBaseDegree ? lane0 : prev0) + ahead[k] * stride;
        for (std::size_t off = 0; off < line_span; off += 64) prefetch(p + off);
      }
      prefetch(job.parents + 14 * (v + prefetch_distance + 4));
    }
    store_be64(header_hi + 4, v);
    for (std::uint32_t j = 0; j < lanes; ++j) sha256::init_state(state.data() + 8 * j);
    std::size_t nblocks;
    if (v == 0) {
      for (std::uint32_t j = 0; j < lanes; ++j) {
        chunks[2 * lanes + j] = kConst.pad64;
        chunks[3 * lanes + j] = kConst.pad64 + 32;
      }
      nblocks = 2;
    } else {
      const std::uint32_t* par = job.parents + 14 * v;
      for (std::uint32_t k = 0; k < sdr::kParentBlocks; ++k) {
        const std::uint32_t slot = sdr::parent_slot(layer, k);
        const std::uint8_t* p = (slot < sdr::kBaseDegree ? lane0 : prev0) + par[slot] * stride;
        const std::uint8_t** row = chunks.data() + (2 + k) * lanes;
        for (std::uint32_t j = 0; j < lanes; ++j) row[j] = p + 32ull * j;
      }
      for (std::uint32_t j = 0; j < lanes; ++j) chunks[(kChunks - 1) * lanes + j] = kConst.label_tail;
      nblocks = sdr::kLabelCompressions;
    }
    e.sha256(state.data(), chunks.data(), nblocks, lanes);
    std::uint8_t* out = lane0 + v * stride;
    for (std::uint32_t j = 0; j < lanes; ++j) {
      sha256::store_digest(state.data() + 8 * j, out + 32ull * j);
      out[32ull * j + 31] &= 0x3f;
    }
  }
}

class cpu_backend final : public sdr::backend {
 public:
  cpu_backend(const engine* forced, const labeler_options& opt) : forced_(forced), opt_(opt) {}

  std::string name() const override { return "cpu"; }

  void label(const sdr::label_job& job, sdr::layer_store& store) override {
    sdr::validate(job);
    const engine& e = forced_ != nullptr ? *forced_ : pick_label_engine(job.sectors);
    const std::uint32_t width = static_cast<std::uint32_t>(std::max<std::size_t>(1, e.lanes));
    const std::uint32_t groups = (job.sectors + width - 1) / width;
    const int threads = opt_.threads > 0 ? opt_.threads : omp_get_max_threads();
    const int used = static_cast<int>(std::min<std::uint32_t>(groups, static_cast<std::uint32_t>(threads)));
    for (std::uint32_t l = 1; l <= job.layers; ++l) {
      std::uint8_t* cur = store.layer(l);
      const std::uint8_t* prev = l > 1 ? store.layer(l - 1) : nullptr;
#pragma omp parallel num_threads(used)
      {
        if (opt_.pin_threads && used > 1) pin_current_thread(omp_get_thread_num());
#pragma omp for schedule(static)
        for (std::int64_t g = 0; g < static_cast<std::int64_t>(groups); ++g) {
          const auto first = static_cast<std::uint32_t>(g) * width;
          const std::uint32_t lanes = std::min(width, job.sectors - first);
          label_group(e, job, l, first, lanes, cur, prev, opt_.prefetch_distance);
        }
      }
      store.layer_done(l);
    }
  }

 private:
  const engine* forced_;
  labeler_options opt_;
};

}  // namespace

const engine& pick_label_engine(std::size_t sectors) {
  if (sectors <= 1) return best_engine(engine_algo::sha256, 1, 1);
  const auto avail = available_engines(engine_algo::sha256);
  // Widest engine that S fills; lanes > S would hash idle lanes.
  const engine* best = nullptr;
  for (const engine* e : avail)
    if (e->lanes <= sectors && (best == nullptr || e->lanes > best->lanes)) best = e;
  if (std::getenv(kForceEngineEnv) != nullptr || best == nullptr) return best_engine(engine_algo::sha256);
  return *best;
}

std::unique_ptr<sdr::backend> make_cpu_backend(const labeler_options& opt) {
  const engine* forced = nullptr;
  if (opt.engine != "auto" && !opt.engine.empty()) forced = &find_engine(engine_algo::sha256, opt.engine);
  return std::make_unique<cpu_backend>(forced, opt);
}

double measure_floor_seconds(const engine& e, std::size_t sectors, std::uint64_t nodes_times_layers, int threads) {
  const std::size_t width = std::max<std::size_t>(1, e.lanes);
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
      std::vector<const std::uint8_t*> chunks(kChunks * width);
      std::vector<std::uint32_t> state(8 * width, 1);
#pragma omp for schedule(static)
      for (std::int64_t g = 0; g < static_cast<std::int64_t>(groups); ++g) {
        const std::size_t lanes = std::min(width, sectors - static_cast<std::size_t>(g) * width);
        for (std::size_t k = 0; k < kChunks; ++k)
          for (std::size_t j = 0; j < lanes; ++j) chunks[k * lanes + j] = data + 32 * ((k + j) % 80);
        for (std::uint64_t i = 0; i < nodes_times_layers * reps; ++i)
          e.sha256(state.data(), chunks.data(), sdr::kLabelCompressions, lanes);
      }
      // Keep the chains observable.
      volatile std::uint32_t sink = state[0];
      (void)sink;
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s >= kMinSeconds || reps >= (1ull << 30)) return s / static_cast<double>(reps);
    reps = std::max<std::uint64_t>(reps * 2, static_cast<std::uint64_t>(kMinSeconds / std::max(s, 1e-6) * static_cast<double>(reps) * 1.2));
  }
}

}  // namespace poreplab::cpu
