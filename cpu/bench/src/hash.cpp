// bench_hash(): builds each workload once, checks its output against the portable code,
// then times whole passes over it (see bench.hpp for the two patterns).
#include <linux/perf_event.h>
#include <omp.h>
#include <openssl/evp.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>

#include "poreplab/cpu/bench.hpp"
#include "poreplab/cpu/features.hpp"
#include "poreplab/cpu/latency.hpp"
#include "poreplab/cpu/perf_counter.hpp"
#include "poreplab/cpu/reference.hpp"
#include "poreplab/hash/blake2b.hpp"
#include "poreplab/hash/blake2s.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/sampling.hpp"
#include "poreplab/sdr/scheme.hpp"
#include "poreplab/stats.hpp"

namespace poreplab::cpu {

namespace {

// --- measurement ---------------------------------------------------------------------

// This thread's user-mode core cycles, when the kernel and hypervisor expose a PMU.
struct core_cycles : perf_counter {
  core_cycles() : perf_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES) {}
};

// One benchmark subject: a pass over fixed data, and a check of its output.
struct workload {
  std::size_t lanes = 1;
  std::size_t block_bytes = 64;
  std::uint64_t blocks_per_pass = 0;  // counted blocks, all lanes
  std::function<void()> pass;
  std::function<bool()> verify;  // from a fresh start: output equals the portable code's
  std::string chain;             // chain mode: what one chain hashes
};

double thread_cpu_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// One subject's samples: passes per sample sized once, then samples taken one at a time
// so that two subjects can alternate.
struct sampler {
  const workload* w = nullptr;
  std::uint64_t passes = 1;
  double blocks = 0, bytes = 0;
  std::vector<double> ns, cpu_ns, tsc, core;

  sampler(const workload& wl, const hash_bench_options& opt) : w(&wl) {
    using clk = std::chrono::steady_clock;
    w->pass();  // warm caches and branch predictors
    const auto c0 = clk::now();
    w->pass();
    const double one = std::chrono::duration<double>(clk::now() - c0).count();
    passes = static_cast<std::uint64_t>(std::max(1.0, std::ceil(opt.min_time_s / std::max(one, 1e-9))));
    blocks = static_cast<double>(w->blocks_per_pass) * static_cast<double>(passes);
    bytes = blocks * static_cast<double>(w->block_bytes);
  }

  void sample(const core_cycles& cc) {
    using clk = std::chrono::steady_clock;
    const std::uint64_t k0 = cc.read();
    const double u0 = thread_cpu_ns();
    const std::uint64_t t0 = rdtsc();
    const auto s0 = clk::now();
    for (std::uint64_t p = 0; p < passes; ++p) w->pass();
    const auto s1 = clk::now();
    const std::uint64_t t1 = rdtsc();
    const double u1 = thread_cpu_ns();
    const std::uint64_t k1 = cc.read();
    ns.push_back(std::chrono::duration<double, std::nano>(s1 - s0).count() / blocks);
    cpu_ns.push_back((u1 - u0) / blocks);
    tsc.push_back(static_cast<double>(t1 - t0) / bytes);
    core.push_back(static_cast<double>(k1 - k0) / bytes);
  }

  hash_bench_row row(const core_cycles& cc) const {
    hash_bench_row r;
    r.lanes = w->lanes;
    r.block_bytes = w->block_bytes;
    r.chain = w->chain;
    r.blocks_per_pass = w->blocks_per_pass;
    r.passes_per_sample = passes;
    r.samples = ns;
    r.ns_per_block = median(ns);
    r.min_ns_per_block = *std::min_element(ns.begin(), ns.end());
    r.max_ns_per_block = *std::max_element(ns.begin(), ns.end());
    r.lane_ns_per_block = r.ns_per_block * static_cast<double>(w->lanes);
    r.cpu_ns_per_block = median(cpu_ns);
    r.gbps = static_cast<double>(w->block_bytes) / r.ns_per_block;
    r.cycles_per_byte_tsc = median(tsc);
    if (cc.ok() && median(core) > 0) r.cycles_per_byte_core = median(core);
    return r;
  }
};

// --- data and OpenSSL ------------------------------------------------------------------

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng() >> 56);
  return v;
}

