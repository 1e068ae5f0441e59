// condlint command line: argument parsing and wiring only.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli/config.hpp"
#include "exec/ir_exec.hpp"
#include "exec/lint_exec.hpp"
#include "diff/diff.hpp"
#include "exec/nnapi_exec.hpp"
#include "exec/runner.hpp"
#include "export/export.hpp"
#include "importers/nnapi_testmodel.hpp"
#include "lint/cache.hpp"
#include "loaders/loader.hpp"
#include "model/parallel.hpp"
#include "report/checks.hpp"
#include "report/merge.hpp"
#include "report/report.hpp"
#include "report/terminal.hpp"
#include "rules/engine.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define CONDLINT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CONDLINT_ASAN 1
#endif
#endif

namespace {

using namespace condlint;

constexpr int kExitClean = 0;
constexpr int kExitFindings = 1;
constexpr int kExitError = 2;

struct LintOptions {
  std::string format = "text";
  std::string output;
  std::string fail_on = "error";
  std::vector<std::string> enable, disable;
  std::vector<std::string> paths;
  std::string nnapi_target = "runtime";
  // Reports for CI (issue 7)
  std::string sarif_file, html_file, config_file, baseline, automation_id = "condlint/";
  int max_warnings = -1;
  unsigned jobs = 0;  // 0 = all cores
  bool quiet = false;
  bool exec = false;  // --exec: run the executor where golden data sits beside a model (EX rules)
  std::string dump_types;  // --dump-types FILE: every value's type as condlint knows it (JSON)
  std::string shard;       // --shard K/N
  std::string files_from;  // --files-from FILE|-
  std::string cache_dir;   // --cache DIR
};

// "K/N" with 1 <= K <= N <= 10000; false when it is not that.
bool parse_shard(const std::string& s, int& k, int& n) {
  const auto slash = s.find('/');
  if (slash == std::string::npos) return false;
  try {
    size_t a = 0, b = 0;
    k = std::stoi(s.substr(0, slash), &a);
    n = std::stoi(s.substr(slash + 1), &b);
    return a == slash && b == s.size() - slash - 1 && k >= 1 && n >= 1 && k <= n && n <= 10000;
  } catch (const std::exception&) {
    return false;
  }
}

bool valid_rule_selector(const std::string& s) {
  for (const RuleDef* r : all_rules())
    if (r->id.substr(0, s.size()) == s) return true;
  return false;
}

// ---------- helpers of run_lint ----------

bool matches_prefix(std::string_view id, const std::vector<std::string>& prefixes) {
  for (const auto& p : prefixes)
    if (p.empty() || id.substr(0, p.size()) == p) return true;
  return false;
}

// Moves findings that an inline comment or a config entry suppresses to FileResult::suppressed.
void apply_suppressions(const Model& m, const Config* cfg, FileResult& fr) {
  std::vector<Finding> kept;
  for (auto& f : fr.findings) {
    std::string kind, why;
    if (m.ir)
      for (const auto& s : m.ir->suppressions)
        if (s.graph == f.loc.graph && s.node == f.loc.node_index && matches_prefix(f.rule, s.rules)) {
          kind = "inSource";
          why = "condlint-disable comment at line " + std::to_string(s.loc.line);
          break;
        }
    if (kind.empty() && cfg) {
      const std::string rel = config_relative(*cfg, fr.path);
      for (const auto& s : cfg->suppressions)
        if (f.rule.substr(0, s.rule.size()) == s.rule && (s.path_glob.empty() || glob_match(s.path_glob, rel)) &&
            (s.node_glob.empty() || glob_match(s.node_glob, f.loc.node))) {
          kind = "external";
          why = s.justification.empty() ? cfg->file + ":" + std::to_string(s.line) : s.justification;
          break;
        }
    }
    if (kind.empty()) kept.push_back(std::move(f));
    else fr.suppressed.push_back(SuppressedFinding{std::move(f), kind, why, {}});
  }
  fr.findings = std::move(kept);
}

struct BaselineEntry {
  Finding finding;
  std::string uri;
  std::string fingerprint;
};

// Reads the results of an earlier SARIF run (the ones not already absent there).
bool read_baseline(const std::string& path, std::vector<BaselineEntry>& out, std::string& err) {
  std::string text;
  if (!read_file(path, text, err)) return false;
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("runs") || !doc["runs"].is_array()) {
    err = "not a SARIF file";
    return false;
  }
  for (const auto& run : doc["runs"]) {
    if (!run.is_object() || !run.contains("results") || !run["results"].is_array()) continue;
    for (const auto& r : run["results"]) {
      if (!r.is_object()) continue;
      if (r.value("baselineState", "") == "absent") continue;
      BaselineEntry e;
      e.finding.rule = r.value("ruleId", "");
      Level l = Level::Warning;
      parse_level(r.value("level", "warning"), l);
      e.finding.level = l;
      if (auto it = r.find("message"); it != r.end() && it->is_object()) e.finding.message = it->value("text", "");
      if (auto it = r.find("partialFingerprints"); it != r.end() && it->is_object())
        e.fingerprint = it->value("primaryLocationLineHash", "");
      if (auto it = r.find("locations"); it != r.end() && it->is_array() && !it->empty() && (*it)[0].is_object()) {
        const auto& loc = (*it)[0];
        const auto phys = loc.value("physicalLocation", nlohmann::json::object());
        e.uri = phys.value("artifactLocation", nlohmann::json::object()).value("uri", "");
        const auto region = phys.value("region", nlohmann::json::object());
        e.finding.loc.line = region.value("startLine", 0);
        e.finding.loc.column = region.value("startColumn", 0);
        const auto logical = loc.value("logicalLocations", nlohmann::json::array());
        if (logical.is_array() && !logical.empty() && logical[0].is_object())
          e.finding.loc.node = logical[0].value("fullyQualifiedName", "");
      }
      if (!e.finding.rule.empty()) out.push_back(std::move(e));
    }
  }
  return true;
}

class Progress {
 public:
  Progress(size_t total, bool on) : total_(total), on_(on) {}
  void tick() {
    if (!on_) return;
    const size_t done = ++done_;
    std::lock_guard<std::mutex> lock(mu_);
    const size_t pct = done * 100 / total_;
    if (pct == last_pct_ && done != total_) return;  // redraw once per percent
    last_pct_ = pct;
    const int width = 30, filled = static_cast<int>(width * done / total_);
    std::cerr << "\r[" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << done << "/" << total_
              << " files" << std::flush;
  }
  ~Progress() {
    if (on_) std::cerr << "\r" << std::string(50, ' ') << "\r" << std::flush;
  }

 private:
  size_t total_;
  bool on_;
  std::atomic<size_t> done_{0};
  size_t last_pct_ = static_cast<size_t>(-1);
  std::mutex mu_;
};

// Writes a side report (--sarif FILE, --html FILE); false, after saying why, when the file cannot be written.
bool write_report(const std::string& path, const std::string& what, const std::function<void(std::ostream&)>& writer) {
  std::ofstream f(path, std::ios::binary);
  if (!f) {
    std::cerr << "condlint: cannot write the " << what << " report to " << term_safe(path) << "\n";
    return false;
  }
  writer(f);
  f.flush();
  if (!f) std::cerr << "condlint: cannot write the " << what << " report to " << term_safe(path) << "\n";
  return static_cast<bool>(f);
}

