#include "io/output.hpp"

#include "io/cleanup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <mutex>
#include <streambuf>

namespace condlint::io {

namespace {

constexpr const char* kTempMark = ".condlint-tmp-";

std::string reason(int err) { return std::strerror(err); }

// ---- The temporaries a signal must not leave behind ----
// A fixed table of C strings, so the handler only reads atomics and calls unlink (both async-signal-safe).
constexpr size_t kSlots = 256;
std::array<std::atomic<char*>, kSlots> g_temps{};

void on_signal(int sig) {
  unlink_open_temporaries();
  release_for_exit();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

void install_signal_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;  // someone else's: kept
      struct sigaction sa {};
      sa.sa_handler = on_signal;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

namespace {

// The slot holding `path`, or kSlots when the table is full (the temporary is then only removed on normal exits).
size_t register_temp(const std::string& path) {
  install_signal_cleanup();
  char* copy = ::strdup(path.c_str());
  if (!copy) return kSlots;
  for (size_t i = 0; i < kSlots; ++i) {
    char* expected = nullptr;
    if (g_temps[i].compare_exchange_strong(expected, copy)) return i;
  }
  std::free(copy);
  return kSlots;
}

void unregister_temp(size_t slot) {
  if (slot >= kSlots) return;
  std::free(g_temps[slot].exchange(nullptr));
}

// ---- A stream over a file descriptor that remembers the first error ----
class FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd) { setp(buf_.data(), buf_.data() + buf_.size()); }
  int error() const { return error_; }
  // Writes what is buffered; false (error() set) when it could not.
  bool drain() {
    const char* p = pbase();
    size_t n = static_cast<size_t>(pptr() - pbase());
    while (n > 0 && error_ == 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
      } else if (w == 0) {
        error_ = EIO;
      } else {
        p += w;
        n -= static_cast<size_t>(w);
      }
    }
    setp(buf_.data(), buf_.data() + buf_.size());
    return error_ == 0;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::streamsize done = 0;
    while (done < n) {
      if (pptr() == epptr() && !drain()) return done;
      const std::streamsize room = epptr() - pptr();
      const std::streamsize take = std::min(room, n - done);
      std::memcpy(pptr(), s + done, static_cast<size_t>(take));
      pbump(static_cast<int>(take));
      done += take;
    }
    return done;
  }

 private:
  int fd_;
  int error_ = 0;
  std::array<char, 1 << 16> buf_{};
};

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The file a path leads to after its links (so a report written through a link replaces the linked file, not the
// link), also when that file does not exist yet: its directory made absolute and canonical, its name as the last
// link names it. At most 40 links are followed, as the kernel does.
std::string through_links(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) break;
    std::string target(static_cast<size_t>(st.st_size > 0 ? st.st_size : 4096), '\0');
    const ssize_t n = ::readlink(p.c_str(), target.data(), target.size());
    if (n <= 0) break;
    target.resize(static_cast<size_t>(n));
    p = target[0] == '/' ? target : dir_of(p) + "/" + target;
  }
  char* dir = ::realpath(dir_of(p).c_str(), nullptr);
  if (!dir) return p;
  std::string out(dir);
  std::free(dir);
  return (out == "/" ? out : out + "/") + base_of(p);
}

}  // namespace

void unlink_open_temporaries() noexcept {
  for (auto& slot : g_temps)
    if (char* p = slot.load()) ::unlink(p);
}

std::optional<FileId> file_id(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

void InputFiles::add(const std::string& path, const std::string& what) {
  if (auto id = file_id(path)) files_.push_back({*id, {path, what}});
}

const std::pair<std::string, std::string>* InputFiles::find(const std::string& path) const {
  const auto id = file_id(path);
  if (!id) return nullptr;
  for (const auto& [fid, input] : files_)
    if (fid == *id) return &input;
  return nullptr;
}

std::string check_outputs(const std::vector<OutputTarget>& outputs, const InputFiles& inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputTarget& o = outputs[i];
    if (o.path.empty()) continue;
    struct stat st {};
    const bool exists = ::stat(o.path.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) return "cannot write " + o.what + " to " + o.path + ": it is a directory";
    // Devices and pipes are written in place and read nothing back: /dev/null may take every report.
    const bool in_place = exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
    if (exists && !in_place)
      if (const auto* in = inputs.find(o.path))
        return "refusing to write " + o.what + " to " + o.path + ": it is " + in->second + " this command reads (" +
               in->first + ")";
    for (size_t j = 0; j < i; ++j) {
      const OutputTarget& p = outputs[j];
      if (p.path.empty() || in_place) continue;
      const auto a = file_id(o.path), b = file_id(p.path);
      const bool same = (a && b) ? *a == *b : through_links(o.path) == through_links(p.path);
      if (same)
        return "refusing to write " + o.what + " and " + p.what + " to one file, " + o.path +
               ": one would replace the other";
    }
  }
  return "";
}

