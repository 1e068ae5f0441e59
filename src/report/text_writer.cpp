// Text: one line per finding, `path:line:col: level: message [ID]`, as compilers print them. Paths, messages and
// node names are terminal-safe (report/terminal.hpp).
#include "report/report.hpp"
#include "report/terminal.hpp"

namespace condlint {

void write_text(std::ostream& os, const RunResult& r, bool color) {
  auto paint = [&](const char* code, std::string_view s) {
    if (color) os << "\x1b[" << code << "m" << s << "\x1b[0m";
    else os << s;
  };
  for (const auto& f : r.files) {
    if (!f.io_error.empty()) {
      os << term_safe(f.path) << ": ";
      paint("1;31", "error");
      os << ": cannot read: " << term_safe(f.io_error) << "\n";
    }
    for (const auto& x : f.findings) {
      os << term_safe(x.loc.file.empty() ? f.path : x.loc.file);
      if (x.loc.line > 0) os << ":" << x.loc.line << ":" << x.loc.column;
      os << ": ";
      const char* code = x.level == Level::Error ? "1;31" : x.level == Level::Warning ? "1;35" : "1;36";
      paint(code, to_string(x.level));
      os << ": " << term_safe(x.message);
      if (x.loc.line <= 0 && !x.loc.pointer.empty()) os << " (at " << term_safe(x.loc.pointer) << ")";
      else if (x.loc.line <= 0 && !x.loc.node.empty()) os << " (at " << term_safe(x.loc.node) << ")";
      os << " [" << x.rule << "]\n";
    }
  }
  const Summary s = summarize(r);
  os << s.files << (s.files == 1 ? " file" : " files") << " checked: " << s.errors << " error"
     << (s.errors == 1 ? "" : "s") << ", " << s.warnings << " warning" << (s.warnings == 1 ? "" : "s") << ", "
     << s.notes << " note" << (s.notes == 1 ? "" : "s");
  if (s.io_errors) os << ", " << s.io_errors << " unreadable";
  if (s.suppressed) os << " (" << s.suppressed << " suppressed)";
  if (r.run.ignored_files)
    os << "; " << r.run.ignored_files << (r.run.ignored_files == 1 ? " file" : " files")
       << " ignored by the configuration";
  os << "\n";
}

}  // namespace condlint
