#include "exec/runner.hpp"

#include "model/node_path.hpp"
#include "model/onnx_data.hpp"

#include "loaders/loader.hpp"
#include "rules/readability.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <random>
#include <set>

#include "exec/compare.hpp"
#include "exec/interpreter.hpp"
#include "exec/onnx_io.hpp"
#include "exec/synthesize.hpp"
#include "io/output.hpp"

namespace condlint::exec {

namespace fs = std::filesystem;

const char* to_string(CaseStatus s) {
  switch (s) {
    case CaseStatus::Passed: return "passed";
    case CaseStatus::Mismatch: return "mismatch";
    case CaseStatus::Failed: return "failed";
    case CaseStatus::Unsupported: return "unsupported";
  }
  return "?";
}

namespace {

Value read_golden(const fs::path& p, const onnx::TypeProto* type) {
  std::string bytes;
  if (auto e = read_file_bytes(p, bytes); !e.empty()) fail(e);
  try {
    if (p.extension() == ".npy") return read_npy(bytes);
    return read_pb_value(bytes, type);
  } catch (const ExecError& e) {
    throw ExecError(e.kind, p.filename().string() + ": " + e.what());
  }
}

LoadedSet load_data_set(const DataSet& ds, const Interpreter& ip) {
  LoadedSet l;
  try {
    const auto ins = ip.data_inputs();
    const auto outs = ip.data_outputs();
    if (ds.inputs.size() > ins.size())
      fail("data set has input_" + std::to_string(ds.inputs.size() - 1) + ", the model has " +
           std::to_string(ins.size()) + " inputs");
    for (size_t k = 0; k < ins.size(); ++k) {
      if (k >= ds.inputs.size() || ds.inputs[k].empty())
        fail("data set has no input_" + std::to_string(k) + " for model input '" + ins[k]->name() + "'");
      l.inputs.push_back(read_golden(ds.inputs[k], ins[k]->has_type() ? &ins[k]->type() : nullptr));
    }
    if (ds.outputs.size() > outs.size())
      fail("data set has output_" + std::to_string(ds.outputs.size() - 1) + ", the model has " +
           std::to_string(outs.size()) + " outputs");
    for (size_t k = 0; k < outs.size(); ++k) {
      if (k >= ds.outputs.size() || ds.outputs[k].empty()) l.golden.emplace_back();
      else l.golden.emplace_back(read_golden(ds.outputs[k], outs[k]->has_type() ? &outs[k]->type() : nullptr));
    }
  } catch (const ExecError& e) {
    l.error = e.what();
    l.status = e.kind == ErrKind::Unsupported ? CaseStatus::Unsupported : CaseStatus::Failed;
  }
  return l;
}

std::string file_bytes(const fs::path& p) {
  std::string b;
  read_file_bytes(p, b);
  return b;
}

}  // namespace

void run_timed(CaseResult& cr, const std::function<void()>& body) {
  const auto t0 = std::chrono::steady_clock::now();
  try {
    body();
  } catch (const ExecError& e) {
    cr.status = e.kind == ErrKind::Unsupported ? CaseStatus::Unsupported : CaseStatus::Failed;
    cr.message = e.what();
    if (e.kind == ErrKind::Resource) cr.message = "resource limit: " + cr.message;
    if (e.kind == ErrKind::Timeout) cr.message = "stopped: " + cr.message;
  } catch (const std::exception& e) {
    cr.status = CaseStatus::Failed;
    cr.message = std::string("internal error: ") + e.what();
  }
  cr.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

CaseResult not_run(CaseResult cr, const Limits& limits) {
  cr.status = CaseStatus::Failed;
  cr.message = "not run: " + limits.deadline.reached();
  return cr;
}

RunOptions case_options(CaseResult& cr, const RunConfig& cfg, const PinSet& pins) {
  cr.pins = pins;
  RunOptions ro;
  ro.limits = cfg.limits;
  ro.pins = pins;
  return ro;
}

void finish_case(CaseResult& cr, const RunConfig& cfg, const PinSet& pins, const Trace& trace,
                 const std::vector<Value>& outputs, const std::vector<std::optional<Value>>* golden, size_t count,
                 const std::function<std::string(size_t, OutputResult&)>& declared) {
  for (const auto& [path, site] : trace.ifs) cr.if_branches[path] = std::vector<bool>(site.ran.begin(), site.ran.end());
  cr.branch_problems = trace.branch_problems;
  for (const auto& [path, v] : pins)
    if (!trace.ifs.count(path) && cr.status == CaseStatus::Passed) {
      cr.status = CaseStatus::Failed;
      cr.message = "pin '" + path + "' matched no If that ran";
    }
  if (cr.status != CaseStatus::Passed) return;
  bool contradicted = !cr.branch_problems.empty(), other = false;
  for (size_t k = 0; k < count && k < outputs.size(); ++k) {
    OutputResult o;
    const std::string e = declared(k, o);
    if (!e.empty()) {
      o.ok = false;
      o.detail = e;
      contradicted = true;
    }
    judge_output(cr, std::move(o), outputs[k], golden && k < golden->size() && (*golden)[k] ? &*(*golden)[k] : nullptr,
                 cfg);
    const OutputResult& judged = cr.outputs.back();
    other = other || (!judged.ok && judged.detail != e);  // the golden data differ
  }
  cr.declarations_only = contradicted && !other;
  if (cr.branch_problems.empty()) return;
  cr.status = CaseStatus::Mismatch;
  cr.message = cr.branch_problems.front();
}

static bool to_save(const CaseResult& cr, const RunConfig& cfg) {
  return !cfg.save_dir.empty() &&
         (cr.status == CaseStatus::Passed || (cfg.save_declaration_mismatches && cr.declarations_only));
}

void run_pin_sets(const DataPlan& plan, size_t s, const std::string& name, const RunConfig& cfg, ModelResult& mr,
                  PinState& state,
                  const std::function<CaseResult(const PinSet&, bool, Trace&, std::vector<Value>&)>& run,
                  const std::function<std::string(const PinSet&, const std::vector<Value>&)>& save) {
  // (If path, branch) already run for these inputs, across data sets with the same inputs
  std::set<std::pair<std::string, bool>>& done = state.done_by_input[plan.input_keys[s]];
  std::vector<PinSet> work{plan.pins_of(s, cfg)};
  auto record = [&](CaseResult cr, const Trace& trace, const PinSet& pins, bool derived, std::vector<Value>& outputs) {
    cr.data_set = name;
    cr.derived = derived;
    for (auto& [path, site] : trace.ifs) {
      auto& cov = mr.if_coverage[path];
      for (bool b : site.ran) {
        if (std::find(cov.begin(), cov.end(), b) == cov.end()) cov.push_back(b);
        done.insert({path, b});
        if (!derived) state.natural.insert({path, b});
      }
    }
    if (to_save(cr, cfg)) {
      cr.saved_to = save(pins, outputs);
      if (cr.saved_to.empty() && mr.error.empty())  // a write that failed: the command exits 2
        mr.error = "cannot save the run's data under " + cfg.save_dir.string();
    }
    mr.cases.push_back(std::move(cr));
  };
  if (state.phase == PinState::kSynthesize) return;  // the driver runs synthesized inputs
  // Past the command's deadline a case is not run, only listed as not run.
  auto not_run_now = [&](const PinSet& pins, bool derived) {
    if (!cfg.limits.deadline.passed()) return false;
    CaseResult cr;
    cr.pins = pins;
    cr.data_set = name;
    cr.derived = derived;
    mr.cases.push_back(not_run(std::move(cr), cfg.limits));
    return true;
  };
  if (state.phase == PinState::kData) {  // the data set as its data takes it
    if (not_run_now(work[0], false)) return;
    Trace trace;
    std::vector<Value> outputs;
    CaseResult cr = run(work[0], false, trace, outputs);
    const bool ran = cr.status != CaseStatus::Unsupported;
    record(std::move(cr), trace, work[0], false, outputs);
    if (ran) state.natural_runs[s] = {work[0], trace};
    return;
  }
  // Pinned runs: the branches its natural run did not take and no data set took.
  auto it = state.natural_runs.find(s);
  if (it == state.natural_runs.end()) return;
  for (const auto& nb : state.natural) done.insert(nb);
  queue_other_branches(it->second.second, it->second.first, done, &plan.covered, plan.input_keys[s], work,
                       cfg.policy.get(), &mr.not_pinned, &mr.synthesis_failed);
  int runs = 1;
  for (size_t w = 1; w < work.size(); ++w) {
    if (runs++ >= cfg.max_runs_per_data_set) break;
    if (not_run_now(work[w], true)) continue;
    Trace trace;
    std::vector<Value> outputs;
    CaseResult cr = run(work[w], true, trace, outputs);
    const bool ran = cr.status != CaseStatus::Unsupported;
    record(std::move(cr), trace, work[w], true, outputs);
    if (ran)
      queue_other_branches(trace, work[w], done, &plan.covered, plan.input_keys[s], work, cfg.policy.get(),
                           &mr.not_pinned, &mr.synthesis_failed);
  }
}

PinSet DataPlan::pins_of(size_t set, const RunConfig& cfg) const {
  PinSet pins = sets[set].pins;
  for (const auto& [k, v] : cfg.pins) pins[k] = v;
  return pins;
}

DataPlan plan_data_sets(const fs::path& model_path, const RunConfig& cfg, bool takes_inputs) {
  DataPlan plan;
  if (cfg.data_dirs.empty())
    plan.sets = find_data_sets(model_path.parent_path().empty() ? fs::path(".") : model_path.parent_path());
  for (const auto& d : cfg.data_dirs) {
    auto s = find_data_sets(d);
    if (s.empty()) {
      plan.error = "no test_data_set_* in " + d.string();
      return plan;
    }
    plan.sets.insert(plan.sets.end(), s.begin(), s.end());
  }
  if (plan.sets.empty() && cfg.random.count == 0) {
    if (takes_inputs) {
      plan.error = "no golden data: no test_data_set_* beside the model and no --data";
      return plan;
    }
    plan.sets.emplace_back();  // the model takes no inputs: run it once
    plan.synthetic = true;
  }
  // Pin sets already covered by a data set of its own, keyed by input bytes: derived runs skip them.
  plan.input_keys.resize(plan.sets.size());
  for (size_t s = 0; s < plan.sets.size(); ++s) {
    for (const auto& p : plan.sets[s].inputs) plan.input_keys[s] += file_bytes(p) + '\x1f';
    plan.covered.insert({plan.input_keys[s], plan.pins_of(s, cfg)});
  }
  return plan;
}

namespace {

// Runs one case: inputs + pins, compares with golden outputs when given.
CaseResult run_case(const onnx::ModelProto& model, const RunConfig& cfg, const std::vector<Value>& inputs,
                    const std::vector<std::optional<Value>>* golden, const std::map<std::string, bool>& pins,
                    Trace& trace, std::vector<Value>& outputs) {
  CaseResult cr;
  Interpreter ip(model, case_options(cr, cfg, pins));
  run_timed(cr, [&] { outputs = ip.run(inputs); });
  trace = ip.trace;
  const auto outs = ip.data_outputs();
  finish_case(cr, cfg, pins, trace, outputs, golden, outs.size(), [&](size_t k, OutputResult& o) {
    o.name = outs[k]->name();
    return outs[k]->has_type() ? check_against_type(outputs[k], outs[k]->type()) : std::string();
  });
  return cr;
}

std::string save_case(const fs::path& dir, int index, const Interpreter& ip, const std::vector<Value>& inputs,
                      const std::vector<Value>& outputs, const std::map<std::string, bool>& pins) {
  const auto ins = ip.data_inputs();
  const auto outs = ip.data_outputs();
  return save_case(dir, index, inputs, outputs, pins, [&](bool output, size_t k) {
    const auto& values = output ? outs : ins;
    return k < values.size() ? values[k]->name() : std::string();
  });
}

// Phase kSynthesize of the ONNX driver: synthesize_phase with the ONNX interpreter.
void synthesize_onnx(const onnx::ModelProto& model, const RunConfig& cfg, DataPlan& plan, size_t s,
                     const std::string& name, std::vector<Value> base, ModelResult& mr, PinState& state,
                     MemorySets& memory, int& save_index) {
  std::vector<InputDecl> decls;
  try {
    decls = input_decls(model);
  } catch (const std::exception&) {
    return;
  }
  synthesize_phase(
      cfg, plan, s, name, base, decls,
      [&](const std::vector<Value>& inputs, Trace& trace) {
        RunOptions ro;
        ro.limits = cfg.limits;
        Interpreter ip(model, ro);
        run_keeping_trace(
            trace, [&] { ip.run(inputs); }, [&] { return ip.trace; });
      },
      mr, state, memory,
      [&](const std::vector<Value>& inputs, Trace& trace, std::vector<Value>& outputs) {
        return run_case(model, cfg, inputs, nullptr, {}, trace, outputs);
      },
      [&](const std::vector<Value>& inputs, const std::vector<Value>& outputs) {
        const Interpreter ip(model, RunOptions{});
        return save_case(cfg.save_dir, save_index++, ip, inputs, outputs, {});
      });
}

}  // namespace

void synthesize_phase(const RunConfig& cfg, DataPlan& plan, size_t s, const std::string& name,
                      const std::vector<Value>& base, const std::vector<InputDecl>& decls,
                      const CandidateRun& candidate, ModelResult& mr, PinState& state, MemorySets& memory,
                      const std::function<CaseResult(const std::vector<Value>&, Trace&, std::vector<Value>&)>& run_one,
                      const std::function<std::string(const std::vector<Value>&, const std::vector<Value>&)>& save) {
  if (!cfg.policy || cfg.limits.deadline.passed()) return;
  std::set<std::string> seen;
  for (const auto& [path, ran] : mr.if_coverage) seen.insert(path);
  const std::set<BranchKey> wanted = wanted_branches(seen, state.natural, *cfg.policy);
  if (wanted.empty()) return;
  SynthesisOptions so;
  so.limits = cfg.limits;
  so.fixed = cfg.random;
  SynthesisResult sr = synthesize_inputs(decls, candidate, *cfg.policy, base, wanted, so);
  for (const auto& [key, why] : sr.failed) mr.synthesis_failed[key.first][key.second] = why;
  const DataSet from = plan.sets[s];
  // From a --random set, inputs the declared types allow were drawn at random already: a synthesized candidate is one
  // more such draw, and one that fails a branch fails the run, as the same inputs drawn by another seed do. (From a
  // golden data set it stays a reason, ModelResult::synthesis_failed: the model may assume more than its types say.)
  const bool random_base = memory.inputs.count(s) && !memory.synthesized.count(s);
  // Runs one synthesized set as a case of this data set and adds the branches it took to the coverage (and, for a
  // set whose run completed, to the branches later synthesis need not reach).
  auto run_set = [&](const SynthesizedSet& set, bool natural, Trace& trace, std::vector<Value>& outputs) {
    CaseResult cr = run_one(set.inputs, trace, outputs);
    cr.data_set = name;
    cr.synthesized = set.what;
    for (const auto& [path, site] : trace.ifs) {
      auto& cov = mr.if_coverage[path];
      for (bool b : site.ran) {
        if (std::find(cov.begin(), cov.end(), b) == cov.end()) cov.push_back(b);
        if (natural) state.natural.insert({path, b});
      }
    }
    return cr;
  };
  if (random_base)
    for (auto& set : sr.failed_sets) {
      if (cfg.limits.deadline.passed()) break;
      Trace trace;
      std::vector<Value> outputs;
      mr.cases.push_back(run_set(set, false, trace, outputs));
    }
  for (auto& set : sr.sets) {
    if (cfg.limits.deadline.passed()) {
      CaseResult cr;
      cr.data_set = name;
      cr.synthesized = set.what;
      mr.cases.push_back(not_run(std::move(cr), cfg.limits));
      continue;
    }
    Trace trace;
    std::vector<Value> outputs;
    CaseResult cr = run_set(set, true, trace, outputs);
    if (to_save(cr, cfg)) {
      cr.saved_to = save(set.inputs, outputs);
      if (cr.saved_to.empty() && mr.error.empty())  // a write that failed: the command exits 2
        mr.error = "cannot save the run's data under " + cfg.save_dir.string();
    }
    const bool ran = cr.status != CaseStatus::Unsupported && cr.status != CaseStatus::Failed;
    mr.cases.push_back(std::move(cr));
    if (!ran) continue;
    // A data set of the pin phase of its own, so that the Ifs only it reaches get their other branches too.
    const size_t at = plan.sets.size();
    plan.sets.push_back(from);
    plan.input_keys.push_back("\x1fsynthesized " + set.what);
    state.natural_runs[at] = {PinSet{}, std::move(trace)};
    memory.synthesized[at] = set.what;
    memory.inputs[at] = std::move(set.inputs);
  }
}

std::string add_random_sets(const std::vector<InputDecl>& decls, const RunConfig& cfg, DataPlan& plan,
                            MemorySets& memory) {
  std::vector<RandomSet> sets;
  // Open dims as the golden data has them (the shapes the model is known to run), else the default.
  RandomInputs spec = cfg.random;
  const std::string from = spec.count > 0 ? shapes_from_data(decls, plan.sets, spec) : "";
  if (auto e = random_sets(decls, spec, sets); !e.empty()) return e;
  for (size_t k = 0; k < sets.size(); ++k) {
    DataSet ds;
    ds.dir = from.empty() ? sets[k].name : sets[k].name + " (open dims as in " + from + ")";
    memory.inputs[plan.sets.size()] = std::move(sets[k].values);
    plan.sets.push_back(ds);
    plan.input_keys.push_back("\x1frandom " + std::to_string(k));
    plan.covered.insert({plan.input_keys.back(), plan.pins_of(plan.sets.size() - 1, cfg)});
  }
  return "";
}

void skip_pins_already_run(const DataPlan& plan, size_t s, const MemorySets& memory, PinState& state) {
  if (state.phase != PinState::kPin || !memory.synthesized.count(s)) return;
  std::set<std::pair<std::string, bool>> ran;
  for (const auto& [key, done] : state.done_by_input) ran.insert(done.begin(), done.end());
  state.done_by_input[plan.input_keys[s]].insert(ran.begin(), ran.end());
}

std::string save_case(const fs::path& dir, int index, const std::vector<Value>& inputs,
                      const std::vector<Value>& outputs, const PinSet& pins,
                      const std::function<std::string(bool output, size_t k)>& name_of) {
  const fs::path d = dir / ("test_data_set_" + std::to_string(index));
  std::error_code ec;
  fs::create_directories(d, ec);
  if (ec) return "";
  auto put = [&](const std::string& name, const std::string& bytes) {
    return io::write_file((d / name).string(), name, [&](std::ostream& f) { f << bytes; }).empty();
  };
  for (size_t k = 0; k < inputs.size(); ++k)
    if (!put("input_" + std::to_string(k) + ".pb", write_pb_value(inputs[k], name_of(false, k)))) return "";
  for (size_t k = 0; k < outputs.size(); ++k)
    if (!put("output_" + std::to_string(k) + ".pb", write_pb_value(outputs[k], name_of(true, k)))) return "";
  if (!pins.empty() && !put("pins.json", pins_json(pins))) return "";
  return d.string();
}

void run_data_sets(DataPlan& plan, MemorySets& memory, const RunConfig& cfg, ModelResult& mr, const ExecBackend& b) {
  int save_index = 0;
  bool synthesized = false;
  PinState state;
  for (state.phase = 0; state.phase < state.phases(cfg); ++state.phase)
    for (size_t s = 0; s < plan.sets.size(); ++s) {
      const DataSet& ds = plan.sets[s];
      const std::string name = plan.synthetic ? "" : ds.dir.string();
      if (state.phase > 0 && !state.natural_runs.count(s)) continue;  // its problem is reported once, in phase 0
      if (state.phase == PinState::kSynthesize && synthesized) continue;
      LoadedSet l;
      if (!ds.pins_error.empty()) {
        l.error = ds.pins_error;
      } else if (auto m = memory.inputs.find(s); m != memory.inputs.end()) {
        l.inputs = m->second;
        l.golden.resize(b.outputs);
      } else if (std::string why = ds.problem(); !why.empty()) {
        l.error = std::move(why);  // golden data that is not there fails its set, never passes it
      } else if (!plan.synthetic && !cfg.limits.deadline.passed()) {  // past it, nothing more is read or run
        l = b.load(ds);
      }
      if (!l.error.empty()) {
        CaseResult cr;
        cr.data_set = name;
        cr.status = l.status;
        cr.message = l.error;
        mr.cases.push_back(std::move(cr));
        continue;
      }
      if (state.phase == PinState::kSynthesize) {  // once, from the first data set that ran (it adds sets to plan)
        synthesized = true;
        if (cfg.limits.deadline.passed()) continue;
        b.synthesize(plan, s, name, l.inputs, mr, state, memory, save_index);
        continue;
      }
      skip_pins_already_run(plan, s, memory, state);
      run_pin_sets(
          plan, s, name, cfg, mr, state,
          [&](const PinSet& pins, bool derived, Trace& trace, std::vector<Value>& outputs) {
            CaseResult cr = b.run(l.inputs, derived ? nullptr : &l.golden, pins, trace, outputs);
            if (auto it = memory.synthesized.find(s); it != memory.synthesized.end()) cr.synthesized = it->second;
            return cr;
          },
          [&](const PinSet& pins, const std::vector<Value>& outputs) {
            return b.save(save_index++, l.inputs, outputs, pins);
          });
    }
  tally(mr);
}

void judge_output(CaseResult& cr, OutputResult o, const Value& actual, const Value* expected, const RunConfig& cfg) {
  if (expected) {
    o.compared = true;
    cr.golden = true;
    Comparison cmp = compare_values(actual, *expected, cfg.atol, cfg.rtol);
    o.max_abs = cmp.max_abs;
    o.max_rel = cmp.max_rel;
    o.first_index = cmp.first_index;
    o.tolerance = cmp.tolerance;
    if (!cmp.ok) {
      o.ok = false;
      o.detail = cmp.reason;
    }
  }
  if (!o.ok && cr.status == CaseStatus::Passed) {
    cr.status = CaseStatus::Mismatch;
    cr.message = "output '" + o.name + "': " + o.detail;
  }
  cr.outputs.push_back(std::move(o));
}

std::string readability_of(const Model& model) {
  return model.unreadable ? *model.unreadable : unreadable_reason(model);
}

namespace {
// Runs an ONNX model open_model read with keep_for_exec.
ModelResult run_onnx(const Model& linted, const fs::path& model_path, const RunConfig& config) {
  ModelResult mr;
  mr.model = model_path.string();
  RunConfig cfg = config;
  // What lint cannot read is never run.
  if (auto why = readability_of(linted); !why.empty()) {
    mr.error = model_path.string() + ": " + why;
    return mr;
  }
  if (!record_all_ifs(linted, cfg, mr)) return mr;
  // Which branches pinning may reach: from the conditions the loader traced.
  if (!cfg.policy) cfg.policy = std::make_shared<const BranchPolicy>(linted);
  // The parsed model open_model kept (the loader's, or for a deeply nested model the file parsed again).
  const std::shared_ptr<const onnx::ModelProto> kept = linted.onnx ? linted.onnx->proto : nullptr;
  if (!kept) {
    mr.error = model_path.string() + ": " +
               (linted.onnx && !linted.onnx->proto_error.empty() ? linted.onnx->proto_error
                                                                 : std::string("the parsed model was not kept"));
    return mr;
  }
  const onnx::ModelProto& model = *kept;
  // External data the loader's checks let through (ONNX014 and ONNX015 report the rest) is read from its files.
  const ExternalDataList external = external_data_list(linted);
  const ExternalDataScope external_scope(external, model_path);
  guard().limits = cfg.limits;
  const Interpreter probe(model, {});

  DataPlan plan = plan_data_sets(model_path, cfg, !probe.data_inputs().empty());
  if (!plan.error.empty()) {
    mr.error = plan.error;
    return mr;
  }
  // Input sets made in memory (--random, then synthesized), after the data sets; each is its own input (its own key).
  MemorySets memory;
  if (auto e = add_random_sets(input_decls(probe), cfg, plan, memory); !e.empty()) {
    mr.error = e;
    return mr;
  }
  ExecBackend b;
  b.outputs = probe.data_outputs().size();
  b.load = [&](const DataSet& ds) { return load_data_set(ds, probe); };
  b.synthesize = [&](DataPlan& p, size_t s, const std::string& name, const std::vector<Value>& inputs, ModelResult& r,
                     PinState& state, MemorySets& mem,
                     int& save_index) { synthesize_onnx(model, cfg, p, s, name, inputs, r, state, mem, save_index); };
  b.run = [&](const std::vector<Value>& inputs, const std::vector<std::optional<Value>>* golden, const PinSet& pins,
              Trace& trace,
              std::vector<Value>& outputs) { return run_case(model, cfg, inputs, golden, pins, trace, outputs); };
  b.save = [&](int index, const std::vector<Value>& inputs, const std::vector<Value>& outputs, const PinSet& pins) {
    const Interpreter ip(model, RunOptions{});
    return save_case(cfg.save_dir, index, ip, inputs, outputs, pins);
  };
  run_data_sets(plan, memory, cfg, mr, b);
  for (const auto& [path, ran] : mr.if_coverage)
    if (std::string body = linted.body_path_of(path); body != path) mr.reached_through_calls.insert(std::move(body));
  return mr;
}
}  // namespace

ModelResult model_error(const fs::path& model, std::string why) {
  ModelResult mr;
  mr.model = model.string();
  mr.error = std::move(why);
  return mr;
}

ModelResult run_model(const Model& linted, const fs::path& model_path, const RunConfig& config) {
  return run_onnx(linted, model_path, config);
}

void queue_other_branches(const Trace& trace, PinSet pins, std::set<std::pair<std::string, bool>>& done,
                          const std::set<std::pair<std::string, PinSet>>* covered, const std::string& data_key,
                          std::vector<PinSet>& work, const BranchPolicy* policy,
                          std::map<std::string, std::map<bool, NotPinned>>* not_pinned,
                          const std::map<std::string, std::map<bool, std::string>>* refused) {
  for (const auto& [path, site] : trace.ifs)
    for (bool b : {true, false}) {
      if (done.count({path, b}) || site.ran.count(b)) continue;
      if (policy) {
        if (std::string why = policy->why_not_pin(path, b); !why.empty()) {
          const auto kind = policy->dead(path, b) ? NotPinned::Kind::Dead : NotPinned::Kind::ShapeGuard;
          if (not_pinned) (*not_pinned)[path].emplace(b, NotPinned{kind, std::move(why)});
          continue;
        }
      }
      if (refused)
        if (auto r = refused->find(path); r != refused->end() && r->second.count(b)) {
          if (not_pinned)
            (*not_pinned)[path].emplace(b, NotPinned{NotPinned::Kind::SynthesisFailed, kNotPinnedSynthesisFailed});
          continue;
        }
      auto next = pins;
      next[path] = b;
      done.insert({path, b});
      if (covered && covered->count({data_key, next})) continue;
      work.push_back(std::move(next));
    }
}

void tally(ModelResult& mr) {
  for (const auto& c : mr.cases) {
    if (c.status == CaseStatus::Passed) ++mr.passed;
    else if (c.status == CaseStatus::Unsupported) ++mr.unsupported;
    else ++mr.failed;
  }
  for (auto& [p, v] : mr.if_coverage) std::sort(v.begin(), v.end());
  // What the data took, what only pinning reached; a branch some run took is no longer "not pinned".
  std::map<std::string, std::set<bool>> by_data, by_pin;
  for (const auto& c : mr.cases)
    for (const auto& [p, ran] : c.if_branches)
      for (size_t i = 0; i < ran.size(); ++i) (c.derived ? by_pin : by_data)[p].insert(ran[i]);
  for (const auto& [p, bs] : by_pin)
    for (bool b : bs)
      if (!by_data[p].count(b)) mr.pinned_only[p].insert(b);
  for (auto it = mr.not_pinned.begin(); it != mr.not_pinned.end();) {
    for (auto jt = it->second.begin(); jt != it->second.end();)
      jt = by_data[it->first].count(jt->first) || by_pin[it->first].count(jt->first) ? it->second.erase(jt)
                                                                                     : std::next(jt);
    it = it->second.empty() ? mr.not_pinned.erase(it) : std::next(it);
  }
}

bool record_all_ifs(const Model& model, RunConfig& cfg, ModelResult& mr) {
  mr.all_ifs.clear();
  for (const auto& c : model.conditionals) mr.all_ifs.push_back(model.full_path_of(c.graph, c.node));
  const std::set<std::string> known(mr.all_ifs.begin(), mr.all_ifs.end());
  // A path in the spelling of condlint 0.2 (a '/' inside a name written as it is) is taken where it names one If,
  // and the pin is keyed on that If's path from here on.
  std::map<std::string, std::vector<std::string>> by_legacy;
  for (const auto& p : mr.all_ifs)
    if (node_path::has_escapes(p)) by_legacy[node_path::legacy(p)].push_back(p);
  PinSet pins;
  for (const auto& [path, value] : cfg.pins) {
    if (known.count(path)) {
      pins[path] = value;
      continue;
    }
    auto it = by_legacy.find(path);
    if (it == by_legacy.end()) {
      mr.error = "--pin: " + no_if_at(path, mr.all_ifs);
      return false;
    }
    if (it->second.size() > 1) {
      mr.error = "--pin: " + path + " names " + std::to_string(it->second.size()) + " Ifs (" + it->second[0] + ", " +
                 it->second[1] + (it->second.size() > 2 ? ", ..." : "") +
                 "): write a '/' inside a node name as ~1 (and '~' as ~0)";
      return false;
    }
    pins[it->second.front()] = value;
  }
  cfg.pins = std::move(pins);
  return true;
}

std::string no_if_at(const std::string& path, const std::vector<std::string>& ifs) {
  std::string msg = "no If at " + path;
  if (ifs.empty()) return msg + " (the model has no If)";
  // Levenshtein distance, one row at a time; a path far longer or shorter than the one asked for is not a
  // candidate, which bounds the work on a model with many Ifs.
  auto distance = [&](const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        const size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diag = up;
      }
    }
    return row[b.size()];
  };
  std::vector<std::pair<size_t, std::string>> scored;
  const size_t limit = std::max<size_t>(3, path.size() / 3);
  for (size_t k = 0; k < ifs.size() && k < 20000; ++k) {
    const std::string& p = ifs[k];
    if ((p.size() > path.size() ? p.size() - path.size() : path.size() - p.size()) > limit) continue;
    if (const size_t d = distance(path, p); d <= limit) scored.push_back({d, p});
  }
  std::sort(scored.begin(), scored.end());
  if (scored.empty()) {
    msg += " (its Ifs: " + ifs.front();
    for (size_t k = 1; k < ifs.size() && k < 3; ++k) msg += ", " + ifs[k];
    return msg + (ifs.size() > 3 ? ", ... " + std::to_string(ifs.size()) + " in all; `condlint run` lists them)" : ")");
  }
  msg += "; did you mean " + scored[0].second;
  for (size_t k = 1; k < scored.size() && k < 3; ++k)
    msg += (k + 1 == std::min<size_t>(scored.size(), 3) ? " or " : ", ") + scored[k].second;
  return msg + "?";
}

