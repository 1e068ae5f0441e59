// Executor and diff results as report rows (report/checks.hpp).
#include "report/checks.hpp"

#include "exec/branch_policy.hpp"

#include <filesystem>
#include <map>
#include <set>

#include "diff/diff.hpp"
#include "exec/runner.hpp"
#include "loaders/loader.hpp"

namespace condlint {

namespace fs = std::filesystem;

namespace {

std::string data_set_label(const std::string& d) {
  if (d.empty()) return "(no inputs)";
  const std::string f = fs::path(d).filename().string();
  return f.empty() ? d : f;
}

std::string pins_text(const std::map<std::string, bool>& pins) {
  std::string s;
  for (const auto& [k, v] : pins) s += (s.empty() ? "" : ", ") + k + "=" + (v ? "then" : "else");
  return s;
}

// "atol=1e-05 rtol=0.001" -> "1e-05", "0.001".
void split_tolerance(BranchCheck& b) {
  auto word = [&](const std::string& key) -> std::string {
    const auto p = b.tolerance.find(key + "=");
    if (p == std::string::npos) return {};
    const auto start = p + key.size() + 1;
    const auto end = b.tolerance.find_first_of(" ,;)", start);
    return b.tolerance.substr(start, end == std::string::npos ? std::string::npos : end - start);
  };
  b.atol = word("atol");
  b.rtol = word("rtol");
}

std::vector<BranchCheck> rows_of(const exec::CaseResult& c) {
  BranchCheck base;
  base.data_set = data_set_label(c.data_set);
  if (!c.synthesized.empty()) base.data_set += " (synthesized: " + c.synthesized + ")";
  base.pins = pins_text(c.pins);
  base.derived = c.derived;
  std::string problems;
  for (const auto& p : c.branch_problems) problems += (problems.empty() ? "" : "; ") + p;
  auto with_problems = [&](std::string d) {
    if (!problems.empty() && c.status != exec::CaseStatus::Passed && d.find(problems) == std::string::npos)
      d += (d.empty() ? "" : "; ") + problems;
    return d;
  };
  std::vector<BranchCheck> rows;
  const bool whole_run_failed = c.status == exec::CaseStatus::Failed || c.status == exec::CaseStatus::Unsupported;
  if (whole_run_failed || c.outputs.empty()) {
    // One row for the run: it did not get as far as outputs (or has none).
    BranchCheck b = base;
    b.status = c.status == exec::CaseStatus::Passed ? "ran" : exec::to_string(c.status);
    b.verdict = c.status == exec::CaseStatus::Unsupported ? "unsupported"
                : c.status == exec::CaseStatus::Passed    ? "info"
                                                          : "fail";
    b.detail = with_problems(c.message);
    rows.push_back(std::move(b));
  }
  for (const auto& o : c.outputs) {
    if (whole_run_failed && o.ok) continue;  // the run's own row says it all
    BranchCheck b = base;
    b.output = o.name;
    b.compared = o.compared;
    b.max_abs = o.max_abs;
    b.max_rel = o.max_rel;
    b.tolerance = o.tolerance;
    split_tolerance(b);
    b.first_index = o.first_index;
    b.detail = with_problems(o.detail);
    if (!o.ok) {
      b.status = "mismatch";
      b.verdict = "fail";
    } else if (o.compared) {
      b.status = "passed";
      b.verdict = "pass";
    } else {
      b.status = "no golden data";
      b.verdict = "info";
    }
    rows.push_back(std::move(b));
  }
  return rows;
}

std::vector<BranchCheck> rows_of(const diff::CaseDiff& c, const std::vector<std::string>& runtimes) {
  BranchCheck base;
  base.data_set = data_set_label(c.data_set);
  base.pins = pins_text(c.pins);
  base.derived = !c.pins.empty();
  std::vector<BranchCheck> rows;
  if (c.status == diff::CaseDiff::Status::Failed || c.outputs.empty()) {
    BranchCheck b = base;
    b.status = c.status == diff::CaseDiff::Status::Failed ? "failed" : "not comparable";
    b.verdict = c.status == diff::CaseDiff::Status::Failed ? "fail" : "info";
    b.detail = c.message;
    for (size_t i = 0; i < c.runtime_errors.size(); ++i)
      if (!c.runtime_errors[i].empty())
        b.detail += (b.detail.empty() ? "" : "; ") + (i < runtimes.size() ? runtimes[i] : "runtime") + ": " +
                    c.runtime_errors[i];
    rows.push_back(std::move(b));
    if (c.status == diff::CaseDiff::Status::Failed) return rows;
  }
  for (const auto& o : c.outputs) {
    BranchCheck b = base;
    b.output = o.name;
    b.compared = o.status != diff::OutputDiff::Status::NotComparable;
    b.max_abs = o.max_abs;
    b.max_rel = o.max_rel;
    b.tolerance = o.tolerance;
    split_tolerance(b);
    b.first_index = o.first_index;
    b.value_a = o.value_a;
    b.value_b = o.value_b;
    b.mismatches = o.mismatches;
    b.detail = o.detail;
    switch (o.status) {
      case diff::OutputDiff::Status::Agree:
        b.status = "agree";
        b.verdict = "pass";
        break;
      case diff::OutputDiff::Status::Diverge:
        b.status = "diverge";
        b.verdict = "fail";
        break;
      case diff::OutputDiff::Status::NotComparable:
        b.status = "not comparable";
        b.verdict = "info";
        break;
    }
    rows.push_back(std::move(b));
  }
  return rows;
}

}  // namespace

CheckReport checks_from_run(const exec::ModelResult& r) {
  CheckReport c;
  c.kind = "exec";
  c.error = r.error;
  std::map<std::string, IfChecks> ifs;
  for (const auto& [p, b] : r.if_coverage) ifs[p].if_path = p;
  for (const auto& cs : r.cases) {
    if (cs.status == exec::CaseStatus::Passed) ++c.passed;
    else if (cs.status == exec::CaseStatus::Unsupported) ++c.other;
    else ++c.failed;
    const std::vector<BranchCheck> rows = rows_of(cs);
    c.runs.insert(c.runs.end(), rows.begin(), rows.end());
    std::set<std::pair<std::string, bool>> placed;
    auto place = [&](const std::string& p, bool branch) {
      if (!placed.insert({p, branch}).second) return;
      IfChecks& ic = ifs[p];
      ic.if_path = p;
      auto& side = ic.branch[branch ? 0 : 1];
      side.insert(side.end(), rows.begin(), rows.end());
    };
    for (const auto& [p, took] : cs.if_branches)
      for (bool b : took) place(p, b);
    // A run that failed before reaching a pinned If still belongs to the branch it was pinned to.
    for (const auto& [p, b] : cs.pins)
      if (!cs.if_branches.count(p) && cs.status != exec::CaseStatus::Passed) place(p, b);
  }
  const auto coverage = exec::branch_coverage(r);
  for (const auto& bc : coverage) {
    IfChecks& ic = ifs[bc.if_path];
    ic.if_path = bc.if_path;
    ic.coverage[bc.branch ? 0 : 1] = bc.how;
    ic.coverage_why[bc.branch ? 0 : 1] = bc.why;
  }
  if (!coverage.empty()) c.coverage_summary = exec::coverage_summary(coverage);
  for (auto& [p, ic] : ifs) c.ifs.push_back(std::move(ic));
  return c;
}

CheckReport checks_from_diff(const diff::ModelDiff& m, const std::vector<std::string>& runtimes) {
  CheckReport c;
  c.kind = "diff";
  for (size_t i = 0; i < 2 && i < runtimes.size(); ++i) c.runtimes[i] = runtimes[i];
  // With more than two runtimes a row is one pair (its output names it, "y (ref vs openvino)"): the second column
  // holds that pair's other runtime's values, so it is not headed by one name.
  for (size_t i = 2; i < runtimes.size(); ++i) c.runtimes[1] += " / " + runtimes[i];
  c.error = m.error;
  c.notes = m.notes;
  std::map<std::string, IfChecks> ifs;
  for (const auto& p : m.ifs) ifs[p].if_path = p;
  for (const auto& cs : m.cases) {
    if (cs.status == diff::CaseDiff::Status::Agree) ++c.passed;
    else if (cs.status == diff::CaseDiff::Status::NotComparable) ++c.other;
    else ++c.failed;
    const std::vector<BranchCheck> rows = rows_of(cs, runtimes);
    c.runs.insert(c.runs.end(), rows.begin(), rows.end());
    // The branch of each If: pinned in a variant, or the one the data took (ref saw it) in the model as given.
    std::map<std::string, bool> where = cs.pins.empty() ? cs.took : cs.pins;
    if (!cs.pins.empty())
      for (const auto& [p, b] : cs.took) where.emplace(p, b);
    for (const auto& [p, b] : where) {
      IfChecks& ic = ifs[p];
      ic.if_path = p;
      auto& side = ic.branch[b ? 0 : 1];
      side.insert(side.end(), rows.begin(), rows.end());
    }
  }
  for (auto& [p, ic] : ifs) c.ifs.push_back(std::move(ic));
  return c;
}

void attach_checks(FileResult& f, CheckReport c) {
  std::map<std::string, std::string> by_exec_path;  // executor's path -> summary path
  for (const auto& s : f.conditionals) by_exec_path.emplace(s.exec_path, s.path);
  for (auto& ic : c.ifs)
    if (auto it = by_exec_path.find(ic.if_path); it != by_exec_path.end()) ic.cond_path = it->second;
  f.checks = std::make_shared<const CheckReport>(std::move(c));
}

namespace {

FileResult file_for(const std::string& model, const LoadResult* opened) {
  FileResult f;
  f.path = model;
  if (opened && opened->format) f.format = std::string(to_string(*opened->format));
  std::error_code ec;
  const auto size = fs::file_size(model, ec);
  if (!ec) f.size = static_cast<int64_t>(size);
  // The then/else binding panels come from the model the command opened; a model that did not load has none.
  if (opened && opened->model) f.conditionals = summarize_conditionals(*opened->model, {});
  return f;
}

}  // namespace

void write_run_html(std::ostream& os, const exec::ModelResult& r, int exit_code, const LoadResult* opened) {
  RunResult rr;
  rr.run.report_kind = "run";
  rr.run.exit_code = exit_code;
  rr.run.execution_successful = exit_code != 2;
  FileResult f = file_for(r.model, opened);
  attach_checks(f, checks_from_run(r));
  rr.files.push_back(std::move(f));
  write_html(os, rr);
}

void write_diff_html(std::ostream& os, const diff::DiffResult& r, int exit_code,
                     const std::vector<const LoadResult*>& opened) {
  RunResult rr;
  rr.run.report_kind = "diff";
  rr.run.exit_code = exit_code;
  rr.run.execution_successful = exit_code != 2;
  const std::string a = r.runtimes.size() > 0 ? r.runtimes[0] : "A", b = r.runtimes.size() > 1 ? r.runtimes[1] : "B";
  rr.run.meta = a + " vs " + b;
  for (size_t x = 2; x < r.runtimes.size(); ++x) rr.run.meta += " vs " + r.runtimes[x];
  for (size_t i = 0; i < r.models.size(); ++i) {
    const auto& m = r.models[i];
    FileResult f = file_for(m.model, i < opened.size() ? opened[i] : nullptr);
    attach_checks(f, checks_from_diff(m, r.runtimes));
    rr.files.push_back(std::move(f));
  }
  write_html(os, rr);
}

}  // namespace condlint