// A reusable EVP context for one digest (fetched once: OpenSSL 3 otherwise looks the
// algorithm up on every init).
class evp_digest {
 public:
  explicit evp_digest(const char* name) : md_(EVP_MD_fetch(nullptr, name, nullptr)), ctx_(EVP_MD_CTX_new()) {
    if (md_ == nullptr || ctx_ == nullptr) {
      release();
      throw std::runtime_error(std::string("OpenSSL has no ") + name + " digest");
    }
  }
  ~evp_digest() { release(); }
  evp_digest(const evp_digest&) = delete;
  evp_digest& operator=(const evp_digest&) = delete;

  void digest(const void* data, std::size_t len, std::uint8_t* out) {
    unsigned int n = 0;
    if (EVP_DigestInit_ex2(ctx_, md_, nullptr) != 1 || EVP_DigestUpdate(ctx_, data, len) != 1 ||
        EVP_DigestFinal_ex(ctx_, out, &n) != 1)
      throw std::runtime_error("OpenSSL digest failed");
  }

 private:
  void release() {
    if (ctx_ != nullptr) EVP_MD_CTX_free(ctx_);
    if (md_ != nullptr) EVP_MD_free(md_);
    ctx_ = nullptr;
    md_ = nullptr;
  }
  EVP_MD* md_;
  EVP_MD_CTX* ctx_;
};

// --- SHA-256 ---------------------------------------------------------------------------

// Message blocks of one lane's message are its 64-byte blocks, then the padding block
// (0x80, zeros, bit length), shared by all lanes.
workload sha256_throughput(const engine* e, std::size_t lanes, std::size_t bytes) {
  struct data {
    std::size_t lanes, bytes, nblocks;
    std::vector<std::uint8_t> msgs;
    alignas(64) std::uint8_t pad[64] = {};
    std::vector<const std::uint8_t*> chunks;
    std::vector<std::uint32_t> state;
    std::vector<std::uint8_t> out;  // OpenSSL digests
    std::unique_ptr<evp_digest> evp;
  };
  auto d = std::make_shared<data>();
  d->lanes = lanes;
  d->bytes = bytes;
  d->nblocks = bytes / 64 + 1;
  d->msgs = random_bytes(lanes * bytes, 1);
  d->pad[0] = 0x80;
  store_be64(d->pad + 56, static_cast<std::uint64_t>(bytes) * 8);
  d->chunks.resize(2 * d->nblocks * lanes);
  for (std::size_t c = 0; c < 2 * d->nblocks; ++c)
    for (std::size_t j = 0; j < lanes; ++j)
      d->chunks[c * lanes + j] = c < 2 * (d->nblocks - 1) ? d->msgs.data() + j * bytes + 32 * c : d->pad + 32 * (c & 1);
  d->state.resize(8 * lanes);
  d->out.resize(32 * lanes);

  workload w;
  w.lanes = lanes;
  w.block_bytes = 64;
  w.blocks_per_pass = static_cast<std::uint64_t>(bytes / 64) * lanes;
  if (e != nullptr) {
    const sha256_chains_fn fn = e->sha256;
    w.pass = [d, fn] {
      for (std::size_t j = 0; j < d->lanes; ++j) sha256::init_state(d->state.data() + 8 * j);
      fn(d->state.data(), d->chunks.data(), d->nblocks, d->lanes);
    };
  } else {
    d->evp = std::make_unique<evp_digest>(openssl_evp_name(hash_family::sha256));
    w.pass = [d] { d->evp->digest(d->msgs.data(), d->bytes, d->out.data()); };
  }
  w.verify = [d, w_pass = w.pass, is_evp = e == nullptr] {
    w_pass();
    for (std::size_t j = 0; j < d->lanes; ++j) {
      std::uint8_t want[32], got[32];
      sha256::digest(want, d->msgs.data() + j * d->bytes, d->bytes);
      if (is_evp)
        std::memcpy(got, d->out.data() + 32 * j, 32);
      else
        sha256::store_digest(d->state.data() + 8 * j, got);
      if (std::memcmp(want, got, 32) != 0) return false;
    }
    return true;
  };
  return w;
}

