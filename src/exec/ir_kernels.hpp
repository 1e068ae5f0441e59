// OpenVINO IR ops that have no ONNX kernel of the same meaning (exec/ir_exec.cpp calls them): plain functions over
// tensors, computed in double and rounded to the output's type. Semantics as OpenVINO's op specifications state them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "exec/tensor.hpp"

namespace condlint::exec::ir {

// Gelu-7: x * Phi(x) (approximation "erf") or its tanh form ("tanh").
Tensor gelu(const Tensor& x, bool tanh_form);
// Swish-4: x * sigmoid(beta * x).
Tensor swish(const Tensor& x, double beta);
// Clamp-1: min(max(x, lo), hi); for integer x, lo is rounded up and hi down.
Tensor clamp(const Tensor& x, double lo, double hi);
// MVN-6 over `axes`: (x - mean) / sqrt(var + eps) (inside) or / (sqrt(var) + eps) (outside).
Tensor mvn(const Tensor& x, std::vector<int64_t> axes, bool normalize_variance, double eps, bool eps_inside);
// ScaledDotProductAttention-13: softmax(Q K^T * scale + mask) V, batch dims broadcast (mask: boolean = keep, else
// added); scale defaults to 1/sqrt(head size); causal masks key j > query i.
Tensor sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask, const Tensor* scale, bool causal);
// ROIAlign-9. mode "avg"/"max"; aligned_mode "asymmetric", "half_pixel_for_nn", "half_pixel".
struct RoiAlignAttrs {
  int64_t pooled_h = 1, pooled_w = 1, sampling_ratio = 0;
  double spatial_scale = 1;
  std::string mode = "avg", aligned_mode = "asymmetric";
};
Tensor roi_align(const Tensor& x, const Tensor& rois, const Tensor& batch_indices, const RoiAlignAttrs& a);
// Pad-1/12: pads_begin/pads_end per axis (negative crops), mode constant/edge/reflect/symmetric.
Tensor pad(const Tensor& x, const std::vector<int64_t>& lo, const std::vector<int64_t>& hi, const std::string& mode,
           double value);
// NonMaxSuppression-9: selected_indices [n,3], selected_scores [n,3] (batch, class, score), valid_outputs [1].
struct NmsAttrs {
  bool center = false, sort_descending = true;
  int64_t max_per_class = 0;
  double iou = 0, score = 0, sigma = 0;
  DT index_type = DT::I64;
};
std::vector<Tensor> nms(const Tensor& boxes, const Tensor& scores, const NmsAttrs& a);
// TopK-1/3/11: exec::topk (kernel_util.hpp), which ONNX's TopK shares.
// Round-5 half_away_from_zero (half_to_even is ONNX's Round).
Tensor round_away(const Tensor& x);
// Equal blocks of rows along axis 1 reordered: block j of the result is block order[j] of `w`.
Tensor reorder_blocks(const Tensor& w, const std::vector<int64_t>& order);

}  // namespace condlint::exec::ir
