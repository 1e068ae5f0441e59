// The inference context onnx's per-node inference functions read, shared by the ONNX walk and the branch-sensitive
// inference of the nodes after an If (onnx_branch_consumers).
#pragma once

#include <onnx/defs/shape_inference.h>

#include <memory>
#include <string>
#include <vector>

namespace condlint {

// The inference context onnx's per-node inference functions read. One per loader, reset for every node: its
// vectors and output TypeProtos are reused, so inferring 200,000 nodes allocates nothing per node.
struct NodeContext final : onnx::InferenceContext {
  const onnx::NodeProto* node = nullptr;
  std::vector<const onnx::TypeProto*> in_types;
  std::vector<const onnx::TensorProto*> in_data;
  // On the heap, not the loader's arena: clearing an arena TypeProto abandons its tensor_type on the arena (a
  // few hundred bytes per node, never reused); on the heap the allocator hands the same blocks back.
  std::vector<std::unique_ptr<onnx::TypeProto>> out;  // out.size() may exceed the node's outputs
  size_t n_out = 0;
  void reset(const onnx::NodeProto& n) {
    node = &n;
    in_types.clear();
    in_data.clear();
    n_out = static_cast<size_t>(n.output_size());
    while (out.size() < n_out) out.push_back(std::make_unique<onnx::TypeProto>());
    for (size_t k = 0; k < n_out; ++k) out[k]->Clear();
  }
  const onnx::AttributeProto* getAttribute(const std::string& name) const override {
    for (const auto& a : node->attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  size_t getNumInputs() const override { return in_types.size(); }
  const onnx::TypeProto* getInputType(size_t i) const override { return i < in_types.size() ? in_types[i] : nullptr; }
  const onnx::TensorProto* getInputData(size_t i) const override { return i < in_data.size() ? in_data[i] : nullptr; }
  size_t getNumOutputs() const override { return n_out; }
  onnx::TypeProto* getOutputType(size_t i) override {
    if (i >= n_out) fail_type_inference("output ", i, " is out of range");
    return out[i].get();
  }
  onnx::GraphInferencer* getGraphAttributeInferencer(const std::string&) override {
    fail_type_inference("subgraph inference is done by condlint itself");
  }
  const onnx::SparseTensorProto* getInputSparseData(size_t) const override { return nullptr; }
  const onnx::TensorShapeProto* getSymbolicInput(size_t) const override { return nullptr; }
};

}  // namespace condlint
