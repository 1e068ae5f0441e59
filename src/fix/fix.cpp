// condlint fix: see fix.hpp.
#include "fix/fix.hpp"

#include <onnx/onnx_pb.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "diff/live_check.hpp"
#include "exec/runner.hpp"
#include "io/cleanup.hpp"
#include "loaders/loader.hpp"
#include "loaders/onnx_util.hpp"
#include "loaders/onnx_wire.hpp"
#include "model/onnx_data.hpp"
#include "loaders/open_model.hpp"
#include "rules/readability.hpp"

namespace condlint::fix {

namespace fs = std::filesystem;

namespace {

OpenOptions open_options() {
  OpenOptions o;
  o.keep_for_exec = true;
  o.verdict = unreadable_reason;
  return o;
}

bool selected(const std::vector<std::string>& rules, const std::string& id) {
  if (rules.empty()) return true;
  return std::any_of(rules.begin(), rules.end(), [&](const std::string& r) { return id.rfind(r, 0) == 0; });
}

// The edits of the fixes applied to the text, in file order. A fix whose edits overlap an earlier fix's is left out
// (with why), so that no edit lands inside another.
std::string apply_text(const std::string& text, std::vector<Fix>& fixes, std::vector<Skipped>& skipped,
                       std::vector<Finding>& of) {
  std::vector<std::tuple<int64_t, int64_t, size_t>> taken;  // begin, end, fix
  std::vector<Fix> kept;
  std::vector<Finding> kept_of;
  for (size_t i = 0; i < fixes.size(); ++i) {
    bool clash = false;
    for (const TextEdit& e : fixes[i].text)
      for (const auto& [b, en, k] : taken) clash = clash || (e.begin < en && b < e.end);
    if (clash) {
      skipped.push_back({of[i], "its edit overlaps another fix's; run condlint fix again"});
      continue;
    }
    for (const TextEdit& e : fixes[i].text) taken.emplace_back(e.begin, e.end, kept.size());
    kept.push_back(std::move(fixes[i]));
    kept_of.push_back(of[i]);
  }
  fixes = std::move(kept);
  of = std::move(kept_of);
  std::vector<const TextEdit*> edits;
  for (const Fix& f : fixes)
    for (const TextEdit& e : f.text) edits.push_back(&e);
  std::sort(edits.begin(), edits.end(), [](const TextEdit* a, const TextEdit* b) { return a->begin < b->begin; });
  std::string out;
  out.reserve(text.size());
  int64_t at = 0;
  for (const TextEdit* e : edits) {
    out.append(text, static_cast<size_t>(at), static_cast<size_t>(e->begin - at));
    out += e->replacement;
    at = e->end;
  }
  out.append(text, static_cast<size_t>(at), std::string::npos);
  return out;
}

// The protobuf graph of Model graph `g`: main, or a graph attribute of a node of its parent, found by the parents'
// node indexes and checked against the Model's op types. Null when it cannot be found (a function's body).
onnx::GraphProto* onnx_graph(const Model& m, onnx::ModelProto& proto, int g) {
  if (g < 0 || g >= static_cast<int>(m.graphs.size())) return nullptr;
  const Graph& graph = m.graphs[g];
  if (graph.own_root) return nullptr;
  if (graph.parent_graph < 0) return proto.mutable_graph();
  onnx::GraphProto* parent = onnx_graph(m, proto, graph.parent_graph);
  if (!parent || graph.parent_node < 0 || graph.parent_node >= parent->node_size()) return nullptr;
  onnx::NodeProto* node = parent->mutable_node(graph.parent_node);
  if (node->op_type() != m.node(graph.parent_graph, graph.parent_node).op.str()) return nullptr;
  const std::string attr = graph.role == "then" ? "then_branch" : graph.role == "else" ? "else_branch" : graph.role;
  for (auto& a : *node->mutable_attribute())
    if (a.name() == attr && a.has_g()) return a.mutable_g();
  return nullptr;
}

// The TensorProto::DataType of an element type; 0 when ONNX has none.
int32_t onnx_data_type(ElemType t) {
  for (int32_t k = 1; k < 64; ++k)
    if (onnx_elem_type(k) == t) return k;
  return 0;
}

// A SetDeclaredType edit applied to one declaration of the value; "" or why not.
std::string set_declared_type(onnx::ValueInfoProto& vi, const OnnxEdit& e) {
  if (!vi.type().has_tensor_type()) return "'" + e.name + "' is not declared a tensor";
  onnx::TypeProto_Tensor* t = vi.mutable_type()->mutable_tensor_type();
  if (is_concrete(e.elem)) {
    const int32_t k = onnx_data_type(e.elem);
    if (!k) return "ONNX has no element type " + std::string(to_string(e.elem));
    t->set_elem_type(k);
  }
  if (!e.set_shape) return "";
  if (!e.shape.rank_known) {
    t->clear_shape();
    return "";
  }
  const bool same_rank = t->has_shape() && t->shape().dim_size() == static_cast<int>(e.shape.dims.size());
  if (!same_rank) t->mutable_shape()->clear_dim();
  for (size_t i = 0; i < e.shape.dims.size(); ++i) {
    if (same_rank && i < e.keep.size() && e.keep[i]) continue;
    onnx::TensorShapeProto_Dimension* d =
        same_rank ? t->mutable_shape()->mutable_dim(static_cast<int>(i)) : t->mutable_shape()->add_dim();
    const Dim& want = e.shape.dims[i];
    if (want.is_static()) {
      d->set_dim_value(want.lo);
    } else {
      d->clear_dim_value();
      d->clear_dim_param();
    }
  }
  return "";
}

// Applies the ONNX edits to the model's protobuf (its weights restored from the mapped file); "" or why not.
std::string apply_onnx(const Model& m, const std::vector<Fix>& fixes, std::string& out) {
  if (!m.onnx || !m.onnx->proto) return "the parsed model was not kept";
  onnx::ModelProto proto = *m.onnx->proto;
  if (std::string err; m.onnx->payload_file && !restore_mapped_payloads(proto, err)) return err;
  for (const Fix& f : fixes)
    for (const OnnxEdit& e : f.onnx) {
      onnx::GraphProto* g = onnx_graph(m, proto, e.graph);
      if (!g) return "the graph of '" + e.name + "' cannot be found in the file";
      if (e.kind == OnnxEdit::Kind::SetDeclaredType) {
        int found = 0;
        for (auto* list : {g->mutable_value_info(), g->mutable_output()})
          for (onnx::ValueInfoProto& vi : *list)
            if (vi.name() == e.name) {
              if (std::string err = set_declared_type(vi, e); !err.empty()) return err;
              ++found;
            }
        if (!found) return "'" + e.name + "' has no declaration in its graph";
        continue;
      }
      for (const auto& in : g->input())
        if (in.name() == e.name) return "'" + e.name + "' is also an input of its graph";
      auto* inits = g->mutable_initializer();
      auto it = std::find_if(inits->begin(), inits->end(), [&](const onnx::TensorProto& t) { return t.name() == e.name; });
      if (it == inits->end()) return "initializer '" + e.name + "' is not in its graph";
      inits->erase(it);
    }
  if (!proto.SerializeToString(&out)) return "the fixed model cannot be serialized";
  return "";
}

struct Stage {
  fs::path dir, model;
};

// The fixed model written into a temporary folder of its own (an IR beside a link to, or copy of, its .bin).
std::string stage_fixed(const std::string& path, const Model& m, const std::string& bytes, const fs::path& dir,
                        Stage& st) {
  st.dir = dir;
  const fs::path p(path);
  st.model = dir / ("fixed" + p.extension().string());
  {
    std::ofstream out(st.model, std::ios::binary);
    out << bytes;
    if (!out) return "cannot write the fixed model under " + dir.string();
  }
  if (m.format == Format::IR && m.ir && !m.ir->weights_path.empty() && fs::exists(m.ir->weights_path)) {
    std::error_code ec;
    const fs::path bin = dir / "fixed.bin";
    fs::create_hard_link(m.ir->weights_path, bin, ec);
    if (ec) fs::copy_file(m.ir->weights_path, bin, ec);
    if (ec) return "cannot stage the weights beside the fixed model: " + ec.message();
  }
  return "";
}

using Key = std::tuple<std::string, std::string, std::string>;  // rule, node path, fix key

std::map<Key, int> count_by_key(const std::vector<Finding>& fs, bool warnings_only) {
  std::map<Key, int> n;
  for (const Finding& f : fs)
    if (!warnings_only || f.level == Level::Error || f.level == Level::Warning) ++n[{f.rule, f.loc.node, f.fix_key}];
  return n;
}

// Step 1: the fixed findings are gone and nothing new at warning or above came.
std::string prove_by_lint(const std::vector<Finding>& before, const std::vector<Finding>& after,
                          const std::vector<Finding>& fixed) {
  const auto was = count_by_key(before, false), now = count_by_key(after, false);
  std::map<Key, int> removed;
  for (const Finding& f : fixed) ++removed[{f.rule, f.loc.node, f.fix_key}];
  for (const auto& [k, n] : removed) {
    auto it = now.find(k);
    const int left = it == now.end() ? 0 : it->second;
    if (left > was.at(k) - n)
      return "lint: " + std::get<0>(k) + " at " + std::get<1>(k) + " is still reported after the fix";
  }
  const auto was_w = count_by_key(before, true);
  for (const auto& [k, n] : count_by_key(after, true)) {
    auto it = was_w.find(k);
    if (n > (it == was_w.end() ? 0 : it->second))
      for (const Finding& f : after)
        if (std::tie(f.rule, f.loc.node, f.fix_key) == std::tie(std::get<0>(k), std::get<1>(k), std::get<2>(k)))
          return "lint: the fixed model gives " + f.rule + " (" + std::string(to_string(f.level)) + ") at " +
                 f.loc.node + " that the original did not: " + f.message;
  }
  return "";
}

// Step 2: the original's outputs recorded, the fixed model run against them.
std::string prove_by_executor(const Model& orig, const std::string& path, const Model& fixed, const Stage& st,
                              std::string& said) {
  exec::RunConfig rec;
  rec.save_dir = st.dir / "data";
  bool golden = false;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(path).parent_path().empty() ? "." : fs::path(path).parent_path(), ec), end;
       !ec && it != end; it.increment(ec))
    golden = golden || it->path().filename().string().rfind("test_data_set_", 0) == 0;
  if (!golden) rec.random.count = 1;
  // A run whose values contradict only declarations (what a fix of C007 or C010 repairs) is recorded too: its outputs
  // are what the fixed model must give.
  rec.save_declaration_mismatches = true;
  const exec::ModelResult a = exec::run_loaded(orig, path, rec);
  if (!a.error.empty()) return "reference executor: the original cannot be run: " + a.error;
  // Only what the original computes can be compared: a run it does not pass (a branch pinned onto inputs that branch
  // cannot take, golden data it does not match) is left out and counted. An op the executor has no kernel for
  // leaves the fix unproven.
  size_t left_out = 0, compared = 0, contradicting = 0;
  std::set<std::string> contradictions;  // what the original's runs say of its declarations
  auto problems_of = [](const exec::CaseResult& c) {
    std::vector<std::string> p = c.branch_problems;
    for (const auto& o : c.outputs)
      if (!o.ok) p.push_back(o.name + ": " + o.detail);
    return p;
  };
  for (const auto& c : a.cases) {
    if (c.status == exec::CaseStatus::Unsupported)
      return "reference executor: the original cannot be run (" + c.message + "), so the fix cannot be compared";
    if (c.status == exec::CaseStatus::Passed || c.declarations_only) ++compared;
    else ++left_out;
    if (c.declarations_only) {
      ++contradicting;
      for (auto& p : problems_of(c)) contradictions.insert(std::move(p));
    }
  }
  if (compared == 0) return "reference executor: no run of the original passes, so the fix cannot be compared";
  // The fixed model runs exactly the recorded runs (each with the pins it was recorded under), no others.
  exec::RunConfig cmp;
  cmp.data_dirs = {rec.save_dir};
  cmp.both_branches = false;
  const exec::ModelResult b = exec::run_loaded(fixed, st.model, cmp);
  if (!b.error.empty()) return "reference executor: the fixed model cannot be run: " + b.error;
  // A run of the fixed model passes, or contradicts only declarations the original's runs contradicted too (those
  // the fix does not concern).
  auto kept_contradictions = [&](const exec::CaseResult& c) {
    if (!c.declarations_only) return false;
    for (const auto& p : problems_of(c))
      if (!contradictions.count(p)) return false;
    return true;
  };
  for (const auto& c : b.cases)
    if (c.status != exec::CaseStatus::Passed && !kept_contradictions(c)) {
      std::string detail = c.message;
      for (const auto& o : c.outputs)
        if (!o.ok) detail += (detail.empty() ? "" : "; ") + o.name + ": " + o.detail;
      return "reference executor: the fixed model's outputs differ from the original's (" + detail + ")";
    }
  if (b.cases.empty()) return "reference executor: no run of the fixed model";
  said = "reference executor: " + std::to_string(b.cases.size()) + (b.cases.size() == 1 ? " run" : " runs") + " on " +
         (golden ? "the golden data" : "random inputs (seed 0)") +
         " and the inputs synthesized for the other branches, every output identical to the original's; " +
         exec::coverage_summary(exec::branch_coverage(b)) +
         (contradicting ? "; the original's values contradict its declarations on " + std::to_string(contradicting) +
                              (contradicting == 1 ? " run" : " runs")
                        : std::string()) +
         (left_out ? "; left out: " + std::to_string(left_out) +
                         (left_out == 1 ? " run" : " runs") + " the original does not pass"
                   : std::string());
  return "";
}

