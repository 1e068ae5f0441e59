// Nothing lost (docs/hardening.md, "Outputs"): no command writes a report, an export or golden data onto a file it
// read; a report that cannot be written is exit 2; two outputs to one file are refused; --save never replaces golden
// data unasked; and the result cache vouches only for the bytes it judged, never for a file read again later, nor
// for an entry that is a link, forged for another key, or planted beside it.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <utime.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "io/output.hpp"
#include "lint/cache.hpp"
#include "loaders/loader.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using condlint::test::condlint_cmd;
using condlint::test::run;
using condlint::test::shell_quote;
using condlint::test::slurp;

// A copy of a corpus case (and what lies beside it) in a fresh directory.
fs::path copy_case(const std::string& tag, const std::string& relative_dir) {
  const fs::path d = condlint::test::fresh_dir(tag);
  fs::copy(condlint::test::source_dir() / relative_dir, d, fs::copy_options::recursive);
  return d;
}

std::string cl(const std::string& args) { return "timeout 120 " + condlint_cmd() + " " + args + " 2>&1"; }

TEST(HostileOutputs, AReportOntoTheModelIsRefusedAndTheModelKept) {
  const fs::path d = condlint::test::fresh_dir("out-onto-input");
  const fs::path m = d / "m.onnx";
  fs::copy_file(condlint::test::source_dir() / "corpus/onnx/valid/nested_ifs.onnx", m);
  const std::string before = slurp(m);
  const std::string q = shell_quote(m.string());
  for (const std::string& opts :
       {"-o " + q, "--sarif " + q, "--html " + q, "--format json -o " + q, "--dump-types " + q}) {
    const auto r = run(cl("lint " + q + " " + opts));
    EXPECT_EQ(r.exit_code, 2) << opts << "\n" << r.out;
    EXPECT_NE(r.out.find("refusing to write"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("a model"), std::string::npos) << r.out;
    EXPECT_EQ(slurp(m), before) << opts;
  }
  // Through a symbolic link to the model: the same file.
  fs::create_symlink(m, d / "link.txt");
  EXPECT_EQ(run(cl("lint " + q + " -o " + shell_quote((d / "link.txt").string()))).exit_code, 2);
  EXPECT_EQ(slurp(m), before);
}

// An ONNX model's external data is an input of every command that reads the model.
TEST(HostileOutputs, AReportOntoExternalDataIsRefused) {
  const fs::path d = condlint::test::fresh_dir("out-onto-external");
  for (const char* f : {"external_data.onnx", "external_data.bin"})
    fs::copy_file(condlint::test::source_dir() / "corpus/onnx/valid" / f, d / f);
  const std::string before = slurp(d / "external_data.bin");
  const std::string m = shell_quote((d / "external_data.onnx").string());
  const std::string data = shell_quote((d / "external_data.bin").string());
  for (const std::string& cmd : {"lint " + m + " -o " + data, "run " + m + " --random 1 -o " + data}) {
    const auto r = run(cl(cmd));
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find("refusing to write"), std::string::npos) << cmd << "\n" << r.out;
  }
  EXPECT_EQ(slurp(d / "external_data.bin"), before);
}

TEST(HostileOutputs, TwoOutputsToOneFileAreRefused) {
  const fs::path d = condlint::test::fresh_dir("out-twice");
  const std::string m = shell_quote((condlint::test::source_dir() / "corpus/onnx/valid/nested_ifs.onnx").string());
  const std::string r1 = shell_quote((d / "r.sarif").string());
  const auto r = run(cl("lint " + m + " -o " + r1 + " --sarif " + r1));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("one would replace the other"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "r.sarif"));
  // Through a link that does not lead to a file yet: still one file.
  fs::create_symlink(d / "r.sarif", d / "alias.sarif");
  EXPECT_EQ(run(cl("lint " + m + " -o " + r1 + " --sarif " + shell_quote((d / "alias.sarif").string()))).exit_code, 2);
}

