#include "poreplab/sdr/emulated_backend.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "poreplab/grid.hpp"
#include "poreplab/memory_check.hpp"
#include "poreplab/omp_threads.hpp"
#include "poreplab/sdr/label_driver.hpp"
#include "poreplab/sdr/pc2_build.hpp"
#include "poreplab/sdr/pc2_kernel.hpp"

namespace poreplab::sdr {

namespace {

// The executor of run_label_job on the host: "device" memory is host vectors, launches
// run through emulate_grid and complete before returning.
class host_executor {
 public:
  explicit host_executor(std::uint64_t layer_bytes) {
    layers_[0].resize(layer_bytes);
    layers_[1].resize(layer_bytes);
  }

  std::uint8_t* layer_buffer(int i) { return layers_[i].data(); }

  const std::uint8_t* upload_replica_ids(const std::uint8_t* ids, std::uint64_t bytes) {
    ids_.assign(ids, ids + bytes);
    return ids_.data();
  }

  void upload_layer(int i, const std::uint8_t* host, std::uint64_t bytes) {
    std::memcpy(layers_[i].data(), host, bytes);
  }

  const std::uint32_t* upload_parents(const std::uint32_t* table, std::uint64_t rows) {
    parents_.assign(table, table + rows * kParents);
    return parents_.data();
  }

  const std::uint32_t* stage_parents(int slot, const std::uint32_t* rows, std::uint64_t count) {
    chunks_[slot].assign(rows, rows + count * kParents);
    return chunks_[slot].data();
  }

  void release_parents(int /*slot*/) {}

  template <class Kernel>
  void load(const Kernel& /*k*/) {}

  template <class Kernel>
  void launch(const Kernel& k, grid_dims dims) {
    emulate_grid(dims, k);
  }

  void layer_written(int /*buf*/) {}

  void download(std::uint8_t* host, int buf, std::uint64_t offset, std::uint64_t bytes) {
    std::memcpy(host + offset, layers_[buf].data() + offset, bytes);
  }

  void finish() {}

 private:
  std::vector<std::uint8_t> layers_[2];
  std::vector<std::uint8_t> ids_;
  std::vector<std::uint32_t> parents_;
  std::vector<std::uint32_t> chunks_[2];
};

// Leaves per column launch: small, so the tests' chunks cover several pieces.
constexpr std::uint64_t kEmulatedPc2Piece = 512;

// PC2 on the device kernel (pc2_kernel.hpp), its launches run by emulate_grid over host
// buffers standing in for device memory.
class emulated_pc2_hasher final : public pc2_hasher {
 public:
  explicit emulated_pc2_hasher(const emulation_options& opt) : opt_(opt) {
    for (std::size_t i = 0; i < std::size(kPc2Arities); ++i)
      packed_[i] = poseidon::pack_constants(poseidon::constants_for(kPc2Arities[i]));
  }

  std::string name() const override { return "cuda-emu (the device Poseidon kernel, 32-bit words)"; }

  void hash_columns(std::span<const std::uint8_t* const> layers, std::uint64_t count, std::uint8_t* out) override {
    with_pc2_arity(static_cast<std::uint32_t>(layers.size()), [&](auto a) {
      launch(column_batch<a>(view<a>(), layers.data(), count, out), count);
    });
  }

  void hash_level(const std::uint8_t* in, std::uint64_t count, std::uint32_t arity, std::uint8_t* out) override {
    with_pc2_arity(arity, [&](auto a) { launch(level_batch<a>(view<a>(), in, count, out), count); });
  }

  // The cuda backend's schedule (chunk_schedule), host memory standing in for the device's:
  // the layers are read where they lie, the replica's leaves staged into row 0.
  void hash_chunk(std::span<const std::uint8_t* const> layers, std::uint64_t leaves, std::uint32_t levels,
                  std::uint8_t* rows) override {
    const pc2_device_constants c{view<2>(), view<8>(), view<11>()};
    const auto stage = [&](std::uint64_t first, std::uint64_t n, std::int64_t) {
      if (layers.size() == 1) std::copy_n(layers[0] + 32 * first, 32 * n, rows + 32 * first);
    };
    const auto run = [&](const auto& k, std::uint64_t count, std::int64_t) { launch(k, count); };
    chunk_schedule(c, layers, leaves, levels, kEmulatedPc2Piece, rows, stage, run);
  }

 private:
  template <int A>
  poseidon::device_constants<A + 1> view() const {
    for (const auto& p : packed_)
      if (p.arity == A) return poseidon::view_constants<A + 1>(p, p.words.data());
    throw std::logic_error("cuda-emu: no Poseidon constants of arity " + std::to_string(A));
  }
  template <class K>
  void launch(const K& k, std::uint64_t count) {
    const omp_threads_scope scope(opt_.threads);
    emulate_grid(cover(count, opt_.threads_per_block), k);
  }

  emulation_options opt_;
  poseidon::packed_constants packed_[std::size(kPc2Arities)];
};

class emulated_backend final : public backend {
 public:
  explicit emulated_backend(const emulation_options& opt) : opt_(opt) {}

  std::string name() const override { return "cuda-emu"; }

  std::unique_ptr<pc2_hasher> make_pc2_hasher() override { return std::make_unique<emulated_pc2_hasher>(opt_); }

  void label(const label_job& job, layer_store& store) override {
    validate(job);
    const omp_threads_scope scope(opt_.threads);
    // The emulated device holds two full layers, as the GPU does (a window too).
    require_memory(2 * job.nodes * job.sectors * 32, "cuda-emu device layers");
    host_executor ex(job.nodes * job.sectors * 32);
    run_label_job(ex, job, store, device_plan{opt_.layout, opt_.threads_per_block, opt_.chunk_nodes, opt_.launch_nodes, {}, opt_.kernel});
  }

  label_run_times timed_label(const label_job& job, layer_store& store) override {
    label_run_times t = backend::timed_label(job, store);
    t.kernel = kernel_variant_name(resolve_kernel(opt_.kernel, job.scheme, job.sectors, kDefaultLatencySectors));
    return t;
  }

 private:
  emulation_options opt_;
};

}  // namespace

std::unique_ptr<backend> make_emulated_backend(const emulation_options& opt) {
  // The limit a CUDA launch has, so that an emulated run never accepts a shape the device refuses.
  if (opt.threads_per_block == 0 || opt.threads_per_block > 1024)
    throw std::invalid_argument("cuda-emu backend: threads per block must be 1..1024, not " +
                                std::to_string(opt.threads_per_block));
  return std::make_unique<emulated_backend>(opt);
}

}  // namespace poreplab::sdr
