// Self-contained HTML report: the template, CSS and JS from reports/ (embedded at build time),
// filled with the same RunResult the other writers render. Every model string is escaped.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "report/embedded.hpp"
#include "report/report.hpp"

namespace condlint {

namespace {

std::string esc(std::string_view s) {
  std::string o;
  o.reserve(s.size() + 8);
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      case '\0': o += "&#xFFFD;"; break;
      default: o += c;
    }
  }
  return o;
}

// Inline markdown: `code` and **bold**, on escaped text.
std::string inline_md(std::string_view s) {
  std::string o;
  bool code = false, bold = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '`') {
      o += code ? "</code>" : "<code>";
      code = !code;
    } else if (!code && s[i] == '*' && i + 1 < s.size() && s[i + 1] == '*') {
      o += bold ? "</strong>" : "<strong>";
      bold = !bold;
      ++i;
    } else {
      o += esc(std::string_view(&s[i], 1));
    }
  }
  if (code) o += "</code>";
  if (bold) o += "</strong>";
  return o;
}

// The subset of markdown the rule pages use: headings, paragraphs, lists, fenced code.
std::string markdown_to_html(std::string_view md) {
  std::string o, para;
  bool in_code = false, in_list = false;
  auto flush_para = [&] {
    if (!para.empty()) o += "<p>" + inline_md(para) + "</p>\n";
    para.clear();
  };
  auto close_list = [&] {
    if (in_list) o += "</ul>\n";
    in_list = false;
  };
  size_t i = 0;
  while (i <= md.size()) {
    size_t nl = md.find('\n', i);
    if (nl == std::string_view::npos) nl = md.size();
    std::string_view line = md.substr(i, nl - i);
    i = nl + 1;
    if (line.substr(0, 3) == "```") {
      if (in_code) o += "</code></pre>\n";
      else {
        flush_para();
        close_list();
        o += "<pre><code>";
      }
      in_code = !in_code;
      continue;
    }
    if (in_code) {
      o += esc(line) + "\n";
      continue;
    }
    std::string_view t = line;
    while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
    if (t.empty()) {
      flush_para();
      close_list();
    } else if (t.substr(0, 2) == "# " || t.substr(0, 3) == "## " || t.substr(0, 4) == "### ") {
      flush_para();
      close_list();
      const size_t hashes = t.find(' ');
      const std::string tag = "h" + std::to_string(hashes + 2);  // # -> h3 inside the report
      o += "<" + tag + ">" + inline_md(t.substr(hashes + 1)) + "</" + tag + ">\n";
    } else if (t.substr(0, 2) == "- " || t.substr(0, 2) == "* ") {
      flush_para();
      if (!in_list) o += "<ul>\n";
      in_list = true;
      o += "<li>" + inline_md(t.substr(2));
      o += "</li>\n";
    } else if (in_list && line.size() > t.size()) {
      // Continuation of a list item: append to the last <li>.
      o.insert(o.size() - 6, " " + inline_md(t));
    } else {
      if (!para.empty()) para += ' ';
      para += t;
    }
  }
  if (in_code) o += "</code></pre>\n";
  flush_para();
  close_list();
  return o;
}

int level_rank(Level l) { return static_cast<int>(l); }

// A path escaped, with a line-break opportunity after each '/': a long node or file path wraps at its separators
// instead of widening its column.
std::string path_html(std::string_view s) {
  std::string o;
  size_t start = 0;
  for (size_t slash = s.find('/'); slash != std::string_view::npos; slash = s.find('/', start)) {
    o += esc(s.substr(start, slash + 1 - start)) + "<wbr>";
    start = slash + 1;
  }
  return o + esc(s.substr(start));
}

