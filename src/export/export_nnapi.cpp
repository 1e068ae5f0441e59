// `condlint export` for NNAPI models (docs/nnapi-json.md): the model as an ONNX ModelProto that computes what
// the NNAPI executor (src/exec/nnapi_exec.cpp, which follows Android's CpuExecutor) computes.
//
// Shape of the translation
// - The document is read by the lint loader (load_nnapi): `value` shorthand packed, Blob files kept inside the
//   model's directory, every enum spelling. A document the loader cannot read completely is not exported.
// - Every use of a referenced subgraph is a fresh copy (an instance) with globally unique value names, so one
//   subgraph referenced from several places never shares names. Formal inputs of an instance are bound to the
//   caller's ONNX values by name (outer-scope references), which is how ONNX branches see their inputs.
// - IF -> If with both instances as branch graphs. WHILE -> the condition instance inlined before a Loop, and a
//   Loop body holding the body instance followed by a second condition instance on the new values.
// - Values flow with the quantization parameters the executor gives them (a caller's value keeps its own
//   scale/zero point inside a branch; SLICE keeps its input's); an IF or WHILE whose branches would make them
//   depend on the data is a problem, never a guess.
// - Arithmetic: float32/float16/int32 natively where IEEE/int32 arithmetic gives the executor's result bit for
//   bit; quantized operands and FULLY_CONNECTED in double, exactly as the executor (dequantize (q - zp) * scale,
//   compute, requantize round-half-to-even + clamp).
// - The walk is iterative (an explicit stack of instance frames), bounded in nesting depth and total size;
//   subgraph reference cycles are problems.
#include <cmath>
#include <cmath>
#include <cstring>

#include "exec/onnx_io.hpp"
#include "exec/nnapi_exec.hpp"
#include "export/export_nnapi_builder.hpp"
#include "loaders/loader.hpp"
#include "onnx_graph/if_sites.hpp"
#include "model/node_path.hpp"

