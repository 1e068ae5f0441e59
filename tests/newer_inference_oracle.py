#!/usr/bin/env python3
"""condlint's inference for operator definitions newer than onnx 1.12, compared with the newest onnx's.

Run with the project's virtual environment (tools/venv):
    tools/venv/bin/python tests/newer_inference_oracle.py --condlint build/condlint --dir /tmp/x
Writes one model per case (an operator version of opset 18 to 23 with constant or non-constant axes, sizes, pads ...),
asks onnx for each output's type (onnx.shape_inference.infer_shapes(strict_mode=True)) and condlint for the same
(`condlint lint --dump-types`), and prints every output where the two differ. A dim onnx leaves symbolic (a
dim_param, or a fresh 'unk__' symbol) is an unknown dim for the comparison. Exit status 1 on any difference.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper

F, I64, F16 = TP.FLOAT, TP.INT64, TP.FLOAT16
NONE = ("", F, None)  # an omitted optional input

# condlint's spelling of the element types these cases produce (model/types.cpp).
ELEM = {TP.FLOAT: "f32", TP.INT64: "i64", TP.BOOL: "boolean", TP.FLOAT16: "f16", TP.FLOAT8E4M3FN: "f8e4m3",
        TP.FLOAT8E5M2FNUZ: "f8e5m2fnuz", TP.INT4: "i4", TP.UINT4: "u4", TP.FLOAT4E2M1: "f4e2m1", TP.INT32: "i32"}


def case(op, opset, inputs, attrs=None, consts=None, nout=1):
    """inputs: (name, elem, shape) per input ('' omits one); consts: name -> numpy array (an initializer)."""
    consts = consts or {}
    graph_inputs = [h.make_tensor_value_info(n, e, s) for n, e, s in inputs if n and n not in consts]
    inits = [numpy_helper.from_array(v, n) for n, v in consts.items()]
    outs = ["y%d" % i for i in range(nout)]
    node = h.make_node(op, [n for n, _, _ in inputs], outs, name="node", **(attrs or {}))
    g = h.make_graph([node], "main", graph_inputs, [h.make_tensor_value_info(o, 0, None) for o in outs], inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)], producer_name="condlint-oracle")
    m.ir_version = 11 if opset >= 23 else 9 if opset >= 20 else 8
    return m


def a(*v, dtype=np.int64):
    return np.array(v, dtype=dtype)


CASES = {
    "reducemean18_const": case("ReduceMean", 18, [("x", F, [2, "n", 4]), ("a", I64, [1])], {"keepdims": 0},
                               {"a": a(-1)}),
    "reducemean18_keep": case("ReduceMean", 18, [("x", F, [2, "n", 4]), ("a", I64, [2])], {}, {"a": a(0, 2)}),
    "reducemean18_nonconst": case("ReduceMean", 18, [("x", F, [2, 3, 4]), ("a", I64, [1])]),
    "reducemean18_noaxes": case("ReduceMean", 18, [("x", F, [2, 3, 4])], {"keepdims": 0}),
    "reducemean18_noop": case("ReduceMean", 18, [("x", F, [2, "n", 4])], {"noop_with_empty_axes": 1}),
    "reducesumsquare18": case("ReduceSumSquare", 18, [("x", F, [2, 3, 4]), ("a", I64, [1])], {}, {"a": a(1)}),
    "reducemax20_bool": case("ReduceMax", 20, [("x", TP.BOOL, [2, 3]), ("a", I64, [1])], {"keepdims": 0},
                             {"a": a(0)}),
    "reducel2_18": case("ReduceL2", 18, [("x", F, [5, 6]), ("a", I64, [1])], {"keepdims": 1}, {"a": a(-2)}),
    "split18_num_outputs": case("Split", 18, [("x", F, [2, 5, 4])], {"axis": 1, "num_outputs": 3}, nout=3),
    "split18_even": case("Split", 18, [("x", F, [2, 6, 4])], {"axis": -2, "num_outputs": 2}, nout=2),
    "split18_input": case("Split", 18, [("x", F, [2, 6, 4]), ("s", I64, [2])], {"axis": 1}, {"s": a(2, 4)}, nout=2),
    "split18_unknown_dim": case("Split", 18, [("x", F, [2, "n", 4])], {"axis": 1, "num_outputs": 2}, nout=2),
    "split18_nonconst": case("Split", 18, [("x", F, [2, 6, 4]), ("s", I64, [2])], {"axis": 1}, nout=2),
    "pad18_const": case("Pad", 18, [("x", F, [2, "n", 4]), ("p", I64, [6])], {}, {"p": a(0, 1, 0, 0, 2, 1)}),
    "pad18_axes": case("Pad", 18, [("x", F, [2, "n", 4]), ("p", I64, [2]), NONE, ("ax", I64, [1])], {},
                       {"p": a(1, 2), "ax": a(-1)}),
    "pad19_wrap": case("Pad", 19, [("x", F, [3, 4]), ("p", I64, [4])], {"mode": "wrap"}, {"p": a(1, 1, 1, 1)}),
    "pad18_nonconst": case("Pad", 18, [("x", F, [2, 3]), ("p", I64, [4])]),
    "pad23_axes_nonconst": case("Pad", 23, [("x", F, [2, 3]), ("p", I64, [2]), NONE, ("ax", I64, [1])], {},
                                {"p": a(1, 1)}),
    "resize19_scales": case("Resize", 19, [("x", F, [1, 3, 7, 5]), NONE, ("s", F, [4])], {},
                            {"s": a(1, 1, 0.3, 1.7, dtype=np.float32)}),
    "resize19_sizes": case("Resize", 19, [("x", F, [1, 3, "h", 5]), NONE, NONE, ("z", I64, [4])], {},
                           {"z": a(1, 3, 8, 9)}),
    "resize18_sizes_axes": case("Resize", 18, [("x", F, [1, 3, 4, 5]), NONE, NONE, ("z", I64, [2])],
                                {"axes": [2, 3], "keep_aspect_ratio_policy": "not_larger"}, {"z": a(8, 9)}),
    "resize19_not_smaller": case("Resize", 19, [("x", F, [1, 3, 4, 5]), NONE, NONE, ("z", I64, [2])],
                                 {"axes": [2, 3], "keep_aspect_ratio_policy": "not_smaller"}, {"z": a(8, 9)}),
    "resize18_scales_axes": case("Resize", 18, [("x", F, [1, 3, 4, 5]), NONE, ("s", F, [2])], {"axes": [2, 3]},
                                 {"s": a(2, 2.5, dtype=np.float32)}),
    "squeeze21_axes": case("Squeeze", 21, [("x", F, [1, "n", 1, 3]), ("a", I64, [1])], {}, {"a": a(-2)}),
    "squeeze23_noaxes": case("Squeeze", 23, [("x", F, [1, 2, 1, 3])]),
    "unsqueeze21": case("Unsqueeze", 21, [("x", F, [2, "n"]), ("a", I64, [2])], {}, {"a": a(0, -1)}),
    "unsqueeze23_nonconst": case("Unsqueeze", 23, [("x", F, [2, 3]), ("a", I64, [1])]),
    "reshape19": case("Reshape", 19, [("x", F, [2, 3, 4]), ("s", I64, [3])], {}, {"s": a(0, -1, 2)}),
    "reshape21_allowzero": case("Reshape", 21, [("x", F, [2, 3, 0]), ("s", I64, [2])], {"allowzero": 1},
                                {"s": a(0, 5)}),
    "reshape23_nonconst": case("Reshape", 23, [("x", F, [2, 3, 4]), ("s", I64, [2])]),
    "cast19_float8": case("Cast", 19, [("x", F, [2, "n"])], {"to": TP.FLOAT8E4M3FN}),
    "cast21_int4": case("Cast", 21, [("x", F, [2, 3])], {"to": TP.INT4}),
    "cast23_float4": case("Cast", 23, [("x", F, [2, 3])], {"to": TP.FLOAT4E2M1}),
    "castlike21": case("CastLike", 21, [("x", F, [2, "n"]), ("t", F16, [7])]),
    "constantofshape20": case("ConstantOfShape", 20, [("s", I64, [3])], {}, {"s": a(2, 0, 4)}),
    "constantofshape21_value": case("ConstantOfShape", 21, [("s", I64, [2])],
                                    {"value": h.make_tensor("v", TP.INT64, [1], [7])}),
    "shape19_slice": case("Shape", 19, [("x", F, [2, "n", 4])], {"start": -2}),
    "shape21": case("Shape", 21, [("x", F, [2, "n", 4])], {"start": 1, "end": 1}),
    "size21": case("Size", 21, [("x", F, [2, "n", 4])]),
    "gelu20": case("Gelu", 20, [("x", F, [2, "n"])], {"approximate": "tanh"}),
    "rmsnorm23": case("RMSNormalization", 23, [("x", F16, [2, 4, 8]), ("s", F16, [8])]),
    "rotary23": case("RotaryEmbedding", 23, [("x", F, [2, 4, 6, 8]), ("c", F, [6, 4]), ("s", F, [6, 4])]),
    "attention23_4d": case("Attention", 23, [("q", F, [2, 8, 5, 16]), ("k", F, [2, 2, 3, 16]),
                                             ("v", F, [2, 2, 3, 32])]),
    "attention23_3d_past": case("Attention", 23, [("q", F, [2, 5, 128]), ("k", F, [2, 4, 32]), ("v", F, [2, 4, 64]),
                                                  NONE, ("pk", F, [2, 2, 3, 16]), ("pv", F, [2, 2, 3, 32])],
                                {"q_num_heads": 8, "kv_num_heads": 2}, nout=3),
    "transpose23": case("Transpose", 23, [("x", F, [2, 4, "n"])], {"perm": [2, 0, 1]}),
    "flatten21": case("Flatten", 21, [("x", F, [2, 4, 3])], {"axis": -1}),
    "equal19": case("Equal", 19, [("x", F, [2, 1, 3]), ("y", F, [4, 1])]),
    "identity21": case("Identity", 21, [("x", F, [2, "n"])]),
    "cos22": case("Cos", 22, [("x", F, [2, 3])]),
}


def dims_of(tp):
    t = tp.tensor_type
    if not t.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--condlint", required=True)
    ap.add_argument("--dir", required=True)
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    bad = 0
    for name, m in CASES.items():
        path = os.path.join(args.dir, name + ".onnx")
        onnx.save(m, path)
        inferred = onnx.shape_inference.infer_shapes(m, strict_mode=True)
        want = {o.name: (ELEM.get(o.type.tensor_type.elem_type), dims_of(o.type)) for o in inferred.graph.output}
        types = os.path.join(args.dir, name + ".types.json")
        subprocess.run([args.condlint, "lint", "--dump-types", types, path], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        with open(types) as f:
            doc = json.load(f)
        got = {v["name"]: (v["elem"], v["shape"]) for v in doc["files"][0]["values"] if v["name"] in want}
        for out, w in want.items():
            g = got.get(out)
            if g is None or (g[0], g[1]) != w:
                print("%s: output %s: onnx %s, condlint %s" % (name, out, w, g))
                bad += 1
    print("%d cases, %d outputs differ" % (len(CASES), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
