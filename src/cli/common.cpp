// Helpers the commands share: report files, the output stream, --pin values, tolerances from the configuration.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/cli.hpp"
#include "lint/config.hpp"
#include "report/terminal.hpp"

namespace condlint::cli {

bool write_report(const std::string& path, const std::string& what, const std::function<void(std::ostream&)>& writer) {
  std::ofstream f(path, std::ios::binary);
  if (!f) {
    std::cerr << "condlint: cannot write the " << what << " report to " << term_safe(path) << "\n";
    return false;
  }
  writer(f);
  f.flush();
  if (!f) std::cerr << "condlint: cannot write the " << what << " report to " << term_safe(path) << "\n";
  return static_cast<bool>(f);
}

std::ostream* open_output(const std::string& path, std::ofstream& file) {
  if (path.empty()) return &std::cout;
  file.open(path, std::ios::binary);
  if (!file) {
    std::cerr << "condlint: cannot write " << term_safe(path) << "\n";
    return nullptr;
  }
  return &file;
}

bool parse_pin(const std::string& p, std::string& node, bool& value) {
  const auto eq = p.rfind('=');
  const std::string v = eq == std::string::npos ? "" : p.substr(eq + 1);
  if (eq == std::string::npos || eq == 0 || (v != "true" && v != "false")) return false;
  node = p.substr(0, eq);
  value = v == "true";
  return true;
}

bool tolerances_from_config(const std::string& config, const std::string& model, bool for_diff,
                            std::optional<double>& atol, std::optional<double>& rtol) {
  const std::string path = config.empty() ? find_config(model) : config;
  if (path.empty()) return true;
  std::string err;
  const auto c = load_config(path, err);
  if (!c) {
    std::cerr << "condlint: " << term_safe(err) << "\n";
    return false;
  }
  const Tolerance& t = for_diff ? c->diff : c->run;
  if (!atol) atol = t.atol;
  if (!rtol) rtol = t.rtol;
  return true;
}

}  // namespace condlint::cli
