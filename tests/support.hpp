#pragma once
// Helpers shared by the test files: locating ../shared and reading its JSON files.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "poreplab/hex.hpp"
#include <stdexcept>
#include <string>
#include <vector>

namespace poreplab::test {

// ../shared beside the checkout, found from the environment (POREPLAB_SHARED_DIR), the
// source tree the tests were built from, or the working directory, so that tests run
// from the build directory and from the repository alike.
inline std::filesystem::path shared_dir() {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("POREPLAB_SHARED_DIR")) candidates.emplace_back(env);
  candidates.emplace_back(fs::path(POREPLAB_SOURCE_DIR) / ".." / "shared");
  candidates.emplace_back(fs::path(POREPLAB_SOURCE_DIR) / "shared");
  candidates.emplace_back(fs::current_path() / ".." / "shared");
  candidates.emplace_back(fs::current_path() / "shared");
  for (const auto& c : candidates)
    if (fs::is_directory(c / "kat") && fs::is_directory(c / "vectors")) return fs::canonical(c);
  throw std::runtime_error("cannot find the shared/ directory (set POREPLAB_SHARED_DIR)");
}

inline nlohmann::json load_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  if (!in) throw std::runtime_error("cannot open " + p.string());
  return nlohmann::json::parse(in);
}

}  // namespace poreplab::test
