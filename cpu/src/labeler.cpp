#include "poreplab/cpu/labeler.hpp"
#include "poreplab/cpu/tune.hpp"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <vector>

#include "fr_montgomery.hpp"
#include "label_message.hpp"
#include "poreplab/field/fr.hpp"
#include "poreplab/sdr/label.hpp"
#include "poreplab/sdr/zigzag.hpp"

namespace poreplab::cpu {

namespace {

constexpr std::size_t kChunks = 2 * sdr::kLabelCompressions;  // 40 chunk rows per label
// ZigZag with SHA-256: replica_id || 13 parents (14 chunks, 7 blocks) and the constant
// length block of a 448-byte message: 16 chunk rows, 8 compressions.
constexpr std::size_t kZigzagChunks = sdr::kZigzagRowWords + 2;
constexpr std::size_t kZigzagBlocks = kZigzagChunks / 2;
static_assert(kZigzagBlocks == 8);

// Constant chunks: the tail of a label's last block (0x80 .. bit length 9984) and the
// padding block of node 0's 64-byte message; for ZigZag the length block of a 448-byte
// message and the second half of the one block of a 32-byte message (replica_id alone).
struct constant_chunks {
  alignas(64) std::uint8_t label_tail[32] = {};
  alignas(64) std::uint8_t pad64[64] = {};
  alignas(64) std::uint8_t zigzag_tail[64] = {};
  alignas(64) std::uint8_t zigzag_first[32] = {};
  constant_chunks() {
    label_tail[0] = 0x80;
    label_tail[30] = static_cast<std::uint8_t>((sdr::kSdrMessageBytes * 8) >> 8);
    label_tail[31] = static_cast<std::uint8_t>(sdr::kSdrMessageBytes * 8);
    pad64[0] = 0x80;
    pad64[62] = 0x02;  // 512 bits
    zigzag_tail[0] = 0x80;
    store_be64(zigzag_tail + 56, sdr::kZigzagMessageBytes * 8);  // 3584 bits
    zigzag_first[0] = 0x80;
    store_be64(zigzag_first + 24, 32 * 8);  // 256 bits
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

inline void encode(field_encoding enc, std::uint8_t* node, const std::uint8_t* key) {
  if (enc == field_encoding::montgomery)
    detail::fr_add_montgomery(node, key, node);
  else
    fr::add(node, key, node);
}

// Advisory: a range the kernel cannot advise (a file mapping, THP compiled out) keeps
// its pages as they are, which is what the "default" setting measures anyway.
void advise_pages(const void* p, std::size_t bytes, huge_pages mode) {
  if (mode == huge_pages::system || p == nullptr || bytes == 0) return;
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + page - 1) / page * page;
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) / page * page;
  if (end <= begin) return;
  (void)madvise(reinterpret_cast<void*>(begin), end - begin,
                mode == huge_pages::on ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
}

// Per-lane message buffers of the gather assembly: lane j's chunk row r lies at
// buf + (j * rows + r) * 32, so each lane's message is contiguous as a hasher's buffer.
struct gather_buffer {
  std::vector<std::uint8_t> bytes;
  std::vector<const std::uint8_t*> chunks;  // the engine's rows, into bytes for the gathered ones
  gather_buffer(std::size_t rows, std::uint32_t lanes) : bytes(rows * lanes * 32), chunks(rows * lanes) {}
  std::uint8_t* at(std::size_t rows, std::uint32_t lane, std::size_t row) {
    return bytes.data() + (lane * rows + row) * 32;
  }
};

// Labels layer `layer` for sectors [first, first + lanes) of a node-major layout.
void label_group(const engine& e, const sdr::label_job& job, std::uint32_t layer, std::uint32_t first,
                 std::uint32_t lanes, std::uint8_t* cur, const std::uint8_t* prev, const labeler_options& opt) {
  const std::size_t prefetch_distance = opt.prefetch_distance;
  const bool gather = opt.assembly == message_assembly::gather;
  const std::uint64_t stride = 32ull * job.sectors;
  const std::uint64_t n = job.node_end();
  std::vector<const std::uint8_t*> chunks(kChunks * lanes);
  std::vector<std::uint32_t> state(8 * lanes);
  alignas(64) std::uint8_t header_hi[32] = {};  // u32_BE(layer) || u64_BE(node) || zeros
  store_be32(header_hi, layer);
  std::uint8_t* lane0 = cur + 32ull * first;
  const std::uint8_t* prev0 = prev != nullptr ? prev + 32ull * first : nullptr;
  const std::size_t line_span = 32ull * lanes;  // bytes of one node across the group

  for (std::uint32_t j = 0; j < lanes; ++j) chunks[j] = job.replica_ids + 32ull * (first + j);
  for (std::uint32_t j = 0; j < lanes; ++j) chunks[lanes + j] = header_hi;
  gather_buffer g(gather ? kChunks : 0, gather ? lanes : 0);
  if (gather) {
    for (std::size_t r = 0; r < kChunks; ++r)
      for (std::uint32_t j = 0; j < lanes; ++j)
        g.chunks[r * lanes + j] = r < 2 ? chunks[r * lanes + j] : r + 1 == kChunks ? kConst.label_tail : g.at(kChunks, j, r);
  }

  for (std::uint64_t v = job.node_begin(); v < n; ++v) {
    if (prefetch_distance != 0 && v + prefetch_distance < n) {
      const std::uint32_t* ahead = job.row(v + prefetch_distance);
      const std::uint32_t parent_count = layer == 1 ? sdr::kBaseDegree : sdr::kParents;
      for (std::uint32_t k = 0; k < parent_count; ++k) {
        const std::uint8_t* p = (k < sdr::kBaseDegree ? lane0 : prev0) + ahead[k] * stride;
        for (std::size_t off = 0; off < line_span; off += 64) prefetch(p + off);
      }
      if (v + prefetch_distance + 4 < n) prefetch(job.row(v + prefetch_distance + 4));
    }
    store_be64(header_hi + 4, v);
    if (first == 0 && (v & (sdr::kProgressNodes - 1)) == 0) sdr::report_nodes(job, v);
    for (std::uint32_t j = 0; j < lanes; ++j) sha256::init_state(state.data() + 8 * j);
    std::size_t nblocks;
    if (v == 0) {
      for (std::uint32_t j = 0; j < lanes; ++j) {
        chunks[2 * lanes + j] = kConst.pad64;
        chunks[3 * lanes + j] = kConst.pad64 + 32;
      }
      if (opt.pad_precompute) {
        e.sha256(state.data(), chunks.data(), 1, lanes);
        e.sha256_pad64(state.data(), lanes);
        nblocks = 0;
      } else {
        nblocks = 2;
      }
    } else {
      const std::uint32_t* par = job.row(v);
      for (std::uint32_t k = 0; k < sdr::kParentBlocks; ++k) {
        const std::uint32_t slot = sdr::parent_slot(layer, k);
        const std::uint8_t* p = (slot < sdr::kBaseDegree ? lane0 : prev0) + par[slot] * stride;
        if (gather) {
          for (std::uint32_t j = 0; j < lanes; ++j) std::memcpy(g.at(kChunks, j, 2 + k), p + 32ull * j, 32);
        } else {
          const std::uint8_t** row = chunks.data() + (2 + k) * lanes;
          for (std::uint32_t j = 0; j < lanes; ++j) row[j] = p + 32ull * j;
        }
      }
      for (std::uint32_t j = 0; j < lanes; ++j) chunks[(kChunks - 1) * lanes + j] = kConst.label_tail;
      nblocks = sdr::kLabelCompressions;
    }
    if (nblocks != 0) e.sha256(state.data(), (gather && v != 0 ? g.chunks : chunks).data(), nblocks, lanes);
    std::uint8_t* out = lane0 + v * stride;
    for (std::uint32_t j = 0; j < lanes; ++j) {
      sha256::store_digest(state.data() + 8 * j, out + 32ull * j);
      out[32ull * j + 31] &= 0x3f;
    }
  }
}

// ZigZag layer for sectors [first, first + lanes) of a node-major buffer, encoded in
// place with a SHA-256 engine: the rows' parents are read where they lie (the values
// this layer has already written), the key added to the node mod r.
void zigzag_group(const engine& e, const sdr::label_job& job, const std::uint32_t* rows, std::uint32_t first,
                  std::uint32_t lanes, std::uint8_t* buf, const labeler_options& opt) {
  const std::size_t prefetch_distance = opt.prefetch_distance;
  const bool gather = opt.assembly == message_assembly::gather;
  const std::uint64_t stride = 32ull * job.sectors;
  const std::uint64_t n = job.nodes;
  std::vector<const std::uint8_t*> chunks(kZigzagChunks * lanes);
  std::vector<std::uint32_t> state(8 * lanes);
  std::uint8_t* lane0 = buf + 32ull * first;
  const std::size_t line_span = 32ull * lanes;

  for (std::uint32_t j = 0; j < lanes; ++j) chunks[j] = job.replica_ids + 32ull * (first + j);
  for (std::uint32_t j = 0; j < lanes; ++j) {
    chunks[(kZigzagChunks - 2) * lanes + j] = kConst.zigzag_tail;
    chunks[(kZigzagChunks - 1) * lanes + j] = kConst.zigzag_tail + 32;
  }
  gather_buffer g(gather ? kZigzagChunks : 0, gather ? lanes : 0);
  if (gather) {
    for (std::size_t r = 0; r < kZigzagChunks; ++r)
      for (std::uint32_t j = 0; j < lanes; ++j)
        g.chunks[r * lanes + j] = r == 0 || r + 2 >= kZigzagChunks ? chunks[r * lanes + j] : g.at(kZigzagChunks, j, r);
  }

  for (std::uint64_t r = 0; r < n; ++r) {
    if (prefetch_distance != 0 && r + prefetch_distance < n) {
      const std::uint32_t* ahead = rows + sdr::kParents * (r + prefetch_distance);
      for (std::uint32_t k = 0; k < sdr::kZigzagRowWords; ++k) {  // the node itself and its 13 parents
        const std::uint8_t* p = lane0 + ahead[k] * stride;
        for (std::size_t off = 0; off < line_span; off += 64) prefetch(p + off);
      }
      if (r + prefetch_distance + 4 < n) prefetch(rows + sdr::kParents * (r + prefetch_distance + 4));
    }
    const std::uint32_t* row = rows + sdr::kParents * r;
    for (std::uint32_t j = 0; j < lanes; ++j) sha256::init_state(state.data() + 8 * j);
    std::size_t nblocks;
    if (row[1] == row[0]) {  // the first node of a direction: H(replica_id)
      for (std::uint32_t j = 0; j < lanes; ++j) chunks[lanes + j] = kConst.zigzag_first;
      nblocks = 1;
    } else {
      for (std::uint32_t k = 1; k < sdr::kZigzagRowWords; ++k) {
        const std::uint8_t* p = lane0 + row[k] * stride;
        if (gather) {
          for (std::uint32_t j = 0; j < lanes; ++j) std::memcpy(g.at(kZigzagChunks, j, k), p + 32ull * j, 32);
        } else {
          const std::uint8_t** out = chunks.data() + k * lanes;
          for (std::uint32_t j = 0; j < lanes; ++j) out[j] = p + 32ull * j;
        }
      }
      nblocks = kZigzagBlocks;
    }
    e.sha256(state.data(), (gather && nblocks != 1 ? g.chunks : chunks).data(), nblocks, lanes);
    std::uint8_t* node = lane0 + row[0] * stride;
    for (std::uint32_t j = 0; j < lanes; ++j) {
      alignas(32) std::uint8_t key[32];
      sha256::store_digest(state.data() + 8 * j, key);
      key[31] &= 0x3f;
      encode(opt.encoding, node + 32ull * j, key);
    }
  }
}

// SDR layer `layer` of sector s with a BLAKE2 engine (one stream): each node's message is
// gathered into an aligned buffer, then compressed.
template <sdr::label_hash H>
void label_sector_blake2(const engine& e, const sdr::label_job& job, std::uint32_t layer, std::uint32_t s,
                         std::uint8_t* cur, const std::uint8_t* prev, std::size_t prefetch_distance) {
  const std::uint64_t stride = 32ull * job.sectors;
  const std::uint64_t n = job.node_end();
  std::uint8_t* lane = cur + 32ull * s;
  const std::uint8_t* prev_lane = prev != nullptr ? prev + 32ull * s : nullptr;
  detail::node_message<sdr::porep_variant::sdr, H> m;
  m.sdr_begin(job.replica_ids + 32ull * s, layer);
  const std::uint32_t parent_count = layer == 1 ? sdr::kBaseDegree : sdr::kParents;
  for (std::uint64_t v = job.node_begin(); v < n; ++v) {
    if (prefetch_distance != 0 && v + prefetch_distance < n) {
      const std::uint32_t* ahead = job.row(v + prefetch_distance);
      for (std::uint32_t k = 0; k < parent_count; ++k)
        prefetch((k < sdr::kBaseDegree ? lane : prev_lane) + ahead[k] * stride);
      if (v + prefetch_distance + 4 < n) prefetch(job.row(v + prefetch_distance + 4));
    }
    if (s == 0 && (v & (sdr::kProgressNodes - 1)) == 0) sdr::report_nodes(job, v);
    if (v == 0) {
      m.sdr_gather_first();
      m.hash_short(e, lane);
    } else {
      m.sdr_gather(layer, v, job.row(v), lane, prev_lane, stride);
      m.hash(e, lane + v * stride);
    }
  }
}

// ZigZag layer of sector s with a BLAKE2 engine, encoded in place.
template <sdr::label_hash H>
void zigzag_sector_blake2(const engine& e, const sdr::label_job& job, const std::uint32_t* rows, std::uint32_t s,
                          std::uint8_t* buf, std::size_t prefetch_distance, field_encoding enc) {
  const std::uint64_t stride = 32ull * job.sectors;
  const std::uint64_t n = job.nodes;
  std::uint8_t* lane = buf + 32ull * s;
  detail::node_message<sdr::porep_variant::zigzag, H> m;
  m.zigzag_begin(job.replica_ids + 32ull * s);
  for (std::uint64_t r = 0; r < n; ++r) {
    if (prefetch_distance != 0 && r + prefetch_distance < n) {
      const std::uint32_t* ahead = rows + sdr::kParents * (r + prefetch_distance);
      for (std::uint32_t k = 0; k < sdr::kZigzagRowWords; ++k) prefetch(lane + ahead[k] * stride);
      if (r + prefetch_distance + 4 < n) prefetch(rows + sdr::kParents * (r + prefetch_distance + 4));
    }
    const std::uint32_t* row = rows + sdr::kParents * r;
    alignas(32) std::uint8_t key[32];
    if (row[1] == row[0]) {
      m.hash_short(e, key);
    } else {
      m.zigzag_gather(row, lane, stride);
      m.hash(e, key);
    }
    std::uint8_t* node = lane + row[0] * stride;
    encode(enc, node, key);
  }
}

// An engine name given to the backend must name an engine of some algo (which one is
// checked per job, against the job's hash); one that no algo can run here is refused now.
void check_engine_name(const std::string& name) {
  if (name.empty() || name == "auto") return;
  std::exception_ptr unavailable;
  std::string valid;
  for (engine_algo a : engine_algos()) {
    try {
      find_engine(a, name);
      return;
    } catch (const engine_unavailable&) {
      if (!unavailable) unavailable = std::current_exception();
    } catch (const std::invalid_argument&) {
    }
    std::string names;
    for (const auto& e : compiled_engines(a)) names += (names.empty() ? "" : ", ") + std::string(e.name);
    valid += (valid.empty() ? "" : "; ") + std::string(engine_algo_name(a)) + ": " + names;
  }
  if (unavailable) std::rethrow_exception(unavailable);
  throw std::invalid_argument("unknown engine '" + name + "' (valid: " + valid + ")");
}

class cpu_backend final : public sdr::backend {
 public:
  explicit cpu_backend(const labeler_options& opt) : opt_(opt) {}

