// Merging the reports of the shares of a sharded lint. Works on the documents as written (ordered JSON), moving
// whole artifacts and results: nothing is re-derived from the models, so the merge needs neither the model files
// nor the working directory the shares ran in, and re-serialising gives the unsharded run's bytes.
#include "report/merge.hpp"
#include "report/html_data.hpp"
#include "report/json_read.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace condlint {

namespace {

using json = nlohmann::ordered_json;

struct Share {
  const ShardReport* src = nullptr;
  json doc;
  const json* block = nullptr;  // the ShardInfo bookkeeping
  int k = 0, n = 0;
};

// "K/N" with 1 <= K <= N <= kMaxShards -> k, n; false when it is not that.
bool parse_k_of_n(const std::string& s, int& k, int& n) {
  const auto slash = s.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 >= s.size()) return false;
  try {
    size_t a = 0, b = 0;
    k = std::stoi(s.substr(0, slash), &a);
    n = std::stoi(s.substr(slash + 1), &b);
    return a == slash && b == s.size() - slash - 1 && k >= 1 && k <= n && n <= kMaxShards;
  } catch (const std::exception&) {
    return false;
  }
}

// Deeper than any report condlint writes (SARIF nests about ten levels): a deeper document is not a share, and
// writing its values back out would recurse once per level.
constexpr int kMaxDepth = 64;
struct TooDeep {};

// Reads one share and checks that it is a complete condlint report of the same version with shard bookkeeping.
std::string open_share(const ShardReport& r, Share& s, std::string& kind) {
  s.src = &r;
  try {
    s.doc = json::parse(r.text, [](int depth, json::parse_event_t, json&) {
      if (depth > kMaxDepth) throw TooDeep{};
      return true;
    });
  } catch (const json::exception& e) {
    return r.name + ": not a complete report (truncated or not JSON): " + e.what();
  } catch (const TooDeep&) {
    return r.name + ": nested deeper than " + std::to_string(kMaxDepth) + " levels: not a condlint report";
  }
  const json* version = nullptr;
  if (const json* runs = json_find(s.doc, "runs")) {
    kind = "sarif";
    if (!runs->is_array() || runs->size() != 1) return r.name + ": a condlint SARIF report has exactly one run";
    const json& run = (*runs)[0];
    const json* tool = json_find(run, "tool");
    const json* driver = tool ? json_find(*tool, "driver") : nullptr;
    const json* name = driver ? json_find(*driver, "name") : nullptr;
    if (!name || *name != "condlint") return r.name + ": not a condlint SARIF report";
    version = json_find(*driver, "version");
    if (const json* props = json_find(run, "properties")) s.block = json_find(*props, "condlint.shard");
  } else if (json_find(s.doc, "files") && json_find(s.doc, "tool")) {
    kind = "json";
    const json* name = json_find(s.doc["tool"], "name");
    if (!name || *name != "condlint") return r.name + ": not a condlint JSON report";
    version = json_find(s.doc["tool"], "version");
    s.block = json_find(s.doc, "shard");
  } else {
    return r.name + ": neither a condlint SARIF nor a condlint JSON report";
  }
  if (!version || !version->is_string() || *version != CONDLINT_VERSION)
    return r.name + ": written by condlint " + (version && version->is_string() ? version->get<std::string>() : "?") +
           ", this is condlint " + CONDLINT_VERSION + ": lint every share with the same condlint";
  if (!s.block || !s.block->is_object())
    return r.name + ": not the report of a share (written without `lint --shard K/N`)";
  const json* shard = json_find(*s.block, "shard");
  if (!shard || !shard->is_string() || !parse_k_of_n(shard->get<std::string>(), s.k, s.n)) {
    const std::string said = shard && shard->is_string() ? shard->get<std::string>() : std::string();
    return r.name + ": its shard bookkeeping is damaged (no K/N with 1 <= K <= N <= " + std::to_string(kMaxShards) +
           (said.empty() ? ")" : ", '" + (said.size() > 40 ? said.substr(0, 40) + "..." : said) + "')");
  }
  for (const char* key : {"run", "failOn"})
    if (const json* v = json_find(*s.block, key); !v || !v->is_string())
      return r.name + ": its shard bookkeeping is damaged (no " + key + ")";
  // Counts are read as size_t and maxWarnings as an int (-1: no limit): anything outside that is not a share's.
  for (const char* key : {"totalFiles", "inputErrors"})
    if (const json* v = json_find(*s.block, key); !v || !v->is_number_unsigned())
      return r.name + ": its shard bookkeeping is damaged (no " + key + ")";
  const json* mw = json_find(*s.block, "maxWarnings");
  if (!mw || !mw->is_number_integer()) return r.name + ": its shard bookkeeping is damaged (no maxWarnings)";
  if (mw->is_number_unsigned() ? mw->get<uint64_t>() > static_cast<uint64_t>(INT_MAX) : mw->get<int64_t>() < -1)
    return r.name + ": its shard bookkeeping is damaged (maxWarnings " + mw->dump() + " is not -1 or 0 to " +
           std::to_string(INT_MAX) + ")";
  return {};
}