// SDR-shaped labels: 64-byte header (a per-lane replica id, a per-label chunk), 37
// parents, then the padding half-block; 20 compressions, 1,248 message bytes. Labels
// live node-major in a ring of P slots (slot s of lane j at (s * lanes + j) * 32); label
// i's first parent is label i - 1, the rest are random slots.
constexpr std::size_t kLabelParents = 37;
constexpr std::size_t kLabelChunks = 2 * 20;
static_assert(sdr::kSdrMessageBytes == 64 + 32 * kLabelParents);

workload sha256_chain(const engine* e, std::size_t lanes, std::size_t bytes) {
  struct data {
    std::size_t lanes, labels;
    std::vector<std::uint8_t> ring, ring0, replica, header_hi;
    alignas(64) std::uint8_t tail[32] = {};
    std::vector<const std::uint8_t*> chunks;  // labels x 40 x lanes
    std::vector<std::uint32_t> state;
    std::uint8_t msg[sdr::kSdrMessageBytes];  // OpenSSL's gathered message
    std::unique_ptr<evp_digest> evp;
  };
  auto d = std::make_shared<data>();
  d->lanes = lanes;
  d->labels = std::max<std::size_t>(1, bytes / (64 * 20));
  d->ring0 = random_bytes(d->labels * lanes * 32, 2);
  d->ring = d->ring0;
  d->replica = random_bytes(lanes * 32, 3);
  d->header_hi.assign(d->labels * 32, 0);
  for (std::size_t i = 0; i < d->labels; ++i) store_be64(d->header_hi.data() + 32 * i + 4, i);
  d->tail[0] = 0x80;
  store_be64(d->tail + 24, sdr::kSdrMessageBytes * 8);
  std::mt19937_64 rng(4);
  d->chunks.resize(d->labels * kLabelChunks * lanes);
  for (std::size_t i = 0; i < d->labels; ++i) {
    const std::uint8_t** rows = d->chunks.data() + i * kLabelChunks * lanes;
    for (std::size_t j = 0; j < lanes; ++j) {
      rows[j] = d->replica.data() + 32 * j;
      rows[lanes + j] = d->header_hi.data() + 32 * i;
      rows[(kLabelChunks - 1) * lanes + j] = d->tail;
    }
    for (std::size_t k = 0; k < kLabelParents; ++k) {
      const std::size_t slot = k == 0 ? (i + d->labels - 1) % d->labels : rng() % d->labels;
      for (std::size_t j = 0; j < lanes; ++j) rows[(2 + k) * lanes + j] = d->ring.data() + (slot * lanes + j) * 32;
    }
  }
  d->state.resize(8 * lanes);

  workload w;
  w.chain = "dependent SDR-shaped labels (20 compressions, parents in place)";
  w.lanes = lanes;
  w.block_bytes = 64;
  w.blocks_per_pass = static_cast<std::uint64_t>(d->labels) * 20 * lanes;
  // Gathers label i of lane j into msg (what a contiguous-input hash needs).
  auto gather = [](data& x, std::size_t i, std::size_t j) {
    const std::uint8_t* const* rows = x.chunks.data() + i * kLabelChunks * x.lanes;
    for (std::size_t c = 0; c + 1 < kLabelChunks; ++c) std::memcpy(x.msg + 32 * c, rows[c * x.lanes + j], 32);
  };
  if (e != nullptr) {
    const sha256_chains_fn fn = e->sha256;
    w.pass = [d, fn] {
      for (std::size_t i = 0; i < d->labels; ++i) {
        for (std::size_t j = 0; j < d->lanes; ++j) sha256::init_state(d->state.data() + 8 * j);
        fn(d->state.data(), d->chunks.data() + i * kLabelChunks * d->lanes, 20, d->lanes);
        for (std::size_t j = 0; j < d->lanes; ++j)
          sha256::store_digest(d->state.data() + 8 * j, d->ring.data() + (i * d->lanes + j) * 32);
      }
    };
  } else {
    d->evp = std::make_unique<evp_digest>(openssl_evp_name(hash_family::sha256));
    w.pass = [d, gather] {
      for (std::size_t i = 0; i < d->labels; ++i) {
        gather(*d, i, 0);
        d->evp->digest(d->msg, sdr::kSdrMessageBytes, d->ring.data() + i * 32);
      }
    };
  }
  w.verify = [d, gather, w_pass = w.pass] {
    d->ring = d->ring0;
    w_pass();
    const auto got = d->ring;
    d->ring = d->ring0;
    for (std::size_t i = 0; i < d->labels; ++i)
      for (std::size_t j = 0; j < d->lanes; ++j) {
        gather(*d, i, j);
        sha256::digest(d->ring.data() + (i * d->lanes + j) * 32, d->msg, sdr::kSdrMessageBytes);
      }
    return got == d->ring;
  };
  return w;
}