// The main report's stream: the -o file (opened into `file`), or standard output when `path` is empty; null,
// after saying why, when the file cannot be opened.
std::ostream* open_output(const std::string& path, std::ofstream& file) {
  if (path.empty()) return &std::cout;
  file.open(path, std::ios::binary);
  if (!file) {
    std::cerr << "condlint: cannot write " << term_safe(path) << "\n";
    return nullptr;
  }
  return &file;
}

// What every share of a sharded run must agree on: the condlint version, the options that change results or the
// exit code, the configuration files and the baseline (by content), and the unsharded file list.
std::string run_identity(const LintOptions& o, const std::vector<std::string>& files,
                         const std::map<std::string, std::optional<Config>>& configs) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a 64, fields separated by 0xff
  auto add = [&](std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  auto add_file = [&](const std::string& path) {
    std::string text, err;
    add(path);
    add(read_file(path, text, err) ? text : "(unreadable)");
  };
  add(CONDLINT_VERSION);
  for (const auto* list : {&o.enable, &o.disable}) {
    for (const auto& s : *list) add(s);
    add("|");
  }
  for (const auto* s : {&o.nnapi_target, &o.fail_on, &o.automation_id, &o.config_file}) add(*s);
  add(std::to_string(o.max_warnings));
  add(o.exec ? "exec" : "");
  if (!o.baseline.empty()) add_file(o.baseline);
  for (const auto& [path, c] : configs) add_file(path);
  for (const auto& f : files) add(f);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

int run_lint(const LintOptions& o) {
  for (const auto* list : {&o.enable, &o.disable})
    for (const auto& id : *list)
      if (!valid_rule_selector(id)) {
        std::cerr << "condlint: unknown rule or rule prefix '" << term_safe(id) << "' (see `condlint rules`)\n";
        return kExitError;
      }
  Level threshold = Level::Error;
  const bool never = o.fail_on == "never";
  if (!never && !parse_level(o.fail_on, threshold)) {
    std::cerr << "condlint: --fail-on must be error, warning, note or never\n";
    return kExitError;
  }
  RuleSelection base;
  base.enable = o.enable;
  base.disable = o.disable;
  base.options.nnapi_target = o.nnapi_target;

  int shard_k = 1, shard_n = 1;
  if (!o.shard.empty() && !parse_shard(o.shard, shard_k, shard_n)) {
    std::cerr << "condlint: --shard takes K/N with 1 <= K <= N <= 10000, got '" << term_safe(o.shard) << "'\n";
    return kExitError;
  }
  std::vector<std::string> paths = o.paths;
  if (!o.files_from.empty()) {
    std::ifstream file;
    if (o.files_from != "-") {
      file.open(o.files_from);
      if (!file) {
        std::cerr << "condlint: cannot read the file list " << term_safe(o.files_from) << "\n";
        return kExitError;
      }
    }
    for (auto& p : read_path_list(o.files_from == "-" ? std::cin : file)) paths.push_back(std::move(p));
  } else if (paths.empty()) {
    std::cerr << "condlint: lint needs model files or directories (or --files-from FILE)\n";
    return kExitError;
  }
  Collected inputs = collect_inputs(paths);
  const std::vector<std::string> all_files = inputs.files;  // the unsharded run's files
  RunResult result;
  result.run.automation_id = o.automation_id;
  bool io_failure = false;
  for (const auto& e : inputs.errors) {
    spdlog::error("{}", term_safe(e));
    result.run.notifications.push_back(e);
    io_failure = true;
  }

  // Configuration: --config for every file, else the nearest .condlint.yaml above each model. Looked up for every
  // file of the unsharded run, so that each share reports the same rule configuration.
  std::map<std::string, std::optional<Config>> configs;  // config path -> parsed
  std::vector<const Config*> file_config(inputs.files.size(), nullptr);
  auto get_config = [&](const std::string& path) -> const Config* {
    auto it = configs.find(path);
    if (it == configs.end()) {
      std::string err;
      it = configs.emplace(path, load_config(path, err)).first;
      if (!it->second) {
        std::cerr << "condlint: bad configuration: " << term_safe(err) << "\n";
        return nullptr;
      }
    }
    return it->second ? &*it->second : nullptr;
  };
  {
    std::map<std::string, std::string> by_dir;  // model directory -> config path ("" none)
    for (size_t i = 0; i < inputs.files.size(); ++i) {
      std::string cfg = o.config_file;
      if (cfg.empty()) {
        const std::string dir = std::filesystem::path(inputs.files[i]).parent_path().string();
        auto it = by_dir.find(dir);
        if (it == by_dir.end()) it = by_dir.emplace(dir, find_config(inputs.files[i])).first;
        cfg = it->second;
      }
      if (cfg.empty()) continue;
      file_config[i] = get_config(cfg);
      if (!file_config[i]) return kExitError;
    }
    if (!o.config_file.empty() && !get_config(o.config_file)) return kExitError;
    for (const auto& [path, c] : configs)
      for (const auto& [id, line] : c->level_lines)
        for (const RuleDef* d : all_rules())
          if (d->id.substr(0, id.size()) == id)
            result.run.overrides.push_back({std::string(d->id), c->levels.at(std::string(d->id)), path});
    for (const RuleDef* d : all_rules())
      if (!base.is_on(*d)) result.run.overrides.push_back({std::string(d->id), Level::Off, "command line"});
  }
  keep_shard(inputs, shard_k, shard_n);
  for (size_t i = 0; i < inputs.files.size(); ++i) file_config[i] = file_config[inputs.positions[i]];
  file_config.resize(inputs.files.size());
#if !defined(CONDLINT_ASAN)
  skip_loader_teardown(inputs.files.size() == 1);  // one model: its scratch memory goes back with the process
#endif
  if (!o.shard.empty()) {
    ShardInfo sh;
    sh.index = shard_k;
    sh.count = shard_n;
    sh.total_files = all_files.size();
    sh.input_errors = inputs.errors.size();
    sh.fail_on = o.fail_on;
    sh.max_warnings = o.max_warnings;
    sh.run = run_identity(o, all_files, configs);
    result.run.shard = std::move(sh);
  }

  // The result cache: not with the outputs that read the models themselves (HTML panels, --dump-types).
  const bool want_conditionals = o.format == "html" || !o.html_file.empty();
  std::optional<lint::ResultCache> cache;
  std::vector<std::string> cache_context(inputs.files.size());
  if (!o.cache_dir.empty()) {
    if (want_conditionals || !o.dump_types.empty()) {
      spdlog::warn("--cache is not used with an HTML report or --dump-types: they read the models themselves");
    } else {
      cache.emplace(o.cache_dir);
      if (!cache->error().empty()) {
        std::cerr << "condlint: " << term_safe(cache->error()) << "\n";
        return kExitError;
      }
      // Everything besides a model's bytes (and the files it reads) that its findings depend on.
      std::string run_context = "nnapi-target=" + o.nnapi_target + (o.exec ? "|exec" : "");
      for (const auto* list : {&o.enable, &o.disable}) {
        run_context += "|";
        for (const auto& id : *list) run_context += id + ",";
      }
      std::map<const Config*, std::string> config_context;
      for (const auto& [path, c] : configs)
        if (c) config_context[&*c] = "|config=" + path + "|" + lint::hash_file(path).value_or("unreadable");
      for (size_t i = 0; i < inputs.files.size(); ++i)
        cache_context[i] = run_context + (file_config[i] ? config_context[file_config[i]] : "");
    }
  }

  std::vector<FileResult> files(inputs.files.size());
  std::vector<char> skipped(inputs.files.size(), 0), failed(inputs.files.size(), 0);
  unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, std::max<size_t>(1, inputs.files.size())));
  Progress progress(inputs.files.size(), !o.quiet && inputs.files.size() > 4 && isatty(STDERR_FILENO));

  auto lint_one = [&](size_t i) {
    const std::string& path = inputs.files[i];
    const Config* cfg = file_config[i];
    RuleSelection sel = base;
    if (cfg) {
      sel.levels = cfg->levels;
      const std::string rel = config_relative(*cfg, path);
      for (const auto& ig : cfg->ignores)
        if (glob_match(ig.glob, rel)) {
          if (ig.rules.empty()) {
            skipped[i] = 1;
            return;
          }
          sel.disable.insert(sel.disable.end(), ig.rules.begin(), ig.rules.end());
        }
    }
    const auto t0 = std::chrono::steady_clock::now();
    FileResult& fr = files[i];
    fr.path = path;
    if (auto fmt = format_from_name(path)) fr.format = std::string(to_string(*fmt));
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec) fr.size = static_cast<int64_t>(size);
    lint::ResultCache::Probe probe;
    if (cache)
      if (auto hit = cache->find(path, cache_context[i], probe)) {
        fr.findings = std::move(hit->findings);
        fr.suppressed = std::move(hit->suppressed);
        compute_fingerprints(fr);
        progress.tick();
        return;
      }
    LoadResult lr = load_file(path);
    if (!lr.model) {
      fr.io_error = lr.io_error;
      failed[i] = 1;
      spdlog::error("{}: {}", term_safe(path), term_safe(lr.io_error));
    } else {
      exec::ModelResult exec_run;  // kept for the HTML report's per-branch tables
      if (o.exec) exec::attach_exec_results(*lr.model, path, {}, want_conditionals ? &exec_run : nullptr);
      fr.findings = run_rules(*lr.model, sel);
      if (!o.dump_types.empty()) fr.value_types = collect_value_types(*lr.model);
      apply_suppressions(*lr.model, cfg, fr);
      if (cache) {
        std::vector<std::string> deps(lr.model->sources.begin(), lr.model->sources.end());
        if (o.exec)
          for (auto& d : lint::golden_data_dependencies(path)) deps.push_back(std::move(d));
        cache->store(probe, deps, lint::CachedResult{fr.findings, fr.suppressed});
      }
      if (want_conditionals) {
        std::vector<Finding> all = fr.findings;
        for (const auto& s : fr.suppressed) all.push_back(s.finding);
        fr.conditionals = summarize_conditionals(*lr.model, all);
        if (!exec_run.model.empty()) attach_checks(fr, checks_from_run(exec_run));
      }
      compute_fingerprints(fr);
      const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      spdlog::debug("{}: {} graphs, {} conditionals, {} findings in {:.1f} ms", term_safe(path), lr.model->graphs.size(),
                    lr.model->conditionals.size(), fr.findings.size(), ms);
      // With a single model, its memory goes back with the process: tearing a large model down
      // piece by piece costs a tenth of the run and helps nobody.
#if !defined(CONDLINT_ASAN)  // LeakSanitizer would rightly report it
      if (inputs.files.size() == 1) (void)lr.model.release();
#endif
    }
    progress.tick();
  };
  // Files in parallel take the cores; one file at a time may use a second core for its own steps.
  set_parallel(jobs <= 1);
  if (jobs <= 1) {
    for (size_t i = 0; i < inputs.files.size(); ++i) lint_one(i);
  } else {
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < jobs; ++t)
      pool.emplace_back([&] {
        for (size_t i; (i = next++) < inputs.files.size();) {
          try {
            lint_one(i);
          } catch (const std::exception& e) {
            files[i].path = inputs.files[i];
            files[i].io_error = std::string("internal error: ") + e.what();
            failed[i] = 1;
          }
        }
      });
    for (auto& th : pool) th.join();
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (skipped[i]) continue;
    if (failed[i]) {
      io_failure = true;
      result.run.notifications.push_back(files[i].path + ": " + files[i].io_error);
    }
    result.files.push_back(std::move(files[i]));
    if (result.run.shard) result.run.shard->positions.push_back(inputs.positions[i]);
  }

  if (cache) {
    const auto& st = cache->stats();
    spdlog::debug("cache {}: {} results reused, {} files judged ({} entries stale or damaged), {} stored, {} not "
                  "storable (a file outside the model's directory)",
                  term_safe(o.cache_dir), st.reused.load(), st.judged.load(), st.rejected.load(), st.stored.load(),
                  st.not_stored.load());
    if (st.write_errors > 0)
      spdlog::warn("cache {}: {} results could not be written", term_safe(o.cache_dir), st.write_errors.load());
  }

  // Baseline: new / unchanged here, absent for what disappeared.
  if (!o.baseline.empty()) {
    std::vector<BaselineEntry> old;
    std::string err;
    if (!read_baseline(o.baseline, old, err)) {
      std::cerr << "condlint: cannot read the baseline " << term_safe(o.baseline) << ": " << term_safe(err) << "\n";
      return kExitError;
    }
    result.run.has_baseline = true;
    std::multiset<std::string> keys;
    for (const auto& e : old) keys.insert(e.finding.rule + "|" + e.fingerprint);
    std::multiset<std::string> current;
    auto mark = [&](const Finding& f, ResultInfo& info) {
      const std::string k = f.rule + "|" + info.fingerprint;
      current.insert(k);
      info.baseline = keys.count(k) ? "unchanged" : "new";
    };
    for (auto& f : result.files) {
      for (size_t i = 0; i < f.findings.size(); ++i) mark(f.findings[i], f.info[i]);
      for (auto& s : f.suppressed) mark(s.finding, s.info);
    }
    // A share reports as absent only what no other share can have: results in its own files or in files that are
    // not models of the run; `condlint merge` drops those that another share matched.
    std::set<std::string> others;
    if (result.run.shard) {
      for (const auto& p : all_files) others.insert(artifact_uri(p));
      for (const auto& p : inputs.files) others.erase(artifact_uri(p));
    }
    for (size_t i = 0; i < old.size(); ++i) {
      const BaselineEntry& e = old[i];
      if (current.count(e.finding.rule + "|" + e.fingerprint)) {
        if (result.run.shard) result.run.shard->matched.push_back(i);
      } else if (!others.count(e.uri)) {
        result.run.absent.push_back(AbsentResult{e.finding, e.uri, e.fingerprint, i});
      }
    }
  }

  // Exit code: suppressed results never count; with a baseline only new ones do.
  size_t failing = 0, warnings = 0;
  for (const auto& f : result.files)
    for (size_t i = 0; i < f.findings.size(); ++i) {
      if (result.run.has_baseline && i < f.info.size() && f.info[i].baseline != "new") continue;
      if (!never && f.findings[i].level >= threshold) ++failing;
      if (f.findings[i].level == Level::Warning) ++warnings;
    }
  if (!io_failure && o.max_warnings >= 0 && warnings > static_cast<size_t>(o.max_warnings))
    spdlog::warn("{} warnings, more than --max-warnings {}", warnings, o.max_warnings);
  const int code = lint_exit_code(io_failure, failing, warnings, o.max_warnings);
  result.run.exit_code = code;
  result.run.execution_successful = code != kExitError;

  std::ofstream file;
  std::ostream* os = open_output(o.output, file);
  if (!os) return kExitError;
  if (o.format == "json") write_json(*os, result);
  else if (o.format == "sarif") write_sarif(*os, result);
  else if (o.format == "html") write_html(*os, result);
  else write_text(*os, result, os == &std::cout && isatty(STDOUT_FILENO));
  os->flush();
  if (!o.sarif_file.empty() && !write_report(o.sarif_file, "SARIF", [&](std::ostream& f) { write_sarif(f, result); }))
    return kExitError;
  if (!o.html_file.empty() && !write_report(o.html_file, "HTML", [&](std::ostream& f) { write_html(f, result); }))
    return kExitError;
  if (!o.dump_types.empty() &&
      !write_report(o.dump_types, "types", [&](std::ostream& f) { write_types_json(f, result); }))
    return kExitError;
  return code;
}