struct OutputFile::State {
  std::string target;  // the file that commit() replaces
  std::string temp;    // the temporary written ("" when writing in place)
  int fd = -1;
  size_t slot = kSlots;
  std::unique_ptr<FdBuf> buf;
  std::unique_ptr<std::ostream> os;
  bool committed = false;
  bool durable = true;

  void discard() {
    if (fd >= 0) ::close(fd);
    fd = -1;
    if (!temp.empty() && !committed) ::unlink(temp.c_str());
    unregister_temp(slot);
    slot = kSlots;
  }
};

OutputFile::OutputFile() = default;
OutputFile::~OutputFile() {
  if (s_) s_->discard();
}

bool OutputFile::open(const std::string& path, std::string& error, bool follow_links, bool durable) {
  if (s_) s_->discard();
  s_ = std::make_unique<State>();
  State& s = *s_;
  s.target = follow_links ? through_links(path) : path;
  s.durable = durable;
  struct stat st {};
  if (follow_links && ::stat(s.target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      error = "it is a directory";
      return false;
    }
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      s.fd = ::open(s.target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (s.fd < 0) {
        error = reason(errno);
        return false;
      }
    }
  }
  if (s.fd < 0) {
    static std::atomic<unsigned> counter{0};
    std::string base = base_of(s.target);
    if (base.size() > 100) base.resize(100);  // the temporary's name stays within NAME_MAX
    const std::string dir = dir_of(s.target);
    for (int attempt = 0; attempt < 100 && s.fd < 0; ++attempt) {
      char tail[64];
      std::snprintf(tail, sizeof tail, "%ld-%u-%lx", static_cast<long>(::getpid()), counter++,
                    static_cast<unsigned long>(std::rand()) ^ static_cast<unsigned long>(std::time(nullptr)));
      s.temp = dir + "/." + base + kTempMark + tail;
      s.fd = ::open(s.temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
      if (s.fd < 0 && errno != EEXIST) break;
    }
    if (s.fd < 0) {
      error = reason(errno);
      s.temp.clear();
      return false;
    }
    s.slot = register_temp(s.temp);
    // A file replaced keeps its permissions (and, where condlint may, its owner): `fix --in-place` on a 0600 model
    // leaves a 0600 model.
    struct stat old {};
    if (::stat(s.target.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
      (void)::fchmod(s.fd, old.st_mode & 07777);
      if (old.st_uid != ::geteuid() || old.st_gid != ::getegid()) (void)::fchown(s.fd, old.st_uid, old.st_gid);
    }
  }
  s.buf = std::make_unique<FdBuf>(s.fd);
  s.os = std::make_unique<std::ostream>(s.buf.get());
  return true;
}

std::ostream& OutputFile::stream() { return *s_->os; }

bool OutputFile::commit(std::string& error) {
  State& s = *s_;
  s.os->flush();
  int err = s.buf->drain() ? 0 : s.buf->error();
  if (err == 0 && s.durable && !s.temp.empty() && ::fsync(s.fd) != 0 && errno != EINVAL) err = errno;
  const int fd = s.fd;
  s.fd = -1;
  if (::close(fd) != 0 && err == 0 && errno != EINTR) err = errno;
  if (err == 0 && !s.temp.empty() && ::rename(s.temp.c_str(), s.target.c_str()) != 0) err = errno;
  if (err != 0) {
    error = reason(err);
    s.discard();
    return false;
  }
  s.committed = true;
  s.discard();
  return true;
}

std::string write_file(const std::string& path, const std::string& what,
                       const std::function<void(std::ostream&)>& writer) {
  OutputFile f;
  std::string err;
  if (!f.open(path, err)) return "cannot write " + what + " to " + path + ": " + err;
  writer(f.stream());
  if (!f.commit(err)) return "cannot write " + what + " to " + path + ": " + err;
  return "";
}

std::string write_stdout(const std::string& what, const std::function<void(std::ostream&)>& writer) {
  writer(std::cout);
  errno = 0;
  std::cout.flush();
  const int err = errno;
  if (std::cout.fail() || std::fflush(stdout) != 0) {
    const int e = err != 0 ? err : (errno != 0 ? errno : EIO);
    std::cout.clear();
    return "cannot write " + what + " to standard output: " + reason(e);
  }
  return "";
}

std::string write_output(const std::string& path, const std::string& what,
                         const std::function<void(std::ostream&)>& writer) {
  return path.empty() ? write_stdout(what, writer) : write_file(path, what, writer);
}

void sweep_stale_temporaries(const std::string& dir, int older_than_seconds, const std::string& also_prefix) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  const time_t now = std::time(nullptr);
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    const bool ours = !name.empty() && name[0] == '.' && name.find(kTempMark) != std::string::npos;
    if (!ours && (also_prefix.empty() || name.rfind(also_prefix, 0) != 0)) continue;
    const std::string path = dir + "/" + name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) continue;
    if (now - st.st_mtime > older_than_seconds) ::unlink(path.c_str());
  }
  ::closedir(d);
}

}  // namespace condlint::io