// --- BLAKE2 ----------------------------------------------------------------------------

template <class H>
void blake2_call(const engine& e, typename H::word* h, const std::uint8_t* const* chunks, std::size_t n,
                 std::uint64_t t, bool last, std::size_t lanes) {
  if constexpr (sizeof(typename H::word) == 4)
    e.blake2s(h, chunks, n, t, last, lanes);
  else
    e.blake2b(h, chunks, n, t, last, lanes);
}

template <class H>
void store_words(const typename H::word* h, std::uint8_t* out) {
  for (int i = 0; i < 8; ++i) {
    if constexpr (sizeof(typename H::word) == 4)
      store_le32(out + 4 * i, h[i]);
    else
      store_le64(out + 8 * i, h[i]);
  }
}

// Full-length digests (32 bytes for BLAKE2s, 64 for BLAKE2b), like the OpenSSL rows: one
// message per lane, its chunks read in place.
template <class H>
workload blake2_throughput(const engine* e, hash_family algo, std::size_t lanes, std::size_t bytes) {
  using W = typename H::word;
  constexpr std::size_t B = H::kBlockBytes, C = B / 32, kOut = H::kMaxDigestBytes;
  struct data {
    std::size_t lanes, bytes;
    std::vector<std::uint8_t> msgs;
    std::vector<const std::uint8_t*> chunks;
    std::vector<W> h;
    std::vector<std::uint8_t> out;
    std::unique_ptr<evp_digest> evp;
  };
  auto d = std::make_shared<data>();
  d->lanes = lanes;
  d->bytes = bytes;
  d->msgs = random_bytes(lanes * bytes, 5);
  d->chunks.resize(bytes / 32 * lanes);
  for (std::size_t c = 0; c < bytes / 32; ++c)
    for (std::size_t j = 0; j < lanes; ++j) d->chunks[c * lanes + j] = d->msgs.data() + j * bytes + 32 * c;
  d->h.resize(8 * lanes);
  d->out.resize(kOut * lanes);
  workload w;
  w.lanes = lanes;
  w.block_bytes = B;
  w.blocks_per_pass = bytes / B * lanes;
  if (e != nullptr) {
    w.pass = [d, e] {
      for (std::size_t j = 0; j < d->lanes; ++j) H::init_state(d->h.data() + 8 * j, kOut, 0);
      blake2_call<H>(*e, d->h.data(), d->chunks.data(), d->chunks.size() / (C * d->lanes), B, true, d->lanes);
      for (std::size_t j = 0; j < d->lanes; ++j) store_words<H>(d->h.data() + 8 * j, d->out.data() + kOut * j);
    };
  } else {
    d->evp = std::make_unique<evp_digest>(openssl_evp_name(algo));
    w.pass = [d] { d->evp->digest(d->msgs.data(), d->bytes, d->out.data()); };
  }
  w.verify = [d, w_pass = w.pass] {
    w_pass();
    for (std::size_t j = 0; j < d->lanes; ++j) {
      std::uint8_t want[kOut];
      H::digest(want, kOut, d->msgs.data() + j * d->bytes, d->bytes);
      if (std::memcmp(want, d->out.data() + kOut * j, kOut) != 0) return false;
    }
    return true;
  };
  return w;
}