struct MergeOptions {
  std::vector<std::string> reports;
  std::string output, html_file, fail_on;
  int max_warnings = -2;  // -2: the shares' own
};

int run_merge(const MergeOptions& o) {
  std::vector<ShardReport> shares;
  for (const auto& path : o.reports) {
    ShardReport r{path, {}};
    std::string err;
    if (!read_file(path, r.text, err)) {
      std::cerr << "condlint: cannot read the report " << term_safe(path) << ": " << term_safe(err) << "\n";
      return kExitError;
    }
    shares.push_back(std::move(r));
  }
  std::optional<ExitPolicy> policy;
  if (!o.fail_on.empty() || o.max_warnings != -2) policy = ExitPolicy{};
  MergeResult m = merge_reports(shares, std::nullopt);
  if (m.error.empty() && policy) {
    policy->fail_on = o.fail_on.empty() ? m.policy.fail_on : o.fail_on;
    policy->max_warnings = o.max_warnings == -2 ? m.policy.max_warnings : o.max_warnings;
    m = merge_reports(shares, policy);
  }
  if (!m.error.empty()) {
    std::cerr << "condlint: cannot merge: " << term_safe(m.error) << "\n";
    return kExitError;
  }
  if (!o.html_file.empty() && m.kind != "json") {
    std::cerr << "condlint: --html is written from the shares' JSON reports (lint --shard K/N --format json)\n";
    return kExitError;
  }
  std::ofstream file;
  std::ostream* os = open_output(o.output, file);
  if (!os) return kExitError;
  *os << m.text;
  os->flush();
  if (!*os) {
    std::cerr << "condlint: cannot write " << term_safe(o.output.empty() ? "standard output" : o.output) << "\n";
    return kExitError;
  }
  if (!o.html_file.empty() &&
      !write_report(o.html_file, "HTML", [&](std::ostream& f) { write_html(f, m.results); }))
    return kExitError;
  if (!m.io_failure && m.policy.max_warnings >= 0 && m.warnings > static_cast<size_t>(m.policy.max_warnings))
    spdlog::warn("{} warnings, more than --max-warnings {}", m.warnings, m.policy.max_warnings);
  return lint_exit_code(m.io_failure, m.failing, m.warnings, m.policy.max_warnings);
}

