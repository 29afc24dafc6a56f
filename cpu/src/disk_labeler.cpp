#include "poreplab/cpu/disk_labeler.hpp"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "label_message.hpp"
#include "wait.hpp"
#include "poreplab/checked.hpp"
#include "poreplab/cpu/labeler.hpp"
#include "poreplab/file_io.hpp"
#include "poreplab/huge_buffer.hpp"
#include "poreplab/memory_check.hpp"
#include "poreplab/sdr/label.hpp"
#include "poreplab/sdr/window_store.hpp"
#include "poreplab/storage/scratch_file.hpp"

namespace poreplab::cpu {

namespace {

constexpr std::uint64_t kPage = storage::kDirectAlign;
using clock_type = std::chrono::steady_clock;

std::uint64_t round_up(std::uint64_t x, std::uint64_t a) { return (x + a - 1) / a * a; }

// The pipeline's threads share cores with each other and with the reads' own threads, and a
// wait for a disk is long: a short spin (wait.hpp).
template <class Ready>
void wait_until(Ready ready) {
  detail::wait_until(ready, detail::kDiskSpins);
}

// A read's pages: the page holding a row's first byte through the one holding its last.
struct page_span {
  std::uint64_t offset = 0;
  std::uint32_t bytes = 0;
};
page_span pages_of_row(std::uint64_t row, std::uint64_t row_bytes) {
  const std::uint64_t begin = row * row_bytes;
  const std::uint64_t first = begin / kPage * kPage;
  return {first, static_cast<std::uint32_t>(round_up(begin + row_bytes, kPage) - first)};
}

}  // namespace

struct disk_labeling::state {
  sdr::label_job job;
  disk_label_options opt;
  std::uint32_t sectors = 0;
  std::uint64_t row_bytes = 0;
  std::uint64_t file_bytes = 0;  // a layer file: every row, rounded up to a page
  std::uint64_t chunk_rows = 0;  // rows per write: page-aligned at multiples of it
  std::uint64_t ring_rows = 0;   // RAM rows, a multiple of chunk_rows
  std::uint64_t cache = 0;       // base parents this close are read from RAM
  std::uint64_t read_span = 0;   // one read's buffer
  unique_fd files[2];            // layer l in files[l % 2]
  // Windows: the pages of each file that are ever read or written, in order; the file
  // holds them densely (page i of the list at i x 4 KiB), so that the disk holds what the
  // window touches and no more. Empty: the file is the layer (whole sectors).
  std::vector<std::uint64_t> pages[2];
  std::vector<std::uint64_t> ring_fill;  // windows: the rows before the window the RAM rows hold
  huge_buffer ring, read_bufs;
  const engine* eng = nullptr;
  std::uint32_t width = 1;
  disk_label_stats stats;
  bool ran = false;

  int fd(std::uint32_t layer) const { return files[layer % 2].get(); }
  // Where byte `offset` of layer `layer` lies in its file.
  std::uint64_t at(std::uint32_t layer, std::uint64_t offset) const {
    const auto& map = pages[layer % 2];
    if (map.empty()) return offset;
    const auto it = std::lower_bound(map.begin(), map.end(), offset / kPage);
    if (it == map.end() || *it != offset / kPage) throw std::logic_error("disk_labeling: a page outside the window's map");
    return static_cast<std::uint64_t>(it - map.begin()) * kPage + offset % kPage;
  }
  std::uint8_t* ring_row(std::uint64_t u) { return ring.data() + (u % ring_rows) * row_bytes; }
  std::uint8_t* read_buf(std::uint32_t slot, std::uint32_t k) {
    return read_bufs.data() + (static_cast<std::uint64_t>(slot) * sdr::kParents + k) * read_span;
  }