namespace condlint::xport::nnapi_export {

void Exporter::run(Frame root) {
  stack.push_back(std::move(root));
  while (!stack.empty() && !abort) {
    if (nodes > kMaxNodes) {
      abort = true;
      problem("the export would exceed " + std::to_string(kMaxNodes) +
              " ONNX nodes (each use of a referenced subgraph is a copy of it)");
      break;
    }
    const size_t idx = stack.size() - 1;
    if (step(idx)) stack.erase(stack.begin() + static_cast<long>(idx));
  }
}

// Returns true when frame idx is finished. May push frames (then returns false to let them run first).
bool Exporter::step(size_t idx) {
  Frame* f = &stack[idx];
  const NnSubgraph& g = sg(f->graph);
  if (!f->started) {
    f->started = true;
    f->problems_at_start = r.problems.size() + dropped_problems;
    if (f->args.size() != g.input_indexes.size()) {
      problem(f->nn_path + ": " + f->role + " passes " + std::to_string(f->args.size()) + " values to subgraph " +
              g.label + ", which takes " + std::to_string(g.input_indexes.size()));
      return true;
    }
    if (f->out_names.size() != g.output_indexes.size()) {
      problem(f->nn_path + ": " + f->role + " expects " + std::to_string(f->out_names.size()) +
              " outputs from subgraph " + g.label + ", which has " + std::to_string(g.output_indexes.size()));
      return true;
    }
    f->vals.assign(g.operands.size(), Val{});
    for (size_t k = 0; k < g.operands.size(); ++k) {
      const NnOperand& o = g.operands[k];
      Val& v = f->vals[k];
      v.info = decl_info(o);
      if (o.lifetime == nn::CONSTANT_COPY || o.lifetime == nn::CONSTANT_REFERENCE) {
        v.has = true;
        v.const_graph = f->graph;
        v.const_operand = static_cast<int>(k);
        v.info.ci = const_ints(f->graph, static_cast<int>(k));
      } else if (o.lifetime == nn::SUBGRAPH_LT) {
        v.has = true;
        v.info.subgraph = static_cast<int>(o.offset);
      } else if (o.lifetime == nn::NO_VALUE) {
        v.has = true;
        v.info.no_value = true;
      }
    }
    for (size_t k = 0; k < g.input_indexes.size(); ++k) {
      const uint32_t o = g.input_indexes[k];
      if (o >= g.operands.size()) {
        problem(f->nn_path + ": input " + std::to_string(k) + " names operand " + std::to_string(o) +
                ", which does not exist");
        return true;
      }
      Val v = f->args[k];
      if (v.info.dims.empty()) v.info.dims = g.operands[o].dimensions;
      f->vals[o] = v;
    }
    std::set<uint32_t> preassigned;
    for (size_t k = 0; k < g.output_indexes.size(); ++k) {
      const uint32_t o = g.output_indexes[k];
      if (o >= g.operands.size()) {
        problem(f->nn_path + ": output " + std::to_string(k) + " names operand " + std::to_string(o) +
                ", which does not exist");
        return true;
      }
      const int32_t lt = g.operands[o].lifetime;
      if ((lt == nn::TEMPORARY_VARIABLE || lt == nn::SUBGRAPH_OUTPUT) && !f->cond_to_scalar && !f->vals[o].has &&
          preassigned.insert(o).second)
        f->vals[o].name = f->out_names[k];
    }
  }
  while (f->cursor < g.operations.size()) {
    const size_t before = stack.size();
    const bool done = op(idx);
    f = &stack[idx];
    if (!done) return false;  // a WHILE waits for its condition frame
    ++f->cursor;
    f->phase = 0;
    if (stack.size() != before) return false;  // run the pushed branch/body frames first
  }
  finish(*f);
  return true;
}

void Exporter::finish(Frame& f) {
  const NnSubgraph& g = sg(f.graph);
  std::set<std::string> used_out;
  for (size_t k = 0; k < g.output_indexes.size(); ++k) {
    Val& v = f.vals[g.output_indexes[k]];
    const std::string where =
        f.nn_path + " output " + std::to_string(k) + " (operand " + std::to_string(g.output_indexes[k]) + ")";
    if (!v.has) {
      // (after a problem in this instance the operation that would write it was not exported: said already)
      if (r.problems.size() + dropped_problems == f.problems_at_start) problem(where + " is never written");
      continue;
    }
    if (v.info.subgraph >= 0 || v.info.no_value) {
      problem(where + " is a " + (v.info.no_value ? "NO_VALUE" : "SUBGRAPH") + " operand; it cannot be an ONNX value");
      continue;
    }
    if (k < f.expect.size() && f.expect[k]) {
      const Info& e = *f.expect[k];
      const bool ok = f.cond_to_scalar ? is_boolt(v.info.type) : same_quant(v.info, e);
      if (!ok) {
        problem(f.role + " output " + std::to_string(k) + " (" + f.nn_path + ") is " + info_str(v.info) + ", " +
                (f.cond_to_scalar ? std::string("a WHILE condition must be TENSOR_BOOL8")
                                  : "the caller needs " + info_str(e)) +
                "; the executor would carry the branch's value");
        continue;
      }
    }
    const std::string src = materialize(v, where);
    if (src.empty()) continue;
    const std::string& want = f.out_names[k];
    if (f.cond_to_scalar) {
      node(f, "Reshape", {src, cst_empty_i64()}, want, "cond_scalar");
    } else if (src != want || !used_out.insert(want).second) {
      node(f, "Identity", {src}, want, "output_" + std::to_string(k));
    }
  }
}

// Executes the lowering of operation f.cursor; returns false when it must wait for pushed frames.
bool Exporter::op(size_t idx) {
  Frame& f = stack[idx];
  const NnOperation& o = sg(f.graph).operations[f.cursor];
  const std::string L = node_path::node_segment("", nn::operation_name(o.type), f.cursor);
  const std::string where = op_where(f, f.cursor, o.type);
  const NnLowering* row = lowering_of(o.type);
  if (!row) {
    problem(where + ": " + nn::operation_name(o.type) + " is not exported (supported: " + supported_ops() + ")");
    return true;
  }
  OpCall c{*this, idx, o, *row, L, where};
  (this->*(row->lower))(c);
  return !c.wait;
}

// The operations the export lowers, by AIDL name (the codes are model/nnapi_data's).
const NnLowering kLowerings[] = {
    {"ADD", &Exporter::arith, "Add"},
    {"SUB", &Exporter::arith, "Sub"},
    {"MUL", &Exporter::arith, "Mul"},
    {"DIV", &Exporter::arith, "Div"},
    {"LESS", &Exporter::compare, "Less"},
    {"LESS_EQUAL", &Exporter::compare, "LessOrEqual"},
    {"GREATER", &Exporter::compare, "Greater"},
    {"GREATER_EQUAL", &Exporter::compare, "GreaterOrEqual"},
    {"EQUAL", &Exporter::compare, "Equal"},
    {"NOT_EQUAL", &Exporter::compare, "Equal", true},
    {"LOGICAL_AND", &Exporter::logical, "And"},
    {"LOGICAL_OR", &Exporter::logical, "Or"},
    {"LOGICAL_NOT", &Exporter::logical, "Not"},
    {"FULLY_CONNECTED", &Exporter::fully_connected},
    {"CONCATENATION", &Exporter::concatenation},
    {"SLICE", &Exporter::slice},
    {"IF", &Exporter::if_op},
    {"WHILE", &Exporter::while_op},
};

const NnLowering* lowering_of(int32_t type) {
  static const exec::NnOperationTable<NnLowering> table(kLowerings);
  return table.find(type);
}

std::string supported_ops() {
  std::string s;
  for (const auto& row : kLowerings) s += (s.empty() ? "" : ", ") + std::string(row.name);
  return s;
}

exec::Value example_value(const NnValue& ex, const NnOperand& decl) {
  using namespace exec;
  const int elem = onnx_elem(decl.type);
  if (elem == 0) fail("operand type " + nn::operand_type_name(decl.type) + " cannot be fed");
  Tensor t = example_tensor(ex, static_cast<DT>(elem), Dims(decl.dimensions.begin(), decl.dimensions.end()));
  normalize(t);
  return Value::tensor(std::move(t));
}

// The examples as data sets of the exported model (an example that expects a failure cannot be data: a note).
void export_examples(const NnapiData& d, ExportResult& r) {
  const NnSubgraph& mg = d.subgraphs[0];
  for (size_t e = 0; e < d.examples.size(); ++e) {
    const NnExample& ex = d.examples[e];
    const std::string name = "example_" + std::to_string(e);
    if (ex.expect_failure) {
      r.notes.push_back(name +
                        " is skipped: it expects the execution to fail (a condition without value or a loop "
                        "timeout), which cannot be fed to an ONNX runtime as data");
      continue;
    }
    ExportedDataSet ds;
    ds.name = name;
    try {
      if (ex.inputs.size() != mg.input_indexes.size())
        exec::fail("it has " + std::to_string(ex.inputs.size()) + " inputs, the model " +
                   std::to_string(mg.input_indexes.size()));
      for (size_t k = 0; k < ex.inputs.size(); ++k)
        ds.inputs.push_back(example_value(ex.inputs[k], mg.operands[mg.input_indexes[k]]));
      for (size_t k = 0; k < ex.outputs.size() && k < mg.output_indexes.size(); ++k)
        ds.outputs.push_back(ex.outputs[k].is_null ? exec::Value{}
                                                   : example_value(ex.outputs[k], mg.operands[mg.output_indexes[k]]));
    } catch (const std::exception& err) {
      r.notes.push_back(name + " is skipped: " + err.what());
      continue;
    }
    r.data_sets.push_back(std::move(ds));
  }
}

// What the export computes differently from Android, or only as the executor does: said once per model.
void add_semantics_notes(const NnapiData& d, Exporter& x) {
  if (d.relax_float32_to_float16)
    x.note(
        "relaxComputationFloat32toFloat16: float32 arithmetic is exported as float32, as the executor computes it "
        "(Android may use float16 range and precision; compare with the float16 tolerances)");
  bool any_f16 = false;
  for (const auto& s : d.subgraphs)
    for (const auto& od : s.operands) any_f16 = any_f16 || od.type == nn::TENSOR_FLOAT16 || od.type == nn::FLOAT16;
  if (any_f16)
    x.note("float16 operands are exported as ONNX float16; ADD/SUB/MUL/DIV round once to float16 as the executor does");
  if (x.has_quant)
    x.note(
        "quantized operands are computed as the executor does: dequantized to double ((q - zeroPoint) * scale), "
        "computed in double, requantized with round-half-to-even and clamping (Cast/Sub/Mul ... "
        "Div/Round/Add/Clip/Cast)");
  if (x.has_fc) x.note("FULLY_CONNECTED is computed in double (Gemm); the summation order is the runtime's");
  if (x.has_slice)
    x.note(
        "SLICE: begin/size out of range make the NNAPI execution fail; ONNX Slice clamps them instead (valid inputs "
        "give identical results)");
  if (x.has_while)
    x.note(
        "WHILE: NNAPI fails a loop that exceeds its timeout; the ONNX Loop has no trip limit (runtimes' own limits "
        "apply)");
  if (x.has_int_mul)
    x.note(
        "TENSOR_INT32 MUL: the executor multiplies in double, so products beyond 2^53 may differ from ONNX's int32 "
        "product");
}

// Pins (NNAPI paths) applied to every ONNX copy of the If.
void apply_pins(const ExportOptions& o, ExportResult& r) {
  std::map<std::string, bool> pins;
  for (const auto& [p, b] : o.pins) {
    auto it = r.if_path_copies.find(p);
    if (it == r.if_path_copies.end()) {
      r.problems.push_back("pin: no IF at '" + p + "'");
      continue;
    }
    for (const auto& q : it->second) pins[q] = b;
  }
  if (!r.ok()) return;
  onnx::ModelProto pinned;
  if (auto e = onnx_graph::pin_model(r.model, pins, pinned); !e.empty()) r.problems.push_back("pin: " + e);
  else r.model = std::move(pinned);
}

// The main subgraph's inputs and outputs declared on the ONNX graph, into the root frame.
void declare_main_io(const NnSubgraph& mg, Exporter& x, onnx::GraphProto* g, Frame& root) {
  for (size_t k = 0; k < mg.input_indexes.size(); ++k) {
    const uint32_t idx = mg.input_indexes[k];
    if (idx >= mg.operands.size()) {
      x.problem("main input " + std::to_string(k) + " names operand " + std::to_string(idx) + ", which does not exist");
      continue;
    }
    const NnOperand& od = mg.operands[idx];
    Val v;
    v.has = true;
    v.info = Exporter::decl_info(od);
    if (onnx_elem(od.type) == 0 || od.type == nn::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
      x.problem("main input " + std::to_string(k) + " (operand " + std::to_string(idx) + ") has type " +
                nn::operand_type_name(od.type) + ", which is not exported");
      continue;
    }
    v.name = x.fresh(od.name.empty() ? "input_" + std::to_string(k) : od.name);
    if (!is_scalar_type(od.type) && od.dimensions.empty())
      x.note("main input " + std::to_string(k) + " '" + v.name +
             "' has unknown rank: exported without a shape (the ONNX "
             "checker wants one for main-graph inputs)");
    x.set_type(g->add_input(), od.type, &od.dimensions, v.name);
    root.args.push_back(v);
  }
  for (size_t k = 0; k < mg.output_indexes.size(); ++k) {
    const uint32_t idx = mg.output_indexes[k];
    const NnOperand* od = idx < mg.operands.size() ? &mg.operands[idx] : nullptr;
    const std::string name = x.fresh(od && !od->name.empty() ? od->name : "output_" + std::to_string(k));
    root.out_names.push_back(name);
    if (od) {
      if (!is_scalar_type(od->type) && od->dimensions.empty())
        x.note("main output " + std::to_string(k) + " '" + name +
               "' has unknown rank: exported without a shape (the ONNX "
               "checker wants one for main-graph outputs)");
      root.expect.push_back(std::nullopt);
      x.set_type(g->add_output(), od->type, &od->dimensions, name);
    }
  }
}

}  // namespace condlint::xport::nnapi_export