TEST(HostileOutputs, IrExportAndGoldenDataAreNeverOverwritten) {
  const fs::path ir = copy_case("out-ir", "corpus/ir/valid");
  const fs::path xml = ir / "cond_from_const.xml";
  const std::string before_xml = slurp(xml), before_bin = slurp(ir / "cond_from_const.bin");
  for (const fs::path& target : {xml, ir / "cond_from_const.bin"}) {
    const auto r = run(cl("export " + shell_quote(xml.string()) + " --to onnx -o " + shell_quote(target.string())));
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("refusing to write"), std::string::npos) << r.out;
  }
  EXPECT_EQ(slurp(xml), before_xml);
  EXPECT_EQ(slurp(ir / "cond_from_const.bin"), before_bin);

  const fs::path d = copy_case("out-golden", "corpus/onnx/exec/branch_coverage");
  const fs::path model = d / "branch_coverage.onnx";
  const fs::path golden = d / "test_data_set_0" / "output_0.pb";
  const std::string before = slurp(golden);
  const std::string mq = shell_quote(model.string()), gq = shell_quote(golden.string());
  for (const std::string& cmd : {"lint --exec " + mq + " -o " + gq, "run " + mq + " -o " + gq,
                                 "run " + mq + " -o " + mq, "diff " + mq + " --runtime ref --runtime ref -o " + gq,
                                 "diff " + mq + " --runtime ref --runtime ref -o " + mq}) {
    const auto r = run(cl(cmd));
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find("refusing to write"), std::string::npos) << cmd << "\n" << r.out;
  }
  EXPECT_EQ(slurp(golden), before);

  // --save into the model's own directory would replace its golden data: refused unless asked for.
  const auto save = run(cl("run " + mq + " --save " + shell_quote(d.string())));
  EXPECT_EQ(save.exit_code, 2) << save.out;
  EXPECT_NE(save.out.find("already holds golden data"), std::string::npos) << save.out;
  EXPECT_EQ(slurp(golden), before);
}

TEST(HostileOutputs, SaveRecordsOnlyRunsThatPassed) {
  const fs::path d = copy_case("out-save-mismatch", "corpus/onnx/exec/branch_coverage");
  // A golden output that the model does not give: the run is a mismatch, and --save must not record it.
  const fs::path golden = d / "test_data_set_0" / "output_0.pb";
  std::string bytes = slurp(golden);
  bytes.back() = static_cast<char>(bytes.back() ^ 0x55);
  condlint::test::write_file(golden, bytes);
  const fs::path out = d / "saved";
  const auto r = run(cl("run " + shell_quote((d / "branch_coverage.onnx").string()) + " --branches taken --save " +
                        shell_quote(out.string())));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_FALSE(fs::exists(out / "test_data_set_0" / "output_0.pb")) << r.out;
  // --save-overwrite lets a passing run replace what a directory holds.
  const fs::path ok = copy_case("out-save-overwrite", "corpus/onnx/exec/branch_coverage");
  const auto again = run(cl("run " + shell_quote((ok / "branch_coverage.onnx").string()) +
                            " --branches taken --save-overwrite --save " + shell_quote(ok.string())));
  EXPECT_EQ(again.exit_code, 0) << again.out;
}

TEST(HostileOutputs, AReportThatCannotBeWrittenIsExit2) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "skipped: no /dev/full";
  const std::string m = shell_quote((condlint::test::source_dir() / "corpus/onnx/valid/nested_ifs.onnx").string());
  const std::string exec_model =
      shell_quote((condlint::test::source_dir() / "corpus/onnx/exec/branch_coverage/branch_coverage.onnx").string());
  const std::string xml = shell_quote((condlint::test::source_dir() / "corpus/ir/valid/cond_from_const.xml").string());
  const fs::path d = condlint::test::fresh_dir("out-full");
  for (const std::string& cmd :
       {"lint " + m + " -o /dev/full", "lint " + m + " --format json -o /dev/full",
        "lint " + m + " --format sarif -o /dev/full", "lint " + m + " > /dev/full",
        "lint " + m + " --format json > /dev/full", "run " + exec_model + " -o /dev/full",
        "run " + exec_model + " > /dev/full", "diff " + exec_model + " --runtime ref --runtime ref -o /dev/full",
        "export " + xml + " --to onnx -o /dev/full", "lint " + m + " -o " + shell_quote((d / "no/such/dir/r").string()),
        "merge " + m + " -o /dev/full"}) {
    const auto r = run("timeout 120 " + condlint_cmd() + " " + cmd + " 2>" + shell_quote((d / "err").string()));
    const std::string err = slurp(d / "err");
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << err;
    if (cmd.rfind("merge", 0) != 0)  // merge refuses the model as a share first
      EXPECT_NE(err.find("cannot write"), std::string::npos) << cmd << "\n" << err;
  }
}

TEST(HostileOutputs, AWriteErrorIsSaidAndNoTemporaryIsLeft) {
  const fs::path d = condlint::test::fresh_dir("out-atomic");
  // A write error (a full device) is reported with the OS's reason, and the stream's bytes go nowhere else.
  if (fs::exists("/dev/full")) {
    const std::string e3 =
        condlint::io::write_file("/dev/full", "the report", [](std::ostream& os) { os << std::string(1 << 20, 'x'); });
    EXPECT_NE(e3.find("No space left on device"), std::string::npos) << e3;
  }
  // Written whole: the target holds the new bytes, and no temporary is left beside it.
  ASSERT_EQ(condlint::io::write_file((d / "new.txt").string(), "the report", [](std::ostream& os) { os << "new"; }),
            "");
  EXPECT_EQ(slurp(d / "new.txt"), "new");
  size_t entries = 0;
  for (const auto& e : fs::recursive_directory_iterator(d))
    entries += e.path().filename().string().find("condlint-tmp") != std::string::npos;
  EXPECT_EQ(entries, 0u);
}