  void check(const sdr::label_job& j, const disk_label_options& o);
  void size_buffers();
  void fill_window();
  void fill_ring();
  void label_layer(std::uint32_t layer);
};

void disk_labeling::state::check(const sdr::label_job& j, const disk_label_options& o) {
  if (j.scheme.variant != sdr::porep_variant::sdr || j.scheme.hash != hash_family::sha256)
    throw std::invalid_argument("layers on disk: Filecoin's sdr/sha256 only, not " + std::string(sdr::scheme_name(j.scheme)));
  if (j.sectors == 0 || j.nodes < 2 || j.layers == 0 || j.layers > sdr::kMaxLayers || j.parents == nullptr ||
      j.replica_ids == nullptr)
    throw std::invalid_argument("layers on disk: a job of at least 2 nodes, 1 sector and 1 layer, with its parents and replica ids");
  if (!j.windowed() && j.first_layer != 1)
    throw std::invalid_argument("layers on disk: labels from layer 1 (or a window), not from layer " +
                                std::to_string(j.first_layer));
  if (o.lookahead < 2 || o.lookahead > 65536 || (o.lookahead & (o.lookahead - 1)) != 0)
    throw std::invalid_argument("lookahead " + std::to_string(o.lookahead) + ": a power of two from 2 to 65536");
  if (o.queue_depth == 0 || o.queue_depth > 4096)
    throw std::invalid_argument("queue depth " + std::to_string(o.queue_depth) + ": expected 1..4096");
  if (o.hashing_threads == 0 || o.hashing_threads > 256)
    throw std::invalid_argument("hashing threads " + std::to_string(o.hashing_threads) + ": expected 1..256");
}

void disk_labeling::state::size_buffers() {
  row_bytes = checked_mul(32, sectors, "row bytes");
  file_bytes = round_up(checked_mul(job.nodes, row_bytes, "layer bytes"), kPage);
  // The smallest run of rows that fills whole pages, then enough of them for a large write.
  const std::uint64_t unit = kPage / std::gcd(row_bytes, kPage);
  chunk_rows = unit * std::max<std::uint64_t>(1, opt.write_chunk_bytes / (unit * row_bytes));
  // Rows in flight: the lookahead, and a write chunk being filled and one being written.
  const std::uint64_t in_flight = opt.lookahead + 2 * chunk_rows;
  cache = std::max(opt.cache_nodes, in_flight);
  // A cache of 2^64 - 1 rows must not wrap to a small ring that passes the memory check.
  ring_rows = round_up(checked_add(cache, in_flight + chunk_rows, "node cache rows") - chunk_rows, chunk_rows);
  read_span = round_up(row_bytes, kPage) + kPage;
  const std::uint64_t ring_bytes = checked_mul(ring_rows, row_bytes, "node cache bytes");
  const std::uint64_t read_bytes = checked_mul(static_cast<std::uint64_t>(opt.lookahead) * sdr::kParents, read_span,
                                               "read buffer bytes");
  require_memory(checked_add(ring_bytes, read_bytes, "node cache and read buffer bytes"), "the node cache and read buffers of labeling with layers on disk");
  ring = huge_buffer(ring_bytes);
  read_bufs = huge_buffer(read_bytes);
  stats.cache_nodes = cache;
  stats.ram_bytes = ring_bytes + read_bytes;
}

disk_labeling::disk_labeling(const sdr::label_job& job, const disk_label_options& opt) : s_(std::make_unique<state>()) {
  state& s = *s_;
  s.check(job, opt);
  s.job = job;
  s.opt = opt;
  s.sectors = job.sectors;
  s.eng = &pick_label_engine(job.scheme, job.sectors, opt.engine, static_cast<int>(opt.hashing_threads));
  s.width = static_cast<std::uint32_t>(std::max<std::size_t>(1, s.eng->lanes));
  s.size_buffers();
  // Whole jobs write two layers' files; a window its rows and the pages it reads.
  const std::uint64_t need =
      job.windowed() ? checked_mul(std::min(job.window_nodes * 15, job.nodes), round_up(s.row_bytes, kPage) + kPage, "window bytes")
                     : checked_mul(2, s.file_bytes, "layer file bytes");
  require_disk_space(opt.layer_dir, need);
  for (auto& f : s.files) {
    f = storage::open_scratch_file(opt.layer_dir, opt.direct);
    if (!job.windowed() && ::ftruncate(f.get(), static_cast<off_t>(s.file_bytes)) != 0)
      throw std::runtime_error(opt.layer_dir.string() + ": cannot size a layer file to " + std::to_string(s.file_bytes) +
                               " bytes: " + std::strerror(errno));
  }
  s.stats.lookahead = opt.lookahead;
  s.stats.queue_depth = opt.queue_depth;
  s.stats.hashing_threads = opt.hashing_threads;
  s.stats.lanes = s.width;
  s.stats.direct = opt.direct;
  s.stats.engine = std::string(s.eng->name);
  if (job.windowed()) s.fill_window();
}

disk_labeling::~disk_labeling() = default;

// The pages of the previous layer and of the current layer before the window that the
// window's parents read, written with the layers' deterministic contents, and the pages
// the window's own rows go to (its first page holds rows before the window, which it
// rewrites); the RAM rows of the base parents close enough to be read there, and those
// rows before the window.
void disk_labeling::state::fill_window() {
  const auto t0 = clock_type::now();
  const std::uint64_t f = job.first_node, end = job.node_end();
  const std::uint32_t layer = job.layers;
  std::vector<std::uint64_t> prev_pages, cur_pages, cur_rows;
  auto add_pages = [&](std::vector<std::uint64_t>& v, std::uint64_t b, std::uint64_t e) {
    for (std::uint64_t pg = b / kPage; pg < round_up(e, kPage) / kPage; ++pg) v.push_back(pg);
  };
  for (std::uint64_t v = f; v < end; ++v) {
    const std::uint32_t* row = job.row(v);
    for (std::uint32_t k = 0; k < (layer == 1 ? sdr::kBaseDegree : sdr::kParents); ++k) {
      const std::uint64_t u = row[k];
      if (k < sdr::kBaseDegree && u >= f) continue;  // labeled in the window
      add_pages(k < sdr::kBaseDegree ? cur_pages : prev_pages, u * row_bytes, (u + 1) * row_bytes);
      if (k < sdr::kBaseDegree) cur_rows.push_back(u);
    }
  }
  const std::uint64_t write_begin = f / chunk_rows * chunk_rows;
  for (std::uint64_t u = write_begin; u < f; ++u) cur_rows.push_back(u);
  // The writer's chunks: whole pages from the first chunk's start, the last one padded.
  const std::uint64_t last_chunk = (end - 1) / chunk_rows * chunk_rows;
  const std::vector<std::uint64_t> before_window = cur_pages;
  add_pages(cur_pages, write_begin * row_bytes, last_chunk * row_bytes + round_up((end - last_chunk) * row_bytes, kPage));
  for (auto* v : {&prev_pages, &cur_pages, &cur_rows}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  pages[layer % 2] = cur_pages;
  if (layer > 1) pages[(layer - 1) % 2] = prev_pages;
  const std::uint64_t layer_bytes = job.nodes * row_bytes;
  auto write_pages = [&](const std::vector<std::uint64_t>& logical, std::uint32_t l) {
    if (::ftruncate(fd(l), static_cast<off_t>(pages[l % 2].size() * kPage)) != 0)
      throw std::runtime_error(opt.layer_dir.string() + ": cannot size a layer file: " + std::strerror(errno));
    // Through the page cache (a second open of the same file), then written back and
    // dropped: runs of pages go out in large writes instead of one disk latency a page.
    const std::string proc = "/proc/self/fd/" + std::to_string(fd(l));
    unique_fd buffered(::open(proc.c_str(), O_RDWR | O_CLOEXEC));
    const int out = buffered.get() >= 0 ? buffered.get() : fd(l);
    const std::filesystem::path name = opt.layer_dir / ("(layer " + std::to_string(l) + ")");
    huge_buffer page(kPage);
    for (const std::uint64_t pg : logical) {
      const std::uint64_t b = pg * kPage, e = std::min(b + kPage, layer_bytes);
      std::memset(page.data(), 0, kPage);
      sdr::fill_window_elements(page.data(), l, opt.fill_seed, b, e);
      pwrite_exact(out, page.data(), kPage, at(l, b), name);
      stats.bytes_filled += kPage;
    }
    if (buffered.get() >= 0) flush_and_drop(buffered.get(), name);
  };
  if (layer > 1) write_pages(prev_pages, layer - 1);
  std::vector<std::uint64_t> cur_fill = before_window;
  std::sort(cur_fill.begin(), cur_fill.end());
  cur_fill.erase(std::unique(cur_fill.begin(), cur_fill.end()), cur_fill.end());
  write_pages(cur_fill, layer);
  for (const std::uint64_t u : cur_rows)
    if (u + cache >= f) ring_fill.push_back(u);
  stats.fill_seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
}

// Before each run of a window: the window's rows overwrite these in the RAM rows.
void disk_labeling::state::fill_ring() {
  for (const std::uint64_t u : ring_fill)
    sdr::fill_window_elements(ring_row(u), job.layers, opt.fill_seed, u * row_bytes, (u + 1) * row_bytes);
}

namespace {

// One layer's pipeline: a producer reads the parents ahead into slots, hashing threads
// label from the slots and the RAM rows, a writer writes finished rows out.
class layer_pipeline {
 public:
  layer_pipeline(disk_labeling::state& s, std::uint32_t layer)
      : s_(s),
        layer_(layer),
        begin_(s.job.node_begin()),
        end_(s.job.node_end()),
        slots_(s.opt.lookahead),
        ready_(std::make_unique<std::atomic<std::uint64_t>[]>(slots_)),
        pending_(slots_, 0),
        parents_(static_cast<std::size_t>(slots_) * sdr::kParents),
        spans_(static_cast<std::size_t>(slots_) * sdr::kParents),
        progress_(std::make_unique<std::atomic<std::uint64_t>[]>(s.opt.hashing_threads)),
        wait_ns_(std::make_unique<std::atomic<std::uint64_t>[]>(s.opt.hashing_threads)) {
    for (std::uint32_t i = 0; i < slots_; ++i) ready_[i].store(kNone, std::memory_order_relaxed);
    for (std::uint32_t t = 0; t < s.opt.hashing_threads; ++t) {
      progress_[t].store(begin_, std::memory_order_relaxed);
      wait_ns_[t].store(0, std::memory_order_relaxed);
    }
    flushed_.store(begin_ / s.chunk_rows * s.chunk_rows, std::memory_order_relaxed);
  }

  void run() {
    const std::uint32_t threads = s_.opt.hashing_threads;
    std::vector<std::thread> team;
    team.emplace_back([this] { guarded([this] { produce(); }); });
    team.emplace_back([this] { guarded([this] { write(); }); });
    for (std::uint32_t t = 1; t < threads; ++t) team.emplace_back([this, t] { guarded([this, t] { hash(t); }); });
    guarded([this] { hash(0); });
    for (auto& t : team) t.join();
    if (failed_.load()) throw std::runtime_error(error_);
    for (std::uint32_t t = 0; t < threads; ++t) s_.stats.read_wait_s += static_cast<double>(wait_ns_[t].load()) * 1e-9;
  }

 private:
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};

  template <class F>
  void guarded(F&& f) {
    try {
      f();
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }
  void fail(const std::string& what) {
    std::lock_guard lock(error_mu_);
    if (!failed_.load()) error_ = what;
    failed_.store(true);
  }
  bool stopped() const { return failed_.load(std::memory_order_relaxed); }

  std::uint64_t hashed() const {
    std::uint64_t m = kNone;
    for (std::uint32_t t = 0; t < s_.opt.hashing_threads; ++t) m = std::min(m, progress_[t].load(std::memory_order_acquire));
    return m;
  }

  // The producer: node v's parents into slot v % slots, reads submitted as it goes and
  // completions reaped between nodes, never more outstanding than the queue's depth.
  void produce() {
    auto q = storage::make_read_queue(s_.opt.io, s_.opt.queue_depth);
    s_.stats.io = q->engine();
    std::vector<storage::read_done> done(q->depth());
    std::uint32_t outstanding = 0;
    const auto reap = [&](bool wait) {
      const std::size_t n = q->reap(done, wait && outstanding > 0);
      for (std::size_t i = 0; i < n; ++i) {
        const auto slot = static_cast<std::uint32_t>(done[i].tag / sdr::kParents);
        if (done[i].result != static_cast<std::int64_t>(spans_[done[i].tag].bytes))
          throw std::runtime_error(s_.opt.layer_dir.string() + ": a parent read of layer " + std::to_string(layer_) +
                                   " failed: " + (done[i].result < 0 ? std::strerror(static_cast<int>(-done[i].result)) : "short read"));
        --outstanding;
        if (--pending_[slot] == 0) ready_[slot].store(node_of_[slot], std::memory_order_release);
      }
    };
    node_of_.assign(slots_, kNone);
    const std::uint32_t words = layer_ == 1 ? sdr::kBaseDegree : sdr::kParents;
    const int cur = s_.fd(layer_), prev = layer_ > 1 ? s_.fd(layer_ - 1) : -1;
    for (std::uint64_t v = begin_; v < end_ && !stopped(); ++v) {
      const auto slot = static_cast<std::uint32_t>(v & (slots_ - 1));
      // The slot's last node must be hashed by every thread before it is reused.
      for (detail::back_off wait(detail::kDiskSpins); v >= begin_ + slots_ && hashed() <= v - slots_ && !stopped(); wait()) {
        q->flush();
        if (outstanding > 0) reap(false);
      }
      const std::uint32_t* row = s_.job.row(v);
      const std::uint8_t** p = parents_.data() + static_cast<std::size_t>(slot) * sdr::kParents;
      page_span* spans = spans_.data() + static_cast<std::size_t>(slot) * sdr::kParents;
      std::fill(spans, spans + sdr::kParents, page_span{});
      std::uint32_t reads = 0;
      node_of_[slot] = v;
      // Held while the node's reads are being issued: a read reaped meanwhile cannot
      // publish the slot early.
      pending_[slot] = 1;
      for (std::uint32_t k = 0; v != 0 && k < words; ++k) {
        const std::uint64_t u = row[k];
        const bool base = k < sdr::kBaseDegree;
        if (base && v - u <= s_.cache) {
          p[k] = s_.ring_row(u);
          ++s_.stats.base_cached;
          continue;
        }
        const int fd = base ? cur : prev;
        const page_span span = pages_of_row(u, s_.row_bytes);
        // A page another parent of this node already asked for.
        bool shared = false;
        for (std::uint32_t j = 0; j < k && !shared; ++j) {
          const page_span& o = spans[j];
          if (o.bytes != 0 && (j < sdr::kBaseDegree) == base && o.offset <= span.offset &&
              span.offset + span.bytes <= o.offset + o.bytes) {
            p[k] = s_.read_buf(slot, j) + (u * s_.row_bytes - o.offset);
            shared = true;
          }
        }
        (base ? s_.stats.base_read : s_.stats.expander_read) += 1;
        if (shared) {
          ++s_.stats.parents_shared;
          continue;
        }
        // An older base parent: its row must be written out before it can be read back.
        if (base)
          for (detail::back_off wait(detail::kDiskSpins); flushed_.load(std::memory_order_acquire) <= u && !stopped(); wait()) {
            q->flush();
            if (outstanding > 0) reap(false);
          }
        while (outstanding >= q->depth()) reap(true);
        spans[k] = span;
        q->submit(fd, s_.read_buf(slot, k), span.bytes, s_.at(base ? layer_ : layer_ - 1, span.offset),
                  static_cast<std::uint64_t>(slot) * sdr::kParents + k);
        p[k] = s_.read_buf(slot, k) + (u * s_.row_bytes - span.offset);
        ++outstanding;
        ++reads;
        ++pending_[slot];
        s_.stats.bytes_read += span.bytes;
      }
      s_.stats.reads += reads;
      if (--pending_[slot] == 0) ready_[slot].store(v, std::memory_order_release);
      q->flush();
      if (outstanding > 0) reap(false);
    }
    while (outstanding > 0) reap(true);
  }

  // Hashing thread t: its groups of sectors (t, t + threads, ...) through every node.
  void hash(std::uint32_t t) {
    const std::uint32_t threads = s_.opt.hashing_threads;
    const std::uint32_t groups = (s_.sectors + s_.width - 1) / s_.width;
    struct group {
      std::uint32_t first;
      std::unique_ptr<detail::lane_layer<sdr::porep_variant::sdr>> at;
      std::unique_ptr<detail::label_message<sdr::porep_variant::sdr, hash_family::sha256>> m;
    };
    std::vector<group> mine;
    labeler_options lo;
    // The message reads only the job's replica ids and layer from its lane_layer: the
    // layer pointers are never followed here.
    const sdr::layer_inputs in{s_.ring.data(), s_.ring.data(), s_.job.row(begin_)};
    for (std::uint32_t g = t; g < groups; g += threads) {
      group x;
      x.first = g * s_.width;
      x.at = std::make_unique<detail::lane_layer<sdr::porep_variant::sdr>>(s_.job, layer_, in, x.first,
                                                                            std::min(s_.width, s_.sectors - x.first));
      x.m = std::make_unique<detail::label_message<sdr::porep_variant::sdr, hash_family::sha256>>(*s_.eng, *x.at, lo);
      mine.push_back(std::move(x));
    }
    std::uint64_t waited = 0;
    for (std::uint64_t v = begin_; v < end_; ++v) {
      const auto slot = static_cast<std::uint32_t>(v & (slots_ - 1));
      if (ready_[slot].load(std::memory_order_acquire) != v) {
        const auto w0 = clock_type::now();
        wait_until([&] { return ready_[slot].load(std::memory_order_acquire) == v || stopped(); });
        waited += static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - w0).count());
        if (stopped()) break;
      }
      // The RAM row this node takes must have been written out.
      if (v >= s_.ring_rows)
        wait_until([&] { return flushed_.load(std::memory_order_acquire) > v - s_.ring_rows || stopped(); });
      const std::uint8_t* const* p = parents_.data() + static_cast<std::size_t>(slot) * sdr::kParents;
      std::uint8_t* out = s_.ring_row(v);
      for (auto& x : mine) {
        if (v == 0) {
          x.m->fetch_short(v);
        } else {
          const std::uint8_t* q[sdr::kParents];
          for (std::uint32_t k = 0; k < x.at->read_words(); ++k) q[k] = p[k] + 32ull * x.first;
          x.m->fetch_from(v, q, *x.at);
        }
        x.m->hash(*s_.eng, v == 0);
        for (std::uint32_t j = 0; j < x.at->lanes; ++j) x.m->digest(j, out + 32ull * (x.first + j));
      }
      progress_[t].store(v + 1, std::memory_order_release);
    }
    wait_ns_[t].store(waited, std::memory_order_relaxed);
  }

  // The writer: whole chunks as the hashing threads finish them, the last one padded to
  // a page.
  void write() {
    const std::uint64_t chunk = s_.chunk_rows;
    const int fd = s_.fd(layer_);
    for (std::uint64_t next = begin_ / chunk * chunk; next < end_ && !stopped();) {
      const std::uint64_t stop = std::min(next + chunk, end_);
      if (hashed() < stop) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        continue;
      }
      const std::uint64_t bytes = round_up((stop - next) * s_.row_bytes, kPage);
      pwrite_exact(fd, s_.ring_row(next), bytes, s_.at(layer_, next * s_.row_bytes),
                   s_.opt.layer_dir / ("(layer " + std::to_string(layer_) + ")"));
      s_.stats.bytes_written += bytes;
      flushed_.store(stop, std::memory_order_release);
      next += chunk;
    }
  }

