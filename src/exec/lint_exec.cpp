#include "exec/lint_exec.hpp"

#include <filesystem>
#include <set>
#include <unordered_map>

#include "exec/ir_exec.hpp"
#include "exec/nnapi_exec.hpp"
#include "model/nnapi_data.hpp"
#include "model/onnx_data.hpp"
#include "rules/readability.hpp"

namespace condlint::exec {

namespace fs = std::filesystem;

bool has_golden_data(const Model& model, const std::string& path) {
  if (model.format == Format::NNAPI) return true;  // the examples live in the document; no examples, no cases
  const fs::path dir = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().rfind("test_data_set_", 0) != 0) continue;
    std::error_code e2;
    if (it->is_directory(e2)) return true;
    // A data set that is a link leading nowhere (not checked out) is golden data that is not there: a failure.
    if (it->is_symlink(e2) && !fs::exists(it->path(), e2)) return true;
  }
  return false;
}

namespace {

std::string pins_text(const std::map<std::string, bool>& pins) {
  std::string s;
  for (const auto& [k, v] : pins) s += (s.empty() ? "" : ", ") + k + "=" + (v ? "true" : "false");
  return s;
}

std::string case_text(const CaseResult& c) {
  std::string s =
      c.data_set.empty() ? "the run without inputs" : "data set " + fs::path(c.data_set).filename().string();
  if (!c.synthesized.empty()) s = "inputs synthesized from " + s + " (" + c.synthesized + ")";
  if (!c.pins.empty()) s += " (pins: " + pins_text(c.pins) + ")";
  return s;
}

}  // namespace

ExecResults exec_results_from(const Model& model, const ModelResult& r) {
  ExecResults out;
  // Node paths (the executor's, Model::full_path_of) -> locations, built once.
  std::unordered_map<std::string, SourceLocation> where;
  for (int g = 0; g < static_cast<int>(model.graphs.size()); ++g)
    for (int n = 0; n < static_cast<int>(model.graphs[g].nodes.size()); ++n) {
      SourceLocation l = model.graphs[g].nodes[n].loc;
      // NNAPI: the operation's JSON pointer too (nodes keep only their position).
      if (model.nnapi && static_cast<size_t>(g) < model.nnapi->subgraphs.size() &&
          static_cast<size_t>(n) < model.nnapi->subgraphs[g].operations.size())
        l.pointer = model.nnapi->subgraphs[g].operations[n].loc.pointer;
      where.emplace(model.full_path_of(g, n), std::move(l));
    }
  SourceLocation model_loc;
  if (!model.graphs.empty()) model_loc = model.graphs[0].loc;
  model_loc.graph = model.graphs.empty() ? -1 : 0;
  model_loc.node_index = -1;
  auto loc_of = [&](const std::string& path) {
    auto it = where.find(path);
    if (it == where.end()) it = where.find(model.body_path_of(path));  // an If inside a function, per call
    return it == where.end() ? model_loc : it->second;
  };
  // The deepest pinned If of a case (the one whose other branch the run opened).
  auto pinned_if = [&](const CaseResult& c) {
    std::string best;
    for (const auto& [p, v] : c.pins)
      if ((where.count(p) || where.count(model.body_path_of(p))) && p.size() > best.size()) best = p;
    return best;
  };
  std::set<std::pair<int, std::string>> seen;
  auto add = [&](ExecFinding::Kind k, std::string msg, SourceLocation loc) {
    if (!seen.insert({static_cast<int>(k), msg}).second) return;
    out.findings.push_back(ExecFinding{k, std::move(msg), std::move(loc)});
  };
  for (const auto& c : r.cases) {
    if (c.status == CaseStatus::Passed) continue;
    if (c.status == CaseStatus::Unsupported) {
      SourceLocation loc = model_loc;
      if (auto at = c.message.rfind(" at "); at != std::string::npos) loc = loc_of(c.message.substr(at + 4));
      add(ExecFinding::Kind::Unsupported, c.message + " (" + case_text(c) + "): this run was not executed", loc);
      continue;
    }
    if (!c.branch_problems.empty()) {
      const std::string p = pinned_if(c);
      for (const auto& b : c.branch_problems)
        add(ExecFinding::Kind::BranchFailed, b + " (" + case_text(c) + ")", p.empty() ? model_loc : loc_of(p));
      continue;
    }
    if (c.derived) {
      const std::string p = pinned_if(c);
      const bool branch = p.empty() ? true : c.pins.at(p);
      add(ExecFinding::Kind::BranchFailed,
          "If at " + (p.empty() ? std::string("?") : p) + ": the " + (branch ? "then" : "else") + " branch, pinned, " +
              (c.status == CaseStatus::Failed ? "fails: " : "gives outputs the model does not declare: ") + c.message +
              " (" + case_text(c) + ")",
          p.empty() ? model_loc : loc_of(p));
      continue;
    }
    if (!c.synthesized.empty()) {  // no golden data: only the declared types could be contradicted
      add(ExecFinding::Kind::BranchFailed,
          case_text(c) +
              (c.status == CaseStatus::Failed ? " fail to run: " : " give outputs the model does not declare: ") +
              c.message,
          model_loc);
      continue;
    }
    std::string msg = case_text(c) +
                      (c.status == CaseStatus::Failed ? " fails to run: " : " does not reproduce its golden data: ") +
                      c.message;
    const std::string p = pinned_if(c);
    add(ExecFinding::Kind::GoldenMismatch, msg, p.empty() ? model_loc : loc_of(p));
  }
  // Branches that inputs synthesized to select them make fail, and that no run covered: not pinned either (a pin
  // would force the same state on inputs that do not select it), so this is all that is known of them.
  for (const auto& bc : branch_coverage(r)) {
    if (bc.how != "not covered") continue;
    const auto it = r.synthesis_failed.find(bc.if_path);
    if (it == r.synthesis_failed.end() || !it->second.count(bc.branch)) continue;
    add(ExecFinding::Kind::SynthesizedFailed,
        "If at " + bc.if_path + ": the " + (bc.branch ? "then" : "else") +
            " branch, which no data set takes, is selected by inputs synthesized from the data (" +
            it->second.at(bc.branch) +
            "); the declared input types allow these inputs, so either the branch has a defect or the model assumes "
            "more than its types state",
        loc_of(bc.if_path));
  }
  return out;
}

void attach_exec_results(Model& model, const std::string& path, const RunConfig& cfg) {
  attach_exec_results(model, path, cfg, nullptr);
}

void attach_exec_results(Model& model, const std::string& path, const RunConfig& cfg, ModelResult* run) {
  // The parsed protobuf the loader kept for the run is dropped on every way out: the rules read the Model.
  struct DropProto {
    Model& m;
    ~DropProto() {
      if (m.onnx) m.onnx->proto.reset();
    }
  } drop{model};
  if (model.graphs.empty() || !has_golden_data(model, path) || !readability_of(model).empty()) return;
  ModelResult r;
  RunConfig c = cfg;
  if (!c.policy) c.policy = std::make_shared<const BranchPolicy>(model);
  if (model.format == Format::NNAPI) {
    c.limits.timeout_ms = 2000;
    c.limits.max_loop_iterations = INT64_MAX;
  }
  r = run_loaded(model, path, c);
  if (!r.error.empty()) return;
  model.exec = std::make_unique<ExecResults>(exec_results_from(model, r));
  if (run) *run = std::move(r);
}

}  // namespace condlint::exec
