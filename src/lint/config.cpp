#include "lint/config.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <unordered_map>

#include "loaders/loader.hpp"
#include "rules/support/targets.hpp"

namespace condlint {

namespace fs = std::filesystem;

namespace {

struct ConfigError {
  int line;
  std::string what;
};

int line_of(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

[[noreturn]] void fail(const YAML::Node& n, std::string what) { throw ConfigError{line_of(n), std::move(what)}; }

// A value from the file as a message shows it: at most 100 bytes, then how long it was.
std::string shown(const std::string& s) {
  if (s.size() <= 100) return s;
  return s.substr(0, 100) + "... (" + std::to_string(s.size()) + " bytes)";
}

// The tokens of a glob: a literal character, '?', '*' (within a segment), '**' (anything), '**/' (zero or more
// directories).
enum class GlobKind { Lit, One, Star, DStar, DStarSlash };
std::vector<std::pair<GlobKind, char>> glob_tokens(std::string_view pattern) {
  std::vector<std::pair<GlobKind, char>> tok;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '*' && i + 1 < pattern.size() && pattern[i + 1] == '*') {
      if (i + 2 < pattern.size() && pattern[i + 2] == '/') {
        tok.push_back({GlobKind::DStarSlash, 0});
        i += 2;
      } else {
        tok.push_back({GlobKind::DStar, 0});
        ++i;
      }
    } else if (pattern[i] == '*') tok.push_back({GlobKind::Star, 0});
    else if (pattern[i] == '?') tok.push_back({GlobKind::One, 0});
    else tok.push_back({GlobKind::Lit, pattern[i]});
  }
  return tok;
}

std::string scalar(const YAML::Node& n, const char* what) {
  if (!n.IsScalar()) fail(n, std::string(what) + " must be a string");
  return n.Scalar();
}

// A glob read from the file, held to kMaxGlobBytes and kMaxGlobWildcards.
std::string glob(const YAML::Node& n, const char* what) {
  std::string g = scalar(n, what);
  if (g.size() > kMaxGlobBytes)
    fail(n, std::string("the ") + what + " glob '" + shown(g) + "' is longer than " + std::to_string(kMaxGlobBytes) +
                " bytes");
  size_t wild = 0;
  for (const auto& [kind, c] : glob_tokens(g)) wild += kind != GlobKind::Lit && kind != GlobKind::One;
  if (wild > kMaxGlobWildcards)
    fail(n, std::string("the ") + what + " glob '" + shown(g) + "' has " + std::to_string(wild) +
                " wildcards (* and **), more than " + std::to_string(kMaxGlobWildcards));
  return g;
}

void check_rule(const YAML::Node& n, const std::string& id) {
  for (const RuleDef* r : all_rules())
    if (r->id.substr(0, id.size()) == id && !id.empty()) return;
  fail(n, "unknown rule or rule prefix '" + shown(id) + "'");
}

double number(const YAML::Node& n, const char* what) {
  if (!n.IsScalar()) fail(n, std::string(what) + " must be a number");
  try {
    size_t used = 0;
    const double v = std::stod(n.Scalar(), &used);
    if (used != n.Scalar().size() || !(v >= 0)) throw std::invalid_argument("x");
    return v;
  } catch (const std::exception&) {
    fail(n, std::string(what) + " must be a non-negative number, not '" + shown(n.Scalar()) + "'");
  }
}

Tolerance tolerance(const YAML::Node& n, const char* what) {
  if (!n.IsMap()) fail(n, std::string("tolerances.") + what + " must be a mapping with atol and/or rtol");
  Tolerance t;
  for (const auto& kv : n) {
    const std::string k = scalar(kv.first, "a key");
    if (k == "atol") t.atol = number(kv.second, "atol");
    else if (k == "rtol") t.rtol = number(kv.second, "rtol");
    else fail(kv.first, "unknown key '" + shown(k) + "' in tolerances (atol, rtol)");
  }
  return t;
}

double signed_number(const YAML::Node& n, const char* what) {
  if (!n.IsScalar()) fail(n, std::string(what) + " must be a number");
  try {
    size_t used = 0;
    const double v = std::stod(n.Scalar(), &used);
    if (used != n.Scalar().size() || !std::isfinite(v)) throw std::invalid_argument("x");
    return v;
  } catch (const std::exception&) {
    fail(n, std::string(what) + " must be a finite number, not '" + shown(n.Scalar()) + "'");
  }
}

// inputs: - {path: GLOB, shapes: {NAME: [d0, d1]}, ranges: {NAME: [LO, HI]}}
ConfigInputs inputs_entry(const YAML::Node& e) {
  if (!e.IsMap()) fail(e, "an inputs entry is a mapping with optional path, shapes and ranges");
  ConfigInputs in;
  for (const auto& f : e) {
    const std::string k = scalar(f.first, "a key");
    if (k == "path") {
      in.path_glob = glob(f.second, "path");
    } else if (k == "shapes" || k == "ranges") {
      if (!f.second.IsMap()) fail(f.second, k + ": must map input names to lists");
      for (const auto& kv : f.second) {
        const std::string name = scalar(kv.first, "an input name");
        if (!kv.second.IsSequence())
          fail(kv.second, "the " + k.substr(0, k.size() - 1) + " of '" + shown(name) + "' must be a list");
        if (k == "shapes") {
          std::vector<int64_t> dims;
          for (const auto& d : kv.second) {
            const double v = number(d, "a dim");
            if (v != std::floor(v) || v > static_cast<double>(int64_t{1} << 31))
              fail(d, "a dim must be a whole number from 0 to 2^31");
            dims.push_back(static_cast<int64_t>(v));
          }
          in.shapes[name] = std::move(dims);
        } else {
          if (kv.second.size() != 2) fail(kv.second, "the range of '" + shown(name) + "' must be [LO, HI]");
          const double lo = signed_number(kv.second[0], "LO"), hi = signed_number(kv.second[1], "HI");
          if (lo > hi) fail(kv.second, "the range of '" + shown(name) + "' must have LO <= HI");
          in.ranges[name] = {lo, hi};
        }
      }
    } else {
      fail(f.first, "unknown key '" + shown(k) + "' in an inputs entry (path, shapes, ranges)");
    }
  }
  return in;
}

void parse(const YAML::Node& root, Config& c) {
  if (root.IsNull()) return;  // an empty file is a valid, empty configuration
  if (!root.IsMap())
    fail(root, "the configuration must be a mapping (rules:, ignore:, suppress:, tolerances:, inputs:, targets:)");
  for (const auto& kv : root) {
    const std::string key = scalar(kv.first, "a key");
    const YAML::Node& v = kv.second;
    if (key == "rules") {
      if (v.IsNull()) continue;
      if (!v.IsMap()) fail(v, "rules: must map rule IDs to off, note, warning or error");
      for (const auto& r : v) {
        const std::string id = scalar(r.first, "a rule ID");
        check_rule(r.first, id);
        Level l;
        const std::string lv = r.second.IsScalar() ? r.second.Scalar() : std::string();
        if (!r.second.IsScalar() || !parse_level(lv, l))
          fail(r.second, "level of " + shown(id) + " must be off, note, warning or error" +
                             (lv.empty() ? "" : ", not '" + shown(lv) + "'"));
        // A prefix sets every rule it names.
        for (const RuleDef* d : all_rules())
          if (d->id.substr(0, id.size()) == id) c.levels[std::string(d->id)] = l;
        c.level_lines.emplace_back(id, line_of(r.first));
      }
    } else if (key == "ignore") {
      if (v.IsNull()) continue;
      if (!v.IsSequence()) fail(v, "ignore: must be a list of globs or {path, rules} entries");
      for (const auto& e : v) {
        ConfigIgnore ig;
        if (e.IsScalar()) ig.glob = glob(e, "ignore");
        else if (e.IsMap()) {
          for (const auto& f : e) {
            const std::string k = scalar(f.first, "a key");
            if (k == "path") ig.glob = glob(f.second, "path");
            else if (k == "rules") {
              if (!f.second.IsSequence()) fail(f.second, "rules must be a list of rule IDs");
              for (const auto& id : f.second) {
                ig.rules.push_back(scalar(id, "a rule ID"));
                check_rule(id, ig.rules.back());
              }
            } else fail(f.first, "unknown key '" + shown(k) + "' in an ignore entry (path, rules)");
          }
          if (ig.glob.empty()) fail(e, "an ignore entry needs a path");
        } else fail(e, "an ignore entry is a glob or {path, rules}");
        c.ignores.push_back(std::move(ig));
      }
    } else if (key == "suppress") {
      if (v.IsNull()) continue;
      if (!v.IsSequence()) fail(v, "suppress: must be a list of {rule, path, node, justification} entries");
      for (const auto& e : v) {
        if (!e.IsMap()) fail(e, "a suppress entry is a mapping with rule and optional path, node, justification");
        ConfigSuppression s;
        s.line = line_of(e);
        for (const auto& f : e) {
          const std::string k = scalar(f.first, "a key");
          if (k == "rule") {
            s.rule = scalar(f.second, "rule");
            check_rule(f.second, s.rule);
          } else if (k == "path") s.path_glob = glob(f.second, "path");
          else if (k == "node") s.node_glob = node_path_from_legacy(glob(f.second, "node"));
          else if (k == "justification") s.justification = scalar(f.second, "justification");
          else fail(f.first, "unknown key '" + shown(k) + "' in a suppress entry (rule, path, node, justification)");
        }
        if (s.rule.empty()) fail(e, "a suppress entry needs a rule");
        c.suppressions.push_back(std::move(s));
      }
    } else if (key == "tolerances") {
      if (v.IsNull()) continue;
      if (!v.IsMap()) fail(v, "tolerances: must be a mapping with run and/or diff");
      for (const auto& t : v) {
        const std::string k = scalar(t.first, "a key");
        if (k == "run") c.run = tolerance(t.second, "run");
        else if (k == "diff") c.diff = tolerance(t.second, "diff");
        else fail(t.first, "unknown key '" + shown(k) + "' in tolerances (run, diff)");
      }
    } else if (key == "inputs") {
      if (v.IsNull()) continue;
      if (!v.IsSequence()) fail(v, "inputs: must be a list of {path, shapes, ranges} entries");
      for (const auto& e : v) c.inputs.push_back(inputs_entry(e));
    } else if (key == "targets") {
      if (v.IsNull()) continue;
      if (!v.IsSequence()) fail(v, "targets: must be a list of runtimes such as onnxruntime>=1.17 or nnapi>=fl4");
      if (v.size() > kMaxConfigTargets)
        fail(v, "targets: lists " + std::to_string(v.size()) + " entries; at most " +
                    std::to_string(kMaxConfigTargets) + " are read");
      for (const auto& e : v) {
        Target t;
        std::string err;
        if (!targets::parse_target(scalar(e, "a target"), t, err)) fail(e, shown(err));
        c.targets.push_back(std::move(t));
      }
    } else {
      fail(kv.first, "unknown key '" + shown(key) + "' (rules, ignore, suppress, tolerances, inputs, targets)");
    }
  }
}

// Walks the file's YAML events before any node is built: counts what the document weighs with every alias written
// out (each scalar's bytes plus 4 per node, about what the text would take) and refuses it past
// kMaxConfigExpandedBytes, refuses an alias inside the node it names, and a second document. yaml-cpp shares an
// aliased node in its tree, but reading the configuration copies it once per alias, so this is what it costs.
class ExpansionCheck : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1)
      throw ConfigError{mark.line + 1, "a second YAML document: a configuration is one document (remove the '---')"};
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor, 0); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) return;  // an unknown alias: the parser names it
    if (!it->second) throw ConfigError{mark.line + 1, "an alias inside the node it names (a recursive structure)"};
    add(mark, *it->second);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    leaf(mark, anchor, value.size());
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  static constexpr uint64_t kPerNode = 4;
  void add(const YAML::Mark& mark, uint64_t n) {
    total_ += n;
    if (total_ > kMaxConfigExpandedBytes)
      throw ConfigError{mark.line + 1, "aliases expand the configuration past " +
                                           std::to_string(kMaxConfigExpandedBytes >> 20) +
                                           " MiB (each alias counts as a copy of what it names)"};
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor, uint64_t bytes) {
    const uint64_t start = total_;
    add(mark, bytes + kPerNode);
    if (anchor != YAML::NullAnchor) anchors_[anchor] = total_ - start;
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) anchors_[anchor] = std::nullopt;
    open_.push_back({anchor, total_});
    add(mark, kPerNode);
  }
  void close() {
    if (open_.empty()) return;
    const auto [anchor, start] = open_.back();
    open_.pop_back();
    if (anchor != YAML::NullAnchor) anchors_[anchor] = total_ - start;
  }

  int documents_ = 0;
  uint64_t total_ = 0;
  std::unordered_map<YAML::anchor_t, std::optional<uint64_t>> anchors_;  // nullopt: still open
  std::vector<std::pair<YAML::anchor_t, uint64_t>> open_;                // open collections: anchor, total at start
};

}  // namespace

