#!/usr/bin/env python3
"""Writes the corpus cases of the target rules (ORT, OV, TRT): small ONNX models made with onnx's helper.
Run from the repository root with a python that has onnx (tools/venv/bin/python tools/targets/gen_corpus.py)."""
import sys

import onnx
from onnx import TensorProto as T
from onnx import helper as h

OUT = "corpus/onnx/invalid/"


def branch(name, node_in, out, elem):
    return h.make_graph([h.make_node("Identity", [node_in], [out])], name, [],
                        [h.make_tensor_value_info(out, elem, [2])])


def save(model, path):
    onnx.checker.check_model(model)
    with open(OUT + path, "wb") as f:
        f.write(model.SerializeToString())


# ORT001 and TRT001: a plain If under opset 21 (IR 10), which onnxruntime 1.17 and TensorRT 10.1 do not load.
g = h.make_graph([h.make_node("If", ["c"], ["y"], name="if_opset21",
                              then_branch=branch("then", "x", "t", T.FLOAT),
                              else_branch=branch("else", "x", "e", T.FLOAT))], "opset21",
                 [h.make_tensor_value_info("c", T.BOOL, []), h.make_tensor_value_info("x", T.FLOAT, [2])],
                 [h.make_tensor_value_info("y", T.FLOAT, [2])])
m = h.make_model(g, opset_imports=[h.make_opsetid("", 21)])
m.ir_version = 10
save(m, "ORT001_opset21.onnx")
save(m, "TRT001_opset21.onnx")

# TRT002: an If whose outputs are double (no TensorRT If takes it) and int64 (TensorRT 9.0 and later), the int64
# one named 'zi' in both branches.
g = h.make_graph([h.make_node("If", ["c"], ["yd", "yi"], name="if_types",
                              then_branch=h.make_graph([h.make_node("Identity", ["xd"], ["td"]),
                                                        h.make_node("Identity", ["xi"], ["zi"])], "then", [],
                                                       [h.make_tensor_value_info("td", T.DOUBLE, [2]),
                                                        h.make_tensor_value_info("zi", T.INT64, [2])]),
                              else_branch=h.make_graph([h.make_node("Identity", ["xd"], ["ed"]),
                                                        h.make_node("Identity", ["xi"], ["zi"])], "else", [],
                                                       [h.make_tensor_value_info("ed", T.DOUBLE, [2]),
                                                        h.make_tensor_value_info("zi", T.INT64, [2])]))],
                 "if_types",
                 [h.make_tensor_value_info("c", T.BOOL, []), h.make_tensor_value_info("xd", T.DOUBLE, [2]),
                  h.make_tensor_value_info("xi", T.INT64, [2])],
                 [h.make_tensor_value_info("yd", T.DOUBLE, [2]), h.make_tensor_value_info("yi", T.INT64, [2])])
m = h.make_model(g, opset_imports=[h.make_opsetid("", 13)])
m.ir_version = 7
save(m, "TRT002_if_types.onnx")


# OV001: 32 nested Ifs, one level more than OpenVINO's ONNX reader (protobuf's recursion limit) parses.
def nested(level, n):
    if level > n:
        return branch("leaf%d" % level, "x", "y%d" % level, T.FLOAT)
    node = h.make_node("If", ["c"], ["y%d" % level], name="if_%d" % level, then_branch=nested(level + 1, n),
                       else_branch=branch("else%d" % level, "x", "e%d" % level, T.FLOAT))
    return h.make_graph([node], "g%d" % level, [], [h.make_tensor_value_info("y%d" % level, T.FLOAT, [2])])


g = nested(1, 32)
g.input.extend([h.make_tensor_value_info("c", T.BOOL, []), h.make_tensor_value_info("x", T.FLOAT, [2])])
m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
m.ir_version = 8
with open(OUT + "OV001_nested_32.onnx", "wb") as f:  # onnx's checker itself cannot read this deep
    f.write(m.SerializeToString())
print("wrote the target cases", file=sys.stderr)
