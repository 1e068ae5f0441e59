#!/usr/bin/python3
"""Generates the ONNX execution corpus: models with golden data that `condlint run` and `lint --exec` run
(corpus/onnx/exec/), and the ONNX exec-cases the corpus test lints with exec on (corpus/onnx/exec-cases/).

Run with Debian's python3-onnx:  /usr/bin/python3 corpus/onnx/exec/gen.py
The .onnx files and test_data_set_* are committed, so the tests need no Python.

branch_coverage/: one If for each way a branch gets covered, on data that takes only one branch of each:
  guard        a shape guard (dim 1 of x == 1); the data has x of shape [1,4], so its then branch is reached only by
               synthesized inputs of another size for the symbolic dim 'n' (pinning a shape guard is never sound)
  always       dim 0 of x == 1 with x declared [1,n]: its else branch is dead (C012)
  mode_switch  mode > 0 on the input 'mode' (0 in the data): synthesized inputs set mode to 1
  overflow     sum(x) > 1000: a value no simple search over inputs reaches, so its then branch is pinned

exec-cases/synthesized_fails/ (EX004): If 'sel' on the boolean input 'cond'; the data has cond = true; the else
  branch gathers index 5 of a 2-element x, so the inputs synthesized to select it (cond = false) fail.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def branch(name, nodes, out):
    return h.make_graph(nodes, name, [], [h.make_tensor_value_info(out, TP.FLOAT, [1, "n"])])


def const(name, value, dtype):
    return h.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(value, dtype=dtype)))


def branch_coverage():
    f32 = np.float32
    nodes = [
        h.make_node("Shape", ["x"], ["shape"]),
        const("i0", 0, np.int64), const("i1", 1, np.int64), const("one", 1, np.int64),
        h.make_node("Gather", ["shape", "i1"], ["n"]),
        h.make_node("Equal", ["n", "one"], ["is_single"]),
        h.make_node("If", ["is_single"], ["a"], name="guard",
                    then_branch=branch("guard_then", [const("c1", 1.0, f32), h.make_node("Add", ["x", "c1"], ["ta"])],
                                       "ta"),
                    else_branch=branch("guard_else", [const("c2", 2.0, f32), h.make_node("Mul", ["x", "c2"], ["ea"])],
                                       "ea")),
        h.make_node("Gather", ["shape", "i0"], ["batch"]),
        h.make_node("Equal", ["batch", "one"], ["is_batch1"]),
        h.make_node("If", ["is_batch1"], ["b"], name="always",
                    then_branch=branch("always_then", [h.make_node("Identity", ["a"], ["tb"])], "tb"),
                    else_branch=branch("always_else", [h.make_node("Neg", ["a"], ["eb"])], "eb")),
        const("zero", 0, np.int64),
        h.make_node("Greater", ["mode", "zero"], ["mode_on"]),
        h.make_node("If", ["mode_on"], ["c"], name="mode_switch",
                    then_branch=branch("mode_then", [const("c10", 10.0, f32), h.make_node("Add", ["b", "c10"], ["tc"])],
                                       "tc"),
                    else_branch=branch("mode_else", [const("d10", 10.0, f32), h.make_node("Sub", ["b", "d10"], ["ec"])],
                                       "ec")),
        h.make_node("ReduceSum", ["x"], ["total"], keepdims=0),
        const("limit", 1000.0, f32),
        h.make_node("Greater", ["total", "limit"], ["too_big"]),
        h.make_node("If", ["too_big"], ["y"], name="overflow",
                    then_branch=branch("overflow_then", [const("z", 0.0, f32), h.make_node("Mul", ["c", "z"], ["ty"])],
                                       "ty"),
                    else_branch=branch("overflow_else", [h.make_node("Identity", ["c"], ["ey"])], "ey")),
    ]
    g = h.make_graph(nodes, "main",
                     [h.make_tensor_value_info("x", TP.FLOAT, [1, "n"]), h.make_tensor_value_info("mode", TP.INT64, [])],
                     [h.make_tensor_value_info("y", TP.FLOAT, [1, "n"])])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 13)], producer_name="condlint-corpus")
    m.ir_version = 7
    onnx.checker.check_model(m, full_check=True)
    x = np.array([[1, 2, 3, 4]], dtype=f32)
    mode = np.array(0, dtype=np.int64)
    y = (x * 2 - 10).astype(f32)  # guard else, always then, mode_switch else, overflow else
    out = os.path.join(HERE, "branch_coverage")
    ds = os.path.join(out, "test_data_set_0")
    os.makedirs(ds, exist_ok=True)
    onnx.save(m, os.path.join(out, "branch_coverage.onnx"))
    for k, (name, v) in enumerate([("x", x), ("mode", mode)]):
        with open(os.path.join(ds, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v, name).SerializeToString())
    with open(os.path.join(ds, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "y").SerializeToString())


def write_case(out, name, m, inputs, outputs):
    ds = os.path.join(out, "test_data_set_0")
    os.makedirs(ds, exist_ok=True)
    onnx.save(m, os.path.join(out, name + ".onnx"))
    for k, (n, v) in enumerate(inputs):
        with open(os.path.join(ds, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v, n).SerializeToString())
    for k, (n, v) in enumerate(outputs):
        with open(os.path.join(ds, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v, n).SerializeToString())


def synthesized_fails():
    def out(name):
        return [h.make_tensor_value_info(name, TP.FLOAT, [2])]
    then_g = h.make_graph([h.make_node("Identity", ["x"], ["t"])], "sel_then", [], out("t"))
    else_g = h.make_graph([const("idx", [5, 0], np.int64), h.make_node("Gather", ["x", "idx"], ["e"], axis=0)],
                          "sel_else", [], out("e"))
    g = h.make_graph([h.make_node("If", ["cond"], ["y"], name="sel", then_branch=then_g, else_branch=else_g)], "main",
                     [h.make_tensor_value_info("x", TP.FLOAT, [2]), h.make_tensor_value_info("cond", TP.BOOL, [])],
                     out("y"))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 13)], producer_name="condlint-corpus")
    m.ir_version = 7
    onnx.checker.check_model(m, full_check=True)
    x = np.array([1, 2], dtype=np.float32)
    d = os.path.join(HERE, "..", "exec-cases", "synthesized_fails")
    write_case(d, "synthesized_fails", m, [("x", x), ("cond", np.array(True))], [("y", x)])
    with open(os.path.join(d, "synthesized_fails.expect"), "w") as f:
        f.write("EX004@node:graph/sel\n")


if __name__ == "__main__":
    branch_coverage()
    synthesized_fails()
