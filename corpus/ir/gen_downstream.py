#!/usr/bin/env python3
"""Generates the OpenVINO IR corpus cases of C014: a layer after an If that one branch breaks, and the cases where
the branches differ but every consumer takes both (silent but for C011's note), or the breaking branch is dead.

Run: python3 corpus/ir/gen_downstream.py   (stdlib only; deterministic; recomputes the @LINE values)
tests/branch_consumers_test.cpp runs every error case with `condlint run --random` (the run fails at the same
layer, under the branch the finding names) and, when tools/venv has openvino, in OpenVINO.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen import (INVALID, VALID, const, edge, f32, if_layer, layer, net, param, result, unary,  # noqa: E402
                 write)

IF_LINE = '<layer id="{}" name="{}" type="If"'


def passthrough(pname, shape, rname, relu=False):
    """A branch that returns its one input (through a Relu when `relu`)."""
    if not relu:
        return ([param(0, pname, "f32", shape), result(1, rname, shape)], [edge(0, 0, 1, 0)])
    return ([param(0, pname, "f32", shape), unary(1, pname + "_relu", "Relu", "f32", shape), result(2, rname, shape)],
            [edge(0, 0, 1, 0), edge(1, 1, 2, 0)])


def pick(lid, cond_lid, x_lid, y_lid, x_shape, y_shape, out_dims, name="pick", cond_port=0):
    """If `name`: the then branch returns x, the else branch y. out_dims: the If output's <dim>s ([] for none: the
    shapes' ranks differ, so OpenVINO gives a dynamic rank, which its serializer writes without dims)."""
    layer_ = if_layer(lid, name, [(0, []), (1, x_shape), (2, y_shape)], [(3, "f32", out_dims)],
                      [("input", 1, 0), ("output", 0, 1)], [("input", 2, 0), ("output", 0, 1)],
                      passthrough("a", x_shape, "then_out"), passthrough("b", y_shape, "else_out"))
    edges = [edge(cond_lid, cond_port, lid, 0), edge(x_lid, 0, lid, 1), edge(y_lid, 0, lid, 2)]
    return layer_, edges


def matmul(lid, name, a_dims, b_dims, out_dims):
    return layer(lid, name, "MatMul", data='transpose_a="false" transpose_b="false"',
                 ins=[(0, a_dims), (1, b_dims)], outs=[(2, "f32", out_dims)])


def binary(lid, name, typ, a_dims, b_dims, out_dims):
    return layer(lid, name, typ, data='auto_broadcast="numpy"', ins=[(0, a_dims), (1, b_dims)],
                 outs=[(2, "f32", out_dims)])


def two_way(fname, x_shape, y_shape, out_dims, consumers, consumer_edges, extra_layers=(), expect=None, binary_=None,
            directory=INVALID, name="pick"):
    """cond, x, y -> If 'pick' (x or y) -> consumers. The If is layer 3, its output port 3."""
    iff, edges = pick(3, 0, 1, 2, x_shape, y_shape, out_dims, name=name)
    layers = [param(0, "cond", "boolean", []), param(1, "x", "f32", x_shape), param(2, "y", "f32", y_shape)]
    layers += list(extra_layers) + [iff] + list(consumers)
    write(directory, fname, net(fname[:-4], layers, edges + list(consumer_edges)), expect=expect, binary=binary_)


def c011(name="pick", lid=3):
    return ("C011", IF_LINE.format(lid, name), 1, None)


def ir021(name="pick", lid=3):
    """Branches of two ranks (not a scalar and a 1-D shape): the If output is of dynamic rank, which OpenVINO's CPU
    plugin refuses to compile (IR021, in place of C011's note)."""
    return ("IR021", IF_LINE.format(lid, name), 1, None)


def c014(layer_line, comment):
    return ("C014", layer_line, 1, comment)


