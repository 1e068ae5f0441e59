// ONNX loader, onnx's checker: what check_model (without its inference) rejects, asked where the walk stands and
// never where an error is already recorded (ONNX017), and the rules of newer definitions from their facts.
#include "loaders/onnx_builder.hpp"
#include "loaders/onnx_wire.hpp"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

namespace condlint::onnx_build {

void OnnxBuilder::checker_problem(int g, int n, const std::string& what, const std::string& why) {
  if (error_at_.count(int64_t(g) << 32 | static_cast<uint32_t>(n))) return;
  std::string reason = why;
  if (auto cut = reason.find('\n'); cut != std::string::npos) reason.resize(cut);
  while (!reason.empty() && (reason.back() == ' ' || reason.back() == ':')) reason.pop_back();
  problem(PKind::CheckerRejects, what + ": " + reason, loc(g, n));
}

void OnnxBuilder::checker_model() {
  const onnx::ModelProto& m = *proto_;
  const int64_t ir = m.ir_version();
  // An IR version above onnx's own is ONNX016's note, not an error: a newer onnx accepts such models.
  if (ir == 0) checker_problem(0, -1, "onnx's checker rejects the model", "the model has no ir_version");
  // IR versions the linked onnx does not know but a newer onnx defines get ONNX016's note; a version no onnx has
  // defined (the newest, 14, came with late-2025 onnx) is an error, as it is for onnx's checker.
  if (ir > kNewestIrVersion)
    checker_problem(0, -1, "onnx's checker rejects the model",
                    "IR version " + std::to_string(ir) + " is newer than any onnx defines (the newest is " +
                        std::to_string(kNewestIrVersion) + ")");
  std::unordered_set<std::string_view> keys;
  for (const auto& e : m.metadata_props())
    if (!keys.insert(e.key()).second) {
      checker_problem(0, -1, "onnx's checker rejects the model", "metadata_props has the key '" + e.key() + "' twice");
      break;
    }
  std::unordered_map<std::string, int> imports;
  for (const auto& os : m.opset_import()) imports[os.domain()] = static_cast<int>(os.version());
  if (ir >= 3 && imports.empty())
    checker_problem(0, -1, "onnx's checker rejects the model", "a model of IR version 3 or later must import an opset");
  if (ir > 0 && ir < 3 && !imports.empty())
    checker_problem(0, -1, "onnx's checker rejects the model",
                    "a model of IR version " + std::to_string(ir) + " (< 3) cannot have opset_import");
  if (ir > 0 && ir < 3 && imports.empty()) imports[""] = 1;
  checker_ctx_.set_ir_version(static_cast<int>(ir));
  checker_ctx_.set_opset_imports(imports);
  // Every IR version an onnx release defines is checked: the linked onnx's rules for graphs, values and nodes hold
  // for the newer IR versions too (they added element types, which are left to ONNX016's note, and fields the linked
  // protobuf skips), and nodes whose definition changed are judged by the newer facts.
  checker_on_ = ir > 0 && ir <= kNewestIrVersion;
  checker_sub_ctx_ = checker_ctx_;
  checker_sub_ctx_.set_is_main_graph(false);
  // Model-local functions are checked after their bodies are walked (checker_functions).
}

void OnnxBuilder::checker_graph(int g) {
  if (!checker_on_ || gi_[g].in_function) return;  // function bodies: checker_functions
  const onnx::GraphProto& gp = *gi_[g].proto;
  auto where_g = [&] { return "onnx's checker rejects " + where(g); };  // built only when a check fails
  if (gp.name().empty()) checker_problem(g, -1, where_g(), "the graph has no name");
  const onnx::checker::CheckerContext& ctx = g == 0 ? checker_ctx_ : checker_sub_ctx_;
  auto check_vi = [&](const onnx::ValueInfoProto& vi, const char* what) {
    try {
      onnx::checker::check_value_info(vi, ctx);
      return true;
    } catch (const std::exception& e) {
      checker_problem(g, -1, where_g(), std::string(what) + " " + qname(vi.name()) + ": " + e.what());
      return false;
    }
  };
  bool vi_ok = true;
  for (const auto& vi : gp.input()) vi_ok = vi_ok && check_vi(vi, "graph input");
  for (const auto& vi : gp.output()) vi_ok = vi_ok && check_vi(vi, "graph output");
  std::unordered_set<std::string_view> inputs, inits;
  if (checker_ctx_.get_ir_version() <= 3)
    for (const auto& vi : gp.input()) inputs.insert(vi.name());
  auto check_init = [&](const onnx::TensorProto& t, bool sparse) {
    const std::string who = std::string(sparse ? "sparse initializer" : "initializer") + " " + qname(t.name());
    if (t.name().empty()) return checker_problem(g, -1, where_g(), who + " has no name");
    if (!inits.insert(t.name()).second) return checker_problem(g, -1, where_g(), who + " is defined twice");
    if (!sparse && checker_ctx_.get_ir_version() <= 3 && !inputs.count(t.name()))
      checker_problem(g, -1, where_g(), who + " is not a graph input (IR version 3 and earlier)");
  };
  for (const auto& t : gp.initializer()) {
    check_init(t, false);
    try {
      if (t.data_location() == onnx::TensorProto::EXTERNAL) {
        // Where the data lies is ONNX014 / ONNX015's (onnx's check would probe the path); a value here too is wrong.
        if (t.float_data_size() || t.int32_data_size() || t.string_data_size() || t.int64_data_size() ||
            t.raw_data().size() || t.double_data_size() || t.uint64_data_size())
          checker_problem(g, -1, where_g(), qname(t.name()) + " is stored externally and also holds data");
      } else if (!linked_knows(t)) {                // an element type newer than the linked onnx: ONNX016 names it
      } else if (measure_tensor(t).holds_dims()) {  // data that cannot hold its dims is ONNX018's
        onnx::checker::check_tensor(t, ctx);
      }
    } catch (const std::exception& e) {
      checker_problem(g, -1, where_g(), e.what());
    }
  }
  for (const auto& st : gp.sparse_initializer()) {
    check_init(st.values(), true);
    if (!linked_knows(st.values())) continue;
    try {
      onnx::SparseTensorProto stand_in;
      onnx::checker::check_sparse_tensor(checker_view(st, stand_in), ctx);
    } catch (const std::exception& e) {
      checker_problem(g, -1, where_g(), e.what());
    }
  }
}

void OnnxBuilder::checker_node(int g, int n, const onnx::NodeProto& np) {
  if (!checker_on_ || gi_[g].in_function || error_at_.count(int64_t(g) << 32 | static_cast<uint32_t>(n))) return;
  // The message is built only for a node that fails (this runs for every node).
  auto what = [&] { return "onnx's checker rejects " + node_label(g, n) + " in " + where(g); };
  if (np.op_type().empty()) return checker_problem(g, n, what(), "the node has no op_type");
  if (np.input_size() == 0 && np.output_size() == 0)
    return checker_problem(g, n, what(), "the node has no input and no output");
  if (onnx::checker::check_is_experimental_op(np.op_type())) return;  // onnx's checker stops there too
  const auto& imports = checker_ctx_.get_opset_imports();
  const auto dit = imports.find(np.domain());
  if (dit == imports.end()) return checker_problem(g, n, what(), "no opset import for domain '" + np.domain() + "'");
  const onnx::checker::CheckerContext& ctx = g == 0 ? checker_ctx_ : checker_sub_ctx_;
  const Judge& judged = judge(np);
  if (judged.kind == Judge::Unjudged) return;  // no definition known: ONNX016 names the operator
  try {
    const onnx::checker::LexicalScopeContext lex;
    for (const auto& a : np.attribute()) {
      if (!a.has_g() && a.graphs_size() == 0) {
        if (!linked_knows(a)) continue;  // a tensor of an element type newer than the linked onnx (ONNX016)
        onnx::AttributeProto stand_in;
        onnx::checker::check_attribute(checker_view(a, stand_in), ctx, lex);  // onnx's own check, no recursion
        continue;
      }
      // A subgraph attribute: its fields here; the subgraphs are checked where the walk enters them.
      if (a.name().empty()) fail_check("an attribute of the node has no name");
      if (checker_ctx_.get_ir_version() >= 2 && !a.has_type()) fail_check("attribute '", a.name(), "' has no type");
      const auto want = a.has_g() ? onnx::AttributeProto::GRAPH : onnx::AttributeProto::GRAPHS;
      if (a.has_type() && a.type() != want)
        fail_check("type field and data field mismatch in attribute ", a.name(), ".");
      const int fields = a.has_f() + a.has_i() + a.has_s() + a.has_t() + a.has_g() + a.has_tp() +
                         a.has_sparse_tensor() + (a.floats_size() > 0) + (a.ints_size() > 0) + (a.strings_size() > 0) +
                         (a.tensors_size() > 0) + (a.graphs_size() > 0) + (a.sparse_tensors_size() > 0) +
                         (a.type_protos_size() > 0);
      if (fields > 1) fail_check("Attribute (name: ", a.name(), ") should not contain more than one value field.");
    }
    if (judged.kind == Judge::Facts) {
      try {
        facts_verify(np, *judged.facts);
      } catch (const std::exception& e) {
        fail_check("by ", facts_label(np, *judged.facts), ": ", e.what());
      }
      return;
    }
    // One registry lookup per operator, domain and version, not per node.
    std::string& key = checker_key_;
    key.assign(np.op_type()).append(1, '\0').append(np.domain());
    auto cached = checker_schemas_.find(key);
    if (cached == checker_schemas_.end())
      cached =
          checker_schemas_.emplace(key, ctx.get_schema_registry()->GetSchema(np.op_type(), dit->second, np.domain()))
              .first;
    const onnx::OpSchema* schema = cached->second;
    if (!schema) {
      const std::string& d = np.domain();
      if (d.empty() || d == "ai.onnx" || d == "ai.onnx.ml" || d == "ai.onnx.training")
        fail_check("no operator ", np.op_type(), " is registered for ", d.empty() ? "ai.onnx" : d, " opset ",
                   dit->second);
    } else if (schema->Deprecated()) {
      fail_check(np.op_type(), " is deprecated in opset ", dit->second);
    } else {
      schema->Verify(np);
    }
  } catch (const std::exception& e) {
    checker_problem(g, n, what(), e.what());
  }
}

void OnnxBuilder::facts_verify(const onnx::NodeProto& np, const schema_facts::OpFacts& f) {
  using schema_facts::kSingle;
  using schema_facts::kVariadic;
  if (f.deprecated) fail_check(np.op_type(), " is deprecated since opset ", f.since_version);
  const int n_in = np.input_size(), n_out = np.output_size();
  if (n_in < f.min_input || n_in > f.max_input)
    fail_check("Node (", np.name(), ") has input size ", n_in, " not in range [min=", f.min_input,
               ", max=", f.max_input, "].");
  if (n_out < f.min_output || n_out > f.max_output)
    fail_check("Node (", np.name(), ") has output size ", n_out, " not in range [min=", f.min_output,
               ", max=", f.max_output, "].");
  auto formals = [&](const char* what, int count, int declared, auto formal, auto name) {
    for (int k = 0; k < count; ++k) {
      if (k >= declared) {
        if (declared > 0 && formal(declared - 1).option == kVariadic) break;
        fail_check("Node (", np.name(), ") has more ", what, "s (", count, ") than declared (", declared,
                   ") in op definition.");
      }
      if (name(k).empty() && formal(k).option == kSingle)
        fail_check("Node (", np.name(), ")'s ", what, " ", k, " is marked single but has an empty string in the graph");
    }
  };
  formals(
      "input", n_in, f.inputs.count, [&](int k) -> const auto& { return schema_facts::input(f, k); },
      [&](int k) -> const std::string& { return np.input(k); });
  formals(
      "output", n_out, f.outputs.count, [&](int k) -> const auto& { return schema_facts::output(f, k); },
      [&](int k) -> const std::string& { return np.output(k); });
  std::unordered_set<std::string_view> seen;
  for (const auto& a : np.attribute()) {
    if (!seen.insert(a.name()).second) fail_check("Attribute '", a.name(), "' appeared multiple times.");
    const schema_facts::AttributeFacts* fact = nullptr;
    for (int k = 0; k < f.attributes.count && !fact; ++k)
      if (a.name() == schema_facts::attribute(f, k).name) fact = &schema_facts::attribute(f, k);
    if (!fact) {
      if (a.name().rfind("__", 0) == 0) continue;  // an internal symbol: onnx's checker lets it pass
      fail_check("Unrecognized attribute: ", a.name(), " for operator ", np.op_type());
    }
    if (a.type() != fact->type) fail_check("Mismatched attribute type in '", np.name(), " : ", a.name(), "'");
    if (!a.ref_attr_name().empty()) continue;  // its value comes from the calling function
    using AP = onnx::AttributeProto;
    const char* field = nullptr;
    switch (a.type()) {
      case AP::FLOAT: field = a.has_f() ? nullptr : "f"; break;
      case AP::INT: field = a.has_i() ? nullptr : "i"; break;
      case AP::STRING: field = a.has_s() ? nullptr : "s"; break;
      case AP::TENSOR: field = a.has_t() ? nullptr : "t"; break;
      case AP::GRAPH: field = a.has_g() ? nullptr : "g"; break;
      case AP::SPARSE_TENSOR: field = a.has_sparse_tensor() ? nullptr : "sparse_tensor"; break;
      case AP::TYPE_PROTO: field = a.has_tp() ? nullptr : "tp"; break;
      default: break;  // a list may be empty
    }
    if (field) fail_check("Attribute '", a.name(), "' is expected to have field '", field, "'");
  }
  for (int k = 0; k < f.attributes.count; ++k) {
    const auto& fact = schema_facts::attribute(f, k);
    if (fact.required && !seen.count(fact.name)) fail_check("Required attribute '", fact.name, "' is missing.");
  }
}

// onnx's checker for the model-local functions (check_model_local_functions: each function with the model's
// imports merged with its own), one function at a time so that a rejection names its function, and never where
// the function's walk already recorded an error (one root cause, one finding).
void OnnxBuilder::checker_functions() {
  const onnx::ModelProto& m = *proto_;
  if (!checker_on_ || m.ir_version() < 8 || m.functions_size() == 0) return;
  auto function_has_error = [&](int f) {
    const auto [first, end] =
        function_graphs_.empty() ? std::pair<int, int>{-1, -1} : function_graphs_[static_cast<size_t>(f)];
    for (const int64_t at : error_at_) {
      const int g = static_cast<int>(at >> 32);
      if (g >= first && g < end) return true;
    }
    return false;
  };
  auto where_f = [&](int f) {
    const int g = function_graphs_.empty() ? -1 : function_graphs_[static_cast<size_t>(f)].first;
    return g >= 0 ? g : 0;
  };
  // A function body's node whose opset selects a definition newer than the linked onnx's is judged by the newer
  // facts: then every body node is checked here, each by the definition its function's imports select.
  std::vector<std::vector<Judge>> judged(static_cast<size_t>(m.functions_size()));
  bool newer = false;
  for (int f = 0; f < m.functions_size(); ++f) {
    const onnx::FunctionProto& fp = m.functions(f);
    for (const auto& nd : fp.node()) {
      Judge j;
      for (const auto& os : fp.opset_import())
        if (os.domain() == nd.domain() ||
            ((os.domain().empty() || os.domain() == "ai.onnx") && (nd.domain().empty() || nd.domain() == "ai.onnx")))
          j = judge_at(nd.op_type(), nd.domain(), os.version());
      newer = newer || j.kind != Judge::Linked;
      judged[static_cast<size_t>(f)].push_back(j);
    }
  }
  if (!newer) {
    std::unordered_map<std::string, int> imports(checker_ctx_.get_opset_imports());
    for (const auto& fp : m.functions())
      for (const auto& os : fp.opset_import())
        if (!imports.count(os.domain())) imports[os.domain()] = static_cast<int>(os.version());
    onnx::checker::CheckerContext ctx = checker_ctx_;
    ctx.set_opset_imports(imports);
    for (int f = 0; f < m.functions_size(); ++f) {
      if (function_has_error(f)) continue;
      try {
        onnx::checker::LexicalScopeContext lex;
        onnx::FunctionProto stand_in;
        onnx::checker::check_function(checker_view(m.functions(f), stand_in), ctx, lex);
      } catch (const std::exception& e) {
        checker_problem(where_f(f), -1, "onnx's checker rejects a model-local function", e.what());
      }
    }
    return;
  }
  for (int f = 0; f < m.functions_size(); ++f) {
    if (function_has_error(f)) continue;
    const onnx::FunctionProto& fp = m.functions(f);
    for (int k = 0; k < fp.node_size(); ++k) {
      const onnx::NodeProto& nd = fp.node(k);
      const Judge& j = judged[static_cast<size_t>(f)][static_cast<size_t>(k)];
      try {
        if (j.kind == Judge::Facts) {
          try {
            facts_verify(nd, *j.facts);
          } catch (const std::exception& e) {
            fail_check("by ", facts_label(nd, *j.facts), ": ", e.what());
          }
        } else if (j.kind == Judge::Linked) {
          for (const auto& os : fp.opset_import())
            if (os.domain() == nd.domain() && os.version() > 0 && os.version() <= kMaxOpsetVersion)
              if (const auto* sc =
                      onnx::OpSchemaRegistry::Schema(nd.op_type(), static_cast<int>(os.version()), nd.domain()))
                sc->Verify(nd);
        }
      } catch (const std::exception& e) {
        checker_problem(
            where_f(f), -1, "onnx's checker rejects a model-local function",
            "function " + qname(fp.name()) + ", node " + qname(nd.name()) + " (" + nd.op_type() + "): " + e.what());
        break;
      }
    }
  }
}

}  // namespace condlint::onnx_build
