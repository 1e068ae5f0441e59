#include "lint/session.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <spdlog/spdlog.h>
#include <thread>
#include <unordered_map>

#include "diff/live_check.hpp"
#include "exec/lint_exec.hpp"
#include "lint/cache.hpp"
#include "lint/config.hpp"
#include "loaders/loader.hpp"
#include "loaders/open_model.hpp"
#include "model/node_path.hpp"
#include "rules/support/targets.hpp"
#include "model/parallel.hpp"
#include "report/checks.hpp"
#include "report/json_read.hpp"
#include "report/merge.hpp"
#include "report/terminal.hpp"
#include "rules/engine.hpp"
#include "rules/fix.hpp"
#include "rules/readability.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define CONDLINT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CONDLINT_ASAN 1
#endif
#endif

namespace condlint::lint {

namespace {

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
      // A node glob in the spelling of condlint 0.2 (a '/' inside a name written as it is) still matches.
      for (const auto& s : cfg->suppressions)
        if (f.rule.substr(0, s.rule.size()) == s.rule && (s.path_glob.empty() || glob_match(s.path_glob, rel)) &&
            (s.node_glob.empty() || glob_match(s.node_glob, f.loc.node) ||
             (node_path::has_escapes(f.loc.node) && glob_match(s.node_glob, node_path::legacy(f.loc.node))))) {
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

// Gives a baseline entry the node path `now` and the fingerprint it has under that path (the occurrence number stays).
void rename_node(BaselineEntry& e, const std::string& now) {
  const size_t colon = e.fingerprint.find(':');
  e.finding.loc.node = now;
  e.fingerprint = fingerprint_hash(e.finding.rule, e.uri, now, e.finding.loc.pointer) +
                  (colon == std::string::npos ? std::string(":1") : e.fingerprint.substr(colon));
}

// Reads the results of an earlier SARIF run (the ones not already absent there).
bool read_baseline(const std::string& path, std::vector<BaselineEntry>& out, std::string& err) {
  std::string text;
  if (!read_file(path, text, err)) return false;
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !json_at(doc, "runs").is_array()) {
    err = "not a SARIF file";
    return false;
  }
  for (const auto& run : doc["runs"]) {
    if (!json_at(run, "results").is_array()) continue;
    for (const auto& r : run["results"]) {
      if (!r.is_object() || json_text(r, "baselineState") == "absent") continue;
      BaselineEntry e;
      e.finding.rule = json_text(r, "ruleId");
      Level l = Level::Warning;
      parse_level(json_text(r, "level", "warning"), l);
      e.finding.level = l;
      e.finding.message = json_text(json_at(r, "message"), "text");
      e.fingerprint = json_text(json_at(r, "partialFingerprints"), "primaryLocationLineHash");
      const auto& loc = json_first(r, "locations");
      const auto& phys = json_at(loc, "physicalLocation");
      e.uri = json_text(json_at(phys, "artifactLocation"), "uri");
      e.finding.loc.line = std::max(0, json_int(json_at(phys, "region"), "startLine"));
      e.finding.loc.column = std::max(0, json_int(json_at(phys, "region"), "startColumn"));
      e.finding.loc.node = json_text(json_first(loc, "logicalLocations"), "fullyQualifiedName");
      e.finding.loc.pointer = json_text(json_at(loc, "properties"), "jsonPointer");
      // A result whose node path is in the spelling of condlint 0.1 gets the fingerprint it has now, so that it still
      // matches (the occurrence number stays).
      if (const std::string now = node_path_from_legacy(e.finding.loc.node); now != e.finding.loc.node)
        rename_node(e, now);
      if (!e.finding.rule.empty()) out.push_back(std::move(e));
    }
  }
  return true;
}

// A baseline's relative URIs are relative to the directory it was made in, which need not be this run's: a baseline
// committed at the repository's root and used from a subfolder, or made in another clone. Its root is found among
// this run's working directory, the baseline's own directory and that directory's parents: the one under which most
// of the files it names exist (the working directory on a tie, or when none has any). Each entry then gets the URI
// its file has in this run, and the fingerprint it has under that URI (the occurrence number stays).
constexpr int kBaselineRootParents = 8;  // how many parents of the baseline's directory may be its root

void rebase_baseline(std::vector<BaselineEntry>& entries, const std::string& baseline_file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (ec) return;
  std::set<std::string> rel;  // the distinct relative paths the baseline names
  for (const auto& e : entries)
    if (auto p = relative_uri_path(e.uri)) rel.insert(*p);
  if (rel.empty()) return;
  std::vector<fs::path> roots{cwd};
  fs::path dir = fs::absolute(fs::path(baseline_file), ec).lexically_normal().parent_path();
  for (int i = 0; !ec && i <= kBaselineRootParents && !dir.empty(); ++i) {
    if (dir != cwd) roots.push_back(dir);
    if (dir == dir.root_path()) break;
    dir = dir.parent_path();
  }
  size_t best = 0, best_count = 0;
  for (size_t i = 0; i < roots.size(); ++i) {
    size_t n = 0;
    for (const auto& p : rel)
      if (std::error_code e2; fs::exists(roots[i] / p, e2)) ++n;
    if (n > best_count) best = i, best_count = n;
  }
  if (best == 0) return;  // the working directory: URIs as written
  for (auto& e : entries) {
    auto p = relative_uri_path(e.uri);
    if (!p) continue;
    const std::string now = artifact_uri((roots[best] / *p).lexically_normal().string());
    if (now == e.uri) continue;
    const size_t colon = e.fingerprint.find(':');
    e.uri = now;
    e.fingerprint = fingerprint_hash(e.finding.rule, e.uri, e.finding.loc.node, e.finding.loc.pointer) +
                    (colon == std::string::npos ? std::string(":1") : e.fingerprint.substr(colon));
  }
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
std::string run_identity(const SessionOptions& o, const std::vector<std::string>& files,
                         const std::map<std::string, std::optional<Config>>& configs) {
  Hasher h;  // the cache's content hash; fields separated by a NUL
  auto add = [&](std::string_view s) {
    h.update(s);
    h.update(std::string_view("\0", 1));
  };
  auto add_file = [&](const std::string& path) {
    add(path);
    add(hash_file(path).value_or("(unreadable)"));
  };
  add(CONDLINT_VERSION);
  for (const auto* list : {&o.enable, &o.disable}) {
    for (const auto& s : *list) add(s);
    add("|");
  }
  for (const auto* s : {&o.nnapi_target, &o.fail_on, &o.automation_id, &o.config_file}) add(*s);
  add(o.nnapi_target_given ? "nnapi-target-given" : "");
  for (const auto& t : o.targets) add("target=" + t);
  add(std::to_string(o.max_warnings));
  add(o.exec ? "exec" : "");
  if (!o.baseline.empty()) add_file(o.baseline);
  for (const auto& [path, c] : configs) add_file(path);
  for (const auto& f : files) add(f);
  return h.hex();
}

// The steps of one session, in the order run() takes them. State lives in the members; each step is one method.
class Session {
 public:
  explicit Session(const SessionOptions& o) : o_(o) {}

  SessionResult run() {
    never_ = o_.fail_on == "never";
    if (!never_ && !parse_level(o_.fail_on, threshold_)) return fail("--fail-on must be error, warning, note or never");
    base_.enable = o_.enable;
    base_.disable = o_.disable;
    base_.options.nnapi_target = o_.nnapi_target;
    base_.options.nnapi_target_given = o_.nnapi_target_given;
    for (const auto& spec : o_.targets) {
      Target t;
      std::string err;
      if (!targets::parse_target(spec, t, err)) return fail("--target: " + err);
      base_.options.targets.push_back(std::move(t));
    }
    collect();
    if (!find_configurations()) return fail(error_);
    take_share();
    run_live_checks();
    if (!open_cache()) return fail(error_);
    lint_files();
    log_cache_figures();
    if (!mark_baseline()) return fail(error_);
    SessionResult r;
    record_inputs(r.inputs);
    r.exit_code = exit_status();
    result_.run.exit_code = r.exit_code;
    result_.run.execution_successful = r.exit_code != 2;
    r.result = std::move(result_);
    return r;
  }

 private:
  SessionResult fail(std::string error) {
    SessionResult r;
    r.error = std::move(error);
    return r;
  }

  void collect() {
    inputs_ = collect_inputs(o_.paths);
    all_files_ = inputs_.files;
    result_.run.automation_id = o_.automation_id;
    for (const auto& e : inputs_.errors) {
      spdlog::error("{}", term_safe(e));
      result_.run.notifications.push_back(e);
      io_failure_ = true;
    }
  }

  // --config for every file, else the nearest .condlint.yaml above each model. Looked up for every file of the
  // unsharded run, so that each share reports the same rule configuration.
  bool find_configurations() {
    file_config_.assign(inputs_.files.size(), nullptr);
    std::map<std::string, std::string> by_dir;  // model directory -> config path ("" none)
    for (size_t i = 0; i < inputs_.files.size(); ++i) {
      std::string cfg = o_.config_file;
      if (cfg.empty()) {
        const std::string dir = std::filesystem::path(inputs_.files[i]).parent_path().string();
        auto it = by_dir.find(dir);
        if (it == by_dir.end()) it = by_dir.emplace(dir, find_config(inputs_.files[i])).first;
        cfg = it->second;
      }
      if (cfg.empty()) continue;
      if (!(file_config_[i] = config(cfg))) return false;
    }
    if (!o_.config_file.empty() && !config(o_.config_file)) return false;
    for (const auto& [path, c] : configs_)
      for (const auto& [id, line] : c->level_lines)
        for (const RuleDef* d : all_rules())
          if (d->id.substr(0, id.size()) == id)
            result_.run.overrides.push_back({std::string(d->id), c->levels.at(std::string(d->id)), path});
    for (const RuleDef* d : all_rules())
      if (!base_.is_on(*d)) result_.run.overrides.push_back({std::string(d->id), Level::Off, "command line"});
    return true;
  }

  const Config* config(const std::string& path) {
    auto it = configs_.find(path);
    if (it == configs_.end()) {
      std::string err;
      it = configs_.emplace(path, load_config(path, err)).first;
      if (!it->second) {
        error_ = "bad configuration: " + err;
        return nullptr;
      }
    }
    return it->second ? &*it->second : nullptr;
  }

  void take_share() {
    keep_shard(inputs_, std::max(1, o_.shard_index), std::max(1, o_.shard_count));
    for (size_t i = 0; i < inputs_.files.size(); ++i) file_config_[i] = file_config_[inputs_.positions[i]];
    file_config_.resize(inputs_.files.size());
#if !defined(CONDLINT_ASAN)
    skip_loader_teardown(inputs_.files.size() == 1);  // one model: its scratch memory goes back with the process
#endif
    if (o_.shard_count <= 0) return;
    ShardInfo sh;
    sh.index = o_.shard_index;
    sh.count = o_.shard_count;
    sh.total_files = all_files_.size();
    sh.input_errors = inputs_.errors.size();
    sh.fail_on = o_.fail_on;
    sh.max_warnings = o_.max_warnings;
    sh.run = run_identity(o_, all_files_, configs_);
    result_.run.shard = std::move(sh);
  }

  // The result cache: not with the outputs that read the models themselves (the HTML report, --dump-types). A
  // share's page data needs the conditionals' summaries only, which the cache keeps.
  bool open_cache() {
    if (o_.cache_dir.empty()) return true;
    if (o_.html || o_.value_types) {
      spdlog::warn("--cache is not used with an HTML report or --dump-types: they read the models themselves");
      return true;
    }
    cache_.emplace(o_.cache_dir);
    if (!cache_->error().empty()) {
      error_ = cache_->error();
      return false;
    }
    // Everything besides a model's bytes (and the files it reads) that its findings depend on.
    std::string run_context =
        "nnapi-target=" + o_.nnapi_target + (o_.nnapi_target_given ? "|given" : "") + (o_.exec ? "|exec" : "");
    for (const auto& t : o_.targets) run_context += "|target=" + t;
    run_context += live_context_;
    for (const auto* list : {&o_.enable, &o_.disable}) {
      run_context += "|";
      for (const auto& id : *list) run_context += id + ",";
    }
    std::map<const Config*, std::string> config_context;
    for (const auto& [path, c] : configs_)
      if (c) config_context[&*c] = "|config=" + path + "|" + hash_file(path).value_or("unreadable");
    cache_context_.resize(inputs_.files.size());
    for (size_t i = 0; i < inputs_.files.size(); ++i)
      cache_context_[i] = run_context + (file_config_[i] ? config_context[file_config_[i]] : "");
    return true;
  }

  // Live target checks (`--target` where the runtime is installed): the files each target runtime reads, loaded into
  // it in one child process per runtime (diff/live_check), before the rules run. A runtime that is not installed,
  // or whose installed release is older than a target's range, is said once, as a note, and the static profile
  // alone judges for it.
  void run_live_checks() {
    const size_t n = inputs_.files.size();
    live_.assign(n, {});
    std::map<std::string, std::vector<size_t>> files_of;  // runtime -> files
    std::map<std::string, std::string> older_than;        // runtime -> a target's first release
    for (size_t i = 0; i < n; ++i) {
      RuleSelection sel;
      const auto fmt = sniff_format(inputs_.files[i]);
      if (!fmt || !selection_for(i, sel)) continue;
      for (const auto& t : sel.options.targets) {
        if (!diff::has_live_check(t.runtime) || targets::targets_for(sel.options, t.runtime, *fmt).empty()) continue;
        auto& v = files_of[t.runtime];
        if (v.empty() || v.back() != i) v.push_back(i);
        if (!t.from.empty()) older_than[t.runtime] = t.from;
      }
    }
    // What each runtime may be given of a file: a view of the files condlint checked, or nothing when condlint's own
    // checks refuse it (unreadable, or reading outside its folder) — decided once per file, by the front door.
    std::map<size_t, diff::ViewPlan> plans;
    for (const auto& [runtime, which] : files_of)
      for (size_t i : which) {
        if (plans.count(i)) continue;
        OpenOptions open;
        open.verdict = unreadable_reason;
        LoadResult lr = open_model(inputs_.files[i], open);
        diff::ViewPlan plan = lr.model ? diff::plan_view(*lr.model) : diff::plan_file(inputs_.files[i]);
        if (!lr.model) plan.refused = lr.io_error.empty() ? "it cannot be read" : lr.io_error;
        plans.emplace(i, std::move(plan));
      }
    for (const auto& [runtime, which] : files_of) {
      std::vector<diff::ViewPlan> files;
      for (size_t i : which) files.push_back(plans.at(i));
      const auto t0 = std::chrono::steady_clock::now();
      const diff::LiveCheck lc = diff::check_live(runtime, files);
      for (size_t k = 0; k < which.size(); ++k)
        if (!lc.verdicts[k].not_given.empty())
          spdlog::warn("--target {}: {} was not given to {}: {}", runtime, term_safe(inputs_.files[which[k]]),
                       lc.name, term_safe(lc.verdicts[k].not_given));
      if (lc.processes == 0 && lc.available) continue;  // nothing was given to it
      if (!lc.available) {
        spdlog::warn("--target {}: {} is not installed here ({}); the static profile alone judges", runtime, lc.name,
                     term_safe(lc.unavailable));
        continue;
      }
      const std::string release = lc.version.substr(0, lc.version.find('-'));
      if (auto it = older_than.find(runtime);
          it != older_than.end() && targets::compare_versions(release, it->second) < 0) {
        spdlog::warn(
            "--target {}: the installed {} {} is older than the target's range; the static profile "
            "alone judges",
            runtime, lc.name, term_safe(release));
        continue;
      }
      live_context_ += "|live=" + runtime + "@" + lc.version;
      spdlog::debug("{} {}: {} models loaded in {} process(es), {:.0f} ms", lc.name, term_safe(lc.version),
                    files.size(), lc.processes,
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      for (size_t k = 0; k < which.size(); ++k)
        if (lc.verdicts[k].refused)
          live_[which[k]].push_back(LiveRefusal{runtime, lc.version, lc.verdicts[k].stage, lc.verdicts[k].message});
    }
  }

  // The rules for one file: the command line's selection, the levels of its configuration, its ignores. False
  // when the configuration ignores the file altogether.
  bool selection_for(size_t i, RuleSelection& sel) const {
    sel = base_;
    const Config* cfg = file_config_[i];
    if (!cfg) return true;
    sel.levels = cfg->levels;
    if (o_.targets.empty()) sel.options.targets = cfg->targets;  // --target replaces the configuration's targets
    const std::string rel = config_relative(*cfg, inputs_.files[i]);
    for (const auto& ig : cfg->ignores)
      if (glob_match(ig.glob, rel)) {
        if (ig.rules.empty()) return false;
        sel.disable.insert(sel.disable.end(), ig.rules.begin(), ig.rules.end());
      }
    return true;
  }

  void lint_file(size_t i) {
    const std::string& path = inputs_.files[i];
    RuleSelection sel;
    if (!selection_for(i, sel)) {
      skipped_[i] = 1;
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    FileResult& fr = files_[i];
    fr.path = path;
    ResultCache::Probe probe;
    std::optional<CachedResult> hit;
    if (cache_) {
      hit = cache_->find(path, cache_context_[i], probe, o_.conditionals);
      fr.size = probe.size;  // the cache took the file's status: no second stat
    }
    if (fr.size < 0) {
      std::error_code ec;
      const auto size = std::filesystem::file_size(path, ec);
      if (!ec) fr.size = static_cast<int64_t>(size);
    }
    if (hit) {
      // Labelled as open_model would read it: by content first (the entry vouches for these bytes).
      if (auto fmt = sniff_format(path)) fr.format = std::string(to_string(*fmt));
      read_[i] = std::move(probe.dependencies);
      fr.findings = std::move(hit->findings);
      fr.suppressed = std::move(hit->suppressed);
      if (o_.conditionals) fr.conditionals = std::move(hit->conditionals);
      compute_fingerprints(fr);
      return;
    }
    // The cache vouches for the bytes the loader read, whatever happens to the file while they are judged.
    probe.content.clear();
    // The front door: with --exec the executor's part of the original is kept (the readability verdict is taken
    // by lint_exec, once, for a model with golden data only).
    OpenOptions open;
    open.keep_for_exec = o_.exec;
    open.content_hash = cache_ ? &probe.content : nullptr;
    LoadResult lr = open_model(path, open);
    if (lr.format) fr.format = std::string(to_string(*lr.format));
    if (!lr.model) {
      fr.io_error = lr.io_error;
      failed_[i] = 1;
      spdlog::error("{}: {}", term_safe(path), term_safe(lr.io_error));
      return;
    }
    judge(i, *lr.model, sel, probe);
    const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    spdlog::debug("{}: {} graphs, {} conditionals, {} findings in {:.1f} ms", term_safe(path), lr.model->graphs.size(),
                  lr.model->conditionals.size(), fr.findings.size(), ms);
    // With a single model, its memory goes back with the process: tearing a large model down piece by piece
    // costs a tenth of the run and helps nobody.
#if !defined(CONDLINT_ASAN)  // LeakSanitizer would rightly report it
    if (inputs_.files.size() == 1) (void)lr.model.release();
#endif
  }

  // Rules, suppressions, the cache entry and what the HTML report and --dump-types read, for a loaded model.
  void judge(size_t i, Model& model, const RuleSelection& sel, ResultCache::Probe& probe) {
    const std::string& path = inputs_.files[i];
    FileResult& fr = files_[i];
    exec::ModelResult exec_run;  // kept for the HTML report's per-branch tables
    if (o_.exec) exec::attach_exec_results(model, path, {}, o_.conditionals ? &exec_run : nullptr);
    model.live_refusals = live_[i];
    fr.findings = run_rules(model, sel);
    drop_live_repeats(fr.findings);
    attach_text_fixes(model, path, fr.findings);
    if (o_.value_types) fr.value_types = collect_value_types(model);
    apply_suppressions(model, file_config_[i], fr);
    compute_code_point_columns(fr);
    std::vector<std::string> deps(model.sources.begin(), model.sources.end());
    if (o_.exec)
      for (auto& d : golden_data_dependencies(path)) deps.push_back(std::move(d));
    if (o_.conditionals) {
      std::vector<Finding> all = fr.findings;
      for (const auto& s : fr.suppressed) all.push_back(s.finding);
      fr.conditionals = summarize_conditionals(model, all);
    }
    if (cache_)
      cache_->store(probe, cache_context_[i], deps,
                    CachedResult{fr.findings, fr.suppressed, o_.conditionals, fr.conditionals});
    read_[i] = std::move(deps);
    if (o_.conditionals && !exec_run.model.empty()) attach_checks(fr, checks_from_run(exec_run));
    compute_fingerprints(fr);
  }

  // An IR's fixable findings get their fix's edits of the XML (SARIF's `fixes`), made by the rule's fixer from the
  // file as it is now (a fix the fixer cannot make leaves the finding without edits).
  static void attach_text_fixes(const Model& model, const std::string& path, std::vector<Finding>& findings) {
    if (model.format != Format::IR ||
        std::none_of(findings.begin(), findings.end(), [](const Finding& f) { return f.fixable == Fixable::Safe; }))
      return;
    std::string text;
    if (std::string err; !read_file(path, text, err, max_model_file_bytes())) return;
    for (Finding& f : findings) {
      const FixerDef* fixer = f.fixable == Fixable::Safe ? find_fixer(f.rule) : nullptr;
      std::string why;
      const std::optional<Fix> fix = fixer ? fixer->make(model, f, text, why) : std::nullopt;
      if (!fix) continue;
      for (const TextEdit& e : fix->text) f.fix_edits.push_back({e.begin, e.end, e.replacement});
      std::sort(f.fix_edits.begin(), f.fix_edits.end(),
                [](const FixEdit& a, const FixEdit& b) { return a.begin < b.begin; });
      f.fix_description = fix->description;
    }
  }

  // A refusal the static profile already reports (ORT001, OV001) is one root cause: the live finding of the same
  // runtime goes.
  static void drop_live_repeats(std::vector<Finding>& findings) {
    for (const auto& pair : {std::pair<const char*, const char*>{"ORT001", "ORT002"}, {"OV001", "OV002"}}) {
      const std::string stat = pair.first, live = pair.second;
      if (std::any_of(findings.begin(), findings.end(), [&](const Finding& f) { return f.rule == stat; }))
        findings.erase(
            std::remove_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.rule == live; }),
            findings.end());
    }
  }

  void lint_files() {
    const size_t n = inputs_.files.size();
    files_.assign(n, FileResult{});
    skipped_.assign(n, 0);
    failed_.assign(n, 0);
    read_.assign(n, {});
    unsigned jobs = o_.jobs ? o_.jobs : std::max(1u, std::thread::hardware_concurrency());
    jobs = static_cast<unsigned>(std::min<size_t>(jobs, std::max<size_t>(1, n)));
    Progress progress(n, o_.progress && n > 4);
    // Files in parallel take the cores; one file at a time may use a second core for its own steps.
    set_parallel(jobs <= 1);
    if (jobs <= 1) {
      for (size_t i = 0; i < n; ++i) {
        lint_file(i);
        progress.tick();
      }
    } else {
      std::atomic<size_t> next{0};
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < jobs; ++t)
        pool.emplace_back([&] {
          for (size_t i; (i = next++) < n;) {
            try {
              lint_file(i);
            } catch (const std::exception& e) {
              files_[i].path = inputs_.files[i];
              files_[i].io_error = std::string("internal error: ") + e.what();
              failed_[i] = 1;
            }
            progress.tick();
          }
        });
      for (auto& th : pool) th.join();
    }
    for (size_t i = 0; i < n; ++i) {
      if (skipped_[i]) {
        ++result_.run.ignored_files;
        continue;
      }
      if (failed_[i]) {
        io_failure_ = true;
        result_.run.notifications.push_back(files_[i].path + ": " + files_[i].io_error);
      }
      result_.files.push_back(std::move(files_[i]));
      if (result_.run.shard) result_.run.shard->positions.push_back(inputs_.positions[i]);
    }
  }

  // Every file the session read, so that no report is written onto one: the models, the files each read (.bin,
  // external data, Blobs, golden data), the configurations and the baseline.
  void record_inputs(io::InputFiles& in) const {
    for (size_t i = 0; i < inputs_.files.size(); ++i) {
      in.add(inputs_.files[i], "a model");
      for (const auto& d : read_[i]) in.add(d, "a file the model " + inputs_.files[i] + " reads");
    }
    for (const auto& [path, c] : configs_) in.add(path, "a configuration");
    if (!o_.baseline.empty()) in.add(o_.baseline, "the baseline");
  }

  void log_cache_figures() const {
    if (!cache_) return;
    const auto& st = cache_->stats();
    spdlog::debug(
        "cache {}: {} results reused, {} files judged ({} entries stale or damaged), {} stored, {} not "
        "storable (a file outside the model's directory)",
        term_safe(o_.cache_dir), st.reused.load(), st.judged.load(), st.rejected.load(), st.stored.load(),
        st.not_stored.load());
    if (st.write_errors > 0)
      spdlog::warn("cache {}: {} results could not be written", term_safe(o_.cache_dir), st.write_errors.load());
  }

  // Baseline: new / unchanged here, absent for what disappeared.
  bool mark_baseline() {
    if (o_.baseline.empty()) return true;
    std::vector<BaselineEntry> old;
    std::string err;
    if (!read_baseline(o_.baseline, old, err)) {
      error_ = "cannot read the baseline " + o_.baseline + ": " + err;
      return false;
    }
    rebase_baseline(old, o_.baseline);
    result_.run.has_baseline = true;
    // condlint 0.2 wrote a '/' inside a node name as it is ("main//model/If_1"); an entry in that spelling names the
    // node whose escaped path (model/node_path.hpp) it is the legacy spelling of, when one result has it.
    std::unordered_map<std::string, std::string> now_of;
    auto spelled = [&](const Finding& f) {
      if (node_path::has_escapes(f.loc.node)) now_of.emplace(node_path::legacy(f.loc.node), f.loc.node);
    };
    for (const auto& f : result_.files) {
      for (const auto& x : f.findings) spelled(x);
      for (const auto& x : f.suppressed) spelled(x.finding);
    }
    if (!now_of.empty())
      for (auto& e : old)
        if (auto it = now_of.find(e.finding.loc.node); it != now_of.end()) rename_node(e, it->second);
    std::multiset<std::string> keys;
    for (const auto& e : old) keys.insert(e.finding.rule + "|" + e.fingerprint);
    std::multiset<std::string> current;
    auto mark = [&](const Finding& f, ResultInfo& info) {
      const std::string k = f.rule + "|" + info.fingerprint;
      current.insert(k);
      info.baseline = keys.count(k) ? "unchanged" : "new";
    };
    for (auto& f : result_.files) {
      for (size_t i = 0; i < f.findings.size(); ++i) mark(f.findings[i], f.info[i]);
      for (auto& s : f.suppressed) mark(s.finding, s.info);
    }
    // A share reports as absent only what no other share can have: results in its own files or in files that are
    // not models of the run; `condlint merge` drops those that another share matched.
    std::set<std::string> others;
    if (result_.run.shard) {
      for (const auto& p : all_files_) others.insert(artifact_uri(p));
      for (const auto& p : inputs_.files) others.erase(artifact_uri(p));
    }
    for (size_t i = 0; i < old.size(); ++i) {
      const BaselineEntry& e = old[i];
      if (current.count(e.finding.rule + "|" + e.fingerprint)) {
        if (result_.run.shard) result_.run.shard->matched.push_back(i);
      } else if (!others.count(e.uri)) {
        result_.run.absent.push_back(AbsentResult{e.finding, e.uri, e.fingerprint, i});
      }
    }
    return true;
  }

  // Suppressed results never count; with a baseline only new ones do.
  int exit_status() const {
    size_t failing = 0, warnings = 0;
    for (const auto& f : result_.files)
      for (size_t i = 0; i < f.findings.size(); ++i) {
        if (result_.run.has_baseline && i < f.info.size() && f.info[i].baseline != "new") continue;
        if (!never_ && f.findings[i].level >= threshold_) ++failing;
        if (f.findings[i].level == Level::Warning) ++warnings;
      }
    if (!io_failure_ && o_.max_warnings >= 0 && warnings > static_cast<size_t>(o_.max_warnings))
      spdlog::warn("{} warnings, more than --max-warnings {}", warnings, o_.max_warnings);
    return lint_exit_code(io_failure_, failing, warnings, o_.max_warnings);
  }

  const SessionOptions& o_;
  Level threshold_ = Level::Error;
  bool never_ = false, io_failure_ = false;
  RuleSelection base_;
  Collected inputs_;
  std::vector<std::string> all_files_;                    // the unsharded run's files
  std::map<std::string, std::optional<Config>> configs_;  // config path -> parsed
  std::vector<const Config*> file_config_;
  std::optional<ResultCache> cache_;
  std::vector<std::string> cache_context_;
  std::vector<FileResult> files_;
  std::vector<char> skipped_, failed_;
  std::vector<std::vector<std::string>> read_;  // per file: what it read besides itself (dependencies)
  std::vector<std::vector<LiveRefusal>> live_;  // per file: the refusals of the runtimes it was loaded into
  std::string live_context_;                    // the installed runtimes the live checks used (the cache's context)
  RunResult result_;
  std::string error_;
};

}  // namespace

bool parse_shard(const std::string& s, int& k, int& n) {
  const auto slash = s.find('/');
  if (slash == std::string::npos) return false;
  try {
    size_t a = 0, b = 0;
    k = std::stoi(s.substr(0, slash), &a);
    n = std::stoi(s.substr(slash + 1), &b);
    return a == slash && b == s.size() - slash - 1 && k >= 1 && n >= 1 && k <= n && n <= kMaxShards;
  } catch (const std::exception&) {
    return false;
  }
}

bool valid_rule_selector(const std::string& s) {
  for (const RuleDef* r : all_rules())
    if (r->id.substr(0, s.size()) == s) return true;
  return false;
}

SessionResult run_session(const SessionOptions& o) { return Session(o).run(); }

}  // namespace condlint::lint