// The shares make one run: same kind, same N, same run identity, each K exactly once.
std::string check_complete(const std::vector<Share>& shares) {
  const Share& a = shares.front();
  std::map<int, const Share*> seen;
  for (const Share& s : shares) {
    if (s.n != a.n)
      return s.src->name + " is share " + std::to_string(s.k) + " of " + std::to_string(s.n) + ", " + a.src->name +
             " one of " + std::to_string(a.n);
    if ((*s.block)["run"] != (*a.block)["run"] || (*s.block)["totalFiles"] != (*a.block)["totalFiles"])
      return s.src->name + " and " + a.src->name +
             " are shares of different runs (the files, the options or the configuration differ)";
    if (auto [it, fresh] = seen.emplace(s.k, &s); !fresh)
      return "share " + std::to_string(s.k) + "/" + std::to_string(s.n) + " is given twice: " + it->second->src->name +
             " and " + s.src->name;
  }
  // Every K is in 1..N and given once, so the count of missing shares is known before any is named; the message
  // names the first few.
  const size_t absent = static_cast<size_t>(a.n) - seen.size();
  if (absent == 0) return {};
  constexpr size_t kNamed = 5;
  std::string missing;
  size_t named = 0;
  for (int k = 1; k <= a.n && named < kNamed; ++k)
    if (!seen.count(k)) missing += (named++ ? ", " : "") + std::to_string(k) + "/" + std::to_string(a.n);
  if (absent > named) missing += " and " + std::to_string(absent - named) + " more";
  return "share(s) " + missing + " missing (" + std::to_string(absent) + " of " + std::to_string(a.n) +
         "): a merge of fewer shares would be a smaller report";
}

bool level_at_least(const json& level, const std::string& fail_on) {
  if (fail_on == "never" || !level.is_string()) return false;
  Level l = Level::Off, t = Level::Error;
  return parse_level(level.get<std::string>(), l) && parse_level(fail_on, t) && l >= t;
}

// Counts a result (SARIF) or finding (JSON) for the exit code, as `lint` does: suppressed and absent results never
// count, and with a baseline only new ones fail.
void count(const json& r, bool baseline, const ExitPolicy& p, size_t& failing, size_t& warnings) {
  if (json_find(r, "suppressions")) return;
  const json* state = json_find(r, "baselineState");
  if (state && *state == "absent") return;
  if (baseline && !(state && *state == "new")) return;
  const json* level = json_find(r, "level");
  if (!level) return;
  if (level_at_least(*level, p.fail_on)) ++failing;
  if (*level == "warning") ++warnings;
}

ExitPolicy recorded_policy(const Share& s) {
  return ExitPolicy{(*s.block)["failOn"].get<std::string>(), (*s.block)["maxWarnings"].get<int>()};
}

std::string damaged(const Share& s, const std::string& what) {
  return s.src->name + ": inconsistent with its own shard bookkeeping (" + what + "); was it edited or cut short?";
}