  std::string name() const override { return "cpu"; }

  void label(const sdr::label_job& job, sdr::layer_store& store) override {
    sdr::validate(job);
    const engine& e = pick_label_engine(job.scheme, job.sectors, opt_.engine);
    if (opt_.assembly == message_assembly::in_place && e.algo != engine_algo::sha256)
      throw std::invalid_argument("assembly in-place needs a SHA-256 job: the " + std::string(engine_algo_name(e.algo)) +
                                  " engines take contiguous blocks, so their messages are always gathered");
    if (opt_.pad_precompute && (e.algo != engine_algo::sha256 || e.sha256_pad64 == nullptr))
      throw std::invalid_argument("pad_precompute: engine '" + std::string(e.name) +
                                  "' has no precomputed-padding path (SHA-256 engines with one: " + [] {
                                    std::string s;
                                    for (const auto& x : compiled_engines(engine_algo::sha256))
                                      if (x.sha256_pad64 != nullptr) s += (s.empty() ? "" : ", ") + std::string(x.name);
                                    return s;
                                  }() + ")");
    // SHA-256 engines run groups of lanes (sectors); BLAKE2 engines one sector a call.
    const std::uint32_t width =
        e.algo == engine_algo::sha256 ? static_cast<std::uint32_t>(std::max<std::size_t>(1, e.lanes)) : 1;
    const std::uint32_t groups = (job.sectors + width - 1) / width;
    const int threads = opt_.threads > 0 ? opt_.threads : omp_get_max_threads();
    const int used = static_cast<int>(std::min<std::uint32_t>(groups, static_cast<std::uint32_t>(threads)));
    sdr::with_scheme(job.scheme, [&](auto v, auto h) {
      run<decltype(v)::value, decltype(h)::value>(e, job, store, width, groups, used);
    });
  }

