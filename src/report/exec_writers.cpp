// Text and JSON reports of `condlint run` (executor vs golden data) and `condlint diff` (runtime A vs runtime B).
// The exec and diff layers return results; these writers render them (the HTML pages are in checks.cpp).
// Text goes to terminals and CI logs, so every string that comes from a model or a path passes term_safe.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "diff/diff.hpp"
#include "exec/runner.hpp"
#include "onnx_graph/if_sites.hpp"
#include "report/checks.hpp"
#include "report/terminal.hpp"

namespace condlint {

namespace fs = std::filesystem;
using exec::ModelResult;

namespace {

// Model-derived text may hold any bytes; JSON output replaces invalid UTF-8 instead of failing.
void dump_json(std::ostream& os, const nlohmann::json& j) {
  os << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

std::string pins_str(const std::map<std::string, bool>& pins) {
  std::string s;
  for (auto& [k, v] : pins) s += (s.empty() ? "" : ", ") + k + "=" + (v ? "true" : "false");
  return s;
}

// A data set directory by its last segment; names condlint gave (random and synthesized sets) as they are.
std::string data_set_name(const std::string& data_set) {
  if (data_set.rfind("synthesized: ", 0) == 0 || data_set.rfind("random_", 0) == 0) return data_set;
  return fs::path(data_set).filename().string();
}

const char* status_name(diff::CaseDiff::Status s) {
  switch (s) {
    case diff::CaseDiff::Status::Agree: return "agree";
    case diff::CaseDiff::Status::Diverge: return "diverge";
    case diff::CaseDiff::Status::Failed: return "failed";
    case diff::CaseDiff::Status::NotComparable: return "not comparable";
  }
  return "?";
}

const char* out_status_name(diff::OutputDiff::Status s) {
  switch (s) {
    case diff::OutputDiff::Status::Agree: return "agree";
    case diff::OutputDiff::Status::Diverge: return "diverge";
    case diff::OutputDiff::Status::NotComparable: return "not comparable";
  }
  return "?";
}

void write_coverage_text(std::ostream& os, const std::vector<exec::BranchCoverage>& cov) {
  for (size_t i = 0; i < cov.size(); ++i) {
    // An If no run reached: both branches have one reason, said once.
    if (i + 1 < cov.size() && cov[i].how == "not reached" && cov[i + 1].if_path == cov[i].if_path &&
        cov[i + 1].how == cov[i].how && cov[i + 1].why == cov[i].why) {
      os << "  If " << term_safe(cov[i].if_path) << ": not reached (" << term_safe(cov[i].why) << ")\n";
      ++i;
      continue;
    }
    if (i == 0 || cov[i].if_path != cov[i - 1].if_path) os << "  If " << term_safe(cov[i].if_path) << ":";
    os << (cov[i].branch ? " then " : " else ") << cov[i].how;
    if (!cov[i].why.empty()) os << " (" << term_safe(cov[i].why) << ")";
    os << (i + 1 == cov.size() || cov[i + 1].if_path != cov[i].if_path ? "\n" : ";");
  }
  if (!cov.empty()) os << exec::coverage_summary(cov) << "\n";
}

}  // namespace

void write_run_text(std::ostream& os, const ModelResult& r) {
  os << term_safe(r.model) << "\n";
  if (!r.error.empty()) {
    os << "  error: " << term_safe(r.error) << "\n";
    return;
  }
  for (const auto& c : r.cases) {
    os << "  " << to_string(c.status) << "  "
       << (c.data_set.empty() ? "(no inputs)" : term_safe(data_set_name(c.data_set)));
    if (!c.pins.empty()) os << "  pins: " << term_safe(pins_str(c.pins));
    if (c.derived) os << "  [other branch, " << (c.golden ? "compared" : "no golden data") << "]";
    if (!c.synthesized.empty()) os << "  [synthesized: " << term_safe(c.synthesized) << "]";
    os << "\n";
    if (!c.message.empty()) os << "      " << term_safe(c.message) << "\n";
    for (const auto& o : c.outputs)
      if (o.compared && o.ok)
        os << "      output '" << term_safe(o.name) << "': max abs err " << o.max_abs << ", max rel err " << o.max_rel
           << " (" << o.tolerance << ")\n";
    // A mismatch says its first branch problem as its message; a run that failed says what failed, and the branch
    // problems before it (often the cause: a branch gave a shape the layers after it cannot take) follow.
    const bool first_said = !c.branch_problems.empty() && c.message == c.branch_problems.front();
    for (size_t k = first_said ? 1 : 0; k < c.branch_problems.size(); ++k)
      os << "      " << (first_said ? "" : "before it: ") << term_safe(c.branch_problems[k]) << "\n";
    if (!c.saved_to.empty()) os << "      saved to " << term_safe(c.saved_to) << "\n";
  }
  write_coverage_text(os, exec::branch_coverage(r));
  os << "summary: " << r.passed << " passed, " << r.failed << " failed, " << r.unsupported << " unsupported\n";
}

namespace {

nlohmann::json run_case_json(const exec::CaseResult& c) {
  nlohmann::json jc;
  jc["data_set"] = c.data_set;
  jc["status"] = to_string(c.status);
  jc["pins"] = nlohmann::json::object();
  for (auto& [k, v] : c.pins) jc["pins"][k] = v;
  jc["derived"] = c.derived;
  if (!c.synthesized.empty()) jc["synthesized"] = c.synthesized;
  jc["golden"] = c.golden;
  if (!c.message.empty()) jc["message"] = c.message;
  jc["ms"] = c.ms;
  jc["outputs"] = nlohmann::json::array();
  for (const auto& o : c.outputs) {
    nlohmann::json jo{{"name", o.name}, {"compared", o.compared}, {"ok", o.ok}};
    if (o.compared) {
      jo["max_abs_error"] = o.max_abs;
      jo["max_rel_error"] = o.max_rel;
      jo["tolerance"] = o.tolerance;
    }
    if (!o.first_index.empty()) jo["first_mismatch"] = o.first_index;
    if (!o.detail.empty()) jo["detail"] = o.detail;
    jc["outputs"].push_back(jo);
  }
  jc["branch_problems"] = c.branch_problems;
  jc["ifs"] = nlohmann::json::object();
  for (auto& [p, b] : c.if_branches) {
    auto& arr = jc["ifs"][p] = nlohmann::json::array();
    for (bool x : b) arr.push_back(x ? "then" : "else");
  }
  if (!c.saved_to.empty()) jc["saved_to"] = c.saved_to;
  return jc;
}

}  // namespace

void write_run_json(std::ostream& os, const ModelResult& r) {
  nlohmann::json j;
  j["model"] = r.model;
  if (!r.error.empty()) j["error"] = r.error;
  j["summary"] = {{"passed", r.passed}, {"failed", r.failed}, {"unsupported", r.unsupported}, {"runs", r.cases.size()}};
  j["cases"] = nlohmann::json::array();
  for (const auto& c : r.cases) j["cases"].push_back(run_case_json(c));
  j["if_coverage"] = nlohmann::json::object();
  for (auto& [p, b] : r.if_coverage) {
    auto& arr = j["if_coverage"][p] = nlohmann::json::array();
    for (bool x : b) arr.push_back(x ? "then" : "else");
  }
  const auto cov = exec::branch_coverage(r);
  j["branch_coverage"] = nlohmann::json::array();
  std::map<std::string, int> n;
  for (const auto& c : cov) {
    ++n[c.how];
    nlohmann::json e = {{"if", c.if_path}, {"branch", c.branch ? "then" : "else"}, {"how", c.how}};
    if (!c.why.empty()) e["why"] = c.why;
    j["branch_coverage"].push_back(std::move(e));
  }
  j["summary"]["branches"] = {{"data", n["data"]},       {"synthesized", n["synthesized"]},
                              {"pinned", n["pinned"]},   {"dead", n["dead"]},
                              {"guarded", n["guarded"]}, {"not_covered", n["not covered"]},
                              {"not_run", n["not run"]}, {"not_reached", n["not reached"]}};
  dump_json(os, j);
}

namespace {

void write_output_diff_text(std::ostream& os, const diff::OutputDiff& o, const std::string& A, const std::string& B) {
  const std::string name = term_safe(o.name);
  if (o.status == diff::OutputDiff::Status::NotComparable) {
    os << "      output '" << name << "': not comparable (" << term_safe(o.detail) << ")\n";
    return;
  }
  os << "      output '" << name << "': " << out_status_name(o.status) << ", max abs err "
     << diff::format_number(o.max_abs) << ", max rel err " << diff::format_number(o.max_rel)
     << (o.tolerance.empty() ? "" : " (" + o.tolerance + ")");
  if (o.mismatches > 0) os << "; " << o.mismatches << (o.mismatches == 1 ? " element differs" : " elements differ");
  if (!o.first_index.empty())
    os << "; first mismatch at " << o.first_index
       << (o.value_a.empty() ? "" : ": " + A + " " + o.value_a + ", " + B + " " + o.value_b);
  if (o.status == diff::OutputDiff::Status::Diverge && o.value_a.empty())
    os << "; " << B << " vs " << A << ": " << term_safe(o.detail);
  os << "\n";
}

void write_case_diff_text(std::ostream& os, const diff::CaseDiff& c, const diff::DiffResult& r, const std::string& A,
                          const std::string& B) {
  os << "  " << status_name(c.status) << "  " << (c.data_set.empty() ? "" : term_safe(data_set_name(c.data_set)))
     << "  branch: " << (c.pins.empty() ? "as the data takes it" : term_safe(onnx_graph::pins_label(c.pins)));
  if (c.pins.empty() && !c.took.empty()) os << " (" << term_safe(onnx_graph::pins_label(c.took)) << ")";
  os << "\n";
  if (!c.saved_to.empty()) os << "      saved to " << term_safe(c.saved_to) << "\n";
  // Every runtime that failed says why (when all fail, the case is not one runtime's fault).
  bool shown = false;
  for (size_t x = 0; x < c.runtime_errors.size() && x < r.runtimes.size(); ++x)
    if (!c.runtime_errors[x].empty()) {
      os << "      " << term_safe(r.runtimes[x]) << " failed: " << term_safe(c.runtime_errors[x]) << "\n";
      shown = true;
    }
  if (!c.message.empty() && !(shown && c.message.find(" failed: ") != std::string::npos))
    os << "      " << term_safe(c.message) << "\n";
  // With more than two runtimes each output row is one pair: its values are labelled with that pair's names.
  for (const auto& o : c.outputs)
    write_output_diff_text(os, o, A, o.runtime_b < r.runtimes.size() ? term_safe(r.runtimes[o.runtime_b]) : B);
}

}  // namespace

void write_diff_text(std::ostream& os, const diff::DiffResult& r) {
  const std::string A = term_safe(r.runtimes.size() > 0 ? r.runtimes[0] : "A");
  const std::string B = term_safe(r.runtimes.size() > 1 ? r.runtimes[1] : "B");
  int agree = 0, diverge = 0, failed = 0, nc = 0, nco = 0;
  for (const auto& m : r.models) {
    os << term_safe(m.model) << "  (" << A;
    for (size_t x = 1; x < r.runtimes.size(); ++x) os << " vs " << term_safe(r.runtimes[x]);
    os << ")\n";
    if (!m.error.empty()) {
      os << "  error: " << term_safe(m.error) << "\n";
      continue;
    }
    for (const auto& n : m.notes) os << "  note: " << term_safe(n) << "\n";
    for (const auto& c : m.cases) write_case_diff_text(os, c, r, A, B);
    os << "  " << m.cases.size() << " runs: " << m.agree << " agree, " << m.diverge << " diverge, " << m.failed
       << " failed, " << m.not_comparable << " not comparable (" << m.not_comparable_outputs
       << " outputs not comparable)\n";
    agree += m.agree;
    diverge += m.diverge;
    failed += m.failed;
    nc += m.not_comparable;
    nco += m.not_comparable_outputs;
  }
  os << "summary: " << agree << " agree, " << diverge << " diverge, " << failed << " failed, " << nc
     << " not comparable (" << nco << " outputs not comparable)\n";
}

namespace {

nlohmann::json case_diff_json(const diff::CaseDiff& c, const std::vector<std::string>& runtimes) {
  nlohmann::json jc;
  jc["data_set"] = c.data_set;
  jc["pins"] = nlohmann::json::object();
  for (const auto& [k, v] : c.pins) jc["pins"][k] = v ? "then" : "else";
  jc["branch"] = c.pins.empty() ? "taken" : onnx_graph::pins_label(c.pins);
  if (c.pins.empty()) {
    jc["took"] = nlohmann::json::object();
    for (const auto& [k, v] : c.took) jc["took"][k] = v ? "then" : "else";
  }
  jc["status"] = status_name(c.status);
  if (!c.message.empty()) jc["message"] = c.message;
  if (!c.saved_to.empty()) jc["saved_to"] = c.saved_to;
  jc["runtimes"] = nlohmann::json::array();
  for (size_t x = 0; x < c.runtime_errors.size() && x < runtimes.size(); ++x) {
    nlohmann::json jr{{"name", runtimes[x]}, {"ok", c.runtime_errors[x].empty()}};
    if (x < c.ms.size()) jr["ms"] = c.ms[x];
    if (!c.runtime_errors[x].empty()) jr["error"] = c.runtime_errors[x];
    jc["runtimes"].push_back(jr);
  }
  jc["outputs"] = nlohmann::json::array();
  for (const auto& o : c.outputs) {
    nlohmann::json jo{{"name", o.name}, {"status", out_status_name(o.status)}};
    if (o.status != diff::OutputDiff::Status::NotComparable) {
      jo["max_abs_error"] = o.max_abs;
      jo["max_rel_error"] = o.max_rel;
      jo["tolerance"] = o.tolerance;
    }
    if (!o.first_index.empty()) jo["first_mismatch"] = o.first_index;
    if (o.mismatches) jo["mismatches"] = o.mismatches;
    if (!runtimes.empty()) jo["runtime_a"] = runtimes[0];
    if (o.runtime_b < runtimes.size()) jo["runtime_b"] = runtimes[o.runtime_b];
    if (!o.value_a.empty()) jo["value_a"] = o.value_a;
    if (!o.value_b.empty()) jo["value_b"] = o.value_b;
    if (!o.detail.empty()) jo["detail"] = o.detail;
    jc["outputs"].push_back(jo);
  }
  return jc;
}

}  // namespace

void write_diff_json(std::ostream& os, const diff::DiffResult& r) {
  nlohmann::json j;
  j["runtimes"] = r.runtimes;
  j["models"] = nlohmann::json::array();
  int agree = 0, diverge = 0, failed = 0, nc = 0, nco = 0;
  for (const auto& m : r.models) {
    nlohmann::json jm;
    jm["model"] = m.model;
    if (!m.error.empty()) jm["error"] = m.error;
    jm["ifs"] = m.ifs;
    jm["notes"] = m.notes;
    jm["summary"] = {{"runs", m.cases.size()},
                     {"agree", m.agree},
                     {"diverge", m.diverge},
                     {"failed", m.failed},
                     {"not_comparable", m.not_comparable},
                     {"not_comparable_outputs", m.not_comparable_outputs}};
    jm["cases"] = nlohmann::json::array();
    for (const auto& c : m.cases) jm["cases"].push_back(case_diff_json(c, r.runtimes));
    agree += m.agree;
    diverge += m.diverge;
    failed += m.failed;
    nc += m.not_comparable;
    nco += m.not_comparable_outputs;
    j["models"].push_back(jm);
  }
  j["summary"] = {{"agree", agree},
                  {"diverge", diverge},
                  {"failed", failed},
                  {"not_comparable", nc},
                  {"not_comparable_outputs", nco},
                  {"all_agree", r.all_agree()}};
  dump_json(os, j);
}

}  // namespace condlint
