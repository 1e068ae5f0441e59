// A lint session: model files -> findings, with the configuration found for each file, suppressions, the baseline,
// shards, the result cache and the exit status. What `condlint lint` runs between parsing its options and writing
// its reports; it writes nothing but the cache and log lines.
#pragma once

#include <string>
#include <vector>

#include "io/output.hpp"
#include "report/report.hpp"

namespace condlint::lint {

struct SessionOptions {
  std::vector<std::string> paths;            // model files and directories (walked recursively)
  std::string fail_on = "error";             // error | warning | note | never
  std::vector<std::string> enable, disable;  // rule IDs or prefixes
  std::string nnapi_target = "runtime";
  bool nnapi_target_given = false;  // --nnapi-target on the command line (RuleOptions::nnapi_target_given)
  std::vector<std::string> targets;  // --target specs ("onnxruntime>=1.17"); replace the configuration's targets
  std::string config_file;           // "" = the .condlint.yaml found above each model
  std::string baseline;              // an earlier SARIF report
  std::string automation_id = "condlint/";
  int max_warnings = -1;                 // -1: no limit
  unsigned jobs = 0;                     // files in parallel; 0 = all cores
  bool progress = false;                 // a progress bar on stderr
  bool exec = false;                     // run the executor where golden data sits beside a model (EX rules)
  bool conditionals = false;             // fill FileResult::conditionals and checks (the HTML report)
  bool html = false;                     // an HTML report is written (it reads the models itself: no result cache)
  bool value_types = false;              // fill FileResult::value_types (--dump-types)
  int shard_index = 0, shard_count = 0;  // share K of N; 0 = not sharded
  std::string cache_dir;                 // "" = no result cache
};

struct SessionResult {
  RunResult result;
  int exit_code = 2;      // 0 clean, 1 findings, 2 an input could not be read (or `error`)
  std::string error;      // the session could not run (bad configuration or baseline, unusable cache): no report
  io::InputFiles inputs;  // every file read: no report may be written onto one
};

SessionResult run_session(const SessionOptions& o);

// True when `s` is a rule ID or the prefix of one.
bool valid_rule_selector(const std::string& s);

// "K/N" with 1 <= K <= N <= kMaxShards (10000, report/merge.hpp); false when it is not that.
bool parse_shard(const std::string& s, int& k, int& n);

}  // namespace condlint::lint
