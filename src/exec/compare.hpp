// Comparison of executor outputs with golden values.
#pragma once

#include <optional>
#include <string>

#include "exec/tensor.hpp"

namespace condlint::exec {

struct Tolerance {
  double atol = 0;
  double rtol = 0;
};
// Defaults per element type (docs/golden-data.md):
//   f64 atol 1e-7 rtol 1e-5 · f32 atol 1e-5 rtol 1e-3 · f16 atol 1e-3 rtol 1e-2 · bf16 atol 1e-2 rtol 2e-2 ·
//   integers, bool, strings exact.
Tolerance default_tolerance(DT t);

struct Comparison {
  bool ok = true;
  std::string reason;  // why not, when !ok
  double max_abs = 0;  // over all compared elements
  double max_rel = 0;
  int64_t mismatches = 0;
  std::string first_index;  // "[1,0,2]" of the first mismatch, or "" ; for sequences "seq[3][0,1]"
  std::string tolerance;    // "atol=1e-05 rtol=0.001" as applied
};

// |actual - expected| <= atol + rtol * |expected| per element; NaN equals only NaN; shape, kind and element type
// mismatches are failures. `atol` / `rtol` override the per-type defaults.
Comparison compare_values(const Value& actual, const Value& expected, std::optional<double> atol,
                          std::optional<double> rtol);

}  // namespace condlint::exec
