#include "diff/diff.hpp"
#include "diff/model_view.hpp"
#include "io/cleanup.hpp"
#include "io/output.hpp"

#include "exec/branch_policy.hpp"
#include "loaders/loader.hpp"
#include "loaders/onnx_wire.hpp"
#include "model/onnx_data.hpp"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <sstream>

#include "exec/compare.hpp"
#include "exec/interpreter.hpp"
#include "exec/ir_exec.hpp"
#include "exec/nnapi_exec.hpp"
#include "exec/onnx_io.hpp"
#include "exec/random_inputs.hpp"
#include "exec/runner.hpp"
#include "exec/synthesize.hpp"
#include "export/export.hpp"

namespace condlint::diff {

using exec::Value;

std::string format_number(double v) {
  std::ostringstream o;
  o.precision(9);
  o << v;
  return o.str();
}

namespace {

std::string elem_str(const exec::Tensor& t, int64_t k) {
  if (k < 0 || k >= t.numel()) return "";
  if (exec::is_string(t.dt)) return exec::quoted_cut(t.s[k]);
  if (exec::is_float(t.dt)) return format_number(t.f[k]);
  return std::to_string(t.i[k]);
}

// "[1,0,2]" of a tensor -> flat index, or -1.
int64_t flat_index(const exec::Tensor& t, const std::string& idx) {
  if (idx.size() < 2 || idx.front() != '[' || idx.back() != ']') return -1;
  std::vector<int64_t> v;
  std::stringstream ss(idx.substr(1, idx.size() - 2));
  std::string part;
  while (std::getline(ss, part, ',')) {
    try {
      v.push_back(std::stoll(part));
    } catch (...) {
      return -1;
    }
  }
  if (v.size() != t.shape.size()) return t.shape.empty() && v.empty() ? 0 : -1;
  int64_t flat = 0;
  for (size_t a = 0; a < v.size(); ++a) flat = flat * t.shape[a] + v[a];
  return flat;
}

std::atomic<int> g_counter{0};

fs::path make_work_dir(const DiffConfig& cfg) {
  if (!cfg.work_dir.empty()) {
    std::error_code ec;
    fs::create_directories(cfg.work_dir, ec);
    return cfg.work_dir;
  }
  for (int tries = 0; tries < 100; ++tries) {
    const fs::path p =
        fs::temp_directory_path() / ("condlint-diff-" + std::to_string(getpid()) + "-" + std::to_string(g_counter++));
    std::error_code ec;
    if (fs::create_directory(p, ec)) return p;
  }
  return {};
}

bool write_file(const fs::path& p, const std::string& bytes) {
  return io::write_file(p.string(), p.filename().string(), [&](std::ostream& f) { f << bytes; }).empty();
}

struct InputSet {
  std::string name;
  std::vector<Value> values;
  fs::path dir;
  bool synthesized = false;  // made to select a branch: runs on the model as given only, never on a pinned variant
};

struct Variant {
  std::map<std::string, bool> pins;
  onnx::ModelProto model;
  fs::path file;
  std::string no_onnx;  // an IR's variant without an ONNX model (file empty): why (Job::no_onnx)
  std::string error;
};

struct Prepared {
  ModelDiff* md = nullptr;
  std::vector<Variant> variants;
  std::vector<InputSet> inputs;
  size_t first_job = 0;  // jobs of this model: variants x inputs (those `runs` allows), in that order
  std::map<std::string, std::string> source_paths;  // exported models: ONNX If path -> the source model's If path
  fs::path source_ir;                               // an OpenVINO IR given: its path (runtimes that read IR use it)
  // An OpenVINO IR given: the Model the front door read, which the reference executor runs itself; its export to
  // ONNX (variant 0's model) is only what runtimes that read ONNX run, and `no_onnx` says why there is none.
  const Model* ir = nullptr;
  std::string no_onnx;
  std::vector<std::string> output_names;  // the outputs compared, in order (the IR's Results, the ONNX graph's)
  std::map<std::string, std::string> onnx_paths;  // IR If path -> its export's If path (the inverse of source_paths)
};

// Whether variant `v` runs on input set `d`: synthesized inputs select their branch themselves, so they run on the
// model as given (variant 0) only.
bool runs(const Prepared& pr, size_t v, size_t d) { return v == 0 || !pr.inputs[d].synthesized; }

// Inputs synthesized (exec/synthesize.hpp) from the first input set to select the branches no input set takes,
// run by the reference executor to find out which those are: every runtime then runs them like a data set, so
// a branch is compared on inputs that reach it rather than pinned. What the search tried and could not run is a
// note.
void add_synthesized_inputs(const exec::CandidateRun& run,
                            const std::function<exec::SynthesisResult(const std::set<exec::BranchKey>&,
                                                                      const exec::SynthesisOptions&)>& synthesize,
                            const exec::BranchPolicy& policy, const DiffConfig& cfg, Prepared& pr) {
  if (pr.inputs.empty()) return;
  std::set<std::string> seen;
  std::set<exec::BranchKey> taken;
  if (cfg.deadline.passed()) return;
  for (const auto& is : pr.inputs) {
    exec::Trace trace;
    try {
      run(is.values, trace);
    } catch (const std::exception&) {
      // the runtimes report it; the branches it took before failing still count as taken
    }
    for (const auto& [path, site] : trace.ifs) {
      seen.insert(path);
      for (bool b : site.ran) taken.insert({path, b});
    }
  }
  const auto wanted = exec::wanted_branches(seen, taken, policy);
  if (wanted.empty()) return;
  exec::SynthesisOptions so;
  so.seed = cfg.random.seed;
  so.limits.deadline = cfg.deadline;
  so.fixed = cfg.random;
  const exec::SynthesisResult sr = synthesize(wanted, so);
  for (const auto& set : sr.sets) pr.inputs.push_back({"synthesized: " + set.what, set.inputs, {}, true});
  if (!sr.failed.empty())
    pr.md->notes.push_back(std::to_string(sr.failed.size()) +
                           " branches that synthesized inputs select fail in the reference executor, so they are not "
                           "compared; e.g. " +
                           sr.failed.begin()->first.first + "=" + (sr.failed.begin()->first.second ? "then" : "else") +
                           ": " + sr.failed.begin()->second);
}

// The same for an ONNX model (its Interpreter) and for an IR (the IR executor).
void add_synthesized_inputs(const onnx::ModelProto& m, const exec::BranchPolicy& policy, const DiffConfig& cfg,
                            Prepared& pr) {
  exec::RunOptions ro;
  ro.limits.deadline = cfg.deadline;
  add_synthesized_inputs(
      [&](const std::vector<Value>& in, exec::Trace& trace) {
        exec::Interpreter ip(m, ro);
        exec::run_keeping_trace(
            trace, [&] { ip.run(in); }, [&] { return ip.trace; });
      },
      [&](const std::set<exec::BranchKey>& wanted, const exec::SynthesisOptions& so) {
        return exec::synthesize_inputs(m, policy, pr.inputs.front().values, wanted, so);
      },
      policy, cfg, pr);
}

void add_synthesized_inputs(const Model& ir, const exec::BranchPolicy& policy, const DiffConfig& cfg, Prepared& pr) {
  exec::Limits limits;
  limits.deadline = cfg.deadline;
  const exec::CandidateRun run = [&](const std::vector<Value>& in, exec::Trace& trace) {
    exec::run_ir_once(ir, in, {}, limits, trace);
  };
  add_synthesized_inputs(
      run,
      [&](const std::set<exec::BranchKey>& wanted, const exec::SynthesisOptions& so) {
        return exec::synthesize_inputs(exec::ir_input_decls(ir), run, policy, pr.inputs.front().values, wanted, so);
      },
      policy, cfg, pr);
}

// The Ifs of an IR as the IR executor names them (Model::full_path_of), each with the pins of the Ifs whose branch
// holds it: what --branches both pins, one variant per If and branch.
std::vector<IfSite> ir_sites(const Model& model) {
  std::vector<IfSite> out;
  for (const auto& c : model.conditionals) {
    IfSite s;
    s.path = model.full_path_of(c.graph, c.node);
    for (int g = c.graph; g > 0 && g < static_cast<int>(model.graphs.size());) {
      const Graph& gr = model.graphs[g];
      if (gr.parent_graph < 0) break;
      if (gr.role == "then" || gr.role == "else") s.along[model.full_path_of(gr.parent_graph, gr.parent_node)] = gr.role == "then";
      g = gr.parent_graph;
    }
    out.push_back(std::move(s));
  }
  return out;
}

// An OpenVINO IR: the reference executor runs it as the front door read it, OpenVINO reads the files condlint
// checked, and its export to ONNX (exact or none) is only for the runtimes that read ONNX. False (md.error set)
// when it cannot be diffed at all.
bool load_ir_base(const fs::path& model_path, const Model& model, const fs::path& dir, Prepared& pr, Variant& base,
                  std::unique_ptr<exec::BranchPolicy>& policy) {
  ModelDiff& md = *pr.md;
  if (auto why = exec::readability_of(model); !why.empty()) {  // one verdict with lint's
    md.error = model_path.string() + ": " + why;
    return false;
  }
  if (!model.ir || model.graphs.empty()) {
    md.error = model_path.string() + ": not an OpenVINO IR with a main graph";
    return false;
  }
  // What `run` refuses to execute (exec::run_ir_model) is not diffed either, nor handed to OpenVINO.
  for (const auto& p : model.ir->problems)
    if (p.kind != IrProblem::Kind::BadAttribute) {
      md.error = model_path.string() + ": " + p.message;
      return false;
    }
  // The runtimes that read IR themselves get the view of the files condlint checked (model_view.hpp), under a name
  // no job list can misread.
  std::string why;
  ViewPlan plan = plan_view(model);
  const fs::path staged = plan.refused.empty() ? stage_view(plan, dir / "source", why) : fs::path();
  if (staged.empty()) {
    md.error = "cannot give the IR to a runtime: " + (plan.refused.empty() ? why : plan.refused);
    return false;
  }
  pr.source_ir = fs::absolute(staged);
  pr.ir = &model;
  pr.output_names = exec::ir_output_names(model);
  policy = std::make_unique<exec::BranchPolicy>(model);
  xport::ExportResult ex = xport::export_model(model, model_path, {});
  if (ex.error.empty() && ex.ok()) {
    for (const auto& n : ex.notes) md.notes.push_back("export: " + n);
    for (const auto& [src, onnx_path] : ex.if_paths) {
      pr.source_paths[onnx_path] = src;
      pr.onnx_paths[src] = onnx_path;
    }
    base.model = std::move(ex.model);
    base.file = dir / "exported.onnx";
    std::string out;
    if (!base.model.SerializeToString(&out) || !write_file(base.file, out)) {
      md.error = "cannot write " + base.file.string();
      return false;
    }
    return true;
  }
  // No ONNX export: the runtimes that read ONNX say why instead of running it.
  std::string first = !ex.error.empty() ? ex.error : ex.problems.empty() ? std::string("no export") : ex.problems.front();
  pr.no_onnx = "condlint cannot export this IR to ONNX exactly (" + first +
               (ex.problems.size() > 1 ? "; and " + std::to_string(ex.problems.size() - 1) + " more" : "") +
               "), and this runtime reads ONNX only";
  md.notes.push_back("not exported to ONNX (" + first +
                     "): the reference executor and OpenVINO run the IR itself; a runtime that reads ONNX does not run it");
  return true;
}

// The model as given, as ONNX (IR and NNAPI are exported, exactly or not at all) into `base`, with the policy of
// which branches pinning may reach (ONNX) and the data sets an export carried over; false (md.error set) when it
// cannot be diffed.
bool load_base(const fs::path& model_path, const LoadResult* opened, const fs::path& dir, Prepared& pr, Variant& base,
               std::unique_ptr<exec::BranchPolicy>& policy, std::vector<xport::ExportedDataSet>& exported_sets) {
  ModelDiff& md = *pr.md;
  if (!opened || !opened->model) {
    md.error = model_path.string() + ": " + (opened ? opened->io_error : std::string("not opened"));
    return false;
  }
  const Model& model = *opened->model;
  if (model.format == Format::IR) return load_ir_base(model_path, model, dir, pr, base, policy);
  if (model.format != Format::ONNX) {
    // An NNAPI model is exported to ONNX (what every runtime here reads); the export is exact or refused.
    const char* kind = "NNAPI";
    xport::ExportResult ex = xport::export_model(model, model_path, {});
    if (!ex.error.empty()) {
      md.error = ex.error;
      return false;
    }
    if (!ex.ok()) {
      std::string why;
      for (const auto& p : ex.problems) why += "\n    " + p;
      md.error = std::string("cannot export this ") + kind +
                 " model to ONNX exactly (condlint export), so it cannot be diffed:" + why;
      return false;
    }
    for (const auto& n : ex.notes) md.notes.push_back("export: " + n);
    for (const auto& [src, onnx_path] : ex.if_paths) pr.source_paths[onnx_path] = src;
    base.model = std::move(ex.model);
    exported_sets = std::move(ex.data_sets);
    base.file = dir / "exported.onnx";
    std::string out;
    if (!base.model.SerializeToString(&out) || !write_file(base.file, out)) {
      md.error = "cannot write " + base.file.string();
      return false;
    }
    md.notes.push_back(std::string("exported from ") + kind + " to ONNX; If paths are the " + kind + " model's");
    return true;
  }
  // The parsed protobuf open_model kept (the file is parsed once), or why it could not be parsed.
  if (!model.onnx || !model.onnx->proto) {
    md.error = model_path.string() + ": " +
               (model.onnx && !model.onnx->proto_error.empty() ? model.onnx->proto_error
                                                               : std::string("the parsed model was not kept"));
    return false;
  }
  base.model = *model.onnx->proto;
  // Weights the loader left in the mapped file go back into the variants written for the runtimes.
  if (std::string err; model.onnx->payload_file && !restore_mapped_payloads(base.model, err)) {
    md.error = model_path.string() + ": " + err;
    return false;
  }
  base.file = fs::absolute(model_path);
  if (auto why = exec::readability_of(model); !why.empty()) {  // one verdict with lint's
    md.error = model_path.string() + ": " + why;
    return false;
  }
  // External data lint's checks let through goes inline too: each runtime runs the variants written in a folder of
  // their own, and the reference runs them in memory.
  if (std::string err = exec::inline_external_data(base.model, exec::external_data_list(model), model_path);
      !err.empty()) {
    md.error = model_path.string() + ": " + err;
    return false;
  }
  policy = std::make_unique<exec::BranchPolicy>(model);
  return true;
}

// An IR's variant: its pins on the IR's If paths (what the reference executor and OpenVINO run) and, where the IR
// has an export, the export with the same Ifs pinned (what a runtime that reads ONNX runs).
void add_ir_variant(const onnx::ModelProto& exported, const fs::path& dir, Prepared& pr, Variant v) {
  if (!pr.no_onnx.empty()) {
    v.no_onnx = pr.no_onnx;
  } else {
    std::map<std::string, bool> onnx_pins;
    for (const auto& [path, b] : v.pins) {
      const auto it = pr.onnx_paths.find(path);
      if (it == pr.onnx_paths.end()) v.no_onnx = "the ONNX export has no If for " + path;
      else onnx_pins[it->second] = b;
    }
    if (v.no_onnx.empty())
      if (std::string why = pin_model(exported, onnx_pins, v.model); !why.empty()) v.no_onnx = "cannot pin the export: " + why;
    if (v.no_onnx.empty()) {
      v.file = dir / ("variant_" + std::to_string(pr.variants.size()) + ".onnx");
      std::string out;
      if (!v.model.SerializeToString(&out) || !write_file(v.file, out)) v.error = "cannot write " + v.file.string();
    }
  }
  pr.variants.push_back(std::move(v));
}

// One variant per combination of pinned Ifs (--branches both), up to the cap, written beside the model as given;
// pins the policy refuses (a dead branch, a shape guard) are left out with a note.
void add_branch_variants(const onnx::ModelProto& m, const exec::BranchPolicy* policy, const DiffConfig& cfg,
                         const fs::path& dir, Prepared& pr) {
  ModelDiff& md = *pr.md;
  const auto ifs = pr.ir ? ir_sites(*pr.ir) : find_ifs(m);
  // Every variant is held in memory (ref runs it in process): at most ~2 GiB of variants.
  const size_t model_bytes = std::max<size_t>(m.ByteSizeLong(), 1);
  const int by_memory = static_cast<int>(std::min<size_t>((size_t{2} << 30) / model_bytes, 1'000'000));
  const int cap = std::max(1, std::min(cfg.max_variants, by_memory));
  auto vs = branch_variants(ifs, cap);
  // A variant that pins a dead branch, or a shape guard against the shapes that reach it, runs a state no input
  // can make: it is not run, and the note says why (exec::BranchPolicy).
  if (policy) {
    std::set<std::string> refused;
    std::vector<std::map<std::string, bool>> kept;
    for (auto& p : vs) {
      std::string why;
      for (const auto& [path, b] : p)
        if (why.empty()) {
          why = policy->why_not_pin(path, b);
          if (!why.empty()) why = path + "=" + (b ? "then" : "else") + ": " + why;
        }
      if (why.empty()) kept.push_back(std::move(p));
      else refused.insert(std::move(why));
    }
    vs = std::move(kept);
    if (!refused.empty()) {
      size_t dead = 0;
      for (const auto& r : refused) dead += r.find(": dead: ") != std::string::npos;
      std::string note = std::to_string(refused.size()) + " branch pins not run (" + std::to_string(dead) + " dead, " +
                         std::to_string(refused.size() - dead) +
                         " behind shape guards: pinning would feed a branch shapes that cannot reach it); e.g. " +
                         *refused.begin();
      md.notes.push_back(note);
    }
  }
  if (static_cast<int>(vs.size()) >= cap && branch_variants(ifs, cap + 1).size() > vs.size())
    md.notes.push_back("only the first " + std::to_string(cap) + " branch variants are run");
  for (const auto& p : vs) {
    Variant v;
    v.pins = p;
    if (pr.ir) {
      add_ir_variant(m, dir, pr, std::move(v));
      continue;
    }
    v.error = pin_model(m, p, v.model);
    if (v.error.empty()) {
      v.file = dir / ("variant_" + std::to_string(pr.variants.size()) + ".onnx");
      std::string out;
      if (!v.model.SerializeToString(&out) || !write_file(v.file, out)) v.error = "cannot write " + v.file.string();
    }
    pr.variants.push_back(std::move(v));
  }
  bool in_function = false;
  for (const auto& site : ifs)
    if (site.path.rfind("function:", 0) == 0) in_function = true;
  if (in_function)
    md.notes.push_back(
        "an If inside a model-local function is pinned in the function's body: every call of the function takes that "
        "branch");
}

// One data set's inputs read for the model's inputs `decls` (an ONNX model's `ins` give each .pb its declared type;
// an IR has none: each file read as it says); false (md.error set) when one is missing or unreadable.
bool read_input_set(const exec::DataSet& ds, const std::vector<const onnx::ValueInfoProto*>& ins,
                    const std::vector<exec::InputDecl>& decls, ModelDiff& md, InputSet& is) {
  const bool ir = ins.empty();
  is.name = ds.dir.string();
  // diff reads a set's inputs only: an unusable golden output does not stop it, an unusable input does.
  if (std::string why = ds.problem(/*outputs_too=*/false); !why.empty()) {
    md.error = ds.dir.string() + ": " + why;
    return false;
  }
  if (ds.inputs.size() > decls.size()) {
    md.error = ds.dir.string() + ": input_" + std::to_string(ds.inputs.size() - 1) + " but the model has " +
               std::to_string(decls.size()) + (ir ? " Parameters" : " inputs");
    return false;
  }
  for (size_t k = 0; k < decls.size(); ++k) {
    if (k >= ds.inputs.size() || ds.inputs[k].empty()) {
      md.error = ds.dir.string() + ": no input_" + std::to_string(k) + (ir ? " for Parameter '" : " for model input '") +
                 decls[k].name + "'";
      return false;
    }
    std::string b;
    if (auto e = exec::read_file_bytes(ds.inputs[k], b); !e.empty()) {
      md.error = e;
      return false;
    }
    const onnx::TypeProto* type = k < ins.size() && ins[k]->has_type() ? &ins[k]->type() : nullptr;
    try {
      is.values.push_back(ds.inputs[k].extension() == ".npy" ? exec::read_npy(b) : exec::read_pb_value(b, type));
    } catch (const std::exception& e) {
      md.error = ds.inputs[k].string() + ": " + e.what();
      return false;
    }
  }
  return true;
}

// The input sets: --data, else the data sets beside the model (or those an export carried over), and --random.
bool gather_inputs(const fs::path& model_path, const DiffConfig& cfg,
                   const std::vector<const onnx::ValueInfoProto*>& ins, const std::vector<exec::InputDecl>& decls,
                   std::vector<xport::ExportedDataSet>& exported_sets, Prepared& pr) {
  ModelDiff& md = *pr.md;
  std::vector<exec::DataSet> sets;
  for (const auto& d : cfg.data_dirs) {
    auto s = exec::find_data_sets(d);
    if (s.empty()) {
      md.error = "no test_data_set_* in " + d.string();
      return false;
    }
    sets.insert(sets.end(), s.begin(), s.end());
  }
  if (cfg.data_dirs.empty() && cfg.random.count == 0 && !exported_sets.empty()) {
    // The golden inputs the export carried over (NNAPI examples).
    bool pinned = false;
    for (auto& ds : exported_sets) {
      pinned |= !ds.pins.empty();
      pr.inputs.push_back({ds.name, std::move(ds.inputs), {}});
    }
    if (pinned)
      md.notes.push_back(
          "some exported data sets need pinned conditions (e.g. a NO_VALUE condition); their unpinned runs may fail");
  } else if (cfg.data_dirs.empty() && cfg.random.count == 0) {
    sets = exec::find_data_sets(model_path.parent_path().empty() ? fs::path(".") : model_path.parent_path());
  }
  for (const auto& ds : sets) {
    InputSet is;
    if (!read_input_set(ds, ins, decls, md, is)) return false;
    pr.inputs.push_back(std::move(is));
  }
  if (cfg.random.count > 0) {
    // Open dims as the data sets have them (the shapes the model is known to run), else the default.
    exec::RandomInputs spec = cfg.random;
    // With --random alone the data sets beside the model are not run, but their shapes are still evidence.
    const std::vector<exec::DataSet> beside =
        sets.empty() && cfg.data_dirs.empty()
            ? exec::find_data_sets(model_path.parent_path().empty() ? fs::path(".") : model_path.parent_path())
            : std::vector<exec::DataSet>{};
    const std::string from = exec::shapes_from_data(decls, sets.empty() ? beside : sets, spec);
    std::mt19937_64 rng(cfg.random.seed);
    for (int r = 0; r < cfg.random.count; ++r) {
      InputSet is;
      if (auto e = exec::random_inputs(decls, spec, rng, is.values); !e.empty()) {
        md.error = e;
        return false;
      }
      is.name = "random_" + std::to_string(r) + " (seed " + std::to_string(cfg.random.seed) +
                (from.empty() ? "" : "; open dims as in " + from) + ")";
      if (const std::string shapes = exec::shapes_label(decls, is.values); !shapes.empty())
        is.name += ": " + shapes;
      pr.inputs.push_back(std::move(is));
    }
  }
  if (pr.inputs.empty()) {
    if (!decls.empty()) {
      md.error = "no inputs: no test_data_set_* beside the model; give --data DIR or --random N";
      return false;
    }
    pr.inputs.push_back({"(no inputs)", {}, {}});
  }
  return true;
}

// Each input set written as input_K.pb under dir/inputs_N, where every runtime reads it.
void write_inputs(const fs::path& dir, const std::vector<exec::InputDecl>& decls, Prepared& pr) {
  ModelDiff& md = *pr.md;
  for (size_t d = 0; d < pr.inputs.size(); ++d) {
    auto& is = pr.inputs[d];
    is.dir = dir / ("inputs_" + std::to_string(d));
    std::error_code ec;
    fs::create_directories(is.dir, ec);
    for (size_t k = 0; k < is.values.size(); ++k) {
      std::string pb;
      try {
        pb = exec::write_pb_value(is.values[k], k < decls.size() ? decls[k].name : "");
      } catch (const std::exception& e) {
        md.error = "cannot write input " + std::to_string(k) + ": " + e.what();
        return;
      }
      if (!write_file(is.dir / ("input_" + std::to_string(k) + ".pb"), pb)) {
        md.error = "cannot write " + (is.dir / ("input_" + std::to_string(k) + ".pb")).string();
        return;
      }
    }
  }
}

void prepare(const fs::path& model_path, const LoadResult* opened, const DiffConfig& cfg, const fs::path& dir,
             Prepared& pr) {
  ModelDiff& md = *pr.md;
  md.model = model_path.string();
  Variant base;
  std::unique_ptr<exec::BranchPolicy> policy;  // ONNX models and IRs: which branches pinning may reach
  std::vector<xport::ExportedDataSet> exported_sets;
  if (!load_base(model_path, opened, dir, pr, base, policy, exported_sets)) return;
  if (pr.ir) {
    for (const auto& s : ir_sites(*pr.ir)) md.ifs.push_back(s.path);
    base.no_onnx = pr.no_onnx;
  } else {
    for (const auto& s : find_ifs(base.model)) md.ifs.push_back(s.path);
    for (const auto& o : base.model.graph().output()) pr.output_names.push_back(o.name());
  }
  pr.variants.reserve(static_cast<size_t>(std::max(cfg.max_variants, 0)) + 1);  // `m` below must stay put
  pr.variants.push_back(std::move(base));
  const onnx::ModelProto& m = pr.variants.front().model;
  if (cfg.both_branches) add_branch_variants(m, policy.get(), cfg, dir, pr);
  if (pr.ir) {
    const auto decls = exec::ir_input_decls(*pr.ir);
    if (!gather_inputs(model_path, cfg, {}, decls, exported_sets, pr)) return;
    if (cfg.both_branches) add_synthesized_inputs(*pr.ir, *policy, cfg, pr);
    write_inputs(dir, decls, pr);
    return;
  }
  const exec::Interpreter probe(m, {});
  const auto decls = exec::input_decls(probe);
  if (!gather_inputs(model_path, cfg, probe.data_inputs(), decls, exported_sets, pr)) return;
  if (policy && cfg.both_branches) add_synthesized_inputs(m, *policy, cfg, pr);
  write_inputs(dir, decls, pr);
}

// --save: one input set's run of the model as given, as a data set under `dir`; "" when it cannot be written.
std::string save_run(const fs::path& dir, int index, const InputSet& is, const std::vector<const JobOutcome*>& outs,
                     const std::vector<std::string>& runtimes, const std::vector<std::string>& output_names) {
  const fs::path d = dir / ("test_data_set_" + std::to_string(index));
  std::error_code ec;
  fs::create_directories(d, ec);
  if (ec) return "";
  for (size_t k = 0; k < is.values.size(); ++k) {
    const std::string f = "input_" + std::to_string(k) + ".pb";
    fs::copy_file(is.dir / f, d / f, fs::copy_options::overwrite_existing, ec);
    if (ec) return "";
  }
  std::string names;
  for (size_t r = 0; r < outs.size() && r < runtimes.size(); ++r) {
    names += "runtime_" + std::to_string(r) + ": " + runtimes[r] + "\n";
    for (size_t k = 0; k < outs[r]->outputs.size(); ++k) {
      if (!outs[r]->outputs[k]) continue;
      std::string pb;
      try {
        pb = exec::write_pb_value(*outs[r]->outputs[k], k < output_names.size() ? output_names[k] : "");
      } catch (const std::exception&) {
        continue;  // a value .pb cannot hold (a sequence of optionals): the review has the others
      }
      const std::string f = "output_" + std::to_string(k) + ".pb";
      fs::create_directories(d / ("runtime_" + std::to_string(r)), ec);
      if (!write_file(d / ("runtime_" + std::to_string(r)) / f, pb)) return "";
      if (r == 0 && !write_file(d / f, pb)) return "";
    }
  }
  if (!write_file(d / "runtimes.txt", names)) return "";
  return d.string();
}

OutputDiff compare_output(const std::string& name, const Value& a, const Value& b, const DiffConfig& cfg) {
  OutputDiff od;
  od.name = name;
  std::optional<double> atol = cfg.atol, rtol = cfg.rtol;
  if (auto it = cfg.tolerances.find(name); it != cfg.tolerances.end()) {
    atol = it->second.first;
    rtol = it->second.second;
  }
  const exec::Comparison c = exec::compare_values(b, a, atol, rtol);
  od.max_abs = c.max_abs;
  od.max_rel = c.max_rel;
  od.tolerance = c.tolerance;
  od.first_index = c.first_index;
  od.mismatches = c.mismatches;
  if (!c.ok) {
    od.status = OutputDiff::Status::Diverge;
    od.detail = c.reason;
    if (a.is_tensor() && b.is_tensor() && a.t->shape == b.t->shape && a.t->dt == b.t->dt) {
      const int64_t k = flat_index(*a.t, c.first_index);
      od.value_a = elem_str(*a.t, k);
      od.value_b = elem_str(*b.t, k);
    }
  }
  return od;
}

}  // namespace

bool DiffResult::usage_error() const {
  for (const auto& m : models)
    if (!m.error.empty()) return true;
  return false;
}

bool DiffResult::all_agree() const {
  for (const auto& m : models) {
    if (!m.error.empty() || m.diverge || m.failed) return false;
    if (m.agree == 0 && m.not_comparable > 0) return false;  // nothing compared at all is not agreement
  }
  return true;
}

namespace {

// The runtimes' outcomes of one job compared: which runtime failed, or how the outputs of the first two compare.
void compare_case(const Variant& v, const std::vector<std::string>& output_names, size_t k,
                  const std::vector<std::vector<JobOutcome>>& outcomes, const std::vector<std::string>& names,
                  const DiffConfig& cfg, ModelDiff& md, CaseDiff& c) {
  const size_t n = outcomes.size();
  for (size_t r = 0; r < n; ++r) {
    const JobOutcome& o = outcomes[r][k];
    c.runtime_errors.push_back(o.ok ? "" : (o.error.empty() ? "failed" : o.error));
    c.ms.push_back(o.ms);
    if (v.pins.empty() && c.took.empty()) c.took = o.took;
    if (!o.ok && c.status != CaseDiff::Status::Failed) {
      c.status = CaseDiff::Status::Failed;
      c.message = names[r] + " failed: " + c.runtime_errors.back();
    }
  }
  // A pinned state every runtime refuses is one the inputs cannot reach this way (a branch fed what its
  // condition excludes): the runtimes agree, and no output can be compared. Not a failure.
  if (c.status == CaseDiff::Status::Failed && !v.pins.empty() && n >= 2 &&
      std::all_of(c.runtime_errors.begin(), c.runtime_errors.end(), [](const std::string& e) { return !e.empty(); })) {
    c.status = CaseDiff::Status::NotComparable;
    c.message = "every runtime refuses this pinned state: these inputs cannot reach it this way";
  }
  // Each runtime after the first against the first; with more than two, an output's row names the pair.
  for (size_t r = 1; r < n && (c.status == CaseDiff::Status::Agree || c.status == CaseDiff::Status::Diverge); ++r) {
    const JobOutcome& a = outcomes[0][k];
    const JobOutcome& b = outcomes[r][k];
    const std::string pair = n > 2 ? " (" + names[0] + " vs " + names[r] + ")" : "";
    for (int o = 0; o < static_cast<int>(output_names.size()); ++o) {
      const std::string& nm = output_names[o];
      const bool ha = o < static_cast<int>(a.outputs.size()), hb = o < static_cast<int>(b.outputs.size());
      const std::string na = ha && o < static_cast<int>(a.not_comparable.size()) ? a.not_comparable[o] : "";
      const std::string nb = hb && o < static_cast<int>(b.not_comparable.size()) ? b.not_comparable[o] : "";
      if (!na.empty() || !nb.empty()) {
        OutputDiff od;
        od.name = nm + pair;
        od.runtime_b = r;
        od.status = OutputDiff::Status::NotComparable;
        od.detail = !na.empty() ? names[0] + ": " + na : names[r] + ": " + nb;
        ++md.not_comparable_outputs;
        c.outputs.push_back(od);
        continue;
      }
      if (!ha || !hb || !a.outputs[o] || !b.outputs[o]) {
        c.status = CaseDiff::Status::Failed;
        c.message = (!ha || !a.outputs[o] ? names[0] : names[r]) + " returned no output " + std::to_string(o) + " ('" +
                    nm + "')";
        break;
      }
      OutputDiff od = compare_output(nm, *a.outputs[o], *b.outputs[o], cfg);
      od.name += pair;
      od.runtime_b = r;
      if (od.status == OutputDiff::Status::Diverge && c.status == CaseDiff::Status::Agree) {
        c.status = CaseDiff::Status::Diverge;
        c.message = "output '" + nm + "' diverges" + (n > 2 ? " between " + names[0] + " and " + names[r] : "");
      }
      c.outputs.push_back(std::move(od));
    }
  }
  if (c.status == CaseDiff::Status::Agree && !c.outputs.empty()) {
    bool any = false;
    for (const auto& o : c.outputs) any |= o.status != OutputDiff::Status::NotComparable;
    if (!any) c.status = CaseDiff::Status::NotComparable;
  }
}

void count_case(const CaseDiff& c, ModelDiff& md) {
  if (c.status == CaseDiff::Status::Agree) ++md.agree;
  else if (c.status == CaseDiff::Status::NotComparable) ++md.not_comparable;
  else if (c.status == CaseDiff::Status::Diverge) ++md.diverge;
  else ++md.failed;
}

// Exported models: the Ifs named as the source model names them.
void rename_to_source(Prepared& pr) {
  if (pr.source_paths.empty() || pr.ir) return;  // an IR's paths are its own already
  auto rename = [&](std::map<std::string, bool>& m) {
    std::map<std::string, bool> out;
    for (const auto& [k, v] : m) {
      auto it = pr.source_paths.find(k);
      out[it == pr.source_paths.end() ? k : it->second] = v;
    }
    m = std::move(out);
  };
  for (auto& p : pr.md->ifs)
    if (auto it = pr.source_paths.find(p); it != pr.source_paths.end()) p = it->second;
  for (auto& c : pr.md->cases) {
    rename(c.pins);
    rename(c.took);
  }
}

// Every (variant, input set) of every prepared model as a job, in one order for every runtime; `runnable` lists
// the jobs whose variant could be built.
std::vector<Job> plan_jobs(std::vector<Prepared>& prep, const fs::path& work, std::vector<size_t>& runnable) {
  std::vector<Job> jobs;
  for (size_t i = 0; i < prep.size(); ++i) {
    if (!prep[i].md->error.empty()) continue;
    const fs::path dir = work / ("model_" + std::to_string(i));
    prep[i].first_job = jobs.size();
    for (size_t v = 0; v < prep[i].variants.size(); ++v)
      for (size_t d = 0; d < prep[i].inputs.size(); ++d) {
        if (!runs(prep[i], v, d)) continue;
        if (prep[i].variants[v].error.empty()) runnable.push_back(jobs.size());
        Job j;
        j.model = &prep[i].variants[v].model;
        j.inputs = &prep[i].inputs[d].values;
        j.model_file = prep[i].variants[v].file;
        j.input_dir = prep[i].inputs[d].dir;
        j.output_dir = dir / ("out_v" + std::to_string(v) + "_d" + std::to_string(d));
        if (prep[i].ir) {
          // An IR: the reference and OpenVINO run it with the variant's pins on its own If paths.
          j.source_model = prep[i].source_ir;
          j.source_loaded = prep[i].ir;
          j.source_pins = prep[i].variants[v].pins;
          j.output_names = &prep[i].output_names;
          j.no_onnx = prep[i].variants[v].no_onnx;
        }
        jobs.push_back(j);
      }
  }
  return jobs;
}

// Model i's cases from the runtimes' outcomes (and --save's data sets of the model as given).
void collect_cases(size_t i, const std::vector<fs::path>& models, Prepared& pr,
                   const std::vector<std::vector<JobOutcome>>& outcomes, const std::vector<std::string>& names,
                   const DiffConfig& cfg) {
  ModelDiff& md = *pr.md;
  int saved = 0;
  size_t k = pr.first_job;
  for (size_t vi = 0; vi < pr.variants.size(); ++vi)
    for (size_t d = 0; d < pr.inputs.size(); ++d) {
      if (!runs(pr, vi, d)) continue;
      const Variant& v = pr.variants[vi];
      CaseDiff c;
      c.pins = v.pins;
      c.data_set = pr.inputs[d].name;
      if (!v.error.empty()) {
        ++k;
        c.status = CaseDiff::Status::Failed;
        c.message = "cannot build the variant: " + v.error;
        md.cases.push_back(std::move(c));
        continue;
      }
      compare_case(v, pr.output_names, k, outcomes, names, cfg, md, c);
      if (!cfg.save_dir.empty() && vi == 0) {
        std::vector<const JobOutcome*> outs;
        for (const auto& per_runtime : outcomes) outs.push_back(&per_runtime[k]);
        fs::path dir = cfg.save_dir;
        if (models.size() > 1) dir /= std::to_string(i) + "_" + fs::path(models[i]).stem().string();
        c.saved_to = save_run(dir, saved++, pr.inputs[d], outs, names, pr.output_names);
      }
      ++k;
      count_case(c, md);
      md.cases.push_back(std::move(c));
    }
}

}  // namespace

DiffResult run_diff(const std::vector<DiffModel>& given, const std::vector<Runtime*>& runtimes, const DiffConfig& cfg) {
  std::vector<fs::path> models;
  for (const auto& m : given) models.push_back(m.path);
  DiffResult res;
  for (auto* r : runtimes) res.runtimes.push_back(r->name());
  // A runtime named twice: each by its place ("onnxruntime#1", "onnxruntime#2").
  const std::vector<std::string> names = res.runtimes;
  for (size_t r = 0; r < names.size(); ++r)
    if (std::count(names.begin(), names.end(), names[r]) > 1) res.runtimes[r] += "#" + std::to_string(r + 1);
  res.models.resize(models.size());
  // The work directory is removed on every way out, an exception included, unless it was asked for or to be kept.
  struct WorkDir {
    fs::path path;
    bool remove = false;
    ~WorkDir() {
      std::error_code ec;
      if (remove && !path.empty()) fs::remove_all(path, ec);
    }
  } owned{make_work_dir(cfg), cfg.work_dir.empty() && !cfg.keep};
  // A signal removes it too (unless it was asked for or to be kept).
  const io::CleanupSlot on_signal = owned.remove ? io::register_temp_dir(owned.path.string()) : io::CleanupSlot();
  const fs::path& work = owned.path;
  if (work.empty()) {
    for (size_t i = 0; i < models.size(); ++i) {
      res.models[i].model = models[i].string();
      res.models[i].error = "cannot create a work directory";
    }
    return res;
  }
  std::vector<Prepared> prep(models.size());
  for (size_t i = 0; i < models.size(); ++i) {
    prep[i].md = &res.models[i];
    const fs::path dir = work / ("model_" + std::to_string(i));
    std::error_code ec;
    fs::create_directories(dir, ec);
    prepare(models[i], given[i].opened, cfg, dir, prep[i]);
  }
  // Runtimes run only the variants that could be made; outcomes[r] is indexed like the jobs.
  std::vector<size_t> runnable;
  const std::vector<Job> base_jobs = plan_jobs(prep, work, runnable);
  std::vector<std::vector<JobOutcome>> outcomes(runtimes.size(), std::vector<JobOutcome>(base_jobs.size()));
  for (size_t r = 0; r < runtimes.size(); ++r) {
    std::vector<Job> jobs;
    for (size_t k : runnable) {
      Job j = base_jobs[k];
      j.output_dir += "_r" + std::to_string(r);
      jobs.push_back(j);
    }
    auto outs = runtimes[r]->run(jobs);
    for (size_t x = 0; x < runnable.size() && x < outs.size(); ++x) outcomes[r][runnable[x]] = std::move(outs[x]);
  }
  for (size_t i = 0; i < models.size(); ++i)
    if (prep[i].md->error.empty()) collect_cases(i, models, prep[i], outcomes, res.runtimes, cfg);
  // How a runtime was asked to compute, where its default is not the model's arithmetic.
  for (const auto* r : runtimes)
    if (r->name() == "openvino")
      for (auto& m : res.models)
        if (m.error.empty())
          m.notes.push_back("openvino: compiled for CPU in f32 (INFERENCE_PRECISION_HINT), not the plugin's bf16/f16 default");
  for (auto& pr : prep) rename_to_source(pr);
  return res;
}

}  // namespace condlint::diff
