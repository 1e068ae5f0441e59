// condlint lint: models -> findings -> reports, with configuration, suppressions, baseline, shards and the cache.
#include "cli/cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <spdlog/spdlog.h>
#include <thread>

#include "exec/lint_exec.hpp"
#include "lint/cache.hpp"
#include "lint/config.hpp"
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

namespace condlint::cli {

namespace {

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

}  // namespace

Command add_lint_command(CLI::App& app, const Globals& g) {
  auto opts = std::make_shared<LintOptions>();
  LintOptions& lint = *opts;
  auto* lint_cmd = app.add_subcommand("lint", "Lint model files or directories (walked recursively)");
  const int argc = g.argc;
  char** const argv = g.argv;
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
  return {lint_cmd, [opts, &g] {
            opts->quiet = g.quiet;
            return run_lint(*opts);
          }};
}

}  // namespace condlint::cli