// The conditionals of a file in model order: depth first, an If before the Ifs inside it, its then branch before its
// else branch, and nodes of one graph in the order the loader met them (the graph's order). The loader's own list
// may hold a node's else branch first (ONNX exporters store else_branch before then_branch).
std::vector<const ConditionalSummary*> in_model_order(const std::vector<ConditionalSummary>& conds) {
  auto parts_of = [](const ConditionalSummary& c) {
    const std::string& p = c.exec_path.empty() ? c.path : c.exec_path;
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t slash = p.find('/'); slash != std::string::npos; slash = p.find('/', start)) {
      parts.push_back(p.substr(start, slash - start));
      start = slash + 1;
    }
    parts.push_back(p.substr(start));
    return parts;
  };
  std::vector<std::vector<std::string>> parts;
  std::map<std::string, size_t> first_seen;  // a path prefix -> the first conditional at or below it
  for (size_t i = 0; i < conds.size(); ++i) {
    parts.push_back(parts_of(conds[i]));
    std::string prefix;
    for (const auto& part : parts.back()) {
      prefix += part + "/";
      first_seen.emplace(prefix, i);
    }
  }
  auto role_rank = [](const std::string& s) { return s == "then" ? 0 : s == "else" ? 1 : 2; };
  std::vector<size_t> order(conds.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto &x = parts[a], &y = parts[b];
    std::string prefix;
    for (size_t k = 0; k < x.size() && k < y.size(); ++k) {
      if (x[k] != y[k]) {
        if (role_rank(x[k]) != role_rank(y[k])) return role_rank(x[k]) < role_rank(y[k]);
        return first_seen[prefix + x[k] + "/"] < first_seen[prefix + y[k] + "/"];
      }
      prefix += x[k] + "/";
    }
    return x.size() < y.size();  // an If before the Ifs inside it
  });
  std::vector<const ConditionalSummary*> out;
  for (size_t i : order) out.push_back(&conds[i]);
  return out;
}

// What the notations of the conditional panels mean, above the panels.
constexpr std::string_view kLegend =
    "<dl class=\"legend\" id=\"legend\">\n"
    "<div><dt><code>f32 [2,?]</code></dt><dd>element type, then one size per dimension</dd></div>\n"
    "<div><dt><code>?</code></dt><dd>a dimension of unknown size</dd></div>\n"
    "<div><dt><code>1..8</code></dt><dd>a dimension known only between bounds</dd></div>\n"
    "<div><dt><code>[]</code></dt><dd>a scalar (rank 0)</dd></div>\n"
    "<div><dt><code>[...]</code></dt><dd>rank unknown: neither declared nor inferred</dd></div>\n"
    "<div><dt><code>[] or ?</code></dt><dd>an OpenVINO IR port without <code>&lt;dim&gt;</code>: a scalar, or a rank "
    "the "
    "file leaves open; not compared as a shape</dd></div>\n"
    "<div><dt><code>unknown</code></dt><dd>element type neither declared nor inferred</dd></div>\n"
    "<div><dt><span class=\"legend-mark\">&#x26A0;</span></dt><dd>a finding points at this binding or "
    "value</dd></div>\n"
    "<div><dt><strong>bold</strong></dt><dd>then and else disagree on this row</dd></div>\n"
    "<div><dt><span class=\"absent\">&mdash;</span></dt><dd>the branch binds or produces nothing here</dd></div>\n"
    "</dl>\n";

