#include "loaders/loader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <unordered_set>

#include "loaders/open_model.hpp"

namespace condlint {

namespace fs = std::filesystem;

std::optional<Format> format_from_name(const fs::path& p) {
  const std::string name = p.filename().string();
  auto ends_with = [&](std::string_view suf) {
    return name.size() >= suf.size() && name.compare(name.size() - suf.size(), suf.size(), suf) == 0;
  };
  if (ends_with(".nnapi.json")) return Format::NNAPI;
  if (ends_with(".onnx")) return Format::ONNX;
  if (ends_with(".xml")) return Format::IR;
  if (ends_with(".tflite")) return Format::TFLITE;
  return std::nullopt;
}

bool read_file(const std::string& path, std::string& out, std::string& err) {
  return read_file(path, out, err, UINT64_MAX);
}

bool read_file(const std::string& path, std::string& out, std::string& err, uint64_t max_bytes) {
  // Non-blocking open, then fstat of what was opened: a FIFO (with no writer, an open or a read would wait for
  // ever), a device or a socket is refused, also when it replaced the file after a check by name.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    err = std::string("cannot open: ") + std::strerror(errno);
    return false;
  }
  struct stat st {};
  bool ok = false;
  if (::fstat(fd, &st) != 0) {
    err = std::string("cannot read its status: ") + std::strerror(errno);
  } else if (S_ISDIR(st.st_mode)) {
    err = "is a directory";
  } else if (!S_ISREG(st.st_mode)) {
    err = "not a regular file (a FIFO, a device or a socket)";
  } else if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    err = "the file has " + std::to_string(st.st_size) + " bytes, more than its limit of " + std::to_string(max_bytes);
  } else {
    out.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < out.size()) {
      const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    ok = got == out.size();
    if (!ok) err = "read failed";
  }
  ::close(fd);
  return ok;
}

uint64_t max_model_file_bytes() {
  uint64_t mb = kDefaultMaxFileMB;
  if (const char* e = std::getenv("CONDLINT_MAX_FILE_MB"); e && *e) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(e, &end, 10);
    if (end && *end == '\0' && v > 0 && v <= (UINT64_MAX >> 20)) mb = v;
  }
  return mb << 20;
}

std::string file_too_large(uint64_t size) {
  const uint64_t cap = max_model_file_bytes();
  if (size <= cap) return {};
  return "the file has " + std::to_string(size) + " bytes, more than condlint reads into memory (" +
         std::to_string(cap >> 20) + " MiB; set CONDLINT_MAX_FILE_MB to raise the limit)";
}

namespace {
std::atomic<bool> g_skip_teardown{false};
}
void skip_loader_teardown(bool skip) { g_skip_teardown.store(skip); }
bool loader_teardown_skipped() { return g_skip_teardown.load(); }

LineIndex::LineIndex(std::string_view text) : size_(text.size()) {
  starts_.push_back(0);
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    if (!nl) break;
    p = static_cast<const char*>(nl) + 1;
    starts_.push_back(static_cast<size_t>(p - text.data()));
  }
}

void LineIndex::locate(int64_t offset, int& line, int& column, size_t& hint) const {
  if (offset < 0) {
    line = column = 0;
    return;
  }
  const size_t off = std::min(static_cast<size_t>(offset), size_);
  // From the last answer: loaders ask mostly in document order, with jumps back to an earlier body or port map.
  // Galloping away from it finds a line d lines off in about 2 log d steps instead of a search of the file.
  size_t lo, hi;  // starts_[lo] <= off < starts_[hi] (hi may be the end)
  const size_t n = starts_.size();
  size_t idx = std::min(hint, n - 1);
  if (off >= starts_[idx]) {
    lo = idx;
    size_t step = 1;
    hi = lo + 1;
    while (hi < n && starts_[hi] <= off) {
      lo = hi;
      hi = lo + step;
      step *= 2;
    }
    hi = std::min(hi, n);
  } else {
    hi = idx;
    size_t step = 1;
    lo = hi >= step ? hi - step : 0;
    while (lo > 0 && starts_[lo] > off) {
      hi = lo;
      step *= 2;
      lo = hi >= step ? hi - step : 0;
    }
  }
  // starts_[0] == 0 <= off, so lo is a line that starts at or before off.
  auto it = std::upper_bound(starts_.begin() + static_cast<std::ptrdiff_t>(lo),
                             starts_.begin() + static_cast<std::ptrdiff_t>(hi), off);
  idx = static_cast<size_t>(it - starts_.begin()) - 1;
  hint = idx;
  line = static_cast<int>(idx + 1);
  column = static_cast<int>(off - starts_[idx] + 1);
}

