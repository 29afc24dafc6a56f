// PC2 built chunk by chunk on a pc2_hasher, and the two host hashers.
#include "poreplab/sdr/pc2_build.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "poreplab/field/fr.hpp"
#include "poreplab/hash/poseidon.hpp"
#include "poreplab/huge_buffer.hpp"
#include "poreplab/memory_check.hpp"

namespace poreplab::sdr {

namespace {

namespace m = fr::mont;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

template <bool Plain>
class host_hasher final : public pc2_hasher {
 public:
  explicit host_hasher(int threads) : threads_(threads) {}
  std::string name() const override { return Plain ? "reference (plain Poseidon)" : "host (optimized Poseidon)"; }

  void hash_columns(std::span<const std::uint8_t* const> layers, std::uint64_t count, std::uint8_t* out) override {
    const auto& c = poseidon::constants_for(static_cast<int>(layers.size()));
    run(count, [&](std::uint64_t i) {
      m::elem in[poseidon::kMaxWidth];
      for (std::size_t l = 0; l < layers.size(); ++l) m::from_bytes(layers[l] + 32 * i, in[l]);
      m::to_bytes(hash(c, in), out + 32 * i);
    });
  }

  void hash_level(const std::uint8_t* in, std::uint64_t count, std::uint32_t arity, std::uint8_t* out) override {
    const auto& c = poseidon::constants_for(static_cast<int>(arity));
    run(count, [&](std::uint64_t i) {
      m::elem x[poseidon::kMaxWidth];
      for (std::uint32_t k = 0; k < arity; ++k) m::from_bytes(in + 32 * (arity * i + k), x[k]);
      m::to_bytes(hash(c, x), out + 32 * i);
    });
  }

 private:
  static m::elem hash(const poseidon::constants& c, const m::elem* in) {
    return Plain ? poseidon::hash_plain(c, in) : poseidon::hash(c, in);
  }
  template <class F>
  void run(std::uint64_t count, F&& f) {
    const auto n = static_cast<std::int64_t>(count);
    if (threads_ == 1 || n < 64) {
      for (std::int64_t i = 0; i < n; ++i) f(static_cast<std::uint64_t>(i));
      return;
    }
    const int threads = threads_ > 0 ? threads_ : omp_get_max_threads();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) f(static_cast<std::uint64_t>(i));
  }
  int threads_;
};

void check_canonical(const std::uint8_t* p, std::uint64_t count, std::uint64_t first, const std::string& what) {
  // A value whose top limb is below r's is canonical: one compare a node, without a branch,
  // says whether any needs the whole compare (the reader's share of the feed's time).
  const std::uint64_t top = fr::modulus_limb(3);
  std::uint64_t suspects = 0;
  for (std::uint64_t i = 0; i < count; ++i) suspects += load_le64(p + 32 * i + 24) >= top;
  if (suspects == 0) return;
  for (std::uint64_t i = 0; i < count; ++i)
    if (!fr::is_canonical(p + 32 * i))
      throw std::runtime_error("pc2: " + what + " node " + std::to_string(first + i) +
                               " is not a canonical field element (>= r)");
}

// The calling thread's nanoseconds on a CPU and runnable waiting for one; false where the
// kernel keeps no schedstat.
bool thread_sched_ns(std::uint64_t& on_cpu, std::uint64_t& queued) {
  std::ifstream in("/proc/thread-self/schedstat");
  return static_cast<bool>(in >> on_cpu >> queued);
}

// One chunk of input: a column chunk (every layer's nodes) or a replica chunk.
struct feed_item {
  bool replica = false;
  std::uint32_t tree = 0;
  std::uint64_t index = 0;  // the chunk's place in its tree
  std::uint64_t first = 0;  // its first node in the sector
};

// The reader threads and the buffers they fill; the hashing thread takes the buffers in
// item order, and a digest thread (where the job has a digest) looks at each beside it.
// Item k lives in buffer k % B: a reader's until read and checked, then the hasher's and
// the digester's, then free for item k + B once both have given it back. With two readers
// one chunk's reads start while the other's last ones drain, so the disk is not left idle
// at a chunk's end. Every hand-over is under the mutex.
class chunk_feed {
 public:
  chunk_feed(const pc2_job& job, std::vector<feed_item> items, std::uint64_t chunk, std::uint32_t buffers,
             std::uint32_t readers)
      : job_(job), items_(std::move(items)), chunk_(chunk), slots_(buffers), began_(items_.size(), 0) {
    // Page-aligned (O_DIRECT reads land in them) and faulted in here, not in the readers'
    // time: a store a page (the kernel zeroed them; a memset would write them twice).
    for (std::uint32_t s = 0; s < buffers; ++s) {
      slots_[s].item = s;
      for (std::uint32_t l = 0; l < job.layers; ++l) {
        slots_[s].bufs.emplace_back(chunk * 32);
        std::uint8_t* p = slots_[s].bufs.back().data();
        for (std::uint64_t off = 0; off < chunk * 32; off += 4096) p[off] = 0;
      }
    }
    holders_ = job.digest ? 2 : 1;
    for (std::uint32_t r = 0; r < readers; ++r) threads_.emplace_back([this] { guarded([this] { read_items(); }); });
    if (job.digest) threads_.emplace_back([this] { guarded([this] { digest_items(); }); });
  }
  ~chunk_feed() { end(); }
  chunk_feed(const chunk_feed&) = delete;
  chunk_feed& operator=(const chunk_feed&) = delete;

