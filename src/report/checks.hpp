// Executor and diff results as report data: per conditional and branch, the outcome of every data set x pin
// set x output (max abs/rel error against the tolerance, first mismatching index). The HTML writer renders
// them beside each conditional's then/else panel; `condlint run` and `condlint diff` get HTML pages from them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "loaders/loader.hpp"
#include "report/report.hpp"

namespace condlint::exec {
struct ModelResult;
}
namespace condlint::diff {
struct ModelDiff;
struct DiffResult;
}  // namespace condlint::diff

namespace condlint {

// The rows of `condlint run` / `lint --exec` results (executor vs golden data).
CheckReport checks_from_run(const exec::ModelResult& r);
// The rows of one model of `condlint diff` (runtime A vs runtime B).
CheckReport checks_from_diff(const diff::ModelDiff& m, const std::vector<std::string>& runtimes);

// Stores `c` on the file and ties each If to the file's conditional summary by its path (the executors name an
// If as Model::full_path_of does). Call after FileResult::conditionals is filled.
void attach_checks(FileResult& f, CheckReport c);

// Self-contained HTML pages of `condlint run` and `condlint diff`: the lint report's chrome, the
// conditionals' then/else panels (when the model loads) and the per-branch tables. `exit_code` goes
// into the page header. The panels and the format come from what the command opened (`opened`: may be null; for
// diff one per model of `r`): a writer never opens a model file.
void write_run_html(std::ostream& os, const exec::ModelResult& r, int exit_code, const LoadResult* opened);
void write_diff_html(std::ostream& os, const diff::DiffResult& r, int exit_code,
                     const std::vector<const LoadResult*>& opened);

// Text and JSON reports of `condlint run` and `condlint diff` (exec_writers.cpp). The text is terminal-safe.
void write_run_text(std::ostream& os, const exec::ModelResult& r);
void write_run_json(std::ostream& os, const exec::ModelResult& r);
void write_diff_text(std::ostream& os, const diff::DiffResult& r);
void write_diff_json(std::ostream& os, const diff::DiffResult& r);

}  // namespace condlint
