// The front door (loaders/open_model): the format by content first, the name second; one reader; one verdict.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "loaders/open_model.hpp"
#include "model/onnx_data.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using condlint::Format;
using condlint::LoadResult;

// Every file the corpora name as a model: content and name agree (or the content says nothing, as for a file cut
// short or text saved as .onnx), so the front door reads each as its name says and the reports stay what they were.
TEST(OpenModel, TheCorporaAreReadAsTheirNamesSay) {
  size_t files = 0, by_name_only = 0;
  for (const char* dir : {"corpus", "corpus-modern"}) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(condlint::test::source_dir() / dir, ec), end; !ec && it != end;
         it.increment(ec)) {
      if (!it->is_regular_file()) continue;
      const auto by_name = condlint::format_from_name(it->path());
      if (!by_name) continue;
      ++files;
      const std::string bytes = condlint::test::slurp(it->path());
      const auto by_content = condlint::format_from_content(bytes);
      if (!by_content) ++by_name_only;
      else EXPECT_EQ(*by_content, *by_name) << it->path();
      EXPECT_EQ(condlint::decide_format(it->path().string(), bytes), by_name) << it->path();
    }
  }
  EXPECT_GT(files, 150u);
  EXPECT_LT(by_name_only, files / 4);  // most files say their format themselves
}

TEST(OpenModel, ContentSniffing) {
  using condlint::format_from_content;
  EXPECT_EQ(format_from_content("<?xml version=\"1.0\"?>\n<!-- c -->\n<net name=\"m\" version=\"11\"></net>"),
            Format::IR);
  EXPECT_EQ(format_from_content("\xEF\xBB\xBF  {\"format\":\"nnapi-model\"}"), Format::NNAPI);
  EXPECT_EQ(
      format_from_content(condlint::test::slurp(condlint::test::source_dir() / "corpus/onnx/valid/nested_ifs.onnx")),
      Format::ONNX);
  // Neither: text, zeros, an XML document whose root is not <net>, an ONNX file cut inside a field, nothing.
  EXPECT_EQ(format_from_content("hello, world\n"), std::nullopt);
  EXPECT_EQ(format_from_content(std::string(64, '\0')), std::nullopt);
  EXPECT_EQ(format_from_content("<?xml version=\"1.0\"?><network/>"), std::nullopt);
  const std::string onnx = condlint::test::slurp(condlint::test::source_dir() / "corpus/onnx/valid/nested_ifs.onnx");
  EXPECT_EQ(format_from_content(onnx.substr(0, onnx.size() - 3)), std::nullopt);
  EXPECT_EQ(format_from_content(""), std::nullopt);
  // A ModelProto starts with one of its own fields: a field number it does not use is not taken for one.
  EXPECT_EQ(format_from_content(std::string("\x68\x01", 2)), std::nullopt);
}

// A model saved under another format's name is read as what it is; bytes that are no model are read as the name
// says, with that format's findings, as before the front door looked at content.
TEST(OpenModel, AMismatchedNameIsReadByContent) {
  const fs::path src = condlint::test::source_dir();
  const std::string ir = condlint::test::slurp(src / "corpus/ir/exec/nested_if/nested_if.xml");
  const auto as_onnx = condlint::test::write_temp("fd_ir_saved_as.onnx", ir);
  LoadResult lr = condlint::open_model(as_onnx);
  ASSERT_TRUE(lr.model) << lr.io_error;
  EXPECT_EQ(lr.model->format, Format::IR);
  EXPECT_EQ(lr.format, Format::IR);

  const std::string nn = condlint::test::slurp(src / "corpus/nnapi/valid/if_add_or_sub.nnapi.json");
  lr = condlint::open_model(condlint::test::write_temp("fd_nnapi_saved_as.xml", nn));
  ASSERT_TRUE(lr.model) << lr.io_error;
  EXPECT_EQ(lr.model->format, Format::NNAPI);

  const std::string onnx = condlint::test::slurp(src / "corpus/onnx/valid/nested_ifs.onnx");
  lr = condlint::open_model(condlint::test::write_temp("fd_onnx_saved_as.nnapi.json", onnx));
  ASSERT_TRUE(lr.model) << lr.io_error;
  EXPECT_EQ(lr.model->format, Format::ONNX);

  const auto text = condlint::test::write_temp("fd_text_saved_as.onnx", "not a model at all\n");
  EXPECT_EQ(condlint::test::rules_of(condlint::test::lint_file(text)), std::set<std::string>{"ONNX001"});
  lr = condlint::open_model(condlint::test::write_temp("fd_text.model", "not a model at all\n"));
  EXPECT_FALSE(lr.model);
  EXPECT_EQ(lr.io_error, "unknown model format (expected .xml, .onnx, .nnapi.json or .tflite)");
  // A TFLite flatbuffer saved under another name is read by its "TFL3" identifier.
  const std::string tfl = condlint::test::slurp(src / "corpus/tflite/valid/cond_bool_input.tflite");
  lr = condlint::open_model(condlint::test::write_temp("fd_tflite_saved_as.onnx", tfl));
  ASSERT_TRUE(lr.model) << lr.io_error;
  EXPECT_EQ(lr.model->format, Format::TFLITE);
  // A file that cannot be read keeps the format its name says (what a report names it by).
  lr = condlint::open_model((condlint::test::temp_dir("test") / "fd_absent.xml").string());
  EXPECT_FALSE(lr.model);
  EXPECT_EQ(lr.format, Format::IR);
}