int run_rules_list(const std::string& format) {
  if (format == "json") {
    nlohmann::ordered_json rules = nlohmann::ordered_json::array();
    for (const RuleDef* r : all_rules()) {
      nlohmann::ordered_json formats = nlohmann::ordered_json::array();
      for (auto [bit, name] : {std::pair{kIR, "ir"}, {kONNX, "onnx"}, {kNNAPI, "nnapi"}})
        if (r->formats & bit) formats.push_back(name);
      rules.push_back({{"id", r->id}, {"name", r->name}, {"level", to_string(r->level)}, {"formats", formats},
                       {"summary", r->summary}});
    }
    std::cout << rules.dump(2) << "\n";
    return kExitClean;
  }
  std::cout << "ID      NAME                          LEVEL    FORMATS        SUMMARY\n";
  for (const RuleDef* r : all_rules()) {
    std::string formats;
    if (r->formats == kAllFormats) formats = "all";
    else {
      if (r->formats & kIR) formats += "ir ";
      if (r->formats & kONNX) formats += "onnx ";
      if (r->formats & kNNAPI) formats += "nnapi ";
    }
    std::printf("%-7s %-29s %-8s %-14s %s\n", std::string(r->id).c_str(), std::string(r->name).c_str(),
                std::string(to_string(r->level)).c_str(), formats.c_str(), std::string(r->summary).c_str());
  }
  std::cout << "\nEach rule is explained in rules/<ID>.md.\n";
  return kExitClean;
}

struct RunCmdOptions {
  std::string model;
  std::string config;  // --config FILE (else .condlint.yaml found from the model's directory upwards)
  std::vector<std::string> data;
  std::string branches = "both";
  std::vector<std::string> pins;
  std::optional<double> atol, rtol;
  std::string save;
  std::string format = "text";
  std::string output;
  int64_t max_elements = 0, max_bytes = 0, max_iterations = 0, timeout_ms = 0;
  std::string html_file;  // --html FILE
};

// The configuration's tolerances (tolerances: run: / diff:) where --atol / --rtol are not given: from --config
// FILE, else from the .condlint.yaml found from the model's directory upwards. False (message printed) when the
// configuration cannot be read: a usage error, as for lint.
bool tolerances_from_config(const std::string& config, const std::string& model, bool for_diff,
                            std::optional<double>& atol, std::optional<double>& rtol) {
  const std::string path = config.empty() ? find_config(model) : config;
  if (path.empty()) return true;
  std::string err;
  const auto c = load_config(path, err);
  if (!c) {
    std::cerr << "condlint: " << term_safe(err) << "\n";
    return false;
  }
  const Tolerance& t = for_diff ? c->diff : c->run;
  if (!atol) atol = t.atol;
  if (!rtol) rtol = t.rtol;
  return true;
}

