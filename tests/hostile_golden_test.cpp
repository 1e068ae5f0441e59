// Golden data and deadlines under hostile use (docs/hardening.md, "Golden data and deadlines"): golden files that
// are not there (a FIFO, a directory, a dangling link, an LFS or git-annex pointer) fail their data set and never
// pass it or hang; mismatch messages cut long values; `run` and `diff` stop at the whole command's --timeout; a
// refusal by a resource limit is said as that; diff's work directory goes on every way out.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "diff/diff.hpp"
#include "exec/compare.hpp"
#include "exec/onnx_io.hpp"
#include "tests/test_support.hpp"

namespace hostile_golden {

namespace fs = std::filesystem;
using condlint::exec::DT;
using condlint::exec::Tensor;
using condlint::exec::Value;
using condlint::test::condlint_cmd;
using condlint::test::run;
using condlint::test::shell_quote;
using condlint::test::write_file;

const char* const kLfsPointer =
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    "size 27\n";

// A copy of the ONNX corpus model with golden data (one data set: input_0, input_1, output_0) under `tag`.
fs::path onnx_case(const std::string& tag) {
  const fs::path d = condlint::test::fresh_dir("golden-" + tag);
  fs::copy(condlint::test::source_dir() / "corpus/onnx/exec/branch_coverage", d, fs::copy_options::recursive);
  return d;
}

// The ways a golden file can be missing in place: each replaces `file` (which exists) with something that is not
// the data, and says which words the failure must carry.
struct NotThere {
  const char* name;
  std::function<void(const fs::path&)> make;
  const char* says;
};

std::vector<NotThere> not_there() {
  return {
      {"fifo", [](const fs::path& p) { ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0); }, "is a FIFO, not a regular file"},
      {"dangling-link", [](const fs::path& p) { ASSERT_EQ(::symlink("no-such-file.pb", p.c_str()), 0); },
       "is a dangling symbolic link"},
      {"annex-link",
       [](const fs::path& p) {
         ASSERT_EQ(::symlink("../../.git/annex/objects/Xk/Q2/SHA256E-s27--4d7a.pb/SHA256E-s27--4d7a.pb", p.c_str()), 0);
       },
       "git annex get"},
      {"directory", [](const fs::path& p) { fs::create_directory(p); }, "is a directory, not a regular file"},
      {"lfs-pointer", [](const fs::path& p) { write_file(p, kLfsPointer); }, "is a git-LFS pointer, not the data"},
  };
}

void replace(const fs::path& file, const NotThere& how) {
  fs::remove(file);
  how.make(file);
}