  // Stops every thread (an error on the hashing side lands here) and waits for them.
  void end() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    join();
  }
  // Once every item was taken: waits for the readers and the digester to be done, and
  // rethrows an error of theirs.
  void finish() {
    join();
    if (error_ != nullptr) std::rethrow_exception(error_);
  }

  // Item k's buffers, once read and checked; rethrows a reader's or the digester's error.
  const std::vector<huge_buffer>& take(std::uint64_t k, double& waited) {
    const auto t0 = clock_type::now();
    std::unique_lock lock(mu_);
    slot& s = slot_of(k);
    cv_.wait(lock, [&] { return error_ != nullptr || (s.item == k && s.read); });
    waited += seconds_since(t0);
    if (error_ != nullptr) std::rethrow_exception(error_);
    return s.bufs;
  }
  // The hasher is done with item k; says whether item k + 1's read had begun.
  bool give_back(std::uint64_t k) {
    bool next_begun = false;
    {
      std::lock_guard lock(mu_);
      next_begun = k + 1 >= items_.size() || began_[k + 1] != 0;
    }
    release(k);
    return next_begun;
  }
  // The readers' own figures, once finish() or end() has returned: busy is the time at
  // least one of them was reading or checking; the rest is summed over them.
  double busy_s() const { return busy_s_; }
  double cpu_s() const { return sched_kept_ ? double(cpu_ns_) * 1e-9 : -1; }
  double queued_s() const { return sched_kept_ ? double(queued_ns_) * 1e-9 : -1; }
  double waited_s() const { return wait_s_; }
  double digest_s() const { return digest_s_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  struct slot {
    std::vector<huge_buffer> bufs;
    std::uint64_t item = 0;  // the item it holds, or the next it is free for
    bool read = false;       // item's read and check done
    std::uint32_t holders = 0;  // stages yet to give the read item back
  };
  slot& slot_of(std::uint64_t k) { return slots_[k % slots_.size()]; }

  void join() {
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  template <class F>
  void guarded(F&& f) {
    try {
      f();
    } catch (...) {
      {
        std::lock_guard lock(mu_);
        if (error_ == nullptr) error_ = std::current_exception();
      }
      cv_.notify_all();
    }
  }
  void release(std::uint64_t k) {
    {
      std::lock_guard lock(mu_);
      slot& s = slot_of(k);
      if (--s.holders == 0) {
        s.read = false;
        s.item += slots_.size();
      }
    }
    cv_.notify_all();
  }

  // Takes the next item, waits for its buffer, fills it; until none is left.
  void read_items() {
    for (;;) {
      std::uint64_t k = 0;
      slot* s = nullptr;
      {
        const auto t0 = clock_type::now();
        std::unique_lock lock(mu_);
        if (next_ >= items_.size()) return;
        k = next_++;
        slot& want = slot_of(k);
        cv_.wait(lock, [&] { return stop_ || error_ != nullptr || (want.item == k && !want.read); });
        wait_s_ += seconds_since(t0);
        if (stop_ || error_ != nullptr) return;
        s = &want;
        began_[k] = 1;
        if (active_++ == 0) busy_from_ = clock_type::now();
      }
      std::uint64_t cpu0 = 0, queued0 = 0, cpu1 = 0, queued1 = 0;
      bool kept = thread_sched_ns(cpu0, queued0);
      const std::uint64_t bytes = fill(items_[k], s->bufs);
      kept = kept && thread_sched_ns(cpu1, queued1);
      {
        std::lock_guard lock(mu_);
        if (--active_ == 0) busy_s_ += seconds_since(busy_from_);
        sched_kept_ = sched_kept_ && kept;
        cpu_ns_ += cpu1 - cpu0;
        queued_ns_ += queued1 - queued0;
        bytes_ += bytes;
        s->read = true;
        s->holders = holders_;
      }
      cv_.notify_all();
    }
  }

  // Hands every item, in order, to the job's digest beside the hashing.
  void digest_items() {
    std::vector<const std::uint8_t*> in;
    for (std::uint64_t k = 0; k < items_.size(); ++k) {
      slot& s = slot_of(k);
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return stop_ || error_ != nullptr || (s.item == k && s.read); });
        if (stop_ || error_ != nullptr) return;
      }
      const auto t0 = clock_type::now();
      const feed_item& it = items_[k];
      in.clear();
      for (std::uint32_t l = 0; l < (it.replica ? 1 : job_.layers); ++l) in.push_back(s.bufs[l].data());
      job_.digest(it.replica, it.first, chunk_, in);
      digest_s_ += seconds_since(t0);
      release(k);
    }
  }

  // Reads and checks item `it` into bufs; returns the bytes read.
  std::uint64_t fill(const feed_item& it, std::vector<huge_buffer>& bufs) const {
    const auto name = [&](std::uint32_t input, const std::string& fallback) {
      return job_.input_names.size() > input ? job_.input_names[input] + ": " + fallback : fallback;
    };
    std::uint64_t bytes = 0;
    const auto check = [&](std::uint32_t l, std::uint64_t at, std::uint64_t n) {
      if (l == 0 || l > job_.layers || at > chunk_ || n > chunk_ - at)
        throw std::logic_error("pc2: read_columns reported nodes outside the chunk");
      check_canonical(bufs[l - 1].data() + 32 * at, n, it.first + at,
                      name(l - 1, "layer " + std::to_string(l) + " label of"));
      bytes += n * 32;
    };
    if (it.replica) {
      job_.read_replica(it.first, chunk_, bufs[0].data());
      check_canonical(bufs[0].data(), chunk_, it.first, name(job_.layers, "replica"));
      return chunk_ * 32;
    }
    if (job_.read_columns) {
      std::vector<std::uint8_t*> outs;
      for (auto& b : bufs) outs.push_back(b.data());
      job_.read_columns(it.first, chunk_, outs, check);
      if (bytes != chunk_ * 32 * job_.layers)
        throw std::logic_error("pc2: read_columns reported " + std::to_string(bytes / 32) + " of " +
                               std::to_string(chunk_ * job_.layers) + " nodes read");
      return bytes;
    }
    for (std::uint32_t l = 1; l <= job_.layers; ++l) {
      job_.read_label(l, it.first, chunk_, bufs[l - 1].data());
      check(l, 0, chunk_);
    }
    return bytes;
  }

  const pc2_job& job_;
  const std::vector<feed_item> items_;
  const std::uint64_t chunk_;
  std::vector<slot> slots_;
  std::uint32_t holders_ = 1;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::uint64_t next_ = 0;       // the next item a reader takes
  std::vector<char> began_;      // items whose read has begun
  std::exception_ptr error_;     // the first error of any thread
  std::uint32_t active_ = 0;     // readers filling now
  clock_type::time_point busy_from_;
  double busy_s_ = 0, wait_s_ = 0;  // the readers'
  bool sched_kept_ = true;          // likewise: their schedstat times while busy
  std::uint64_t cpu_ns_ = 0, queued_ns_ = 0;
  std::uint64_t bytes_ = 0;         // likewise
  double digest_s_ = 0;             // the digester's
  std::vector<std::thread> threads_;  // last: started once the rest is built
};

