#include "io/mapped_file.hpp"

#include "io/cleanup.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "io/output.hpp"

namespace condlint::io {

namespace {

// ---- A file that shrinks while it is mapped ----
// Reading a page of a mapping past the file's end raises SIGBUS. When the address is inside a mapping of this table,
// the handler says which file changed and ends the process with exit code 2 (an I/O error), removing the report
// temporaries as the other signal handlers do; any other SIGBUS gets the action it had before. The table is fixed
// and its fields atomic, so the handler reads it without locks: a region is published end first, then its start,
// and withdrawn start first.
struct Region {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<char*> message{nullptr};
};
constexpr size_t kRegions = 256;
std::array<Region, kRegions> g_regions;
struct sigaction g_previous_bus {};

void on_sigbus(int sig, siginfo_t* info, void* context) {
  const auto at = reinterpret_cast<uintptr_t>(info ? info->si_addr : nullptr);
  for (auto& r : g_regions) {
    const uintptr_t begin = r.begin.load();
    if (begin == 0 || at < begin || at >= r.end.load()) continue;
    if (const char* m = r.message.load()) {
      size_t n = 0;
      while (m[n]) ++n;
      (void)!::write(STDERR_FILENO, m, n);
    }
    unlink_open_temporaries();
    release_for_exit();
    ::_exit(2);
  }
  // Not a mapped model's: as if this handler were not there. A fault retries its access under the action restored
  // here when the handler returns; a signal another process or raise() sent is sent again (it is blocked until then).
  ::sigaction(sig, &g_previous_bus, nullptr);
  if ((g_previous_bus.sa_flags & SA_SIGINFO) && g_previous_bus.sa_sigaction)
    g_previous_bus.sa_sigaction(sig, info, context);
  else if (!(g_previous_bus.sa_flags & SA_SIGINFO) && g_previous_bus.sa_handler != SIG_DFL &&
           g_previous_bus.sa_handler != SIG_IGN)
    g_previous_bus.sa_handler(sig);
  else if (!info || info->si_code <= 0) ::raise(sig);
}

void install_bus_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGBUS, &sa, &g_previous_bus);
  });
}

// What the handler prints for `path`: control bytes shown as '?', the name cut at 512 bytes.
char* shrink_message(const std::string& path) {
  std::string shown;
  for (char c : path.substr(0, 512)) shown += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
  if (path.size() > 512) shown += "...";
  const std::string m = "condlint: " + shown +
                        ": the file became shorter while it was read (another process truncated or rewrote it); "
                        "nothing more is reported\n";
  return ::strdup(m.c_str());
}

// The slot of the region registered, or kRegions when the table is full (a shrinking file then ends the process
// with the signal, as without the guard).
size_t register_region(const char* data, size_t size, const std::string& path) {
  install_bus_handler();
  char* message = shrink_message(path);
  for (size_t i = 0; i < kRegions; ++i) {
    char* expected = nullptr;
    if (!g_regions[i].message.compare_exchange_strong(expected, message ? message : const_cast<char*>(""))) continue;
    g_regions[i].end.store(reinterpret_cast<uintptr_t>(data) + size);
    g_regions[i].begin.store(reinterpret_cast<uintptr_t>(data));
    return i;
  }
  std::free(message);
  return kRegions;
}

void unregister_region(size_t slot) {
  if (slot >= kRegions) return;
  Region& r = g_regions[slot];
  r.begin.store(0);
  r.end.store(0);
  char* m = r.message.exchange(nullptr);
  if (m && *m) std::free(m);
}

}  // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path, std::string& err) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    err = std::string("cannot open: ") + std::strerror(errno);
    return nullptr;
  }
  struct CloseFd {
    int fd;
    ~CloseFd() { ::close(fd); }
  } close_fd{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    err = std::string("cannot read its status: ") + std::strerror(errno);
    return nullptr;
  }
  if (S_ISDIR(st.st_mode)) {
    err = "is a directory";
    return nullptr;
  }
  if (!S_ISREG(st.st_mode)) {
    err = "not a regular file (a FIFO, a device or a socket)";
    return nullptr;
  }
  std::shared_ptr<MappedFile> m(new MappedFile());
  if (st.st_size == 0) return m;
  const size_t size = static_cast<size_t>(st.st_size);
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) {
    err = std::string("cannot map: ") + std::strerror(errno);
    return nullptr;
  }
  m->data_ = static_cast<const char*>(p);
  m->size_ = size;
  m->mapped_ = true;
  m->guard_slot_ = register_region(m->data_, size, path);
  return m;
}

std::shared_ptr<const MappedFile> MappedFile::from_bytes(std::string bytes) {
  std::shared_ptr<MappedFile> m(new MappedFile());
  m->owned_ = std::move(bytes);
  m->data_ = m->owned_.data();
  m->size_ = m->owned_.size();
  return m;
}

MappedFile::~MappedFile() {
  if (!mapped_) return;
  unregister_region(guard_slot_);
  ::munmap(const_cast<char*>(data_), size_);
}

void MappedFile::release(size_t offset, size_t length) const {
  if (!mapped_ || offset >= size_) return;
  const long page_l = ::sysconf(_SC_PAGESIZE);
  const size_t page = page_l > 0 ? static_cast<size_t>(page_l) : 4096;
  const size_t end = length > size_ - offset ? size_ : offset + length;
  const size_t from = (offset + page - 1) / page * page;
  const size_t to = end == size_ ? (end + page - 1) / page * page : end / page * page;
  if (to <= from) return;
  (void)::madvise(const_cast<char*>(data_) + from, to - from, MADV_DONTNEED);
}

}  // namespace condlint::io
