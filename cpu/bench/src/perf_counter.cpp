#include "poreplab/cpu/perf_counter.hpp"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace poreplab::cpu {

perf_counter::perf_counter(std::uint32_t type, std::uint64_t config) {
  perf_event_attr a{};
  a.type = type;
  a.size = sizeof a;
  a.config = config;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  fd_ = static_cast<int>(::syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
  if (fd_ < 0) why_ = std::string("perf_event_open: ") + std::strerror(errno);
}

perf_counter::~perf_counter() {
  if (fd_ >= 0) ::close(fd_);
}

std::uint64_t perf_counter::read() const {
  std::uint64_t v = 0;
  if (fd_ < 0 || ::read(fd_, &v, sizeof v) != static_cast<ssize_t>(sizeof v)) return 0;
  return v;
}

}  // namespace poreplab::cpu
