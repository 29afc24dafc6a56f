// PC2's inputs read from files (pc2_inputs.hpp). A chunk's reads go through O_DIRECT with
// several in flight where the filesystem and the chunk's alignment allow: no copy out of
// the page cache and no pages to drop, so a reader thread's time is the disk's and the
// check's (docs/pc2.md has the measurements); otherwise buffered preads, each range's
// pages dropped once read. Reads of different chunks may run at once, each on a queue of
// its own; the digests are taken apart, in order, on the pipeline's digest thread.
#include "poreplab/seal/pc2_inputs.hpp"

#include <fcntl.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <span>
#include <stdexcept>
#include <thread>

#include "poreplab/file_io.hpp"
#include "poreplab/hash/sha256_bulk.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/storage/read_queue.hpp"
#include "poreplab/storage/scratch_file.hpp"

namespace poreplab::seal {

namespace fs = std::filesystem;

namespace {

// 64 MiB in flight: enough that the disk keeps busy while the reader waits for a core the
// hashing holds (docs/pc2.md: 16 MiB lost a third of the rate on 2 busy vCPUs).
constexpr std::uint32_t kDirectPieceBytes = 4u << 20;  // one read
constexpr std::uint32_t kDirectPiecesInFlight = 16;

// One input file, read in chunks by one or more readers at once; its digest, where one is
// recorded to check it against, taken in order by the pipeline's digest thread.
struct input_file {
  fs::path path;
  unique_fd fd;
  unique_fd direct_fd;   // the same file opened O_DIRECT; -1 where the filesystem refuses it
  std::string recorded;  // seal.json's digest; "" if none
  sha256::ctx digest{};
  std::uint64_t size = 0;
  std::uint64_t digested = 0;  // bytes digested so far: they must come in order

  // Opens `p`, which must be `bytes` long; `of_what` says whose size that is.
  void open(const fs::path& p, std::uint64_t bytes, const std::string& of_what) {
    path = p;
    size = bytes;
    const std::uint64_t found = regular_file_size(path);
    if (found != bytes)
      throw std::runtime_error(path.string() + ": size " + std::to_string(found) + " bytes, not the " +
                               std::to_string(bytes) + " of " + of_what +
                               (found < bytes ? ": cut short at node " + std::to_string(found / 32) : std::string()) +
                               " (truncated or replaced?)");
    fd = open_regular_for_reading(path);
    direct_fd = open_regular_for_reading(path);
    if (::fcntl(direct_fd.get(), F_SETFL, ::fcntl(direct_fd.get(), F_GETFL) | O_DIRECT) != 0) direct_fd = unique_fd();
    sha256::init(digest);
  }
  // [offset, offset + n) of the file, which must follow what was digested before.
  void digest_bytes(std::uint64_t offset, const std::uint8_t* p, std::uint64_t n) {
    if (recorded.empty()) return;
    if (offset != digested) throw std::logic_error("pc2: " + path.string() + " digested out of order");
    sha256::update_bulk(digest, p, static_cast<std::size_t>(n));
    digested += n;
  }