// One-block messages, each beginning with the digest of the one before; one chain per lane.
template <class H>
workload blake2_chain(const engine* e, hash_family algo, std::size_t lanes, std::size_t bytes) {
  using W = typename H::word;
  constexpr std::size_t B = H::kBlockBytes, C = B / 32, kOut = H::kMaxDigestBytes;
  struct data {
    std::size_t steps, lanes;
    std::vector<std::uint8_t> blocks0, blocks;  // lane j's block at B * j
    std::vector<const std::uint8_t*> chunks;
    std::vector<W> h0, h;
    std::unique_ptr<evp_digest> evp;
  };
  auto d = std::make_shared<data>();
  d->steps = bytes / B;
  d->lanes = lanes;
  d->blocks0 = random_bytes(B * lanes, 6);
  d->blocks = d->blocks0;
  for (std::size_t c = 0; c < C; ++c)
    for (std::size_t j = 0; j < lanes; ++j) d->chunks.push_back(d->blocks.data() + B * j + 32 * c);
  d->h0.resize(8 * lanes);
  for (std::size_t j = 0; j < lanes; ++j) H::init_state(d->h0.data() + 8 * j, kOut, 0);
  d->h.resize(8 * lanes);
  workload w;
  w.chain = "dependent one-block messages";
  w.lanes = lanes;
  w.block_bytes = B;
  w.blocks_per_pass = d->steps * lanes;
  if (e != nullptr) {
    w.pass = [d, e] {
      for (std::size_t s = 0; s < d->steps; ++s) {
        d->h = d->h0;
        blake2_call<H>(*e, d->h.data(), d->chunks.data(), 1, B, true, d->lanes);
        for (std::size_t j = 0; j < d->lanes; ++j) store_words<H>(d->h.data() + 8 * j, d->blocks.data() + B * j);
      }
    };
  } else {
    d->evp = std::make_unique<evp_digest>(openssl_evp_name(algo));
    w.pass = [d] {
      std::uint8_t out[H::kMaxDigestBytes];  // not kOut: clang 14 would ask to capture it
      for (std::size_t s = 0; s < d->steps; ++s) {
        d->evp->digest(d->blocks.data(), B, out);
        std::memcpy(d->blocks.data(), out, kOut);
      }
    };
  }
  w.verify = [d, w_pass = w.pass] {
    d->blocks = d->blocks0;
    w_pass();
    const std::vector<std::uint8_t> got = d->blocks;
    for (std::size_t j = 0; j < d->lanes; ++j) {
      std::uint8_t block[B];
      std::memcpy(block, d->blocks0.data() + B * j, B);
      for (std::size_t s = 0; s < d->steps; ++s) {
        std::uint8_t out[kOut];
        H::digest(out, kOut, block, B);
        std::memcpy(block, out, kOut);
      }
      if (std::memcmp(got.data() + B * j, block, B) != 0) return false;
    }
    return true;
  };
  return w;
}

workload make_workload(hash_family algo, hash_bench_mode mode, const engine* e, std::size_t bytes) {
  const std::size_t lanes = e != nullptr ? e->lanes : 1;
  switch (algo) {
    case hash_family::sha256:
      return mode == hash_bench_mode::throughput ? sha256_throughput(e, lanes, bytes) : sha256_chain(e, lanes, bytes);
    case hash_family::blake2s:
      return mode == hash_bench_mode::throughput ? blake2_throughput<blake2s>(e, algo, lanes, bytes)
                                            : blake2_chain<blake2s>(e, algo, lanes, bytes);
    case hash_family::blake2b:
      return mode == hash_bench_mode::throughput ? blake2_throughput<blake2b>(e, algo, lanes, bytes)
                                            : blake2_chain<blake2b>(e, algo, lanes, bytes);
  }
  throw std::invalid_argument("unknown hash algorithm");
}