std::string cell_html(const CondCell& c, const char* cls) {
  std::string o = "<td class=\"";
  o += cls;
  if (c.offending) o += " offending";
  o += "\">";
  if (!c.present) return o + "<span class=\"absent\">—</span></td>";
  o += "<span class=\"mono\">" + esc(c.type) + " " + esc(c.shape) + "</span>";
  if (!c.label.empty()) o += "<span class=\"label\">" + esc(c.label) + "</span>";
  return o + "</td>";
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Parses a tolerance word ("1e-05"); false when there is none.
bool parse_num(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}

struct CheckCounts {
  size_t rows = 0, pass = 0, fail = 0, info = 0, unsupported = 0;
  void add(const BranchCheck& b) {
    ++rows;
    if (b.verdict == "pass") ++pass;
    else if (b.verdict == "fail") ++fail;
    else if (b.verdict == "unsupported") ++unsupported;
    else ++info;
  }
};

// A table of executor or diff rows: one per data set x pin set x output. Failing cells are marked `bad`.
// `row_class` tells the per-branch tables ("check") from the list of every run ("run-check").
std::string check_table(const std::vector<BranchCheck>& rows, const CheckReport& c, const char* row_class,
                        const char* branch) {
  const bool diff = c.kind == "diff";
  const bool detail_rows = *branch != '\0';  // narrow side-by-side tables: details on a row of their own
  const int ncols = 8 + (diff ? 2 : 0);
  std::ostringstream o;
  o << "<table class=\"checks\"><thead><tr><th>Data set · pins</th><th>Output</th><th>Status</th>"
       "<th>max abs</th><th>max rel</th><th>atol</th><th>rtol</th><th>First mismatch</th>";
  if (diff)
    o << "<th class=\"mono\">" << esc(c.runtimes[0]) << "</th><th class=\"mono\">" << esc(c.runtimes[1]) << "</th>";
  if (!detail_rows) o << "<th>Detail</th>";
  o << "</tr></thead><tbody>\n";
  for (const auto& b : rows) {
    const bool bad = b.verdict == "fail";
    double atol = 0, rtol = 0;
    const bool has_atol = parse_num(b.atol, atol), has_rtol = parse_num(b.rtol, rtol);
    auto mark = [&](bool on) { return on ? " class=\"bad\"" : ""; };
    o << "<tr class=\"" << row_class << " " << esc(b.verdict) << "\" data-verdict=\"" << esc(b.verdict) << "\"";
    if (*branch) o << " data-branch=\"" << branch << "\"";
    o << "><td class=\"run mono\"><span class=\"ds\">" << esc(b.data_set) << "</span><span class=\"pins\">"
      << (b.pins.empty() ? "<span class=\"absent\">as the data takes it</span>" : path_html(b.pins))
      << "</span></td><td class=\"mono\">" << (b.output.empty() ? "<span class=\"absent\">—</span>" : esc(b.output))
      << "</td>";
    o << "<td class=\"status" << (bad ? " bad" : "") << "\"><span class=\"verdict " << esc(b.verdict) << "\">"
      << esc(b.status) << "</span></td>";
    if (b.compared) {
      o << "<td" << mark(bad && has_atol && b.max_abs > atol) << ">" << num(b.max_abs) << "</td>";
      o << "<td" << mark(bad && has_rtol && b.max_rel > rtol) << ">" << num(b.max_rel) << "</td>";
    } else {
      o << "<td class=\"absent\">—</td><td class=\"absent\">—</td>";
    }
    o << "<td>" << esc(b.atol) << "</td><td>" << esc(b.rtol) << "</td>";
    o << "<td class=\"mono" << (bad && !b.first_index.empty() ? " bad" : "") << "\">" << esc(b.first_index);
    if (b.mismatches > 1) o << " <span class=\"state\">(" << b.mismatches << " differ)</span>";
    o << "</td>";
    if (diff)
      o << "<td class=\"mono\">" << esc(b.value_a) << "</td><td class=\"mono"
        << (bad && !b.value_b.empty() ? " bad" : "") << "\">" << esc(b.value_b) << "</td>";
    if (!detail_rows) o << "<td class=\"msg\">" << esc(b.detail) << "</td></tr>\n";
    else if (b.detail.empty() || b.verdict == "pass") o << "</tr>\n";
    else
      o << "</tr>\n<tr class=\"check-detail\"><td colspan=\"" << ncols << "\" class=\"msg\">" << esc(b.detail)
        << "</td></tr>\n";
  }
  o << "</tbody></table>\n";
  return o.str();
}

// The then/else tables of one If, side by side.
std::string branch_checks_html(const IfChecks& ic, const CheckReport& c) {
  std::ostringstream o;
  o << "<div class=\"branch-checks\" data-if=\"" << esc(ic.if_path) << "\" data-kind=\"" << esc(c.kind) << "\">\n";
  for (int b = 0; b < 2; ++b) {
    const char* name = b == 0 ? "then" : "else";
    CheckCounts n;
    for (const auto& r : ic.branch[b]) n.add(r);
    o << "<div class=\"bc " << name << "\" data-branch=\"" << name << "\" data-rows=\"" << n.rows << "\" data-pass=\""
      << n.pass << "\" data-fail=\"" << n.fail << "\"><h4>" << name << " branch — "
      << (c.kind == "diff" ? esc(c.runtimes[0] + " vs " + c.runtimes[1]) : std::string("executor vs golden data"))
      << ": " << n.pass << " pass, " << n.fail << " fail";
    if (n.unsupported) o << ", " << n.unsupported << " unsupported";
    if (n.info) o << ", " << n.info << " other";
    if (!ic.coverage[b].empty()) o << " — coverage: " << esc(ic.coverage[b]);
    o << "</h4>\n";
    if (!ic.coverage_why[b].empty()) o << "<p class=\"state\">" << esc(ic.coverage_why[b]) << "</p>\n";
    if (ic.branch[b].empty()) o << "<p class=\"absent\">No run took this branch.</p>\n";
    else o << check_table(ic.branch[b], c, "check", name);
    o << "</div>\n";
  }
  o << "</div>\n";
  return o.str();
}

void replace_all_placeholders(std::string_view tpl, const std::map<std::string, std::string>& vals, std::ostream& os) {
  size_t i = 0;
  while (i < tpl.size()) {
    const size_t open = tpl.find("{{", i);
    if (open == std::string_view::npos) {
      os << tpl.substr(i);
      break;
    }
    const size_t close = tpl.find("}}", open + 2);
    if (close == std::string_view::npos) {
      os << tpl.substr(i);
      break;
    }
    os << tpl.substr(i, open - i);
    const std::string key(tpl.substr(open + 2, close - open - 2));
    auto it = vals.find(key);
    if (it != vals.end()) os << it->second;
    else os << tpl.substr(open, close + 2 - open);
    i = close + 2;
  }
}

constexpr std::string_view kFallbackTemplate =
    "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{{TITLE}}</title><style>{{CSS}}</style>"
    "</head><body data-ready=\"0\"><h1>{{TITLE}}</h1><p>{{META}}</p>{{SUMMARY}}<form id=\"filters\">{{FILTERS}}"
    "<input type=\"search\" id=\"f-text\"><input type=\"checkbox\" id=\"f-suppressed\"><span id=\"shown\"></span>"
    "</form>{{FINDINGS}}{{CONDITIONALS}}{{RUNS}}{{RULES}}<script type=\"application/json\" id=\"report-data\">{{DATA}}"
    "</script><script>{{JS}}</script></body></html>";

// " — executor: 3 pass, 1 fail" for the summary line of a conditional with executor or diff results.
std::string checks_summary(const IfChecks* ic, const FileResult& f) {
  if (!ic) return std::string();
  CheckCounts n;
  for (const auto& side : ic->branch)
    for (const auto& b : side) n.add(b);
  return " — " + std::string(f.checks->kind == "diff" ? "diff" : "executor") + ": " + std::to_string(n.pass) +
         " pass, " + std::to_string(n.fail) + " fail" +
         (n.unsupported ? ", " + std::to_string(n.unsupported) + " unsupported" : std::string());
}

bool failing(const IfChecks* ic) {
  if (ic)
    for (const auto& side : ic->branch)
      for (const auto& b : side)
        if (b.verdict == "fail" || b.verdict == "unsupported") return true;
  return false;
}

// The page's parts, each from the run's results and the counts every part shares.
class Page {
 public:
  explicit Page(const RunResult& run) : r(run), s(summarize(run)), kind(run.run.report_kind) {
    suppressed = s.suppressed;
    lint_page = kind != "run" && kind != "diff";
    for (const auto& f : r.files) {
      const std::string fmt = f.format.empty() ? "unknown" : f.format;
      formats_seen.insert(fmt);
      for (const auto& x : f.findings) {
        ++by_rule[x.rule];
        ++by_format[fmt];
        rules_seen.insert(x.rule);
      }
      for (const auto& x : f.suppressed) rules_seen.insert(x.finding.rule);
    }
    // The lint page counts findings for every format seen, 0 included (its table and the page data list them).
    if (lint_page)
      for (const auto& fmt : formats_seen) by_format[fmt] += 0;
    // Executor / diff rows over every file (the per-branch tables draw from the same rows).
    for (const auto& f : r.files)
      if (f.checks) {
        ++files_with_checks;
        for (const auto& b : f.checks->runs) all_rows.add(b);
        runs_passed += f.checks->passed;
        runs_failed += f.checks->failed;
        runs_other += f.checks->other;
      }
  }

  // Summary: cards per level, tables per rule and per format.
  std::string summary() const {
    std::ostringstream sum;
    sum << "<div class=\"cards\">\n";
    auto card = [&](const char* cls, const char* label, size_t n) {
      sum << "<div class=\"card " << cls << "\" data-count-" << cls << "=\"" << n << "\"><span class=\"n\">" << n
          << "</span>" << label << "</div>\n";
    };
    if (lint_page) {
      card("files", "files", s.files);
      card("error", "errors", s.errors);
      card("warning", "warnings", s.warnings);
      card("note", "notes", s.notes);
      card("suppressed", "suppressed", suppressed);
      if (s.io_errors) card("unreadable", "unreadable", s.io_errors);
    } else {
      const bool d = kind == "diff";
      card("files", d ? "models" : "model", s.files);
      card("runs", "runs", runs_passed + runs_failed + runs_other);
      card("passed", d ? "agree" : "passed", runs_passed);
      card("failed", d ? "diverge or failed" : "failed", runs_failed);
      card("other", d ? "not comparable" : "unsupported", runs_other);
    }
    if (files_with_checks) {
      card("rows-pass", "passing outputs", all_rows.pass);
      card("rows-fail", "failing outputs", all_rows.fail);
    }
    if (r.run.has_baseline) {
      size_t fresh = 0;
      for (const auto& f : r.files)
        for (const auto& i : f.info) fresh += i.baseline == "new";
      card("new", "new vs baseline", fresh);
      card("absent", "fixed vs baseline", r.run.absent.size());
    }
    sum << "</div>\n";
    if (lint_page) {  // per rule and per format: the lint page only
      sum << "<div class=\"counts\">\n<div><h3>Per rule</h3><ul id=\"by-rule\" class=\"chips\">\n";
      for (const auto& [rule, n] : by_rule) {
        const RuleDef* d = find_rule(rule);
        sum << "<li data-rule=\"" << esc(rule) << "\" data-count=\"" << n << "\"><a href=\"#rule-" << esc(rule)
            << "\" title=\"" << esc(d ? std::string(d->summary) : rule) << "\">" << esc(rule) << "</a> <b>" << n
            << "</b></li>\n";
      }
      sum << "</ul></div>\n<div><h3>Per format</h3><table "
             "id=\"by-format\"><thead><tr><th>Format</th><th>Files</th><th>Findings</th></tr></thead><tbody>\n";
      for (const auto& fmt : formats_seen) {
        size_t files = 0;
        for (const auto& f : r.files) files += (f.format.empty() ? "unknown" : f.format) == fmt;
        sum << "<tr data-format=\"" << esc(fmt) << "\"><td>" << esc(fmt) << "</td><td>" << files << "</td><td>"
            << by_format.at(fmt) << "</td></tr>\n";
      }
      sum << "</tbody></table></div>\n</div>\n";
    }
    return sum.str();
  }

  // Filters: level, rule, format.
  std::string filters() const {
    std::ostringstream fil;
    fil << "<fieldset><legend>Level</legend>";
    for (const char* l : {"error", "warning", "note"})
      fil << "<label><input type=\"checkbox\" data-filter=\"level\" value=\"" << l << "\" checked> " << l
          << "</label> ";
    fil << "</fieldset>\n<fieldset><legend>Rule</legend>";
    for (const auto& rule : rules_seen)
      fil << "<label><input type=\"checkbox\" data-filter=\"rule\" value=\"" << esc(rule) << "\" checked> " << esc(rule)
          << "</label> ";
    fil << "</fieldset>\n<fieldset><legend>Format</legend>";
    for (const auto& fmt : formats_seen)
      fil << "<label><input type=\"checkbox\" data-filter=\"format\" value=\"" << esc(fmt) << "\" checked> " << esc(fmt)
          << "</label> ";
    fil << "</fieldset>";
    return fil.str();
  }

  // The findings table, then the unreadable files.
  std::string findings() const {
    std::ostringstream tab;
    tab << "<table id=\"findings-table\"><thead><tr>"
           "<th class=\"sortable\" data-key=\"level\" data-type=\"number\">Level</th>"
           "<th class=\"sortable\" data-key=\"rule\">Rule</th>"
           "<th class=\"sortable\" data-key=\"file\">File</th>"
           "<th class=\"sortable\" data-key=\"line\" data-type=\"number\">Line</th>"
           "<th class=\"sortable\" data-key=\"node\">Node</th>"
           "<th class=\"sortable\" data-key=\"message\">Message</th>";
    if (r.run.has_baseline) tab << "<th class=\"sortable\" data-key=\"baseline\">Baseline</th>";
    tab << "</tr></thead><tbody>\n";
    size_t order = 0;
    auto row = [&](const FileResult& f, const Finding& x, const ResultInfo* info, const SuppressedFinding* sup) {
      const std::string lvl(to_string(x.level));
      const std::string file = x.loc.file.empty() ? f.path : x.loc.file;
      tab << "<tr class=\"finding" << (sup ? " suppressed" : "") << "\" data-order=\"" << order++ << "\" data-level=\""
          << lvl << "\" data-rule=\"" << esc(x.rule) << "\" data-format=\""
          << esc(f.format.empty() ? "unknown" : f.format) << "\">";
      tab << "<td data-sort=\"" << level_rank(x.level) << "\"><span class=\"lvl " << lvl << "\">" << lvl
          << "</span></td>";
      tab << "<td><a class=\"rule-link\" href=\"#rule-" << esc(x.rule) << "\" title=\"" << esc(x.name) << "\">"
          << esc(x.rule) << "</a></td>";
      tab << "<td class=\"mono path\">" << path_html(file) << "</td>";
      tab << "<td data-sort=\"" << x.loc.line << "\">" << (x.loc.line > 0 ? std::to_string(x.loc.line) : "") << "</td>";
      tab << "<td class=\"mono path\">"
          << path_html(x.loc.pointer.empty() ? x.loc.node : x.loc.node + " " + x.loc.pointer) << "</td>";
      tab << "<td class=\"msg\">" << esc(x.message);
      if (sup)
        tab << " <span class=\"state\" title=\"" << esc(sup->justification) << "\">[" << esc(sup->kind) << "]</span>";
      if (x.fixable != Fixable::No)
        tab << " <span class=\"state\" title=\"condlint fix repairs it (rules/" << esc(x.rule) << ".md)\">[fixable"
            << (x.fixable == Fixable::Unsafe ? " with --unsafe-fixes" : "") << "]</span>";
      tab << "</td>";
      if (r.run.has_baseline) tab << "<td class=\"state\">" << esc(info ? info->baseline : "") << "</td>";
      tab << "</tr>\n";
    };
    for (const auto& f : r.files) {
      for (size_t i = 0; i < f.findings.size(); ++i)
        row(f, f.findings[i], i < f.info.size() ? &f.info[i] : nullptr, nullptr);
      for (const auto& x : f.suppressed) row(f, x.finding, &x.info, &x);
    }
    tab << "</tbody></table>\n";
    if (order == 0) tab << "<p class=\"empty\">No findings.</p>\n";
    bool any_unreadable = false;
    for (const auto& f : r.files)
      if (!f.io_error.empty()) {
        if (!any_unreadable) tab << "<h3>Unreadable files</h3><ul id=\"unreadable\">\n";
        any_unreadable = true;
        tab << "<li><span class=\"mono\">" << path_html(f.path) << "</span>: " << esc(f.io_error) << "</li>\n";
      }
    if (any_unreadable) tab << "</ul>\n";
    return tab.str();
  }

  // Conditionals: then/else side by side, with their executor or diff tables.
  std::string conditionals() {
    std::ostringstream cond;
    for (const auto& f : r.files) {
      const bool has_ifs = f.checks && !f.checks->ifs.empty();
      if (f.conditionals.empty() && !has_ifs) continue;
      cond << "<h3 class=\"mono\">" << path_html(f.path) << "</h3>\n";
      // The executor/diff results of each conditional, and the Ifs no summary matched.
      std::map<std::string, const IfChecks*> checks_of;
      std::vector<const IfChecks*> unmatched;
      if (f.checks)
        for (const auto& ic : f.checks->ifs) {
          if (!ic.cond_path.empty() && checks_of.emplace(ic.cond_path, &ic).second) continue;
          unmatched.push_back(&ic);
        }
      for (const ConditionalSummary* c : in_model_order(f.conditionals)) {
        ++ncond;
        auto it = checks_of.find(c->path);
        cond << conditional_panel(f, *c, it == checks_of.end() ? nullptr : it->second);
      }
      for (const IfChecks* ic : unmatched) {
        ++ncond;
        cond << "<details class=\"cond exec-only" << (failing(ic) ? " has-failures" : "") << "\" data-path=\""
             << esc(ic->if_path) << "\"" << (failing(ic) || !lint_page ? " open" : "")
             << "><summary><strong>If</strong> <span class=\"mono\">" << path_html(ic->if_path) << "</span>"
             << esc(checks_summary(ic, f)) << "</summary>\n";
        cond << branch_checks_html(*ic, *f.checks);
        ++nbranch_tables;
        cond << "</details>\n";
      }
    }
    if (ncond == 0) {
      cond << "<p class=\"empty\">No conditionals.</p>\n";
      return cond.str();
    }
    return std::string(kLegend) + cond.str();
  }

  // One conditional's panel: its bindings then/else, the condition, and its executor or diff tables.
  std::string conditional_panel(const FileResult& f, const ConditionalSummary& c, const IfChecks* ic) {
    std::ostringstream out;
    const bool open = c.findings || failing(ic) || (!lint_page && ic);  // run/diff pages: the tables are the point
    out << "<details class=\"cond" << (c.findings ? " has-findings" : "") << (failing(ic) ? " has-failures" : "")
        << "\" data-path=\"" << esc(c.path) << "\"" << (open ? " open" : "") << "><summary><strong>" << esc(c.name)
        << "</strong> <span class=\"mono\">" << path_html(c.path) << "</span>";
    if (c.line > 0) out << " line " << c.line;
    out << " — " << c.findings << (c.findings == 1 ? " finding" : " findings") << esc(checks_summary(ic, f))
        << "</summary>\n";
    out << "<table class=\"panel\"><thead><tr><th>Binding</th><th class=\"then\">then</th><th>conditional</th>"
           "<th class=\"else\">else</th></tr></thead><tbody>\n";
    auto branch_note = [&](int b) {
      if (!c.has_branch[b]) return std::string("<span class=\"absent\">no ") + (b ? "else" : "then") + " branch</span>";
      return c.branch_status[b].empty() ? std::string()
                                        : "<span class=\"absent\">" + esc(c.branch_status[b]) + "</span>";
    };
    out << "<tr class=\"condition\"><td>condition</td><td class=\"branch\">" << branch_note(0) << "</td>"
        << (c.has_condition ? cell_html(c.condition, "outer")
                            : "<td class=\"outer\"><span class=\"absent\">none</span></td>")
        << "<td class=\"branch\">" << branch_note(1) << "</td></tr>\n";
    if (!c.provenance.empty())
      out << "<tr class=\"condition\"><td>computed as</td><td class=\"branch\"></td><td class=\"outer mono\">"
          << esc(c.provenance) << "</td><td class=\"branch\"></td></tr>\n";
    for (const auto& row_ : c.rows) {
      out << "<tr class=\"" << row_.kind << (row_.type_differs || row_.shape_differs ? " differs" : "") << "\"><td>"
          << row_.kind << " " << row_.index << "</td>" << cell_html(row_.branch[0], "branch")
          << cell_html(row_.outer, "outer") << cell_html(row_.branch[1], "branch") << "</tr>\n";
    }
    out << "</tbody></table>\n";
    if (ic) {
      out << branch_checks_html(*ic, *f.checks);
      ++nbranch_tables;
    }
    out << "</details>\n";
    return out.str();
  }

  // Every executor / diff run, per file.
  std::string runs() const {
    std::ostringstream runs;
    for (const auto& f : r.files) {
      if (!f.checks) continue;
      const CheckReport& c = *f.checks;
      CheckCounts n;
      for (const auto& b : c.runs) n.add(b);
      runs << "<div class=\"file-runs\" data-file=\"" << esc(f.path) << "\" data-rows=\"" << n.rows << "\" data-pass=\""
           << n.pass << "\" data-fail=\"" << n.fail << "\"><h3 class=\"mono\">" << path_html(f.path) << "</h3>\n<p>"
           << (c.passed + c.failed + c.other) << " runs: " << c.passed << (c.kind == "diff" ? " agree, " : " passed, ")
           << c.failed << (c.kind == "diff" ? " diverge or failed, " : " failed, ") << c.other
           << (c.kind == "diff" ? " not comparable" : " unsupported") << "; outputs: " << n.pass << " pass, " << n.fail
           << " fail";
      if (c.kind == "diff")
        runs << " — <span class=\"mono\">" << esc(c.runtimes[0]) << "</span> vs <span class=\"mono\">"
             << esc(c.runtimes[1]) << "</span>";
      runs << "</p>\n";
      if (!c.error.empty()) runs << "<p class=\"error-text\">" << esc(c.error) << "</p>\n";
      if (!c.coverage_summary.empty()) runs << "<p class=\"coverage\">" << esc(c.coverage_summary) << "</p>\n";
      for (const auto& note : c.notes) runs << "<p class=\"state\">" << esc(note) << "</p>\n";
      if (!c.runs.empty()) runs << check_table(c.runs, c, "run-check", "");
      runs << "</div>\n";
    }
    return runs.str();
  }

  // Rule help, for every rule that has a finding.
  std::string rules_help() const {
    std::ostringstream help;
    for (const auto& id : rules_seen) {
      const RuleDef* d = find_rule(id);
      help << "<article class=\"rule-help\" id=\"rule-" << esc(id) << "\">\n";
      const std::string_view page = embedded::rule_page(id);
      if (!page.empty()) help << markdown_to_html(page);
      else
        help << "<h3>" << esc(id) << "</h3><p>" << esc(d ? std::string(d->summary) : std::string("unknown rule"))
             << "</p>";
      help << "</article>\n";
    }
    return help.str();
  }

  const RunResult& r;
  const Summary s;
  const std::string& kind;
  size_t suppressed = 0;
  bool lint_page = true;
  std::map<std::string, size_t> by_rule, by_format;
  std::set<std::string> rules_seen, formats_seen;
  CheckCounts all_rows;
  size_t runs_passed = 0, runs_failed = 0, runs_other = 0, files_with_checks = 0;
  size_t ncond = 0, nbranch_tables = 0;  // counted by conditionals()
};

}  // namespace

