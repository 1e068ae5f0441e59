// Folders and child process groups a signal must not leave behind: cleanup.hpp.
#include "io/cleanup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "io/output.hpp"

namespace condlint::io {

namespace {

constexpr size_t kSlots = 64;
std::array<std::atomic<char*>, kSlots> g_dirs{};
std::array<std::atomic<pid_t>, kSlots> g_groups{};

// The folders condlint makes hold a few levels (a model's view, its external data's subfolders); deeper ones are
// left, as the file system's own limits on a handler's stack are.
constexpr int kMaxDepth = 12;

// linux_dirent64, as getdents64 fills it.
struct Dirent64 {
  ino64_t d_ino;
  off64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

// Removes everything under the open folder `fd` (then closes it): openat, getdents64, unlinkat, close only.
void remove_under(int fd, int depth) noexcept {
  alignas(8) char buf[2048];
  for (;;) {
    const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
    if (n <= 0) break;
    bool removed = false;
    for (long off = 0; off < n;) {
      const auto* d = reinterpret_cast<const Dirent64*>(buf + off);
      off += d->d_reclen;
      const char* name = d->d_name;
      if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
      if (d->d_type == DT_DIR && depth < kMaxDepth) {
        const int sub = ::openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0) remove_under(sub, depth + 1);
        if (::unlinkat(fd, name, AT_REMOVEDIR) == 0) removed = true;
      } else if (::unlinkat(fd, name, 0) == 0) {
        removed = true;
      }
    }
    // Entries were removed while the folder was read: read it again from the start for what is left.
    if (removed) ::lseek(fd, 0, SEEK_SET);
  }
  ::close(fd);
}

template <typename T, typename V>
int take_slot(std::array<std::atomic<T>, kSlots>& table, V value) {
  for (size_t i = 0; i < kSlots; ++i) {
    T expected{};
    if (table[i].compare_exchange_strong(expected, value)) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

CleanupSlot::~CleanupSlot() {
  if (slot_ < 0) return;
  if (kind_ == 1) std::free(g_dirs[static_cast<size_t>(slot_)].exchange(nullptr));
  else g_groups[static_cast<size_t>(slot_)].store(0);
}

CleanupSlot::CleanupSlot(CleanupSlot&& o) noexcept : kind_(o.kind_), slot_(o.slot_) { o.slot_ = -1; }

CleanupSlot& CleanupSlot::operator=(CleanupSlot&& o) noexcept {
  if (this != &o) {
    this->~CleanupSlot();
    kind_ = o.kind_;
    slot_ = o.slot_;
    o.slot_ = -1;
  }
  return *this;
}

CleanupSlot register_temp_dir(const std::string& path) {
  install_signal_cleanup();
  CleanupSlot s;
  s.kind_ = 1;
  char* copy = ::strdup(path.c_str());
  if (!copy) return s;
  s.slot_ = take_slot(g_dirs, copy);
  if (s.slot_ < 0) std::free(copy);
  return s;
}

CleanupSlot register_child_group(pid_t pgid) {
  install_signal_cleanup();
  CleanupSlot s;
  s.kind_ = 2;
  if (pgid > 0) s.slot_ = take_slot(g_groups, pgid);
  return s;
}

void release_for_exit() noexcept {
  for (auto& g : g_groups)
    if (const pid_t p = g.load(); p > 0) ::kill(-p, SIGKILL);
  for (auto& d : g_dirs)
    if (const char* p = d.load()) {
      const int fd = ::open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd >= 0) remove_under(fd, 0);
      ::rmdir(p);
    }
}

}  // namespace condlint::io