  disk_labeling::state& s_;
  std::uint32_t layer_;
  std::uint64_t begin_, end_;
  std::uint32_t slots_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> ready_;  // slot -> the node whose parents it holds
  std::vector<std::uint32_t> pending_;                   // producer only: reads outstanding per slot
  std::vector<std::uint64_t> node_of_;                   // producer only
  std::vector<const std::uint8_t*> parents_;             // slot x 14: lane 0 of sector 0 of each parent
  std::vector<page_span> spans_;                         // slot x 14: the read each parent issued
  std::unique_ptr<std::atomic<std::uint64_t>[]> progress_;  // per hashing thread: nodes below are hashed
  std::unique_ptr<std::atomic<std::uint64_t>[]> wait_ns_;
  std::atomic<std::uint64_t> flushed_{0};  // rows below are on the disk
  std::atomic<bool> failed_{false};
  std::mutex error_mu_;
  std::string error_;
};

}  // namespace

void disk_labeling::state::label_layer(std::uint32_t layer) {
  sdr::report_layer_start(job, layer);
  layer_pipeline(*this, layer).run();
  stats.node_steps += job.node_end() - job.node_begin();
}

disk_label_stats disk_labeling::run() {
  state& s = *s_;
  s.ran = true;
  // This run's counts; the window's pre-fill stays as it was.
  const disk_label_stats kept = s.stats;
  s.stats = {};
  s.stats.bytes_filled = kept.bytes_filled;
  s.stats.cache_nodes = kept.cache_nodes;
  s.stats.ram_bytes = kept.ram_bytes;
  s.stats.fill_seconds = kept.fill_seconds;
  s.stats.lookahead = kept.lookahead;
  s.stats.queue_depth = kept.queue_depth;
  s.stats.hashing_threads = kept.hashing_threads;
  s.stats.lanes = kept.lanes;
  s.stats.direct = kept.direct;
  s.stats.engine = kept.engine;
  s.fill_ring();
  const auto t0 = clock_type::now();
  for (std::uint32_t l = s.job.start_layer(); l <= s.job.layers; ++l) s.label_layer(l);
  s.stats.seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
  s.stats.labels = s.stats.node_steps * s.sectors;
  return s.stats;
}