 private:
  template <sdr::porep_variant V, sdr::label_hash H>
  void run(const engine& e, const sdr::label_job& job, sdr::layer_store& store, std::uint32_t width,
           std::uint32_t groups, int used) const {
    for (std::uint32_t l = job.start_layer(); l <= job.layers; ++l) {
      sdr::report_layer_start(job, l);
      const sdr::layer_inputs in = sdr::begin_layer(job, store, l);
      std::uint8_t* cur = in.cur;
      const std::uint8_t* prev = in.prev;
      const std::uint32_t* rows = in.rows;
      const std::size_t layer_bytes = 32ull * job.nodes * job.sectors;
      advise_pages(cur, layer_bytes, opt_.pages);
      advise_pages(prev, layer_bytes, opt_.pages);
      advise_pages(job.parents, 4ull * sdr::kParents * job.parent_rows(), opt_.pages);
#pragma omp parallel num_threads(used)
      {
        if (opt_.pin_threads && used > 1) pin_current_thread(omp_get_thread_num());
#pragma omp for schedule(static)
        for (std::int64_t g = 0; g < static_cast<std::int64_t>(groups); ++g) {
          const auto first = static_cast<std::uint32_t>(g) * width;
          const std::uint32_t lanes = std::min(width, job.sectors - first);
          if constexpr (H == sdr::label_hash::sha256) {
            if constexpr (V == sdr::porep_variant::sdr)
              label_group(e, job, l, first, lanes, cur, prev, opt_);
            else
              zigzag_group(e, job, rows, first, lanes, cur, opt_);
          } else if constexpr (V == sdr::porep_variant::sdr) {
            label_sector_blake2<H>(e, job, l, first, cur, prev, opt_.prefetch_distance);
          } else {
            zigzag_sector_blake2<H>(e, job, rows, first, cur, opt_.prefetch_distance, opt_.encoding);
          }
        }
      }
      sdr::report_nodes(job, job.nodes);
      store.layer_done(l);
    }
  }

