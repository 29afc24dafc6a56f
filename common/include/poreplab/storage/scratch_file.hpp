#pragma once
// Files that hold measurement data on a real disk and never outlive the process: created
// in a directory with no name pointing at them (O_TMPFILE, else created and unlinked at
// once), so nothing is left behind on any exit, and opened with O_DIRECT where asked, so
// the page cache neither answers their reads nor holds their writes.
#include <cstdint>
#include <filesystem>

#include "poreplab/file_io.hpp"

namespace poreplab::storage {

// The block every O_DIRECT offset, length and buffer address is a multiple of here.
inline constexpr std::uint64_t kDirectAlign = 4096;

// A nameless read-write file in `dir`. Throws std::runtime_error naming dir and the reason
// (not a directory, not writable, O_DIRECT refused by its filesystem).
unique_fd open_scratch_file(const std::filesystem::path& dir, bool direct);

}  // namespace poreplab::storage
