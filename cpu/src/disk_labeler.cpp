#include "poreplab/cpu/disk_labeler.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "layer_loop.hpp"
#include "parent_ring.hpp"
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
  std::uint32_t hashers = 1;     // hashing threads run: at most one per engine-width group
  std::uint32_t ring_slots = 0;  // the parent ring's
  labeler_options label_opt;     // the hashers' (as the RAM labeler's defaults)
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
  if (!j.scheme.is_filecoin())
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
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  ring_slots = detail::parent_ring::auto_slots(sectors, l2 > 0 ? static_cast<std::uint64_t>(l2) : 0);
  const std::uint64_t parent_ring_bytes = checked_mul(ring_slots, detail::parent_ring::slot_bytes_for(sectors), "parent ring bytes");
  const std::uint64_t ram_bytes =
      checked_add(checked_add(ring_bytes, read_bytes, "node cache and read buffer bytes"), parent_ring_bytes, "labeling RAM bytes");
  require_memory(ram_bytes, "the node cache, read buffers and parent ring of labeling with layers on disk");
  ring = huge_buffer(ring_bytes);
  read_bufs = huge_buffer(read_bytes);
  stats.cache_nodes = cache;
  stats.ram_bytes = ram_bytes;
}

disk_labeling::disk_labeling(const sdr::label_job& job, const disk_label_options& opt) : s_(std::make_unique<state>()) {
  state& s = *s_;
  s.check(job, opt);
  s.job = job;
  s.opt = opt;
  s.sectors = job.sectors;
  s.eng = &pick_label_engine(job.scheme, job.sectors, opt.engine, static_cast<int>(opt.hashing_threads));
  s.width = static_cast<std::uint32_t>(std::max<std::size_t>(1, s.eng->lanes));
  s.hashers = std::min(opt.hashing_threads, (s.sectors + s.width - 1) / s.width);
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
  s.stats.hashing_threads = s.hashers;
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

// One layer's pipeline: a coordinator team (parent_ring.hpp) whose coordinator is the reader.
// It issues node v's parent reads `lookahead` nodes ahead into read buffers (slot v mod
// lookahead) and reaps their completions; in node order, once a node's reads are done, its
// ring slot is free and the RAM row its labels take is written out, it copies the node's
// parents into the ring (base parents not yet labeled by every hasher left out: each hasher
// reads its own lanes of those in the RAM rows) and publishes it. Hashers label from the ring
// as in RAM (label_slice_from_ring), into the RAM rows; a writer writes finished rows out.
// A thread that throws stops the ring; the others leave their waits, and the first
// exception is the layer's.
class layer_pipeline {
 public:
  layer_pipeline(disk_labeling::state& s, std::uint32_t layer)
      : s_(s),
        layer_(layer),
        begin_(s.job.node_begin()),
        end_(s.job.node_end()),
        lookahead_(s.opt.lookahead),
        words_(layer == 1 ? sdr::kBaseDegree : sdr::kParents),
        hashers_(s.hashers),
        // Progress published at most a write chunk apart: the reader's waits for rows written
        // out are then always met once the hashers catch up with it.
        ring_(s.ring_slots, s.sectors, hashers_, detail::kDiskSpins,
              static_cast<std::uint32_t>(std::min<std::uint64_t>(32, s.chunk_rows))),
        pending_(lookahead_, 0),
        parents_(static_cast<std::size_t>(lookahead_) * sdr::kParents),
        spans_(static_cast<std::size_t>(lookahead_) * sdr::kParents),
        wait_ns_(hashers_, 0) {
    flushed_.store(begin_ / s.chunk_rows * s.chunk_rows, std::memory_order_relaxed);
  }

  void run() {
    std::vector<std::thread> team;
    team.emplace_back([this] { guarded([this] { coordinate(); }); });
    team.emplace_back([this] { guarded([this] { write(); }); });
    for (std::uint32_t h = 1; h < hashers_; ++h) team.emplace_back([this, h] { guarded([this, h] { hash(h); }); });
    guarded([this] { hash(0); });
    for (auto& t : team) t.join();
    if (failed_) std::rethrow_exception(failed_);
    for (const std::uint64_t ns : wait_ns_) s_.stats.read_wait_s += static_cast<double>(ns) * 1e-9;
  }

 private:
  template <class F>
  void guarded(F&& f) {
    try {
      f();
    } catch (const detail::team_stopped&) {
    } catch (...) {
      {
        const std::lock_guard lock(failed_mu_);
        if (!failed_) failed_ = std::current_exception();
      }
      ring_.stop();
    }
  }

  // The coordinator: reads issued, completions reaped and nodes published as each becomes
  // possible; when none is, it waits for a read to complete or backs off.
  void coordinate() {
    queue_ = storage::make_read_queue(s_.opt.io, s_.opt.queue_depth);
    s_.stats.io = queue_->engine();
    done_.resize(queue_->depth());
    const sdr::layer_inputs in{s_.ring.data(), nullptr, s_.job.row(begin_)};
    const detail::lane_layer<sdr::porep_variant::sdr> team(s_.job, layer_, in, 0, s_.sectors);
    if (s_.label_opt.header_ahead) headers_.emplace(detail::header_engine(), team);
    for (detail::back_off idle(detail::kDiskSpins); publish_ < end_;) {
      bool moved = issue_reads();
      queue_->flush();
      if (outstanding_ > 0 && reap(false) > 0) moved = true;
      if (publish_ready()) moved = true;
      if (moved) {
        idle = detail::back_off(detail::kDiskSpins);
        continue;
      }
      if (ring_.stopped()) throw detail::team_stopped{};
      // The next node or the next read waits for a read to complete.
      if (outstanding_ > 0 && (outstanding_ >= queue_->depth() || (publish_ < submit_ && pending_[slot_of(publish_)] > 0)))
        reap(true);
      else
        idle();
    }
  }

  std::uint32_t slot_of(std::uint64_t v) const { return static_cast<std::uint32_t>(v & (lookahead_ - 1)); }

  // Issues the reads of the nodes up to `lookahead` ahead of the next to publish, until the
  // queue is full or a read must wait for an older base parent to be written out (it goes
  // on from that parent next time). Returns whether it issued anything.
  bool issue_reads() {
    bool issued = false;
    const int cur = s_.fd(layer_), prev = layer_ > 1 ? s_.fd(layer_ - 1) : -1;
    while (submit_ < end_ && submit_ < publish_ + lookahead_) {
      const std::uint64_t v = submit_;
      const std::uint32_t slot = slot_of(v);
      const std::uint32_t* row = s_.job.row(v);
      const std::uint8_t** p = parents_.data() + static_cast<std::size_t>(slot) * sdr::kParents;
      page_span* spans = spans_.data() + static_cast<std::size_t>(slot) * sdr::kParents;
      if (next_word_ == 0) std::fill(spans, spans + sdr::kParents, page_span{});
      for (; v != 0 && next_word_ < words_; ++next_word_) {
        const std::uint32_t k = next_word_;
        const std::uint64_t u = row[k];
        const bool base = k < sdr::kBaseDegree;
        if (base && v - u <= s_.cache) {
          p[k] = s_.ring_row(u);
          ++s_.stats.base_cached;
          issued = true;
          continue;
        }
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
        if (!shared) {
          // An older base parent: its row must be written out before it can be read back.
          if (base && flushed_.load(std::memory_order_acquire) <= u) return issued;
          // A full queue: the completions are reaped and their nodes published first.
          if (outstanding_ >= queue_->depth()) return issued;
          spans[k] = span;
          queue_->submit(base ? cur : prev, s_.read_buf(slot, k), span.bytes,
                         s_.at(base ? layer_ : layer_ - 1, span.offset), static_cast<std::uint64_t>(slot) * sdr::kParents + k);
          p[k] = s_.read_buf(slot, k) + (u * s_.row_bytes - span.offset);
          ++outstanding_;
          ++pending_[slot];
          ++s_.stats.reads;
          s_.stats.bytes_read += span.bytes;
        } else {
          ++s_.stats.parents_shared;
        }
        (base ? s_.stats.base_read : s_.stats.expander_read) += 1;
        issued = true;
      }
      next_word_ = 0;
      ++submit_;
      issued = true;
      queue_->flush();  // node by node: the disk starts on the first reads while the next are issued
    }
    return issued;
  }

  std::size_t reap(bool wait) {
    const std::size_t n = queue_->reap(done_, wait && outstanding_ > 0);
    for (std::size_t i = 0; i < n; ++i) {
      if (done_[i].result != static_cast<std::int64_t>(spans_[done_[i].tag].bytes))
        throw std::runtime_error(s_.opt.layer_dir.string() + ": a parent read of layer " + std::to_string(layer_) +
                                 " failed: " + (done_[i].result < 0 ? std::strerror(static_cast<int>(-done_[i].result)) : "short read"));
      --outstanding_;
      --pending_[done_[i].tag / sdr::kParents];
    }
    return n;
  }

  // Publishes the nodes, in order, whose reads are done while the ring slot each takes is
  // free and the RAM row its labels go to is written out. Returns whether it published any.
  bool publish_ready() {
    bool published = false;
    const std::uint64_t slots = ring_.slots(), row_bytes = s_.row_bytes;
    while (publish_ < submit_ && pending_[slot_of(publish_)] == 0) {
      const std::uint64_t v = publish_, pos = v - begin_;
      if (pos >= slots && labeled_ <= pos - slots && (labeled_ = ring_.labeled_by_all()) <= pos - slots) break;
      if (v >= s_.ring_rows && flushed_.load(std::memory_order_acquire) <= v - s_.ring_rows) break;
      if ((pos & (sdr::kProgressNodes - 1)) == 0) throw_if_interrupted();
      std::uint32_t mask = 0;
      if (v != 0) {
        labeled_ = ring_.labeled_by_all();
        // A base parent read from the disk is always labeled: it was written out first.
        const std::uint64_t ready_below = begin_ + labeled_;
        const std::uint32_t* row = s_.job.row(v);
        const std::uint8_t* const* p = parents_.data() + static_cast<std::size_t>(slot_of(v)) * sdr::kParents;
        std::uint8_t* dst = ring_.parents(pos);
        for (std::uint32_t k = 0; k < words_; ++k) {
          if (k < sdr::kBaseDegree && row[k] >= ready_below) continue;
          std::memcpy(dst + row_bytes * k, p[k], row_bytes);
          mask |= 1u << k;
        }
        if (headers_) headers_->make(v, ring_.header_states(pos));
      }
      ring_.mask(pos) = mask;
      ring_.produced.store(pos + 1, std::memory_order_release);
      ++publish_;
      published = true;
    }
    return published;
  }

  // Hasher h: a contiguous slice of the engine-width groups of sectors.
  void hash(std::uint32_t h) {
    const std::uint32_t groups = (s_.sectors + s_.width - 1) / s_.width;
    const sdr::layer_inputs in{s_.ring.data(), nullptr, s_.job.row(begin_)};
    detail::hasher_slice slice;
    slice.index = h;
    for (std::uint64_t g = std::uint64_t{groups} * h / hashers_; g < std::uint64_t{groups} * (h + 1) / hashers_; ++g) {
      const auto first = static_cast<std::uint32_t>(g) * s_.width;
      slice.groups.emplace_back(s_.job, layer_, in, first, std::min(s_.width, s_.sectors - first));
      slice.offsets.push_back(first);
    }
    wait_ns_[h] = detail::label_slice_from_ring<hash_family::sha256>(*s_.eng, s_.job, slice, s_.sectors, s_.label_opt,
                                                                     ring_, 0, detail::recent_rows{s_.ring_rows});
  }

  // The writer: whole chunks as the hashers finish them, the last one padded to a page.
  void write() {
    const std::uint64_t chunk = s_.chunk_rows;
    const int fd = s_.fd(layer_);
    for (std::uint64_t next = begin_ / chunk * chunk; next < end_; next += chunk) {
      const std::uint64_t stop = std::min(next + chunk, end_);
      ring_.wait([&] { return ring_.labeled_by_all() >= stop - begin_; });
      const std::uint64_t bytes = round_up((stop - next) * s_.row_bytes, kPage);
      pwrite_exact(fd, s_.ring_row(next), bytes, s_.at(layer_, next * s_.row_bytes),
                   s_.opt.layer_dir / ("(layer " + std::to_string(layer_) + ")"));
      s_.stats.bytes_written += bytes;
      flushed_.store(stop, std::memory_order_release);
    }
  }

  disk_labeling::state& s_;
  std::uint32_t layer_;
  std::uint64_t begin_, end_;
  std::uint32_t lookahead_, words_, hashers_;
  detail::parent_ring ring_;
  // The coordinator's own.
  std::unique_ptr<storage::read_queue> queue_;
  std::vector<storage::read_done> done_;
  std::optional<detail::header_maker> headers_;
  std::vector<std::uint32_t> pending_;        // read slot -> its node's reads outstanding
  std::vector<const std::uint8_t*> parents_;  // read slot x 14: lane 0 of sector 0 of each parent
  std::vector<page_span> spans_;              // read slot x 14: the read each parent issued
  std::uint64_t submit_ = begin_, publish_ = begin_;  // the next node to read for, to publish
  std::uint32_t next_word_ = 0;               // the next parent of node submit_ to read
  std::uint32_t outstanding_ = 0;
  std::uint64_t labeled_ = 0;                 // ring positions every hasher has labeled, as last read
  std::vector<std::uint64_t> wait_ns_;        // per hasher
  std::atomic<std::uint64_t> flushed_{0};     // rows below are on the disk
  std::mutex failed_mu_;
  std::exception_ptr failed_;
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
      sdr::label_from_parent_labels(hash_family::sha256, s.job.replica_ids + 32ull * sector, layer, v, labels, want);
      ++r.checked;
      if (std::memcmp(want, label(sdr::kParents), 32) != 0 && r.mismatched++ == 0)
        r.first_mismatch = "layer " + std::to_string(layer) + ", node " + std::to_string(v) + ", sector " + std::to_string(sector);
    }
  }
  return r;
}

}  // namespace poreplab::cpu
