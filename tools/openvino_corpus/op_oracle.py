#!/usr/bin/env python3
"""Oracle cases for condlint's OpenVINO IR executor: one tiny ov.Model per op and attribute variant, run by OpenVINO.

For every case below: build a one- or few-op model with openvino.opset* (the opset version OpenVINO's converter
writes for that op), random inputs from a fixed seed (SEED + crc32 of the case name), save it with
openvino.save_model(m, path, compress_to_fp16=False), read it back, compile it on CPU with
{"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1}, infer, and write

    corpus-openvino/ops/<op>_<variant>/model.xml, model.bin, test_data_set_0/input_K.pb, output_K.pb

(onnx TensorProtos; input_K is the K-th Parameter and output_K the K-th Result of model.xml in file order, as
tools/openvino_corpus/generate.py writes them). tests/ir_ops_oracle_test.cpp runs `condlint run` on each.

Usage: tools/venv/bin/python tools/openvino_corpus/op_oracle.py [OUT_DIR] [--only SUBSTRING[,SUBSTRING...]]
"""
import os
import shutil
import sys
import xml.etree.ElementTree as ET
import zlib

import numpy as np
import onnx
import openvino as ov
from onnx import numpy_helper
import openvino.opset4.ops as opset4_ops  # opset4.range is opset1 Range; its ops module has v4
from openvino import opset1, opset3, opset4, opset5, opset6, opset7, opset8, opset9, opset10, opset11, opset12, opset13, opset14

SEED = 20260402
COMPILE_CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CASES = []


def case(name):
    def deco(f):
        CASES.append((name, f))
        return f

    return deco


class Inputs:
    """Parameters of a case with their values."""

    def __init__(self, rng):
        self.rng, self.params, self.values = rng, [], []

    def add(self, value, name=None):
        value = np.asarray(value)
        et = {np.dtype("float32"): ov.Type.f32, np.dtype("int64"): ov.Type.i64, np.dtype("int32"): ov.Type.i32,
              np.dtype("bool"): ov.Type.boolean}[value.dtype]
        p = opset1.parameter(list(value.shape), et, name=name or f"in{len(self.params)}")
        self.params.append(p)
        self.values.append(value)
        return p

    def f32(self, *shape, lo=-2.0, hi=2.0):
        return self.add(self.rng.uniform(lo, hi, shape).astype(np.float32))


def c64(v):
    return opset1.constant(np.asarray(v, dtype=np.int64))


def c32f(v):
    return opset1.constant(np.asarray(v, dtype=np.float32))


# -- Convolution family


def conv_case(name, x_shape, w_shape, strides, pb, pe, dil, auto_pad="explicit"):
    @case(name)
    def f(i):
        x = i.f32(*x_shape)
        w = c32f(i.rng.uniform(-1, 1, w_shape))
        return [opset1.convolution(x, w, strides, pb, pe, dil, auto_pad)]


conv_case("Convolution_pads1", [1, 3, 6, 6], [4, 3, 3, 3], [1, 1], [1, 1], [1, 1], [1, 1])
conv_case("Convolution_same_upper", [1, 2, 5, 6], [3, 2, 2, 3], [2, 2], [0, 0], [0, 0], [1, 1], "same_upper")
conv_case("Convolution_same_lower", [1, 2, 5, 6], [3, 2, 2, 2], [1, 1], [0, 0], [0, 0], [1, 1], "same_lower")
conv_case("Convolution_valid_stride2", [1, 2, 7, 7], [2, 2, 3, 3], [2, 2], [1, 1], [1, 1], [1, 1], "valid")
conv_case("Convolution_asym_stride2", [2, 3, 7, 8], [4, 3, 3, 3], [2, 2], [0, 0], [1, 1], [1, 1])
conv_case("Convolution_dilations2", [1, 2, 8, 8], [2, 2, 3, 3], [1, 1], [2, 1], [2, 1], [2, 2])
conv_case("Convolution_1d_stride2", [1, 3, 11], [5, 3, 3], [2], [1], [1], [1])


def gconv_case(name, x_shape, w_shape, strides, pb, pe, dil):
    @case(name)
    def f(i):
        x = i.f32(*x_shape)
        w = c32f(i.rng.uniform(-1, 1, w_shape))
        return [opset1.group_convolution(x, w, strides, pb, pe, dil, "explicit")]


