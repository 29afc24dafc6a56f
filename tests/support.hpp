#pragma once
// Helpers shared by the test files: locating the test data (tests/data) and reading its JSON files.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "poreplab/hex.hpp"
#include <stdexcept>
#include <string>
#include <vector>

namespace poreplab::test {

// tests/data of the source tree the tests were built from: reference vectors in vectors/,
// hash known-answer tests in kat/. POREPLAB_TEST_DATA names another copy (the GPU bundle
// carries the test binary away from its source tree).
inline std::filesystem::path data_dir() {
  namespace fs = std::filesystem;
  const char* env = std::getenv("POREPLAB_TEST_DATA");
  const fs::path dir = env != nullptr && *env != '\0' ? fs::path(env) : fs::path(POREPLAB_SOURCE_DIR) / "tests" / "data";
  if (!fs::is_directory(dir / "kat") || !fs::is_directory(dir / "vectors"))
    throw std::runtime_error("cannot find the test data in " + dir.string());
  return dir;
}

inline nlohmann::json load_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  if (!in) throw std::runtime_error("cannot open " + p.string());
  return nlohmann::json::parse(in);
}

}  // namespace poreplab::test