void write_html(std::ostream& os, const RunResult& r) {
  Page p(r);
  const std::string sum = p.summary(), fil = p.filters(), tab = p.findings(), cond = p.conditionals(), runs = p.runs(),
                    help = p.rules_help();
  const Summary& s = p.s;
  const std::string& kind = p.kind;
  const bool lint_page = p.lint_page;
  // ---- Machine-readable counts (tests and scripts read them) ----
  nlohmann::json data{{"files", s.files},   {"errors", s.errors},         {"warnings", s.warnings},
                      {"notes", s.notes},   {"suppressed", p.suppressed}, {"conditionals", p.ncond},
                      {"rules", p.by_rule}, {"formats", p.by_format}};
  data["kind"] = lint_page ? "lint" : kind;
  if (p.files_with_checks)
    data["checks"] = {{"runs", p.runs_passed + p.runs_failed + p.runs_other},
                      {"runs_passed", p.runs_passed},
                      {"runs_failed", p.runs_failed},
                      {"runs_other", p.runs_other},
                      {"rows", p.all_rows.rows},
                      {"rows_pass", p.all_rows.pass},
                      {"rows_fail", p.all_rows.fail},
                      {"branch_tables", p.nbranch_tables}};
  std::string data_text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string safe;
  for (char c : data_text) safe += c == '<' ? std::string("\\u003c") : std::string(1, c);

  std::ostringstream meta;
  meta << "condlint " << CONDLINT_VERSION << " · " << s.files << (s.files == 1 ? " file" : " files");
  if (!r.run.meta.empty()) meta << " · " << esc(r.run.meta);
  meta << " · exit code " << r.run.exit_code;

  const std::string title = kind == "run"    ? "condlint run report"
                            : kind == "diff" ? "condlint diff report"
                                             : "condlint report";
  const std::string hidden = " hidden";
  std::map<std::string, std::string> vals{
      {"TITLE", title},
      {"FINDINGS_HIDDEN", lint_page ? "" : hidden},
      {"RULES_HIDDEN", lint_page ? "" : hidden},
      {"RUNS_HIDDEN", p.files_with_checks ? "" : hidden},
      {"RUNS_TITLE", kind == "diff" ? "Runs (every variant x data set x output)"
                                    : "Executor runs (every data set x pin set x output)"},
      {"RUNS", runs},
      {"META", meta.str()},
      {"CSS", std::string(embedded::asset("report.css"))},
      {"JS", std::string(embedded::asset("report.js"))},
      {"SUMMARY", sum},
      {"FILTERS", fil},
      {"FINDINGS", tab},
      {"CONDITIONALS", cond},
      {"RULES", help},
      {"DATA", safe}};
  const std::string_view tpl = embedded::asset("template.html");
  replace_all_placeholders(tpl.empty() ? kFallbackTemplate : tpl, vals, os);
}

}  // namespace condlint
