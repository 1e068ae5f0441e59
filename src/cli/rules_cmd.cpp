// condlint rules: the table of every rule.
#include "cli/cli.hpp"

#include "cli/argv.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "report/embedded.hpp"
#include "report/terminal.hpp"
#include "rules/engine.hpp"

namespace condlint::cli {

namespace {

int run_rules_list(const std::string& format) {
  if (format == "json") {
    nlohmann::ordered_json rules = nlohmann::ordered_json::array();
    for (const RuleDef* r : all_rules()) {
      nlohmann::ordered_json formats = nlohmann::ordered_json::array();
      for (const auto& [bit, name] : kFormatNames)
        if (r->formats & bit) formats.push_back(name);
      rules.push_back({{"id", r->id},
                       {"name", r->name},
                       {"level", to_string(r->level)},
                       {"formats", formats},
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
      for (const auto& [bit, name] : kFormatNames)
        if (r->formats & bit) formats += std::string(name) + " ";
    }
    std::printf("%-7s %-29s %-8s %-14s %s\n", std::string(r->id).c_str(), std::string(r->name).c_str(),
                std::string(to_string(r->level)).c_str(), formats.c_str(), std::string(r->summary).c_str());
  }
  std::cout << "\nEach rule is explained in rules/<ID>.md: `condlint rules ID` prints it.\n";
  return kExitClean;
}

// `condlint rules ID`: the rule's page (rules/<ID>.md, embedded in the executable), exit 2 for an unknown ID.
int run_rule_page(const std::string& id) {
  for (const RuleDef* r : all_rules()) {
    if (r->id.size() != id.size() ||
        !std::equal(id.begin(), id.end(), r->id.begin(), [](char a, char b) { return std::toupper(a) == b; }))
      continue;
    const std::string_view page = embedded::rule_page(r->id);
    if (page.empty()) std::cout << r->id << " " << r->name << ": " << r->summary << "\n";
    else std::cout << page << (page.back() == '\n' ? "" : "\n");
    return kExitClean;
  }
  std::cerr << "condlint: unknown rule '" << term_safe(id) << "'" << term_safe(did_you_mean(nearest_rule_ids(id)))
            << " (`condlint rules` lists them)\n";
  return kExitError;
}

}  // namespace

Command add_rules_command(CLI::App& app, const Globals&) {
  auto format = std::make_shared<std::string>("text");
  auto id = std::make_shared<std::string>();
  auto* rules_cmd = app.add_subcommand(
      "rules", "List every rule with its ID, name, default level and formats; with an ID, print that rule's page");
  rules_cmd->add_option("id", *id, "A rule ID (C006): print its page, rules/<ID>.md");
  rules_cmd->add_option("--format", *format, "text or json (the list)")->check(CLI::IsMember({"text", "json"}));
  return {rules_cmd, [format, id] { return id->empty() ? run_rules_list(*format) : run_rule_page(*id); }};
}

}  // namespace condlint::cli
