// Where the checkout and the poreplab binary under test are: compiled into this unit only
// (tests/CMakeLists.txt), read by every test through support.hpp.
#include "support.hpp"

namespace poreplab::test {

const char* source_dir() { return POREPLAB_TESTS_SOURCE_DIR; }
const char* binary_path() { return POREPLAB_TESTS_BINARY; }

}  // namespace poreplab::test