// One base tree's file layout: where each row starts (in nodes), rows below `first_row`
// not stored.
struct row_layout {
  std::vector<std::uint64_t> width;   // nodes in row r, leaves r = 0
  std::vector<std::uint64_t> offset;  // node offset of row r in the file; unused below first_row
  std::uint32_t first_row = 0;
};

row_layout layout_of(std::uint64_t leaves, std::uint32_t first_row) {
  row_layout l;
  l.first_row = first_row;
  std::uint64_t at = 0;
  for (std::uint64_t w = leaves;; w /= 8) {
    l.width.push_back(w);
    l.offset.push_back(l.width.size() - 1 >= first_row ? at : 0);
    if (l.width.size() - 1 >= first_row) at += w;
    if (w == 1) break;
  }
  return l;
}

// A chunk's rows, hashed in one call from its inputs (its layers' slices, or the replica's
// leaves), each row written where the file keeps it; returns the chunk's root.
bytes32 hash_and_emit_chunk(pc2_hasher& h, std::span<const std::uint8_t* const> inputs, std::vector<std::uint8_t>& rows,
                            std::uint64_t chunk_leaves, std::uint32_t levels, std::uint64_t chunk,
                            const row_layout& lay, std::uint32_t file, const pc2_job& job) {
  h.hash_chunk(inputs, chunk_leaves, levels, rows.data());
  std::uint64_t w = chunk_leaves;
  for (std::uint32_t r = 0; r <= levels; ++r, w /= 8) {
    const std::uint8_t* p = r == 0 && inputs.size() == 1 ? inputs[0] : rows.data() + 32 * chunk_row_offset(chunk_leaves, r);
    if (job.write && r >= lay.first_row) job.write(file, (lay.offset[r] + chunk * w) * 32, p, w * 32);
  }
  bytes32 root;
  std::copy_n(rows.data() + 32 * chunk_row_offset(chunk_leaves, levels), 32, root.data());
  return root;
}

