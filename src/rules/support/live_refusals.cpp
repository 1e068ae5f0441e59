// The refusals of a runtime the lint session loaded the model into: live_refusals.hpp.
#include "rules/support/live_refusals.hpp"

#include <filesystem>
#include <map>
#include <regex>

#include "rules/support/targets.hpp"

namespace condlint::live {

std::pair<int, int> node_named(const Model& m, std::string_view message) {
  // Node names, then values produced, of every graph: the first node of each name.
  std::map<std::string, std::pair<int, int>, std::less<>> by_name, by_output;
  for (int g = 0; g < static_cast<int>(m.graphs.size()); ++g)
    for (int n = 0; n < static_cast<int>(m.graphs[g].nodes.size()); ++n) {
      const Node& node = m.graphs[g].nodes[n];
      if (!node.name.empty()) by_name.emplace(node.name.str(), std::make_pair(g, n));
      for (const Port& p : node.outputs)
        if (!p.id.empty()) by_output.emplace(p.id.str(), std::make_pair(g, n));
    }
  static const std::regex kNamed(
      R"([Nn]ode ?\(([^()\s]+)\)|node name: ([^()\s,]+)|In Node, \("([^"]+)\"|with name '([^']+)'|)"
      R"(friendly_name '([^']+)'|Operation name: (\S+)|layer (\S+) with id)");
  static const std::regex kValue(R"(<Node\([^)]*\): (?:\S*__Inline_\d+__)?([^>]+)>)");
  const std::string text(message.substr(0, 4000));
  std::pair<int, int> found{-1, -1};
  for (std::sregex_iterator it(text.begin(), text.end(), kNamed), end; it != end; ++it)
    for (size_t k = 1; k < it->size(); ++k)
      if ((*it)[k].matched)
        if (auto f = by_name.find((*it)[k].str()); f != by_name.end()) found = f->second;
  if (found.first >= 0) return found;
  for (std::sregex_iterator it(text.begin(), text.end(), kValue), end; it != end; ++it)
    if (auto f = by_output.find((*it)[1].str()); f != by_output.end()) return f->second;
  return found;
}

std::string clean_message(const Model& m, std::string message) {
  if (!m.path.empty()) {
    const std::string name = std::filesystem::path(m.path).filename().string();
    for (size_t at; !m.path.empty() && (at = message.find(m.path)) != std::string::npos;)
      message.replace(at, m.path.size(), name);
  }
  static const std::regex kLoadFrom(R"(Load model from \S+ failed:)");
  static const std::regex kOvSource(R"(Exception from \S+:\d+:\s*)");
  static const std::regex kOrtSource(R"(/onnxruntime_src/\S+:\d+ [^(]*\([^)]*\)\s*)");
  static const std::regex kOrtPrefix(R"(\[ONNXRuntimeError\] : \d+ : \w+ : )");
  static const std::regex kSpace(R"(\s+)");
  message = std::regex_replace(message, kOrtPrefix, "");
  message = std::regex_replace(message, kLoadFrom, "");
  message = std::regex_replace(message, kOvSource, "");
  message = std::regex_replace(message, kOrtSource, "");
  message = std::regex_replace(message, kSpace, " ");
  while (!message.empty() && message.front() == ' ') message.erase(0, 1);
  while (!message.empty() && message.back() == ' ') message.pop_back();
  if (message.size() > 600) {
    size_t cut = 600;
    while (cut > 0 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
    message = message.substr(0, cut) + "...";
  }
  return message.empty() ? "no reason given" : message;
}

void report_refusals(const Model& m, Reporter& r, std::string_view runtime, std::string_view what) {
  if (m.graphs.empty()) return;
  const auto targets = targets::targets_for(r.options(), runtime, m.format);
  for (const LiveRefusal& refusal : m.live_refusals) {
    if (refusal.runtime != runtime) continue;
    const auto [g, n] = node_named(m, refusal.message);
    SourceLocation loc = m.graphs[0].loc;
    if (g >= 0) {
      loc = SourceLocation(m.graphs[g].nodes[n].loc);
      loc.graph = g;
      loc.node_index = n;
    }
    const std::string version = refusal.version.substr(0, refusal.version.find('-'));
    for (const auto& each : targets)
      r.report(loc, std::string(what) + " " + version + " (installed) refuses this model at " + refusal.stage + ": " +
                        clean_message(m, refusal.message) + " (target " + each.second->spec + ")");
  }
}

}  // namespace condlint::live