  void read_buffered(std::uint64_t offset, std::uint64_t n, std::uint8_t* out) const {
    try {
      pread_exact(fd.get(), out, n, offset, path);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(std::string(e.what()) + " (reading node " + std::to_string(offset / 32) + " on)");
    }
    ::posix_fadvise(fd.get(), static_cast<off_t>(offset), static_cast<off_t>(n), POSIX_FADV_DONTNEED);
  }
  void check(const fs::path& manifest) {
    if (recorded.empty()) return;
    if (digested != size)
      throw std::logic_error("pc2: " + path.string() + ": " + std::to_string(digested) + " of " + std::to_string(size) +
                             " bytes digested");
    std::uint8_t d[32];
    sha256::final(digest, d);
    check_file_digest(path, manifest, recorded, to_hex(d, 32));
  }
};

bool aligned(std::uint64_t x) { return x % storage::kDirectAlign == 0; }

// One O_DIRECT read of a chunk: which file, where in the chunk, how long.
struct direct_piece {
  std::size_t file = 0;
  std::uint64_t at = 0;
  std::uint32_t bytes = 0;
};

// Threads for a column chunk's digests: each file's is one stream, so up to one a file;
// half the cores (the rest hash, or feed a device), and two on the smallest machines (the
// work is the same, only spread).
std::size_t digest_threads(std::size_t files) {
  const std::size_t cores = std::thread::hardware_concurrency();
  return std::max<std::size_t>(1, std::min(std::max<std::size_t>(cores / 2, 2), files));
}

// f(0) .. f(n - 1) on `threads` threads (this one among them); the first error is rethrown
// once all are done.
void for_each_parallel(std::size_t n, std::size_t threads, const std::function<void(std::size_t)>& f) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex mu;
  const auto work = [&] {
    for (std::size_t i; (i = next++) < n;) {
      try {
        f(i);
      } catch (...) {
        std::lock_guard lock(mu);
        if (failure == nullptr) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> others;
  for (std::size_t t = 1; t < threads; ++t) others.emplace_back(work);
  work();
  for (auto& t : others) t.join();
  if (failure != nullptr) std::rethrow_exception(failure);
}

}  // namespace

struct pc2_file_inputs::files {
  std::vector<input_file> layers;
  input_file replica;
  // One queue a reader at a time, taken for a read and given back after it; none made yet
  // where direct reads cannot be.
  bool direct_possible = false;
  std::mutex queues_mu;
  std::vector<std::unique_ptr<storage::read_queue>> idle_queues;
  storage::io_engine engine = storage::io_engine::pread_pool;  // the queues'
  std::atomic<std::uint64_t> direct_bytes{0}, buffered_bytes{0};

  // A queue for one read, or null (buffered reads then).
  std::unique_ptr<storage::read_queue> take_queue() {
    std::lock_guard lock(queues_mu);
    if (!direct_possible) return nullptr;
    if (!idle_queues.empty()) {
      auto q = std::move(idle_queues.back());
      idle_queues.pop_back();
      return q;
    }
    try {
      auto q = storage::make_read_queue(storage::io_engine::automatic, kDirectPiecesInFlight);
      engine = q->engine();
      return q;
    } catch (const std::exception&) {
      return nullptr;  // buffered reads still work
    }
  }
  void give_queue(std::unique_ptr<storage::read_queue> q) {
    std::lock_guard lock(queues_mu);
    if (q) idle_queues.push_back(std::move(q));
  }

  // What a read reports as bytes arrive: file i's [at, at + n) of the chunk are in outs[i].
  using arrival = std::function<void(std::size_t i, std::uint64_t at, std::uint64_t n)>;

  // [offset, offset + n) of each of `in` into outs[i], each part reported as it arrives.
  void read(std::span<input_file* const> in, std::uint64_t offset, std::uint64_t n,
            std::span<std::uint8_t* const> outs, const arrival& done) {
    bool direct = aligned(offset) && aligned(n);
    for (std::size_t i = 0; i < in.size(); ++i)
      direct = direct && in[i]->direct_fd.get() >= 0 && aligned(reinterpret_cast<std::uintptr_t>(outs[i]));
    std::unique_ptr<storage::read_queue> queue = direct ? take_queue() : nullptr;
    if (!queue) {
      for (std::size_t i = 0; i < in.size(); ++i) {
        in[i]->read_buffered(offset, n, outs[i]);
        buffered_bytes += n;
        done(i, 0, n);
      }
      return;
    }
    read_direct(*queue, in, offset, n, outs, done);  // on an error the queue is not reused
    give_queue(std::move(queue));
    direct_bytes += n * in.size();
  }

  // Every piece in flight kDirectPiecesInFlight at a time, each reported as it arrives (its
  // check then runs while the others are read); an error (a failed or short read, or
  // done's) stops new reads and is thrown once none is in flight, since the kernel may
  // still be writing into the buffers until then.
  static void read_direct(storage::read_queue& queue, std::span<input_file* const> in, std::uint64_t offset,
                          std::uint64_t n, std::span<std::uint8_t* const> outs, const arrival& done) {
    std::vector<direct_piece> pieces;
    for (std::size_t i = 0; i < in.size(); ++i) {
      for (std::uint64_t at = 0; at < n; at += kDirectPieceBytes)
        pieces.push_back({i, at, static_cast<std::uint32_t>(std::min<std::uint64_t>(kDirectPieceBytes, n - at))});
    }
    std::vector<storage::read_done> reaped(queue.depth());
    std::exception_ptr failure;
    std::size_t next = 0, in_flight = 0;
    while (in_flight > 0 || (failure == nullptr && next < pieces.size())) {
      for (; failure == nullptr && next < pieces.size() && in_flight < queue.depth(); ++next, ++in_flight) {
        const direct_piece& p = pieces[next];
        queue.submit(in[p.file]->direct_fd.get(), outs[p.file] + p.at, p.bytes, offset + p.at, next);
      }
      queue.flush();
      const std::size_t got = queue.reap(reaped, true);
      for (std::size_t k = 0; k < got; ++k) {
        --in_flight;
        const direct_piece& p = pieces[reaped[k].tag];
        if (failure != nullptr) continue;
        try {
          if (reaped[k].result != static_cast<std::int64_t>(p.bytes)) fail_piece(*in[p.file], offset + p.at, reaped[k].result);
          done(p.file, p.at, p.bytes);
        } catch (...) {
          failure = std::current_exception();
        }
      }
    }
    if (failure != nullptr) std::rethrow_exception(failure);
  }

  [[noreturn]] static void fail_piece(const input_file& f, std::uint64_t at, std::int64_t result) {
    if (result < 0)
      throw std::runtime_error(f.path.string() + ": read failed at node " + std::to_string(at / 32) + ": " +
                               std::strerror(static_cast<int>(-result)));
    throw std::runtime_error(f.path.string() + ": read failed: the file ends at byte " +
                             std::to_string(at + static_cast<std::uint64_t>(result)) + ", shorter than expected (reading node " +
                             std::to_string(at / 32) + " on)");
  }

  void make_queue() {
    bool any = replica.direct_fd.get() >= 0;
    for (const auto& l : layers) any = any || l.direct_fd.get() >= 0;
    direct_possible = any;
    auto first = take_queue();  // made now: its engine is known before any read
    direct_possible = first != nullptr;
    give_queue(std::move(first));
  }
  bool digests() const {
    bool any = !replica.recorded.empty();
    for (const auto& l : layers) any = any || !l.recorded.empty();
    return any;
  }
};

// Every input present, regular and of its size before any work.
pc2_file_inputs::pc2_file_inputs(const fs::path& dir, const seal_manifest& sm) : in_(std::make_unique<files>()) {
  in_->layers.resize(sm.layers);
  for (std::uint32_t l = 1; l <= sm.layers; ++l) {
    auto& layer = in_->layers[l - 1];
    layer.open(dir / layer_file_name(l), sm.sector_bytes, "a layer of this seal");
    if (!sm.layer_sha256.empty()) layer.recorded = sm.layer_sha256[l - 1];
  }
  in_->replica.open(dir / kReplicaFile, sm.sector_bytes, "this seal's sector");
  in_->replica.recorded = sm.replica_sha256;
  in_->make_queue();
}

pc2_file_inputs::pc2_file_inputs(const pc2_input_files& f) : in_(std::make_unique<files>()) {
  in_->layers.resize(f.layers.size());
  for (std::size_t l = 0; l < f.layers.size(); ++l) in_->layers[l].open(f.layers[l], f.bytes, f.of_what);
  in_->replica.open(f.replica, f.bytes, f.of_what);
  in_->make_queue();
}

pc2_file_inputs::~pc2_file_inputs() = default;

void pc2_file_inputs::feed(sdr::pc2_job& job) {
  job.read_label = [this](std::uint32_t l, std::uint64_t first, std::uint64_t count, std::uint8_t* o) {
    input_file* one[1] = {&in_->layers.at(l - 1)};
    in_->read(one, first * 32, count * 32, std::span<std::uint8_t* const>(&o, 1), [](std::size_t, std::uint64_t, std::uint64_t) {});
  };
  job.read_columns = [this](std::uint64_t first, std::uint64_t count, std::span<std::uint8_t* const> outs,
                            const std::function<void(std::uint32_t, std::uint64_t, std::uint64_t)>& arrived) {
    std::vector<input_file*> all;
    for (auto& l : in_->layers) all.push_back(&l);
    in_->read(all, first * 32, count * 32, outs, [&](std::size_t i, std::uint64_t at, std::uint64_t n) {
      arrived(static_cast<std::uint32_t>(i + 1), at / 32, n / 32);
    });
  };
  job.read_replica = [this](std::uint64_t first, std::uint64_t count, std::uint8_t* o) {
    input_file* one[1] = {&in_->replica};
    in_->read(one, first * 32, count * 32, std::span<std::uint8_t* const>(&o, 1), [](std::size_t, std::uint64_t, std::uint64_t) {});
  };
  job.digest = nullptr;
  if (in_->digests())
    job.digest = [this](bool replica, std::uint64_t first, std::uint64_t count, std::span<const std::uint8_t* const> in) {
      if (replica) return in_->replica.digest_bytes(first * 32, in[0], count * 32);
      for_each_parallel(in.size(), digest_threads(in.size()),
                        [&](std::size_t l) { in_->layers.at(l).digest_bytes(first * 32, in[l], count * 32); });
    };
  job.input_names.clear();
  for (const auto& p : paths()) job.input_names.push_back(p.string());
}

bool pc2_file_inputs::check_digests(const fs::path& manifest) {
  for (auto& l : in_->layers) l.check(manifest);
  in_->replica.check(manifest);
  return !in_->replica.recorded.empty();
}

void pc2_file_inputs::read_node(std::uint32_t layer, std::uint64_t node, std::uint8_t* out) const {
  const input_file& f = layer == 0 ? in_->replica : in_->layers.at(layer - 1);
  pread_exact(f.fd.get(), out, 32, node * 32, f.path);
}

const fs::path& pc2_file_inputs::replica_path() const { return in_->replica.path; }

std::vector<fs::path> pc2_file_inputs::paths() const {
  std::vector<fs::path> p;
  for (const auto& l : in_->layers) p.push_back(l.path);
  p.push_back(in_->replica.path);
  return p;
}

std::string pc2_file_inputs::how_read() const {
  const std::uint64_t all = in_->direct_bytes + in_->buffered_bytes;
  const std::string direct = "O_DIRECT, " + std::to_string(kDirectPieceBytes >> 20) + " MiB reads, " +
                             std::to_string(kDirectPiecesInFlight) + " in flight" +
                             (in_->direct_possible ? " (" + std::string(storage::io_engine_name(in_->engine)) + ")" : "");
  const std::string buffered = "buffered preads, each range's pages dropped once read";
  if (all == 0) return "nothing read";
  if (in_->buffered_bytes == 0) return direct;
  if (in_->direct_bytes == 0) return buffered;
  return direct + " for " + std::to_string(100 * in_->direct_bytes / all) + "% of the bytes, the rest " + buffered;
}

}  // namespace poreplab::seal