// `threads` copies of a workload run side by side, copy t pinned to cpus[t] (none: not
// pinned); one pass is one pass of every copy, its blocks all of theirs.
workload side_by_side(std::vector<workload> copies, std::vector<int> cpus) {
  auto all = std::make_shared<std::vector<workload>>(std::move(copies));
  workload w;
  w.lanes = all->front().lanes;
  w.block_bytes = all->front().block_bytes;
  w.chain = all->front().chain;
  for (const workload& c : *all) w.blocks_per_pass += c.blocks_per_pass;
  w.pass = [all, cpus] {
    const auto n = static_cast<std::int64_t>(all->size());
#pragma omp parallel for num_threads(static_cast<int>(n)) schedule(static, 1)
    for (std::int64_t t = 0; t < n; ++t) {
      if (!cpus.empty()) pin_this_thread(cpus[static_cast<std::size_t>(t)]);
      (*all)[static_cast<std::size_t>(t)].pass();
    }
  };
  w.verify = [all] {
    return std::all_of(all->begin(), all->end(), [](const workload& c) { return c.verify(); });
  };
  return w;
}

void set_pairs(std::vector<double> pairs, std::vector<double>& out, std::optional<double>& mid, double& lo,
               double& hi) {
  if (pairs.empty()) return;
  const interval ci = bootstrap_median_interval(pairs);
  mid = median(pairs);
  lo = ci.lo;
  hi = ci.hi;
  out = std::move(pairs);
}

// The options checked; the bytes each lane hashes: whole blocks only, so that every engine
// and OpenSSL hash the same bytes.
std::size_t checked_bytes_per_lane(hash_family algo, const hash_bench_options& opt) {
  if (opt.repetitions < 1) throw std::invalid_argument("bench: repetitions must be at least 1");
  if (!(opt.min_time_s >= 0) || !std::isfinite(opt.min_time_s))
    throw std::invalid_argument("bench: min time must be a finite number of seconds >= 0");
  const std::size_t block = compression_block_bytes(algo);
  if (opt.bytes_per_lane < block || opt.bytes_per_lane > (std::size_t{1} << 30))
    throw std::invalid_argument("bench: bytes per lane must be " + std::to_string(block) + " .. 1 GiB");
  if (opt.modes.empty()) throw std::invalid_argument("bench: no mode selected");
  if (opt.threads < 1 || opt.threads > 1024) throw std::invalid_argument("bench: threads must be 1 .. 1024");
  return opt.bytes_per_lane / block * block;
}

// Thread t's cpu under the placement, cpus[t]; none for one thread or where the placement
// names no order.
std::vector<int> placed_cpus(const hash_bench_options& opt) {
  const std::vector<int> allowed = affinity_cpus();
  if (const std::string why = placement_unavailable(opt.placement, topology(), allowed); !why.empty())
    throw unavailable_error(why);
  std::vector<int> cpus;
  if (opt.threads > 1)
    if (const std::vector<int> order = placement_cpus(opt.placement, topology(), allowed); !order.empty())
      for (int t = 0; t < opt.threads; ++t) cpus.push_back(order[static_cast<std::size_t>(t) % order.size()]);
  return cpus;
}

// The engines `engine_name` selects, then nullptr for OpenSSL where it is measured too.
std::vector<const engine*> bench_subjects(hash_family algo, std::string_view engine_name,
                                          const hash_bench_options& opt) {
  std::vector<const engine*> subjects;
  if (engine_name == "all") {
    subjects = available_engines(algo);
  } else if (engine_name != kOpenssl) {
    subjects.push_back(&find_engine(algo, engine_name));
  }
  if (opt.openssl || engine_name == kOpenssl) subjects.push_back(nullptr);
  return subjects;
}