gconv_case("GroupConvolution_depthwise", [1, 4, 6, 6], [4, 1, 1, 3, 3], [1, 1], [1, 1], [1, 1], [1, 1])
gconv_case("GroupConvolution_groups2_stride2", [1, 4, 7, 7], [2, 3, 2, 3, 3], [2, 2], [0, 0], [1, 1], [1, 1])
gconv_case("GroupConvolution_1d_pads2", [1, 6, 9], [3, 2, 2, 5], [1], [2], [2], [1])


@case("ConvolutionBackpropData_stride2")
def _(i):
    x = i.f32(1, 3, 4, 4)
    w = c32f(i.rng.uniform(-1, 1, [3, 2, 3, 3]))
    return [opset1.convolution_backprop_data(x, w, [2, 2], pads_begin=[1, 1], pads_end=[1, 1], dilations=[1, 1],
                                             output_padding=[1, 1])]


@case("ConvolutionBackpropData_plain")
def _(i):
    x = i.f32(1, 2, 3, 5)
    w = c32f(i.rng.uniform(-1, 1, [2, 3, 2, 2]))
    return [opset1.convolution_backprop_data(x, w, [1, 1], pads_begin=[0, 0], pads_end=[0, 0], dilations=[1, 1])]


@case("MaxPool_pads_indices")
def _(i):
    x = i.f32(1, 2, 5, 6)
    r = opset8.max_pool(x, [2, 2], [1, 1], [1, 0], [0, 1], [3, 2], "floor", "explicit", "i64", 0)
    return [r.output(0), r.output(1)]


@case("MaxPool_ceil_dil2")
def _(i):
    x = i.f32(2, 1, 7, 7)
    r = opset8.max_pool(x, [2, 2], [2, 2], [0, 0], [0, 0], [2, 2], "ceil", "explicit", "i64", 0)
    return [r.output(0), r.output(1)]


# -- Slicing and shapes


@case("Slice_axes")
def _(i):
    x = i.f32(4, 5, 6)
    return [opset8.slice(x, c64([1, -1]), c64([100, -5]), c64([2, -1]), c64([0, 2]))]


@case("Slice_no_axes")
def _(i):
    x = i.f32(5, 6)
    return [opset8.slice(x, c64([-4, 1]), c64([-1, 6]), c64([1, 3]))]


@case("Slice_i64_data")
def _(i):
    x = i.add(np.arange(24, dtype=np.int64).reshape(2, 3, 4))
    return [opset8.slice(x, c64([3, 0]), c64([-100, 9]), c64([-2, 1]), c64([-1, 1]))]


def pad_case(name, mode, pb, pe, value=None, shape=(2, 3, 4)):
    @case(name)
    def f(i):
        x = i.f32(*shape)
        v = c32f(1.5) if value is not None else None
        return [opset12.pad(x, c64(pb), c64(pe), mode, v)]


pad_case("Pad_constant", "constant", [0, 1, 2], [1, 0, 1], 1.5)
pad_case("Pad_constant_negative", "constant", [0, -1, 2], [1, 0, -2], 1.5)
pad_case("Pad_edge", "edge", [1, 2, 0], [0, 3, 2])
pad_case("Pad_reflect", "reflect", [0, 2, 3], [1, 1, 2])
pad_case("Pad_symmetric", "symmetric", [1, 3, 0], [1, 0, 4])
pad_case("Pad_reflect_negative", "reflect", [0, -1, 2], [0, 2, -1])


@case("Pad_opset1_constant")
def _(i):
    x = i.f32(2, 3)
    return [opset1.pad(x, c64([1, 2]), c64([2, 0]), "constant", c32f(-0.5))]


@case("Split_axis1")
def _(i):
    x = i.f32(2, 6, 3)
    s = opset1.split(x, c64(1), 3)
    return list(s.outputs())


@case("Split_negative_axis_i64")
def _(i):
    x = i.add(np.arange(16, dtype=np.int64).reshape(2, 8))
    return list(opset1.split(x, c64(-1), 4).outputs())


@case("VariadicSplit_minus1")
def _(i):
    x = i.f32(3, 7)
    return list(opset1.variadic_split(x, c64(1), c64([2, -1, 1])).outputs())


@case("VariadicSplit_axis0")
def _(i):
    x = i.add(np.arange(12, dtype=np.int64).reshape(6, 2))
    return list(opset1.variadic_split(x, c64(-2), c64([1, 0, 5])).outputs())