static bool xml_root_is_net(const fs::path& p) {
  // The first 4 KiB, with one open and one read: a walk over a zoo looks at every .xml.
  char buf[4096];
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  const ssize_t got = ::read(fd, buf, sizeof buf);
  ::close(fd);
  if (got <= 0) return false;
  return xml_root_is_net(std::string_view(buf, static_cast<size_t>(got)));
}

Collected collect_inputs(const std::vector<std::string>& paths) {
  Collected c;
  for (const auto& p : paths) {
    std::error_code ec;
    const auto st = fs::status(p, ec);
    if (ec || !fs::exists(st)) {
      c.errors.push_back(p + ": no such file or directory");
      continue;
    }
    if (!fs::is_directory(st)) {
      // A file named is linted whatever it holds, but one whose name says no format condlint reads has no loader.
      if (!format_from_name(p)) {
        c.errors.push_back(p + ": not a model condlint reads (the name does not end in .xml, .onnx, .nnapi.json or .tflite)");
        continue;
      }
      c.files.push_back(p);
      c.keys.push_back(fs::path(p).generic_string());
      continue;
    }
    std::vector<fs::path> found;
    fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
    if (ec) {
      c.errors.push_back(p + ": " + ec.message());
      continue;
    }
    bool walk_failed = false;
    for (; it != end; it.increment(ec)) {
      if (ec) {
        c.errors.push_back(p + ": " + ec.message());
        walk_failed = true;
        break;
      }
      std::error_code fec;
      if (!it->is_regular_file(fec)) continue;
      const auto fmt = format_from_name(it->path());
      if (!fmt) continue;
      if (*fmt == Format::IR && !xml_root_is_net(it->path())) continue;
      found.push_back(it->path());
    }
    // A directory named that holds no model is a path that names nothing to check: a CI step pointed at the wrong
    // folder must not pass.
    if (found.empty() && !walk_failed)
      c.errors.push_back(p + ": no model in this directory (.onnx, .nnapi.json, .tflite, or .xml whose root element is <net>)");
    std::sort(found.begin(), found.end(), [](const fs::path& a, const fs::path& b) { return a.native() < b.native(); });
    // The walk names each file `p/<entries>`, so its key is what follows `p` and a separator; lexically_relative
    // gives the same, component by component, for any other shape.
    for (const fs::path& f : found) {
      const std::string& s = f.native();
      const bool below = !p.empty() && s.size() > p.size() && s.compare(0, p.size(), p) == 0;
      if (below && p.back() == '/') c.keys.push_back(s.substr(p.size()));
      else if (below && s[p.size()] == '/') c.keys.push_back(s.substr(p.size() + 1));
      else c.keys.push_back(f.lexically_relative(p).generic_string());
      c.files.push_back(s);
    }
  }
  return c;
}

void keep_shard(Collected& c, int k, int n) {
  c.positions.resize(c.files.size());
  for (size_t i = 0; i < c.files.size(); ++i) c.positions[i] = i;
  if (n <= 1) return;
  size_t out = 0;
  for (size_t i = 0; i < c.files.size(); ++i) {
    uint64_t h = 14695981039346656037ull;  // FNV-1a 64 over the key's bytes
    for (unsigned char ch : c.keys[i]) h = (h ^ ch) * 1099511628211ull;
    if (h % static_cast<uint64_t>(n) != static_cast<uint64_t>(k - 1)) continue;
    if (out != i) {
      c.files[out] = std::move(c.files[i]);
      c.keys[out] = std::move(c.keys[i]);
      c.positions[out] = c.positions[i];
    }
    ++out;
  }
  c.files.resize(out);
  c.keys.resize(out);
  c.positions.resize(out);
}