// The executor's one entry dispatches on the format the front door decided, not on the file name.
TEST(OpenModel, RunDispatchesOnTheModelsFormat) {
  const fs::path src = condlint::test::source_dir();
  const fs::path dir = condlint::test::temp_dir("fd_run");
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(src / "corpus/ir/exec/nested_if", dir / "m", fs::copy_options::recursive);
  fs::rename(dir / "m" / "nested_if.xml", dir / "m" / "nested_if.onnx");
  const auto r = condlint::test::run_file(dir / "m" / "nested_if.onnx");
  EXPECT_EQ(r.error, "");
  EXPECT_FALSE(r.cases.empty());
  EXPECT_EQ(r.failed, 0);
}

// The readability verdict is taken once, when asked, and recorded on the Model; the executor, the exporters and
// diff read it there.
TEST(OpenModel, TheVerdictIsRecordedOnce) {
  const fs::path src = condlint::test::source_dir();
  LoadResult plain = condlint::open_model((src / "corpus/onnx/invalid/ONNX001_truncated.onnx").string());
  ASSERT_TRUE(plain.model);
  EXPECT_FALSE(plain.model->unreadable.has_value());
  LoadResult judged = condlint::test::open_for_exec(src / "corpus/onnx/invalid/ONNX001_truncated.onnx");
  ASSERT_TRUE(judged.model && judged.model->unreadable);
  EXPECT_EQ(judged.model->unreadable->rfind("ONNX001: ", 0), 0u) << *judged.model->unreadable;
  // The executor's own parse of a file the loader could not hand on says why it failed.
  ASSERT_TRUE(judged.model->onnx);
  EXPECT_EQ(judged.model->onnx->proto, nullptr);
  EXPECT_NE(judged.model->onnx->proto_error.find("not a valid onnx.ModelProto"), std::string::npos);
  LoadResult good = condlint::test::open_for_exec(src / "corpus/onnx/valid/nested_ifs.onnx");
  ASSERT_TRUE(good.model && good.model->unreadable && good.model->onnx);
  EXPECT_EQ(*good.model->unreadable, "");
  EXPECT_NE(good.model->onnx->proto, nullptr);
}

// A model the checker rejects still runs (ONNX017 is not a readability rule): a Split whose num_outputs is a float
// fails its cases with a message, and the process lives.
TEST(OpenModel, ASplitWithAFloatNumOutputsFailsItsRunCleanly) {
  condlint::exec::RunConfig cfg;
  cfg.random.count = 1;
  const auto r = condlint::test::run_file(
      condlint::test::source_dir() / "corpus/onnx/invalid/ONNX017_split18_num_outputs_float.onnx", cfg);
  EXPECT_EQ(r.error, "");
  ASSERT_FALSE(r.cases.empty());
  EXPECT_EQ(r.cases[0].status, condlint::exec::CaseStatus::Failed);
  EXPECT_NE(r.cases[0].message.find("num_outputs must be a positive int"), std::string::npos) << r.cases[0].message;
}

}  // namespace
