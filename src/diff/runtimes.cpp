// Runtimes of `condlint diff`: the reference executor in process, ONNX Runtime through the Node adapter, and
// any program through a command template speaking the directory protocol (docs/diff.md).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "diff/diff.hpp"
#include "diff/process.hpp"
#include "exec/interpreter.hpp"
#include "exec/ir_exec.hpp"
#include "exec/onnx_io.hpp"

#ifndef CONDLINT_TOOLS_DIR
#define CONDLINT_TOOLS_DIR ""
#endif

namespace condlint::diff {

namespace {

using exec::Value;

// The largest file a runtime's process may write (an output tensor, a log): what condlint reads back of an output is
// bounded by the same figure (read_outputs).
constexpr int64_t kMaxOutputFileBytes = int64_t{1} << 31;

// A run's time in ms: its own limit, or less when the command's deadline comes first (at least 1 ms).
int64_t run_budget_ms(const RuntimeOptions& o, int64_t own_ms) {
  const auto end = o.limits.deadline.with_run_limit(own_ms);
  if (end == exec::Deadline::Clock::time_point::max()) return own_ms;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - exec::Deadline::Clock::now()).count();
  return std::max<int64_t>(1, std::min<int64_t>(own_ms, left));
}

// Reads output_K.pb / output_K.unsupported of a job's output directory.
void read_outputs(const Job& j, JobOutcome& o) {
  const int count = j.output_names ? static_cast<int>(j.output_names->size()) : j.model->graph().output_size();
  // The declared type of output k where the job has an ONNX model (a .pb is read by it), else none.
  auto declared = [&](int k) -> const onnx::TypeProto* {
    if (j.output_names || !j.model || k >= j.model->graph().output_size()) return nullptr;
    const auto& out = j.model->graph().output(k);
    return out.has_type() ? &out.type() : nullptr;
  };
  o.outputs.assign(count, std::nullopt);
  o.not_comparable.assign(count, "");
  for (int k = 0; k < count; ++k) {
    const fs::path pb = j.output_dir / ("output_" + std::to_string(k) + ".pb");
    const fs::path un = j.output_dir / ("output_" + std::to_string(k) + ".unsupported");
    std::error_code ec;
    if (fs::exists(pb, ec)) {
      std::string bytes;
      if (auto e = exec::read_file_bytes(pb, bytes); !e.empty()) {
        o.not_comparable[k] = e;
        continue;
      }
      try {
        o.outputs[k] = exec::read_pb_value(bytes, declared(k));
      } catch (const std::exception& e) {
        o.ok = false;
        o.error = "output_" + std::to_string(k) + ".pb is unreadable: " + e.what();
      }
    } else if (fs::exists(un, ec)) {
      std::string why;
      exec::read_file_bytes(un, why, 4096);
      while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
      o.not_comparable[k] = why.empty() ? "the runtime cannot return this output" : why;
    } else if (o.ok) {
      o.ok = false;
      o.error = "wrote no output_" + std::to_string(k) + ".pb (nor output_" + std::to_string(k) + ".unsupported)";
    }
  }
}

class RefRuntime : public Runtime {
 public:
  explicit RefRuntime(const RuntimeOptions& o) : opts_(o) { name_ = "ref"; }
  std::vector<JobOutcome> run(const std::vector<Job>& jobs) override {
    std::vector<JobOutcome> res;
    for (const auto& j : jobs) {
      JobOutcome o;
      if (opts_.limits.deadline.passed()) {
        o.error = "not run: " + opts_.limits.deadline.reached();
        res.push_back(std::move(o));
        continue;
      }
      const auto t0 = std::chrono::steady_clock::now();
      try {
        exec::Trace trace;
        std::vector<Value> outs;
        if (j.source_loaded) {
          // An IR runs in the IR executor as the file says, with the variant's pins on its own If paths.
          outs = exec::run_ir_once(*j.source_loaded, *j.inputs, j.source_pins, opts_.limits, trace);
        } else {
          exec::RunOptions ro;
          ro.limits = opts_.limits;
          exec::Interpreter ip(*j.model, ro);
          outs = ip.run(*j.inputs);
          trace = ip.trace;
        }
        for (auto& v : outs) o.outputs.emplace_back(std::move(v));
        o.not_comparable.assign(o.outputs.size(), "");
        for (const auto& [path, site] : trace.ifs)
          if (site.ran.size() == 1) o.took[path] = *site.ran.begin();
        o.ok = true;
      } catch (const exec::ExecError& e) {
        o.error = (e.kind == exec::ErrKind::Unsupported ? "unsupported: " : "") + std::string(e.what());
      } catch (const std::exception& e) {
        o.error = std::string("internal error: ") + e.what();
      }
      o.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      res.push_back(std::move(o));
    }
    return res;
  }

