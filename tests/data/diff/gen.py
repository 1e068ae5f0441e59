#!/usr/bin/python3
# Generates the fixtures of tests/diff_test.cpp (Debian's python3-onnx): nested_if/ — an If inside the then
# branch of another If, with one golden data set (outputs omitted: diff compares runtimes, not golden data).
import os
import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

here = os.path.dirname(os.path.abspath(__file__))


def const(name, value):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(value, dtype=np.float32), name))


out_t = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [3])

inner_then = helper.make_graph([const("one", [1, 1, 1]), helper.make_node("Add", ["x", "one"], ["it"])], "inner_then", [], [out_t("it")])
inner_else = helper.make_graph([const("two", [2, 2, 2]), helper.make_node("Mul", ["x", "two"], ["ie"])], "inner_else", [], [out_t("ie")])
outer_then = helper.make_graph(
    [helper.make_node("If", ["c2"], ["ot"], name="inner", then_branch=inner_then, else_branch=inner_else)],
    "outer_then", [], [out_t("ot")])
outer_else = helper.make_graph([const("three", [3, 3, 3]), helper.make_node("Sub", ["x", "three"], ["oe"])], "outer_else", [], [out_t("oe")])
graph = helper.make_graph(
    [helper.make_node("If", ["c1"], ["y"], name="outer", then_branch=outer_then, else_branch=outer_else)],
    "nested_if",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]),
     helper.make_tensor_value_info("c1", TensorProto.BOOL, []),
     helper.make_tensor_value_info("c2", TensorProto.BOOL, [])],
    [out_t("y")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="condlint-tests")
model.ir_version = 7
d = os.path.join(here, "nested_if")
os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
save(model, os.path.join(d, "model.onnx"))
for k, (name, v) in enumerate([("x", np.array([0.5, -1.25, 4.0], dtype=np.float32)),
                               ("c1", np.array(True)), ("c2", np.array(True))]):
    with open(os.path.join(d, "test_data_set_0", "input_%d.pb" % k), "wb") as f:
        f.write(numpy_helper.from_array(v, name).SerializeToString())
