#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

int main(int argc, char* argv[]) {
  // The machine key of seals (machine_key.hpp) in a directory of the tests' own, not the
  // user's: every seal the tests run, and the poreplab processes they start, use it.
  if (std::getenv("POREPLAB_STATE_DIR") == nullptr) {
    const std::string dir = (std::filesystem::temp_directory_path() / "poreplab-test-state").string();
    setenv("POREPLAB_STATE_DIR", dir.c_str(), 0);
  }
  return Catch::Session().run(argc, argv);
}