int run_exec(const RunCmdOptions& o) {
  exec::RunConfig cfg;
  for (const auto& d : o.data) cfg.data_dirs.emplace_back(d);
  cfg.both_branches = o.branches == "both";
  for (const auto& p : o.pins) {
    const auto eq = p.rfind('=');
    const std::string v = eq == std::string::npos ? "" : p.substr(eq + 1);
    if (eq == std::string::npos || eq == 0 || (v != "true" && v != "false")) {
      std::cerr << "condlint: --pin takes NODE=true|false (NODE is the If's path, e.g. main/if_0), got '" << term_safe(p) << "'\n";
      return kExitError;
    }
    cfg.pins[p.substr(0, eq)] = v == "true";
  }
  cfg.atol = o.atol;
  cfg.rtol = o.rtol;
  if (!tolerances_from_config(o.config, o.model, false, cfg.atol, cfg.rtol)) return kExitError;
  if ((o.atol && *o.atol < 0) || (o.rtol && *o.rtol < 0)) {
    std::cerr << "condlint: --atol and --rtol must not be negative\n";
    return kExitError;
  }
  cfg.save_dir = o.save;
  if (o.max_elements > 0) cfg.limits.max_elements = o.max_elements;
  if (o.max_bytes > 0) cfg.limits.max_total_bytes = o.max_bytes;
  if (o.max_iterations > 0) cfg.limits.max_loop_iterations = o.max_iterations;
  if (o.timeout_ms > 0) cfg.limits.timeout_ms = o.timeout_ms;
  const bool nnapi = exec::is_nnapi_path(o.model);
  if (nnapi && o.timeout_ms <= 0) cfg.limits.timeout_ms = 2000;  // Android's default loop timeout
  if (nnapi && o.max_iterations <= 0) cfg.limits.max_loop_iterations = INT64_MAX;  // NNAPI stops loops by time
  const exec::ModelResult r = nnapi                          ? exec::run_nnapi_model(o.model, cfg)
                              : exec::is_ir_path(o.model) ? exec::run_ir_model(o.model, cfg)
                                                          : exec::run_model(o.model, cfg);
  std::ofstream file;
  std::ostream* os = open_output(o.output, file);
  if (!os) return kExitError;
  const int run_code = !r.error.empty() ? kExitError : r.failed == 0 && r.unsupported == 0 ? kExitClean : kExitFindings;
  if (o.format == "json") write_run_json(*os, r);
  else if (o.format == "html") write_run_html(*os, r, run_code);
  else write_run_text(*os, r);
  os->flush();
  if (!o.html_file.empty() && !write_report(o.html_file, "HTML", [&](std::ostream& h) { write_run_html(h, r, run_code); }))
    return kExitError;
  if (!r.error.empty()) {
    if (os != &std::cout || o.format == "json") std::cerr << "condlint: " << term_safe(r.error) << "\n";
    return kExitError;
  }
  return r.failed == 0 && r.unsupported == 0 ? kExitClean : kExitFindings;
}

struct DiffCmdOptions {
  std::vector<std::string> models;
  std::string config;  // --config FILE (else .condlint.yaml found from the first model's directory upwards)
  std::vector<std::string> runtimes;
  std::vector<std::string> data;
  int random = 0;
  uint64_t seed = 0;
  std::vector<std::string> ranges, tolerances, input_shapes;
  std::string branches = "both";
  std::optional<double> atol, rtol;
  std::string format = "text";
  std::string output;
  std::string work_dir;
  int64_t timeout_ms = 0;
  std::string html_file;  // --html FILE
};

bool parse_pair(const std::string& s, std::string& name, double& a, double& b) {
  const auto eq = s.rfind('=');
  if (eq == std::string::npos || eq == 0) return false;
  name = s.substr(0, eq);
  const std::string v = s.substr(eq + 1);
  const auto comma = v.find(',');
  if (comma == std::string::npos) return false;
  try {
    size_t n1 = 0, n2 = 0;
    a = std::stod(v.substr(0, comma), &n1);
    b = std::stod(v.substr(comma + 1), &n2);
    return n1 == comma && n2 == v.size() - comma - 1;
  } catch (...) {
    return false;
  }
}

int run_diff_cmd(const DiffCmdOptions& o) {
  if (o.runtimes.size() != 2) {
    std::cerr << "condlint: diff takes exactly two --runtime options (ref, onnxruntime, cmd:TEMPLATE)\n";
    return kExitError;
  }
  diff::DiffConfig cfg;
  for (const auto& d : o.data) cfg.data_dirs.emplace_back(d);
  if (o.random < 0) {
    std::cerr << "condlint: --random must not be negative\n";
    return kExitError;
  }
  cfg.random = o.random;
  cfg.seed = o.seed;
  for (const auto& r : o.ranges) {
    std::string name;
    double lo, hi;
    if (!parse_pair(r, name, lo, hi) || lo > hi) {
      std::cerr << "condlint: --range takes NAME=LO,HI with LO <= HI, got '" << term_safe(r) << "'\n";
      return kExitError;
    }
    cfg.ranges[name] = {lo, hi};
  }
  for (const auto& spec : o.input_shapes) {
    // NAME:d0,d1,... (Polygraphy's spelling, brackets allowed: NAME:[1,3]); NAME: is a scalar.
    const auto colon = spec.rfind(':');
    std::string dims = colon == std::string::npos ? "" : spec.substr(colon + 1);
    if (!dims.empty() && dims.front() == '[' && dims.back() == ']') dims = dims.substr(1, dims.size() - 2);
    auto parsed = parse_int64_list(dims);
    bool ok = colon != std::string::npos && colon > 0 && parsed;
    if (ok)
      for (int64_t d : *parsed) ok = ok && d >= 0 && d <= (int64_t{1} << 31);
    if (!ok) {
      std::cerr << "condlint: --input-shapes takes NAME:d0,d1,... with dims from 0 to 2^31 (NAME: for a scalar), got '"
                << spec << "'\n";
      return kExitError;
    }
    cfg.input_shapes[spec.substr(0, colon)] = *parsed;
  }
  for (const auto& t : o.tolerances) {
    std::string name;
    double a, r;
    if (!parse_pair(t, name, a, r) || a < 0 || r < 0) {
      std::cerr << "condlint: --tolerance takes OUTPUT=ATOL,RTOL (not negative), got '" << term_safe(t) << "'\n";
      return kExitError;
    }
    cfg.tolerances[name] = {a, r};
  }
  if ((o.atol && *o.atol < 0) || (o.rtol && *o.rtol < 0)) {
    std::cerr << "condlint: --atol and --rtol must not be negative\n";
    return kExitError;
  }
  cfg.atol = o.atol;
  cfg.rtol = o.rtol;
  if (!o.models.empty() && !tolerances_from_config(o.config, o.models.front(), true, cfg.atol, cfg.rtol))
    return kExitError;
  cfg.both_branches = o.branches == "both";
  if (!o.work_dir.empty()) {
    cfg.work_dir = o.work_dir;
    cfg.keep = true;
  }
  diff::RuntimeOptions ro;
  if (o.timeout_ms > 0) ro.timeout_ms = ro.limits.timeout_ms = o.timeout_ms;
  std::vector<std::unique_ptr<diff::Runtime>> owned;
  std::vector<diff::Runtime*> rts;
  for (const auto& spec : o.runtimes) {
    std::string err;
    auto rt = diff::make_runtime(spec, ro, err);
    if (!rt) {
      std::cerr << "condlint: " << term_safe(err) << "\n";
      return kExitError;
    }
    rts.push_back(rt.get());
    owned.push_back(std::move(rt));
  }
  std::vector<std::filesystem::path> models(o.models.begin(), o.models.end());
  const diff::DiffResult r = diff::run_diff(models, rts, cfg);
  std::ofstream file;
  std::ostream* os = open_output(o.output, file);
  if (!os) return kExitError;
  const int diff_code = r.usage_error() ? kExitError : r.all_agree() ? kExitClean : kExitFindings;
  if (o.format == "json") write_diff_json(*os, r);
  else if (o.format == "html") write_diff_html(*os, r, diff_code);
  else write_diff_text(*os, r);
  os->flush();
  if (!o.html_file.empty() && !write_report(o.html_file, "HTML", [&](std::ostream& h) { write_diff_html(h, r, diff_code); }))
    return kExitError;
  if (r.usage_error()) {
    for (const auto& m : r.models)
      if (!m.error.empty() && (os != &std::cout || o.format == "json")) std::cerr << "condlint: " << term_safe(m.model) << ": " << term_safe(m.error) << "\n";
    return kExitError;
  }
  return r.all_agree() ? kExitClean : kExitFindings;
}

