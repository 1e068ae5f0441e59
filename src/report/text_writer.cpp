// Text: one line per finding, `path:line:col: level: message [ID]`, as compilers print them. Paths, messages and
// node names are terminal-safe (report/terminal.hpp).
#include <algorithm>

#include "report/report.hpp"
#include "report/terminal.hpp"

namespace condlint {

void write_text(std::ostream& os, const RunResult& r, bool color) {
  TextOptions o;
  o.color = color;
  write_text(os, r, o);
}

void write_text(std::ostream& os, const RunResult& r, const TextOptions& o) {
  const bool color = o.color;
  size_t hidden[3] = {0, 0, 0};  // error, warning, note findings not printed
  size_t fresh = 0, unchanged = 0;
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
    for (size_t i = 0; i < f.findings.size(); ++i) {
      const Finding& x = f.findings[i];
      const std::string& state = r.run.has_baseline && i < f.info.size() ? f.info[i].baseline : std::string();
      fresh += state == "new";
      unchanged += state == "unchanged";
      if (std::find(o.show.begin(), o.show.end(), x.level) == o.show.end()) {
        const int k = x.level == Level::Error ? 0 : x.level == Level::Warning ? 1 : 2;
        ++hidden[k];
        continue;
      }
      os << term_safe(x.loc.file.empty() ? f.path : x.loc.file);
      if (x.loc.line > 0) os << ":" << x.loc.line << ":" << x.loc.column;
      os << ": ";
      const char* code = x.level == Level::Error ? "1;31" : x.level == Level::Warning ? "1;35" : "1;36";
      paint(code, to_string(x.level));
      os << ": " << term_safe(x.message);
      if (x.loc.line <= 0 && !x.loc.pointer.empty()) os << " (at " << term_safe(x.loc.pointer) << ")";
      else if (x.loc.line <= 0 && !x.loc.node.empty()) os << " (at " << term_safe(x.loc.node) << ")";
      os << " [" << x.rule << "]";
      if (x.fixable == Fixable::Safe) os << " (fixable)";
      else if (x.fixable == Fixable::Unsafe) os << " (fixable with --unsafe-fixes)";
      if (state == "new") paint("1", " (new)");
      os << "\n";
    }
  }
  const Summary s = summarize(r);
  os << s.files << (s.files == 1 ? " file" : " files") << " checked: " << s.errors << " error"
     << (s.errors == 1 ? "" : "s") << ", " << s.warnings << " warning" << (s.warnings == 1 ? "" : "s") << ", "
     << s.notes << " note" << (s.notes == 1 ? "" : "s");
  if (s.io_errors) os << ", " << s.io_errors << " unreadable";
  if (s.suppressed) os << " (" << s.suppressed << " suppressed)";
  if (r.run.has_baseline)
    os << "; since the baseline: " << fresh << " new, " << unchanged << " unchanged, " << r.run.absent.size()
       << " absent";
  if (hidden[0] + hidden[1] + hidden[2] > 0) {
    static const char* const kLevel[3] = {"error", "warning", "note"};
    os << "; not shown (--show):";
    bool first = true;
    for (int k = 0; k < 3; ++k)
      if (hidden[k]) {
        os << (first ? " " : ", ") << hidden[k] << " " << kLevel[k] << (hidden[k] == 1 ? "" : "s");
        first = false;
      }
    os << (hidden[0] + hidden[1] + hidden[2] == 1 ? " (--show all prints it)" : " (--show all prints them)");
  }
  size_t fixable = 0;
  for (const auto& f : r.files)
    for (const auto& x : f.findings) fixable += x.fixable == Fixable::Safe;
  if (fixable) os << "; " << fixable << " fixable with `condlint fix`";
  if (r.run.ignored_files)
    os << "; " << r.run.ignored_files << (r.run.ignored_files == 1 ? " file" : " files")
       << " ignored by the configuration";
  os << "\n";
}

}  // namespace condlint
