// PC2's inputs read from files (pc2_inputs.hpp). A chunk's reads go through O_DIRECT with
// several in flight where the filesystem and the chunk's alignment allow: no copy out of
// the page cache and no pages to drop, so the reader thread's time is the disk's and the
// check's (docs/pc2.md has the measurements); otherwise buffered preads, each range's
// pages dropped once read.
#include "poreplab/seal/pc2_inputs.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <functional>
#include <span>
#include <stdexcept>

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

// One input file, read front to back in chunks, its digest taken as it goes where one is
// recorded to check it against.
struct input_file {
  fs::path path;
  unique_fd fd;
  unique_fd direct_fd;   // the same file opened O_DIRECT; -1 where the filesystem refuses it
  std::string recorded;  // seal.json's digest; "" if none
  sha256::ctx digest{};
  std::uint64_t next = 0;  // bytes read so far: reads must come in order

  // Opens `p`, which must be `bytes` long; `of_what` says whose size that is.
  void open(const fs::path& p, std::uint64_t bytes, const std::string& of_what) {
    path = p;
    const std::uint64_t size = regular_file_size(path);
    if (size != bytes)
      throw std::runtime_error(path.string() + ": size " + std::to_string(size) + " bytes, not the " +
                               std::to_string(bytes) + " of " + of_what +
                               (size < bytes ? ": cut short at node " + std::to_string(size / 32) : std::string()) +
                               " (truncated or replaced?)");
    fd = open_regular_for_reading(path);
    direct_fd = open_regular_for_reading(path);
    if (::fcntl(direct_fd.get(), F_SETFL, ::fcntl(direct_fd.get(), F_GETFL) | O_DIRECT) != 0) direct_fd = unique_fd();
    sha256::init(digest);
  }
  // A read of [offset, offset + n) begins (reads must come in order), its bytes are
  // digested in order as they come, and it ends.
  void begin_read(std::uint64_t offset) const {
    if (offset != next) throw std::logic_error("pc2: " + path.string() + " read out of order");
  }
  void digest_bytes(const std::uint8_t* p, std::uint64_t n) {
    if (!recorded.empty()) sha256::update_bulk(digest, p, static_cast<std::size_t>(n));
  }
  void end_read(std::uint64_t n) { next += n; }

  void read_buffered(std::uint64_t offset, std::uint64_t n, std::uint8_t* out) {
    begin_read(offset);
    try {
      pread_exact(fd.get(), out, n, offset, path);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(std::string(e.what()) + " (reading node " + std::to_string(offset / 32) + " on)");
    }
    digest_bytes(out, n);
    end_read(n);
    ::posix_fadvise(fd.get(), static_cast<off_t>(offset), static_cast<off_t>(n), POSIX_FADV_DONTNEED);
  }
  void check(const fs::path& manifest) {
    if (recorded.empty()) return;
    std::uint8_t d[32];
    sha256::final(digest, d);
    const std::string got = to_hex(d, 32);
    if (got != recorded)
      throw std::runtime_error(path.string() + ": SHA-256 " + got + " is not " + recorded + ", the digest " +
                               manifest.string() + " records (/files/" + path.filename().string() +
                               "/sha256); the file or seal.json is damaged");
  }
};

bool aligned(std::uint64_t x) { return x % storage::kDirectAlign == 0; }

// One O_DIRECT read of a chunk: which file, where in the chunk, how long.
struct direct_piece {
  std::size_t file = 0;
  std::uint64_t at = 0;
  std::uint32_t bytes = 0;
};

}  // namespace

struct pc2_file_inputs::files {
  std::vector<input_file> layers;
  input_file replica;
  std::unique_ptr<storage::read_queue> queue;  // null: every read buffered
  std::uint64_t direct_bytes = 0, buffered_bytes = 0;

  // What a read reports as bytes arrive: file i's [at, at + n) of the chunk are in outs[i].
  using arrival = std::function<void(std::size_t i, std::uint64_t at, std::uint64_t n)>;

