#include "poreplab/sdr/window_store.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "poreplab/checked.hpp"
#include "poreplab/memory_check.hpp"

namespace poreplab::sdr {

namespace {

constexpr std::uint64_t kPage = 4096;

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Sorted distinct pages of one layer that the window reads or writes.
struct window_pages {
  std::vector<std::uint64_t> cur, prev;
};

void add_node_pages(std::vector<std::uint64_t>& pages, std::uint64_t node, std::uint64_t node_bytes) {
  const std::uint64_t first = node * node_bytes / kPage, last = (node * node_bytes + node_bytes - 1) / kPage;
  for (std::uint64_t p = first; p <= last; ++p) pages.push_back(p);
}

void sort_unique(std::vector<std::uint64_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

window_pages pages_of(const label_job& job) {
  const std::uint64_t node_bytes = 32ull * job.sectors;
  window_pages w;
  const std::uint64_t lo = job.first_node * node_bytes / kPage;
  const std::uint64_t hi = (job.node_end() * node_bytes + kPage - 1) / kPage;
  for (std::uint64_t p = lo; p < hi; ++p) w.cur.push_back(p);
  for (std::uint64_t v = job.node_begin(); v < job.node_end(); ++v) {
    if (v == 0) continue;  // node 0 has no parents
    const std::uint32_t* row = job.row(v);
    for (std::uint32_t k = 0; k < kBaseDegree; ++k) add_node_pages(w.cur, row[k], node_bytes);
    if (job.layers > 1)
      for (std::uint32_t k = kBaseDegree; k < kParents; ++k) add_node_pages(w.prev, row[k], node_bytes);
  }
  sort_unique(w.cur);
  sort_unique(w.prev);
  return w;
}

void check_window_job(const label_job& job) {
  validate(job);
  if (!job.windowed()) throw std::invalid_argument("window store: the job has no node window");
}

std::uint64_t free_disk_bytes(const std::filesystem::path& dir) {
  struct statvfs st{};
  if (::statvfs(dir.c_str(), &st) != 0) {
    std::string m = "window store: cannot read the free space of ";
    m += dir.string();
    m += ": ";
    m += std::strerror(errno);
    throw std::runtime_error(m);
  }
  return static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
}

// "window store (aliased): " before the aliased backing's errors.
std::string aliased_error_prefix() {
  return std::string("window store (") + window_backing_name(window_backing::aliased) + "): ";
}

std::uint64_t round_up(std::uint64_t x, std::uint64_t to) { return (x + to - 1) / to * to; }

bool hugetlb(std::uint64_t page) { return page > kPage; }

// The kernel's pool of huge pages of a size.
std::string huge_pool_dir(std::uint64_t page) {
  return "/sys/kernel/mm/hugepages/hugepages-" + std::to_string(page >> 10) + "kB";
}

// Free huge pages of a size, or 0 where the kernel has none of it.
std::uint64_t free_huge_pages(std::uint64_t page) {
  std::ifstream f(huge_pool_dir(page) + "/free_hugepages");
  std::uint64_t n = 0;
  return f >> n ? n : 0;
}

// A memory file on pages of a size (hugetlb above 4 KiB: MFD_HUGE_* is log2 of the page
// at MFD_HUGE_SHIFT, 26).
int page_memfd(const char* name, std::uint64_t page) {
  unsigned flags = MFD_CLOEXEC;
  if (hugetlb(page)) flags |= MFD_HUGETLB | (static_cast<unsigned>(__builtin_ctzll(page)) << 26);
  return ::memfd_create(name, flags);
}

// Values of layer l for bytes [begin, end) at dst, a chunk a thread.
void fill_parallel(std::uint8_t* dst, std::uint32_t l, std::uint64_t seed, std::uint64_t begin, std::uint64_t end) {
  constexpr std::uint64_t kChunk = 1u << 20;
  const std::uint64_t chunks = (end - begin + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(chunks); ++c) {
    const std::uint64_t b = begin + static_cast<std::uint64_t>(c) * kChunk;
    fill_window_elements(dst + (b - begin), l, seed, b, std::min(end, b + kChunk));
  }
}

}  // namespace

void fill_window_elements(std::uint8_t* dst, std::uint32_t layer, std::uint64_t seed, std::uint64_t begin,
                          std::uint64_t end) {
  const std::uint64_t key = mix(seed ^ (static_cast<std::uint64_t>(layer) << 48));
  for (std::uint64_t e = begin / 32; e < end / 32; ++e) {
    std::uint64_t w[4];
    for (std::uint64_t i = 0; i < 4; ++i) w[i] = mix(key ^ (4 * e + i));
    w[3] &= 0x3fffffffffffffffull;  // little-endian: byte 31 is the top byte of word 3
    std::memcpy(dst + (32 * e - begin), w, 32);
  }
}

std::string page_size_text(std::uint64_t page) {
  if (page % (1ull << 30) == 0) return std::to_string(page >> 30) + " GiB";
  if (page % (1ull << 20) == 0) return std::to_string(page >> 20) + " MiB";
  return std::to_string(page >> 10) + " KiB";
}

std::string alias_pages_text() {
  std::string t;
  for (const std::uint64_t p : kAliasPages) t += (t.empty() ? "" : ", ") + page_size_text(p);
  return t;
}

std::array<huge_page_need, 2> aliased_huge_pages(std::uint64_t layer_bytes, std::uint64_t own_bytes, std::uint32_t regions,
                                                 const window_alias& alias) {
  const std::uint64_t page = alias.page, own_page = alias_own_page(page);
  if (!hugetlb(page)) return {};
  const std::uint64_t period = std::min(round_up(alias.period, page), round_up(layer_bytes, page));
  // Pages of each size: the periods on the layer's pages, the own rows' pages on theirs.
  return {{{page, period * regions / page + (own_page == page ? round_up(own_bytes, page) / page : 0)},
           {own_page, own_page == page ? 0 : round_up(own_bytes, own_page) / own_page}}};
}

std::string aliased_shortfall_text(std::uint64_t layer_bytes, std::uint64_t own_bytes, std::uint32_t regions,
                                   const window_alias& alias) {
  for (const auto& [size, pages] : aliased_huge_pages(layer_bytes, own_bytes, regions, alias)) {
    if (pages == 0) continue;
    const std::uint64_t free = free_huge_pages(size);
    if (free >= pages) continue;
    std::string m = aliased_error_prefix() + "needs ";
    m += std::to_string(pages);
    m += " free " + page_size_text(size) + " huge pages (";
    m += byte_size_text(pages * size);
    m += "), the kernel has ";
    m += std::to_string(free);
    // The default size (2 MiB on x86-64) by sysctl; others only through their pool.
    m += size == (2ull << 20) ? " (reserve them: sysctl vm.nr_hugepages=" + std::to_string(pages) + ")"
                              : " (reserve them: echo " + std::to_string(pages) + " > " + huge_pool_dir(size) +
                                    "/nr_hugepages, best soon after boot, before memory fragments)";
    return m;
  }
  return {};
}

std::uint64_t window_file_bytes(const label_job& job) {
  check_window_job(job);
  const window_pages w = pages_of(job);
  return (w.cur.size() + w.prev.size()) * kPage;
}

void window_layer_store::map_file(region& r, const std::filesystem::path& dir, const std::vector<std::uint64_t>& pages,
                                  std::uint32_t layer, std::uint64_t seed) {
  std::string name = (dir / "poreplab-window-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  auto fail = [&](const std::string& what) {
    const int err = errno;
    std::string m = "window store: ";
    m += what;
    m += " ";
    m += name;
    m += ": ";
    m += std::strerror(err);
    if (fd >= 0) ::close(fd);
    throw std::runtime_error(m);
  };
  if (fd < 0) fail("cannot create");
  ::unlink(name.c_str());  // the mapping keeps it; nothing is left behind on any exit
  if (::ftruncate(fd, static_cast<off_t>(layer_bytes_)) != 0) fail("cannot size");
  // The pages are written with pwrite, whole: their blocks are reserved now (a full disk
  // fails this write, not as SIGBUS later), and no hole is ever read: a fault on a hole
  // would read around it and fill the page cache with zeros of the whole layer.
  std::vector<std::uint8_t> buf;
  for (std::size_t i = 0; i < pages.size();) {
    std::size_t j = i + 1;
    while (j < pages.size() && pages[j] == pages[j - 1] + 1 && j - i < 256) ++j;
    const std::uint64_t off = pages[i] * kPage;
    const std::uint64_t len = std::min(layer_bytes_, pages[j - 1] * kPage + kPage) - off;
    buf.resize(len);
    fill_window_elements(buf.data(), layer, seed, off, off + len);
    for (std::uint64_t done = 0; done < len;) {
      const ssize_t w = ::pwrite(fd, buf.data() + done, len - done, static_cast<off_t>(off + done));
      if (w <= 0) fail("cannot write");
      done += static_cast<std::uint64_t>(w);
    }
    i = j;
  }
  void* m = ::mmap(nullptr, layer_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) fail("cannot map");
  ::close(fd);
  r.map_bytes = layer_bytes_;
  // No read-around on a fault: the window reads scattered 4 KiB pages.
  ::madvise(m, layer_bytes_, MADV_RANDOM);
  r.map = m;
  r.data = static_cast<std::uint8_t*>(m);
  // Touched (mapped into this process) before anything is timed.
  volatile std::uint8_t sink = 0;
  for (const std::uint64_t p : pages) sink = static_cast<std::uint8_t>(sink ^ r.data[p * kPage]);
  (void)sink;
}

void window_layer_store::map_aliased(region& r, std::uint32_t layer, std::uint64_t seed, std::uint64_t page,
                                     std::uint64_t own_begin, std::uint64_t own_end,
                                     const std::vector<std::uint64_t>& touch) {
  const std::uint64_t span = round_up(layer_bytes_, page), period = alias_period_, own = own_end - own_begin;
  auto fail = [](const std::string& what) {
    std::string m = aliased_error_prefix();
    m += what;
    m += ": ";
    m += std::strerror(errno);
    throw std::runtime_error(m);
  };
  const int fd = page_memfd("poreplab-window", page);
  if (fd < 0) fail("cannot create its memory file");
  int own_fd = -1;
  auto close_files = [&] {
    ::close(fd);
    if (own_fd >= 0) ::close(own_fd);
  };
  // Every page allocated now: a shortfall is this error, not SIGBUS on a later fault.
  auto allocate = [&](int f, std::uint64_t bytes) {
    if (const int err = ::posix_fallocate(f, 0, static_cast<off_t>(bytes)); err != 0) {
      close_files();
      errno = err;
      fail("cannot allocate " + byte_size_text(bytes));
    }
  };
  allocate(fd, period);
  if (own > 0) {
    own_fd = page_memfd("poreplab-window-rows", alias_own_page(page));
    if (own_fd < 0) {
      close_files();
      fail("cannot create its memory file");
    }
    allocate(own_fd, own);
  }
  // Reserved whole, page-aligned, then mapped over: the period repeated, the window's own
  // rows last (they are written while timed; nothing else may alias them).
  void* res = ::mmap(nullptr, span + page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (res == MAP_FAILED) {
    close_files();
    fail("cannot reserve " + byte_size_text(span));
  }
  r.map = res;
  r.map_bytes = span + page;
  std::uint8_t* base = reinterpret_cast<std::uint8_t*>(round_up(reinterpret_cast<std::uintptr_t>(res), page));
  auto map_at = [&](std::uint64_t at, std::uint64_t len, int f) {
    if (::mmap(base + at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, f, 0) == MAP_FAILED) {
      const int err = errno;
      close_files();
      ::munmap(r.map, r.map_bytes);
      r.map = nullptr;
      errno = err;
      fail("cannot map");
    }
  };
  for (std::uint64_t at = 0; at < span; at += period) map_at(at, std::min(period, span - at), fd);
  fill_parallel(base, layer, seed, 0, period);
  if (own > 0) {
    map_at(own_begin, own, own_fd);
    fill_parallel(base + own_begin, layer, seed, own_begin, own_end);
  }
  close_files();
  r.data = base;
  // Each page the window reads mapped into this process before anything is timed.
  volatile std::uint8_t sink = 0;
  for (const std::uint64_t p : touch) sink = static_cast<std::uint8_t>(sink ^ r.data[p * kPage]);
  (void)sink;
  bytes_filled_ += period + own;
}

window_layer_store::window_layer_store(const label_job& job, window_backing how, const std::filesystem::path& dir,
                                       std::uint64_t seed, const window_alias& alias)
    : layer_(job.layers) {
  check_window_job(job);
  layer_bytes_ = checked_mul(checked_mul(job.nodes, job.sectors, "window layer"), 32, "window layer");
  const std::uint32_t regions = job.layers > 1 ? 2 : 1;
  const std::uint64_t ram_need = checked_mul(layer_bytes_, regions, "window layers");
  if (how == window_backing::automatic)
    how = memory_shortfall_text(ram_need).empty() ? window_backing::ram : window_backing::mmap_file;
  backing_ = how;
  if (how == window_backing::ram) {
    require_memory(ram_need, "window layers in RAM");
    cur_.ram = huge_buffer(layer_bytes_);
    cur_.data = cur_.ram.data();
    if (regions == 2) {
      prev_.ram = huge_buffer(layer_bytes_);
      prev_.data = prev_.ram.data();
    }
    const std::uint64_t chunks = (layer_bytes_ + (1u << 20) - 1) >> 20;
    for (region* r : {&cur_, &prev_}) {
      if (r->data == nullptr) continue;
      const std::uint32_t l = r == &cur_ ? layer_ : layer_ - 1;
      std::uint8_t* base = r->data;
      const std::uint64_t total = layer_bytes_;
#pragma omp parallel for schedule(static)
      for (std::int64_t c = 0; c < static_cast<std::int64_t>(chunks); ++c) {
        const std::uint64_t b = static_cast<std::uint64_t>(c) << 20;
        fill_window_elements(base + b, l, seed, b, std::min(total, b + (1u << 20)));
      }
    }
    bytes_filled_ = layer_bytes_ * regions;
    pages_filled_ = bytes_filled_ / kPage;
    return;
  }
  if (how == window_backing::aliased) {
    const std::uint64_t page = alias.page;
    if (!is_alias_page(page))
      throw std::invalid_argument(aliased_error_prefix() + "pages of " + byte_size_text(page) + " are not one of " +
                                  alias_pages_text());
    alias_page_ = page;
    if (alias.period == 0) throw std::invalid_argument(aliased_error_prefix() + "the alias period is 0 bytes");
    alias_period_ = std::min(round_up(alias.period, page), round_up(layer_bytes_, page));
    const std::uint64_t stride = 32ull * job.sectors;
    const std::uint64_t own_begin = job.first_node * stride / page * page;
    const std::uint64_t own_end = std::min(round_up(job.node_end() * stride, page), round_up(layer_bytes_, page));
    const std::uint64_t need = alias_period_ * regions + (own_end - own_begin);
    if (hugetlb(page)) {
      if (auto m = aliased_shortfall_text(layer_bytes_, own_end - own_begin, regions, alias); !m.empty())
        throw std::runtime_error(m);
    } else {
      require_memory(need, "aliased window layers");
    }
    const window_pages w = pages_of(job);
    map_aliased(cur_, layer_, seed, page, own_begin, own_end, w.cur);
    if (regions == 2) {
      try {
        map_aliased(prev_, layer_ - 1, seed, page, 0, 0, w.prev);
      } catch (...) {
        ::munmap(cur_.map, cur_.map_bytes);
        throw;
      }
    }
    pages_filled_ = bytes_filled_ / kPage;
    return;
  }
  const window_pages w = pages_of(job);
  const std::uint64_t file_bytes = (w.cur.size() + w.prev.size()) * kPage;
  // The filled pages stay in the page cache while timed: they must fit in memory, and
  // their blocks on disk.
  require_memory(file_bytes, "window pages in the page cache");
  if (const std::uint64_t free = free_disk_bytes(dir); free < file_bytes + (1ull << 30)) {
    std::string m = "window store: ";
    m += dir.string();
    m += " has ";
    m += byte_size_text(free);
    m += " free; the window's pages need ";
    m += byte_size_text(file_bytes);
    m += " plus 1 GiB spare";
    throw std::runtime_error(m);
  }
  map_file(cur_, dir, w.cur, layer_, seed);
  if (regions == 2) {
    try {
      map_file(prev_, dir, w.prev, layer_ - 1, seed);
    } catch (...) {
      ::munmap(cur_.map, cur_.map_bytes);
      throw;
    }
  }
  pages_filled_ = w.cur.size() + w.prev.size();
  bytes_filled_ = file_bytes;
}

window_layer_store::~window_layer_store() {
  for (region* r : {&cur_, &prev_})
    if (r->map != nullptr) ::munmap(r->map, r->map_bytes);
}

std::uint8_t* window_layer_store::layer(std::uint32_t l) {
  if (l == layer_) return cur_.data;
  if (l + 1 == layer_ && prev_.data != nullptr) return prev_.data;
  throw std::logic_error("window store: layer " + std::to_string(l) + " is not held (only the window's layer " +
                         std::to_string(layer_) + " and the one before it)");
}

std::uint64_t window_layer_store::resident_bytes() const {
  // Aliased memory is all resident (filled whole; huge pages are never swapped), and
  // mincore over its span would count each physical page once per alias.
  if (backing_ == window_backing::aliased) return bytes_filled_;
  std::uint64_t total = 0;
  const long page = ::sysconf(_SC_PAGESIZE);
  const std::uint64_t ps = page > 0 ? static_cast<std::uint64_t>(page) : kPage;
  std::vector<unsigned char> vec;
  for (const region* r : {&cur_, &prev_}) {
    if (r->data == nullptr) continue;
    const std::uint64_t n = (layer_bytes_ + ps - 1) / ps;
    // In slices: one vector entry per page of a 64 GiB layer would itself be 16 MiB.
    constexpr std::uint64_t kSlice = 1ull << 20;
    vec.resize(kSlice);
    for (std::uint64_t p = 0; p < n; p += kSlice) {
      const std::uint64_t count = std::min(kSlice, n - p);
      if (::mincore(r->data + p * ps, std::min(layer_bytes_ - p * ps, count * ps), vec.data()) != 0) return 0;
      for (std::uint64_t i = 0; i < count; ++i) total += (vec[i] & 1) * ps;
    }
  }
  return total;
}

}  // namespace poreplab::sdr