@case("NonZero_bool")
def _(i):
    x = i.add(i.rng.uniform(0, 1, (3, 4)) > 0.5)
    return [opset3.non_zero(x, "i64")]


@case("NonZero_f32_i32")
def _(i):
    v = i.rng.uniform(-1, 1, (2, 3, 2)).astype(np.float32)
    v[v < 0] = 0
    x = i.add(v)
    return [opset3.non_zero(x, "i32")]


@case("Range_i64")
def _(i):
    return [opset4_ops.range(i.add(np.array(2, np.int64)), i.add(np.array(-9, np.int64)), i.add(np.array(-3, np.int64)),
                         "i64")]


@case("Range_i32")
def _(i):
    return [opset4_ops.range(i.add(np.array(1, np.int32)), i.add(np.array(11, np.int32)), i.add(np.array(2, np.int32)),
                         "i32")]


@case("Range_f32")
def _(i):
    return [opset4_ops.range(i.add(np.array(0.5, np.float32)), i.add(np.array(3.2, np.float32)),
                         i.add(np.array(0.7, np.float32)), "f32")]


@case("ReverseSequence_batch1_seq0")
def _(i):
    x = i.f32(4, 3, 2)
    return [opset1.reverse_sequence(x, opset1.constant(np.array([4, 1, 3], np.int32)), 1, 0)]


@case("ReverseSequence_batch0_seq2")
def _(i):
    x = i.f32(2, 3, 5)
    return [opset1.reverse_sequence(x, c64([5, 2]), 0, 2)]


@case("Tile_repeats")
def _(i):
    x = i.f32(2, 3)
    return [opset1.tile(x, c64([2, 1, 2]))]


@case("GatherND_batch1")
def _(i):
    x = i.f32(2, 3, 4)
    return [opset8.gather_nd(x, c64([[[1], [0]], [[2], [2]]]), 1)]


@case("GatherND_plain")
def _(i):
    x = i.f32(3, 4)
    return [opset8.gather_nd(x, c64([[2, 1], [0, 3], [1, 0]]), 0)]


@case("ScatterNDUpdate_rows")
def _(i):
    x = i.f32(4, 3)
    u = i.f32(2, 3)
    return [opset4.scatter_nd_update(x, c64([[3], [1]]), u)]


@case("ScatterElementsUpdate_axis1")
def _(i):
    x = i.f32(3, 4)
    u = i.f32(2, 2)
    return [opset3.scatter_elements_update(x, c64([[3, 0], [1, 2]]), u, c64(1))]


# -- Element-wise


@case("Clamp_f32")
def _(i):
    return [opset1.clamp(i.f32(3, 4), -0.75, 1.25)]


@case("Clamp_lowest")
def _(i):
    return [opset1.clamp(i.f32(2, 5, lo=-10, hi=10), -3.4028234663852886e38, 4.1351666450500488)]


@case("Gelu_erf")
def _(i):
    return [opset7.gelu(i.f32(3, 5, lo=-4, hi=4), "erf")]


@case("Gelu_tanh")
def _(i):
    return [opset7.gelu(i.f32(3, 5, lo=-4, hi=4), "tanh")]


@case("Swish_nobeta")
def _(i):
    return [opset4.swish(i.f32(2, 6, lo=-5, hi=5))]


@case("Swish_beta")
def _(i):
    return [opset4.swish(i.f32(2, 6, lo=-5, hi=5), c32f(0.7))]


@case("HardSigmoid_plain")
def _(i):
    return [opset1.hard_sigmoid(i.f32(3, 4, lo=-5, hi=5), c32f(0.3), c32f(0.4))]


@case("FloorMod_f32")
def _(i):
    return [opset1.floor_mod(i.f32(3, 4, lo=-5, hi=5), opset1.negative(i.f32(3, 4, lo=0.5, hi=2)))]


@case("FloorMod_i64")
def _(i):
    a = i.add(np.array([[-7, 7, -8, 9], [5, -3, 0, 11]], np.int64))
    b = i.add(np.array([3, -3, 5, -4], np.int64))
    return [opset1.floor_mod(a, b)]


@case("Sin_Cos")
def _(i):
    x = i.f32(2, 5, lo=-4, hi=4)
    return [opset1.sin(x), opset1.cos(x)]


