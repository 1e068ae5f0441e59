// Random inputs for a model's data inputs (`run --random`, `diff --random`), and random tensors (synthesis): shapes
// from the declared types, with the dims they leave open from --input-shapes (or the configuration's inputs:), else
// 1; values uniform in a range per input.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "exec/onnx_io.hpp"
#include "exec/tensor.hpp"

namespace condlint::exec {

class Interpreter;

// A data input as the model declares it: its name, whether it is a tensor and of which element type, and, when the
// shape is stated, each dim (a size, or open). What --random and input synthesis build inputs from, in every format.
struct InputDecl {
  std::string name;
  bool tensor = true;    // false: a sequence, an optional...: no random value is made for it
  std::optional<DT> dt;  // the element type, when one the executor knows
  bool has_shape = false;
  std::vector<std::optional<int64_t>> dims;  // nullopt: open
  std::vector<std::string> dim_names;        // the symbol of an open dim ("" when it has none)
};

struct RandomInputs {
  int count = 0;  // --random N: input sets to make
  uint64_t seed = 0;
  std::map<std::string, std::pair<double, double>> ranges;  // input -> [lo, hi] (default: floats [-1,1], ints [0,9])
  // input -> its whole shape (--input-shapes NAME:d0,d1,...). A symbolic dim given here, through one input, takes
  // the same value in every input that names it.
  std::map<std::string, Dims> shapes;
  // An open dim no given shape and no data set fixes (--open-dim).
  int64_t open_dim = 1;
};

// Appends one random value per declared input to `out`; "" on success, else why it cannot (a given shape that
// contradicts a declared dim, a name that is no input, an input that is not a tensor).
std::string random_inputs(const std::vector<InputDecl>& decls, const RandomInputs& spec, std::mt19937_64& rng,
                          std::vector<Value>& out);
// The shapes of an input set as its text names them: "'x' [1,512], 'sr' []" (an input that is no tensor: its name
// alone). What `run` and `diff` print for the inputs they made, so that a failure names the shapes it ran.
std::string shapes_label(const std::vector<InputDecl>& decls, const std::vector<Value>& values);
// One input set of --random N: its name with the shapes it has ("random_3 (seed 0): 'x' [1,512]") and a value per
// declared input.
struct RandomSet {
  std::string name;
  std::vector<Value> values;
};
// The spec.count sets of --random, drawn in order from one generator seeded with spec.seed; "" on success, else why
// they cannot be made (as random_inputs says).
std::string random_sets(const std::vector<InputDecl>& decls, const RandomInputs& spec, std::vector<RandomSet>& out);
// Evidence for the open dims of --random: the shapes of the first data set of `sets` (golden data beside the model,
// or --data) whose inputs all read, for each input `spec` gives no shape of (--input-shapes) whose declared dims
// they fit, written into spec.shapes; the data set's directory when it gave any, else "". An input whose data does
// not fit its declaration (another rank, a static dim that differs) or that would give a symbolic dim two values is
// left to the default.
std::string shapes_from_data(const std::vector<InputDecl>& decls, const std::vector<DataSet>& sets, RandomInputs& spec);
// The same for the data inputs of `probe`'s ONNX model.
std::string random_inputs(const Interpreter& probe, const RandomInputs& spec, std::mt19937_64& rng,
                          std::vector<Value>& out);
// The data inputs of `probe`'s ONNX model as declarations.
std::vector<InputDecl> input_decls(const Interpreter& probe);

// A tensor of element type `dt` and shape `dims` with values drawn uniformly from [lo, hi] (integers: the integers
// in it; strings: "s<k>").
Tensor random_tensor(DT dt, const Dims& dims, double lo, double hi, std::mt19937_64& rng);

}  // namespace condlint::exec