// Rows above the chunk roots, up to the tree's root, written likewise.
bytes32 reduce_top(pc2_hasher& h, std::vector<std::uint8_t> roots, std::uint32_t from_row, const row_layout& lay,
                   std::uint32_t file, const pc2_job& job) {
  std::vector<std::uint8_t> up;
  std::uint32_t row = from_row;
  while (roots.size() > 32) {
    const std::uint64_t w = roots.size() / 32 / 8;
    up.resize(w * 32);
    h.hash_level(roots.data(), w, 8, up.data());
    ++row;
    if (job.write && row >= lay.first_row) job.write(file, lay.offset[row] * 32, up.data(), w * 32);
    std::swap(roots, up);
  }
  bytes32 root;
  std::copy_n(roots.data(), 32, root.data());
  return root;
}

bytes32 compound_root(pc2_hasher& h, const std::vector<bytes32>& roots, const tree_shape& s) {
  if (s.sub_arity == 0) return roots[0];
  std::vector<std::uint8_t> in(roots.size() * 32);
  for (std::size_t i = 0; i < roots.size(); ++i) std::copy(roots[i].begin(), roots[i].end(), in.data() + 32 * i);
  const std::uint32_t groups = s.top_arity == 0 ? 1 : s.top_arity;
  std::vector<std::uint8_t> subs(groups * 32);
  h.hash_level(in.data(), groups, s.sub_arity, subs.data());
  bytes32 out;
  if (s.top_arity == 0) {
    std::copy_n(subs.data(), 32, out.data());
  } else {
    h.hash_level(subs.data(), 1, s.top_arity, out.data());
  }
  return out;
}

}  // namespace

void pc2_hasher::hash_chunk(std::span<const std::uint8_t* const> layers, std::uint64_t leaves, std::uint32_t levels,
                            std::uint8_t* rows) {
  const std::uint8_t* in = layers[0];
  if (layers.size() > 1) {
    hash_columns(layers, leaves, rows);
    in = rows;
  }
  std::uint64_t w = leaves;
  for (std::uint32_t r = 1; r <= levels; ++r, w /= 8) {
    std::uint8_t* out = rows + 32 * chunk_row_offset(leaves, r);
    hash_level(in, w / 8, 8, out);
    in = out;
  }
}