// The page data of one file of a share (what `merge --html` draws from), read into `f`; a share without it, or with
// damaged data, leaves the reason in out.page_error (the merged report itself does not need it).
void read_page(const json* page, const Share& s, FileResult& f, MergeResult& out) {
  if (!out.page_error.empty()) return;
  bool panels = false;
  std::string err;
  if (!page) out.page_error = s.src->name + ": carries no page data (written by a lint without it)";
  else if (!html_file_from_data(*page, f, panels, err))
    out.page_error = s.src->name + ": damaged page data (" + err + ")";
  else if (!panels)  // every share summarizes its conditionals (with --cache, the cache keeps them)
    out.page_error = s.src->name + ": damaged page data (no conditional panels)";
}

// The run's part of the page: what the unsharded lint's page says of the run.
void page_run(const json& block, bool baseline, size_t absent, MergeResult& out) {
  out.results.run.has_baseline = baseline;
  out.results.run.absent.resize(absent);
  out.results.run.exit_code = lint_exit_code(out.io_failure, out.failing, out.warnings, out.policy.max_warnings);
  if (const json* c = json_find(block, "conditionals");
      out.page_error.empty() && !(c && c->is_boolean() && c->get<bool>()))
    out.page_error = "the shard bookkeeping says the shares summarized no conditionals";
}

struct FileBlock {
  size_t position = 0;
  json artifact;
  std::vector<json> results;
  std::optional<json> notification;
  FileResult page;
};