# -- Normalization, attention, pooling of regions


@case("MVN_inside_sqrt")
def _(i):
    return [opset6.mvn(i.f32(2, 3, 4), c64([2]), True, 1e-5, "inside_sqrt")]


@case("MVN_outside_sqrt_axes")
def _(i):
    return [opset6.mvn(i.f32(2, 3, 4), c64([-1, 1]), True, 1e-3, "outside_sqrt")]


@case("MVN_no_variance")
def _(i):
    return [opset6.mvn(i.f32(2, 3, 4), c64([0, 2]), False, 1e-5, "inside_sqrt")]


@case("ScaledDotProductAttention_mask_scale")
def _(i):
    q, k, v = i.f32(1, 2, 3, 4), i.f32(1, 2, 5, 4), i.f32(1, 2, 5, 6)
    m = i.f32(1, 1, 3, 5)
    return [opset13.scaled_dot_product_attention(q, k, v, m, i.add(np.array(0.4, np.float32)), False)]


@case("ScaledDotProductAttention_causal")
def _(i):
    q, k, v = i.f32(2, 4, 3), i.f32(2, 4, 3), i.f32(2, 4, 2)
    return [opset13.scaled_dot_product_attention(q, k, v, causal=True)]


@case("ScaledDotProductAttention_bool_mask")
def _(i):
    q, k, v = i.f32(1, 3, 4), i.f32(1, 5, 4), i.f32(1, 5, 2)
    m = i.add(np.array([[True, False, True, True, False], [False, True, True, False, True],
                        [True, True, False, False, False]]))
    return [opset13.scaled_dot_product_attention(q, k, v, m)]


def roi_case(name, aligned_mode, mode, sampling_ratio):
    @case(name)
    def f(i):
        x = i.f32(2, 3, 8, 8)
        rois = i.add(np.array([[1.0, 1.5, 6.0, 7.2], [0.0, 0.0, 3.0, 2.0], [2.5, 0.5, 9.0, 5.0]], np.float32))
        bi = opset1.constant(np.array([0, 1, 1], np.int64))
        return [opset9.roi_align(x, rois, bi, 3, 2, sampling_ratio, 0.75, mode, aligned_mode)]


roi_case("ROIAlign_avg_asymmetric", "asymmetric", "avg", 2)
roi_case("ROIAlign_max_half_pixel", "half_pixel", "max", 2)
roi_case("ROIAlign_avg_half_pixel_for_nn_adaptive", "half_pixel_for_nn", "avg", 0)


@case("TopK_max_value")
def _(i):
    r = opset11.topk(i.f32(3, 6), c64(3), 1, "max", "value", "i64")
    return [r.output(0), r.output(1)]


@case("TopK_min_index_axis0")
def _(i):
    r = opset11.topk(i.f32(5, 3), c64(2), 0, "min", "index", "i32")
    return [r.output(0), r.output(1)]


@case("Interpolate_linear_onnx_sizes")
def _(i):
    x = i.f32(1, 2, 4, 5)
    return [opset11.interpolate(x, c64([1, 2, 7, 3]), "linear_onnx", "sizes", [0, 0, 0, 0], [0, 0, 0, 0],
                                "half_pixel", "floor", False, -0.75)]


@case("Interpolate_linear_onnx_axes_scales")
def _(i):
    x = i.f32(1, 2, 3, 4)
    return [opset11.interpolate(x, c32f([2.0, 1.5]), "linear_onnx", "scales", None, None, "align_corners",
                                "floor", False, -0.75, c64([2, 3]))]


@case("Interpolate_nearest_sizes_axes")
def _(i):
    x = i.f32(1, 1, 3, 4)
    return [opset11.interpolate(x, c64([6, 3]), "nearest", "sizes", None, None, "asymmetric", "floor", False, -0.75,
                                c64([2, 3]))]


def lstm_case(name, direction, lengths):
    @case(name)
    def f(i):
        b, t, n_in, h = 2, 4, 3, 5
        nd = 2 if direction == "bidirectional" else 1
        x = i.f32(b, t, n_in)
        h0, c0 = i.f32(b, nd, h), i.f32(b, nd, h)
        sl = opset1.constant(np.array(lengths, np.int64))
        w = c32f(i.rng.uniform(-0.5, 0.5, (nd, 4 * h, n_in)))
        r = c32f(i.rng.uniform(-0.5, 0.5, (nd, 4 * h, h)))
        bb = c32f(i.rng.uniform(-0.5, 0.5, (nd, 4 * h)))
        s = opset5.lstm_sequence(x, h0, c0, sl, w, r, bb, h, direction)
        return list(s.outputs())