  // [offset, offset + n) of each of `in` into outs[i], each part reported as it arrives.
  void read(std::span<input_file* const> in, std::uint64_t offset, std::uint64_t n,
            std::span<std::uint8_t* const> outs, const arrival& done) {
    bool direct = queue != nullptr && aligned(offset) && aligned(n);
    for (std::size_t i = 0; i < in.size(); ++i)
      direct = direct && in[i]->direct_fd.get() >= 0 && aligned(reinterpret_cast<std::uintptr_t>(outs[i]));
    if (!direct) {
      for (std::size_t i = 0; i < in.size(); ++i) {
        in[i]->read_buffered(offset, n, outs[i]);
        buffered_bytes += n;
        done(i, 0, n);
      }
      return;
    }
    read_direct(in, offset, n, outs, done);
    direct_bytes += n * in.size();
  }

  // Every piece in flight kDirectPiecesInFlight at a time, each reported as it arrives (its
  // check then runs while the others are read) and digested once the file's pieces before
  // it are; an error (a failed or short read, or done's) stops new reads and is thrown once
  // none is in flight, since the kernel may still be writing into the buffers until then.
  void read_direct(std::span<input_file* const> in, std::uint64_t offset, std::uint64_t n,
                   std::span<std::uint8_t* const> outs, const arrival& done) {
    std::vector<direct_piece> pieces;
    std::vector<std::size_t> first_piece(in.size()), digested(in.size(), 0);
    for (std::size_t i = 0; i < in.size(); ++i) {
      in[i]->begin_read(offset);
      first_piece[i] = pieces.size();
      for (std::uint64_t at = 0; at < n; at += kDirectPieceBytes)
        pieces.push_back({i, at, static_cast<std::uint32_t>(std::min<std::uint64_t>(kDirectPieceBytes, n - at))});
    }
    const std::size_t per_file = pieces.size() / in.size();
    std::vector<char> arrived(pieces.size(), 0);
    std::vector<storage::read_done> reaped(queue->depth());
    std::exception_ptr failure;
    std::size_t next = 0, in_flight = 0;
    while (in_flight > 0 || (failure == nullptr && next < pieces.size())) {
      for (; failure == nullptr && next < pieces.size() && in_flight < queue->depth(); ++next, ++in_flight) {
        const direct_piece& p = pieces[next];
        queue->submit(in[p.file]->direct_fd.get(), outs[p.file] + p.at, p.bytes, offset + p.at, next);
      }
      queue->flush();
      const std::size_t got = queue->reap(reaped, true);
      for (std::size_t k = 0; k < got; ++k) {
        --in_flight;
        const direct_piece& p = pieces[reaped[k].tag];
        if (failure != nullptr) continue;
        try {
          if (reaped[k].result != static_cast<std::int64_t>(p.bytes)) fail_piece(*in[p.file], offset + p.at, reaped[k].result);
          done(p.file, p.at, p.bytes);
          arrived[reaped[k].tag] = 1;
          for (std::size_t& d = digested[p.file]; d < per_file && arrived[first_piece[p.file] + d] != 0; ++d) {
            const direct_piece& q = pieces[first_piece[p.file] + d];
            in[p.file]->digest_bytes(outs[p.file] + q.at, q.bytes);
          }
          if (digested[p.file] == per_file) in[p.file]->end_read(n);
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
    if (!any) return;
    try {
      queue = storage::make_read_queue(storage::io_engine::automatic, kDirectPiecesInFlight);
    } catch (const std::exception&) {
      queue.reset();  // buffered reads still work
    }
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
                             (in_->queue ? " (" + std::string(storage::io_engine_name(in_->queue->engine())) + ")" : "");
  const std::string buffered = "buffered preads, each range's pages dropped once read";
  if (all == 0) return "nothing read";
  if (in_->buffered_bytes == 0) return direct;
  if (in_->direct_bytes == 0) return buffered;
  return direct + " for " + std::to_string(100 * in_->direct_bytes / all) + "% of the bytes, the rest " + buffered;
}

}  // namespace poreplab::seal
