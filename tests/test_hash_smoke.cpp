#include <catch2/catch.hpp>

#include "poreplab/hash/algo.hpp"
#include "poreplab/hex.hpp"

TEST_CASE("sha256 abc", "[hash]") {
  CHECK(poreplab::to_hex(poreplab::hash_bytes(poreplab::hash_algo::sha256, "abc", 3)) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