def invalid():
    # The MatMul: then [2,1], else [2]; W [1,2]. The else branch cannot be multiplied.
    two_way("C014_matmul.xml", [2, 1], [2], [],
            [const(4, "W", "f32", [1, 2], 0, 8), matmul(5, "proj", [], [1, 2], [2, 2]), result(6, "out", [2, 2])],
            [edge(3, 3, 5, 0), edge(4, 0, 5, 1), edge(5, 2, 6, 0)],
            expect=[ir021(), c014('name="proj" type="MatMul"', "when 'cond' is false the MatMul cannot multiply [2] by [1,2]")],
            binary_=f32(1.0, 2.0))
    # [3,2] cannot broadcast with [2,3]; the then branch's [2,3] can.
    two_way("C014_add_broadcast.xml", [2, 3], [3, 2], [-1, -1],
            [param(4, "z", "f32", [2, 3]), binary(5, "sum", "Add", [-1, -1], [2, 3], [2, 3]),
             result(6, "out", [2, 3])],
            [edge(3, 3, 5, 0), edge(4, 0, 5, 1), edge(5, 2, 6, 0)],
            expect=[c011(), c014('name="sum" type="Add"', "when 'cond' is false, [3,2] + [2,3]")])
    # A rank-1 branch reaches a Concat through a Relu: two layers after the If.
    two_way("C014_concat_behind_relu.xml", [2, 3], [6], [],
            [unary(4, "act", "Relu", "f32", []), param(5, "p", "f32", [4, 3]),
             layer(6, "join", "Concat", data='axis="0"', ins=[(0, []), (1, [4, 3])], outs=[(2, "f32", [6, 3])]),
             result(7, "out", [6, 3])],
            [edge(3, 3, 4, 0), edge(4, 1, 6, 0), edge(5, 0, 6, 1), edge(6, 2, 7, 0)],
            expect=[ir021(), c014('name="join" type="Concat"', "when 'cond' is false, rank 1 cannot join rank 2")])
    shape_guard_note()
    two_ifs_in_branch()
    # Two Ifs on two conditions meet at a MatMul: 'left' gives [2,3] or [2,4], 'right' [3,5] or [4,5]. Each alone
    # multiplies with what the other can give ([2,?] by [?,5]); the mixed combinations cannot.
    two_ifs("C014_two_ifs_matmul.xml", ([2, 3], [2, 4], [2, -1]), ([3, 5], [4, 5], [-1, 5]),
            [matmul(8, "prod", [2, -1], [-1, 5], [2, 5]), result(9, "out", [2, 5])],
            [edge(6, 3, 8, 0), edge(7, 3, 8, 1), edge(8, 2, 9, 0)],
            expect=[c011("left", 6), c011("right", 7),
                    c014('name="prod" type="MatMul"', "'c1' true with 'c2' false: [2,3] by [4,5]")])
    # A Reshape to a size the else branch does not have: 4 elements cannot become [3,2].
    two_way("C014_reshape.xml", [2, 3], [2, 2], [2, -1],
            [const(4, "target", "i64", [2], 0, 16),
             layer(5, "flat", "Reshape", data='special_zero="false"', ins=[(0, [2, -1]), (1, [2])],
                   outs=[(2, "f32", [3, 2])]),
             result(6, "out", [3, 2])],
            [edge(3, 3, 5, 0), edge(4, 0, 5, 1), edge(5, 2, 6, 0)],
            expect=[c011(), c014('name="flat" type="Reshape"', "when 'cond' is false, 4 elements cannot take [3,2]")],
            binary_=struct.pack("<qq", 3, 2))
    # A rank-1 branch reaches a Transpose whose order has two entries.
    two_way("C014_transpose.xml", [2, 3], [6], [],
            [const(4, "order", "i64", [2], 0, 16),
             layer(5, "flip", "Transpose", data=None, ins=[(0, []), (1, [2])], outs=[(2, "f32", [3, 2])]),
             result(6, "out", [3, 2])],
            [edge(3, 3, 5, 0), edge(4, 0, 5, 1), edge(5, 2, 6, 0)],
            expect=[ir021(), c014('name="flip" type="Transpose"', "when 'cond' is false, rank 1 by the order [1,0]")],
            binary_=struct.pack("<qq", 1, 0))


