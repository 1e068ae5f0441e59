// A model's files as a runtime's child process is given them: model_view.hpp.
#include "diff/model_view.hpp"

#include <unistd.h>

namespace condlint::diff {

namespace fs = std::filesystem;

namespace {

bool plain_name(const std::string& n) {
  if (n.empty() || n.size() > 120 || n[0] == '-' || n[0] == '.') return false;
  for (unsigned char c : n)
    if (!(std::isalnum(c) || c == '.' || c == '_' || c == '-' || c == '+')) return false;
  return true;
}

// The extension of a name as a view may spell it: letters and digits only, else none.
std::string plain_extension(const fs::path& p) {
  const std::string e = p.extension().string();
  for (size_t i = 1; i < e.size(); ++i)
    if (!std::isalnum(static_cast<unsigned char>(e[i]))) return "";
  return e;
}

bool inside(const fs::path& real, const fs::path& folder) {
  auto r = real.begin();
  for (auto f = folder.begin(); f != folder.end(); ++f, ++r)
    if (r == real.end() || *r != *f) return false;
  return true;
}

}  // namespace

ViewPlan plan_file(const std::string& path) {
  ViewPlan plan;
  plan.path = path;
  const fs::path name(fs::path(path).filename());
  plan.files.emplace_back(path, plain_name(name.string()) ? name : fs::path("model" + plain_extension(name)));
  return plan;
}

ViewPlan plan_view(const Model& m) {
  ViewPlan plan = plan_file(m.path);
  if (m.unreadable && !m.unreadable->empty()) {
    plan.refused = "condlint cannot read it as a model (" + *m.unreadable + ")";
    return plan;
  }
  std::error_code ec;
  const fs::path folder = fs::absolute(fs::path(m.path), ec).lexically_normal().parent_path();
  const fs::path folder_real = fs::weakly_canonical(folder, ec);
  const fs::path model_name = plan.files.front().second;
  for (const std::string& s : m.sources) {
    if (!fs::is_regular_file(s, ec)) continue;  // the runtime finds it missing, as condlint did
    const fs::path abs = fs::absolute(fs::path(s), ec).lexically_normal();
    const fs::path rel = abs.lexically_relative(folder);
    const fs::path real = fs::weakly_canonical(abs, ec);
    if (ec || rel.empty() || *rel.begin() == ".." || !inside(real, folder_real)) {
      plan.refused = "'" + s + "', which it reads, resolves outside the model's folder";
      return plan;
    }
    fs::path name = rel;
    if (m.ir && s == m.ir->weights_path) name = fs::path(model_name).replace_extension(".bin");
    plan.files.emplace_back(s, name);
  }
  return plan;
}

fs::path stage_view(const ViewPlan& plan, const fs::path& dir, std::string& error) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    error = "cannot create " + dir.string() + ": " + ec.message();
    return {};
  }
  for (const auto& [from, name] : plan.files) {
    const fs::path to = dir / name;
    if (to.has_parent_path()) fs::create_directories(to.parent_path(), ec);
    // The file itself, never a link: a link in the view could lead anywhere.
    const fs::path real = fs::canonical(from, ec);
    if (ec || !fs::is_regular_file(real, ec)) {
      error = "cannot read " + from.string();
      return {};
    }
    if (::link(real.c_str(), to.c_str()) != 0 && !fs::copy_file(real, to, fs::copy_options::overwrite_existing, ec)) {
      error = "cannot place " + from.string() + " in " + dir.string() + (ec ? ": " + ec.message() : "");
      return {};
    }
  }
  return dir / plan.files.front().second;
}

}  // namespace condlint::diff
