// Conformance against the 763 Android 13 CTS/VTS control-flow vectors in ../shared: every one
// loads; with the default target no finding is an error; with --nnapi-target hal exactly the
// CTS-only unknown-size families (*_unknown_dimension, *_unknown_rank) get an NN026 error.
#include <gtest/gtest.h>

#include <algorithm>

#include "model/nnapi_data.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace condlint;
using namespace condlint::test;

namespace {

TEST(NnapiCts, AllVectorsLoadAndOnlyUnknownSizeFamiliesFailForHal) {
  const fs::path dir = shared_dir() / "corpus" / "nnapi-cts";
  if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " is absent (needs the shared corpus next to the worktree)";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (format_from_name(e.path()) == Format::NNAPI) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files.size(), 763u);
  size_t loaded = 0, runtime_errors = 0, hal_flagged = 0, unknown_family = 0, notes = 0, warnings = 0, ifs = 0;
  for (const auto& p : files) {
    LoadResult lr = load_file(p.string());
    ASSERT_TRUE(lr.model) << p << ": " << lr.io_error;
    ASSERT_TRUE(lr.model->nnapi && lr.model->nnapi->structurally_valid) << p;
    ++loaded;
    ifs += lr.model->conditionals.size();
    RuleSelection runtime, hal;
    hal.options.nnapi_target = "hal";
    for (const auto& f : run_rules(*lr.model, runtime)) {
      if (f.level == Level::Error) {
        ++runtime_errors;
        ADD_FAILURE() << p.filename() << ": " << f.rule << " " << f.message;
      }
      notes += f.level == Level::Note;
      warnings += f.level == Level::Warning;
    }
    bool flagged = false;
    for (const auto& f : run_rules(*lr.model, hal)) {
      if (f.level != Level::Error) continue;
      EXPECT_EQ(f.rule, "NN026") << p.filename() << ": " << f.message;
      flagged = true;
    }
    const std::string name = p.filename().string();
    const bool family =
        name.find("_unknown_dimension") != std::string::npos || name.find("_unknown_rank") != std::string::npos;
    unknown_family += family;
    hal_flagged += flagged;
    EXPECT_EQ(flagged, family) << name;
  }
  std::cout << "[ nnapi-cts ] " << loaded << " vectors loaded, " << ifs
            << " IF views; default target: " << runtime_errors << " errors, " << warnings << " warnings, " << notes
            << " notes; hal target: " << hal_flagged << " flagged, unknown-size families: " << unknown_family << "\n";
  EXPECT_EQ(unknown_family, 264u);
}

}  // namespace
