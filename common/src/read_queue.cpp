#include "poreplab/storage/read_queue.hpp"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#if defined(POREPLAB_HAVE_LIBURING)
#include <liburing.h>
#endif

namespace poreplab::storage {

namespace {

constexpr std::uint32_t kMaxDepth = 4096;

// `depth` threads, each taking one read at a time off a shared queue.
class pread_pool final : public read_queue {
 public:
  explicit pread_pool(std::uint32_t depth) : depth_(depth) {
    workers_.reserve(depth);
    for (std::uint32_t i = 0; i < depth; ++i) workers_.emplace_back([this] { work(); });
  }
  ~pread_pool() override {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    todo_cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  void submit(int fd, void* buf, std::uint32_t len, std::uint64_t off, std::uint64_t tag) override {
    {
      std::lock_guard lock(mu_);
      todo_.push_back({fd, buf, len, off, tag});
      ++outstanding_;
    }
    todo_cv_.notify_one();
  }
  void flush() override {}
  std::size_t reap(std::span<read_done> out, bool wait) override {
    std::unique_lock lock(mu_);
    if (wait && outstanding_ > 0) done_cv_.wait(lock, [&] { return !done_.empty(); });
    std::size_t n = 0;
    while (n < out.size() && !done_.empty()) {
      out[n++] = done_.front();
      done_.pop_front();
      --outstanding_;
    }
    return n;
  }
  std::uint32_t depth() const override { return depth_; }
  io_engine engine() const override { return io_engine::pread_pool; }

 private:
  struct request {
    int fd;
    void* buf;
    std::uint32_t len;
    std::uint64_t off;
    std::uint64_t tag;
  };

  void work() {
    for (;;) {
      request r{};
      {
        std::unique_lock lock(mu_);
        todo_cv_.wait(lock, [&] { return stop_ || !todo_.empty(); });
        if (todo_.empty()) return;
        r = todo_.front();
        todo_.pop_front();
      }
      std::int64_t got = 0;
      // A short read past the end is the caller's to judge; EINTR is retried.
      while (got < r.len) {
        const ssize_t n = ::pread(r.fd, static_cast<std::uint8_t*>(r.buf) + got, r.len - got,
                                  static_cast<off_t>(r.off + static_cast<std::uint64_t>(got)));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
          got = -errno;
          break;
        }
        if (n == 0) break;
        got += n;
      }
      {
        std::lock_guard lock(mu_);
        done_.push_back({r.tag, got});
      }
      done_cv_.notify_one();
    }
  }

  std::uint32_t depth_;
  std::mutex mu_;
  std::condition_variable todo_cv_, done_cv_;
  std::deque<request> todo_;
  std::deque<read_done> done_;
  std::size_t outstanding_ = 0;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

#if defined(POREPLAB_HAVE_LIBURING)
class uring_queue final : public read_queue {
 public:
  explicit uring_queue(std::uint32_t depth) : depth_(depth) {
    if (const int rc = io_uring_queue_init(depth, &ring_, 0); rc < 0)
      throw std::runtime_error(std::string("io_uring: cannot set up a ring of ") + std::to_string(depth) +
                               " entries: " + std::strerror(-rc));
  }
  ~uring_queue() override {
    // Outstanding reads still write into their buffers: wait for them first.
    read_done sink[64];
    while (outstanding_ > 0) reap(sink, true);
    io_uring_queue_exit(&ring_);
  }

  void submit(int fd, void* buf, std::uint32_t len, std::uint64_t off, std::uint64_t tag) override {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) {
      flush();
      sqe = io_uring_get_sqe(&ring_);
      if (sqe == nullptr) throw std::logic_error("io_uring: more reads submitted than the queue's depth");
    }
    io_uring_prep_read(sqe, fd, buf, len, off);
    io_uring_sqe_set_data64(sqe, tag);
    ++outstanding_;
    ++unsubmitted_;
  }
  void flush() override {
    while (unsubmitted_ > 0) {
      const int rc = io_uring_submit(&ring_);
      if (rc == -EINTR || rc == -EAGAIN || rc == -EBUSY) continue;
      if (rc < 0) throw std::runtime_error(std::string("io_uring: submit failed: ") + std::strerror(-rc));
      unsubmitted_ -= std::min<std::uint32_t>(unsubmitted_, static_cast<std::uint32_t>(rc));
    }
  }
  std::size_t reap(std::span<read_done> out, bool wait) override {
    flush();
    std::size_t n = 0;
    io_uring_cqe* cqe = nullptr;
    if (wait && outstanding_ > 0) {
      int rc;
      while ((rc = io_uring_wait_cqe(&ring_, &cqe)) == -EINTR) {
      }
      if (rc < 0) throw std::runtime_error(std::string("io_uring: wait failed: ") + std::strerror(-rc));
    }
    while (n < out.size() && io_uring_peek_cqe(&ring_, &cqe) == 0) {
      out[n++] = {io_uring_cqe_get_data64(cqe), cqe->res};
      io_uring_cqe_seen(&ring_, cqe);
      --outstanding_;
    }
    return n;
  }
  std::uint32_t depth() const override { return depth_; }
  io_engine engine() const override { return io_engine::io_uring; }

 private:
  std::uint32_t depth_;
  io_uring ring_{};
  std::uint32_t outstanding_ = 0, unsubmitted_ = 0;
};
#endif

}  // namespace

bool io_uring_available(std::string* why) {
#if defined(POREPLAB_HAVE_LIBURING)
  io_uring ring{};
  if (const int rc = io_uring_queue_init(2, &ring, 0); rc < 0) {
    if (why != nullptr) *why = std::string("the kernel refused an io_uring ring: ") + std::strerror(-rc);
    return false;
  }
  io_uring_queue_exit(&ring);
  return true;
#else
  if (why != nullptr) *why = "this build has no liburing (install liburing-dev and rebuild)";
  return false;
#endif
}

std::unique_ptr<read_queue> make_read_queue(io_engine e, std::uint32_t depth) {
  if (depth == 0 || depth > kMaxDepth)
    throw std::invalid_argument("read queue depth " + std::to_string(depth) + ": expected 1.." +
                                std::to_string(kMaxDepth));
  std::string why;
  if (e == io_engine::automatic) e = io_uring_available(&why) ? io_engine::io_uring : io_engine::pread_pool;
  if (e == io_engine::pread_pool) return std::make_unique<pread_pool>(depth);
#if defined(POREPLAB_HAVE_LIBURING)
  if (io_uring_available(&why)) return std::make_unique<uring_queue>(depth);
#else
  io_uring_available(&why);
#endif
  throw std::runtime_error("io_uring is not available: " + why);
}

}  // namespace poreplab::storage
