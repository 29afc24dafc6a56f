// The cuda backend's PC2 hasher: pc2_kernel.hpp's functor on the device, one hash per
// thread. A chunk (hash_chunk) runs sdr::chunk_schedule on the device: its layer slices
// uploaded in pieces on two streams, the tree rows built there and copied back once.
// Single rows (hash_columns, hash_level: the tops of the trees) are cut into pieces staged
// through pinned buffers, alternating between the two streams.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.cuh"
#include "launch.cuh"
#include "pc2_hasher.hpp"
#include "poreplab/sdr/pc2_build.hpp"
#include "poreplab/sdr/pc2_kernel.hpp"

namespace poreplab::cuda {

namespace {

using detail::device_memory;
using detail::event;
using detail::pinned_memory;
using detail::stream;

// Hashes per piece: enough threads to fill a large GPU (an H100 runs ~270k at once) with
// the other piece's copies in flight.
constexpr std::uint64_t kPieceHashes = std::uint64_t{1} << 18;
// Leaves per build step: 8 pieces of columns.
constexpr std::uint64_t kChunkNodes = std::uint64_t{1} << 21;
constexpr std::uint32_t kBlockThreads = 128;
constexpr int kMaxArity = 11;

struct slot {
  device_memory in_dev, out_dev;
  pinned_memory in_host, out_host;
  stream s;
  event done;
  event kernel_start{true}, kernel_stop{true};
  std::uint8_t* pending_out = nullptr;  // where the piece in flight lands; null: none
  std::uint64_t pending_bytes = 0;
};

class cuda_pc2_hasher final : public sdr::pc2_hasher {
 public:
  cuda_pc2_hasher(const backend_options& opt, const device_info& device) : device_(device) {
    POREPLAB_CUDA_CHECK(cudaSetDevice(opt.device));
    std::vector<fr32::elem> words;
    for (std::size_t i = 0; i < std::size(sdr::kPc2Arities); ++i) {
      packed_[i] = poseidon::pack_constants(poseidon::constants_for(sdr::kPc2Arities[i]));
      at_[i] = words.size();
      words.insert(words.end(), packed_[i].words.begin(), packed_[i].words.end());
    }
    const std::uint64_t constant_bytes = words.size() * sizeof(fr32::elem);
    const std::uint64_t in_bytes = kPieceHashes * kMaxArity * 32, out_bytes = kPieceHashes * 32;
    const std::uint64_t need = constant_bytes + 2 * (in_bytes + out_bytes);
    std::size_t free_b = 0, total_b = 0;
    POREPLAB_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const std::uint64_t limit = opt.memory_limit != 0 && opt.memory_limit < free_b ? opt.memory_limit : free_b;
    if (need > limit)
      throw std::runtime_error("cuda PC2: needs " + std::to_string(need >> 20) + " MiB of device memory, " +
                               std::to_string(limit >> 20) + " MiB free on " + device_.name);
    constants_ = device_memory(constant_bytes);
    POREPLAB_CUDA_CHECK(cudaMemcpy(constants_.get(), words.data(), constant_bytes, cudaMemcpyHostToDevice));
    for (slot& s : slots_) {
      s.in_dev = device_memory(in_bytes);
      s.out_dev = device_memory(out_bytes);
      s.in_host = pinned_memory(in_bytes);
      s.out_host = pinned_memory(out_bytes);
    }
    // Loaded now, so no timed call pays for module loading.
    for (const int a : sdr::kPc2Arities)
      sdr::with_pc2_arity(static_cast<std::uint32_t>(a), [](auto k) {
        cudaFuncAttributes attr{};
        POREPLAB_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel_entry<sdr::poseidon_batch_kernel<k>>()));
      });
  }

  ~cuda_pc2_hasher() override {
    for (slot& s : slots_) cudaStreamSynchronize(s.s.get());
  }
  cuda_pc2_hasher(const cuda_pc2_hasher&) = delete;
  cuda_pc2_hasher& operator=(const cuda_pc2_hasher&) = delete;

  std::string name() const override { return "cuda (" + device_.name + ")"; }
  std::uint64_t preferred_chunk_nodes() const override { return kChunkNodes; }
  double kernel_seconds() const override { return kernel_s_; }