struct ExportCmdOptions {
  std::string model;
  std::string to = "onnx";
  std::string output;
  std::vector<std::string> pins;
  int64_t opset = 17;
  std::string data_out;
  std::string format = "text";
};

int run_export_cmd(const ExportCmdOptions& o) {
  xport::ExportOptions eo;
  eo.opset = o.opset;
  for (const auto& p : o.pins) {
    const auto eq = p.rfind('=');
    const std::string v = eq == std::string::npos ? "" : p.substr(eq + 1);
    if (eq == std::string::npos || eq == 0 || (v != "true" && v != "false")) {
      std::cerr << "condlint: --pin takes PATH=true|false (PATH is the If's path as `condlint run` names it, e.g. main/if_0), got '"
                << term_safe(p) << "'\n";
      return kExitError;
    }
    eo.pins[p.substr(0, eq)] = v == "true";
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(o.model, ec)) {
    std::cerr << "condlint: " << term_safe(o.model) << ": no such file\n";
    return kExitError;
  }
  const xport::ExportResult r = xport::export_model(o.model, eo);
  if (!r.error.empty()) {
    std::cerr << "condlint: " << term_safe(r.error) << "\n";
    return kExitError;
  }
  int data_sets = 0;
  std::string io_error;
  if (r.ok()) {
    std::string bytes;
    if (!r.model.SerializeToString(&bytes)) {
      io_error = "cannot serialize the exported model (over 2 GiB?)";
    } else {
      std::ofstream f(o.output, std::ios::binary);
      f << bytes;
      if (!f) io_error = "cannot write " + o.output;
    }
    if (io_error.empty() && !o.data_out.empty()) io_error = xport::write_data_sets(o.model, r, o.data_out, &data_sets);
  }
  if (!io_error.empty() && o.format != "json") {
    std::cerr << "condlint: " << term_safe(io_error) << "\n";
    return kExitError;
  }
  if (o.format == "json") {
    nlohmann::json j;
    j["model"] = o.model;
    j["to"] = o.to;
    j["ok"] = r.ok() && io_error.empty();
    j["output"] = r.ok() ? nlohmann::json(o.output) : nlohmann::json();
    j["opset"] = o.opset;
    j["problems"] = r.problems;
    j["notes"] = r.notes;
    j["if_paths"] = r.if_paths;
    if (!o.data_out.empty()) j["data_sets_written"] = data_sets;
    if (!io_error.empty()) j["error"] = io_error;
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (r.ok()) {
    std::cout << term_safe(o.model) << ": exported to " << term_safe(o.output) << " (ONNX opset " << o.opset << ", "
              << r.model.graph().node_size() << " nodes in the main graph, " << r.if_paths.size() << " If)\n";
    for (const auto& [src, dst] : r.if_paths)
      if (src != dst) std::cout << "  If " << term_safe(src) << " -> " << term_safe(dst) << "\n";
    for (const auto& n : r.notes) std::cout << "  note: " << term_safe(n) << "\n";
    if (!o.data_out.empty() && io_error.empty()) std::cout << "  " << data_sets << " data set(s) written to " << term_safe(o.data_out) << "\n";
  } else {
    std::cout << term_safe(o.model) << ": cannot be exported to ONNX exactly (" << r.problems.size() << " problem"
              << (r.problems.size() == 1 ? "" : "s") << "); nothing written\n";
    for (const auto& p : r.problems) std::cout << "  " << term_safe(p) << "\n";
  }
  if (!io_error.empty()) {
    std::cerr << "condlint: " << term_safe(io_error) << "\n";
    return kExitError;
  }
  return r.ok() ? kExitClean : kExitFindings;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    auto logger = spdlog::stderr_color_mt("condlint");
    spdlog::set_default_logger(logger);
    spdlog::set_pattern("condlint: %^%l%$: %v");
    spdlog::set_level(spdlog::level::warn);

    CLI::App app{
        "condlint checks conditional operations (If in OpenVINO IR and ONNX, IF in Android NNAPI):\n"
        "port maps, output counts, element types, shapes and the condition, at every nesting depth.\n\n"
        "Examples:\n"
        "  condlint lint model.xml                     lint one OpenVINO IR file (model.bin beside it)\n"
        "  condlint lint model.onnx m.nnapi.json       ONNX and Android NNAPI (JSON) models too\n"
        "  condlint lint models/ --format json -o r.json   lint a tree, JSON report\n"
        "  condlint lint m.xml --fail-on warning       exit 1 on warnings too\n"
        "  condlint lint m.xml --disable C011 --disable IR019\n"
        "  condlint lint models/ --sarif r.sarif       text on stdout, SARIF for code scanning\n"
        "  condlint lint models/ --format html -o r.html   a self-contained HTML report\n"
        "  condlint rules                              list every rule (pages: rules/<ID>.md)\n"
        "  condlint import nnapi-testmodel X.example.cpp -o DIR   AOSP test vectors -> .nnapi.json\n"
        "  condlint run m.xml                          run a model on its golden data, both branches of every If\n"
        "  condlint diff m.xml --runtime ref --runtime onnxruntime   compare two runtimes, per branch\n"
        "  condlint export m.xml --to onnx -o m.onnx   OpenVINO IR / NNAPI -> ONNX (exact, or says why not)\n\n"
        "Exit codes: 0 no finding at or above --fail-on, 1 findings, 2 usage, I/O or internal error.",
        "condlint"};
    app.set_version_flag("--version", std::string("condlint ") + CONDLINT_VERSION);
    bool verbose = false, quiet = false;
    app.add_flag("-v,--verbose", verbose, "Log what is loaded and how long it takes (stderr)");
    app.add_flag("-q,--quiet", quiet, "Log nothing but internal errors (stderr)");
    app.require_subcommand(1);

    LintOptions lint;
    auto* lint_cmd = app.add_subcommand("lint", "Lint model files or directories (walked recursively)");
    // Required unless --files-from gives the files: a required positional also keeps repeatable options such as
    // --disable from taking the paths as their values.
    bool files_listed = false;
    for (int i = 1; i < argc; ++i) files_listed = files_listed || std::string_view(argv[i]).rfind("--files-from", 0) == 0;
    lint_cmd->add_option("paths", lint.paths,
                         "Model files (.xml + .bin, .onnx, .nnapi.json) or directories, walked recursively\n"
                         "(there: .onnx, .nnapi.json, and .xml files whose root element is <net>)")
        ->required(!files_listed);
    lint_cmd->add_option("--format", lint.format, "Report format")
        ->check(CLI::IsMember({"text", "json", "sarif", "html"}))
        ->capture_default_str();
    lint_cmd->add_option("-o,--output", lint.output, "Write the report to FILE instead of standard output");
    lint_cmd->add_option("--fail-on", lint.fail_on, "Lowest level that makes the exit code 1: error|warning|note|never")
        ->check(CLI::IsMember({"error", "warning", "note", "never"}))
        ->capture_default_str();
    lint_cmd->add_option("--enable", lint.enable,
                         "Run only these rules; an ID (C006) or a prefix (IR, C0); repeatable");
    lint_cmd->add_option("--disable", lint.disable, "Do not run these rules; an ID or a prefix; repeatable");
    lint_cmd->add_flag("--exec", lint.exec,
                       "Also run the reference executor wherever golden data sits beside a model (test_data_set_*,\n"
                       "NNAPI examples); mismatches and failing branches become findings EX001-EX003");
    lint_cmd->add_option("--dump-types", lint.dump_types,
                         "Also write, as JSON to FILE, the type and shape condlint knows for every value a node\n"
                         "produces (declared, refined by inference; a null dim is unknown)");
    lint_cmd->add_option("--nnapi-target", lint.nnapi_target,
                         "NNAPI: judge IF/WHILE operands of unknown size as Android's runtime does (runtime: note)\n"
                         "or as HAL drivers must (hal: error)")
        ->check(CLI::IsMember({"runtime", "hal"}))
        ->capture_default_str();

    lint_cmd->add_option("--sarif", lint.sarif_file, "Also write a SARIF 2.1.0 report to FILE (any --format)");
    lint_cmd->add_option("--html", lint.html_file, "Also write a self-contained HTML report to FILE (any --format)");
    lint_cmd->add_option("--config", lint.config_file,
                         "Configuration file (default: .condlint.yaml in the model's directory or above)");
    lint_cmd->add_option("--baseline", lint.baseline,
                         "Earlier SARIF report: mark results new/unchanged/absent; --fail-on counts new ones only");
    lint_cmd->add_option("--max-warnings", lint.max_warnings, "Exit 1 when more than N warnings remain")
        ->check(CLI::NonNegativeNumber);
    lint_cmd->add_option("-j,--jobs", lint.jobs, "Lint N files in parallel (default: all cores)")
        ->check(CLI::Range(1u, 1024u));
    lint_cmd->add_option("--automation-id", lint.automation_id, "SARIF runAutomationDetails.id (category/run)")
        ->capture_default_str();
    lint_cmd->add_option("--shard", lint.shard,
                         "Lint only share K of N (K/N, 1 <= K <= N): files are split by a stable hash of their path\n"
                         "relative to the directory given, the same on every machine; for a CI matrix (docs/ci.md)");
    lint_cmd->add_option("--cache", lint.cache_dir,
                         "Reuse the findings of models judged before: same bytes (and .bin, external data, Blobs,\n"
                         "golden data with --exec), same condlint, configuration and rules. DIR is created; entries are\n"
                         "keyed by content hashes, safe to share between processes and to delete at any time.\n"
                         "Not used with --html/--format html/--dump-types, which read the models themselves");
    lint_cmd->add_option("--files-from", lint.files_from,
                         "Also lint the model files listed in FILE, one per line (- reads standard input; e.g.\n"
                         "`git diff --name-only`): other names and paths that do not exist are left out");

    MergeOptions mergeo;
    auto* merge_cmd = app.add_subcommand(
        "merge",
        "Merge the reports of the N shares of a sharded lint (lint --shard K/N) into the report the unsharded run\n"
        "writes, byte for byte: SARIF with SARIF, JSON with JSON. Every share must be there once, from the same\n"
        "condlint, options, configuration and file list; anything else is an error (exit 2), never a smaller report.\n"
        "The exit code is the unsharded lint's: 0 clean, 1 findings, 2 an input could not be read.\n\n"
        "Example (docs/ci.md):\n"
        "  condlint lint models/ --shard 1/2 --format sarif -o s1.sarif\n"
        "  condlint lint models/ --shard 2/2 --format sarif -o s2.sarif\n"
        "  condlint merge s1.sarif s2.sarif -o condlint.sarif");
    merge_cmd->add_option("reports", mergeo.reports, "The shares' reports (.sarif or .json), in any order")->required();
    merge_cmd->add_option("-o,--output", mergeo.output, "Write the merged report to FILE instead of standard output");
    merge_cmd->add_option("--html", mergeo.html_file, "Also write an HTML page of the merged findings (JSON shares)");
    merge_cmd->add_option("--fail-on", mergeo.fail_on,
                          "Lowest level that makes the exit code 1 (default: the one the shares ran with)")
        ->check(CLI::IsMember({"error", "warning", "note", "never"}));
    merge_cmd->add_option("--max-warnings", mergeo.max_warnings,
                          "Exit 1 when more than N warnings remain (default: the shares' --max-warnings)")
        ->check(CLI::NonNegativeNumber);

    std::string rules_format = "text";
    auto* rules_cmd = app.add_subcommand("rules", "List every rule with its ID, name, default level and formats");
    rules_cmd->add_option("--format", rules_format, "text or json")->check(CLI::IsMember({"text", "json"}));

    RunCmdOptions runo;
    auto* run_cmd = app.add_subcommand(
        "run", "Run an ONNX model (or an NNAPI .nnapi.json model with examples) on its golden data (test_data_set_N/input_K.pb, output_K.pb or .npy), running\n"
               "both branches of every If, and compare the outputs (exit 0 all ran and matched, 1 otherwise)");
    run_cmd->add_option("model", runo.model, "Model file: .onnx, .xml (OpenVINO IR, .bin beside it) or .nnapi.json")->required();
    run_cmd->add_option("--data", runo.data,
                        "A test_data_set_N directory or a directory holding them; repeatable\n"
                        "(default: the test_data_set_* beside the model)");
    run_cmd->add_option("--branches", runo.branches,
                        "both: also run the branch the data does not select, by pinning each If's condition")
        ->check(CLI::IsMember({"taken", "both"}))
        ->capture_default_str();
    run_cmd->add_option("--pin", runo.pins, "Pin an If's condition: NODE=true|false, NODE its path (main/if_0); repeatable");
    run_cmd->add_option("--atol", runo.atol, "Absolute tolerance (default per element type, docs/golden-data.md)");
    run_cmd->add_option("--rtol", runo.rtol, "Relative tolerance (default per element type)");
    run_cmd->add_option("--config", runo.config,
                        "Configuration file whose tolerances: run: applies where --atol/--rtol are not given (default: "
                        ".condlint.yaml in the model's directory or above)");
    run_cmd->add_option("--save", runo.save, "Record inputs, pins and outputs of every run as golden data under DIR");
    run_cmd->add_option("--format", runo.format, "Report format")->check(CLI::IsMember({"text", "json", "html"}))->capture_default_str();
    run_cmd->add_option("--html", runo.html_file, "Also write a self-contained HTML report (per-branch tables) to FILE");
    run_cmd->add_option("-o,--output", runo.output, "Write the report to FILE instead of standard output");
    run_cmd->add_option("--max-elements", runo.max_elements, "Largest tensor, in elements (default 1e8)");
    run_cmd->add_option("--max-bytes", runo.max_bytes, "Most bytes all live tensors may hold (default 2 GiB)");
    run_cmd->add_option("--max-iterations", runo.max_iterations, "Most iterations of one Loop (default 1e6)");
    run_cmd->add_option("--timeout-ms", runo.timeout_ms, "Time limit of one run in ms (default 60000)");

    std::vector<std::string> import_files;
    std::string import_out;
    auto* import_cmd = app.add_subcommand("import", "Convert models from other formats into ones condlint reads");
    import_cmd->require_subcommand(1);
    auto* import_nnapi = import_cmd->add_subcommand(
        "nnapi-testmodel", "AOSP NNAPI generated test models (spec_*/NAME.example.cpp) -> DIR/NAME.nnapi.json with goldens");
    import_nnapi->add_option("files", import_files, "*.example.cpp files")->required();
    import_nnapi->add_option("-o,--output", import_out, "Directory to write the .nnapi.json files to")->required();
    DiffCmdOptions diffo;
    auto* diff_cmd = app.add_subcommand(
        "diff", "Run an ONNX model on two runtimes with the same inputs, once per branch of every If (the If's\n"
                "condition pinned to a constant), and compare the outputs (exit 0 agree, 1 divergence or runtime failure)");
    diff_cmd->add_option("model", diffo.models,
                         "Model file(s): .onnx, or .xml (OpenVINO IR) / .nnapi.json, exported to ONNX first\n"
                         "(condlint export; exit 2 naming the ops when a model cannot be exported exactly)")
        ->required();
    diff_cmd->add_option("--runtime", diffo.runtimes,
                         "ref | onnxruntime | cmd:TEMPLATE (with {model} {inputs} {outputs}; docs/diff.md); give two")
        ->required();
    diff_cmd->add_option("--data", diffo.data, "A test_data_set_N directory or a directory holding them; repeatable\n"
                                               "(default: the test_data_set_* beside the model unless --random)");
    diff_cmd->add_option("--random", diffo.random, "Also run N random input sets");
    diff_cmd->add_option("--seed", diffo.seed, "Seed of --random (default 0)");
    diff_cmd->add_option("--range", diffo.ranges, "Value range of a random input: NAME=LO,HI; repeatable");
    diff_cmd->add_option("--input-shapes", diffo.input_shapes,
                         "Shape of a random input: NAME:d0,d1,... (NAME: for a scalar); must agree with every dim the\n"
                         "model declares; a symbolic dim it fixes applies to every input naming it (else 1); repeatable");
    diff_cmd->add_option("--branches", diffo.branches, "both: also run every If pinned to each branch; taken: the model as given")
        ->check(CLI::IsMember({"taken", "both"}))
        ->capture_default_str();
    diff_cmd->add_option("--atol", diffo.atol, "Absolute tolerance (default per element type, docs/golden-data.md)");
    diff_cmd->add_option("--rtol", diffo.rtol, "Relative tolerance (default per element type)");
    diff_cmd->add_option("--config", diffo.config,
                         "Configuration file whose tolerances: diff: applies where --atol/--rtol are not given (default: "
                         ".condlint.yaml in the first model's directory or above)");
    diff_cmd->add_option("--tolerance", diffo.tolerances, "Tolerance of one output: OUTPUT=ATOL,RTOL; repeatable");
    diff_cmd->add_option("--format", diffo.format, "Report format")->check(CLI::IsMember({"text", "json", "html"}))->capture_default_str();
    diff_cmd->add_option("--html", diffo.html_file, "Also write a self-contained HTML report (per-branch tables) to FILE");
    diff_cmd->add_option("-o,--output", diffo.output, "Write the report to FILE instead of standard output");
    diff_cmd->add_option("--work-dir", diffo.work_dir, "Keep variants, inputs and outputs in DIR (default: a temp dir, removed)");
    diff_cmd->add_option("--timeout-ms", diffo.timeout_ms, "Time limit of one run in ms (default 60000)");

    ExportCmdOptions expo;
    auto* export_cmd = app.add_subcommand(
        "export",
        "Write an OpenVINO IR (.xml + .bin) or NNAPI (.nnapi.json) model as ONNX, so that ONNX-only runtimes\n"
        "(ONNX Runtime, cmd: runtimes of `condlint diff`) can run it. The export is exact or refused: an op, attribute\n"
        "or element type ONNX cannot express is a problem naming the node, and nothing is written.\n\n"
        "Examples:\n"
        "  condlint export model.xml --to onnx -o model.onnx\n"
        "  condlint export model.xml --to onnx -o then.onnx --pin main/if_cond=true     the If reads a constant\n"
        "  condlint export m.nnapi.json --to onnx -o m.onnx --data-out m_data           with golden data\n"
        "  condlint run model.onnx --data m_data                                        run the export\n\n"
        "If paths: --pin takes the source model's paths (as `condlint run --pin` names them: main/if_cond,\n"
        "main/loop/body/inner_if); the report lists the ONNX path of each If where it differs.\n"
        "Exit codes: 0 written, 1 the model cannot be exported exactly (problems listed), 2 usage or I/O error.");
    export_cmd->add_option("model", expo.model, "Model file: .xml (OpenVINO IR, .bin beside it), .nnapi.json or .onnx")->required();
    export_cmd->add_option("--to", expo.to, "Target format")->check(CLI::IsMember({"onnx"}))->capture_default_str();
    export_cmd->add_option("-o,--output", expo.output, "The ONNX file to write")->required();
    export_cmd->add_option("--pin", expo.pins, "Pin an If's condition to a constant: PATH=true|false; repeatable");
    export_cmd->add_option("--opset", expo.opset, "ONNX opset of the exported model (IR export: 13 to 21)")->capture_default_str();
    export_cmd->add_option("--data-out", expo.data_out,
                           "Also write the golden data as DIR/test_data_set_N/input_K.pb, output_K.pb (+ pins.json):\n"
                           "the model's own test_data_set_* (IR) or its examples (NNAPI)");
    export_cmd->add_option("--format", expo.format, "Report format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();

    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      const int code = app.exit(e);
      return code == 0 ? kExitClean : kExitError;
    }
    if (verbose) spdlog::set_level(spdlog::level::debug);
    if (quiet) spdlog::set_level(spdlog::level::critical);
    lint.quiet = quiet;

    if (*lint_cmd) return run_lint(lint);
    if (*rules_cmd) return run_rules_list(rules_format);
    if (*merge_cmd) return run_merge(mergeo);
    if (*run_cmd) return run_exec(runo);
    if (*import_nnapi) {
      const ImportSummary s = import_nnapi_testmodels(import_files, import_out);
      for (const auto& e : s.errors) std::cerr << "condlint: error: " << term_safe(e) << "\n";
      std::cout << s.written.size() << " model(s) written to " << term_safe(import_out) << "\n";
      return s.errors.empty() ? kExitClean : kExitError;
    }
    if (*diff_cmd) return run_diff_cmd(diffo);
    if (*export_cmd) return run_export_cmd(expo);
    return kExitError;
  } catch (const std::exception& e) {
    std::cerr << "condlint: internal error: " << term_safe(e.what()) << "\n";
    return kExitError;
  }
}