// The cache stores what was judged under the hash of the bytes judged: a model replaced between the read and the
// store is judged again by every later run: a broken model that replaced a clean one mid-lint is never served the
// clean one's findings.
TEST(HostileOutputs, AModelReplacedWhileJudgedIsNeverReportedFromTheCache) {
  const fs::path d = condlint::test::fresh_dir("cache-replace");
  const fs::path model = d / "m.onnx";
  fs::copy_file(condlint::test::source_dir() / "corpus/onnx/valid/nested_ifs.onnx", model);
  const fs::path cache = d / "cache";
  condlint::lint::ResultCache rc(cache.string());
  ASSERT_TRUE(rc.error().empty());
  condlint::lint::ResultCache::Probe probe;
  ASSERT_FALSE(rc.find(model.string(), "ctx", probe));
  condlint::LoadResult lr = condlint::load_file(model.string(), false, &probe.content);
  ASSERT_TRUE(lr.model);
  // Replaced by a broken model while the clean one is judged, then the clean one's findings are stored.
  fs::copy_file(condlint::test::source_dir() / "corpus/onnx/invalid/C006_branch_types.onnx", model,
                fs::copy_options::overwrite_existing);
  rc.store(probe, "ctx", {}, condlint::lint::CachedResult{});
  condlint::lint::ResultCache::Probe later;
  EXPECT_FALSE(rc.find(model.string(), "ctx", later)) << "the broken model was served the clean model's findings";
  // The same through the command line: a cached run reports the broken model.
  const std::string q = shell_quote(model.string()), cq = shell_quote(cache.string());
  EXPECT_EQ(run(cl("lint --cache " + cq + " " + q)).exit_code, 1);
  EXPECT_EQ(run(cl("lint --cache " + cq + " " + q)).exit_code, 1);
}

TEST(HostileOutputs, CacheEntriesThatAreLinksOrForgedAreNotTrusted) {
  const fs::path d = condlint::test::fresh_dir("cache-forged");
  const fs::path good = d / "good.onnx", bad = d / "bad.onnx";
  fs::copy_file(condlint::test::source_dir() / "corpus/onnx/valid/nested_ifs.onnx", good);
  fs::copy_file(condlint::test::source_dir() / "corpus/onnx/invalid/C006_branch_types.onnx", bad);
  const fs::path cache = d / "cache";
  const std::string cq = shell_quote(cache.string());
  std::this_thread::sleep_for(std::chrono::milliseconds(25));  // no entry for a file changed in the run's first tick
  ASSERT_EQ(run(cl("lint --cache " + cq + " " + shell_quote(bad.string()))).exit_code, 1);
  ASSERT_EQ(run(cl("lint --cache " + cq + " " + shell_quote(good.string()))).exit_code, 0);
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(cache)) entries.push_back(e.path());
  ASSERT_EQ(entries.size(), 2u);
  // Each entry is bound to its key: swapping the two entries' names serves neither model the other's result.
  const fs::path a = entries[0], b = entries[1], t = cache / "swap";
  fs::rename(a, t);
  fs::rename(b, a);
  fs::rename(t, b);
  EXPECT_EQ(run(cl("lint --cache " + cq + " " + shell_quote(bad.string()))).exit_code, 1);
  EXPECT_EQ(run(cl("lint --cache " + cq + " " + shell_quote(good.string()))).exit_code, 0);
  // An entry that is a symbolic link (to a file outside the cache) is not read, and the store replaces the link,
  // leaving the file it led to untouched.
  const fs::path outside = d / "outside.txt";
  condlint::test::write_file(outside, "not condlint's\n");
  for (const auto& e : fs::directory_iterator(cache)) {
    fs::remove(e.path());
    fs::create_symlink(outside, e.path());
  }
  EXPECT_EQ(run(cl("lint --cache " + cq + " " + shell_quote(bad.string()))).exit_code, 1);
  EXPECT_EQ(slurp(outside), "not condlint's\n");
  // A temporary left by a killed run is swept once it is an hour old; a young one may be another run's.
  const fs::path stale = cache / ".tmp-1234-5-6", young = cache / ".x.condlint-tmp-99-1-2";
  condlint::test::write_file(stale, "half");
  condlint::test::write_file(young, "half");
  struct utimbuf old_times {};
  old_times.actime = old_times.modtime = ::time(nullptr) - 7200;
  ASSERT_EQ(::utime(stale.c_str(), &old_times), 0);
  EXPECT_EQ(run(cl("lint --cache " + cq + " " + shell_quote(good.string()))).exit_code, 0);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(young));
}

}  // namespace
