#pragma once
// Reads issued ahead and completed out of order: the parent reads of a layer kept on
// disk (disk_labeler) and the random-read probe of a disk (disk_probe). Two engines:
// io_uring (liburing; one thread keeps `depth` reads in flight) and a pool of `depth`
// threads each doing one blocking pread at a time, for kernels or builds without it.
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "poreplab/name_table.hpp"

namespace poreplab::storage {

enum class io_engine {
  automatic,   // io_uring where this build and kernel have it, else pread_pool
  io_uring,
  pread_pool,
};
inline constexpr name_table kIoEngines{"I/O engine", std::array{named<io_engine>{io_engine::automatic, "auto"},
                                                                named<io_engine>{io_engine::io_uring, "io_uring"},
                                                                named<io_engine>{io_engine::pread_pool, "pread-pool"}}};
// Throws std::invalid_argument "unknown I/O engine 'x' (valid: auto, io_uring, pread-pool)".
inline io_engine parse_io_engine(std::string_view s) { return kIoEngines.parse(s); }
inline const char* io_engine_name(io_engine e) { return kIoEngines.name(e).data(); }

// Whether io_uring can be used here (built with liburing and the kernel lets a ring be
// set up); `why` says why not.
bool io_uring_available(std::string* why = nullptr);

struct read_done {
  std::uint64_t tag = 0;
  std::int64_t result = 0;  // bytes read, or -errno
};

class read_queue {
 public:
  virtual ~read_queue() = default;
  // Queues a read of len bytes at off into buf; `tag` comes back with its completion.
  // At most depth() reads may be outstanding (submitted and not yet reaped).
  virtual void submit(int fd, void* buf, std::uint32_t len, std::uint64_t off, std::uint64_t tag) = 0;
  // Starts what submit() queued (io_uring batches submissions; the pool starts at once).
  virtual void flush() = 0;
  // Completions into out; waits for at least one when `wait` and one is outstanding.
  virtual std::size_t reap(std::span<read_done> out, bool wait) = 0;
  virtual std::uint32_t depth() const = 0;
  virtual io_engine engine() const = 0;
};

// A queue of `depth` (1..4096) outstanding reads. automatic picks io_uring when
// io_uring_available(); asking for io_uring where it is not is a std::runtime_error
// naming why.
std::unique_ptr<read_queue> make_read_queue(io_engine e, std::uint32_t depth);

}  // namespace poreplab::storage