lstm_case("LSTMSequence_forward", "forward", [4, 4])
lstm_case("LSTMSequence_reverse_lengths", "reverse", [4, 2])
lstm_case("LSTMSequence_bidirectional", "bidirectional", [3, 4])


def nms_case(name, sort_desc, encoding, n_inputs, max_out=3, out_type="i64"):
    @case(name)
    def f(i):
        nb, nc, n = 2, 2, 6
        c = i.rng.uniform(0, 1, (nb, n, 2))
        s = i.rng.uniform(0.3, 1.0, (nb, n, 2))
        boxes = np.concatenate([c, c + s], axis=2).astype(np.float32)
        if encoding == "center":
            boxes = np.concatenate([c + s / 2, s], axis=2).astype(np.float32)
        bx = i.add(boxes)
        sc = i.f32(nb, nc, n, lo=0, hi=1)
        extra = [c64(max_out), c32f(0.4), c32f(0.2), c32f(0.0)][: n_inputs - 2]
        r = opset9.non_max_suppression(bx, sc, *extra, box_encoding=encoding, sort_result_descending=sort_desc,
                                       output_type=out_type)
        return [r.output(0), r.output(1), r.output(2)]


nms_case("NonMaxSuppression_corner", False, "corner", 5)
nms_case("NonMaxSuppression_sorted_center", True, "center", 5, 4)
nms_case("NonMaxSuppression_soft_sigma0_i32", False, "corner", 6, 2, "i32")


# -- More variants: the rules where OpenVINO's spelling or defaults differ from ONNX's


@case("Interpolate_nearest_round_prefer_ceil_half_pixel")
def _(i):
    x = i.f32(1, 2, 3, 5)
    return [opset11.interpolate(x, c32f([1.7, 0.6]), "nearest", "scales", None, None, "half_pixel",
                                "round_prefer_ceil", False, -0.75, c64([2, 3]))]


@case("Interpolate_nearest_ceil_tf_half_pixel_for_nn")
def _(i):
    x = i.f32(1, 1, 4, 4)
    return [opset11.interpolate(x, c64([7, 3]), "nearest", "sizes", None, None, "tf_half_pixel_for_nn", "ceil",
                                False, -0.75, c64([2, 3]))]


@case("Interpolate_cubic_pytorch_half_pixel")
def _(i):
    x = i.f32(1, 2, 4, 5)
    return [opset11.interpolate(x, c64([1, 2, 6, 1]), "cubic", "sizes", [0, 0, 0, 0], [0, 0, 0, 0],
                                "pytorch_half_pixel", "floor", False, -0.75)]


@case("Interpolate_opset4_linear_onnx_scales")  # opset10.interpolate writes Interpolate-4
def _(i):
    x = i.f32(1, 2, 3, 4)
    return [opset10.interpolate(x, c64([6, 6]), c32f([2.0, 1.5]), "linear_onnx", "scales", None, None,
                               "asymmetric", "round_prefer_floor", False, -0.75, c64([2, 3]))]


@case("Convolution_same_upper_dilations2")
def _(i):
    x = i.f32(1, 2, 7, 6)
    w = c32f(i.rng.uniform(-1, 1, [3, 2, 3, 2]))
    return [opset1.convolution(x, w, [2, 1], [0, 0], [0, 0], [2, 2], "same_upper")]


@case("MaxPool_same_upper_i32_indices")
def _(i):
    x = i.f32(1, 2, 5, 5)
    r = opset8.max_pool(x, [2, 2], [1, 1], [0, 0], [0, 0], [2, 3], "floor", "same_upper", "i32", 0)
    return [r.output(0), r.output(1)]


@case("MaxPool_opset1")
def _(i):
    x = i.f32(1, 3, 6, 5)
    return [opset1.max_pool(x, [2, 1], [1, 0], [0, 1], [3, 2], "floor", "explicit")]


pad_case("Pad_edge_negative", "edge", [-1, 2, 1], [1, -2, 0])
pad_case("Pad_symmetric_negative", "symmetric", [0, 2, -1], [1, -1, 3])


