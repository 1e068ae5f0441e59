#include "lint/cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <chrono>
#include <thread>

#include "io/output.hpp"
#include "loaders/loader.hpp"

namespace condlint::lint {

namespace fs = std::filesystem;

namespace {

constexpr const char* kMagic = "condlint-cache 8";
// A killed run leaves its temporary behind; one untouched this long is no other process's write in progress.
constexpr int kStaleTemporarySeconds = 3600;
constexpr const char* kListing = "dir-listing:";

bool inside(const fs::path& base, const fs::path& p) {
  auto [bi, pi] = std::mismatch(base.begin(), base.end(), p.begin(), p.end());
  return bi == base.end() && pi != p.end();
}

fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::path() : r;
}

fs::path model_dir(const std::string& model_path) {
  const fs::path dir = fs::path(model_path).parent_path();
  return resolved(dir.empty() ? fs::path(".") : dir);
}

// The names of the test_data_set_* directories beside a model and of the files in them, sorted.
std::vector<std::string> golden_listing(const fs::path& dir, std::vector<std::string>* files) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    if (!it->is_directory(e2) || it->path().filename().string().rfind("test_data_set_", 0) != 0) continue;
    names.push_back(it->path().filename().string() + "/");
    for (fs::recursive_directory_iterator f(it->path(), e2), fend; !e2 && f != fend; f.increment(e2)) {
      std::error_code e3;
      if (!f->is_regular_file(e3)) continue;
      names.push_back(f->path().lexically_relative(dir).generic_string());
      if (files) files->push_back(f->path().string());
    }
  }
  std::sort(names.begin(), names.end());
  if (files) std::sort(files->begin(), files->end());
  return names;
}

// A file's identity ("dev ino size mtime ctime", times in ns); "" when it cannot be read or changed less than two
// seconds ago (see cache.hpp). `size`, when given, receives the size of a regular file.
std::string identity_of(const std::string& path, int64_t* size = nullptr) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  if (size) *size = static_cast<int64_t>(st.st_size);
  auto ns = [](const timespec& t) { return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec; };
  const long long now =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (now - std::max(ns(st.st_mtim), ns(st.st_ctim)) < 2000000000LL) return {};
  std::string out;
  auto put = [&](auto v) {
    char digits[24];  // a 64-bit number in decimal, with its sign
    if (!out.empty()) out += ' ';
    out.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
  };
  put(static_cast<unsigned long long>(st.st_dev));
  put(static_cast<unsigned long long>(st.st_ino));
  put(static_cast<long long>(st.st_size));
  put(ns(st.st_mtim));
  put(ns(st.st_ctim));
  return out;
}

// The body of an entry is a sequence of fields, each its length in decimal, ':' and its bytes; numbers are
// fields holding their decimal text. Reading it costs a pass over the bytes, and every length and count is checked
// against what is left, so a damaged entry is refused, never read past its end.
class FieldWriter {
 public:
  void str(std::string_view s) {
    out_ += std::to_string(s.size());
    out_ += ':';
    out_ += s;
  }
  void num(int64_t v) { str(std::to_string(v)); }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class FieldReader {
 public:
  explicit FieldReader(std::string_view body) : rest_(body) {}
  bool str(std::string& out) {
    std::string_view v;
    if (!view(v)) return false;
    out.assign(v);
    return true;
  }
  template <typename Int>
  bool num(Int& out) {
    std::string_view v;
    if (!view(v) || v.empty()) return false;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    return ec == std::errc() && end == v.data() + v.size();
  }
  // A count of items that each take at least `min_bytes` of what is left.
  bool count(size_t& out, size_t min_bytes) { return num(out) && out <= rest_.size() / min_bytes; }
  bool done() const { return rest_.empty(); }

 private:
  bool view(std::string_view& v) {
    const size_t colon = rest_.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon > 12) return false;
    size_t n = 0;
    const auto [end, ec] = std::from_chars(rest_.data(), rest_.data() + colon, n);
    if (ec != std::errc() || end != rest_.data() + colon || n > rest_.size() - colon - 1) return false;
    v = rest_.substr(colon + 1, n);
    rest_.remove_prefix(colon + 1 + n);
    return true;
  }
  std::string_view rest_;
};

