// IR lint speed against the physical limit: condlint's full lint of a generated model vs the bare
// pugixml parse of the same bytes, side by side in one run, median of N. Not run by the tests.
//   build/condlint_bench_ir [IFS=2000] [OPS=8] [REPEATS=7] [--write FILE]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "bench/ir_gen.hpp"
#include "loaders/loader.hpp"
#include "rules/engine.hpp"

using clk = std::chrono::steady_clock;

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  int ifs = argc > 1 ? std::atoi(argv[1]) : 2000;
  int ops = argc > 2 ? std::atoi(argv[2]) : 8;
  int reps = argc > 3 ? std::atoi(argv[3]) : 7;
  const std::string xml = condlint::gen::flat_if_chain_ir(ifs, ops);
  if (argc > 5 && std::string(argv[4]) == "--write") std::ofstream(argv[5], std::ios::binary) << xml;

  std::vector<double> parse_ms, lint_ms;
  size_t layers = 0, findings = 0, conditionals = 0;
  for (int r = 0; r < reps; ++r) {
    {
      std::string copy = xml;
      auto t0 = clk::now();
      pugi::xml_document doc;
      auto res = doc.load_buffer_inplace(copy.data(), copy.size(), pugi::parse_default, pugi::encoding_utf8);
      parse_ms.push_back(std::chrono::duration<double, std::milli>(clk::now() - t0).count());
      if (!res) return 2;
    }
    {
      std::string copy = xml;
      auto t0 = clk::now();
      auto m = condlint::load_ir("bench.xml", std::move(copy));
      auto f = condlint::run_rules(*m, condlint::RuleSelection{});
      lint_ms.push_back(std::chrono::duration<double, std::milli>(clk::now() - t0).count());
      findings = f.size();
      conditionals = m->conditionals.size();
      layers = 0;
      for (const auto& g : m->graphs) layers += g.nodes.size();
    }
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double p = median(parse_ms), l = median(lint_ms);
  std::printf("ir bench: %zu layers, %zu Ifs, %.1f MiB XML, %zu findings\n", layers, conditionals,
              xml.size() / 1048576.0, findings);
  std::printf("  bare pugixml parse  median %8.1f ms (of %d)\n", p, reps);
  std::printf("  condlint load+lint  median %8.1f ms (of %d)\n", l, reps);
  std::printf("  ratio lint/parse    %8.2fx\n", l / p);
  std::printf("  peak RSS            %8.1f MiB\n", ru.ru_maxrss / 1024.0);
  return findings == 0 ? 0 : 1;
}
