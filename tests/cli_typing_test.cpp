// The command line takes what people type (issue 48): options anywhere and one value each time they appear, a
// command's options before the command, `--`, the nearest command, option and rule for a typo, one line per command
// in --help, one finding per missing file at the level the runtimes' verdict supports, and a baseline made in
// another working directory.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <fstream>

#include "test_support.hpp"

using namespace condlint::test;
namespace fs = std::filesystem;

namespace {

std::string src(const std::string& rel) { return shell_quote((source_dir() / rel).string()); }

const std::string kWarnModel = "corpus/ir/invalid/C010_both_branches.xml";  // one warning, no error
const std::string kErrorModel = "corpus/ir/invalid/C006_branch_types.xml";

// `--disable X file -o r.txt`: a repeatable option takes one value, the path after it is a path.
TEST(CliTyping, ARepeatableOptionTakesOneValueAndPathsGoAnywhere) {
  const fs::path d = fresh_dir("typing-opts");
  const std::string report = (d / "r.txt").string();
  auto r = run(condlint_cmd() + " lint --disable C011 " + src(kErrorModel) + " -o " + shell_quote(report) + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(slurp(report).find("[C006]"), std::string::npos) << r.out;
  const std::string page = (d / "p.html").string();
  r = run(condlint_cmd() + " lint --target onnxruntime " + src(kErrorModel) + " --html " + shell_quote(page) + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(slurp(page).find("<html"), std::string::npos) << r.out;
  // Two values of a repeatable option, each after its own flag, and the paths between them.
  r = run(condlint_cmd() + " lint --disable C006 " + src(kErrorModel) + " --disable C007 " + src(kWarnModel) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("2 files checked"), std::string::npos) << r.out;
}

// `--` ends the options: a file named like an option is a file, and nothing is written for it.
TEST(CliTyping, DoubleDashEndsTheOptions) {
  const fs::path d = fresh_dir("typing-dashdash");
  fs::copy_file(source_dir() / kErrorModel, d / "--html=victim.xml");
  write_file(d / "victim.xml", "keep");
  auto r = run("cd " + shell_quote(d.string()) + " && " + condlint_cmd() + " lint -- --html=victim.xml 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("[C006]"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(d / "victim.xml"), "keep");
}

// Options of a command given before the command are the command's.
TEST(CliTyping, ACommandsOptionsBeforeTheCommandAreTaken) {
  auto r = run(condlint_cmd() + " --fail-on warning lint " + src(kWarnModel) + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("[C010]"), std::string::npos) << r.out;
  r = run(condlint_cmd() + " --disable C010 -v lint " + src(kWarnModel) + " --fail-on warning 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  // An option no command has is still an error.
  r = run(condlint_cmd() + " --no-such-option lint " + src(kWarnModel) + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

// An unknown command is exit 2 whatever follows it, with the nearest command; options and rule IDs get theirs.
TEST(CliTyping, TyposGetTheNearestCommandOptionAndRule) {
  auto r = run(condlint_cmd() + " lnit " + src(kWarnModel) + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("unknown command 'lnit' (did you mean 'lint'?)"), std::string::npos) << r.out;
  r = run(condlint_cmd() + " fixx --help 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("unknown command 'fixx'"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Usage:"), std::string::npos) << "no help for a command that does not exist\n" << r.out;
  r = run(condlint_cmd() + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("a command is required: lint, "), std::string::npos) << r.out;
  r = run(condlint_cmd() + " rules C06 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("did you mean 'C006'?"), std::string::npos) << r.out;
  r = run(condlint_cmd() + " lint --disable ir19 " + src(kWarnModel) + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("(did you mean 'IR019', "), std::string::npos) << "the same letters and number first\n" << r.out;
  r = run(condlint_cmd() + " lint --fial-on warning " + src(kWarnModel) + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("unknown option '--fial-on' for `condlint lint` (did you mean '--fail-on'?)"),
            std::string::npos)
      << r.out;
  r = run(condlint_cmd() + " run --radnom 1 " + src(kWarnModel) + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("did you mean '--random'?"), std::string::npos) << r.out;
  // A word far from every command gets the list, not a guess.
  r = run(condlint_cmd() + " model.onnx 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out.find("did you mean"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the commands: lint, merge, rules"), std::string::npos) << r.out;
}

// `condlint --help` lists each command on one line; a command's own help has its whole description.
TEST(CliTyping, HelpListsOneLinePerCommand) {
  auto h = run(condlint_cmd() + " --help");
  ASSERT_EQ(h.exit_code, 0);
  const size_t at = h.out.find("Subcommands:\n");
  ASSERT_NE(at, std::string::npos) << h.out;
  std::string list = h.out.substr(at + 13);
  list = list.substr(0, list.find("\n\n"));
  int lines = 0;
  for (size_t p = 0; p < list.size(); p = list.find('\n', p) + 1) {
    ++lines;
    // "  NAME   summary": a line that starts with more than two spaces continues the one above.
    EXPECT_NE(list.substr(p, 3), "   ") << "a continuation line in the command list:\n" << list;
    if (list.find('\n', p) == std::string::npos) break;
  }
  EXPECT_EQ(lines, 8) << list;
  auto e = run(condlint_cmd() + " export --help");
  EXPECT_NE(e.out.find("Examples:"), std::string::npos) << e.out;
}

// A model whose 14 initializers live in one missing file: one finding, an error (onnx's checker, ONNX Runtime and
// OpenVINO refuse such a model); an IR without its .bin: an error too (OpenVINO's read_model refuses it).
TEST(CliTyping, AMissingFileIsOneErrorForAllItsTensors) {
  const fs::path d = fresh_dir("typing-external");
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("g");
  onnx::NodeProto* concat = g->add_node();
  concat->set_op_type("Concat");
  onnx::AttributeProto* axis = concat->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  constexpr int kTensors = 14;
  for (int i = 0; i < kTensors; ++i) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name("w" + std::to_string(i));
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(4);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    for (auto [k, v] : {std::pair<std::string, std::string>{"location", "weights.bin"},
                        {"offset", std::to_string(16 * i)},
                        {"length", "16"}}) {
      auto* e = t->add_external_data();
      e->set_key(k);
      e->set_value(v);
    }
    concat->add_input(t->name());
  }
  concat->add_output("y");
  onnx::ValueInfoProto* y = g->add_output();
  y->set_name("y");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  y->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(4 * kTensors);
  {
    std::ofstream out(d / "m.onnx", std::ios::binary);
    ASSERT_TRUE(m.SerializeToOstream(&out));
  }
  auto r = run(condlint_cmd() + " lint --show all " + shell_quote((d / "m.onnx").string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(count(r.out, "[ONNX015]"), 1) << r.out;
  EXPECT_NE(r.out.find("error: external data file \"weights.bin\" does not exist beside the model; 14 tensors"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("and 11 more"), std::string::npos) << r.out;
  // With the file there, nothing.
  write_file(d / "weights.bin", std::string(16 * kTensors, '\0'));
  r = run(condlint_cmd() + " lint --show all " + shell_quote((d / "m.onnx").string()) + " 2>&1");
  EXPECT_EQ(count(r.out, "[ONNX015]"), 0) << r.out;
  // An IR whose Consts read a .bin that is not there.
  fs::copy_file(source_dir() / "corpus/ir/valid/cond_from_const.xml", d / "ir.xml");
  r = run(condlint_cmd() + " lint " + shell_quote((d / "ir.xml").string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("error: 2 Const layer(s) read from ir.bin"), std::string::npos) << r.out;
}

// A baseline made at the root of a tree and used from a subfolder, or from a copy of the tree elsewhere, matches
// its results by paths relative to its own root: nothing is new.
TEST(CliTyping, ABaselineMadeInAnotherDirectoryMatchesByItsOwnRoot) {
  const fs::path root = fresh_dir("typing-baseline");
  fs::create_directories(root / "models");
  fs::copy_file(source_dir() / kErrorModel, root / "models" / "bad.xml");
  auto made = run("cd " + shell_quote(root.string()) + " && " + condlint_cmd() +
                  " lint models --sarif base.sarif >/dev/null 2>&1; echo $?");
  ASSERT_EQ(made.out, "1\n");
  // From the subfolder.
  auto r = run("cd " + shell_quote((root / "models").string()) + " && " + condlint_cmd() +
               " lint bad.xml --baseline ../base.sarif 2>&1");
  EXPECT_EQ(r.exit_code, 0) << "no new result fails\n" << r.out;
  EXPECT_NE(r.out.find(" 0 new, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" 0 absent"), std::string::npos) << r.out;
  // From a copy of the tree in another place, the baseline at its root.
  const fs::path copy = fresh_dir("typing-baseline-copy");
  fs::copy(root, copy, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  r = run("cd " + shell_quote((copy / "models").string()) + " && " + condlint_cmd() +
          " lint . --baseline ../base.sarif 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(" 0 new, "), std::string::npos) << r.out;
  // A real change is still new.
  fs::copy_file(source_dir() / "corpus/ir/invalid/C011_branch_shapes.xml", copy / "models" / "bad.xml",
                fs::copy_options::overwrite_existing);
  r = run("cd " + shell_quote((copy / "models").string()) + " && " + condlint_cmd() +
          " lint . --baseline ../base.sarif --show all 2>&1");
  EXPECT_NE(r.out.find("(new)"), std::string::npos) << r.out;
}

}  // namespace