def two_ifs(fname, left, right, consumers, consumer_edges, expect=None, directory=INVALID, same_condition=False):
    """c1, c2 (or one 'cond'), x, y, u, v -> If 'left' (x or y, layer 6) and If 'right' (u or v, layer 7), each
    output port 3 -> consumers. left / right: (then shape, else shape, the If output's dims)."""
    (x, y, lo), (u, v, ro) = left, right
    a, a_edges = pick(6, 0, 2, 3, x, y, lo, name="left")
    b, b_edges = pick(7, 0 if same_condition else 1, 4, 5, u, v, ro, name="right")
    layers = [param(0, "cond" if same_condition else "c1", "boolean", [])]
    if not same_condition:
        layers.append(param(1, "c2", "boolean", []))
    layers += [param(2, "x", "f32", x), param(3, "y", "f32", y), param(4, "u", "f32", u), param(5, "v", "f32", v)]
    layers += [a, b] + list(consumers)
    write(directory, fname, net(fname[:-4], layers, a_edges + b_edges + list(consumer_edges)), expect=expect)


def two_ifs_in_branch():
    """The MatMul of C014_two_ifs_matmul inside the then branch of If 'outer': 'left' and 'right' read the branch's
    Parameters that 'outer' binds to the main graph's 'c1' and 'c2', two inputs, so each takes its branches freely
    and the mixed combinations are an error."""
    then_layers = [param(0, "p1", "boolean", []), param(1, "p2", "boolean", []), param(2, "px", "f32", [2, 3]),
                   param(3, "py", "f32", [2, 4]), param(4, "pu", "f32", [3, 5]), param(5, "pv", "f32", [4, 5])]
    left, left_edges = pick(6, 0, 2, 3, [2, 3], [2, 4], [2, -1], name="left")
    right, right_edges = pick(7, 1, 4, 5, [3, 5], [4, 5], [-1, 5], name="right")
    then_layers += [left, right, matmul(8, "prod", [2, -1], [-1, 5], [2, 5]), result(9, "then_out", [2, 5])]
    then_edges = left_edges + right_edges + [edge(6, 3, 8, 0), edge(7, 3, 8, 1), edge(8, 2, 9, 0)]
    else_b = ([param(0, "pw", "f32", [2, 5]), result(1, "else_out", [2, 5])], [edge(0, 0, 1, 0)])
    shapes = [[], [], [], [2, 3], [2, 4], [3, 5], [4, 5], [2, 5]]
    outer = if_layer(8, "outer", list(enumerate(shapes)), [(8, "f32", [2, 5])],
                     [("input", k + 1, k) for k in range(6)] + [("output", 0, 9)],
                     [("input", 7, 0), ("output", 0, 1)], (then_layers, then_edges), else_b)
    layers = [param(0, "c0", "boolean", []), param(1, "c1", "boolean", []), param(2, "c2", "boolean", []),
              param(3, "x", "f32", [2, 3]), param(4, "y", "f32", [2, 4]), param(5, "u", "f32", [3, 5]),
              param(6, "v", "f32", [4, 5]), param(7, "w", "f32", [2, 5]), outer, result(9, "out", [2, 5])]
    edges = [edge(k, 0, 8, k) for k in range(8)] + [edge(8, 8, 9, 0)]
    write(INVALID, "C014_two_ifs_in_branch.xml", net("C014_two_ifs_in_branch", layers, edges),
          expect=[c011("left", 6), c011("right", 7),
                  c014('name="prod" type="MatMul"', "'c1' true with 'c2' false, bound into the branch: an error")])