// An engine's row past its timing: the core clock, the port bound and the paired ratios.
void finish_engine_row(hash_bench_row& row, hash_family algo, const engine& e, hash_bench_mode mode, bool ok,
                       const hash_bench_options& opt, std::vector<double> pairs, std::vector<double> thread_pairs) {
  row.algo = algo;
  row.engine = std::string(e.name);
  row.mode = mode;
  row.verified = ok;
  row.core_hz = measure_core_hz();
  // The port bound is one core's: a row of several threads has none.
  if (const auto bound = port_bound_cycles_per_block(algo, e.name); bound && row.core_hz > 0 && opt.threads == 1) {
    row.bound_ns_per_block = *bound / row.core_hz * 1e9;
    row.vs_bound = *row.bound_ns_per_block / row.ns_per_block;
  }
  set_pairs(std::move(pairs), row.vs_openssl_pairs, row.vs_openssl, row.vs_openssl_lo, row.vs_openssl_hi);
  set_pairs(std::move(thread_pairs), row.vs_one_thread_pairs, row.vs_one_thread, row.vs_one_thread_lo,
            row.vs_one_thread_hi);
}

// OpenSSL's row from its samples, its output checked after them.
hash_bench_row openssl_row(hash_family algo, hash_bench_mode mode, const workload& w, const sampler& samples,
                           const core_cycles& cc) {
  hash_bench_row row = samples.row(cc);
  row.algo = algo;
  row.engine = std::string(kOpenssl);
  row.mode = mode;
  row.verified = w.verify();
  return row;
}

}  // namespace

bool core_cycle_counter_available() {
  const core_cycles cc;
  return cc.ok();
}

std::vector<hash_bench_row> bench_hash(hash_family algo, std::string_view engine_name,
                                       const hash_bench_options& opt) {
  const std::size_t bytes = checked_bytes_per_lane(algo, opt);
  const std::vector<int> cpus = placed_cpus(opt);  // thread t on cpus[t]
  const affinity_guard restore;  // the calling thread runs one of the pinned copies
  // One subject's workload: alone, or copies side by side.
  const auto make = [&](hash_bench_mode mode, const engine* e) {
    if (opt.threads == 1) return make_workload(algo, mode, e, bytes);
    std::vector<workload> copies;
    for (int t = 0; t < opt.threads; ++t) copies.push_back(make_workload(algo, mode, e, bytes));
    return side_by_side(std::move(copies), cpus);
  };

  const std::vector<const engine*> subjects = bench_subjects(algo, engine_name, opt);  // nullptr: OpenSSL

  const core_cycles cc;
  std::vector<hash_bench_row> rows;
  bool warm = false;
  // The first row of a fresh process often loses time to the OS settling (page faults,
  // clock ramp, migration): run ~0.1 s of work before timing anything.
  const auto warm_up = [&](const workload& w) {
    if (warm) return;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    while (std::chrono::steady_clock::now() < until) w.pass();
    warm = true;
  };
  const bool with_openssl = !subjects.empty() && subjects.back() == nullptr;
  for (hash_bench_mode mode : opt.modes) {
    std::optional<workload> ossl;
    std::optional<sampler> ossl_samples;
    if (with_openssl) ossl = make(mode, nullptr);
    for (const engine* e : subjects) {
      if (e == nullptr) continue;
      const workload w = make(mode, e);
      warm_up(w);
      const bool ok = w.verify();
      sampler s(w, opt);
      if (ossl && !ossl_samples) ossl_samples.emplace(*ossl, opt);
      std::optional<workload> alone;  // threads > 1: the one-thread run it is paired with
      std::optional<sampler> alone_samples;
      if (opt.threads > 1) {
        alone = make_workload(algo, mode, e, bytes);
        alone_samples.emplace(*alone, opt);
      }
      std::vector<double> pairs, thread_pairs;
      stopping_rule rule{stopping_options{static_cast<std::size_t>(opt.repetitions)}};
      sample_until(
          rule,
          [&](std::size_t) {
            s.sample(cc);
            if (ossl_samples) {
              ossl_samples->sample(cc);
              pairs.push_back(ossl_samples->ns.back() / s.ns.back());
            }
            if (alone_samples) {
              alone_samples->sample(cc);
              thread_pairs.push_back(alone_samples->ns.back() / s.ns.back());
            }
          },
          [&]() -> const std::vector<double>& { return s.ns; });
      hash_bench_row row = s.row(cc);
      finish_engine_row(row, algo, *e, mode, ok, opt, std::move(pairs), std::move(thread_pairs));
      rows.push_back(std::move(row));
    }
    if (ossl) {
      warm_up(*ossl);
      if (!ossl_samples) {  // OpenSSL alone
        ossl_samples.emplace(*ossl, opt);
        stopping_rule rule{stopping_options{static_cast<std::size_t>(opt.repetitions)}};
        sample_until(
            rule, [&](std::size_t) { ossl_samples->sample(cc); },
            [&]() -> const std::vector<double>& { return ossl_samples->ns; });
      }
      rows.push_back(openssl_row(algo, mode, *ossl, *ossl_samples, cc));
    }
  }
  for (auto& row : rows) {
    row.threads = opt.threads;
    row.placement = kThreadPlacements.name(opt.placement);
    row.cpus = cpus;
  }
  return rows;
}