constexpr size_t kFindingFields = 17;

void write_finding(FieldWriter& w, const Finding& f) {
  const auto& l = f.loc;
  w.str(f.rule);
  w.str(f.name);
  w.str(to_string(f.level));
  w.str(f.message);
  w.str(l.file);
  w.str(l.node);
  w.num(l.line);
  w.num(l.column);
  w.num(l.code_point_column);
  w.num(l.offset);
  w.num(l.graph);
  w.num(l.node_index);
  w.str(l.pointer);
  w.num(static_cast<int>(f.fixable));
  w.str(f.fix_key);
  w.str(f.fix_description);
  w.num(static_cast<int64_t>(f.fix_edits.size()));
  for (const FixEdit& e : f.fix_edits) {
    w.num(e.begin);
    w.num(e.end);
    w.str(e.text);
  }
}

bool read_fix_edits(FieldReader& r, std::vector<FixEdit>& out) {
  size_t n = 0;
  if (!r.count(n, 6)) return false;
  out.resize(n);
  for (FixEdit& e : out)
    if (!r.num(e.begin) || !r.num(e.end) || !r.str(e.text) || e.begin < 0 || e.end < e.begin) return false;
  return true;
}

bool read_fixable(FieldReader& r, Fixable& out) {
  int v = 0;
  if (!r.num(v) || v < static_cast<int>(Fixable::No) || v > static_cast<int>(Fixable::Unsafe)) return false;
  out = static_cast<Fixable>(v);
  return true;
}

bool read_finding(FieldReader& r, Finding& f) {
  std::string level;
  auto& l = f.loc;
  return r.str(f.rule) && r.str(f.name) && r.str(level) && parse_level(level, f.level) && r.str(f.message) &&
         r.str(l.file) && r.str(l.node) && r.num(l.line) && r.num(l.column) && r.num(l.code_point_column) &&
         r.num(l.offset) && r.num(l.graph) && r.num(l.node_index) && r.str(l.pointer) && read_fixable(r, f.fixable) &&
         r.str(f.fix_key) && r.str(f.fix_description) && read_fix_edits(r, f.fix_edits);
}

// A panel cell: present, then (when present) label, type, shape and offending.
void write_cell(FieldWriter& w, const CondCell& c) {
  w.num(c.present ? 1 : 0);
  if (!c.present) return;
  w.str(c.label);
  w.str(c.type);
  w.str(c.shape);
  w.num(c.offending ? 1 : 0);
}

bool read_flag(FieldReader& r, bool& out) {
  int v = 0;
  if (!r.num(v) || (v != 0 && v != 1)) return false;
  out = v == 1;
  return true;
}

bool read_cell(FieldReader& r, CondCell& c) {
  if (!read_flag(r, c.present)) return false;
  return !c.present || (r.str(c.label) && r.str(c.type) && r.str(c.shape) && read_flag(r, c.offending));
}

// The fields of a conditional's summary before its rows, and of a row (each field takes at least two bytes).
constexpr size_t kConditionalFields = 13, kRowFields = 7;

void write_conditional(FieldWriter& w, const ConditionalSummary& c) {
  w.str(c.name);
  w.str(c.path);
  w.str(c.exec_path);
  w.num(c.line);
  w.num(c.has_condition ? 1 : 0);
  write_cell(w, c.condition);
  w.str(c.provenance);
  for (int b = 0; b < 2; ++b) {
    w.str(c.branch_status[b]);
    w.num(c.has_branch[b] ? 1 : 0);
  }
  w.num(static_cast<int64_t>(c.findings));
  w.num(static_cast<int64_t>(c.rows.size()));
  for (const CondRow& row : c.rows) {
    w.str(row.kind);
    w.num(row.index);
    write_cell(w, row.outer);
    write_cell(w, row.branch[0]);
    write_cell(w, row.branch[1]);
    w.num(row.type_differs ? 1 : 0);
    w.num(row.shape_differs ? 1 : 0);
  }
}

