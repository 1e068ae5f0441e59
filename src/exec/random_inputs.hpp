// Random inputs for a model's data inputs (`run --random`, `diff --random`), and random tensors (synthesis): shapes
// from the declared types, with the dims they leave open from --input-shapes (or the configuration's inputs:), else
// 1; values uniform in a range per input.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "exec/tensor.hpp"

namespace condlint::exec {

class Interpreter;

struct RandomInputs {
  int count = 0;  // --random N: input sets to make
  uint64_t seed = 0;
  std::map<std::string, std::pair<double, double>> ranges;  // input -> [lo, hi] (default: floats [-1,1], ints [0,9])
  // input -> its whole shape (--input-shapes NAME:d0,d1,...). A symbolic dim given here, through one input, takes
  // the same value in every input that names it.
  std::map<std::string, Dims> shapes;
};

// Appends one random value per data input of `probe`'s model to `out`; "" on success, else why it cannot (a given
// shape that contradicts a declared dim, a name that is no input, an input that is not a tensor).
std::string random_inputs(const Interpreter& probe, const RandomInputs& spec, std::mt19937_64& rng,
                          std::vector<Value>& out);

// A tensor of element type `dt` and shape `dims` with values drawn uniformly from [lo, hi] (integers: the integers
// in it; strings: "s<k>").
Tensor random_tensor(DT dt, const Dims& dims, double lo, double hi, std::mt19937_64& rng);

}  // namespace condlint::exec