std::optional<Config> load_config(const std::string& path, std::string& error) {
  Config c;
  c.file = path;
  std::error_code ec;
  c.dir = fs::absolute(fs::path(path), ec).parent_path().lexically_normal().string();
  // Opened without blocking and refused unless a regular file (a FIFO would wait for a writer), and never read past
  // the limit.
  std::string text, why;
  if (!read_file(path, text, why, kMaxConfigBytes)) {
    error = path + ": cannot read the configuration file: " + why;
    return std::nullopt;
  }
  try {
    {
      std::istringstream in(text);
      YAML::Parser events(in);
      ExpansionCheck check;
      while (events.HandleNextDocument(check)) {
      }
    }
    const YAML::Node root = YAML::Load(text);
    parse(root, c);
  } catch (const YAML::DeepRecursion& e) {
    error =
        path + ":" + std::to_string(e.mark.line + 1) + ": nested deeper than " + std::to_string(e.depth()) + " levels";
    return std::nullopt;
  } catch (const YAML::Exception& e) {
    error = path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg;
    return std::nullopt;
  } catch (const ConfigError& e) {
    error = path + ":" + std::to_string(e.line) + ": " + e.what;
    return std::nullopt;
  }
  return c;
}

std::string find_config(const std::string& model_path) {
  std::error_code ec;
  fs::path dir = fs::absolute(fs::path(model_path), ec).parent_path();
  for (int guard = 0; guard < 256 && !dir.empty(); ++guard) {
    const fs::path candidate = dir / ".condlint.yaml";
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return {};
}

std::string node_path_from_legacy(const std::string& path) {
  std::string out;
  size_t i = 0;
  bool first = true;
  while (i <= path.size()) {
    size_t e = path.find('/', i);
    if (e == std::string::npos) e = path.size();
    std::string seg = path.substr(i, e - i);
    if (first && seg == "graph") seg = "main";
    else if (!first && seg == "then_branch") seg = "then";
    else if (!first && seg == "else_branch") seg = "else";
    out += (first ? "" : "/") + seg;
    first = false;
    i = e + 1;
  }
  return out;
}

bool glob_match(std::string_view pattern, std::string_view t) {
  // The set of text positions the tokens read so far can end at, carried through the pattern once: a run of
  // literals and '?' is tried at each position in the set, a wildcard widens the set in one sweep. Work is at most
  // (wildcards + pattern length) x text length, never exponential; most patterns leave few positions after their
  // first literal and stop early when none is left.
  const auto tok = glob_tokens(pattern);
  const size_t m = t.size();
  std::vector<char> reach(m + 1, 0), next(m + 1, 0);
  reach[0] = 1;
  for (size_t i = 0; i < tok.size();) {
    const GlobKind kind = tok[i].first;
    if (kind == GlobKind::Lit || kind == GlobKind::One) {
      size_t e = i;
      while (e < tok.size() && (tok[e].first == GlobKind::Lit || tok[e].first == GlobKind::One)) ++e;
      const size_t len = e - i;
      bool any = false;
      std::fill(next.begin(), next.end(), 0);
      for (size_t j = 0; j + len <= m; ++j) {
        if (!reach[j]) continue;
        size_t k = 0;
        for (; k < len; ++k) {
          const char c = t[j + k];
          if (tok[i + k].first == GlobKind::Lit ? c != tok[i + k].second : c == '/') break;
        }
        if (k == len) next[j + len] = any = true;
      }
      if (!any) return false;
      reach.swap(next);
      i = e;
      continue;
    }
    bool carry = false;  // Star, DStar: some reachable position before this one with nothing in between it stops at
    for (size_t j = 0; j <= m; ++j) {
      if (kind == GlobKind::DStarSlash) {  // the position itself, or one just after a '/' at or past a reachable one
        const bool here = reach[j];
        reach[j] = here || (j > 0 && t[j - 1] == '/' && carry);
        carry = carry || here;
      } else {
        carry = reach[j] || (carry && (kind == GlobKind::DStar || t[j - 1] != '/'));
        reach[j] = carry;
      }
    }
    ++i;
  }
  return reach[m];
}

std::string config_relative(const Config& c, const std::string& model_path) {
  std::error_code ec;
  const fs::path abs = fs::absolute(fs::path(model_path), ec).lexically_normal();
  const fs::path rel = abs.lexically_relative(fs::path(c.dir));
  const std::string r = rel.generic_string();
  if (rel.empty() || r.rfind("..", 0) == 0) return fs::path(model_path).generic_string();
  return r;
}

}  // namespace condlint