std::vector<BranchCoverage> branch_coverage(const ModelResult& r) {
  std::map<std::string, std::set<bool>> by_data, by_synthesis;
  for (const auto& c : r.cases)
    if (!c.derived)
      for (const auto& [p, ran] : c.if_branches)
        for (bool b : ran) (c.synthesized.empty() ? by_data : by_synthesis)[p].insert(b);
  std::vector<BranchCoverage> out;
  for (const auto& [path, ran] : r.if_coverage)
    for (bool b : {true, false}) {
      BranchCoverage bc;
      bc.if_path = path;
      bc.branch = b;
      const bool took = std::find(ran.begin(), ran.end(), b) != ran.end();
      if (took && by_data[path].count(b)) bc.how = "data";
      else if (took && by_synthesis[path].count(b)) bc.how = "synthesized";
      else if (took) bc.how = "pinned";
      else if (auto it = r.not_pinned.find(path); it != r.not_pinned.end() && it->second.count(b)) {
        const NotPinned& np = it->second.at(b);
        bc.why = np.why;
        bc.how = np.kind == NotPinned::Kind::Dead              ? "dead"
                 : np.kind == NotPinned::Kind::SynthesisFailed ? "not covered"
                                                               : "guarded";
      } else {
        bc.how = "not run";
      }
      if (!took)
        if (auto it = r.synthesis_failed.find(path); it != r.synthesis_failed.end() && it->second.count(b)) {
          const std::string failed = "synthesized inputs select it, but the run fails (" + it->second.at(b) + ")";
          if (bc.how == "not covered")
            bc.why = failed + "; so it is not pinned either: " + bc.why.substr(std::string_view("not pinned: ").size());
          else if (bc.how == "not run") bc.how = "not covered", bc.why = failed;
          else bc.why += "; " + failed;
        }
      out.push_back(std::move(bc));
    }
  // The Ifs no run reached, each by the innermost If branch around it (paths sort an If before what it holds). What
  // is around it is known before it is needed: its coverage is in `out` or in `around`.
  std::vector<std::string> unseen;
  for (const auto& p : r.all_ifs)
    if (!r.if_coverage.count(p) && !r.reached_through_calls.count(p)) unseen.push_back(p);
  std::sort(unseen.begin(), unseen.end());
  unseen.erase(std::unique(unseen.begin(), unseen.end()), unseen.end());
  std::map<std::pair<std::string, bool>, std::string> how_of;  // If branch -> how it was covered
  for (const auto& bc : out) how_of[{bc.if_path, bc.branch}] = bc.how;
  for (const auto& path : unseen) {
    std::string why = "no run reached it";
    size_t best = 0;
    for (const auto& [key, how] : how_of) {
      const std::string prefix = key.first + (key.second ? "/then/" : "/else/");
      if (prefix.size() <= best || path.compare(0, prefix.size(), prefix) != 0) continue;
      best = prefix.size();
      const std::string where = "inside the " + std::string(key.second ? "then" : "else") + " branch of " + key.first;
      why = how == "dead"          ? where + ", which is dead"
            : how == "guarded"     ? where + ", which is behind a shape guard (not pinned)"
            : how == "not covered" ? where + ", which no run covered"
            : how == "not reached" ? where + ", which no run reached"
            : how == "not run"     ? where + ", which did not run"
                                   : where + ": the runs of that branch did not reach it";
    }
    for (bool b : {true, false}) {
      how_of[{path, b}] = "not reached";
      out.push_back({path, b, "not reached", why});
    }
  }
  return out;
}

std::string coverage_summary(const std::vector<BranchCoverage>& c) {
  std::map<std::string, int> n;
  for (const auto& b : c) ++n[b.how];
  return "If branches: " + std::to_string(n["data"]) + " taken by the data, " + std::to_string(n["synthesized"]) +
         " by synthesized inputs, " + std::to_string(n["pinned"]) + " reached by pinning, " +
         std::to_string(n["dead"]) + " dead, " + std::to_string(n["guarded"]) + " behind shape guards (not pinned), " +
         std::to_string(n["not covered"]) + " not covered (reason given), " + std::to_string(n["not run"]) +
         " not run" +
         (n["not reached"] ? ", " + std::to_string(n["not reached"]) +
                                 " in Ifs no run reached (inside branches that did not run, reason given)"
                           : std::string());
}

}  // namespace condlint::exec
