// `poreplab selftest`: a quick check of every hash against published answers and
// against OpenSSL on random inputs, so a user can trust a build before timing it.
#include <iostream>
#include <random>

#include "cli/cli.hpp"
#include "poreplab/cpu/reference.hpp"
#include "poreplab/hash/algo.hpp"
#include "poreplab/hex.hpp"

namespace poreplab::cli {

void add_selftest_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("selftest", "Check every hash against known answers and OpenSSL");
  cmd->callback([] {
    int failures = 0;
    for (const auto& d : kDigests) {
      const bool ok = to_hex(hash_bytes(d.algo, "abc", 3)) == d.abc_hex;
      failures += !ok;
      std::cout << (ok ? "ok   " : "FAIL ") << d.name << " known answer (\"abc\")\n";
    }
    std::mt19937_64 rng(20261122);
    // Each family's full digest: OpenSSL's EVP has no other lengths (no 256-bit BLAKE2b).
    for (hash_family family : hash_families()) {
      const hash_algo algo = full_digest(family);
      int mismatches = 0;
      for (int i = 0; i < 200; ++i) {
        std::vector<std::uint8_t> msg(rng() % 5000);
        for (auto& b : msg) b = static_cast<std::uint8_t>(rng());
        mismatches += hash_bytes(algo, msg.data(), msg.size()) != cpu::openssl_digest(family, msg.data(), msg.size());
      }
      failures += mismatches != 0;
      std::cout << (mismatches == 0 ? "ok   " : "FAIL ") << hash_algo_name(algo)
                << " equals OpenSSL on 200 random inputs (0..4999 bytes)\n";
    }
    std::cout << (failures == 0 ? "selftest passed\n" : "selftest FAILED\n");
    if (failures != 0) set_exit_status(1);
  });
}

}  // namespace poreplab::cli
