// OpenVINO IR: the shape rules of its ops as OpenVINO's own shape inference states them, one table for every part
// of condlint that infers IR shapes: the branch follower (loaders/ir_branch_consumers, C014) and the shapes the
// conditions of Ifs test (loaders/ir_shapes). Element-wise ops broadcast by their auto_broadcast attribute (numpy by
// default; "none" wants equal shapes), MatMul multiplies the last two dims (transpose_a / transpose_b; a rank-1 side is
// a row or a column), Concat joins along its axis, ops that keep their input's shape keep it, Convolution and
// GroupConvolution give the batch, the weights' output channels and the spatial dims their pads, strides and dilations
// give, Pad adds its constant pads, Slice cuts by its constant starts, stops, steps and axes, Unsqueeze and Squeeze
// insert and remove dims at constant axes, Gather takes the indices' dims at its constant axis, reductions remove (or
// keep as 1) their constant axes. Reshape and Transpose take their target shape or order from a Const (special_zero,
// one -1; an empty order reverses the dims). Where an axis, a target or a pad is computed from data, the output is
// unknown. Any other op has no rule here (a gap). A rule fails only where OpenVINO rejects the shapes for every value
// they allow; unknown is always sound.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "loaders/branch_follow.hpp"
#include "model/model.hpp"

namespace condlint {

// The integer Consts of an IR model by their layer, indexed on first use. Not for use by two threads at once.
class IrConstInts {
 public:
  // What a computed value is, element by element (nullopt where an element is not known), or nullopt.
  using Partial = std::optional<std::vector<std::optional<int64_t>>>;
  using Values = std::function<Partial(const ValueRef&)>;

  explicit IrConstInts(const Model& m) : m_(m) {}
  // Values of computed inputs (a target shape built from ShapeOf and Gather), for the rules that read a shape, axes
  // or pads from an input; without it only Consts are read.
  void set_values(Values v) { values_ = std::move(v); }
  // The integer values input i of node n of graph g reads: a Const's (i32 or i64, within the weights and at most
  // kMaxRank values), else what set_values gives where every element is known; or nullopt.
  std::optional<std::vector<int64_t>> ints(int g, int n, int i);
  // The same where some elements may be unknown.
  Partial partial(int g, int n, int i);

 private:
  std::optional<std::vector<int64_t>> const_ints(int g, int n, int i);
  const Model& m_;
  Values values_;
  bool built_ = false;
  std::unordered_map<uint64_t, const IrConst*> by_layer_;
};

// "f32" for input (input = true) or output k of node n of graph g, "" when the file states no concrete type.
std::string ir_elem_of(const Model& m, int g, int n, int k, bool input);

// OpenVINO's shape rule of node n of graph g on its inputs' shapes (unknown rank where not known).
ShapeVerdict ir_shape_rule(const Model& m, IrConstInts& consts, int g, int n, const std::vector<Shape>& in);

}  // namespace condlint