// Step 3: the runtime that reads the format accepts the fixed model where it accepted the original.
std::string prove_by_runtime(const Model& orig, const Model& fixed, std::string& said) {
  const std::string runtime = orig.format == Format::IR ? "openvino" : orig.format == Format::ONNX ? "onnxruntime" : "";
  if (runtime.empty()) return "";
  const diff::LiveCheck lc = diff::check_live(runtime, {diff::plan_view(orig), diff::plan_view(fixed)});
  if (!lc.available) {
    said = lc.name + ": not judged (" + lc.unavailable + ")";
    return "";
  }
  if (lc.verdicts.size() != 2) return lc.name + ": no verdict";
  const auto& a = lc.verdicts[0];
  const auto& b = lc.verdicts[1];
  if (a.checked && !a.refused && (!b.checked || b.refused))
    return lc.name + " " + lc.version + " accepts the original but refuses the fixed model (" + b.stage + ": " +
           (b.message.empty() ? b.not_given : b.message) + ")";
  said = lc.name + " " + lc.version + ": " +
         (a.checked && !a.refused ? std::string("accepts the fixed model, as the original")
                                  : std::string("refuses the original too (") + a.stage + "): nothing to keep");
  return "";
}

}  // namespace

FixResult fix_model(const std::string& path, const FixOptions& o) {
  FixResult r;
  const LoadResult lr = open_model(path, open_options());
  if (!lr.model) {
    r.error = path + ": " + (lr.io_error.empty() ? std::string("cannot be read") : lr.io_error);
    return r;
  }
  const Model& m = *lr.model;
  r.format = m.format;
  if (const std::string why = exec::readability_of(m); !why.empty()) {
    r.error = path + ": not a model condlint can fix: " + why;
    return r;
  }
  if (m.format == Format::NNAPI) return r;  // no NNAPI rule has a fixer yet
  if (m.format == Format::ONNX && m.onnx && !m.onnx->external_data.empty()) {
    r.error = path + ": keeps tensors in external data files, which condlint fix does not write yet";
    return r;
  }
  // Bounded as the loaders read a model (CONDLINT_MAX_FILE_MB).
  if (std::string err; !read_file(path, r.original_bytes, err, max_model_file_bytes())) {
    r.error = path + ": " + err;
    return r;
  }
  const std::vector<Finding> before = run_rules(m, RuleSelection{});
  std::vector<Fix> fixes;
  std::vector<Finding> fixed_findings;
  for (const Finding& f : before) {
    if (f.fixable == Fixable::No || !selected(o.rules, f.rule)) continue;
    if (f.fixable == Fixable::Unsafe && !o.unsafe) {
      r.skipped.push_back({f, "available with --unsafe-fixes"});
      continue;
    }
    const FixerDef* fixer = find_fixer(f.rule);
    std::string why;
    std::optional<Fix> fix =
        fixer ? fixer->make(m, f, m.format == Format::IR ? std::string_view(r.original_bytes) : std::string_view(), why)
              : std::nullopt;
    if (!fix) {
      r.skipped.push_back({f, fixer ? why : "the rule has no fixer"});
      continue;
    }
    fix->rule = f.rule;
    fix->safety = f.fixable;
    fix->loc = f.loc;
    fixes.push_back(std::move(*fix));
    fixed_findings.push_back(f);
  }
  if (fixes.empty()) return r;
  if (m.format == Format::IR) {
    r.fixed_bytes = apply_text(r.original_bytes, fixes, r.skipped, fixed_findings);
  } else if (std::string err = apply_onnx(m, fixes, r.fixed_bytes); !err.empty()) {
    r.error = path + ": " + err;
    return r;
  }
  r.applied = fixes;

  // The proof, on the fixed model staged in a folder of its own.
  std::error_code ec;
  std::string tmpl = (fs::temp_directory_path(ec) / "condlint-fix-XXXXXX").string();
  if (ec) tmpl = "/tmp/condlint-fix-XXXXXX";
  if (!mkdtemp(tmpl.data())) {
    r.error = "no temporary directory for the proof";
    return r;
  }
  const fs::path dir = tmpl;
  const io::CleanupSlot cleanup = io::register_temp_dir(dir.string());
  struct Remove {
    fs::path d;
    ~Remove() {
      std::error_code e;
      fs::remove_all(d, e);
    }
  } remove{dir};
  Stage st;
  if (std::string err = stage_fixed(path, m, r.fixed_bytes, dir, st); !err.empty()) {
    r.error = err;
    return r;
  }
  const LoadResult fixed = open_model(st.model.string(), open_options());
  if (!fixed.model || !exec::readability_of(*fixed.model).empty()) {
    r.proof_failed = "lint: the fixed model cannot be read: " +
                     (fixed.model ? exec::readability_of(*fixed.model) : fixed.io_error);
    return r;
  }
  const std::vector<Finding> after = run_rules(*fixed.model, RuleSelection{});
  if (r.proof_failed = prove_by_lint(before, after, fixed_findings); !r.proof_failed.empty()) return r;
  r.proof.push_back("lint: the fixed findings are gone, nothing new at warning or above");
  for (const Finding& f : after) r.fixable_after += f.fixable == Fixable::Safe || (o.unsafe && f.fixable == Fixable::Unsafe);
  std::string said;
  if (r.proof_failed = prove_by_executor(m, path, *fixed.model, st, said); !r.proof_failed.empty()) return r;
  r.proof.push_back(said);
  if (o.prove_runtime) {
    said.clear();
    if (r.proof_failed = prove_by_runtime(m, *fixed.model, said); !r.proof_failed.empty()) return r;
    if (!said.empty()) r.proof.push_back(said);
  }
  return r;
}

