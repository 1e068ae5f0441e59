#include "rules/engine.hpp"

#include <algorithm>
#include <tuple>

#include "model/parallel.hpp"

namespace condlint {

std::string_view to_string(Level l) {
  switch (l) {
    case Level::Off: return "off";
    case Level::Note: return "note";
    case Level::Warning: return "warning";
    case Level::Error: return "error";
  }
  return "error";
}

bool parse_level(std::string_view s, Level& out) {
  if (s == "off" || s == "none") out = Level::Off;
  else if (s == "note" || s == "info") out = Level::Note;
  else if (s == "warning" || s == "warn") out = Level::Warning;
  else if (s == "error") out = Level::Error;
  else return false;
  return true;
}

namespace {
// A message quotes names and values from the file; a hostile file can make them megabytes long. Messages are cut
// here, once for every rule, so no report grows with a value the file declares.
constexpr size_t kMaxMessageBytes = 1000;

void cut_long_message(std::string& m) {
  if (m.size() <= kMaxMessageBytes) return;
  size_t cut = kMaxMessageBytes;
  while (cut > 0 && (static_cast<unsigned char>(m[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  const size_t total = m.size();
  m.resize(cut);
  m += "... (message cut: " + std::to_string(total) + " bytes in all)";
}
}  // namespace

void Reporter::report(const SourceLocation& loc, std::string message) {
  cut_long_message(message);
  Finding f{std::string(rule_.id), std::string(rule_.name), level_, std::move(message), loc, Fixable::No, {}, {}, {}};
  if (f.loc.file.empty()) f.loc.file = model_.path;
  // The node path (loc.node) is filled in by run_rules once the rules are done: Model::path_of keeps a cache.
  out_.push_back(std::move(f));
}

void Reporter::report_fixable(Fixable fix, const SourceLocation& loc, std::string message, std::string fix_key,
                              std::optional<Level> level) {
  if (level) report_at(*level, loc, std::move(message));
  else report(loc, std::move(message));
  out_.back().fixable = fix;
  out_.back().fix_key = std::move(fix_key);
}

std::string_view to_string(Fixable f) { return f == Fixable::Safe ? "safe" : f == Fixable::Unsafe ? "unsafe" : ""; }

void Reporter::report_at(Level level, const SourceLocation& loc, std::string message) {
  const Level saved = level_;
  if (level_ == rule_.level) level_ = level;
  report(loc, std::move(message));
  level_ = saved;
}

const RuleDef* find_rule(std::string_view id) {
  for (const RuleDef* r : all_rules())
    if (r->id == id) return r;
  return nullptr;
}

static bool matches(std::string_view id, const std::vector<std::string>& prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& p) { return id.substr(0, p.size()) == p; });
}

bool RuleSelection::is_on(const RuleDef& r) const { return level_of(r) != Level::Off; }

Level RuleSelection::level_of(const RuleDef& r) const {
  if (!enable.empty() && !matches(r.id, enable)) return Level::Off;
  if (matches(r.id, disable)) return Level::Off;
  auto it = levels.find(std::string(r.id));
  return it == levels.end() ? r.level : it->second;
}

unsigned format_bit(Format f) {
  switch (f) {
    case Format::IR: return kIR;
    case Format::ONNX: return kONNX;
    case Format::NNAPI: return kNNAPI;
    case Format::TFLITE: return kTFLITE;
  }
  return 0;
}

std::vector<Finding> run_rules(const Model& model, const RuleSelection& sel) {
  const unsigned bit = format_bit(model.format);
  std::vector<std::pair<const RuleDef*, Level>> on;
  for (const RuleDef* r : all_rules()) {
    if (!(r->formats & bit)) continue;
    const Level lvl = sel.level_of(*r);
    if (lvl != Level::Off) on.emplace_back(r, lvl);
  }
  // Rules only read the model, so on a large one they share two cores (model/parallel.hpp); each writes its
  // own list, and the lists are joined in rule order, as one thread would have made them.
  size_t nodes = 0;
  for (const Graph& g : model.graphs) nodes += g.nodes.size();
  std::vector<std::vector<Finding>> per_rule(on.size());
  parallel_for(on.size(), nodes, [&](size_t i) {
    Reporter rep(model, *on[i].first, on[i].second, per_rule[i], sel.options);
    on[i].first->check(model, rep);
  });
  std::vector<Finding> out;
  for (auto& list : per_rule) {
    for (auto& f : list) {
      if (f.loc.node.empty()) f.loc.node = model.path_of(f.loc.graph < 0 ? 0 : f.loc.graph, f.loc.node_index);
      out.push_back(std::move(f));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    const int la = a.loc.line > 0 ? a.loc.line : 1 << 30, lb = b.loc.line > 0 ? b.loc.line : 1 << 30;
    return std::tie(la, a.loc.column, a.loc.pointer, a.loc.node, a.rule) <
           std::tie(lb, b.loc.column, b.loc.pointer, b.loc.node, b.rule);
  });
  return out;
}

std::string describe(const ValueDesc& v) {
  std::string s = v.type.str();
  if (v.shape.rank_known || v.type.kind == TypeDesc::Kind::Tensor) s += " " + v.shape.str();
  if (!v.label.empty()) s += " (" + v.label + ")";
  return s;
}

}  // namespace condlint