std::unique_ptr<pc2_hasher> make_reference_pc2_hasher(int threads) { return std::make_unique<host_hasher<true>>(threads); }
std::unique_ptr<pc2_hasher> make_host_pc2_hasher(int threads) { return std::make_unique<host_hasher<false>>(threads); }

pc2_result build_pc2(const pc2_job& job, pc2_hasher& h) {
  if (job.layers != 2 && job.layers != 11)
    throw std::invalid_argument("pc2: " + std::to_string(job.layers) + " layers (2 or 11 expected)");
  const std::uint32_t count = job.shape.base_count();
  if (job.shape.base_arity != 8 || job.nodes % count != 0 || !is_power_of_8(job.nodes / count) || job.nodes / count < 8)
    throw std::invalid_argument("pc2: " + std::to_string(job.nodes) + " nodes do not split into " +
                                std::to_string(count) + " trees of a power of 8 leaves");
  const std::uint64_t per_tree = job.nodes / count;
  std::uint64_t chunk = job.chunk_nodes != 0             ? job.chunk_nodes
                        : h.preferred_chunk_nodes() != 0 ? h.preferred_chunk_nodes()
                                                         : std::uint64_t{1} << 18;
  if (!is_power_of_8(chunk) || chunk < 8)
    throw std::invalid_argument("pc2: chunk of " + std::to_string(chunk) + " nodes is not a power of 8 (at least 8)");
  chunk = std::min(chunk, per_tree);
  std::uint32_t levels = 0;
  for (std::uint64_t w = chunk; w > 1; w /= 8) ++levels;

  const std::uint32_t discard = tree_r_last_rows_to_discard(per_tree, 8);
  const row_layout c_lay = layout_of(per_tree, 0), r_lay = layout_of(per_tree, 1 + discard);
  if (job.buffers == 0 || job.buffers > 16)
    throw std::invalid_argument("pc2: " + std::to_string(job.buffers) + " chunk buffers (1 to 16 expected)");
  if (job.readers == 0 || job.readers > 16)
    throw std::invalid_argument("pc2: " + std::to_string(job.readers) + " reader threads (1 to 16 expected)");
  const std::uint64_t per_chunk = per_tree / chunk;
  // Every tree's column chunks, then its replica chunks; no more buffers than chunks (an
  // 8MiB sector is two).
  const std::uint64_t total = std::uint64_t{count} * 2 * per_chunk;
  const auto buffers = static_cast<std::uint32_t>(std::min<std::uint64_t>(job.buffers, total));
  // The feed's buffers (every layer's chunk in each) and the hashing side's: refused before
  // any is allocated where they do not fit (a 32GiB sector's whole tree as one chunk would
  // take 132 GiB with 3 buffers of 11 layers).
  require_memory(32 * chunk * (std::uint64_t{buffers} * job.layers + 2), "pc2: " + std::to_string(buffers) +
                                                                           " chunk buffers of " + std::to_string(chunk) +
                                                                           " nodes x " + std::to_string(job.layers) + " layers");
  const auto start = clock_type::now();
  std::vector<feed_item> items;
  for (std::uint32_t t = 0; t < count; ++t)
    for (const bool replica : {false, true})
      for (std::uint64_t j = 0; j < per_chunk; ++j) items.push_back({replica, t, j, t * per_tree + j * chunk});

  std::vector<std::uint8_t> rows(32 * chunk_row_offset(chunk, levels + 1));
  std::vector<const std::uint8_t*> label_ptr(job.layers);
  std::vector<bytes32> c_roots, r_roots;
  std::vector<std::uint8_t> chunk_roots;
  pc2_result res;
  auto& st = res.pipeline;
  st.buffers = buffers;
  st.chunks = total;
  st.chunk_nodes = chunk;
  std::uint64_t columns_done = 0, replica_done = 0;
  {
    chunk_feed feed(job, std::move(items), chunk, buffers, std::min(job.readers, buffers));
    for (std::uint64_t k = 0; k < total; ++k) {
      const feed_item it{k % (2 * per_chunk) >= per_chunk, static_cast<std::uint32_t>(k / (2 * per_chunk)),
                         k % per_chunk, 0};
      const auto& bufs = feed.take(k, st.hash_wait_s);
      const auto t0 = clock_type::now();
      const row_layout& lay = it.replica ? r_lay : c_lay;
      const std::uint32_t file = it.replica ? count + it.tree : it.tree;
      const std::uint32_t inputs = it.replica ? 1 : job.layers;
      for (std::uint32_t l = 0; l < inputs; ++l) label_ptr[l] = bufs[l].data();
      const bytes32 root = hash_and_emit_chunk(h, std::span(label_ptr.data(), inputs), rows, chunk, levels, it.index,
                                               lay, file, job);
      chunk_roots.insert(chunk_roots.end(), root.begin(), root.end());
      (it.replica ? replica_done : columns_done) += chunk;
      if (it.index + 1 == per_chunk) {
        (it.replica ? r_roots : c_roots).push_back(reduce_top(h, std::move(chunk_roots), levels, lay, file, job));
        chunk_roots.clear();
      }
      if (job.progress) job.progress(columns_done, replica_done);
      const double took = seconds_since(t0);
      (it.replica ? res.tree_r_s : res.columns_s) += took;
      st.hash_s += took;
      if (feed.give_back(k) && k + 1 < total) ++st.overlapped_reads;
    }
    feed.finish();
    st.feed_s = feed.busy_s();
    st.digest_s = feed.digest_s();
    st.feed_cpu_s = feed.cpu_s();
    st.feed_queued_s = feed.queued_s();
    st.feed_wait_s = feed.waited_s();
    st.bytes_read = feed.bytes();
  }
  res.comm_c = compound_root(h, c_roots, job.shape);
  res.comm_r_last = compound_root(h, r_roots, job.shape);
  std::uint8_t pair[64];
  std::copy(res.comm_c.begin(), res.comm_c.end(), pair);
  std::copy(res.comm_r_last.begin(), res.comm_r_last.end(), pair + 32);
  h.hash_level(pair, 1, 2, res.comm_r.data());
  st.end_to_end_s = seconds_since(start);
  return res;
}