std::string merge_sarif(std::vector<Share>& shares, const std::optional<ExitPolicy>& policy, MergeResult& out) {
  const size_t total = (*shares.front().block)["totalFiles"].get<size_t>();
  std::vector<FileBlock> files;
  std::set<size_t> positions;
  std::map<size_t, json> absent;  // baseline index -> the absent result
  std::set<size_t> matched;
  const Share* first = nullptr;
  for (Share& s : shares) {
    if (s.k == 1) first = &s;
    json& run = s.doc["runs"][0];
    const json& b = *s.block;
    const json* jfiles = json_find(b, "files");
    const json* arts = json_find(run, "artifacts");
    const json* results = json_find(run, "results");
    const json* invs = json_find(run, "invocations");
    if (!jfiles || !jfiles->is_array() || !arts || !arts->is_array() || !results || !results->is_array() || !invs ||
        !invs->is_array() || invs->size() != 1)
      return damaged(s, "no files, artifacts, results or invocation");
    if (jfiles->size() != arts->size()) return damaged(s, "files and artifacts differ in number");
    const json& inv = (*invs)[0];
    const json* notes = json_find(inv, "toolExecutionNotifications");
    const size_t n_notes = notes && notes->is_array() ? notes->size() : 0;
    size_t next_note = b["inputErrors"].get<size_t>(), next_result = 0;
    if (next_note > n_notes) return damaged(s, "fewer notifications than input errors");
    for (size_t i = 0; i < jfiles->size(); ++i) {
      const json& jf = (*jfiles)[i];
      const json* pos = json_find(jf, "position");
      const json* nres = json_find(jf, "results");
      if (!pos || !pos->is_number_unsigned() || !nres || !nres->is_number_unsigned()) return damaged(s, "a file entry");
      FileBlock fb;
      fb.position = pos->get<size_t>();
      if (fb.position >= total || !positions.insert(fb.position).second)
        return damaged(s, "file position " + std::to_string(fb.position) + " out of range or given twice");
      fb.artifact = (*arts)[i];
      read_page(json_find(jf, "page"), s, fb.page, out);
      const size_t n = nres->get<size_t>();
      if (next_result + n > results->size()) return damaged(s, "fewer results than its files announce");
      for (size_t j = 0; j < n; ++j) fb.results.push_back((*results)[next_result + j]);
      next_result += n;
      if (const json* nt = json_find(jf, "notified"); nt && *nt == true) {
        if (next_note >= n_notes) return damaged(s, "fewer notifications than failed files");
        fb.notification = (*notes)[next_note++];
      }
      files.push_back(std::move(fb));
    }
    if (next_note != n_notes) return damaged(s, "more notifications than failed files");
    const json* abs = json_find(b, "absentBaseline");
    const json* mat = json_find(b, "matchedBaseline");
    if (!abs || !abs->is_array() || !mat || !mat->is_array()) return damaged(s, "no baseline bookkeeping");
    if (next_result + abs->size() != results->size()) return damaged(s, "results and absent baseline results differ");
    for (size_t j = 0; j < abs->size(); ++j) {
      if (!(*abs)[j].is_number_unsigned()) return damaged(s, "an absent baseline index");
      absent.emplace((*abs)[j].get<size_t>(), (*results)[next_result + j]);
    }
    for (const json& m : *mat)
      if (m.is_number_unsigned()) matched.insert(m.get<size_t>());
    const json* ov = json_find(inv, "ruleConfigurationOverrides");
    const json* ov1 = json_find(shares.front().doc["runs"][0]["invocations"][0], "ruleConfigurationOverrides");
    if ((ov == nullptr) != (ov1 == nullptr) || (ov && *ov != *ov1))
      return s.src->name + " and " + shares.front().src->name + " ran with different rule configurations";
  }
  std::sort(files.begin(), files.end(), [](const FileBlock& a, const FileBlock& b) { return a.position < b.position; });

  const Share& base = *first;
  const json& b1 = *base.block;
  const bool baseline = json_find(b1, "baseline") && b1["baseline"] == true;
  json run = base.doc["runs"][0];
  json artifacts = json::array(), results = json::array(), notifications = json::array();
  const json& inv1 = run["invocations"][0];
  const size_t input_errors = b1["inputErrors"].get<size_t>();
  if (const json* notes = json_find(inv1, "toolExecutionNotifications"))
    for (size_t i = 0; i < input_errors; ++i) notifications.push_back((*notes)[i]);
  bool io_failure = input_errors > 0;
  for (size_t i = 0; i < files.size(); ++i) {
    FileBlock& fb = files[i];
    out.results.files.push_back(std::move(fb.page));
    artifacts.push_back(std::move(fb.artifact));
    for (json& r : fb.results) {
      // A result in the model's own file names its artifact by index; one in another file (a .bin) has none.
      if (json* locs = r.contains("locations") ? &r["locations"] : nullptr; locs && locs->is_array() && !locs->empty())
        if (json& loc = (*locs)[0]; loc.contains("physicalLocation") &&
                                    loc["physicalLocation"].contains("artifactLocation") &&
                                    loc["physicalLocation"]["artifactLocation"].contains("index"))
          loc["physicalLocation"]["artifactLocation"]["index"] = i;
      results.push_back(std::move(r));
    }
    if (fb.notification) {
      notifications.push_back(std::move(*fb.notification));
      io_failure = true;
    }
  }
  for (auto& [index, r] : absent)
    if (!matched.count(index)) results.push_back(std::move(r));

  // The exit code as the unsharded run computes it, and the counts under the policy asked for.
  const ExitPolicy recorded = recorded_policy(base);
  size_t failing = 0, warnings = 0;
  for (const json& r : results) count(r, baseline, recorded, failing, warnings);
  const int code = lint_exit_code(io_failure, failing, warnings, recorded.max_warnings);
  out.policy = policy.value_or(recorded);
  out.failing = out.warnings = 0;
  for (const json& r : results) count(r, baseline, out.policy, out.failing, out.warnings);
  out.io_failure = io_failure;
  size_t absent_now = 0;
  for (const json& r : results) absent_now += json_find(r, "baselineState") && r["baselineState"] == "absent";
  page_run(b1, baseline, absent_now, out);

  json inv = inv1;
  inv["executionSuccessful"] = code != 2;
  inv["exitCode"] = code;
  if (notifications.empty()) inv.erase("toolExecutionNotifications");
  else inv["toolExecutionNotifications"] = std::move(notifications);
  run["invocations"] = json::array({std::move(inv)});
  run["artifacts"] = std::move(artifacts);
  run["results"] = std::move(results);
  run.erase("properties");
  json doc = base.doc;
  doc["runs"] = json::array({std::move(run)});
  out.text = doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  return {};
}

