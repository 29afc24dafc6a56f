#pragma once
// One hardware event counted for the calling thread in user mode (perf_event_open), where
// the kernel and hypervisor expose a PMU; many VMs expose none, and then why() says so.
#include <cstdint>
#include <string>

namespace poreplab::cpu {

class perf_counter {
 public:
  // type and config as perf_event_attr spells them (PERF_TYPE_HARDWARE, PERF_COUNT_HW_*).
  perf_counter(std::uint32_t type, std::uint64_t config);
  ~perf_counter();
  perf_counter(const perf_counter&) = delete;
  perf_counter& operator=(const perf_counter&) = delete;
  bool ok() const { return fd_ >= 0; }
  // The count since the counter was opened; 0 when not ok().
  std::uint64_t read() const;
  // Empty when ok(); else "perf_event_open: <errno text>".
  const std::string& why() const { return why_; }

 private:
  int fd_ = -1;
  std::string why_;
};

}  // namespace poreplab::cpu
