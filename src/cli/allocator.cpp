// Linked into the condlint executable and the benchmarks when mimalloc is available (never into sanitizer or
// fuzz builds, which bring their own allocator). A lint builds millions of small objects (ports, dims, names,
// protobuf messages) and frees them once; mimalloc's free lists and large OS pages (transparent huge pages
// where the kernel offers them by madvise) cut the allocator and page-fault share of a big lint by about a
// third (figures in bench/README.md). Setting CONDLINT_SYSTEM_MALLOC=1 keeps mimalloc's small-page default.
#include <cstdlib>

#include <mimalloc.h>

namespace {

[[gnu::constructor(101)]] void condlint_tune_allocator() {
  if (const char* e = std::getenv("CONDLINT_SYSTEM_MALLOC"); e && *e && *e != '0') return;
  // Segments mimalloc maps from now on ask for huge pages: far fewer page faults on a 400 MB lint.
  if (!std::getenv("MIMALLOC_LARGE_OS_PAGES")) mi_option_enable(mi_option_large_os_pages);
}

}  // namespace
