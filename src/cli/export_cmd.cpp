// condlint export: OpenVINO IR and NNAPI models as ONNX, exactly or not at all.
#include "cli/cli.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "export/export.hpp"
#include "report/terminal.hpp"

namespace condlint::cli {

namespace {

struct ExportCmdOptions {
  std::string model;
  std::string to = "onnx";
  std::string output;
  std::vector<std::string> pins;
  int64_t opset = 17;
  std::string data_out;
  std::string format = "text";
};

int run_export_cmd(const ExportCmdOptions& o) {
  xport::ExportOptions eo;
  eo.opset = o.opset;
  for (const auto& p : o.pins) {
    std::string node;
    bool value = false;
    if (!parse_pin(p, node, value)) {
      std::cerr << "condlint: --pin takes PATH=true|false (PATH is the If's path as `condlint run` names it, e.g. "
                   "main/if_0), got '"
                << term_safe(p) << "'\n";
      return kExitError;
    }
    eo.pins[node] = value;
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(o.model, ec)) {
    std::cerr << "condlint: " << term_safe(o.model) << ": no such file\n";
    return kExitError;
  }
  // The model is read once, here, through the front door; the exporter takes the Model.
  const LoadResult opened = open_model(o.model, exec_open_options());
  const std::vector<io::OutputTarget> outputs{{o.output, "the exported model"}};
  if (!save_dir_allowed(o.data_out, false) || !outputs_allowed(outputs, model_inputs({o.model}, {&opened}, {}, "")))
    return kExitError;
  if (!opened.model) {
    std::cerr << "condlint: " << term_safe(o.model + ": " + opened.io_error) << "\n";
    return kExitError;
  }
  const xport::ExportResult r = xport::export_model(*opened.model, o.model, eo);
  if (!r.error.empty()) {
    std::cerr << "condlint: " << term_safe(r.error) << "\n";
    return kExitError;
  }
  int data_sets = 0;
  std::string io_error;
  if (r.ok()) {
    std::string bytes;
    if (!r.model.SerializeToString(&bytes)) {
      io_error = "cannot serialize the exported model (over 2 GiB?)";
    } else {
      io_error = io::write_file(o.output, "the exported model", [&](std::ostream& f) { f << bytes; });
    }
    if (io_error.empty() && !o.data_out.empty()) io_error = xport::write_data_sets(o.model, r, o.data_out, &data_sets);
  }
  if (!io_error.empty() && o.format != "json") {
    std::cerr << "condlint: " << term_safe(io_error) << "\n";
    return kExitError;
  }
  if (o.format == "json") {
    nlohmann::json j;
    j["model"] = o.model;
    j["to"] = o.to;
    j["ok"] = r.ok() && io_error.empty();
    j["output"] = r.ok() ? nlohmann::json(o.output) : nlohmann::json();
    j["opset"] = o.opset;
    j["problems"] = r.problems;
    j["notes"] = r.notes;
    j["if_paths"] = r.if_paths;
    if (!o.data_out.empty()) j["data_sets_written"] = data_sets;
    if (!io_error.empty()) j["error"] = io_error;
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (r.ok()) {
    std::cout << term_safe(o.model) << ": exported to " << term_safe(o.output) << " (ONNX opset " << o.opset << ", "
              << r.model.graph().node_size() << " nodes in the main graph, " << r.if_paths.size() << " If)\n";
    for (const auto& [src, dst] : r.if_paths)
      if (src != dst) std::cout << "  If " << term_safe(src) << " -> " << term_safe(dst) << "\n";
    for (const auto& n : r.notes) std::cout << "  note: " << term_safe(n) << "\n";
    if (!o.data_out.empty() && io_error.empty())
      std::cout << "  " << data_sets << " data set(s) written to " << term_safe(o.data_out) << "\n";
  } else {
    std::cout << term_safe(o.model) << ": cannot be exported to ONNX exactly (" << r.problems.size() << " problem"
              << (r.problems.size() == 1 ? "" : "s") << "); nothing written\n";
    for (const auto& p : r.problems) std::cout << "  " << term_safe(p) << "\n";
  }
  if (!io_error.empty()) {
    std::cerr << "condlint: " << term_safe(io_error) << "\n";
    return kExitError;
  }
  // What was printed above reached standard output (a full disk or a closed pipe is exit 2).
  if (!write_report("", "the summary", [](std::ostream&) {})) return kExitError;
  return r.ok() ? kExitClean : kExitFindings;
}

}  // namespace

Command add_export_command(CLI::App& app, const Globals&) {
  auto opts = std::make_shared<ExportCmdOptions>();
  ExportCmdOptions& expo = *opts;
  auto* export_cmd = app.add_subcommand(
      "export",
      "Write an OpenVINO IR or NNAPI model as ONNX: exact, or refused naming the node\n\n"
      "Write an OpenVINO IR (.xml + .bin) or NNAPI (.nnapi.json) model as ONNX, so that ONNX-only runtimes\n"
      "(ONNX Runtime, cmd: runtimes of `condlint diff`) can run it. The export is exact or refused: an op, attribute\n"
      "or element type ONNX cannot express is a problem naming the node, and nothing is written.\n\n"
      "Examples:\n"
      "  condlint export model.xml --to onnx -o model.onnx\n"
      "  condlint export model.xml --to onnx -o then.onnx --pin main/if_cond=true     the If reads a constant\n"
      "  condlint export m.nnapi.json --to onnx -o m.onnx --data-out m_data           with golden data\n"
      "  condlint run model.onnx --data m_data                                        run the export\n\n"
      "If paths: --pin takes the source model's paths (as `condlint run --pin` names them: main/if_cond,\n"
      "main/loop/body/inner_if); the report lists the ONNX path of each If where it differs.\n"
      "Exit codes: 0 written, 1 the model cannot be exported exactly (problems listed), 2 usage or I/O error.");
  export_cmd->add_option("model", expo.model, "Model file: .xml (OpenVINO IR, .bin beside it), .nnapi.json or .onnx")
      ->required();
  export_cmd->add_option("--to", expo.to, "Target format")->check(CLI::IsMember({"onnx"}))->capture_default_str();
  export_cmd->add_option("-o,--output", expo.output, "The ONNX file to write")->required();
  export_cmd->add_option("--pin", expo.pins, "Pin an If's condition to a constant: PATH=true|false; repeatable");
  export_cmd->add_option("--opset", expo.opset, "ONNX opset of the exported model (IR export: 13 to 21)")
      ->capture_default_str();
  export_cmd->add_option("--data-out", expo.data_out,
                         "Also write the golden data as DIR/test_data_set_N/input_K.pb, output_K.pb (+ pins.json):\n"
                         "the model's own test_data_set_* (IR) or its examples (NNAPI)");
  export_cmd->add_option("--format", expo.format, "Report format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return {export_cmd, [opts] { return run_export_cmd(*opts); }};
}

}  // namespace condlint::cli