@case("Slice_extreme_bounds")
def _(i):
    x = i.f32(3, 4, 5)
    big = np.iinfo(np.int64).max
    return [opset8.slice(x, c64([-1, big]), c64([-big - 1, 1]), c64([-1, -2]), c64([0, 2]))]


@case("Range_f32_negative_step")
def _(i):
    return [opset4_ops.range(i.add(np.array(1.5, np.float32)), i.add(np.array(-2.0, np.float32)),
                             i.add(np.array(-0.45, np.float32)), "f32")]


@case("Clamp_i64_fractional")
def _(i):
    x = i.add(np.array([[-5, -2, -1, 0], [1, 2, 3, 9]], np.int64))
    return [opset1.clamp(x, -1.5, 2.5)]


@case("ReverseSequence_negative_axes")
def _(i):
    x = i.f32(3, 4, 2)
    return [opset1.reverse_sequence(x, c64([2, 4, 1]), -3, -2)]


@case("Tile_short_repeats")
def _(i):
    x = i.f32(2, 1, 3)
    return [opset1.tile(x, c64([3, 2]))]


@case("TopK_max_index_sort_i64")
def _(i):
    r = opset11.topk(i.f32(2, 7), c64(4), -1, "max", "index", "i64")
    return [r.output(0), r.output(1)]


@case("ScaledDotProductAttention_causal_longer_keys")
def _(i):
    q, k, v = i.f32(1, 2, 3, 4), i.f32(1, 2, 5, 4), i.f32(1, 2, 5, 3)
    return [opset13.scaled_dot_product_attention(q, k, v, causal=True)]


@case("ScaledDotProductAttention_rank3_mask_broadcast")
def _(i):
    q, k, v = i.f32(2, 3, 4), i.f32(2, 6, 4), i.f32(2, 6, 2)
    return [opset13.scaled_dot_product_attention(q, k, v, i.f32(3, 6))]


@case("MVN_outside_sqrt_no_variance_all_axes")
def _(i):
    return [opset6.mvn(i.f32(2, 3, 2), c64([0, 1, 2]), False, 1e-3, "outside_sqrt")]


lstm_case("LSTMSequence_bidirectional_zero_length", "bidirectional", [0, 3])


@case("LSTMSequence_clip")
def _(i):
    b, t, n_in, h = 1, 3, 2, 3
    x = i.f32(b, t, n_in, lo=-3, hi=3)
    h0, c0 = i.f32(b, 1, h), i.f32(b, 1, h)
    w = c32f(i.rng.uniform(-2, 2, (1, 4 * h, n_in)))
    r = c32f(i.rng.uniform(-2, 2, (1, 4 * h, h)))
    bb = c32f(i.rng.uniform(-1, 1, (1, 4 * h)))
    s = opset5.lstm_sequence(x, h0, c0, c64([3]), w, r, bb, h, "forward", clip=0.5)
    return list(s.outputs())


nms_case("NonMaxSuppression_none_selected", False, "corner", 5, 0)


@case("NonMaxSuppression_opset5_sorted")
def _(i):
    c = i.rng.uniform(0, 1, (1, 7, 2))
    s = i.rng.uniform(0.3, 1.0, (1, 7, 2))
    bx = i.add(np.concatenate([c + s, c], axis=2).astype(np.float32))  # corners in the other order
    sc = i.f32(1, 3, 7, lo=0, hi=1)
    r = opset5.non_max_suppression(bx, sc, c64(2), c32f(0.3), c32f(0.1), box_encoding="corner",
                                   sort_result_descending=True, output_type="i64")
    return [r.output(0), r.output(1), r.output(2)]


@case("ROIAlign_opset3_max")
def _(i):
    x = i.f32(1, 2, 6, 6)
    rois = i.add(np.array([[0.5, 0.5, 4.0, 5.5], [1.0, 2.0, 1.2, 2.1]], np.float32))
    bi = opset1.constant(np.array([0, 0], np.int64))
    return [opset3.roi_align(x, rois, bi, 2, 3, 1, 1.0, "max")]


# -- Further ops OpenVINO's converters write


def unary_case(name, fn, lo=-2.0, hi=2.0):
    @case(name)
    def f(i):
        return [fn(i.f32(3, 4, lo=lo, hi=hi))]


