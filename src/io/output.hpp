// Writing what a command produces without losing anything: reports, exports, golden data and cache entries.
//
// - A file is written to a temporary beside it (created exclusively, so a planted link is never followed) and
//   renamed over the target only after every byte was written, flushed and closed: a reader sees the old file or
//   the new one, never half of one, and a failed write leaves the old file as it was. The temporary is removed on
//   every way out, and on SIGINT, SIGTERM and SIGHUP.
// - A target that is a character device or a FIFO (/dev/stdout, /dev/null, a pipe) is written in place: there is
//   nothing to rename over.
// - Every write, flush, close and rename error is reported with the path and the system's reason; the commands turn
//   it into exit code 2.
// - InputFiles records the files a command read (by device and inode), so that no output is written onto one.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace condlint::io {

// A file's identity on this machine: device and inode, after following links.
struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId& o) const { return dev == o.dev && ino == o.ino; }
  bool operator<(const FileId& o) const { return dev != o.dev ? dev < o.dev : ino < o.ino; }
};
std::optional<FileId> file_id(const std::string& path);

// The files a command read, each with what it was to the command ("the model", "golden data").
class InputFiles {
 public:
  // Records `path` when it exists (a path that does not exist cannot be overwritten by accident).
  void add(const std::string& path, const std::string& what);
  // The input that `path` is (its path and what it was), when it is one.
  const std::pair<std::string, std::string>* find(const std::string& path) const;

 private:
  std::vector<std::pair<FileId, std::pair<std::string, std::string>>> files_;
};

// One file a command is about to write.
struct OutputTarget {
  std::string path;  // "" is standard output, which is never checked
  std::string what;  // "the report", "the SARIF report", ...
};
// "" when every output may be written, else why not: an output that is one of the inputs, or two outputs that are one
// file. Checked before anything is written.
std::string check_outputs(const std::vector<OutputTarget>& outputs, const InputFiles& inputs);

// A file being written: open, write to stream(), commit. Destroyed uncommitted, it leaves the target untouched.
class OutputFile {
 public:
  OutputFile();
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // False with `error` set when the file cannot be created. follow_links: a target that is a symbolic link has
  // the file it leads to replaced (what a user who links a report into place means); false: the link itself is
  // replaced and nothing it points at is touched (for directories others may write to, such as a shared cache).
  // durable: the bytes reach the disk (fsync) before the rename, so a crash leaves the old file or the new one; a
  // cache entry, which a reader checks and recomputes when damaged, skips that cost.
  bool open(const std::string& path, std::string& error, bool follow_links = true, bool durable = true);
  std::ostream& stream();
  // Flushes, closes and renames into place; false with `error` set (the target untouched) when any step failed.
  bool commit(std::string& error);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// Writes `path` whole through `writer` (an OutputFile); "" or the message "cannot write WHAT to PATH: REASON".
std::string write_file(const std::string& path, const std::string& what,
                       const std::function<void(std::ostream&)>& writer);
// The same for standard output ("" path): flushed and checked ("cannot write WHAT to standard output: REASON").
std::string write_stdout(const std::string& what, const std::function<void(std::ostream&)>& writer);
// write_stdout for an empty path, else write_file.
std::string write_output(const std::string& path, const std::string& what,
                         const std::function<void(std::ostream&)>& writer);

// Removes every temporary an OutputFile holds open now; async-signal-safe (for a handler that ends the process).
void unlink_open_temporaries() noexcept;
// Installs (once) the handlers of SIGINT, SIGTERM and SIGHUP that remove the open temporaries, kill the registered
// child process groups and remove the registered temporary folders (cleanup.hpp), then end the process by the
// signal. A handler someone else installed is kept.
void install_signal_cleanup();

// Removes the temporaries that OutputFile leaves only when a process is killed outright (SIGKILL, a crash) from
// `dir`: those whose name it made (or that start with `also_prefix`, when given) and whose last change is more than
// `older_than_seconds` ago.
void sweep_stale_temporaries(const std::string& dir, int older_than_seconds, const std::string& also_prefix = "");

}  // namespace condlint::io