bool listed_model_file(const fs::path& p) {
  const auto fmt = format_from_name(p);
  std::error_code ec;
  if (!fmt || !fs::is_regular_file(p, ec)) return false;
  return *fmt != Format::IR || xml_root_is_net(p);
}

bool read_path_list0(std::istream& in, std::vector<std::string>& out, std::string& err) {
  out.clear();
  std::string path;
  uint64_t total = 0;
  auto take = [&]() {
    if (path.empty()) return true;
    if (out.size() >= kMaxPathListLines) {
      err = "more than " + std::to_string(kMaxPathListLines) + " paths";
      return false;
    }
    out.push_back(std::move(path));
    path.clear();
    return true;
  };
  std::streambuf* sb = in.rdbuf();
  for (int c; sb && (c = sb->sbumpc()) != std::char_traits<char>::eof();) {
    if (++total > kMaxPathListBytes) {
      err = "more than " + std::to_string(kMaxPathListBytes >> 20) + " MiB";
      out.clear();
      return false;
    }
    if (c == 0) {
      if (!take()) {
        out.clear();
        return false;
      }
      continue;
    }
    if (path.size() >= kMaxPathListLine) {
      err = "path " + std::to_string(out.size() + 1) + " is longer than " + std::to_string(kMaxPathListLine) +
            " bytes (PATH_MAX)";
      out.clear();
      return false;
    }
    path.push_back(static_cast<char>(c));
  }
  if (!take()) {
    out.clear();
    return false;
  }
  return true;
}

bool read_path_list(std::istream& in, std::vector<std::string>& out, std::string& err) {
  out.clear();
  std::unordered_set<std::string> seen;
  std::string line;
  size_t lines = 0;
  uint64_t total = 0;
  // One line at a time, read in pieces no longer than the limit allows: a list without newlines (/dev/zero) stops
  // at its first line's limit instead of growing.
  auto take = [&](std::string& l) -> bool {
    ++lines;
    if (lines > kMaxPathListLines) {
      err = "more than " + std::to_string(kMaxPathListLines) + " lines";
      return false;
    }
    if (l.find('\0') != std::string::npos) {
      err = "line " + std::to_string(lines) + " holds a NUL byte: not a path";
      return false;
    }
    if (!l.empty() && l.back() == '\r') l.pop_back();
    if (l.size() > kMaxPathListLine) {
      err =
          "line " + std::to_string(lines) + " is longer than " + std::to_string(kMaxPathListLine) + " bytes (PATH_MAX)";
      return false;
    }
    if (l.empty()) return true;
    if (!listed_model_file(l)) return true;
    if (seen.insert(l).second) out.push_back(l);
    return true;
  };
  std::streambuf* sb = in.rdbuf();
  bool ended_in_newline = true;
  for (int c; sb && (c = sb->sbumpc()) != std::char_traits<char>::eof();) {
    if (++total > kMaxPathListBytes) {
      err = "more than " + std::to_string(kMaxPathListBytes >> 20) + " MiB";
      out.clear();
      return false;
    }
    ended_in_newline = c == '\n';
    if (c == '\n') {
      if (!take(line)) {
        out.clear();
        return false;
      }
      line.clear();
      continue;
    }
    // A CR before the newline is not part of the path, so one byte more is allowed for it.
    if (line.size() >= kMaxPathListLine + 1) {
      err = "line " + std::to_string(lines + 1) + " is longer than " + std::to_string(kMaxPathListLine) +
            " bytes (PATH_MAX)";
      out.clear();
      return false;
    }
    line.push_back(static_cast<char>(c));
  }
  if (!ended_in_newline && !take(line)) {
    out.clear();
    return false;
  }
  return true;
}

LoadResult load_file(const std::string& path, bool keep_onnx_proto, std::string* content_hash) {
  OpenOptions o;
  o.keep_for_exec = keep_onnx_proto;
  o.content_hash = content_hash;
  return open_model(path, o);
}

}  // namespace condlint
