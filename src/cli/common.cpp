// Helpers the commands share: report files, the output stream, --pin values, tolerances and random inputs from the
// command line and the configuration.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/cli.hpp"
#include "io/output.hpp"
#include "lint/cache.hpp"
#include "lint/config.hpp"
#include "model/types.hpp"
#include "rules/readability.hpp"
#include "report/terminal.hpp"

namespace condlint::cli {

bool write_report(const std::string& path, const std::string& what, const std::function<void(std::ostream&)>& writer) {
  const std::string err = io::write_output(path, what, writer);
  if (!err.empty()) std::cerr << "condlint: " << term_safe(err) << "\n";
  return err.empty();
}

io::InputFiles model_inputs(const std::vector<std::string>& models, const std::vector<const LoadResult*>& opened,
                            const std::vector<std::string>& data_dirs, const std::string& config) {
  namespace fs = std::filesystem;
  io::InputFiles in;
  auto add_tree = [&](const fs::path& dir) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (std::error_code e2; it->is_regular_file(e2)) in.add(it->path().string(), "golden data");
  };
  for (size_t i = 0; i < models.size(); ++i) {
    const std::string& m = models[i];
    in.add(m, "the model");
    // Every other file the loader read or looked for: an IR model's .bin, external data, Blobs.
    if (i < opened.size() && opened[i] && opened[i]->model)
      for (const auto& source : opened[i]->model->sources) in.add(source, "a file the model reads");
    for (const auto& d : lint::golden_data_dependencies(m)) in.add(d, "golden data");
    in.add(config.empty() ? find_config(m) : config, "the configuration");
  }
  for (const auto& d : data_dirs) add_tree(d);
  return in;
}

bool save_dir_allowed(const std::string& dir, bool overwrite) {
  if (dir.empty() || overwrite) return true;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().rfind("test_data_set_", 0) == 0) {
      std::cerr << "condlint: refusing to save into " << term_safe(dir) << ": it already holds golden data ("
                << term_safe(it->path().filename().string())
                << "); --save-overwrite replaces it, or give an empty directory\n";
      return false;
    }
  return true;
}

OpenOptions exec_open_options() {
  OpenOptions o;
  o.keep_for_exec = true;
  o.verdict = unreadable_reason;
  return o;
}

bool outputs_allowed(const std::vector<io::OutputTarget>& outputs, const io::InputFiles& inputs) {
  const std::string err = io::check_outputs(outputs, inputs);
  if (!err.empty()) std::cerr << "condlint: " << term_safe(err) << "\n";
  return err.empty();
}

bool parse_pin(const std::string& p, std::string& node, bool& value) {
  const auto eq = p.rfind('=');
  const std::string v = eq == std::string::npos ? "" : p.substr(eq + 1);
  if (eq == std::string::npos || eq == 0 || (v != "true" && v != "false")) return false;
  node = p.substr(0, eq);
  value = v == "true";
  return true;
}

namespace {

// The configuration of `model`: --config FILE, else the .condlint.yaml found from its directory upwards. False (the
// error printed) when it cannot be read; true with `out` empty when there is none.
bool config_of(const std::string& config, const std::string& model, std::optional<Config>& out) {
  const std::string path = config.empty() ? find_config(model) : config;
  if (path.empty()) return true;
  std::string err;
  out = load_config(path, err);
  if (!out) std::cerr << "condlint: " << term_safe(err) << "\n";
  return out.has_value();
}

}  // namespace

bool tolerances_from_config(const std::string& config, const std::string& model, bool for_diff,
                            std::optional<double>& atol, std::optional<double>& rtol) {
  std::optional<Config> c;
  if (!config_of(config, model, c)) return false;
  if (!c) return true;
  const Tolerance& t = for_diff ? c->diff : c->run;
  if (!atol) atol = t.atol;
  if (!rtol) rtol = t.rtol;
  return true;
}

bool parse_pair(const std::string& s, std::string& name, double& a, double& b) {
  const auto eq = s.rfind('=');
  if (eq == std::string::npos || eq == 0) return false;
  name = s.substr(0, eq);
  const std::string v = s.substr(eq + 1);
  const auto comma = v.find(',');
  if (comma == std::string::npos) return false;
  try {
    size_t n1 = 0, n2 = 0;
    a = std::stod(v.substr(0, comma), &n1);
    b = std::stod(v.substr(comma + 1), &n2);
    return n1 == comma && n2 == v.size() - comma - 1;
  } catch (...) {
    return false;
  }
}

bool random_inputs_options(int count, uint64_t seed, const std::vector<std::string>& ranges,
                           const std::vector<std::string>& shapes, const std::string& config, const std::string& model,
                           exec::RandomInputs& out) {
  if (count < 0) {
    std::cerr << "condlint: --random must not be negative\n";
    return false;
  }
  out.count = count;
  out.seed = seed;
  for (const auto& r : ranges) {
    std::string name;
    double lo, hi;
    if (!parse_pair(r, name, lo, hi) || !(lo <= hi)) {
      std::cerr << "condlint: --range takes NAME=LO,HI with LO <= HI, got '" << term_safe(r) << "'\n";
      return false;
    }
    out.ranges[name] = {lo, hi};
  }
  for (const auto& spec : shapes) {
    // NAME:d0,d1,... (Polygraphy's spelling, brackets allowed: NAME:[1,3]); NAME: is a scalar.
    const auto colon = spec.rfind(':');
    std::string dims = colon == std::string::npos ? "" : spec.substr(colon + 1);
    if (!dims.empty() && dims.front() == '[' && dims.back() == ']') dims = dims.substr(1, dims.size() - 2);
    auto parsed = parse_int64_list(dims);
    bool ok = colon != std::string::npos && colon > 0 && parsed;
    if (ok)
      for (int64_t d : *parsed) ok = ok && d >= 0 && d <= (int64_t{1} << 31);
    if (!ok) {
      std::cerr << "condlint: --input-shapes takes NAME:d0,d1,... with dims from 0 to 2^31 (NAME: for a scalar), got '"
                << term_safe(spec) << "'\n";
      return false;
    }
    out.shapes[spec.substr(0, colon)] = *parsed;
  }
  std::optional<Config> c;
  if (!config_of(config, model, c)) return false;
  if (!c) return true;
  // Later entries win; the command line wins over all of them.
  std::map<std::string, exec::Dims> from_config_shapes;
  std::map<std::string, std::pair<double, double>> from_config_ranges;
  for (const auto& e : c->inputs) {
    if (!e.path_glob.empty() && !glob_match(e.path_glob, config_relative(*c, model))) continue;
    for (const auto& [k, v] : e.shapes) from_config_shapes[k] = v;
    for (const auto& [k, v] : e.ranges) from_config_ranges[k] = v;
  }
  for (auto& [k, v] : from_config_shapes) out.shapes.emplace(k, std::move(v));
  for (auto& [k, v] : from_config_ranges) out.ranges.emplace(k, v);
  return true;
}

}  // namespace condlint::cli