 private:
  RuntimeOptions opts_;
};

// One process per job: the command template with {model}, {inputs}, {outputs} replaced by quoted paths.
class CmdRuntime : public Runtime {
 public:
  CmdRuntime(std::string name, std::string tmpl, const RuntimeOptions& o) : tmpl_(std::move(tmpl)), opts_(o) {
    name_ = std::move(name);
  }
  std::vector<JobOutcome> run(const std::vector<Job>& jobs) override {
    std::vector<JobOutcome> res;
    for (const auto& j : jobs) res.push_back(run_one(j));
    return res;
  }

 protected:
  virtual std::string command_for(const Job& j) const {
    std::string c;
    for (size_t i = 0; i < tmpl_.size();) {
      bool hit = false;
      for (auto [ph, val] : {std::pair<const char*, const fs::path*>{"{model}", &j.model_file},
                             {"{inputs}", &j.input_dir},
                             {"{outputs}", &j.output_dir}}) {
        const std::string p = ph;
        if (tmpl_.compare(i, p.size(), p) == 0) {
          c += shell_quote(val->string());
          i += p.size();
          hit = true;
          break;
        }
      }
      if (!hit) c += tmpl_[i++];
    }
    return c;
  }
  // The model file this runtime reads for `j`: the job's ONNX variant ("" when it has none: Job::no_onnx).
  virtual const fs::path& model_for(const Job& j) const { return j.model_file; }
  JobOutcome run_one(const Job& j) const {
    JobOutcome o;
    if (opts_.limits.deadline.passed()) {
      o.error = "not run: " + opts_.limits.deadline.reached();
      return o;
    }
    if (model_for(j).empty()) {
      o.error = "not run: " + (j.no_onnx.empty() ? std::string("no model file for this runtime") : j.no_onnx);
      return o;
    }
    std::error_code ec;
    fs::create_directories(j.output_dir, ec);
    const auto t0 = std::chrono::steady_clock::now();
    ProcLimits pl;
    pl.timeout_ms = run_budget_ms(opts_, opts_.timeout_ms);
    pl.max_file_bytes = kMaxOutputFileBytes;
    pl.cwd = j.output_dir;
    const ProcResult p = run_shell(command_for(j), pl);
    o.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (p.timed_out) {
      o.error = opts_.limits.deadline.passed() ? "stopped: " + opts_.limits.deadline.reached() + " during the run"
                                               : "stopped after " + std::to_string(opts_.timeout_ms) + " ms";
      return o;
    }
    if (p.signal == SIGXFSZ) {
      o.error = "stopped when a file it wrote passed " + std::to_string(kMaxOutputFileBytes >> 20) + " MiB";
      return o;
    }
    if (p.exit_code != 0) {
      o.error = (p.signal ? "died of signal " + std::to_string(p.signal) : "exit code " + std::to_string(p.exit_code)) +
                (p.err.empty() ? "" : ": " + p.err);
      return o;
    }
    o.ok = true;
    read_outputs(j, o);
    return o;
  }
  std::string tmpl_;
  RuntimeOptions opts_;
};

// A runtime whose adapter runs every job in one process (`ADAPTER --batch JOBS.tsv`: one job a line, MODEL, INPUTS,
// OUTPUTS and extra fields, tab-separated; per job `done` or error.txt in OUTPUTS); jobs the batch did not finish
// (the process died) rerun one by one.
class BatchRuntime : public CmdRuntime {
 public:
  using CmdRuntime::CmdRuntime;
  std::vector<JobOutcome> run(const std::vector<Job>& jobs) override {
    std::vector<JobOutcome> res(jobs.size());
    if (jobs.empty()) return res;
    if (std::all_of(jobs.begin(), jobs.end(), [&](const Job& j) { return model_for(j).empty(); })) {
      for (size_t k = 0; k < jobs.size(); ++k) res[k] = run_one(jobs[k]);  // none to run: each says why
      return res;
    }
    const fs::path list = jobs.front().output_dir.parent_path() / (name_ + "-batch.tsv");
    // A path with a tab or a line break would split the job list: such a job is refused, not misread.
    const auto listable = [](const fs::path& p) { return p.string().find_first_of("\t\n\r") == std::string::npos; };
    {
      std::ofstream f(list, std::ios::binary);
      for (const auto& j : jobs)
        if (listable(j.model_file) && listable(j.input_dir) && listable(j.output_dir) && listable(j.source_model) &&
            !model_for(j).empty())
          f << job_line(j) << '\n';
    }
    for (const auto& j : jobs) {
      std::error_code ec;
      fs::create_directories(j.output_dir, ec);
    }
    const auto t0 = std::chrono::steady_clock::now();
    const int64_t budget =
        run_budget_ms(opts_, opts_.timeout_ms * static_cast<int64_t>(std::min<size_t>(jobs.size(), 100000)));
    ProcLimits pl;
    pl.timeout_ms = budget;
    pl.max_file_bytes = kMaxOutputFileBytes;
    pl.cwd = list.parent_path();
    const ProcResult p = run_shell(batch_command(list), pl);
    const double per =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / jobs.size();
    for (size_t k = 0; k < jobs.size(); ++k) {
      const Job& j = jobs[k];
      JobOutcome& o = res[k];
      if (!(listable(j.model_file) && listable(j.input_dir) && listable(j.output_dir) && listable(j.source_model))) {
        o.error = "not run: a path of the job holds a tab or a line break (choose another --work-dir or TMPDIR)";
        continue;
      }
      if (model_for(j).empty()) {
        o = run_one(j);  // says why it is not run
        continue;
      }
      std::error_code ec;
      const fs::path done = j.output_dir / "done";
      const fs::path err = j.output_dir / "error.txt";
      if (fs::exists(err, ec)) {
        exec::read_file_bytes(err, o.error, 4096);
        while (!o.error.empty() && o.error.back() == '\n') o.error.pop_back();
        o.ms = per;
      } else if (fs::exists(done, ec)) {
        o.ok = true;
        o.ms = per;
        read_outputs(j, o);
      } else if (p.exit_code == 2) {  // the adapter could not start (usage, packages missing)
        o.error = name_ + " adapter: " + p.err;
      } else {
        o = run_one(j);  // the batch died before this job: run it on its own
      }
    }
    return res;
  }

