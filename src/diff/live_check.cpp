// Live target checks: live_check.hpp.
#include "diff/live_check.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "diff/diff.hpp"
#include "diff/process.hpp"
#include "io/cleanup.hpp"
#include "io/output.hpp"

namespace condlint::diff {

namespace {

// The command that checks the models listed in LIST, appending to RESULTS ("" with `why` when not installed).
std::string check_command(const std::string& runtime, const fs::path& list, const fs::path& results, std::string& why) {
  const std::string args = " " + shell_quote(list.string()) + " " + shell_quote(results.string());
  if (runtime == "onnxruntime") {
    // onnxruntime-node (npm) through the adapter, else onnxruntime (PyPI) in the tools' Python.
    const std::string node = find_node();
    const fs::path adapter = find_ort_adapter();
    if (node.empty()) why = "Node.js is not on PATH (set CONDLINT_NODE)";
    else if (adapter.empty()) why = "the adapter tools/ort/ort_run.js was not found";
    else if (!std::getenv("CONDLINT_ORT_ADAPTER") &&
             !fs::is_regular_file(adapter.parent_path() / "node_modules" / "onnxruntime-node" / "package.json"))
      why = "onnxruntime-node is not installed in " + adapter.parent_path().string() +
            "/node_modules (scripts/install-deps.sh installs it)";
    if (why.empty()) return "exec " + shell_quote(node) + " " + shell_quote(adapter.string()) + " --check" + args;
    const fs::path python = find_python();
    const fs::path driver = find_tool("ort/ort_check.py");
    if (python.empty() || driver.empty()) return "";
    why.clear();
    return "exec " + shell_quote(python.string()) + " " + shell_quote(driver.string()) + args;
  }
  const fs::path python = find_python();
  const fs::path driver = find_tool("openvino/ov_check.py");
  if (python.empty())
    why = "tools/venv/bin/python is missing (scripts/install-deps.sh makes it; or set CONDLINT_PYTHON)";
  else if (driver.empty()) why = "the driver tools/openvino/ov_check.py was not found";
  if (!why.empty()) return "";
  return "exec " + shell_quote(python.string()) + " " + shell_quote(driver.string()) + args;
}

fs::path make_temp_dir() {
  std::error_code ec;
  std::string tmpl = (fs::temp_directory_path(ec) / "condlint-live-XXXXXX").string();
  if (ec) tmpl = "/tmp/condlint-live-XXXXXX";
  if (!mkdtemp(tmpl.data())) return {};
  return tmpl;
}

int64_t largest_file(const std::vector<ViewPlan>& models, const std::vector<size_t>& which) {
  int64_t big = 0;
  for (size_t i : which) {
    std::error_code ec;
    const auto n = fs::file_size(models[i].files.front().first, ec);
    if (!ec) big = std::max<int64_t>(big, static_cast<int64_t>(n));
  }
  return big;
}

// Every occurrence of `from` in `s` replaced by `to`.
void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

// A line of the results file, read up to `max` bytes (the rest of a longer line skipped; `cut` set, and `whole` when
// the line ended before the file did). False at the end.
bool read_line(std::istream& in, std::string& line, size_t max, bool& cut, bool& whole) {
  line.clear();
  cut = whole = false;
  char c;
  bool any = false;
  while (in.get(c)) {
    any = true;
    if (c == '\n') return whole = true;
    if (line.size() < max) line += c;
    else cut = true;
  }
  return any;
}

}  // namespace

bool has_live_check(const std::string& runtime) { return runtime == "onnxruntime" || runtime == "openvino"; }

LiveCheck check_live(const std::string& runtime, const std::vector<ViewPlan>& models, const LiveLimits& limits) {
  LiveCheck lc;
  lc.runtime = runtime;
  lc.name = runtime == "onnxruntime" ? "ONNX Runtime" : "OpenVINO";
  lc.verdicts.assign(models.size(), {});
  if (!has_live_check(runtime)) {
    lc.unavailable = "no live check for this runtime";
    return lc;
  }
  const fs::path dir = make_temp_dir();
  if (dir.empty()) {
    lc.unavailable = "no temporary directory for the check";
    return lc;
  }
  const io::CleanupSlot cleanup = io::register_temp_dir(dir.string());
  // Each model's view, in a folder of its own named by its place in the batch.
  std::vector<fs::path> staged(models.size());
  std::vector<size_t> left;
  for (size_t i = 0; i < models.size(); ++i) {
    std::string error = models[i].refused;
    if (error.empty()) staged[i] = stage_view(models[i], dir / std::to_string(i), error);
    if (staged[i].empty()) lc.verdicts[i].not_given = error;
    else left.push_back(i);
  }
  // Nothing to give: no process, and nothing the runtime could say.
  if (left.empty()) lc.available = true;
  while (!left.empty()) {
    const fs::path list = dir / "models.json", results = dir / "results.jsonl";
    std::error_code ec;
    fs::remove(results, ec);
    nlohmann::json names = nlohmann::json::array();
    for (size_t i : left) names.push_back(staged[i].string());
    if (const std::string e = io::write_file(list.string(), "the model list", [&](std::ostream& f) { f << names.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); });
        !e.empty()) {
      lc.unavailable = e;
      break;
    }
    std::string why;
    const std::string cmd = check_command(runtime, list, results, why);
    if (cmd.empty()) {
      lc.unavailable = why;
      break;
    }
    ProcLimits pl;
    pl.timeout_ms = limits.per_model_ms;
    pl.max_rss_bytes = limits.base_memory_bytes + limits.memory_per_file_byte * largest_file(models, left);
    pl.progress = results;
    pl.max_progress_bytes = limits.max_results_bytes;
    pl.max_file_bytes = limits.max_file_bytes;
    pl.cwd = dir;
    const ProcResult p = run_shell(cmd, pl);
    ++lc.processes;
    // The verdicts the process gave, in order; the first model without one is the one it stopped at.
    size_t answered = 0;
    bool started = false;
    std::string cut_line;  // a verdict line that passed kMaxVerdictBytes: that model's verdict
    std::ifstream in(results, std::ios::binary);
    std::string line;
    for (bool cut = false, whole = false; read_line(in, line, kMaxVerdictBytes, cut, whole);) {
      // A whole line past the limit is the model's verdict, cut; one the process's end cut is what stopped it.
      if (cut && whole) cut_line = "its verdict line passed " + std::to_string(kMaxVerdictBytes) + " bytes; condlint cut it";
      if (cut) break;
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_object()) break;  // a line cut by the process's end
      if (j.contains("version") && j["version"].is_string()) {
        started = true;
        lc.version = j["version"].get<std::string>().substr(0, 200);
        continue;
      }
      const auto i = j.value("i", int64_t{-1});
      if (i < 0 || static_cast<size_t>(i) >= left.size()) break;
      const size_t k = left[static_cast<size_t>(i)];
      LiveVerdict& v = lc.verdicts[k];
      v.checked = true;
      v.refused = !j.value("ok", false);
      if (v.refused) {
        const auto text = [&](const char* key) {
          return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
        };
        v.stage = text("stage");
        v.message = text("error");
        // The runtime names the view; the user knows the model by its own path.
        replace_all(v.message, staged[k].string(), models[k].path);
        replace_all(v.message, staged[k].parent_path().string() + "/",
                    fs::path(models[k].path).parent_path().empty() ? "" : fs::path(models[k].path).parent_path().string() + "/");
      }
      answered = std::max(answered, static_cast<size_t>(i) + 1);
    }
    if (!started) {  // the adapter did not come up: the runtime is not installed (or does not start)
      lc.unavailable = p.timed_out ? "its adapter did not start within " + std::to_string(limits.per_model_ms) + " ms"
                                   : (p.err.empty() ? "its adapter failed to start" : p.err);
      break;
    }
    lc.available = true;
    if (answered >= left.size()) break;
    // The process ended before the model at `answered` had a verdict: that model stopped it.
    LiveVerdict& culprit = lc.verdicts[left[answered]];
    culprit.checked = culprit.refused = true;
    culprit.stage = "loading";
    if (!cut_line.empty())
      culprit.message = cut_line;
    else if (p.timed_out)
      culprit.message =
          "its process was stopped after " + std::to_string(limits.per_model_ms) + " ms loading the model";
    else if (p.over_memory)
      culprit.message = "its process was stopped when it passed " + std::to_string(pl.max_rss_bytes >> 20) +
                        " MiB of memory loading the model";
    else if (p.over_output)
      culprit.message = "its process was stopped when its results passed " +
                        std::to_string(limits.max_results_bytes >> 20) + " MiB loading the model";
    else if (p.signal == SIGXFSZ)
      culprit.message = "its process was stopped when a file it wrote passed " +
                        std::to_string(limits.max_file_bytes >> 20) + " MiB loading the model";
    else if (p.signal)
      culprit.message = "its process died of signal " + std::to_string(p.signal) + " loading the model";
    else
      culprit.message = "its process ended (exit code " + std::to_string(p.exit_code) + ") loading the model" +
                        (p.err.empty() ? "" : ": " + p.err);
    left.erase(left.begin(), left.begin() + static_cast<std::ptrdiff_t>(answered) + 1);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (!lc.available)
    for (auto& v : lc.verdicts) v = LiveVerdict{false, v.not_given, false, {}, {}};
  return lc;
}

}  // namespace condlint::diff
