// condlint fix: the fixes of the findings that have one right answer, proven, then written (src/fix/).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/cli.hpp"
#include "fix/fix.hpp"
#include "io/output.hpp"
#include "loaders/loader.hpp"
#include "report/terminal.hpp"

namespace condlint::cli {

namespace {

struct FixCmdOptions {
  std::vector<std::string> models;
  std::string output;
  bool in_place = false, diff = false, unsafe = false, no_runtime = false;
  std::vector<std::string> rules;
};

std::string where(const Finding& f) {
  return f.loc.file + (f.loc.line > 0 ? ":" + std::to_string(f.loc.line) + ":" + std::to_string(f.loc.column) : "");
}

// The weights file an IR model reads (its .bin), "" for other formats or when there is none.
std::string weights_of(const fix::FixResult& r, const std::string& model) {
  if (r.format != Format::IR) return "";
  const std::filesystem::path bin = std::filesystem::path(model).replace_extension(".bin");
  std::error_code ec;
  return std::filesystem::exists(bin, ec) ? bin.string() : "";
}

// Writes the fixed (or, with nothing to fix, the unchanged) model to `out`, and an IR's .bin beside it.
bool write_model(const fix::FixResult& r, const std::string& model, const std::string& out) {
  const std::string& bytes = r.changed() ? r.fixed_bytes : r.original_bytes;
  if (!write_report(out, "the fixed model", [&](std::ostream& os) { os << bytes; })) return false;
  const std::string bin = weights_of(r, model);
  if (bin.empty()) return true;
  const std::string out_bin = std::filesystem::path(out).replace_extension(".bin").string();
  return write_report(out_bin, "the fixed model's weights", [&](std::ostream& os) {
    std::ifstream in(bin, std::ios::binary);
    os << in.rdbuf();
  });
}

int run_fix(const FixCmdOptions& o, std::ostream& out_stream) {
  if (static_cast<int>(!o.output.empty()) + static_cast<int>(o.in_place) + static_cast<int>(o.diff) != 1) {
    std::cerr << "condlint: fix needs one of -o OUT (write the fixed model there), --in-place (replace the model) or "
                 "--diff (show what would change)\n";
    return kExitError;
  }
  if (!o.output.empty() && o.models.size() != 1) {
    std::cerr << "condlint: -o takes one model; --in-place fixes several\n";
    return kExitError;
  }
  // Directories are walked as lint walks them.
  const Collected collected = collect_inputs(o.models);
  for (const auto& e : collected.errors) std::cerr << "condlint: " << term_safe(e) << "\n";
  if (!collected.errors.empty()) return kExitError;
  if (!o.output.empty() && collected.files.size() != 1) {
    std::cerr << "condlint: -o takes one model; --in-place fixes several\n";
    return kExitError;
  }
  fix::FixOptions fo;
  fo.unsafe = o.unsafe;
  fo.rules = o.rules;
  fo.prove_runtime = !o.no_runtime;
  int status = kExitClean;
  size_t applied = 0, failed = 0, files = 0;
  for (const std::string& model : collected.files) {
    const fix::FixResult r = fix::fix_model(model, fo);
    if (!r.error.empty()) {
      std::cerr << "condlint: " << term_safe(r.error) << "\n";
      status = kExitError;
      continue;
    }
    for (const auto& s : r.skipped) {
      out_stream << term_safe(where(s.finding)) << ": " << s.finding.rule << ": not fixed: " << term_safe(s.why) << "\n";
      if (s.finding.fixable == Fixable::Safe || o.unsafe) status = std::max(status, kExitFindings);
    }
    if (!r.changed()) {
      if (!o.output.empty()) {
        io::InputFiles in;
        in.add(model, "the model");
        if (const std::string bin = weights_of(r, model); !bin.empty()) in.add(bin, "the model's weights");
        if (!outputs_allowed({{o.output, "the fixed model"}}, in) || !write_model(r, model, o.output))
          status = kExitError;
      }
      continue;
    }
    if (!r.proof_failed.empty()) {
      out_stream << term_safe(model) << ": not fixed: the fixed model failed its proof: " << term_safe(r.proof_failed)
                << "\n";
      failed += r.applied.size();
      status = std::max(status, kExitFindings);
      continue;
    }
    for (const Fix& f : r.applied)
      out_stream << term_safe(where(Finding{f.rule, "", Level::Note, "", f.loc, f.safety, {}, {}, {}})) << ": "
                << (o.diff ? "would fix " : "fixed ") << f.rule << (f.safety == Fixable::Unsafe ? " (unsafe)" : "")
                << ": " << term_safe(f.description) << "\n";
    for (const auto& p : r.proof) out_stream << term_safe(model) << ": proof: " << term_safe(p) << "\n";
    if (r.fixable_after)
      out_stream << term_safe(model) << ": the fixed model has " << r.fixable_after
                << (r.fixable_after == 1 ? " finding" : " findings") << " fixable in turn: run condlint fix again\n";
    ++files;
    applied += r.applied.size();
    if (o.diff) {
      // Line by line: each line made safe for a terminal, the diff's own newlines kept.
      const std::string d = fix::diff_text(model, r);
      for (size_t at = 0; at < d.size();) {
        const size_t nl = std::min(d.find('\n', at), d.size());
        out_stream << term_safe(d.substr(at, nl - at)) << "\n";
        at = nl + 1;
      }
      status = std::max(status, kExitFindings);  // as git diff --exit-code and ruff --diff: changes are exit 1
      continue;
    }
    const std::string out = o.in_place ? model : o.output;
    if (o.in_place) {
      // A model marked read-only is not replaced, by root neither: --in-place replaces only what may be written.
      struct stat st {};
      if (::stat(model.c_str(), &st) == 0 && ((st.st_mode & 0222) == 0 || ::access(model.c_str(), W_OK) != 0)) {
        std::cerr << "condlint: " << term_safe(model) << " is read-only: not replaced (make it writable, or write the "
                  << "fixed model elsewhere with -o OUT)\n";
        status = kExitError;
        continue;
      }
    } else {
      io::InputFiles in;
      in.add(model, "the model");
      if (const std::string bin = weights_of(r, model); !bin.empty()) in.add(bin, "the model's weights");
      if (!outputs_allowed({{out, "the fixed model"}}, in)) {
        status = kExitError;
        continue;
      }
    }
    // --in-place: written to a temporary beside the model and renamed over it; the .bin is unchanged.
    const bool ok = o.in_place ? write_report(model, "the fixed model", [&](std::ostream& os) { os << r.fixed_bytes; })
                               : write_model(r, model, out);
    if (!ok) status = kExitError;
    else out_stream << term_safe(model) << ": wrote " << term_safe(out) << "\n";
  }
  out_stream << "summary: " << applied << (applied == 1 ? " fix " : " fixes ") << (o.diff ? "to apply" : "applied")
            << " in " << files << (files == 1 ? " file" : " files");
  if (failed) out_stream << ", " << failed << " not applied (proof failed)";
  out_stream << "\n";
  return status;
}

}  // namespace

int fix_in_place(const std::vector<std::string>& models, bool unsafe, std::ostream& messages) {
  FixCmdOptions o;
  o.models = models;
  o.in_place = true;
  o.unsafe = unsafe;
  return run_fix(o, messages);
}

Command add_fix_command(CLI::App& app, const Globals&) {
  auto opts = std::make_shared<FixCmdOptions>();
  FixCmdOptions& fo = *opts;
  auto* cmd = app.add_subcommand(
      "fix",
      "Repair the findings that have one right answer, prove the repair changed nothing else, write it\n\n"
      "Applies the fixes of the findings every report marks fixable (rules/<ID>.md, \"Fixable\"): safe fixes keep\n"
      "the model's outputs identical on every branch (IR009: the port-map entry OpenVINO ignores; IR011: a Result no\n"
      "port map names; ONNX011: a branch's copy of an equal outer initializer; IR020, C012); unsafe fixes, which\n"
      "change what some runtime computes, only with --unsafe-fixes (C002: an IR's number condition converted to\n"
      "boolean). Each fixed model is proven before it is written: linted again (the fixed findings gone, nothing\n"
      "new at warning or above), run in the reference executor against the original on the same inputs (its golden\n"
      "data, else random inputs) on every branch reached, and, where installed, loaded by the runtime that reads the\n"
      "format (OpenVINO for IR, ONNX Runtime for ONNX) if it loaded the original. A fix that fails its proof is not written, and the output says why.\n\n"
      "Examples:\n"
      "  condlint fix model.xml --diff                 show what would change (exit 1 when something would)\n"
      "  condlint fix model.xml -o fixed.xml           write the fixed model (and fixed.bin) there\n"
      "  condlint fix models/*.onnx --in-place         replace each model (a temporary beside it, renamed)\n\n"
      "Exit codes: 0 fixed (or nothing to fix), 1 a fix not applied or --diff shows changes, 2 usage or I/O error.");
  cmd->add_option("models", fo.models, "Model files (.xml + .bin, .onnx) or directories, walked as lint walks them")
      ->required();
  cmd->add_option("-o,--output", fo.output, "Write the fixed model to FILE (one model; an IR's .bin beside it)");
  cmd->add_flag("--in-place", fo.in_place, "Replace each model with its fixed version (its .bin is unchanged)");
  cmd->add_flag("--diff", fo.diff, "Print what would change (a unified diff of an IR's XML) and write nothing");
  cmd->add_flag("--unsafe-fixes", fo.unsafe,
                "Also apply fixes that change what some runtime computes (listed as available otherwise)");
  cmd->add_option("--rule", fo.rules, "Only the fixes of these rules (an ID or a prefix); repeatable");
  cmd->add_flag("--no-runtime-proof", fo.no_runtime,
                "Leave out the last step of the proof (the installed runtime's verdict on the fixed model)");
  return {cmd, [opts] { return run_fix(*opts, std::cout); }};
}

}  // namespace condlint::cli