def shape_guard_note():
    """If(dim 1 of x == 4): then x [2,?], else y [3]; Add with z [2,4] takes x but not y. The condition reads only
    x's shape: a note (the model fails for inputs whose dim 1 is not 4)."""
    x = [2, -1]
    layers = [param(0, "x", "f32", x), param(1, "y", "f32", [3]), param(2, "z", "f32", [2, 4]),
              layer(3, "shape", "ShapeOf", version="opset3", data='output_type="i64"', ins=[(0, x)],
                    outs=[(1, "i64", [2])]),
              const(4, "index", "i64", [], 0, 8), const(5, "axis", "i64", [], 8, 8),
              layer(6, "width", "Gather", version="opset8", data='batch_dims="0"', ins=[(0, [2]), (1, []), (2, [])],
                    outs=[(3, "i64", [])]),
              const(7, "four", "i64", [], 16, 8),
              layer(8, "is_four", "Equal", data='auto_broadcast="numpy"', ins=[(0, []), (1, [])],
                    outs=[(2, "boolean", [])])]
    iff, edges = pick(9, 8, 0, 1, x, [3], [], name="guard", cond_port=2)
    layers += [iff, binary(10, "sum", "Add", [], [2, 4], [2, 4]), result(11, "out", [2, 4])]
    edges = [edge(0, 0, 3, 0), edge(3, 1, 6, 0), edge(4, 0, 6, 1), edge(5, 0, 6, 2), edge(6, 3, 8, 0),
             edge(7, 0, 8, 1)] + edges + [edge(9, 3, 10, 0), edge(2, 0, 10, 1), edge(10, 2, 11, 0)]
    write(INVALID, "C014_shape_guard_note.xml", net("C014_shape_guard_note", layers, edges),
          expect=[ir021("guard", 9), c014('name="sum" type="Add"', "a shape guard: a note")],
          binary=struct.pack("<qqq", 1, 0, 4))


def valid():
    # [2,1] and [1,3] both broadcast with [2,3].
    two_way("downstream_broadcast.xml", [2, 1], [1, 3], [-1, -1],
            [param(4, "z", "f32", [2, 3]), binary(5, "sum", "Add", [-1, -1], [2, 3], [2, 3]),
             result(6, "out", [2, 3])],
            [edge(3, 3, 5, 0), edge(4, 0, 5, 1), edge(5, 2, 6, 0)], expect=[c011()], directory=VALID)
    # Relu and ReduceSum take any rank.
    two_way("downstream_shape_agnostic.xml", [2, 3], [6], [],
            [unary(4, "act", "Relu", "f32", []), const(5, "axes", "i64", [1], 0, 8),
             layer(6, "total", "ReduceSum", data='keep_dims="false"', ins=[(0, []), (1, [1])], outs=[(2, "f32", [])]),
             result(7, "out", [])],
            [edge(3, 3, 4, 0), edge(4, 1, 6, 0), edge(5, 0, 6, 1), edge(6, 2, 7, 0)], expect=[ir021()],
            binary_=struct.pack("<q", 0), directory=VALID)
    # The breaking branch never runs: the condition is a constant true (C012 notes the dead else branch).
    iff, edges = pick(3, 0, 1, 2, [2, 1], [2], [2, 1])
    layers = [const(0, "cond", "boolean", [], 0, 1), param(1, "x", "f32", [2, 1]), param(2, "y", "f32", [2]), iff,
              const(4, "W", "f32", [1, 2], 4, 8), matmul(5, "proj", [2, 1], [1, 2], [2, 2]),
              result(6, "out", [2, 2])]
    edges += [edge(3, 3, 5, 0), edge(4, 0, 5, 1), edge(5, 2, 6, 0)]
    write(VALID, "downstream_dead_branch.xml", net("downstream_dead_branch", layers, edges),
          expect=[("C012", IF_LINE.format(3, "pick"), 1, "the else branch never runs")],
          binary=b"\x01\x00\x00\x00" + f32(1.0, 2.0))
    # A consumer condlint has no OpenVINO shape rule for: a note that the branches are not judged past it.
    two_way("downstream_no_rule.xml", [1, 3], [3], [],
            [layer(4, "drop", "Sinh", data=None, ins=[(0, [])], outs=[(1, "f32", [3])]), result(5, "out", [3])],
            [edge(3, 3, 4, 0), edge(4, 1, 5, 0)],
            expect=[ir021(), c014('name="drop" type="Sinh"', "no shape rule for Sinh: a note")], directory=VALID)
    # Two Ifs on two conditions whose every combination broadcasts: [2,1] or [2,3] with [1,3] or [2,3].
    two_ifs("downstream_two_ifs_broadcast.xml", ([2, 1], [2, 3], [2, -1]), ([1, 3], [2, 3], [-1, 3]),
            [binary(8, "sum", "Add", [2, -1], [-1, 3], [2, 3]), result(9, "out", [2, 3])],
            [edge(6, 3, 8, 0), edge(7, 3, 8, 1), edge(8, 2, 9, 0)], expect=[c011("left", 6), c011("right", 7)],
            directory=VALID)
    # The MatMul of C014_two_ifs_matmul, both Ifs on one condition: they take the same branch, and [2,3] by [3,5] and
    # [2,4] by [4,5] both multiply.
    two_ifs("downstream_same_condition.xml", ([2, 3], [2, 4], [2, -1]), ([3, 5], [4, 5], [-1, 5]),
            [matmul(8, "prod", [2, -1], [-1, 5], [2, 5]), result(9, "out", [2, 5])],
            [edge(6, 3, 8, 0), edge(7, 3, 8, 1), edge(8, 2, 9, 0)], expect=[c011("left", 6), c011("right", 7)],
            directory=VALID, same_condition=True)
    # The Reshape and Transpose rules let both branches through: [2,3] or [3,2], transposed by [1,0], reshaped to
    # [0,-1] with special_zero (the dim 0 kept) and then to [6].
    two_way("downstream_reshape_transpose.xml", [2, 3], [3, 2], [-1, -1],
            [const(4, "order", "i64", [2], 0, 16),
             layer(5, "flip", "Transpose", data=None, ins=[(0, [-1, -1]), (1, [2])], outs=[(2, "f32", [-1, -1])]),
             const(6, "keep", "i64", [2], 16, 16),
             layer(7, "same", "Reshape", data='special_zero="true"', ins=[(0, [-1, -1]), (1, [2])],
                   outs=[(2, "f32", [-1, -1])]),
             const(8, "six", "i64", [1], 32, 8),
             layer(9, "flat", "Reshape", data='special_zero="false"', ins=[(0, [-1, -1]), (1, [1])],
                   outs=[(2, "f32", [6])]),
             result(10, "out", [6])],
            [edge(3, 3, 5, 0), edge(4, 0, 5, 1), edge(5, 2, 7, 0), edge(6, 0, 7, 1), edge(7, 2, 9, 0),
             edge(8, 0, 9, 1), edge(9, 2, 10, 0)],
            expect=[c011()], binary_=struct.pack("<qqqqq", 1, 0, 0, -1, 6), directory=VALID)
    overlapping_conditions()


