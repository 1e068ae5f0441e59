// condlint rules: the table of every rule.
#include "cli/cli.hpp"

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "rules/engine.hpp"

namespace condlint::cli {

namespace {

int run_rules_list(const std::string& format) {
  if (format == "json") {
    nlohmann::ordered_json rules = nlohmann::ordered_json::array();
    for (const RuleDef* r : all_rules()) {
      nlohmann::ordered_json formats = nlohmann::ordered_json::array();
      for (auto [bit, name] : {std::pair{kIR, "ir"}, {kONNX, "onnx"}, {kNNAPI, "nnapi"}})
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

}  // namespace

Command add_rules_command(CLI::App& app, const Globals&) {
  auto format = std::make_shared<std::string>("text");
  auto* rules_cmd = app.add_subcommand("rules", "List every rule with its ID, name, default level and formats");
  rules_cmd->add_option("--format", *format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return {rules_cmd, [format] { return run_rules_list(*format); }};
}

}  // namespace condlint::cli