  void hash_columns(std::span<const std::uint8_t* const> layers, std::uint64_t count, std::uint8_t* out) override {
    sdr::with_pc2_arity(static_cast<std::uint32_t>(layers.size()),
                        [&](auto a) { run<a>(layers.data(), true, count, out); });
  }

  void hash_level(const std::uint8_t* in, std::uint64_t count, std::uint32_t arity, std::uint8_t* out) override {
    sdr::with_pc2_arity(arity, [&](auto a) { run<a>(&in, false, count, out); });
  }

  // The chunk on the device (sdr::chunk_schedule): each layer's slice uploaded as it lies,
  // a piece at a time on alternating streams so that one piece's upload overlaps the
  // other's column kernel; the rows above the leaves built on the device; the rows copied
  // back once.
  void hash_chunk(std::span<const std::uint8_t* const> layers, std::uint64_t leaves, std::uint32_t levels,
                  std::uint8_t* rows) override {
    const bool columns = layers.size() > 1;
    const std::uint64_t row_bytes = 32 * sdr::chunk_row_offset(leaves, levels + 1);
    reserve_chunk(columns ? layers.size() * leaves * 32 : 0, row_bytes);
    std::vector<const std::uint8_t*> dev_layers(layers.size());
    for (std::size_t l = 0; l < layers.size(); ++l) dev_layers[l] = layers_dev_.get() + l * leaves * 32;
    std::uint8_t* const dev_rows = rows_dev_.get();
    const sdr::pc2_device_constants c{view<2>(), view<8>(), view<11>()};
    std::size_t timed = 0;
    bool joined = false;
    const auto stage = [&](std::uint64_t first, std::uint64_t n, std::int64_t piece) {
      const cudaStream_t st = slots_[piece % 2].s.get();
      for (std::size_t l = 0; l < layers.size(); ++l)
        POREPLAB_CUDA_CHECK(cudaMemcpyAsync(const_cast<std::uint8_t*>(columns ? dev_layers[l] : dev_rows) + 32 * first,
                                            layers[l] + 32 * first, 32 * n, cudaMemcpyHostToDevice, st));
    };
    const auto run_kernel = [&](const auto& k, std::uint64_t count, std::int64_t piece) {
      if (piece < 0 && !joined) {  // the rows above need every piece's leaves
        slots_[1].done.record(slots_[1].s.get());
        POREPLAB_CUDA_CHECK(cudaStreamWaitEvent(slots_[0].s.get(), slots_[1].done.get(), 0));
        joined = true;
      }
      const cudaStream_t st = slots_[piece < 0 ? 0 : piece % 2].s.get();
      if (timed == chunk_events_.size()) chunk_events_.emplace_back(event(true), event(true));
      chunk_events_[timed].first.record(st);
      launch(k, cover(count, kBlockThreads), count, st);
      chunk_events_[timed].second.record(st);
      ++timed;
    };
    sdr::chunk_schedule(c, std::span<const std::uint8_t* const>(dev_layers), leaves, levels, kPieceHashes, dev_rows, stage,
                        run_kernel);
    const std::uint64_t from = columns ? 0 : 32 * leaves;  // a replica's leaves are the caller's already
    POREPLAB_CUDA_CHECK(cudaMemcpyAsync(rows + from, dev_rows + from, row_bytes - from, cudaMemcpyDeviceToHost,
                                        slots_[0].s.get()));
    slots_[0].s.synchronize();
    for (std::size_t i = 0; i < timed; ++i) kernel_s_ += detail::elapsed_s(chunk_events_[i].first, chunk_events_[i].second);
  }

 private:
  template <int A>
  poseidon::device_constants<A + 1> view() const {
    for (std::size_t i = 0; i < std::size(sdr::kPc2Arities); ++i)
      if (sdr::kPc2Arities[i] == A) return poseidon::view_constants<A + 1>(packed_[i], constants_.get<fr32::elem>() + at_[i]);
    throw std::logic_error("cuda PC2: no constants of arity " + std::to_string(A));
  }

