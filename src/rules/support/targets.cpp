#include "rules/support/targets.hpp"

#include <nlohmann/json.hpp>

#include <cctype>
#include <sstream>

namespace condlint::targets {

namespace {

// "1.17" -> {1, 17}; "fl4" -> {4}; "2025.0" -> {2025, 0}. Empty when the name has no number or other letters.
std::vector<int64_t> parts(std::string_view v) {
  std::vector<int64_t> out;
  if (v.rfind("fl", 0) == 0) v.remove_prefix(2);
  int64_t cur = -1;
  for (char c : v) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (cur > 100000000) return {};
      cur = (cur < 0 ? 0 : cur * 10) + (c - '0');
    } else if (c == '.' && cur >= 0) {
      out.push_back(cur);
      cur = -1;
    } else {
      return {};
    }
  }
  if (cur < 0) return {};
  out.push_back(cur);
  return out;
}

struct Table {
  std::vector<Runtime> runtimes;
  std::string error;
};

size_t release_index(const Runtime& rt, const std::string& name, std::string& error) {
  for (size_t i = 0; i < rt.releases.size(); ++i)
    if (rt.releases[i] == name) return i;
  error = rt.id + ": a fact names release '" + name + "', which is not in its releases";
  return 0;
}

Table parse_table() {
  Table t;
  try {
    const auto doc = nlohmann::json::parse(profile_table());
    for (const auto& r : doc.at("runtimes")) {
      Runtime rt;
      rt.id = r.at("id").get<std::string>();
      rt.name = r.at("name").get<std::string>();
      for (const auto& f : r.at("formats")) {
        const auto s = f.get<std::string>();
        for (const auto& [bit, name] : kFormatNames)
          if (s == name) rt.formats |= bit;
      }
      for (const auto& v : r.at("releases")) rt.releases.push_back(v.get<std::string>());
      for (const auto& f : r.at("facts")) {
        Fact fact;
        fact.kind = f.at("kind").get<std::string>();
        fact.from = release_index(rt, f.at("from").get<std::string>(), t.error);
        fact.open_ended = !f.contains("to");
        fact.to = fact.open_ended ? rt.releases.size() - 1 : release_index(rt, f.at("to").get<std::string>(), t.error);
        const auto& v = f.at("value");
        if (v.is_number_integer()) fact.number = v.get<int64_t>();
        if (v.is_boolean()) fact.flag = v.get<bool>();
        if (v.is_array())
          for (const auto& e : v) fact.list.push_back(e.is_string() ? e.get<std::string>() : e.dump());
        fact.text = v.dump();
        fact.source = f.value("source", "");
        rt.facts.push_back(std::move(fact));
      }
      t.runtimes.push_back(std::move(rt));
    }
  } catch (const std::exception& e) {
    t.error = std::string("data/targets.json: ") + e.what();
  }
  if (!t.error.empty()) t.runtimes.clear();
  return t;
}

const Table& table() {
  static const Table t = parse_table();
  return t;
}

}  // namespace

const std::vector<Runtime>& runtimes() { return table().runtimes; }
const std::string& table_error() { return table().error; }

const Runtime* find_runtime(std::string_view id) {
  for (const auto& r : runtimes())
    if (r.id == id) return &r;
  return nullptr;
}

int compare_versions(std::string_view a, std::string_view b) {
  const auto x = parts(a), y = parts(b);
  for (size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    const int64_t p = i < x.size() ? x[i] : 0, q = i < y.size() ? y[i] : 0;
    if (p != q) return p < q ? -1 : 1;
  }
  return 0;
}

bool parse_target(std::string_view spec, Target& out, std::string& error) {
  out = Target{};
  out.spec = std::string(spec);
  const size_t op = spec.find(">=");
  out.runtime = std::string(spec.substr(0, op));
  const Runtime* rt = find_runtime(out.runtime);
  if (!rt) {
    std::string known;
    for (const auto& r : runtimes()) known += (known.empty() ? "" : ", ") + r.id;
    error = "unknown target runtime '" + out.runtime + "' (known: " + known + ")";
    return false;
  }
  if (op == std::string_view::npos) return true;
  out.from = std::string(spec.substr(op + 2));
  const bool nnapi = rt->id == "nnapi";
  if (parts(out.from).empty() || (nnapi != (out.from.rfind("fl", 0) == 0))) {
    error = "target '" + out.spec + "': the version after >= must be " +
            (nnapi ? std::string("a feature level, fl1 ... fl8")
                   : std::string("a release number such as ") + rt->releases.back());
    return false;
  }
  // A version past the newest release the table knows, and not a patch of it (1.32.1 is in 1.32's series): no
  // release condlint knows is in the range, so nothing could judge it.
  const auto newest = parts(rt->releases.back()), from = parts(out.from);
  const bool in_newest_series =
      from.size() >= newest.size() && std::equal(newest.begin(), newest.end(), from.begin());
  if (compare_versions(out.from, rt->releases.back()) > 0 && !in_newest_series) {
    error = "target '" + out.spec + "': condlint knows " + rt->id + " releases " + rt->releases.front() + " to " +
            rt->releases.back() + " (docs/targets.md), none at or after " + out.from + "; name one of them";
    return false;
  }
  return true;
}

