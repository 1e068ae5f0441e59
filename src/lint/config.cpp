#include "lint/config.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>

namespace condlint {

namespace fs = std::filesystem;

namespace {

struct ConfigError {
  int line;
  std::string what;
};

int line_of(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

[[noreturn]] void fail(const YAML::Node& n, std::string what) { throw ConfigError{line_of(n), std::move(what)}; }

std::string scalar(const YAML::Node& n, const char* what) {
  if (!n.IsScalar()) fail(n, std::string(what) + " must be a string");
  return n.Scalar();
}

void check_rule(const YAML::Node& n, const std::string& id) {
  for (const RuleDef* r : all_rules())
    if (r->id.substr(0, id.size()) == id && !id.empty()) return;
  fail(n, "unknown rule or rule prefix '" + id + "'");
}

double number(const YAML::Node& n, const char* what) {
  if (!n.IsScalar()) fail(n, std::string(what) + " must be a number");
  try {
    size_t used = 0;
    const double v = std::stod(n.Scalar(), &used);
    if (used != n.Scalar().size() || !(v >= 0)) throw std::invalid_argument("x");
    return v;
  } catch (const std::exception&) {
    fail(n, std::string(what) + " must be a non-negative number, not '" + n.Scalar() + "'");
  }
}

Tolerance tolerance(const YAML::Node& n, const char* what) {
  if (!n.IsMap()) fail(n, std::string("tolerances.") + what + " must be a mapping with atol and/or rtol");
  Tolerance t;
  for (const auto& kv : n) {
    const std::string k = scalar(kv.first, "a key");
    if (k == "atol") t.atol = number(kv.second, "atol");
    else if (k == "rtol") t.rtol = number(kv.second, "rtol");
    else fail(kv.first, "unknown key '" + k + "' in tolerances (atol, rtol)");
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
    fail(n, std::string(what) + " must be a finite number, not '" + n.Scalar() + "'");
  }
}

// inputs: - {path: GLOB, shapes: {NAME: [d0, d1]}, ranges: {NAME: [LO, HI]}}
ConfigInputs inputs_entry(const YAML::Node& e) {
  if (!e.IsMap()) fail(e, "an inputs entry is a mapping with optional path, shapes and ranges");
  ConfigInputs in;
  for (const auto& f : e) {
    const std::string k = scalar(f.first, "a key");
    if (k == "path") {
      in.path_glob = scalar(f.second, "path");
    } else if (k == "shapes" || k == "ranges") {
      if (!f.second.IsMap()) fail(f.second, k + ": must map input names to lists");
      for (const auto& kv : f.second) {
        const std::string name = scalar(kv.first, "an input name");
        if (!kv.second.IsSequence())
          fail(kv.second, "the " + k.substr(0, k.size() - 1) + " of '" + name + "' must be a list");
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
          if (kv.second.size() != 2) fail(kv.second, "the range of '" + name + "' must be [LO, HI]");
          const double lo = signed_number(kv.second[0], "LO"), hi = signed_number(kv.second[1], "HI");
          if (lo > hi) fail(kv.second, "the range of '" + name + "' must have LO <= HI");
          in.ranges[name] = {lo, hi};
        }
      }
    } else {
      fail(f.first, "unknown key '" + k + "' in an inputs entry (path, shapes, ranges)");
    }
  }
  return in;
}

void parse(const YAML::Node& root, Config& c) {
  if (root.IsNull()) return;  // an empty file is a valid, empty configuration
  if (!root.IsMap())
    fail(root, "the configuration must be a mapping (rules:, ignore:, suppress:, tolerances:, inputs:)");
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
          fail(r.second,
               "level of " + id + " must be off, note, warning or error" + (lv.empty() ? "" : ", not '" + lv + "'"));
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
        if (e.IsScalar()) ig.glob = e.Scalar();
        else if (e.IsMap()) {
          for (const auto& f : e) {
            const std::string k = scalar(f.first, "a key");
            if (k == "path") ig.glob = scalar(f.second, "path");
            else if (k == "rules") {
              if (!f.second.IsSequence()) fail(f.second, "rules must be a list of rule IDs");
              for (const auto& id : f.second) {
                ig.rules.push_back(scalar(id, "a rule ID"));
                check_rule(id, ig.rules.back());
              }
            } else fail(f.first, "unknown key '" + k + "' in an ignore entry (path, rules)");
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
          } else if (k == "path") s.path_glob = scalar(f.second, "path");
          else if (k == "node") s.node_glob = node_path_from_legacy(scalar(f.second, "node"));
          else if (k == "justification") s.justification = scalar(f.second, "justification");
          else fail(f.first, "unknown key '" + k + "' in a suppress entry (rule, path, node, justification)");
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
        else fail(t.first, "unknown key '" + k + "' in tolerances (run, diff)");
      }
    } else if (key == "inputs") {
      if (v.IsNull()) continue;
      if (!v.IsSequence()) fail(v, "inputs: must be a list of {path, shapes, ranges} entries");
      for (const auto& e : v) c.inputs.push_back(inputs_entry(e));
    } else {
      fail(kv.first, "unknown key '" + key + "' (rules, ignore, suppress, tolerances, inputs)");
    }
  }
}

}  // namespace

std::optional<Config> load_config(const std::string& path, std::string& error) {
  Config c;
  c.file = path;
  std::error_code ec;
  c.dir = fs::absolute(fs::path(path), ec).parent_path().lexically_normal().string();
  try {
    const YAML::Node root = YAML::LoadFile(path);
    parse(root, c);
  } catch (const YAML::BadFile&) {
    error = path + ": cannot read the configuration file";
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
  // Tokens: literal, '?', '*' (within a segment), '**' (anything), '**/' (zero or more directories).
  enum Kind { Lit, One, Star, DStar, DStarSlash };
  std::vector<std::pair<Kind, char>> tok;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '*' && i + 1 < pattern.size() && pattern[i + 1] == '*') {
      if (i + 2 < pattern.size() && pattern[i + 2] == '/') {
        tok.push_back({DStarSlash, 0});
        i += 2;
      } else {
        tok.push_back({DStar, 0});
        ++i;
      }
    } else if (pattern[i] == '*') tok.push_back({Star, 0});
    else if (pattern[i] == '?') tok.push_back({One, 0});
    else tok.push_back({Lit, pattern[i]});
  }
  // Dynamic programming from the ends: after[j] = tokens i+1.. match t[j..]; here[j] = tokens i.. match t[j..].
  const size_t m = t.size();
  std::vector<char> after(m + 1, 0), here(m + 1, 0);
  after[m] = 1;
  for (size_t i = tok.size(); i-- > 0;) {
    const auto [kind, c] = tok[i];
    bool slash_then_rest = false;  // for '**/': some '/' at k >= j with after[k + 1]
    for (size_t j = m + 1; j-- > 0;) {
      bool ok = false;
      switch (kind) {
        case Lit: ok = j < m && t[j] == c && after[j + 1]; break;
        case One: ok = j < m && t[j] != '/' && after[j + 1]; break;
        case Star: ok = after[j] || (j < m && t[j] != '/' && here[j + 1]); break;
        case DStar: ok = after[j] || (j < m && here[j + 1]); break;
        case DStarSlash:
          if (j < m && t[j] == '/' && after[j + 1]) slash_then_rest = true;
          ok = after[j] || slash_then_rest;
          break;
      }
      here[j] = ok;
    }
    after.swap(here);
  }
  return after[0];
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
