#pragma once
// The interface every labeling backend implements (reference, CPU engines, CUDA,
// host-emulated CUDA): label S sectors that share one graph, layer by layer.
// Layers hold the S sectors node-major, sector-minor: node i of sectors 0..S-1 are
// adjacent, so one parent lookup serves every sector.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "poreplab/huge_buffer.hpp"

namespace poreplab::sdr {

class layer_store {
 public:
  virtual ~layer_store() = default;
  // Layer l (1-based): nodes * sectors * 32 writable bytes. While layer l is labeled,
  // layer l-1 must stay readable.
  virtual std::uint8_t* layer(std::uint32_t l) = 0;
  // Layer l is final (a store may flush, digest or release it).
  virtual void layer_done(std::uint32_t /*l*/) {}
};

// Every layer in memory.
class memory_layer_store final : public layer_store {
 public:
  memory_layer_store(std::uint64_t layer_bytes, std::uint32_t layers);
  std::uint8_t* layer(std::uint32_t l) override;
  const std::uint8_t* layer(std::uint32_t l) const;
  std::uint64_t layer_bytes() const { return layer_bytes_; }

 private:
  std::uint64_t layer_bytes_;
  std::vector<huge_buffer> layers_;
};

// Two buffers reused alternately: only the last layer survives (for benchmarks and
// sectors where only the replica is wanted).
class rolling_layer_store final : public layer_store {
 public:
  explicit rolling_layer_store(std::uint64_t layer_bytes);
  std::uint8_t* layer(std::uint32_t l) override;

 private:
  huge_buffer buf_[2];
};

struct label_job {
  std::uint64_t nodes = 0;
  const std::uint32_t* parents = nullptr;     // nodes x 14 (6 base, 8 expander)
  std::uint32_t layers = 0;
  std::uint32_t sectors = 1;
  const std::uint8_t* replica_ids = nullptr;  // sectors x 32
};

class backend {
 public:
  virtual ~backend() = default;
  virtual std::string name() const = 0;
  virtual void label(const label_job& job, layer_store& store) = 0;
};

// Portable code of common/ only: one OpenMP thread per sector, node loop in order.
std::unique_ptr<backend> make_reference_backend();

// Checks a label_job's invariants; throws std::invalid_argument naming the problem.
void validate(const label_job& job);

// replica = key + data mod r, element-wise over `elements` 32-byte values (any layout,
// as long as key, data and replica share it). Throws if a data element is not < r.
void encode(const std::uint8_t* key, const std::uint8_t* data, std::uint8_t* replica, std::uint64_t elements);
// data = replica - key mod r.
void decode(const std::uint8_t* key, const std::uint8_t* replica, std::uint8_t* data, std::uint64_t elements);

// Index of the first 32-byte element that is not a canonical field element, or -1.
std::int64_t first_noncanonical(const std::uint8_t* data, std::uint64_t elements);

}  // namespace poreplab::sdr