 protected:
  virtual std::string batch_command(const fs::path& list) const = 0;
  virtual std::string job_line(const Job& j) const {
    return j.model_file.string() + '\t' + j.input_dir.string() + '\t' + j.output_dir.string();
  }
};

// ONNX Runtime: all jobs in one Node process (ort_run.js --batch).
class OrtRuntime : public BatchRuntime {
 public:
  OrtRuntime(const std::string& node, const fs::path& adapter, const RuntimeOptions& o)
      : BatchRuntime("onnxruntime",
                     shell_quote(node) + " " + shell_quote(adapter.string()) + " {model} {inputs} {outputs}", o),
        node_(node),
        adapter_(adapter) {}

 protected:
  std::string batch_command(const fs::path& list) const override {
    return shell_quote(node_) + " " + shell_quote(adapter_.string()) + " --batch " + shell_quote(list.string());
  }

 private:
  std::string node_;
  fs::path adapter_;
};

// OpenVINO: all jobs in one Python process (tools/openvino/ov_run.py --batch). An IR given to diff is read as it
// is, with the variant's pins applied to its Ifs, not through its ONNX export.
class OvRuntime : public BatchRuntime {
 public:
  OvRuntime(const fs::path& python, const fs::path& driver, const RuntimeOptions& o)
      : BatchRuntime("openvino", "", o), python_(python), driver_(driver) {}

 protected:
  const fs::path& model_for(const Job& j) const override {
    return j.source_model.empty() ? j.model_file : j.source_model;
  }
  // A job on its own (a batch died before it).
  std::string command_for(const Job& j) const override {
    const bool ir = !j.source_model.empty();
    std::string c = shell_quote(python_.string()) + " " + shell_quote(driver_.string()) + " " +
                    shell_quote((ir ? j.source_model : j.model_file).string()) + " " +
                    shell_quote(j.input_dir.string()) + " " + shell_quote(j.output_dir.string());
    if (ir)
      for (const auto& [path, branch] : j.source_pins) c += " --pin " + shell_quote(path + (branch ? "=1" : "=0"));
    return c;
  }
  std::string batch_command(const fs::path& list) const override {
    return shell_quote(python_.string()) + " " + shell_quote(driver_.string()) + " --batch " +
           shell_quote(list.string());
  }
  std::string job_line(const Job& j) const override {
    const bool ir = !j.source_model.empty();
    std::string line =
        (ir ? j.source_model : j.model_file).string() + '\t' + j.input_dir.string() + '\t' + j.output_dir.string();
    if (ir)
      for (const auto& [path, branch] : j.source_pins) line += '\t' + path + (branch ? "=1" : "=0");
    return line;
  }

 private:
  fs::path python_, driver_;
};

bool is_file(const fs::path& p) {
  std::error_code ec;
  return !p.empty() && fs::is_regular_file(p, ec);
}

fs::path self_exe() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : p;
}

}  // namespace