def overlapping_conditions():
    """Two Ifs on one Parameter through different comparisons: 'low' takes its then branch when x > 0, 'high' when
    x > 1. Their outputs ([1] or [3]; [4] or [1]) broadcast in every combination but 'low' else with 'high' then,
    which needs x <= 0 and x > 1: no input selects it, so the Add is a note, never an error."""
    def greater(lid, name):
        return layer(lid, name, "Greater", data='auto_broadcast="numpy"', ins=[(0, []), (1, [])],
                     outs=[(2, "boolean", [])])
    low, low_edges = pick(9, 7, 1, 2, [1], [3], [-1], name="low", cond_port=2)
    high, high_edges = pick(10, 8, 3, 4, [4], [1], [-1], name="high", cond_port=2)
    layers = [param(0, "x", "f32", []), param(1, "a", "f32", [1]), param(2, "b", "f32", [3]),
              param(3, "c", "f32", [4]), param(4, "d", "f32", [1]),
              const(5, "zero", "f32", [], 0, 4), const(6, "one", "f32", [], 4, 4),
              greater(7, "above0"), greater(8, "above1"), low, high,
              binary(11, "sum", "Add", [-1], [-1], [-1]), result(12, "out", [-1])]
    edges = [edge(0, 0, 7, 0), edge(5, 0, 7, 1), edge(0, 0, 8, 0), edge(6, 0, 8, 1)] + low_edges + high_edges
    edges += [edge(9, 3, 11, 0), edge(10, 3, 11, 1), edge(11, 2, 12, 0)]
    write(VALID, "downstream_overlapping_conditions.xml", net("downstream_overlapping_conditions", layers, edges),
          expect=[c011("low", 9), c011("high", 10),
                  c014('name="sum" type="Add"', "x <= 0 with x > 1: no input selects it, a note")],
          binary=f32(0.0, 1.0))


if __name__ == "__main__":
    invalid()
    valid()