  labeler_options opt_;
};

}  // namespace

message_assembly parse_message_assembly(std::string_view s) {
  if (s == "auto") return message_assembly::automatic;
  if (s == "in-place") return message_assembly::in_place;
  if (s == "gather") return message_assembly::gather;
  throw std::invalid_argument("unknown message assembly '" + std::string(s) + "' (valid: auto, in-place, gather)");
}

field_encoding parse_field_encoding(std::string_view s) {
  if (s == "normal") return field_encoding::normal;
  if (s == "montgomery") return field_encoding::montgomery;
  throw std::invalid_argument("unknown field encoding '" + std::string(s) + "' (valid: normal, montgomery)");
}

huge_pages parse_huge_pages(std::string_view s) {
  if (s == "default") return huge_pages::system;
  if (s == "on") return huge_pages::on;
  if (s == "off") return huge_pages::off;
  throw std::invalid_argument("unknown huge_pages setting '" + std::string(s) + "' (valid: default, on, off)");
}

const engine& pick_label_engine(std::size_t sectors) {
  return fastest_engine(engine_algo::sha256, std::max<std::size_t>(1, sectors));
}

std::unique_ptr<sdr::backend> make_cpu_backend(const labeler_options& opt) {
  check_engine_name(opt.engine);
  return std::make_unique<cpu_backend>(opt);
}

engine_algo label_engine_algo(sdr::label_hash h) {
  switch (h) {
    case sdr::label_hash::blake2s: return engine_algo::blake2s;
    case sdr::label_hash::blake2b_256: return engine_algo::blake2b;
    default: return engine_algo::sha256;
  }
}

const engine& pick_label_engine(sdr::label_scheme s, std::size_t sectors, std::string_view name) {
  const engine_algo algo = label_engine_algo(s.hash);
  if (!name.empty() && name != "auto") return find_engine(algo, name);
  return algo == engine_algo::sha256 ? pick_label_engine(sectors) : best_engine(algo);
}

}  // namespace poreplab::cpu