unary_case("Erf_plain", opset1.erf)
unary_case("Sign_plain", opset1.sign)
unary_case("SoftPlus_plain", opset4.softplus, -25, 25)
unary_case("Mish_plain", opset4.mish, -5, 5)
unary_case("Tan_plain", opset1.tan, -1.2, 1.2)
unary_case("Asin_Acos_Atan", lambda x: opset1.add(opset1.add(opset1.asin(x), opset1.acos(x)), opset1.atan(x)),
           -0.99, 0.99)
unary_case("Sinh_Cosh_Asinh", lambda x: opset1.add(opset1.add(opset1.sinh(x), opset1.cosh(x)), opset4.asinh(x)))
unary_case("Acosh_plain", opset4.acosh, 1.0, 4.0)
unary_case("Atanh_plain", opset4.atanh, -0.95, 0.95)
unary_case("Elu_alpha", lambda x: opset1.elu(x, 0.7))
unary_case("Selu_plain", lambda x: opset1.selu(x, c32f([1.6]), c32f([1.05])))
unary_case("Round_half_to_even", lambda x: opset5.round(opset1.multiply(x, c32f(2.0)), "half_to_even"))
unary_case("Round_half_away_from_zero", lambda x: opset5.round(opset1.multiply(x, c32f(2.0)), "half_away_from_zero"))
unary_case("LogSoftmax_axis0", lambda x: opset5.log_softmax(x, 0))
unary_case("ReduceL1_ReduceL2", lambda x: opset1.add(opset4.reduce_l1(x, c64([1]), True),
                                                       opset4.reduce_l2(x, c64([1]), True)))
unary_case("CumSum_exclusive_reverse", lambda x: opset3.cumsum(x, c64(1), True, True))
unary_case("CumSum_default_axis", lambda x: opset3.cumsum(x, c64(0)))


@case("Mod_FloorMod_signs")
def _(i):
    a = i.add(np.array([[-7.5, 7.5, -8.0, 9.25], [5.0, -3.5, 0.0, 11.0]], np.float32))
    b = i.add(np.array([2.0, -2.0, 3.0, -4.0], np.float32))
    return [opset1.mod(a, b), opset1.floor_mod(a, b)]


@case("Mod_i64")
def _(i):
    a = i.add(np.array([[-7, 7, -8, 9], [5, -3, 0, 11]], np.int64))
    return [opset1.mod(a, c64([3, -3, 5, -4]))]


@case("SquaredDifference_broadcast")
def _(i):
    return [opset1.squared_difference(i.f32(2, 3, 4), i.f32(3, 1))]


@case("PRelu_channel_slope")
def _(i):
    return [opset1.prelu(i.f32(2, 3, 4, 4), c32f([0.1, -0.5, 2.0]))]


@case("PRelu_scalar_slope")
def _(i):
    return [opset1.prelu(i.f32(2, 5), c32f([0.25]))]


@case("AvgPool_exclude_pad")
def _(i):
    return [opset1.avg_pool(i.f32(1, 2, 5, 6), [2, 2], [1, 1], [1, 0], [3, 3], True, "floor", "explicit")]


@case("AvgPool_include_pad_ceil")
def _(i):
    return [opset14.avg_pool(i.f32(1, 2, 7, 7), [2, 2], [1, 1], [1, 1], [3, 3], False, "ceil", "explicit")]


@case("DepthToSpace_blocks_first")
def _(i):
    return [opset1.depth_to_space(i.f32(1, 8, 2, 3), "blocks_first", 2)]


@case("DepthToSpace_depth_first")
def _(i):
    return [opset1.depth_to_space(i.f32(1, 8, 2, 3), "depth_first", 2)]


@case("SpaceToDepth_blocks_first")
def _(i):
    return [opset1.space_to_depth(i.f32(1, 2, 4, 6), "blocks_first", 2)]


@case("GatherElements_axis1")
def _(i):
    return [opset6.gather_elements(i.f32(3, 4), c64([[0, 3, -1], [2, 2, 0], [1, 0, 3]]), 1)]


def bn_case(name, ops):
    @case(name)
    def f(i):
        x = i.f32(2, 3, 4)
        g, b, m = c32f(i.rng.uniform(0.5, 2, 3)), c32f(i.rng.uniform(-1, 1, 3)), c32f(i.rng.uniform(-1, 1, 3))
        v = c32f(i.rng.uniform(0.1, 2, 3))
        return [ops.batch_norm_inference(x, g, b, m, v, 1e-3)]


