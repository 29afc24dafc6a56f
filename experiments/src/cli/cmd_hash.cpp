// `poreplab hash`: sha256sum-style digests of files or standard input.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <vector>

#include "cli/cli.hpp"
#include "poreplab/hash/algo.hpp"
#include "poreplab/hex.hpp"

namespace poreplab::cli {

namespace {

struct hash_options {
  std::string algo = "sha256";
  std::vector<std::string> inputs;
};

// Streams one input; returns false (after reporting) when it cannot be read.
bool hash_one(hash_algo algo, const std::string& name) {
  const bool is_stdin = name == "-";
  std::FILE* f = is_stdin ? stdin : std::fopen(name.c_str(), "rb");
  if (f == nullptr) {
    std::cerr << "poreplab: error: " << name << ": " << std::strerror(errno) << "\n";
    return false;
  }
  streaming_hash h(algo);
  std::vector<char> buf(1 << 20);
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) h.update(buf.data(), n);
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  if (!is_stdin) std::fclose(f);
  if (failed) {
    std::cerr << "poreplab: error: " << name << ": " << std::strerror(err) << "\n";
    return false;
  }
  const auto d = h.finish();
  std::cout << to_hex(d) << "  " << name << "\n";
  return true;
}

}  // namespace

void add_hash_command(CLI::App& app) {
  auto opt = std::make_shared<hash_options>();
  auto* cmd = app.add_subcommand("hash", "Print digests of files (or - for standard input), like sha256sum");
  cmd->add_option("--algo,-a", opt->algo, "sha256 | blake2s-256 | blake2b-256 | blake2b-512")
      ->capture_default_str();
  cmd->add_option("inputs", opt->inputs, "files to hash; none or - reads standard input");
  cmd->callback([opt] {
    const hash_algo algo = parse_hash_algo(opt->algo);
    auto inputs = opt->inputs;
    if (inputs.empty()) inputs.emplace_back("-");
    bool ok = true;
    for (const auto& in : inputs) ok = hash_one(algo, in) && ok;
    if (!ok) set_exit_status(1);
  });
}

}  // namespace poreplab::cli
