// libFuzzer target: the reference vector reader (seal/src/vector_file.cpp); a small
// vector that loads is also verified with the reference backend, so that verification
// never meets a value the loader let through but cannot compare. Anything but
// std::runtime_error escaping is a bug.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "poreplab/seal/vector_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto v = poreplab::seal::parse_sdr_vector(text, "fuzz.json");
    if (v.nodes <= 1024 && v.layers <= 4) {
      static const auto be = poreplab::sdr::make_reference_backend();
      (void)poreplab::seal::verify_vector(v, *be, [](const poreplab::seal::check_result&) {});
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