  // Device room for a chunk's layer slices and rows, grown when a chunk needs more (and
  // checked against the device's free memory first).
  void reserve_chunk(std::uint64_t layer_bytes, std::uint64_t row_bytes) {
    if (layer_bytes <= layers_cap_ && row_bytes <= rows_cap_) return;
    const std::uint64_t want_layers = std::max(layer_bytes, layers_cap_), want_rows = std::max(row_bytes, rows_cap_);
    layers_dev_ = device_memory();
    rows_dev_ = device_memory();
    layers_cap_ = rows_cap_ = 0;
    std::size_t free_b = 0, total_b = 0;
    POREPLAB_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (want_layers + want_rows > free_b)
      throw std::runtime_error("cuda PC2: a chunk needs " + std::to_string((want_layers + want_rows) >> 20) +
                               " MiB of device memory, " + std::to_string(free_b >> 20) + " MiB free on " + device_.name +
                               " (a smaller --chunk needs less)");
    layers_dev_ = device_memory(want_layers);
    rows_dev_ = device_memory(want_rows);
    layers_cap_ = want_layers;
    rows_cap_ = want_rows;
  }

  // Waits for the slot's piece in flight, then hands its digests to the caller.
  void drain(slot& s) {
    if (s.pending_out == nullptr) return;
    s.done.synchronize();
    std::memcpy(s.pending_out, s.out_host.get(), s.pending_bytes);
    s.pending_out = nullptr;
    kernel_s_ += detail::elapsed_s(s.kernel_start, s.kernel_stop);
  }

  // columns: src[k] is layer k (a column's element k at src[k] + 32 i); else src[0] is a
  // tree row whose groups of A nodes are hashed.
  template <int A>
  void run(const std::uint8_t* const* src, bool columns, std::uint64_t count, std::uint8_t* out) {
    const auto c = view<A>();
    std::uint64_t piece = 0;
    for (std::uint64_t first = 0; first < count; first += kPieceHashes, ++piece) {
      const std::uint64_t n = std::min(kPieceHashes, count - first);
      slot& s = slots_[piece % 2];
      drain(s);
      sdr::poseidon_batch_kernel<A> k;
      if (columns) {
        const std::uint8_t* dev_layers[A];
        for (int l = 0; l < A; ++l) {
          std::memcpy(s.in_host.get() + l * n * 32, src[l] + first * 32, n * 32);
          dev_layers[l] = s.in_dev.get() + l * n * 32;
        }
        k = sdr::column_batch<A>(c, dev_layers, n, s.out_dev.get());
      } else {
        std::memcpy(s.in_host.get(), src[0] + first * A * 32, n * A * 32);
        k = sdr::level_batch<A>(c, s.in_dev.get(), n, s.out_dev.get());
      }
      POREPLAB_CUDA_CHECK(
          cudaMemcpyAsync(s.in_dev.get(), s.in_host.get(), n * A * 32, cudaMemcpyHostToDevice, s.s.get()));
      s.kernel_start.record(s.s.get());
      launch(k, cover(n, kBlockThreads), n, s.s.get());
      s.kernel_stop.record(s.s.get());
      POREPLAB_CUDA_CHECK(
          cudaMemcpyAsync(s.out_host.get(), s.out_dev.get(), n * 32, cudaMemcpyDeviceToHost, s.s.get()));
      s.done.record(s.s.get());
      s.pending_out = out + first * 32;
      s.pending_bytes = n * 32;
    }
    for (slot& s : slots_) drain(s);
  }

  device_info device_;
  poseidon::packed_constants packed_[std::size(sdr::kPc2Arities)];
  std::size_t at_[std::size(sdr::kPc2Arities)] = {};
  device_memory constants_;
  slot slots_[2];
  device_memory layers_dev_, rows_dev_;  // hash_chunk's: a chunk's layer slices and its rows
  std::uint64_t layers_cap_ = 0, rows_cap_ = 0;
  std::vector<std::pair<event, event>> chunk_events_;  // hash_chunk's kernels, start and stop
  double kernel_s_ = 0;
};

}  // namespace

std::unique_ptr<sdr::pc2_hasher> make_cuda_pc2_hasher(const backend_options& opt, const device_info& device) {
  return std::make_unique<cuda_pc2_hasher>(opt, device);
}

}  // namespace poreplab::cuda