TEST(HostileGolden, AGoldenOutputThatIsNotThereFailsItsDataSet) {
  for (const NotThere& how : not_there()) {
    SCOPED_TRACE(how.name);
    const fs::path d = onnx_case(std::string("out-") + how.name);
    replace(d / "test_data_set_0" / "output_0.pb", how);
    const std::string model = shell_quote((d / "branch_coverage.onnx").string());
    const auto r = run("timeout 60 " + condlint_cmd() + " run " + model + " 2>&1");
    EXPECT_EQ(r.exit_code, 1) << r.out;  // 0 when the output was skipped, 124 when it waited on the FIFO
    EXPECT_NE(r.out.find("output_0.pb is "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(how.says), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("passed  test_data_set_0\n"), std::string::npos) << r.out;

    const auto lint = run("timeout 60 " + condlint_cmd() + " lint --exec " + model + " 2>&1");
    EXPECT_EQ(lint.exit_code, 1) << lint.out;
    EXPECT_NE(lint.out.find("[EX001]"), std::string::npos) << lint.out;
    EXPECT_NE(lint.out.find(how.says), std::string::npos) << lint.out;
  }
}

TEST(HostileGolden, AGoldenInputThatIsNotThereFailsRunAndStopsDiff) {
  for (const NotThere& how : not_there()) {
    SCOPED_TRACE(how.name);
    const fs::path d = onnx_case(std::string("in-") + how.name);
    replace(d / "test_data_set_0" / "input_0.pb", how);
    const std::string model = shell_quote((d / "branch_coverage.onnx").string());
    const auto r = run("timeout 60 " + condlint_cmd() + " run " + model + " 2>&1");
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("input_0.pb is "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(how.says), std::string::npos) << r.out;
    const auto diff = run("timeout 60 " + condlint_cmd() + " diff " + model + " --runtime ref --runtime ref 2>&1");
    EXPECT_EQ(diff.exit_code, 2) << diff.out;  // the inputs cannot be prepared: an I/O error, as a missing input
    EXPECT_NE(diff.out.find(how.says), std::string::npos) << diff.out;
  }
}

TEST(HostileGolden, IrGoldenDataThatIsNotThereFails) {
  const fs::path d = condlint::test::fresh_dir("golden-ir");
  fs::copy(condlint::test::source_dir() / "corpus/ir/exec/spec_if", d, fs::copy_options::recursive);
  fs::remove(d / "test_data_set_1" / "output_0.pb");
  ASSERT_EQ(::mkfifo((d / "test_data_set_1" / "output_0.pb").c_str(), 0644), 0);
  const auto r = run("timeout 60 " + condlint_cmd() + " run " + shell_quote((d / "spec_if.xml").string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("output_0.pb is a FIFO, not a regular file"), std::string::npos) << r.out;
}

TEST(HostileGolden, ADataSetDirectoryThatLeadsNowhereFails) {
  const fs::path d = onnx_case("set-link");
  fs::create_symlink("../.git/annex/objects/set", d / "test_data_set_1");
  const auto r =
      run("timeout 60 " + condlint_cmd() + " run " + shell_quote((d / "branch_coverage.onnx").string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("test_data_set_1 is a dangling symbolic link: is the data checked out?"), std::string::npos)
      << r.out;
  // The only data set beside the model, not checked out: lint --exec says so too.
  fs::remove_all(d / "test_data_set_0");
  const auto lint = run("timeout 60 " + condlint_cmd() + " lint --exec " +
                        shell_quote((d / "branch_coverage.onnx").string()) + " 2>&1");
  EXPECT_EQ(lint.exit_code, 1) << lint.out;
  EXPECT_NE(lint.out.find("test_data_set_1 is a dangling symbolic link"), std::string::npos) << lint.out;
}

// What golden_file_problem accepts: regular files holding data, through a link too; short files that are no
// pointer (a scalar's .pb is a few bytes) are data.
TEST(HostileGolden, RegularGoldenFilesAreData) {
  const fs::path d = condlint::test::fresh_dir("golden-regular");
  write_file(d / "output_0.pb", std::string("\x08\x01\x10\x07", 4));
  fs::create_symlink("output_0.pb", d / "output_1.pb");
  write_file(d / "output_2.pb", "");
  EXPECT_EQ(condlint::exec::golden_file_problem(d / "output_0.pb"), "");
  EXPECT_EQ(condlint::exec::golden_file_problem(d / "output_1.pb"), "");
  EXPECT_EQ(condlint::exec::golden_file_problem(d / "output_2.pb"), "");
  write_file(d / "output_3.pb", "/annex/objects/SHA256E-s27--4d7a.pb\n");
  EXPECT_NE(condlint::exec::golden_file_problem(d / "output_3.pb").find("git-annex pointer"), std::string::npos);
}

// ---- values in messages

Value text_tensor(const std::string& s) {
  Tensor t(DT::Str, {1});
  t.s[0] = s;
  return Value::tensor(std::move(t));
}

TEST(HostileGolden, MismatchMessagesCutLongValuesAndSayTheirLength) {
  const std::string big(1'000'000, 'b');
  const auto c = condlint::exec::compare_values(text_tensor("a" + big), text_tensor(big), std::nullopt, std::nullopt);
  ASSERT_FALSE(c.ok);
  EXPECT_LT(c.reason.size(), 400u) << c.reason.substr(0, 400);
  EXPECT_NE(c.reason.find("(1000001 bytes)"), std::string::npos) << c.reason.substr(0, 400);
  EXPECT_NE(c.reason.find("(1000000 bytes)"), std::string::npos) << c.reason.substr(0, 400);
  // A cut never splits a UTF-8 character.
  const std::string wide = condlint::exec::quoted_cut(std::string(63, 'x') + "\xc3\xa9" + big);
  EXPECT_EQ(wide.substr(0, 65), "\"" + std::string(63, 'x') + "\xe2") << wide;

  Tensor a(DT::F32, condlint::exec::Dims(100'000, 1)), e(DT::F32, condlint::exec::Dims(99'999, 1));
  const auto shapes = condlint::exec::compare_values(Value::tensor(a), Value::tensor(e), std::nullopt, std::nullopt);
  ASSERT_FALSE(shapes.ok);
  EXPECT_LT(shapes.reason.size(), 400u) << shapes.reason.substr(0, 400);
  EXPECT_NE(shapes.reason.find("(rank 100000)"), std::string::npos) << shapes.reason.substr(0, 400);
}

// ---- small ONNX models for the command-line cases

onnx::ValueInfoProto value_info(const std::string& name, int elem, const std::vector<int64_t>& dims) {
  onnx::ValueInfoProto v;
  v.set_name(name);
  auto* tt = v.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* shape = tt->mutable_shape();
  for (int64_t x : dims) shape->add_dim()->set_dim_value(x);
  return v;
}

onnx::NodeProto* add_node(onnx::GraphProto& g, const std::string& op, const std::vector<std::string>& in,
                          const std::vector<std::string>& out) {
  auto* n = g.add_node();
  n->set_op_type(op);
  n->set_name(op + "_" + std::to_string(g.node_size()));
  for (const auto& i : in) n->add_input(i);
  for (const auto& o : out) n->add_output(o);
  return n;
}

onnx::GraphProto* graph_attribute(onnx::NodeProto* n, const std::string& name) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name(name);
  return a->mutable_g();
}

void add_constant(onnx::GraphProto& g, const std::string& name, const Value& v) {
  auto* a = add_node(g, "Constant", {}, {name})->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  condlint::exec::tensor_to_proto(*v.t, *a->mutable_t());
}

onnx::ModelProto model_of(const onnx::GraphProto& g) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  *m.mutable_graph() = g;
  return m;
}

Value scalar(DT dt, int64_t v) {
  Tensor t(dt, {});
  t.i[0] = v;
  return Value::tensor(std::move(t));
}

Value one_float(double v) {
  Tensor t(DT::F32, {1});
  t.f[0] = v;
  return Value::tensor(std::move(t));
}

// A Loop of a million trips over `v` (float [1]): `body_extra` adds to its body before the carried value passes.
void add_loop(onnx::GraphProto& g, const std::string& in, const std::string& out,
              const std::function<void(onnx::GraphProto&, const std::string&, const std::string&)>& body_extra) {
  auto* loop = add_node(g, "Loop", {"trips", "yes", in}, {out});
  onnx::GraphProto& body = *graph_attribute(loop, "body");
  *body.add_input() = value_info(out + "_i", onnx::TensorProto::INT64, {});
  *body.add_input() = value_info(out + "_c", onnx::TensorProto::BOOL, {});
  *body.add_input() = value_info(out + "_v", onnx::TensorProto::FLOAT, {1});
  add_node(body, "Identity", {out + "_c"}, {out + "_co"});
  body_extra(body, out + "_v", out + "_vo");
  *body.add_output() = value_info(out + "_co", onnx::TensorProto::BOOL, {});
  *body.add_output() = value_info(out + "_vo", onnx::TensorProto::FLOAT, {1});
}

// y = If(c) then { a Loop of a million trips, each a Loop of a million trips } else { 0 }: the then branch runs
// until a time limit stops it. One data set: c = true, y = 0.
fs::path slow_model(const std::string& tag) {
  onnx::GraphProto g;
  g.set_name("main");
  *g.add_input() = value_info("c", onnx::TensorProto::BOOL, {});
  *g.add_output() = value_info("y", onnx::TensorProto::FLOAT, {1});
  add_constant(g, "trips", scalar(DT::I64, 1'000'000));
  add_constant(g, "yes", scalar(DT::Bool, 1));
  add_constant(g, "zero", one_float(0));
  auto* cond = add_node(g, "If", {"c"}, {"y"});
  onnx::GraphProto& then_g = *graph_attribute(cond, "then_branch");
  add_loop(then_g, "zero", "outer", [](onnx::GraphProto& body, const std::string& v, const std::string& vo) {
    add_loop(body, v, vo, [](onnx::GraphProto& inner, const std::string& w, const std::string& wo) {
      add_node(inner, "Identity", {w}, {wo});
    });
  });
  *then_g.add_output() = value_info("outer", onnx::TensorProto::FLOAT, {1});
  onnx::GraphProto& else_g = *graph_attribute(cond, "else_branch");
  add_node(else_g, "Identity", {"zero"}, {"e"});
  *else_g.add_output() = value_info("e", onnx::TensorProto::FLOAT, {1});

  const fs::path d = condlint::test::fresh_dir("golden-" + tag);
  write_file(d / "slow.onnx", model_of(g).SerializeAsString());
  write_file(d / "test_data_set_0" / "input_0.pb", condlint::exec::write_pb_value(scalar(DT::Bool, 1), "c"));
  write_file(d / "test_data_set_0" / "output_0.pb", condlint::exec::write_pb_value(one_float(0), "y"));
  return d / "slow.onnx";
}

TEST(HostileGolden, RunStopsAtTheWholeCommandsTimeout) {
  const fs::path model = slow_model("timeout-run");
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run("timeout 100 " + condlint_cmd() + " run " + shell_quote(model.string()) + " --timeout 2 2>&1");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 1) << r.out;  // a failed run
  EXPECT_LT(s, 30) << r.out;           // without it, the run's own limit of 60 s
  EXPECT_NE(r.out.find("the command's time limit (--timeout 2 s) was reached during the run"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("not run: the command's time limit (--timeout 2 s) was reached"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stopped: the command's time limit"), std::string::npos) << r.out;  // said on stderr too
}

TEST(HostileGolden, DiffStopsAtTheWholeCommandsTimeout) {
  const fs::path model = slow_model("timeout-diff");
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run("timeout 100 " + condlint_cmd() + " diff " + shell_quote(model.string()) +
                     " --runtime ref --runtime ref --timeout 2 2>&1");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_LT(s, 30) << r.out;
  EXPECT_NE(r.out.find("not run: the command's time limit (--timeout 2 s) was reached"), std::string::npos) << r.out;
}

// A golden string output of a megabyte that the run does not reproduce: the report's lines stay short.
TEST(HostileGolden, RunReportsCutAMegabyteString) {
  onnx::GraphProto g;
  g.set_name("main");
  *g.add_input() = value_info("s", onnx::TensorProto::STRING, {1});
  *g.add_output() = value_info("y", onnx::TensorProto::STRING, {1});
  add_node(g, "Identity", {"s"}, {"y"});
  const fs::path d = condlint::test::fresh_dir("golden-bigstring");
  write_file(d / "m.onnx", model_of(g).SerializeAsString());
  write_file(d / "test_data_set_0" / "input_0.pb", condlint::exec::write_pb_value(text_tensor("a"), "s"));
  write_file(d / "test_data_set_0" / "output_0.pb",
             condlint::exec::write_pb_value(text_tensor(std::string(1'000'000, 'b')), "y"));
  const auto r = run("timeout 60 " + condlint_cmd() + " run " + shell_quote((d / "m.onnx").string()) + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("(1000000 bytes)"), std::string::npos) << r.out.substr(0, 2000);
  size_t longest = 0, start = 0;
  for (size_t nl; (nl = r.out.find('\n', start)) != std::string::npos; start = nl + 1)
    longest = std::max(longest, nl - start);
  EXPECT_LT(longest, 1000u) << r.out.substr(0, 2000);
}

// ---- resource refusals and diff's work directory

TEST(HostileGolden, AResourceRefusalIsSaidAsOneNotAsAnInternalError) {
  const fs::path d = onnx_case("resource");
  const fs::path tmp = condlint::test::fresh_dir("golden-resource-tmp");
  const std::string model = shell_quote((d / "branch_coverage.onnx").string());
  for (const std::string cmd : {"run " + model, "diff " + model + " --runtime ref --runtime ref"}) {
    SCOPED_TRACE(cmd);
    const auto r = run("TMPDIR=" + shell_quote(tmp.string()) + " timeout 60 " + condlint_cmd() + " " + cmd +
                       " --random 1 --input-shapes x:1,1000000000 2>&1");
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(r.out.find("internal error"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("above the limit of 100000000"), std::string::npos) << r.out;
  }
  EXPECT_TRUE(fs::is_empty(tmp)) << "diff left its work directory behind";
}

// A runtime that fails as no runtime should (they never throw): diff's work directory goes all the same.
class ThrowingRuntime : public condlint::diff::Runtime {
 public:
  ThrowingRuntime() { name_ = "throws"; }
  std::vector<condlint::diff::JobOutcome> run(const std::vector<condlint::diff::Job>&) override {
    throw std::runtime_error("a runtime's defect");
  }
};

TEST(HostileGolden, DiffRemovesItsWorkDirectoryOnAnException) {
  const fs::path tmp = condlint::test::fresh_dir("golden-diff-tmp");
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ASSERT_EQ(setenv("TMPDIR", tmp.c_str(), 1), 0);
  ThrowingRuntime a, b;
  condlint::diff::DiffConfig cfg;
  cfg.random.count = 1;
  EXPECT_THROW(
      condlint::test::diff_files({condlint::test::source_dir() / "corpus/onnx/valid/nested_ifs.onnx"}, {&a, &b}, cfg),
      std::runtime_error);
  if (old) setenv("TMPDIR", saved.c_str(), 1);
  else unsetenv("TMPDIR");
  EXPECT_TRUE(fs::is_empty(tmp)) << "a condlint-diff-* directory was left behind";
}

}  // namespace hostile_golden
