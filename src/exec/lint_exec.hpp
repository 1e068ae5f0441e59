// `condlint lint --exec`: runs the reference executor wherever golden data sits beside a model and stores what
// it found on the Model (Model::exec) for the EX rules (EX001 golden-mismatch, EX002 branch-failed,
// EX003 unsupported-op) to report.
#pragma once

#include <string>

#include "exec/runner.hpp"
#include "model/model.hpp"

namespace condlint::exec {

// True when golden data sits beside the model: a test_data_set_* directory in its directory (IR, ONNX) or a
// symbolic link of that name leading nowhere (data not checked out: its run fails), or `examples` in the
// document (NNAPI).
bool has_golden_data(const Model& model, const std::string& path);

// Runs the model (both branches of every If) on that data and fills model.exec. Leaves model.exec null when
// there is no golden data or the model cannot be executed at all (the static rules report why).
void attach_exec_results(Model& model, const std::string& path, const RunConfig& cfg = {});
// The same, also handing back the whole run (the HTML report's per-branch tables read it). `run` stays empty
// (model "") when nothing ran.
void attach_exec_results(Model& model, const std::string& path, const RunConfig& cfg, ModelResult* run);

// The ExecResults a ModelResult gives (exposed for tests).
ExecResults exec_results_from(const Model& model, const ModelResult& r);

}  // namespace condlint::exec