bool read_conditional(FieldReader& r, ConditionalSummary& c) {
  if (!r.str(c.name) || !r.str(c.path) || !r.str(c.exec_path) || !r.num(c.line) || !read_flag(r, c.has_condition) ||
      !read_cell(r, c.condition) || !r.str(c.provenance))
    return false;
  for (int b = 0; b < 2; ++b)
    if (!r.str(c.branch_status[b]) || !read_flag(r, c.has_branch[b])) return false;
  size_t nrows = 0;
  if (!r.num(c.findings) || !r.count(nrows, 2 * kRowFields)) return false;
  c.rows.resize(nrows);
  for (CondRow& row : c.rows)
    if (!r.str(row.kind) || !r.num(row.index) || !read_cell(r, row.outer) || !read_cell(r, row.branch[0]) ||
        !read_cell(r, row.branch[1]) || !read_flag(r, row.type_differs) || !read_flag(r, row.shape_differs))
      return false;
  return true;
}

enum class EntryRead { kRead, kAbsent, kUnreadable };

// Reads an entry with one open, one fstat and one read (entries are small; an unchanged run reads all of them).
// Only a regular file with one name is an entry: a symbolic link (not followed), a hard link to a file elsewhere, a
// FIFO or a device in the directory is refused as damaged.
EntryRead read_entry(const std::string& path, std::string& text) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  if (fd < 0) return errno == ENOENT ? EntryRead::kAbsent : EntryRead::kUnreadable;
  struct stat st {};
  EntryRead result = EntryRead::kUnreadable;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 && st.st_size < (int64_t{1} << 30)) {
    text.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    if (got == text.size()) result = EntryRead::kRead;
  }
  ::close(fd);
  return result;
}

// The digest an entry's header holds: of its body together with the format, condlint's version and the context
// (rules, configuration) it was judged under, so an entry is only ever valid for the key it was stored under.
std::string entry_digest(std::string_view context, std::string_view body) {
  Hasher h;
  for (std::string_view part : {std::string_view(kMagic), std::string_view(CONDLINT_VERSION), context, body}) {
    h.update(part);
    h.update(std::string_view("\0", 1));
  }
  return h.hex();
}

// Now, read from the coarse clock the kernel stamps file changes with: a file changed after this moment has a
// change time at or after it (the fine clock may run a tick ahead of those stamps).
int64_t now_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME_COARSE, &t);
  return static_cast<int64_t>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}

// True when `path` changed at or after `since_ns` (now_ns's clock). The change time is what tells: no user program
// can set it back, unlike the modification time. A file that does not exist has not changed.
bool changed_since(const std::string& path, int64_t since_ns) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  return static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000LL + st.st_ctim.tv_nsec >= since_ns;
}

}  // namespace

std::vector<std::string> golden_data_dependencies(const std::string& model_path) {
  const fs::path dir = fs::path(model_path).parent_path().empty() ? fs::path(".") : fs::path(model_path).parent_path();
  std::vector<std::string> out{kListing + dir.string()};
  golden_listing(dir, &out);
  return out;
}