nlohmann::json to_json(const hash_bench_row& r) {
  nlohmann::json j;
  j["kind"] = "hash";
  j["algo"] = hash_family_name(r.algo);
  j["engine"] = r.engine;
  j["mode"] = hash_bench_mode_name(r.mode);
  j["lanes"] = r.lanes;
  j["block_bytes"] = r.block_bytes;
  j["blocks_per_pass"] = r.blocks_per_pass;
  j["passes_per_sample"] = r.passes_per_sample;
  j["ns_per_block"] = r.ns_per_block;
  j["min_ns_per_block"] = r.min_ns_per_block;
  j["median_ns_per_block"] = r.ns_per_block;
  j["max_ns_per_block"] = r.max_ns_per_block;
  j["lane_ns_per_block"] = r.lane_ns_per_block;
  j["cpu_ns_per_block"] = r.cpu_ns_per_block;
  j["gb_per_s"] = r.gbps;
  j["cycles_per_byte"] = r.cycles_per_byte_tsc;
  j["cycles_per_byte_core"] = r.cycles_per_byte_core ? nlohmann::json(*r.cycles_per_byte_core) : nlohmann::json();
  j["samples"] = r.samples;
  j["verified"] = r.verified;
  j["vs_openssl"] = r.vs_openssl ? nlohmann::json(*r.vs_openssl) : nlohmann::json();
  if (r.vs_openssl) {
    j["vs_openssl_ci95"] = {r.vs_openssl_lo, r.vs_openssl_hi};
    j["vs_openssl_pairs"] = r.vs_openssl_pairs;
  }
  j["core_hz"] = r.core_hz > 0 ? nlohmann::json(r.core_hz) : nlohmann::json();
  j["bound_ns_per_block"] = r.bound_ns_per_block ? nlohmann::json(*r.bound_ns_per_block) : nlohmann::json();
  j["vs_bound"] = r.vs_bound ? nlohmann::json(*r.vs_bound) : nlohmann::json();
  j["threads"] = r.threads;
  j["placement"] = r.placement;
  j["cpus"] = r.cpus;
  j["vs_one_thread"] = r.vs_one_thread ? nlohmann::json(*r.vs_one_thread) : nlohmann::json();
  if (r.vs_one_thread) {
    j["vs_one_thread_ci95"] = {r.vs_one_thread_lo, r.vs_one_thread_hi};
    j["vs_one_thread_pairs"] = r.vs_one_thread_pairs;
  }
  return j;
}

}  // namespace poreplab::cpu
