// ONNX lint speed: a generated flat chain of N Ifs with 10-node branches, linted in full (load + all rules),
// next to the bare protobuf parse of the same bytes, side by side; median of R runs. Warm = repeated in this
// process; cold = one fresh process per run, as `condlint lint` runs (bench/measure.hpp). Not run by the tests.
//   build/condlint_bench_onnx [IFS...] [--ops N] [--repeats R] [--write DIR] [--checker]
// Without IFS it measures 1000 2000 5000 10000. Peak RSS is the cold run's growth during the step.
// --checker also times onnx 1.12's check_model + strict InferShapes (cold, 3 runs: seconds each at 10,000).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include "bench/measure.hpp"
#include "bench/onnx_gen.hpp"
#include "loaders/loader.hpp"
#include "rules/engine.hpp"

using condlint::bench::median;

namespace {

bool parse_only(const std::string& bytes) {
  onnx::ModelProto m;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  in.SetRecursionLimit(100000);
  return m.ParseFromCodedStream(&in);
}

// What `onnx.checker.check_model(model, full_check=True)` runs: the C++ checker, then strict shape inference
// with type checks.
bool onnx_full_check(const std::string& bytes) {
  onnx::ModelProto m;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  in.SetRecursionLimit(100000);
  if (!m.ParseFromCodedStream(&in)) return false;
  try {
    onnx::checker::check_model(m);
    onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(/*check_type=*/true, /*strict=*/1, false));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "onnx checker: %s\n", e.what());
    return false;
  }
  return true;
}

std::unique_ptr<condlint::Model> lint(const std::string& bytes, size_t* findings = nullptr) {
  auto model = condlint::load_onnx("chain.onnx", bytes);
  const auto f = condlint::run_rules(*model, condlint::RuleSelection{});
  if (findings) *findings = f.size();
  return model;
}

}  // namespace

int main(int argc, char** argv) {
  condlint::bench::child_main(argc, argv, [](const std::string& step, const std::string& bytes) {
    if (step == "parse") return parse_only(bytes);
    if (step == "checker") return onnx_full_check(bytes);
    condlint::skip_loader_teardown(true);  // as the single-model CLI: no teardown of the model or the loader
    (void)lint(bytes).release();
    return true;
  });
  std::vector<int> sizes;
  int ops = 10, reps = 5;
  std::string write_dir;
  bool checker = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--ops" && i + 1 < argc) ops = std::atoi(argv[++i]);
    else if (a == "--repeats" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--write" && i + 1 < argc) write_dir = argv[++i];
    else if (a == "--checker") checker = true;
    else sizes.push_back(std::atoi(a.c_str()));
  }
  if (sizes.empty()) sizes = {1000, 2000, 5000, 10000};
  const std::string tmp =
      (std::filesystem::temp_directory_path() / ("condlint_bench_onnx_" + std::to_string(getpid()) + ".onnx")).string();
  std::printf("median of %d; warm = repeated in process, cold = a fresh process per run (as the CLI)\n", reps);
  std::printf("%7s %9s %7s | %9s %9s %6s | %9s %9s %6s | %8s %8s | %7s\n", "ifs", "bytes", "nodes", "parse_ms",
              "lint_ms", "ratio", "parse_ms", "lint_ms", "ratio", "parse_MB", "lint_MB", "us/if");
  std::printf("%7s %9s %7s | %26s | %26s | %17s | %7s\n", "", "", "", "warm", "cold", "cold peak RSS +", "cold");
  for (int ifs : sizes) {
    const std::string bytes = condlint::gen::flat_if_chain_onnx(ifs, ops);
    if (!write_dir.empty())
      std::ofstream(write_dir + "/chain_" + std::to_string(ifs) + ".onnx", std::ios::binary) << bytes;
    std::ofstream(tmp, std::ios::binary) << bytes;
    std::vector<double> wp, wl, cp, cl, mp, ml;
    for (int r = 0; r < reps; ++r) {
      const auto c1 = condlint::bench::run_cold(argv[0], "parse", tmp);
      const auto c2 = condlint::bench::run_cold(argv[0], "lint", tmp);
      cp.push_back(c1.ms);
      cl.push_back(c2.ms);
      mp.push_back(c1.rss_mb);
      ml.push_back(c2.rss_mb);
    }
    size_t findings = 0, nodes = 0;
    for (int r = 0; r < reps; ++r) {
      wp.push_back(condlint::bench::run_warm([&] { parse_only(bytes); }));
      std::unique_ptr<condlint::Model> keep;
      wl.push_back(condlint::bench::run_warm([&] { keep = lint(bytes, &findings); }));
      nodes = 0;
      for (const auto& g : keep->graphs) nodes += g.nodes.size();
      keep.reset();  // teardown outside the timing, as the single-model CLI skips it
    }
    std::string check;
    if (checker) {
      std::vector<double> ck;
      for (int r = 0; r < 3; ++r) ck.push_back(condlint::bench::run_cold(argv[0], "checker", tmp).ms);
      const double c = median(ck);
      check = c < 0 ? "  onnx checker failed"
                    : "  onnx check_model+InferShapes(strict) " + std::to_string(static_cast<int>(c)) +
                          " ms = " + std::to_string(static_cast<int>(c / median(cl))) + "x condlint (cold)";
    }
    const double cw = median(wl), cc = median(cl);
    std::printf("%7d %9zu %7zu | %9.1f %9.1f %5.1fx | %9.1f %9.1f %5.1fx | %8.0f %8.0f | %7.1f%s\n", ifs, bytes.size(),
                nodes, median(wp), cw, cw / median(wp), median(cp), cc, cc / median(cp), median(mp), median(ml),
                1000.0 * cc / ifs, findings ? "  (findings!)" : "");
    if (!check.empty()) std::printf("%s\n", check.c_str());
  }
  std::filesystem::remove(tmp);
  return 0;
}