std::vector<std::uint8_t> disk_labeling::read_last_layer_rows(std::uint64_t first, std::uint64_t count) const {
  const state& s = *s_;
  if (!s.ran) throw std::logic_error("disk_labeling: read before run");
  if (first > s.job.nodes || count > s.job.nodes - first) throw std::out_of_range("disk_labeling: rows past the layer");
  std::vector<std::uint8_t> out(count * s.row_bytes);
  const std::uint64_t b = first * s.row_bytes, e = b + count * s.row_bytes;
  const std::uint64_t pb = b / kPage * kPage, pe = round_up(e, kPage);
  require_memory(pe - pb, "rows read back from the disk");
  huge_buffer buf(pe - pb);
  pread_exact(s.fd(s.job.layers), buf.data(), pe - pb, s.at(s.job.layers, pb), s.opt.layer_dir);
  std::memcpy(out.data(), buf.data() + (b - pb), e - b);
  return out;
}

sdr::sampled_result disk_labeling::verify_samples(std::uint64_t samples, std::uint64_t seed) const {
  const state& s = *s_;
  if (!s.ran) throw std::logic_error("disk_labeling: verify before run");
  const std::uint32_t layer = s.job.layers;
  const std::uint32_t words = layer == 1 ? sdr::kBaseDegree : sdr::kParents;
  const std::uint64_t begin = s.job.node_begin(), n = s.job.node_end() - begin;
  const std::uint64_t total = std::min(samples, n * s.sectors);
  std::mt19937_64 rng(seed);
  // Batches of samples whose labels (14 parents and the node's own) are read together,
  // every read in flight at once: one at a time, each would wait a disk latency.
  constexpr std::uint64_t kBatch = 128;
  const std::uint32_t per = sdr::kParents + 1;
  auto q = storage::make_read_queue(s.opt.io, std::min<std::uint32_t>(s.opt.queue_depth, 256));
  huge_buffer bufs(kBatch * per * s.read_span);
  std::vector<storage::read_done> done(q->depth());
  struct pick {
    std::uint64_t node;
    std::uint32_t sector;
  };
  sdr::sampled_result r;
  for (std::uint64_t first = 0; first < total; first += kBatch) {
    std::vector<pick> picks;
    for (std::uint64_t i = first; i < std::min(total, first + kBatch); ++i) {
      const std::uint64_t v = begin + (samples >= n ? i % n : rng() % n);
      picks.push_back({v, static_cast<std::uint32_t>(rng() % s.sectors)});
    }
    // Read j of pick i: parent j (j < words), or the node itself (j == kParents).
    std::vector<std::uint64_t> row_of(picks.size() * per, ~std::uint64_t{0});
    std::uint32_t outstanding = 0;
    auto reap = [&](bool wait) {
      const std::size_t got = q->reap(done, wait);
      for (std::size_t d = 0; d < got; ++d) {
        if (done[d].result <= 0) throw std::runtime_error(s.opt.layer_dir.string() + ": a verification read failed");
        --outstanding;
      }
    };
    for (std::size_t i = 0; i < picks.size(); ++i) {
      const std::uint32_t* row = s.job.row(picks[i].node);
      for (std::uint32_t j = 0; j < per; ++j) {
        if (j < sdr::kParents && (j >= words || picks[i].node == 0)) continue;
        const std::uint64_t u = j == sdr::kParents ? picks[i].node : row[j];
        const std::uint32_t l = j < sdr::kBaseDegree || j == sdr::kParents ? layer : layer - 1;
        const page_span span = pages_of_row(u, s.row_bytes);
        while (outstanding >= q->depth()) reap(true);
        q->submit(s.fd(l), bufs.data() + (i * per + j) * s.read_span, span.bytes, s.at(l, span.offset), i * per + j);
        ++outstanding;
        row_of[i * per + j] = u * s.row_bytes - span.offset;
      }
    }
    while (outstanding > 0) reap(true);
    for (std::size_t i = 0; i < picks.size(); ++i) {
      const std::uint64_t v = picks[i].node;
      const std::uint32_t sector = picks[i].sector;
      auto label = [&](std::uint32_t j) { return bufs.data() + (i * per + j) * s.read_span + row_of[i * per + j] + 32ull * sector; };
      std::uint8_t labels[32 * sdr::kParents] = {}, want[32];
      for (std::uint32_t k = 0; v != 0 && k < words; ++k) std::memcpy(labels + 32 * k, label(k), 32);
      sdr::label_from_parent_labels<hash_family::sha256>(s.job.replica_ids + 32ull * sector, layer, v, labels, want);
      ++r.checked;
      if (std::memcmp(want, label(sdr::kParents), 32) != 0 && r.mismatched++ == 0)
        r.first_mismatch = "layer " + std::to_string(layer) + ", node " + std::to_string(v) + ", sector " + std::to_string(sector);
    }
  }
  return r;
}

}  // namespace poreplab::cpu
