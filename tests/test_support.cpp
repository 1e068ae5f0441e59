// The two absolute paths the tests need, compiled into this file only (CMakeLists.txt): every other test file
// then compiles the same in any checkout, so ccache hits across clones.
#include "tests/test_support.hpp"

#include <cstdlib>

#include <nlohmann/json.hpp>
#include <mutex>
#include <set>

namespace condlint::test {

std::filesystem::path source_dir() { return CONDLINT_SOURCE_DIR; }
const char* condlint_binary() { return CONDLINT_BINARY; }

namespace {
std::mutex g_dirs_mutex;
std::set<std::filesystem::path>* g_dirs = nullptr;  // never destroyed: read by the atexit handler

void remove_dirs() {
  const std::lock_guard<std::mutex> lock(g_dirs_mutex);
  std::error_code ec;
  for (const auto& d : *g_dirs) std::filesystem::remove_all(d, ec);
}
}  // namespace

void remove_at_exit(const std::filesystem::path& dir) {
  const std::lock_guard<std::mutex> lock(g_dirs_mutex);
  if (!g_dirs) {
    g_dirs = new std::set<std::filesystem::path>;
    std::atexit(remove_dirs);
  }
  g_dirs->insert(dir);
}


std::filesystem::path sarif_multitool() {
  const auto tool = source_dir() / "tools/sarif/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool";
  return std::filesystem::exists(tool) ? tool : std::filesystem::path();
}

std::string sarif_validate(const std::string& file) {
  const auto tool = sarif_multitool();
  if (tool.empty()) return "SKIP";
  static const bool offline = run("unshare -n true >/dev/null 2>&1").exit_code == 0;
  const std::string out = file + ".validation.sarif";
  std::filesystem::remove(out);
  const auto r = run(std::string(offline ? "unshare -n " : "") + shell_quote(tool.string()) + " validate " +
                     shell_quote(file) + " --rule-kind \"Sarif;Gh\" -o " + shell_quote(out) + " >/dev/null 2>&1");
  if (!std::filesystem::exists(out)) return "the validator wrote no output (exit " + std::to_string(r.exit_code) + ")";
  std::ifstream in(out, std::ios::binary);
  const auto doc = nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(in), {}), nullptr, false);
  if (doc.is_discarded() || !doc.contains("runs")) return "the validator's output is not SARIF";
  std::string problems;
  for (const auto& run_ : doc["runs"])
    for (const auto& res : run_.value("results", nlohmann::json::array())) {
      const std::string level = res.value("level", "warning");
      if (level == "error" || level == "warning")
        problems += level + " " + res.value("ruleId", "?") + " " + res.value("message", nlohmann::json()).dump() + "\n";
    }
  return problems;
}

}  // namespace condlint::test
