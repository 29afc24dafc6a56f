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
    // Published digests of "abc" (FIPS 180-4 B.1, RFC 7693 appendices, BLAKE2 reference).
    const std::pair<hash_algo, const char*> known[] = {
        {hash_algo::sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {hash_algo::blake2s_256, "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982"},
        {hash_algo::blake2b_256, "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319"},
        {hash_algo::blake2b_512,
         "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8db"
         "f1925ab92386edd4009923"}};
    int failures = 0;
    for (const auto& [algo, hex] : known) {
      const bool ok = to_hex(hash_bytes(algo, "abc", 3)) == hex;
      failures += !ok;
      std::cout << (ok ? "ok   " : "FAIL ") << hash_algo_name(algo) << " known answer (\"abc\")\n";
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
