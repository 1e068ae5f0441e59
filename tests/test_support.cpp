// The two absolute paths the tests need, compiled into this file only (CMakeLists.txt): every other test file
// then compiles the same in any checkout, so ccache hits across clones.
#include "tests/test_support.hpp"

namespace condlint::test {

std::filesystem::path source_dir() { return CONDLINT_SOURCE_DIR; }
const char* condlint_binary() { return CONDLINT_BINARY; }

}  // namespace condlint::test