bn_case("BatchNormInference_opset5", opset5)
bn_case("BatchNormInference_opset1", opset1)


@case("Einsum_batched_matmul")
def _(i):
    return [opset7.einsum([i.f32(2, 3, 4), i.f32(2, 4, 5)], "bij,bjk->bik")]


@case("Einsum_transpose_sum")
def _(i):
    return [opset7.einsum([i.f32(3, 4, 2)], "abc->ca")]


def gru_case(name, direction, lengths, lbr):
    @case(name)
    def f(i):
        b, t, n_in, h = 2, 3, 3, 4
        nd = 2 if direction == "bidirectional" else 1
        x, h0 = i.f32(b, t, n_in), i.f32(b, nd, h)
        sl = opset1.constant(np.array(lengths, np.int64))
        w = c32f(i.rng.uniform(-0.5, 0.5, (nd, 3 * h, n_in)))
        r = c32f(i.rng.uniform(-0.5, 0.5, (nd, 3 * h, h)))
        bb = c32f(i.rng.uniform(-0.5, 0.5, (nd, (4 if lbr else 3) * h)))
        s = opset5.gru_sequence(x, h0, sl, w, r, bb, h, direction, linear_before_reset=lbr)
        return list(s.outputs())


gru_case("GRUSequence_forward", "forward", [3, 2], False)
gru_case("GRUSequence_bidirectional_lbr", "bidirectional", [3, 1], True)


@case("RNNSequence_reverse")
def _(i):
    b, t, n_in, h = 2, 4, 3, 2
    x, h0 = i.f32(b, t, n_in), i.f32(b, 1, h)
    sl = opset1.constant(np.array([4, 2], np.int64))
    w = c32f(i.rng.uniform(-0.7, 0.7, (1, h, n_in)))
    r = c32f(i.rng.uniform(-0.7, 0.7, (1, h, h)))
    bb = c32f(i.rng.uniform(-0.5, 0.5, (1, h)))
    return list(opset5.rnn_sequence(x, h0, sl, w, r, bb, h, "reverse").outputs())


# -- Writing


def xml_order(xml_path):
    layers = ET.parse(xml_path).getroot().find("layers")
    params = [l.get("name") for l in layers.findall("layer") if l.get("type") == "Parameter"]
    results = [l.get("name") for l in layers.findall("layer") if l.get("type") == "Result"]
    return params, results


def write_case(out_dir, index, name, build):
    rng = np.random.default_rng(SEED + zlib.crc32(name.encode()))
    inputs = Inputs(rng)
    outs = build(inputs)
    model = ov.Model([opset1.result(o, name=f"out{k}") for k, o in enumerate(outs)], inputs.params, name)
    d = os.path.join(out_dir, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    xml = os.path.join(d, "model.xml")
    ov.save_model(model, xml, compress_to_fp16=False)
    core = ov.Core()
    read = core.read_model(xml)
    compiled = core.compile_model(read, "CPU", COMPILE_CONFIG)
    pnames = [p.get_friendly_name() for p in read.get_parameters()]
    rnames = [r.get_friendly_name() for r in read.get_results()]
    xml_params, xml_results = xml_order(xml)
    by_name = dict(zip([p.get_friendly_name() for p in inputs.params], inputs.values))
    res = compiled([by_name[n] for n in pnames])
    for k, n in enumerate(xml_params):
        with open(os.path.join(d, "test_data_set_0", f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(by_name[n], n).SerializeToString())
    for k, n in enumerate(xml_results):
        a = np.array(res[compiled.outputs[rnames.index(n)]])
        with open(os.path.join(d, "test_data_set_0", f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())


def main():
    args = sys.argv[1:]
    only = None
    if "--only" in args:
        only = args[args.index("--only") + 1]
        del args[args.index("--only"):args.index("--only") + 2]
    out_dir = args[0] if args else os.path.join(ROOT, "corpus-openvino", "ops")
    os.makedirs(out_dir, exist_ok=True)
    for index, (name, build) in enumerate(CASES):
        if only and not any(o in name for o in only.split(",")):
            continue
        write_case(out_dir, index, name, build)
        print("wrote", name)


if __name__ == "__main__":
    main()
