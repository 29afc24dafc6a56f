#include "poreplab/graph/known_parent_caches.hpp"

#include "poreplab/byte_units.hpp"

namespace poreplab::graph {

namespace {

// rust-fil-proofs' parent-cache manifest (parent_cache.json), sorted by name.
constexpr known_parent_cache kKnown[] = {
    {"v28-sdr-parent-21981246c370f9d76c7a77ab273d94bde0ceb4e938292334960bce05585dc117", 32 * kGiB,
     "93deeac5e3052b6927467d4b2641bb782f05491de18d510147c93eeedd8672da"},
    {"v28-sdr-parent-2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42", 512 * kMiB,
     "3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5"},
    {"v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899", 2 * kKiB,
     "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d"},
    {"v28-sdr-parent-4905486b7af19558ac3649bc6261411858b6add534438878c4ee3b29d8b9de0b", 64 * kGiB,
     "2698b74eb2606b55b98d8b095e18b6320b47f46e00075956d48640ccd1641b03"},
    {"v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b", 2 * kKiB,
     "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97"},
    {"v28-sdr-parent-5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5", 8 * kMiB,
     "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab"},
    {"v28-sdr-parent-7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34", 512 * kMiB,
     "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a"},
    {"v28-sdr-parent-8a99e8d6b6be7ab87a56b632e6739ff201c23ea14e99737c74690f0e265574d6", 64 * kGiB,
     "2778a732ad46a7dc18e0564dfdf59fd321dcde74ab476fd6d3c4e6735d7cd89c"},
    {"v28-sdr-parent-dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc", 8 * kMiB,
     "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce"},
    {"v28-sdr-parent-e1fa5d5b811ddbd118be3412c4a8c329156b8b8acc72632bca459455b5a05a13", 32 * kGiB,
     "3c4f9841fcc75aed8c695800e58d08480629f25af3a2aefd81904181d75cc0b6"},
};

}  // namespace

std::span<const known_parent_cache> known_parent_caches() { return kKnown; }

const known_parent_cache* find_known_parent_cache(std::string_view file_name) {
  if (file_name.ends_with(".cache")) file_name.remove_suffix(6);
  for (const auto& k : kKnown)
    if (k.name == file_name) return &k;
  return nullptr;
}

}  // namespace poreplab::graph