namespace condlint::xport {

using namespace nnapi_export;

ExportResult export_nnapi(const Model& loaded, const fs::path& path, const ExportOptions& o) {
  ExportResult r;
  const Model* model = &loaded;
  if (!model->nnapi) {
    r.problems.push_back(path.string() + ": not an NNAPI model");
    return r;
  }
  const NnapiData& d = *model->nnapi;
  for (const auto& p : d.problems) {
    if (r.problems.size() >= kMaxProblems) break;
    r.problems.push_back((p.loc.pointer.empty() ? std::string() : p.loc.pointer + ": ") + p.message);
  }
  if (!d.structurally_valid && r.problems.empty()) r.problems.push_back("the document is not a valid NNAPI model");
  if (!r.problems.empty() || d.subgraphs.empty()) {
    if (r.problems.empty()) r.problems.push_back("the document has no main subgraph");
    return r;
  }
  if (o.opset < kMinOpset || o.opset > kMaxOpset) {
    r.problems.push_back("opset " + std::to_string(o.opset) + " is not supported (" + std::to_string(kMinOpset) +
                         " to " + std::to_string(kMaxOpset) + ")");
    return r;
  }

  onnx::ModelProto& m = r.model;
  m.set_ir_version(o.opset <= 14 ? 7 : 8);
  m.set_producer_name("condlint");
  m.set_producer_version(CONDLINT_VERSION);
  m.set_doc_string("exported from the NNAPI model " + path.filename().string());
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(o.opset);
  auto* g = m.mutable_graph();
  std::string stem = path.filename().string();
  if (stem.size() > 11) stem.resize(stem.size() - 11);
  g->set_name(d.name.empty() ? stem : d.name);

  Exporter x(d, o, r);
  x.main = g;
  const NnSubgraph& mg = d.subgraphs[0];
  Frame root;
  root.graph = 0;
  root.target = g;
  root.onnx_path = "main";
  root.nn_path = "main";
  root.role = "main";
  declare_main_io(mg, x, g, root);
  if (r.problems.empty()) x.run(std::move(root));
  // The main outputs' element types follow the values (the executor compares stored values).
  if (r.problems.empty()) {
    for (size_t k = 0; k < mg.output_indexes.size(); ++k) {
      const NnOperand& od = mg.operands[mg.output_indexes[k]];
      if (onnx_elem(od.type) == 0)
        x.problem("main output " + std::to_string(k) + " has type " + nn::operand_type_name(od.type) +
                  ", which is not exported");
    }
  }
  if (x.dropped_problems) r.problems.push_back("... and " + std::to_string(x.dropped_problems) + " more problems");

  // If paths: the first copy (for an IF in a WHILE condition: the evaluation before the loop).
  if (r.ok())
    for (auto& [nnp, copies] : x.if_copies) {
      r.if_paths[nnp] = copies.front();
      r.if_path_copies[nnp] = std::move(copies);
    }
  add_semantics_notes(d, x);
  if (r.ok() && !o.pins.empty()) apply_pins(o, r);
  if (r.ok()) export_examples(d, r);  // golden data: the examples
  return r;
}

}  // namespace condlint::xport
