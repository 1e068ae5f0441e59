// The executor's one entry for a loaded model of any format: its format's driver, chosen by a table.
#include "exec/branch_blame.hpp"
#include "exec/ir_exec.hpp"
#include "exec/nnapi_exec.hpp"
#include "exec/tflite_exec.hpp"
#include "exec/runner.hpp"

namespace condlint::exec {

namespace {

using Driver = ModelResult (*)(const Model&, const std::filesystem::path&, const RunConfig&);
ModelResult run_onnx_driver(const Model& m, const std::filesystem::path& p, const RunConfig& c) {
  return run_model(m, p, c);
}
constexpr std::pair<Format, Driver> kDrivers[] = {
    {Format::ONNX, run_onnx_driver},
    {Format::IR, run_ir_model},
    {Format::NNAPI, run_nnapi_model},
    {Format::TFLITE, run_tflite_model},
};

}  // namespace

ModelResult run_loaded(const Model& model, const std::filesystem::path& path, const RunConfig& cfg) {
  for (const auto& [format, driver] : kDrivers)
    if (format == model.format) {
      ModelResult r = driver(model, path, cfg);
      name_branches_of_failures(model, r);  // a failure after an If says under which branch it happened
      return r;
    }
  return model_error(path, path.string() + ": no executor for this format");
}

}  // namespace condlint::exec
