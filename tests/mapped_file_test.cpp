// A mapped model file that another process shrinks while condlint reads it: exit code 2 and a message naming the
// file, not a SIGBUS; report temporaries removed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>

#include "io/mapped_file.hpp"
#include "io/output.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using condlint::io::MappedFile;

// Maps `path` (64 KiB), cuts the file to nothing, then reads the last byte of the mapping.
int read_after_truncation(const fs::path& path) {
  std::string err;
  auto m = MappedFile::open(path.string(), err);
  if (!m) return 100;
  if (::truncate(path.c_str(), 0) != 0) return 101;
  volatile char c = m->bytes()[m->size() - 1];
  return c == 'x' ? 102 : 103;  // not reached: the read faults
}

TEST(MappedFileDeathTest, AFileShrunkWhileMappedIsAnIoErrorNamingIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const fs::path dir = condlint::test::fresh_dir("mapped-shrink");
  const fs::path model = dir / "shrinks\x1b[31m.onnx";
  condlint::test::write_file(model, std::string(64 * 1024, 'x'));
  EXPECT_EXIT(read_after_truncation(model), testing::ExitedWithCode(2),
              "condlint: .*shrinks\\?\\[31m\\.onnx: the file became shorter while it was read");
}

TEST(MappedFileDeathTest, AReportTemporaryIsRemovedWhenTheModelShrinks) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const fs::path dir = condlint::test::fresh_dir("mapped-temp");
  const fs::path model = dir / "m.onnx";
  const fs::path report = dir / "report.json";
  condlint::test::write_file(model, std::string(64 * 1024, 'x'));
  EXPECT_EXIT(
      {
        condlint::io::OutputFile out;
        std::string err;
        if (!out.open(report.string(), err)) ::_exit(100);
        ::_exit(read_after_truncation(model));
      },
      testing::ExitedWithCode(2), "became shorter");
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".condlint-tmp-"), std::string::npos) << e.path();
  EXPECT_FALSE(fs::exists(report));
}

TEST(MappedFileDeathTest, ASigbusElsewhereKeepsItsAction) {
  // Mapping a file installs the handler; a SIGBUS outside every mapping gets the action it had before (the
  // default here, set first: a sanitizer's own handler would otherwise be the action kept).
  const fs::path dir = condlint::test::fresh_dir("mapped-other");
  condlint::test::write_file(dir / "m.onnx", std::string(4096, 'x'));
  EXPECT_EXIT(
      {
        std::signal(SIGBUS, SIG_DFL);
        std::string err;
        auto m = MappedFile::open((dir / "m.onnx").string(), err);
        ::raise(SIGBUS);
        ::_exit(0);
      },
      testing::KilledBySignal(SIGBUS), "");
}

}  // namespace
