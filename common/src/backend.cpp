#include "poreplab/sdr/backend.hpp"

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>

#include "poreplab/omp_threads.hpp"
#include "poreplab/sdr/label.hpp"
#include "poreplab/sdr/pc2_build.hpp"
#include "poreplab/unavailable.hpp"
#include "poreplab/sdr/zigzag.hpp"

namespace poreplab::sdr {

std::unique_ptr<pc2_hasher> backend::make_pc2_hasher() {
  throw unavailable_error("the " + name() + " backend has no PC2 (Poseidon) path");
}

label_run_times backend::timed_label(const label_job& job, layer_store& store) {
  const auto t0 = std::chrono::steady_clock::now();
  label(job, store);
  label_run_times t;
  t.end_to_end_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return t;
}

void validate(const label_job& job) {
  if (job.nodes < 2 || (job.nodes & (job.nodes - 1)) != 0)
    throw std::invalid_argument("label job: node count " + std::to_string(job.nodes) + " is not a power of two >= 2");
  if (job.parents == nullptr) throw std::invalid_argument("label job: no parent table");
  if (job.layers == 0 || job.layers > kMaxLayers)
    throw std::invalid_argument("label job: " + std::to_string(job.layers) + " layers is not from 1 to " +
                                std::to_string(kMaxLayers));
  if (job.first_layer == 0 || job.first_layer > job.layers)
    throw std::invalid_argument("label job: first layer " + std::to_string(job.first_layer) + " is not from 1 to " +
                                std::to_string(job.layers));
  if (job.first_layer != 1 && job.scheme.variant != porep_variant::sdr)
    throw std::invalid_argument("label job: only sdr labeling can start past layer 1");
  if (job.first_layer != 1 && job.window_nodes != 0)
    throw std::invalid_argument("label job: a node window names its layer by `layers`; first layer must stay 1");
  if (job.sectors == 0) throw std::invalid_argument("label job: zero sectors");
  if (job.replica_ids == nullptr) throw std::invalid_argument("label job: no replica ids");
  if (job.windowed()) {
    // ZigZag encodes each layer in place in an order where every row reads rows labeled
    // before it anywhere in the layer: a window has no self-contained starting point.
    if (job.scheme.variant == porep_variant::zigzag)
      throw std::invalid_argument("label job: a node window applies to sdr only; zigzag encodes whole layers in place");
    if (job.first_node >= job.nodes || job.window_nodes > job.nodes - job.first_node) {
      std::string m = "label job: node window [";
      m += std::to_string(job.first_node);
      m += ", +";
      m += std::to_string(job.window_nodes);
      m += ") is outside the ";
      m += std::to_string(job.nodes);
      m += " nodes";
      throw std::invalid_argument(m);
    }
  } else if (job.first_node != 0) {
    throw std::invalid_argument("label job: first node set without a window");
  }
  if (job.scheme.variant == porep_variant::zigzag) {
    if (job.data == nullptr) throw std::invalid_argument("label job: zigzag encodes data in place but none was given");
    if (const auto bad = first_noncanonical(job.data, job.nodes * job.sectors); bad >= 0)
      throw std::invalid_argument("label job: data element " + std::to_string(bad) +
                                  " is not a valid BLS12-381 field element");
  }
}

void zigzag_begin_layer(const label_job& job, layer_store& store, std::uint32_t l) {
  const std::uint8_t* from = l == 1 ? job.data : store.layer(l - 1);
  std::uint8_t* to = store.layer(l);
  if (from != to) std::memcpy(to, from, job.nodes * job.sectors * 32);
}

layer_inputs begin_layer(const label_job& job, layer_store& store, std::uint32_t l) {
  if (job.scheme.variant == porep_variant::zigzag) {
    zigzag_begin_layer(job, store, l);
    return {store.layer(l), nullptr, job.parents + kParents * zigzag_first_row(l, job.nodes)};
  }
  return {store.layer(l), l > 1 ? store.layer(l - 1) : nullptr, job.parents};
}

namespace {

class reference_backend final : public backend {
 public:
  explicit reference_backend(int threads) : threads_(threads) {}

  std::string name() const override { return "reference"; }

  std::unique_ptr<pc2_hasher> make_pc2_hasher() override { return make_reference_pc2_hasher(threads_); }

  void label(const label_job& job, layer_store& store) override {
    validate(job);
    const omp_threads_scope scope(threads_);
    with_scheme(job.scheme, [&](auto v, auto h) { run<decltype(v)::value, decltype(h)::value>(job, store); });
  }

 private:
  template <porep_variant V, hash_family H>
  static void run(const label_job& job, layer_store& store) {
    const std::uint64_t stride = 32ull * job.sectors;
    const auto sectors = static_cast<std::int64_t>(job.sectors);
    for (std::uint32_t l = job.start_layer(); l <= job.layers; ++l) {
      report_layer_start(job, l);
      const layer_inputs in = begin_layer(job, store, l);
      std::uint8_t* cur = in.cur;
      if constexpr (V == porep_variant::zigzag) {
        const std::uint32_t* rows = in.rows;
#pragma omp parallel for schedule(static) if (sectors > 1)
        for (std::int64_t s = 0; s < sectors; ++s) {
          const layer_ref buf{cur + 32 * s, stride};
          for (std::uint64_t r = 0; r < job.nodes; ++r)
            zigzag_encode_node<H>(job.replica_ids + 32 * s, rows + kParents * r, buf);
        }
      } else {
        std::uint8_t* prev = in.prev;
#pragma omp parallel for schedule(static) if (sectors > 1)
        for (std::int64_t s = 0; s < sectors; ++s) {
          const layer_ref c{cur + 32 * s, stride};
          const layer_ref p{prev != nullptr ? prev + 32 * s : nullptr, stride};
          const std::uint8_t* id = job.replica_ids + 32 * s;
          for (std::uint64_t v = job.node_begin(); v < job.node_end(); ++v) {
            label_node<H>(id, l, v, job.row(v), c, p);
            if (s == 0 && (v & (kProgressNodes - 1)) == 0) report_nodes(job, v);
          }
        }
      }
      report_nodes(job, job.nodes);
      store.layer_done(l);
    }
  }

  int threads_;
};

}  // namespace

std::unique_ptr<backend> make_reference_backend(int threads) { return std::make_unique<reference_backend>(threads); }

}  // namespace poreplab::sdr