// The state of one dependency: the hash of its bytes, "absent", or nullopt when it resolves outside the model's
// directory (condlint never reads there, so it cannot vouch for it).
std::optional<std::string> ResultCache::dependency_state(const std::string& dep, const std::string& base_dir) const {
  const fs::path base(base_dir);
  if (dep.rfind(kListing, 0) == 0) {
    const fs::path dir = resolved(dep.substr(std::strlen(kListing)));
    if (dir != base) return std::nullopt;
    Hasher h;
    for (const auto& n : golden_listing(dir, nullptr)) {
      h.update(n);
      h.update(std::string_view("\0", 1));
    }
    return h.hex();
  }
  const fs::path r = resolved(dep);
  if (r.empty() || !inside(base, r)) return std::nullopt;
  std::error_code ec;
  if (!fs::exists(r, ec)) return std::string("absent");
  if (auto h = hash_file(r.string())) return h;
  return std::string("unreadable");
}

ResultCache::ResultCache(std::string dir) : dir_(std::move(dir)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec || !fs::is_directory(dir_, ec)) {
    error_ = "cannot use " + dir_ + " as the cache directory";
    return;
  }
  io::sweep_stale_temporaries(dir_, kStaleTemporarySeconds, ".tmp-");  // .tmp-*: what condlint 0.2 named them
}

std::optional<CachedResult> ResultCache::find(const std::string& model_path, std::string_view context, Probe& probe,
                                              bool need_conditionals) {
  try {
    return find_entry(model_path, context, probe, need_conditionals);
  } catch (const std::exception&) {  // a value of the wrong type in an entry: judged again, as any damaged entry
    ++stats_.rejected;
    ++stats_.judged;
    return std::nullopt;
  }
}

std::optional<CachedResult> ResultCache::find_entry(const std::string& model_path, std::string_view context,
                                                    Probe& probe, bool need_conditionals) {
  Hasher name;
  for (std::string_view part :
       {std::string_view(kMagic), std::string_view(CONDLINT_VERSION), context, std::string_view(model_path)}) {
    name.update(part);
    name.update(std::string_view("\0", 1));
  }
  probe = Probe{name.hex(), model_path, "", "", -1, {}, now_ns()};
  probe.identity = identity_of(model_path, &probe.size);
  const std::string path = dir_ + "/" + probe.entry;
  std::string text;
  const EntryRead read = read_entry(path, text);
  if (read == EntryRead::kAbsent) {
    ++stats_.judged;
    return std::nullopt;
  }
  auto judge = [&](bool damaged) -> std::optional<CachedResult> {
    if (damaged) ++stats_.rejected;
    ++stats_.judged;
    return std::nullopt;
  };
  if (read == EntryRead::kUnreadable) return judge(true);
  const size_t nl = text.find('\n');
  if (nl == std::string::npos) return judge(true);
  const std::string header = std::string(kMagic) + " " + CONDLINT_VERSION + " ";
  const std::string_view body = std::string_view(text).substr(nl + 1);
  if (text.compare(0, nl, header + entry_digest(context, body)) != 0) return judge(true);
  FieldReader in(body);
  std::string entry, model, stored_identity, stored_content;
  size_t ndeps = 0;
  if (!in.str(entry) || !in.str(model) || !in.str(stored_identity) || !in.str(stored_content) || entry != probe.entry ||
      model != model_path || stored_content.empty() || !in.count(ndeps, 6))
    return judge(true);
  struct Dep {
    std::string path, identity, state;
  };
  std::vector<Dep> deps(ndeps);
  for (Dep& d : deps)
    if (!in.str(d.path) || !in.str(d.identity) || !in.str(d.state)) return judge(true);
  CachedResult r;
  size_t nfindings = 0, nsuppressed = 0;
  if (!in.count(nfindings, 2 * kFindingFields)) return judge(true);
  r.findings.resize(nfindings);
  for (Finding& f : r.findings)
    if (!read_finding(in, f)) return judge(true);
  if (!in.count(nsuppressed, 2 * kFindingFields + 4)) return judge(true);
  r.suppressed.resize(nsuppressed);
  for (SuppressedFinding& s : r.suppressed)
    if (!read_finding(in, s.finding) || !in.str(s.kind) || !in.str(s.justification)) return judge(true);
  if (!read_flag(in, r.has_conditionals)) return judge(true);
  if (r.has_conditionals) {
    size_t nconds = 0;
    if (!in.count(nconds, 2 * kConditionalFields)) return judge(true);
    r.conditionals.resize(nconds);
    for (ConditionalSummary& c : r.conditionals)
      if (!read_conditional(in, c)) return judge(true);
  }
  if (!in.done()) return judge(true);
  // An entry stored by a run that did not summarize the conditionals cannot give them: the model is judged again.
  if (need_conditionals && !r.has_conditionals) return judge(false);
  // The model: its identity vouches for its bytes, else its bytes are hashed again.
  if (probe.identity.empty() || probe.identity != stored_identity) {
    const auto content = hash_file(model_path);
    if (!content) return judge(false);
    probe.content = *content;
    if (*content != stored_content) return judge(false);
  } else {
    probe.content = stored_content;
  }
  std::string base;
  for (const Dep& d : deps) {
    if (d.path.rfind(kListing, 0) != 0) {
      const std::string now = identity_of(d.path);
      if (!d.identity.empty() && now == d.identity) continue;
      struct stat st {};
      if (d.state == "absent" && ::stat(d.path.c_str(), &st) != 0 && errno == ENOENT) continue;  // still not there
    }
    if (base.empty()) base = model_dir(model_path).string();
    const auto state = dependency_state(d.path, base);
    if (!state || *state != d.state) return judge(false);
  }
  for (const Dep& d : deps) probe.dependencies.push_back(d.path);
  ++stats_.reused;
  return r;
}