std::string diff_text(const std::string& path, const FixResult& r) {
  std::ostringstream os;
  if (r.format != Format::IR) {
    for (const Fix& f : r.applied) os << path << ": " << f.rule << ": " << f.description << "\n";
    return os.str();
  }
  // One hunk per edit (no context lines: `git apply --unidiff-zero` takes it): the whole lines it touches, before and
  // after.
  auto lines_of = [](const std::string& t) {
    std::vector<size_t> starts{0};
    for (size_t i = 0; i < t.size(); ++i)
      if (t[i] == '\n' && i + 1 < t.size()) starts.push_back(i + 1);
    return starts;
  };
  const std::vector<size_t> starts = lines_of(r.original_bytes);
  auto line_at = [&](int64_t off) {
    return static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), static_cast<size_t>(off)) - starts.begin());
  };
  std::vector<const TextEdit*> edits;
  for (const Fix& f : r.applied)
    for (const TextEdit& e : f.text) edits.push_back(&e);
  std::sort(edits.begin(), edits.end(), [](const TextEdit* a, const TextEdit* b) { return a->begin < b->begin; });
  // git's a/ and b/ for a relative path; an absolute one as it is.
  const bool absolute = !path.empty() && path.front() == '/';
  os << "--- " << (absolute ? "" : "a/") << path << "\n+++ " << (absolute ? "" : "b/") << path << "\n";
  const std::string& t = r.original_bytes;
  auto split = [](const std::string& s) {
    std::vector<std::string> lines;
    for (size_t at = 0; at < s.size();) {
      const size_t nl = std::min(s.find('\n', at), s.size());
      lines.push_back(s.substr(at, nl - at));
      at = nl + 1;
    }
    return lines;
  };
  int64_t shift = 0;  // lines added minus lines removed by the hunks above
  for (const TextEdit* e : edits) {
    // The whole lines the edit touches: from the start of its first line to the end of its last (none for an
    // insertion at a line's start).
    const size_t begin = static_cast<size_t>(e->begin), end = static_cast<size_t>(e->end);
    const size_t nl_before = begin == 0 ? std::string::npos : t.rfind('\n', begin - 1);
    const size_t b = nl_before == std::string::npos ? 0 : nl_before + 1;
    size_t en = end;
    const bool ends_a_line = end == b || (end > 0 && t[end - 1] == '\n');
    if (!(begin == b && ends_a_line)) {
      const size_t nl = t.find('\n', end);
      en = nl == std::string::npos ? t.size() : nl + 1;
    }
    const std::string old_text = t.substr(b, en - b);
    const std::string new_text = t.substr(b, static_cast<size_t>(e->begin) - b) + e->replacement +
                                 t.substr(static_cast<size_t>(e->end), en - static_cast<size_t>(e->end));
    const auto old_lines = split(old_text), new_lines = split(new_text);
    const size_t first = line_at(static_cast<int64_t>(b));
    const int64_t new_first = static_cast<int64_t>(first) + shift;
    os << "@@ -" << (old_lines.empty() ? first - 1 : first) << "," << old_lines.size() << " +"
       << (new_lines.empty() ? new_first - 1 : new_first) << "," << new_lines.size() << " @@\n";
    for (const auto& l : old_lines) os << "-" << l << "\n";
    for (const auto& l : new_lines) os << "+" << l << "\n";
    shift += static_cast<int64_t>(new_lines.size()) - static_cast<int64_t>(old_lines.size());
  }
  return os.str();
}

}  // namespace condlint::fix