std::string merge_json(std::vector<Share>& shares, const std::optional<ExitPolicy>& policy, MergeResult& out) {
  const size_t total = (*shares.front().block)["totalFiles"].get<size_t>();
  struct Entry {
    size_t position = 0;
    json file;
    FileResult page;
  };
  std::vector<Entry> files;
  std::set<size_t> positions, absent, matched;  // baseline results by index, for the page's count of absent ones
  const Share* first = nullptr;
  for (Share& s : shares) {
    if (s.k == 1) first = &s;
    for (const auto& [key, into] : {std::pair{"absentBaseline", &absent}, std::pair{"matchedBaseline", &matched}})
      if (const json* list = json_find(*s.block, key); list && list->is_array())
        for (const json& i : *list)
          if (i.is_number_unsigned()) into->insert(i.get<size_t>());
    const json* pages = json_find(*s.block, "pages");
    if (pages && (!pages->is_array() || pages->size() != s.doc["files"].size()))
      return damaged(s, "pages and files differ in number");
    const json* pos = json_find(*s.block, "positions");
    const json& jfiles = s.doc["files"];
    if (!pos || !pos->is_array() || !jfiles.is_array() || pos->size() != jfiles.size())
      return damaged(s, "positions and files differ in number");
    for (size_t i = 0; i < jfiles.size(); ++i) {
      if (!(*pos)[i].is_number_unsigned()) return damaged(s, "a file position");
      const size_t p = (*pos)[i].get<size_t>();
      if (p >= total || !positions.insert(p).second)
        return damaged(s, "file position " + std::to_string(p) + " out of range or given twice");
      files.push_back(Entry{p, jfiles[i], {}});
      read_page(pages ? &(*pages)[i] : nullptr, s, files.back().page, out);
    }
  }
  std::sort(files.begin(), files.end(), [](const Entry& a, const Entry& b) { return a.position < b.position; });

  const Share& base = *first;
  const json& b1 = *base.block;
  const bool baseline = json_find(b1, "baseline") && b1["baseline"] == true;
  const ExitPolicy recorded = recorded_policy(base);
  out.policy = policy.value_or(recorded);
  out.io_failure = b1["inputErrors"].get<size_t>() > 0;
  json merged = json::array();
  size_t errors = 0, warnings = 0, notes = 0;
  for (Entry& e : files) {
    json& f = e.file;
    if (json_find(f, "error")) out.io_failure = true;
    if (const json* fs = json_find(f, "findings"); fs && fs->is_array())
      for (const json& x : *fs) {
        const std::string level = json_text(x, "level");
        errors += level == "error";
        warnings += level == "warning";
        notes += level == "note";
        count(x, baseline, out.policy, out.failing, out.warnings);
      }
    out.results.files.push_back(std::move(e.page));
    merged.push_back(std::move(f));
  }
  size_t absent_now = 0;
  for (size_t i : absent) absent_now += !matched.count(i);
  page_run(b1, baseline, absent_now, out);
  json doc = base.doc;
  doc["files"] = std::move(merged);
  json& summary = doc["summary"];
  summary["files"] = files.size();
  summary["errors"] = errors;
  summary["warnings"] = warnings;
  summary["notes"] = notes;
  doc.erase("shard");
  out.text = doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  return {};
}

}  // namespace

int lint_exit_code(bool io_failure, size_t failing, size_t warnings, int max_warnings) {
  if (io_failure) return 2;
  if (failing > 0) return 1;
  if (max_warnings >= 0 && warnings > static_cast<size_t>(max_warnings)) return 1;
  return 0;
}

MergeResult merge_reports(const std::vector<ShardReport>& inputs, const std::optional<ExitPolicy>& policy) {
  MergeResult out;
  if (inputs.empty()) {
    out.error = "no reports to merge";
    return out;
  }
  std::vector<Share> shares(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string kind;
    if (std::string err = open_share(inputs[i], shares[i], kind); !err.empty()) {
      out.error = std::move(err);
      return out;
    }
    if (i == 0) out.kind = kind;
    else if (kind != out.kind) {
      out.error = inputs[i].name + " is a " + kind + " report, " + inputs[0].name + " a " + out.kind +
                  " one: merge reports of one kind";
      return out;
    }
  }
  if (std::string err = check_complete(shares); !err.empty()) {
    out.error = std::move(err);
    return out;
  }
  try {
    out.error = out.kind == "sarif" ? merge_sarif(shares, policy, out) : merge_json(shares, policy, out);
  } catch (const std::exception& e) {  // a value of a type no share written by condlint has
    out.error = "a share is damaged: " + std::string(e.what());
  }
  if (!out.error.empty()) out.text.clear();
  return out;
}

}  // namespace condlint