fs::path find_ort_adapter() {
  if (const char* e = std::getenv("CONDLINT_ORT_ADAPTER"); e && *e) return is_file(e) ? fs::path(e) : fs::path();
  const fs::path built = fs::path(CONDLINT_TOOLS_DIR) / "ort" / "ort_run.js";
  if (std::string(CONDLINT_TOOLS_DIR).size() && is_file(built)) return built;
  const fs::path exe = self_exe();
  if (!exe.empty())
    for (const fs::path rel : {"../tools/ort/ort_run.js", "../share/condlint/ort/ort_run.js", "tools/ort/ort_run.js"})
      if (is_file(exe.parent_path() / rel)) return (exe.parent_path() / rel).lexically_normal();
  return {};
}

fs::path find_tool(const fs::path& rel) {
  if (!std::string(CONDLINT_TOOLS_DIR).empty() && is_file(fs::path(CONDLINT_TOOLS_DIR) / rel))
    return fs::path(CONDLINT_TOOLS_DIR) / rel;
  const fs::path exe = self_exe();
  if (!exe.empty())
    for (const fs::path dir : {"../tools", "../share/condlint", "tools"})
      if (is_file(exe.parent_path() / dir / rel)) return (exe.parent_path() / dir / rel).lexically_normal();
  return {};
}

fs::path find_python() {
  if (const char* e = std::getenv("CONDLINT_PYTHON"); e && *e) return access(e, X_OK) == 0 ? fs::path(e) : fs::path();
  const fs::path venv = find_tool("venv/bin/python");
  if (!venv.empty() && access(venv.c_str(), X_OK) == 0) return venv;
  return {};
}

std::string find_node() {
  if (const char* e = std::getenv("CONDLINT_NODE"); e && *e) return e;
  const char* path = std::getenv("PATH");
  std::string s = path ? path : "/usr/bin:/bin";
  size_t a = 0;
  while (a <= s.size()) {
    size_t b = s.find(':', a);
    if (b == std::string::npos) b = s.size();
    const fs::path cand = fs::path(s.substr(a, b - a)) / "node";
    if (b > a && access(cand.c_str(), X_OK) == 0) return cand.string();
    a = b + 1;
  }
  return "";
}

std::unique_ptr<Runtime> make_runtime(const std::string& spec, const RuntimeOptions& o, std::string& error) {
  if (spec == "ref") return std::make_unique<RefRuntime>(o);
  if (spec == "onnxruntime" || spec == "ort") {
    const std::string node = find_node();
    if (node.empty()) {
      error = "runtime onnxruntime needs Node.js (node not on PATH; set CONDLINT_NODE)";
      return nullptr;
    }
    const fs::path adapter = find_ort_adapter();
    if (adapter.empty()) {
      error = "runtime onnxruntime: the adapter tools/ort/ort_run.js was not found (set CONDLINT_ORT_ADAPTER)";
      return nullptr;
    }
    if (!is_file(adapter.parent_path() / "node_modules" / "onnxruntime-node" / "package.json") &&
        !std::getenv("CONDLINT_ORT_ADAPTER")) {
      error = "runtime onnxruntime: onnxruntime-node is not installed in " + adapter.parent_path().string() +
              "/node_modules (run scripts/install-deps.sh)";
      return nullptr;
    }
    return std::make_unique<OrtRuntime>(node, adapter, o);
  }
  if (spec == "openvino" || spec == "ov") {
    const fs::path python = find_python();
    const fs::path driver = find_tool("openvino/ov_run.py");
    if (driver.empty()) {
      error = "runtime openvino: the driver tools/openvino/ov_run.py was not found";
      return nullptr;
    }
    if (python.empty()) {
      error =
          "runtime openvino needs tools/venv/bin/python with openvino installed (run scripts/install-deps.sh, "
          "or set CONDLINT_PYTHON)";
      return nullptr;
    }
    return std::make_unique<OvRuntime>(python, driver, o);
  }
  if (spec.rfind("cmd:", 0) == 0) {
    const std::string t = spec.substr(4);
    if (t.find("{model}") == std::string::npos || t.find("{inputs}") == std::string::npos ||
        t.find("{outputs}") == std::string::npos) {
      error = "runtime '" + spec + "': the template must contain {model}, {inputs} and {outputs}";
      return nullptr;
    }
    // Reports name it by its program: cmd:NAME (the first word of the template, without its directory).
    std::string prog = t.substr(0, t.find(' '));
    prog = fs::path(prog).filename().string();
    return std::make_unique<CmdRuntime>("cmd:" + (prog.empty() ? t : prog), t, o);
  }
  error =
      "unknown runtime '" + spec + "' (ref, onnxruntime, openvino, or cmd:TEMPLATE with {model} {inputs} {outputs})";
  return nullptr;
}

}  // namespace condlint::diff