void ResultCache::store(Probe& probe, std::string_view context, const std::vector<std::string>& dependencies,
                        const CachedResult& r) {
  if (probe.content.empty()) {
    ++stats_.not_stored;
    return;
  }
  const std::string base = model_dir(probe.model).string();
  std::vector<std::string> deps;  // path, identity, state of each
  for (const auto& d : dependencies) {
    const bool listing = d.rfind(kListing, 0) == 0;
    // The identity is taken before the bytes are hashed: a change while hashing leaves it stale, never vouching.
    std::string identity = listing ? "" : identity_of(d);
    const auto state = dependency_state(d, base);
    // A dependency that changed after the judging started may have been judged with other bytes than those hashed.
    if (!state || (!listing && changed_since(d, probe.started_ns))) {
      ++stats_.not_stored;
      return;
    }
    deps.insert(deps.end(), {d, std::move(identity), *state});
  }
  FieldWriter w;
  for (const std::string* f : {&probe.entry, &probe.model, &probe.identity, &probe.content}) w.str(*f);
  w.num(static_cast<int64_t>(dependencies.size()));
  for (const auto& d : deps) w.str(d);
  w.num(static_cast<int64_t>(r.findings.size()));
  for (const auto& f : r.findings) write_finding(w, f);
  w.num(static_cast<int64_t>(r.suppressed.size()));
  for (const auto& s : r.suppressed) {
    write_finding(w, s.finding);
    w.str(s.kind);
    w.str(s.justification);
  }
  w.num(r.has_conditionals ? 1 : 0);
  if (r.has_conditionals) {
    w.num(static_cast<int64_t>(r.conditionals.size()));
    for (const auto& c : r.conditionals) write_conditional(w, c);
  }
  const std::string body = w.take();
  const std::string text = std::string(kMagic) + " " + CONDLINT_VERSION + " " + entry_digest(context, body) + "\n";
  // Through a temporary created exclusively and renamed over the entry (a link planted there is replaced, never
  // followed), so a process sharing DIR never reads half an entry.
  io::OutputFile out;
  std::string err;
  if (!out.open((fs::path(dir_) / probe.entry).string(), err, /*follow_links=*/false, /*durable=*/false) ||
      !(out.stream() << text << body) || !out.commit(err)) {
    ++stats_.write_errors;
    return;
  }
  ++stats_.stored;
}

}  // namespace condlint::lint
