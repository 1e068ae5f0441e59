// The two absolute paths the tests need, compiled into this file only (CMakeLists.txt): every other test file
// then compiles the same in any checkout, so ccache hits across clones.
#include "tests/test_support.hpp"

#include <cstdlib>
#include <mutex>
#include <set>

namespace condlint::test {

std::filesystem::path source_dir() { return CONDLINT_SOURCE_DIR; }
const char* condlint_binary() { return CONDLINT_BINARY; }

namespace {
std::mutex g_dirs_mutex;
std::set<std::filesystem::path>* g_dirs = nullptr;  // never destroyed: read by the atexit handler

void remove_dirs() {
  const std::lock_guard<std::mutex> lock(g_dirs_mutex);
  std::error_code ec;
  for (const auto& d : *g_dirs) std::filesystem::remove_all(d, ec);
}
}  // namespace

void remove_at_exit(const std::filesystem::path& dir) {
  const std::lock_guard<std::mutex> lock(g_dirs_mutex);
  if (!g_dirs) {
    g_dirs = new std::set<std::filesystem::path>;
    std::atexit(remove_dirs);
  }
  g_dirs->insert(dir);
}

}  // namespace condlint::test
