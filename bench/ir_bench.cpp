// IR lint speed against the physical limit: condlint's full lint (load + all rules) of a generated model vs
// the bare pugixml parse of the same bytes, side by side in one run, median of N. Warm = repeated in this
// process; cold = one fresh process per run, as `condlint lint` runs (bench/measure.hpp). Not run by the tests.
//   build/condlint_bench_ir [IFS=2000] [OPS=8] [REPEATS=7] [--write FILE | --warm-only]
// --warm-only skips the cold runs (for a profiler: the samples are then the warm steps only).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "bench/ir_gen.hpp"
#include "bench/measure.hpp"
#include "loaders/loader.hpp"
#include "rules/engine.hpp"

using condlint::bench::median;

namespace {

// Both steps take their own copy of the bytes (the parse is in place); the copy is made before the timing.
bool parse(std::string& copy) {
  pugi::xml_document doc;
  return static_cast<bool>(doc.load_buffer_inplace(copy.data(), copy.size(), pugi::parse_default, pugi::encoding_utf8));
}

std::unique_ptr<condlint::Model> lint(std::string&& copy, size_t* findings = nullptr) {
  auto m = condlint::load_ir("bench.xml", std::move(copy));
  auto f = condlint::run_rules(*m, condlint::RuleSelection{});
  if (findings) *findings = f.size();
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  condlint::bench::child_main(argc, argv, [](const std::string& step, const std::string& bytes) {
    std::string copy = bytes;
    if (step == "parse") return parse(copy);
    (void)lint(std::move(copy)).release();  // no teardown, as the single-model CLI
    return true;
  });
  int ifs = argc > 1 ? std::atoi(argv[1]) : 2000;
  int ops = argc > 2 ? std::atoi(argv[2]) : 8;
  int reps = argc > 3 ? std::atoi(argv[3]) : 7;
  const std::string xml = condlint::gen::flat_if_chain_ir(ifs, ops);
  if (argc > 5 && std::string(argv[4]) == "--write") std::ofstream(argv[5], std::ios::binary) << xml;
  const bool warm_only = argc > 4 && std::string(argv[4]) == "--warm-only";
  const std::string tmp =
      (std::filesystem::temp_directory_path() / ("condlint_bench_ir_" + std::to_string(getpid()) + ".xml")).string();
  std::ofstream(tmp, std::ios::binary) << xml;

  std::vector<double> wp, wl, cp, cl, mp, ml;
  for (int r = 0; r < reps && !warm_only; ++r) {
    const auto a = condlint::bench::run_cold(argv[0], "parse", tmp);
    const auto b = condlint::bench::run_cold(argv[0], "lint", tmp);
    cp.push_back(a.ms);
    cl.push_back(b.ms);
    mp.push_back(a.rss_mb);
    ml.push_back(b.rss_mb);
  }
  std::filesystem::remove(tmp);
  size_t layers = 0, findings = 0, conditionals = 0;
  for (int r = 0; r < reps; ++r) {
    std::string c1 = xml, c2 = xml;
    wp.push_back(condlint::bench::run_warm([&] { parse(c1); }));
    std::unique_ptr<condlint::Model> keep;
    wl.push_back(condlint::bench::run_warm([&] { keep = lint(std::move(c2), &findings); }));
    conditionals = keep->conditionals.size();
    layers = 0;
    for (const auto& g : keep->graphs) layers += g.nodes.size();
  }
  std::printf("ir bench: %zu layers, %zu Ifs, %.1f MiB XML, %zu findings; median of %d\n", layers, conditionals,
              xml.size() / 1048576.0, findings, reps);
  if (warm_only) {
    std::printf("  bare pugixml parse     %9.1f ms warm\n  condlint load+lint     %9.1f ms warm\n  ratio %.2fx\n",
                median(wp), median(wl), median(wl) / median(wp));
    return findings == 0 ? 0 : 1;
  }
  std::printf("                         warm (in process)   cold (fresh process, as the CLI)\n");
  std::printf("  bare pugixml parse     %9.1f ms        %9.1f ms   peak RSS +%.0f MiB\n", median(wp), median(cp),
              median(mp));
  std::printf("  condlint load+lint     %9.1f ms        %9.1f ms   peak RSS +%.0f MiB\n", median(wl), median(cl),
              median(ml));
  std::printf("  ratio lint/parse       %9.2fx         %9.2fx\n", median(wl) / median(wp), median(cl) / median(cp));
  return findings == 0 ? 0 : 1;
}