pc2_result build_pc2_in_memory(std::span<const std::uint8_t* const> labels, const std::uint8_t* replica,
                               std::uint64_t nodes, const tree_shape& shape, pc2_hasher& h) {
  pc2_job job;
  job.nodes = nodes;
  job.layers = static_cast<std::uint32_t>(labels.size());
  job.shape = shape;
  job.read_label = [&](std::uint32_t l, std::uint64_t first, std::uint64_t count, std::uint8_t* out) {
    std::copy_n(labels[l - 1] + 32 * first, 32 * count, out);
  };
  job.read_replica = [&](std::uint64_t first, std::uint64_t count, std::uint8_t* out) {
    std::copy_n(replica + 32 * first, 32 * count, out);
  };
  return build_pc2(job, h);
}

pc2_pace pace_of(const pc2_pipeline_stats& s) {
  const double busier = std::max(s.feed_s, s.hash_s);
  if (s.end_to_end_s > kHostPaceMargin * busier) return pc2_pace::host;
  return s.feed_s >= s.hash_s ? pc2_pace::feed : pc2_pace::hashing;
}

std::uint64_t poseidon_multiplies(std::uint32_t arity) {
  const auto& c = poseidon::constants_for(static_cast<int>(arity));
  const auto t = static_cast<std::uint64_t>(c.width);
  return static_cast<std::uint64_t>(c.full_rounds) * (t * t + 3 * t) +
         static_cast<std::uint64_t>(c.partial_rounds) * (2 * t + 2);
}

double pc2_multiplies(std::uint64_t nodes, std::uint32_t layers, const tree_shape& shape) {
  // Each tree over nodes leaves of arity 8 has (nodes - count) / 7 internal nodes.
  const double internal = static_cast<double>(nodes - shape.base_count()) / 7.0;
  return static_cast<double>(nodes) * static_cast<double>(poseidon_multiplies(layers)) +
         2 * internal * static_cast<double>(poseidon_multiplies(8));
}

}  // namespace poreplab::sdr
