#include "poreplab/cpu/features.hpp"

#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#define POREPLAB_X86 1
#endif

namespace poreplab::cpu {

namespace {

#ifdef POREPLAB_X86
struct regs {
  unsigned a = 0, b = 0, c = 0, d = 0;
};

regs cpuid(unsigned leaf, unsigned sub = 0) {
  regs r;
  __cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
  return r;
}

std::uint64_t xgetbv0() {
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return static_cast<std::uint64_t>(hi) << 32 | lo;
}

void read_caches(features& f) {
  // Deterministic cache parameters: leaf 4 (Intel) or 0x8000001D (AMD).
  const unsigned leaf = f.vendor == "AuthenticAMD" ? 0x8000001Du : 4u;
  const unsigned max_ext = cpuid(0x80000000u).a;
  if (leaf == 0x8000001Du && max_ext < leaf) return;
  for (unsigned i = 0; i < 16; ++i) {
    const regs r = cpuid(leaf, i);
    const unsigned type = r.a & 31;
    if (type == 0) break;
    cache_level c;
    c.level = static_cast<int>((r.a >> 5) & 7);
    c.type = type == 1 ? "data" : type == 2 ? "instruction" : "unified";
    const std::uint64_t ways = ((r.b >> 22) & 0x3ff) + 1, parts = ((r.b >> 12) & 0x3ff) + 1;
    const std::uint64_t line = (r.b & 0xfff) + 1, sets = static_cast<std::uint64_t>(r.c) + 1;
    c.bytes = ways * parts * line * sets;
    c.line_bytes = static_cast<int>(line);
    c.shared_by_threads = static_cast<int>(((r.a >> 14) & 0xfff) + 1);
    f.caches.push_back(c);
  }
}
#endif

features detect_now() {
  features f;
  f.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
#ifdef POREPLAB_X86
  const regs r0 = cpuid(0);
  char vendor[13] = {};
  std::memcpy(vendor, &r0.b, 4);
  std::memcpy(vendor + 4, &r0.d, 4);
  std::memcpy(vendor + 8, &r0.c, 4);
  f.vendor = vendor;
  const regs r1 = cpuid(1);
  // Display family and model: the extended fields count where the base family says so.
  const int base_family = static_cast<int>((r1.a >> 8) & 0xf), base_model = static_cast<int>((r1.a >> 4) & 0xf);
  f.family = base_family == 0xf ? base_family + static_cast<int>((r1.a >> 20) & 0xff) : base_family;
  f.model_number = base_family == 0x6 || base_family == 0xf ? base_model + (static_cast<int>((r1.a >> 16) & 0xf) << 4) : base_model;
  f.stepping = static_cast<int>(r1.a & 0xf);
  f.microarchitecture = microarchitecture(f.vendor, f.family, f.model_number);
  f.sse41 = (r1.c >> 19) & 1;
  f.ssse3 = (r1.c >> 9) & 1;
  const bool osxsave = (r1.c >> 27) & 1, avx = (r1.c >> 28) & 1;
  if (osxsave && avx) {
    const std::uint64_t xcr0 = xgetbv0();
    f.os_avx = (xcr0 & 0x6) == 0x6;             // XMM and YMM state
    f.os_avx512 = f.os_avx && (xcr0 & 0xe0) == 0xe0;  // opmask, ZMM_Hi256, Hi16_ZMM
  }
  if (r0.a >= 7) {
    const regs r7 = cpuid(7);
    f.avx2 = (r7.b >> 5) & 1;
    f.bmi2 = (r7.b >> 8) & 1;
    f.adx = (r7.b >> 19) & 1;
    f.avx512ifma = (r7.b >> 21) & 1;
    f.avx512f = (r7.b >> 16) & 1;
    f.avx512bw = (r7.b >> 30) & 1;
    f.avx512vl = (r7.b >> 31) & 1;
    f.sha_ni = (r7.b >> 29) & 1;
  }
  const unsigned max_ext = cpuid(0x80000000u).a;
  if (max_ext >= 0x80000004u) {
    char brand[49] = {};
    for (unsigned i = 0; i < 3; ++i) {
      const regs r = cpuid(0x80000002u + i);
      std::memcpy(brand + 16 * i, &r, 16);
    }
    f.model = brand;
    while (!f.model.empty() && f.model.back() == ' ') f.model.pop_back();
    while (!f.model.empty() && f.model.front() == ' ') f.model.erase(f.model.begin());
  }
  if (max_ext >= 0x80000007u) f.invariant_tsc = (cpuid(0x80000007u).d >> 8) & 1;
  read_caches(f);
#endif
  if (f.model.empty()) f.model = "unknown";
  return f;
}

}  // namespace

std::string microarchitecture(const std::string& vendor, int family, int model) {
  struct range {
    const char* vendor;
    int family, first, last;
    const char* name;
  };
  static constexpr range kTable[] = {
      {"AuthenticAMD", 0x17, 0x00, 0x2f, "Zen"},       {"AuthenticAMD", 0x17, 0x50, 0x5f, "Zen"},
      {"AuthenticAMD", 0x17, 0x30, 0x4f, "Zen 2"},     {"AuthenticAMD", 0x17, 0x60, 0x7f, "Zen 2"},
      {"AuthenticAMD", 0x17, 0x90, 0x91, "Zen 2"},     {"AuthenticAMD", 0x17, 0xa0, 0xaf, "Zen 2"},
      {"AuthenticAMD", 0x19, 0x00, 0x0f, "Zen 3"},     {"AuthenticAMD", 0x19, 0x20, 0x5f, "Zen 3"},
      {"AuthenticAMD", 0x19, 0x10, 0x1f, "Zen 4"},     {"AuthenticAMD", 0x19, 0x60, 0xaf, "Zen 4"},
      {"AuthenticAMD", 0x1a, 0x00, 0x2f, "Zen 5"},     {"AuthenticAMD", 0x1a, 0x40, 0x4f, "Zen 5"},
      {"AuthenticAMD", 0x1a, 0x60, 0x7f, "Zen 5"},
      {"GenuineIntel", 0x6, 0x55, 0x55, "Skylake-SP / Cascade Lake-SP"},
      {"GenuineIntel", 0x6, 0x6a, 0x6a, "Ice Lake-SP"},  {"GenuineIntel", 0x6, 0x6c, 0x6c, "Ice Lake-D"},
      {"GenuineIntel", 0x6, 0x8f, 0x8f, "Sapphire Rapids"}, {"GenuineIntel", 0x6, 0xcf, 0xcf, "Emerald Rapids"},
      {"GenuineIntel", 0x6, 0xad, 0xad, "Granite Rapids"}, {"GenuineIntel", 0x6, 0xae, 0xae, "Granite Rapids-D"},
  };
  for (const range& r : kTable)
    if (vendor == r.vendor && family == r.family && model >= r.first && model <= r.last) return r.name;
  return {};
}

std::vector<std::string> features::names() const {
  std::vector<std::string> n;
  if (sse41) n.emplace_back("sse4.1");
  if (ssse3) n.emplace_back("ssse3");
  if (sha_ni) n.emplace_back("sha_ni");
  if (avx2) n.emplace_back("avx2");
  if (bmi2) n.emplace_back("bmi2");
  if (adx) n.emplace_back("adx");
  if (avx512f) n.emplace_back("avx512f");
  if (avx512vl) n.emplace_back("avx512vl");
  if (avx512bw) n.emplace_back("avx512bw");
  if (avx512ifma) n.emplace_back("avx512ifma");
  if (invariant_tsc) n.emplace_back("invariant_tsc");
  return n;
}

const features& detect() {
  static const features f = detect_now();
  return f;
}

std::uint64_t rdtsc() {
#ifdef POREPLAB_X86
  return __rdtsc();
#else
  return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

double tsc_hz() {
  static const double hz = [] {
    using clk = std::chrono::steady_clock;
    const auto t0 = clk::now();
    const std::uint64_t c0 = rdtsc();
    while (clk::now() - t0 < std::chrono::milliseconds(20)) {
    }
    const std::uint64_t c1 = rdtsc();
    const double s = std::chrono::duration<double>(clk::now() - t0).count();
    return static_cast<double>(c1 - c0) / s;
  }();
  return hz;
}

}  // namespace poreplab::cpu
