// The shapes OpenVINO infers for the layer outputs of an IR model, as far as condlint's shape rules of IR ops
// (loaders/ir_shape_rules) prove them: what the conditions of Ifs test (a ShapeOf of a value computed inside a body)
// is decided from these, not from the dims the file declares on computed values (which OpenVINO replaces).
//
// Facts, in OpenVINO's terms: a main-graph Parameter has its declared shape (OpenVINO feeds it only inputs of that
// shape); a Const its `shape`; a layer what its op's rule gives for its inputs' shapes. An If body's Parameter has
// the shape of the If input its port map binds to it (OpenVINO's If overwrites the body Parameter's declared shape
// with it), an If output what its live branch gives where the shapes inferred so far decide its condition (OpenVINO
// folds such a condition and infers the If from that branch alone), else the union of its branches by OpenVINO's If-8
// rule (merge_branches_openvino). Other bodies (Loop, TensorIterator) are not looked into: their outputs and everything
// computed from them are unknown, as is anything past kIrShapesMaxDepth nested Ifs. Unknown is always sound.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/model.hpp"

namespace condlint {

constexpr int kIrShapesMaxDepth = 64;  // nested If bodies looked into

class IrShapes {
 public:
  IrShapes() = default;
  // Infers the shapes of every graph reachable from the main graph through If bodies (once each: linear in layers).
  explicit IrShapes(const Model& m);
  // The proven shape of `ref` (a layer output), or null when nothing is proven.
  const Shape* of(const ValueRef& ref) const;

 private:
  std::unordered_map<uint64_t, std::vector<Shape>> by_layer_;  // (graph, node) -> its outputs' shapes
};

}  // namespace condlint
