// The command line as people type it: see argv.hpp.
#include "cli/argv.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "rules/engine.hpp"

namespace condlint::cli {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two adjacent characters.
size_t edit_distance(const std::string& a, const std::string& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i)
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

// The longest word a typo is looked for in: longer ones (a path given where a command was meant) get no hint.
constexpr size_t kMaxHintedWord = 64;

size_t allowed_distance(size_t length) { return length <= 4 ? 1 : length <= 8 ? 2 : 3; }

bool is_global(const CLI::App& app, const std::string& name) { return app.get_option_no_throw(name) != nullptr; }

// The option `token` names (its part before '=') in this command, or null.
const CLI::Option* option_of(const CLI::App& cmd, const std::string& token) {
  if (token.size() < 2 || token[0] != '-') return nullptr;
  const std::string name = token.substr(0, token.find('='));
  const CLI::Option* o = cmd.get_option_no_throw(name);
  return o && o->nonpositional() ? o : nullptr;
}

bool takes_value(const CLI::Option& o, const std::string& token) {
  return o.get_items_expected_max() > 0 && token.find('=') == std::string::npos &&
         // -jN: a short option with its value attached.
         !(token.size() > 2 && token[1] != '-');
}

// True when `token` names a value-taking option of some command (and carries no value of its own).
bool any_command_takes_value(const CLI::App& app, const std::string& token) {
  for (const CLI::App* sub : app.get_subcommands({}))
    if (const CLI::Option* o = option_of(*sub, token); o && takes_value(*o, token)) return true;
  return false;
}

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::App* sub : app.get_subcommands({}))
    if (!sub->get_name().empty()) out.push_back(sub->get_name());
  return out;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i ? ", " : "") + words[i];
  return out;
}

}  // namespace

std::vector<std::string> nearest_words(const std::string& word, const std::vector<std::string>& candidates,
                                       size_t max_count) {
  if (word.empty() || word.size() > kMaxHintedWord) return {};
  const std::string w = lower(word);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(w, lower(c));
    if (d <= allowed_distance(std::max(w.size(), c.size())) && d < std::max(w.size(), c.size()))
      scored.emplace_back(d, c);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [d, c] : scored)
    if (out.size() < max_count && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  return out;
}

std::string did_you_mean(const std::vector<std::string>& words) {
  if (words.empty()) return "";
  std::string out = " (did you mean ";
  for (size_t i = 0; i < words.size(); ++i)
    out += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + ("'" + words[i] + "'");
  return out + "?)";
}

void one_value_per_occurrence(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    for (CLI::Option* o : sub->get_options())
      if (o->nonpositional() && o->get_items_expected_max() > 1) o->allow_extra_args(false);
    one_value_per_occurrence(*sub);
  }
}

std::string SummaryFormatter::make_subcommand(const CLI::App* sub) const {
  const std::string& d = sub->get_description();
  std::stringstream out;
  CLI::detail::format_help(out, sub->get_display_name(true), d.substr(0, d.find('\n')), get_column_width());
  return out.str();
}

CommandLine normalize_command_line(const CLI::App& app, int argc, char** argv) {
  CommandLine line;
  std::vector<std::string> globals, moved;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string t = argv[i];
    if (t == "--") break;
    if (t.size() > 1 && t[0] == '-') {
      if (is_global(app, t.substr(0, t.find('=')))) {
        globals.push_back(t);
        continue;
      }
      moved.push_back(t);
      if (any_command_takes_value(app, t) && i + 1 < argc) moved.push_back(argv[++i]);
      continue;
    }
    const std::vector<std::string> names = command_names(app);
    if (std::find(names.begin(), names.end(), t) == names.end()) {
      line.error = "unknown command '" + t + "'" + did_you_mean(nearest_words(t, names)) +
                   "; the commands: " + joined(names) + " (condlint --help)";
      return line;
    }
    line.command = t;
    ++i;
    break;
  }
  const bool asks_help = std::any_of(globals.begin(), globals.end(), [](const std::string& g) {
    return g == "-h" || g == "--help" || g == "--version";
  });
  if (line.command.empty() && !asks_help) {
    line.error = "a command is required: " + joined(command_names(app)) + " (condlint --help)";
    return line;
  }
  line.args = globals;
  if (!line.command.empty()) line.args.push_back(line.command);
  line.args.insert(line.args.end(), moved.begin(), moved.end());
  for (; i < argc; ++i) line.args.push_back(argv[i]);
  return line;
}

std::string unknown_option_hint(const CLI::App& app, const CommandLine& line) {
  const CLI::App* cmd = nullptr;
  for (const CLI::App* sub : app.get_subcommands({}))
    if (sub->get_name() == line.command) cmd = sub;
  if (!cmd) return "";
  // The command's subcommand (import nnapi-testmodel) when one is named.
  auto pos = std::find(line.args.begin(), line.args.end(), line.command);
  for (auto it = pos; it != line.args.end(); ++it)
    for (const CLI::App* sub : cmd->get_subcommands({}))
      if (sub->get_name() == *it) cmd = sub;
  std::vector<std::string> names;
  for (const CLI::App* scope : {cmd, &app})
    for (const CLI::Option* o : scope->get_options())
      for (const auto& l : o->get_lnames()) names.push_back("--" + l);
  for (auto it = pos == line.args.end() ? pos : pos + 1; it != line.args.end(); ++it) {
    const std::string& t = *it;
    if (t == "--") break;
    if (t.size() < 2 || t[0] != '-') continue;
    const CLI::Option* o = option_of(*cmd, t);
    if (!o) o = option_of(app, t);
    if (o) {
      if (takes_value(*o, t) && it + 1 != line.args.end()) ++it;
      continue;
    }
    // A negative number is a value, not an option.
    if (std::isdigit(static_cast<unsigned char>(t[1])) || t[1] == '.') continue;
    const std::string name = t.substr(0, t.find('='));
    std::string where = cmd->get_name();
    for (const CLI::App* p = cmd->get_parent(); p && p != &app; p = p->get_parent()) where = p->get_name() + " " + where;
    return "unknown option '" + name + "' for `condlint " + where + "`" + did_you_mean(nearest_words(name, names)) +
           "; `condlint " + where + " --help` lists its options";
  }
  return "";
}

std::vector<std::string> nearest_rule_ids(const std::string& selector) {
  std::vector<std::string> ids;
  for (const RuleDef* r : all_rules()) ids.emplace_back(r->id);
  // Letters and a number: the ID with the same letters and number (C06, c6 -> C006) is meant.
  const std::string s = lower(selector);
  const size_t digits = s.find_first_of("0123456789");
  std::vector<std::string> out;
  if (digits != std::string::npos && digits > 0 && s.find_first_not_of("0123456789", digits) == std::string::npos &&
      s.size() - digits <= 6) {
    const std::string letters = s.substr(0, digits);
    const long number = std::stol(s.substr(digits));
    for (const auto& id : ids) {
      const std::string l = lower(id);
      const size_t d = l.find_first_of("0123456789");
      if (d != std::string::npos && l.substr(0, d) == letters && std::stol(l.substr(d)) == number) out.push_back(id);
    }
  }
  for (const auto& id : nearest_words(selector, ids))
    if (out.size() < 3 && std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  return out;
}

}  // namespace condlint::cli
