#!/usr/bin/python3
"""Generates the ONNX corpus cases of C014: a node after an If that one branch breaks, and the cases where the
branches differ but every consumer takes both (silent).

Run with Debian's python3-onnx:  /usr/bin/python3 corpus/onnx/gen_downstream.py
tests/branch_consumers_test.cpp runs every case in ONNX Runtime: each invalid one fails under its breaking branch
and runs under the other; the valid ones run under both.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen import B, F, I64, branch, h, model, save, vi  # noqa: E402


def constant(out, dims, name):
    n = 1
    for d in dims:
        n *= d
    return h.make_node("Constant", [], [out], name=name,
                       value=h.make_tensor(out + "_v", F, dims, [float(i + 1) for i in range(n)]))


def pick(then_dims, else_dims, name="pick", cond="cond", out="res"):
    """If `name` on `cond`: the then branch a constant of then_dims, the else branch one of else_dims."""
    tb = branch("then", [constant("t_out", then_dims, "then_const")], [vi("t_out", F, then_dims)])
    eb = branch("else", [constant("e_out", else_dims, "else_const")], [vi("e_out", F, else_dims)])
    return h.make_node("If", [cond], [out], name=name, then_branch=tb, else_branch=eb)


def init(name, dims, elem=F, values=None):
    n = 1
    for d in dims:
        n *= d
    return h.make_tensor(name, elem, dims, values if values is not None else [1.0] * n)


COND = [vi("cond", B, [])]


def invalid():
    # The example: then [2,1], else [2]; MatMul by [1,2] multiplies the first and fails on the second.
    save("invalid/C014_matmul.onnx",
         model([pick([2, 1], [2]), h.make_node("MatMul", ["res", "W"], ["out"], name="proj")], COND,
               [vi("out", F, [2, 2])], inits=[init("W", [1, 2])]),
         ["C014@node:main/proj", "C011@node:main/pick"])
    # Polygraphy's bad_graph_conditionally_invalid (its graph output given a shape): the branch outputs are declared
    # float without a shape; the Constants' shapes, which inference proves, are the branches' facts.
    unshaped = h.make_node("If", ["cond"], ["res"], name="pick",
                           then_branch=branch("then", [constant("t_out", [2, 1], "then_const")], [vi("t_out", F, None)]),
                           else_branch=branch("else", [constant("e_out", [2], "else_const")], [vi("e_out", F, None)]))
    save("invalid/C014_branch_outputs_without_shapes.onnx",
         model([unshaped, h.make_node("MatMul", ["res", "z"], ["out"], name="proj")],
               COND + [vi("z", F, [1, 2])], [vi("out", F, [2, 2])]),
         ["C014@node:main/proj", "C011@node:main/pick"])
    # Issue 46's first two examples, where onnx's inference passes and ONNX Runtime fails: then [1,4], else [1,5],
    # through a Relu into a Gemm with G [4,2] (onnx's Gemm inference does not compare the inner dims); then [6],
    # else [5], reshaped to [2,3] under a condition from data (onnx's Reshape inference does not count elements).
    save("invalid/C014_gemm_inner_dim.onnx",
         model([pick([1, 4], [1, 5]), h.make_node("Relu", ["res"], ["r"], name="act"),
                h.make_node("Gemm", ["r", "G"], ["out"], name="dense")], COND,
               [vi("out", F, [1, 2])], inits=[init("G", [4, 2])]),
         ["C014@node:main/dense", "C011@node:main/pick"])
    save("invalid/C014_reshape_count.onnx",
         model([h.make_node("ReduceSum", ["x"], ["s"], name="total", keepdims=0),
                h.make_node("Greater", ["s", "zero"], ["cond"], name="positive"), pick([6], [5]),
                h.make_node("Reshape", ["res", "shape"], ["out"], name="grid")],
               [vi("x", F, [3])], [vi("out", F, [2, 3])],
               inits=[init("zero", [], F, [0.0]), init("shape", [2], I64, [2, 3])]),
         ["C014@node:main/grid", "C011@node:main/pick"])
    # Add that cannot broadcast: then [2,3] against y [2,3]; else [3,2].
    save("invalid/C014_add_broadcast.onnx",
         model([pick([2, 3], [3, 2]), h.make_node("Add", ["res", "y"], ["out"], name="bias")], COND,
               [vi("out", F, [2, 3])], inits=[init("y", [2, 3])]),
         ["C014@node:main/bias", "C011@node:main/pick"])
    # Reshape to [-1,3]: six elements under the then branch, four under the else branch.
    save("invalid/C014_reshape.onnx",
         model([pick([2, 3], [2, 2]), h.make_node("Reshape", ["res", "shape"], ["out"], name="flat")], COND,
               [vi("out", F, [2, 3])], inits=[init("shape", [2], I64, [-1, 3])]),
         ["C014@node:main/flat", "C011@node:main/pick"])
    # Concat of another rank: [2,1] with z [2,1]; else [2].
    save("invalid/C014_concat_rank.onnx",
         model([pick([2, 1], [2]), h.make_node("Concat", ["res", "z"], ["out"], name="join", axis=0)], COND,
               [vi("out", F, [4, 1])], inits=[init("z", [2, 1])]),
         ["C014@node:main/join", "C011@node:main/pick"])
    # Gemm two nodes on, behind a Relu: then [1,2], else [1,1,2] (Gemm takes rank 2 only).
    save("invalid/C014_gemm_behind_relu.onnx",
         model([pick([1, 2], [1, 1, 2]), h.make_node("Relu", ["res"], ["r"], name="act"),
                h.make_node("Gemm", ["r", "W"], ["out"], name="dense")], COND,
               [vi("out", F, [1, 3])], inits=[init("W", [2, 3])]),
         ["C014@node:main/dense", "C011@node:main/pick"])
    # A condition computed from data: ReduceSum(x) > 0 picks the branch; the else branch breaks the MatMul.
    nodes = [h.make_node("ReduceSum", ["x"], ["s"], name="total", keepdims=0),
             h.make_node("Greater", ["s", "zero"], ["positive"], name="is_positive"),
             pick([2, 1], [2], cond="positive"), h.make_node("MatMul", ["res", "W"], ["out"], name="proj")]
    save("invalid/C014_data_condition.onnx",
         model(nodes, [vi("x", F, [3])], [vi("out", F, [2, 2])],
               inits=[init("W", [1, 2]), init("zero", [], F, [0.0])]),
         ["C014@node:main/proj", "C011@node:main/pick"])
    # Nested: the outer then branch is an inner If whose else branch gives [2]; only cond true and inner false fails.
    inner = pick([2, 1], [2], name="inner", cond="inner_cond", out="i_out")
    tb = branch("then", [inner], [vi("i_out", F, None)])
    eb = branch("else", [constant("e_out", [2, 1], "outer_else_const")], [vi("e_out", F, [2, 1])])
    outer = h.make_node("If", ["cond"], ["res"], name="outer", then_branch=tb, else_branch=eb)
    save("invalid/C014_nested.onnx",
         model([outer, h.make_node("MatMul", ["res", "W"], ["out"], name="proj")], COND + [vi("inner_cond", B, [])],
               [vi("out", F, [2, 2])], inits=[init("W", [1, 2])]),
         ["C014@node:main/proj", "C011@node:main/outer/then/inner"])
    # An If inside a Loop body, on a loop-carried flag, with the MatMul after it in the body.
    body_nodes = [pick([2, 1], [2], cond="flag_in"), h.make_node("MatMul", ["res", "W"], ["prod"], name="proj"),
                  h.make_node("Identity", ["flag_in"], ["flag_out"], name="keep_flag"),
                  h.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_cond")]
    body = h.make_graph(body_nodes, "body", [vi("i", I64, []), vi("cond_in", B, []), vi("flag_in", B, [])],
                        [vi("cond_out", B, []), vi("flag_out", B, []), vi("prod", F, [2, 2])])
    loop = h.make_node("Loop", ["trip", "", "flag"], ["flag_final", "prods"], name="loop", body=body)
    save("invalid/C014_if_in_loop.onnx",
         model([loop], [vi("flag", B, [])], [vi("prods", F, [3, 2, 2])],
               inits=[init("W", [1, 2]), init("trip", [], I64, [3])]),
         ["C014@node:main/loop/body/proj", "C011@node:main/loop/body/pick"])
    # A shape guard as exporters write it: Squeeze when dim 0 of x is 1, else x as it is. Only x's shape selects the
    # branch, so the Concat that fails for every other first dim is a note (the model runs for x of [1,4]).
    guard_cond = [h.make_node("Shape", ["x"], ["x_shape"], name="shape_x"),
                  h.make_node("Gather", ["x_shape", "zero_i"], ["x_dim0"], name="dim0", axis=0),
                  h.make_node("Equal", ["x_dim0", "one_i"], ["is_one"], name="is_one")]
    tb = branch("then", [h.make_node("Squeeze", ["x", "axes0"], ["t_out"], name="squeeze")], [vi("t_out", F, [4])])
    eb = branch("else", [h.make_node("Identity", ["x"], ["e_out"], name="keep")], [vi("e_out", F, ["n", 4])])
    guard = h.make_node("If", ["is_one"], ["res"], name="guard", then_branch=tb, else_branch=eb)
    save("invalid/C014_shape_guard_note.onnx",
         model(guard_cond + [guard, h.make_node("Concat", ["res", "tail"], ["out"], name="join", axis=0)],
               [vi("x", F, ["n", 4])], [vi("out", F, [8])],
               inits=[init("tail", [4]), init("zero_i", [], I64, [0]), init("one_i", [], I64, [1]),
                      init("axes0", [1], I64, [0])]),
         ["C014@node:main/join", "C011@node:main/guard"])


def valid():
    # The branches differ and both broadcast against [2,3]: silent but for C011's note.
    save("valid/downstream_broadcast.onnx",
         model([pick([2, 1], [1, 3]), h.make_node("Add", ["res", "y"], ["out"], name="bias")], COND,
               [vi("out", F, [2, 3])], inits=[init("y", [2, 3])]),
         ["C011@node:main/pick"])
    # Shape-agnostic consumers: Relu, then ReduceSum of everything.
    save("valid/downstream_shape_agnostic.onnx",
         model([pick([2, 1], [3]), h.make_node("Relu", ["res"], ["r"], name="act"),
                h.make_node("ReduceSum", ["r"], ["out"], name="total", keepdims=0)], COND,
               [vi("out", F, [])]),
         ["C011@node:main/pick"])
    # The breaking branch never runs: the else branch is taken only when dim 0 of x (declared 2) is 0.
    dead_cond = [h.make_node("Shape", ["x"], ["x_shape"], name="shape_x"),
                 h.make_node("Gather", ["x_shape", "zero_i"], ["x_dim0"], name="dim0", axis=0),
                 h.make_node("Cast", ["x_dim0"], ["nonempty"], name="nonempty", to=B)]
    save("valid/downstream_dead_branch.onnx",
         model(dead_cond + [pick([2, 1], [2], cond="nonempty"),
                            h.make_node("MatMul", ["res", "W"], ["out"], name="proj")],
               [vi("x", F, [2])], [vi("out", F, [2, 2])], inits=[init("W", [1, 2]), init("zero_i", [], I64, [0])]),
         ["C012@node:main/pick"])

    # Two Ifs on one input through different comparisons: 'low' takes its then branch when x > 0, 'high' when x > 1.
    # Their outputs ([1] or [3]; [4] or [1]) broadcast in every combination but 'low' else with 'high' then, which
    # needs x <= 0 and x > 1: no input selects it, so the Add is a note, never an error.
    compare = [h.make_node("Constant", [], ["zero"], name="zero", value=h.make_tensor("zero_v", F, [], [0.0])),
               h.make_node("Constant", [], ["one"], name="one", value=h.make_tensor("one_v", F, [], [1.0])),
               h.make_node("Greater", ["x", "zero"], ["above0"], name="above0"),
               h.make_node("Greater", ["x", "one"], ["above1"], name="above1")]
    save("valid/downstream_overlapping_conditions.onnx",
         model(compare + [pick([1], [3], name="low", cond="above0", out="lo"),
                          pick([4], [1], name="high", cond="above1", out="hi"),
                          h.make_node("Add", ["lo", "hi"], ["out"], name="sum")],
               [vi("x", F, [])], [vi("out", F, ["n"])]),
         ["C014@node:main/sum", "C011@node:main/low", "C011@node:main/high"])


if __name__ == "__main__":
    invalid()
    valid()
    print("corpus/onnx C014 cases written", file=sys.stderr)
