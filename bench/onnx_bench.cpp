// ONNX lint speed: a generated flat chain of N Ifs with 10-node branches, linted in full (load +
// all rules), next to the bare protobuf parse of the same bytes; median of R runs. Not run by the tests.
//   build/condlint_bench_onnx [IFS...] [--ops N] [--repeats R] [--write DIR]
// Without IFS it measures 1000 2000 5000 10000.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <google/protobuf/io/coded_stream.h>

#include "bench/onnx_gen.hpp"
#include "loaders/loader.hpp"
#include "rules/engine.hpp"

using clk = std::chrono::steady_clock;

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  std::vector<int> sizes;
  int ops = 10, reps = 5;
  std::string write_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--ops" && i + 1 < argc) ops = std::atoi(argv[++i]);
    else if (a == "--repeats" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--write" && i + 1 < argc) write_dir = argv[++i];
    else sizes.push_back(std::atoi(a.c_str()));
  }
  if (sizes.empty()) sizes = {1000, 2000, 5000, 10000};
  std::printf("%8s %10s %8s %12s %12s %10s %9s\n", "ifs", "bytes", "nodes", "parse_ms", "lint_ms", "us/if", "findings");
  for (int ifs : sizes) {
    const std::string bytes = condlint::gen::flat_if_chain_onnx(ifs, ops);
    if (!write_dir.empty())
      std::ofstream(write_dir + "/chain_" + std::to_string(ifs) + ".onnx", std::ios::binary) << bytes;
    std::vector<double> parse_ms, lint_ms;
    size_t findings = 0, nodes = 0;
    for (int r = 0; r < reps; ++r) {
      {
        auto t0 = clk::now();
        onnx::ModelProto m;
        google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                  static_cast<int>(bytes.size()));
        in.SetRecursionLimit(100000);
        if (!m.ParseFromCodedStream(&in)) std::fprintf(stderr, "parse failed\n");
        parse_ms.push_back(std::chrono::duration<double, std::milli>(clk::now() - t0).count());
      }
      auto t0 = clk::now();
      auto model = condlint::load_onnx("chain.onnx", bytes);
      const auto f = condlint::run_rules(*model, condlint::RuleSelection{});
      lint_ms.push_back(std::chrono::duration<double, std::milli>(clk::now() - t0).count());
      findings = f.size();
      nodes = 0;
      for (const auto& g : model->graphs) nodes += g.nodes.size();
    }
    const double lm = median(lint_ms);
    std::printf("%8d %10zu %8zu %12.1f %12.1f %10.2f %9zu\n", ifs, bytes.size(), nodes, median(parse_ms), lm,
                1000.0 * lm / ifs, findings);
  }
  return 0;
}