std::vector<size_t> covered(const Runtime& rt, const Target& t) {
  std::vector<size_t> out;
  for (size_t i = 0; i < rt.releases.size(); ++i) {
    const bool at_or_after = t.from.empty() || compare_versions(rt.releases[i], t.from) >= 0;
    const bool series = !t.from.empty() && compare_versions(rt.releases[i], t.from) < 0 &&
                        (i + 1 == rt.releases.size() || compare_versions(rt.releases[i + 1], t.from) > 0);
    if (at_or_after || series) out.push_back(i);
  }
  return out;
}

const Fact* fact_at(const Runtime& rt, std::string_view kind, size_t r) {
  for (const auto& f : rt.facts)
    if (f.kind == kind && f.from <= r && r <= f.to) return &f;
  return nullptr;
}

const Fact* since(const Runtime& rt, std::string_view kind, std::string_view name) {
  for (const auto& f : rt.facts)
    if (f.kind == kind)
      for (const auto& n : f.list)
        if (n == name) return &f;
  return nullptr;
}

std::string describe_refusal(const Runtime& rt, const Target& t, const std::function<bool(size_t)>& refuses,
                             std::string_view what, std::string_view verb) {
  const std::vector<size_t> range = covered(rt, t);
  std::vector<bool> no;
  size_t first_refusing = rt.releases.size();
  for (size_t r : range) {
    no.push_back(refuses(r));
    if (no.back() && first_refusing == rt.releases.size()) first_refusing = r;
  }
  if (first_refusing == rt.releases.size()) return "";
  const std::string start = t.from.empty() ? rt.releases.front() : t.from;
  // Older releases refuse and every newer one accepts: the first that accepts is the answer.
  size_t k = 0;
  while (k < no.size() && no[k]) ++k;
  bool prefix = k > 0;
  for (size_t j = k; j < no.size(); ++j) prefix = prefix && !no[j];
  if (prefix && k < no.size())
    return std::string(what) + " needs " + rt.id + " >= " + rt.releases[range[k]] + " (the range starts at " + start +
           ")";
  if (k == no.size())
    return rt.name + (range.front() == 0 ? std::string(" (all versions)") : " (every version from " + start + ")") +
           " " + std::string(verb) + " " + std::string(what);
  return rt.name + " >= " + rt.releases[first_refusing] + " " + std::string(verb) + " " + std::string(what);
}

std::vector<std::pair<const Runtime*, const Target*>> targets_for(const RuleOptions& o, std::string_view runtime,
                                                                  Format format) {
  std::vector<std::pair<const Runtime*, const Target*>> out;
  const unsigned mask = format_bit(format);
  for (const auto& t : o.targets)
    if (t.runtime == runtime)
      if (const Runtime* rt = find_runtime(runtime); rt && (rt->formats & mask)) out.emplace_back(rt, &t);
  return out;
}

std::string markdown() {
  std::ostringstream md;
  md << "# Deployment targets: the facts `lint --target` judges by\n\n"
        "Generated from `data/targets.json` (embedded in condlint at build time); `tests/targets_test.cpp` keeps this\n"
        "page equal to the table: after editing the table run\n"
        "`CONDLINT_UPDATE_SNAPSHOTS=1 build/condlint_tests --gtest_filter=Targets.DocsPageMatchesTheTable`.\n"
        "A fact holds for the releases from its first to its last (\"and later\": every newer release too).\n"
        "`lint --target RUNTIME>=RELEASE` (or `targets:` in `.condlint.yaml`) judges a model for every release of\n"
        "the range; a release between two rows has the facts of the older row.\n";
  for (const auto& rt : runtimes()) {
    md << "\n## " << rt.name << " (`" << rt.id << "`)\n\nReleases in the table: ";
    for (size_t i = 0; i < rt.releases.size(); ++i) md << (i ? ", " : "") << rt.releases[i];
    md << ".\n\n| fact | releases | value | source |\n|---|---|---|---|\n";
    for (const auto& f : rt.facts) {
      std::string value = f.text;
      for (size_t p = value.find('|'); p != std::string::npos; p = value.find('|', p + 2)) value.replace(p, 1, "\\|");
      std::string source = f.source;
      for (size_t p = source.find('|'); p != std::string::npos; p = source.find('|', p + 2))
        source.replace(p, 1, "\\|");
      md << "| `" << f.kind << "` | " << rt.releases[f.from]
         << (f.open_ended ? " and later" : (f.to == f.from ? std::string() : std::string(" to ") + rt.releases[f.to]))
         << " | `" << value << "` | " << source << " |\n";
    }
  }
  return md.str();
}

}  // namespace condlint::targets
