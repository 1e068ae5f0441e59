#!/usr/bin/env python3
"""Generates the NNAPI corpus cases of C014: an operation after an IF that one branch breaks, and the cases where
the branches differ but every consumer takes both, or the breaking branch never runs.

Run: python3 corpus/nnapi/gen_downstream.py   (stdlib only; deterministic). The .expect files beside the cases name
the line of each finding (`condlint lint --format json` gives them): check them when a case changes.
tests/branch_consumers_test.cpp runs every error case with `condlint run --random` (the run fails at the same
operation, under the branch the finding names).
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
F32 = "TENSOR_FLOAT32"


def operand(name, dims, lifetime, typ=F32, **kw):
    o = {"name": name, "type": typ, "dimensions": dims, "lifetime": lifetime}
    o.update(kw)
    return o


def branch(name, x, y, out_dims, returns):
    """A branch of inputs (x, y) that returns input `returns` plus 0."""
    return {"name": name,
            "operands": [operand("a", x, "SUBGRAPH_INPUT"), operand("b", y, "SUBGRAPH_INPUT"),
                         operand("r", out_dims, "SUBGRAPH_OUTPUT"),
                         operand("zero", [1], "CONSTANT_COPY", value=[0.0]),
                         operand("act", [], "CONSTANT_COPY", typ="INT32", value=[0])],
            "operations": [{"type": "ADD", "inputs": [returns, 3, 4], "outputs": [2]}],
            "inputIndexes": [0, 1], "outputIndexes": [2]}


def model(name, x, y, picked_dims, consumers, extra_operands, inputs_extra, outputs, cond=None):
    """Operands 0-5: cond, the two branches, x, y and the IF's output 'picked' (x through the then branch, y through
    the else branch); the consumers' operands follow from 6."""
    operands = [cond or operand("cond", [1], "SUBGRAPH_INPUT", typ="TENSOR_BOOL8"),
                {"name": "then", "type": "SUBGRAPH", "lifetime": "SUBGRAPH", "location": {"offset": 0}},
                {"name": "else", "type": "SUBGRAPH", "lifetime": "SUBGRAPH", "location": {"offset": 1}},
                operand("x", x, "SUBGRAPH_INPUT"), operand("y", y, "SUBGRAPH_INPUT"),
                operand("picked", picked_dims, "TEMPORARY_VARIABLE")] + extra_operands
    inputs = ([0] if cond is None else []) + [3, 4] + inputs_extra
    return {"format": "nnapi-model", "version": 1, "name": name,
            "main": {"operands": operands,
                     "operations": [{"type": "IF", "inputs": [0, 1, 2, 3, 4], "outputs": [5]}] + consumers,
                     "inputIndexes": inputs, "outputIndexes": outputs},
            "referenced": [branch("then", x, y, x, 0), branch("else", x, y, y, 1)]}


def add_case(name, x, y, cond=None):
    """ADD(picked, z [2,3])."""
    return model(name, x, y, [0, 0], [{"type": "ADD", "inputs": [5, 6, 7], "outputs": [8]}],
                 [operand("z", [2, 3], "SUBGRAPH_INPUT"), operand("act", [], "CONSTANT_COPY", typ="INT32", value=[0]),
                  operand("out", [2, 3], "SUBGRAPH_OUTPUT")], [6], [8], cond=cond)


def after_mul(name, op, extra, out_dims):
    """MUL(picked, 1) then `op` (then [2,3], else [6])."""
    return model(name, [2, 3], [6], [],
                 [{"type": "MUL", "inputs": [5, 10, 11], "outputs": [6]},
                  {"type": op, "inputs": [6, 7, 8], "outputs": [9]}],
                 [operand("scaled", [], "TEMPORARY_VARIABLE")] + extra +
                 [operand("out", out_dims, "SUBGRAPH_OUTPUT"), operand("one", [1], "CONSTANT_COPY", value=[1.0]),
                  operand("act", [], "CONSTANT_COPY", typ="INT32", value=[0])],
                 [7] if extra[0]["lifetime"] == "SUBGRAPH_INPUT" else [], [9])


def two_ifs(name, a, b, out_dims):
    """IF 'a' on c1 gives x (then) or y (else), IF 'b' on c2 gives u or v; ADD(a, b). a / b: (then dims, else
    dims, the IF output operand's dims). Operands: c1, c2, the four branches, x, y, u, v, the two IF outputs, the
    activation and the output."""
    (x, y, ao), (u, v, bo) = a, b
    sub = lambda n, k: {"name": n, "type": "SUBGRAPH", "lifetime": "SUBGRAPH", "location": {"offset": k}}
    operands = [operand("c1", [1], "SUBGRAPH_INPUT", typ="TENSOR_BOOL8"),
                operand("c2", [1], "SUBGRAPH_INPUT", typ="TENSOR_BOOL8"),
                sub("a_then", 0), sub("a_else", 1), sub("b_then", 2), sub("b_else", 3),
                operand("x", x, "SUBGRAPH_INPUT"), operand("y", y, "SUBGRAPH_INPUT"),
                operand("u", u, "SUBGRAPH_INPUT"), operand("v", v, "SUBGRAPH_INPUT"),
                operand("a", ao, "TEMPORARY_VARIABLE"), operand("b", bo, "TEMPORARY_VARIABLE"),
                operand("act", [], "CONSTANT_COPY", typ="INT32", value=[0]),
                operand("out", out_dims, "SUBGRAPH_OUTPUT")]
    return {"format": "nnapi-model", "version": 1, "name": name,
            "main": {"operands": operands,
                     "operations": [{"type": "IF", "inputs": [0, 2, 3, 6, 7], "outputs": [10]},
                                    {"type": "IF", "inputs": [1, 4, 5, 8, 9], "outputs": [11]},
                                    {"type": "ADD", "inputs": [10, 11, 12], "outputs": [13]}],
                     "inputIndexes": [0, 1, 6, 7, 8, 9], "outputIndexes": [13]},
            "referenced": [branch("a_then", x, y, x, 0), branch("a_else", x, y, y, 1),
                           branch("b_then", u, v, u, 0), branch("b_else", u, v, v, 1)]}


def fully_connected(name, x, y):
    """FULLY_CONNECTED(picked, weights [4,3], bias [4]): input_size 3, so a branch's element count must divide by 3."""
    return model(name, x, y, [0, 0], [{"type": "FULLY_CONNECTED", "inputs": [5, 6, 7, 8], "outputs": [9]}],
                 [operand("weights", [4, 3], "CONSTANT_COPY", value=[0.5] * 12),
                  operand("bias", [4], "CONSTANT_COPY", value=[0.0] * 4),
                  operand("act", [], "CONSTANT_COPY", typ="INT32", value=[0]),
                  operand("out", [2, 4], "SUBGRAPH_OUTPUT")], [], [9])


CASES = {
    # [3,2] cannot broadcast with [2,3]; the then branch's [2,3] can.
    "invalid/C014_add_broadcast": add_case("C014_add_broadcast", [2, 3], [3, 2]),
    # The else branch's rank 1 reaches a CONCATENATION with a rank-2 tensor through a MUL.
    "invalid/C014_concat_behind_mul": after_mul(
        "C014_concat_behind_mul", "CONCATENATION",
        [operand("p", [4, 3], "SUBGRAPH_INPUT"), operand("axis", [], "CONSTANT_COPY", typ="INT32", value=[0])],
        [0, 3]),
    # Two IFs on two conditions meet at an ADD: [2,1] or [2,3] with [1,3] or [2,4]. Each alone broadcasts with what
    # the other can give; both else branches together ([2,3] + [2,4]) cannot.
    "invalid/C014_two_ifs_add": two_ifs("C014_two_ifs_add", ([2, 1], [2, 3], [2, 0]), ([1, 3], [2, 4], [0, 0]),
                                        [2, 0]),
    # The else branch's [2,2] holds 4 elements, which rows of input_size 3 do not divide.
    "invalid/C014_fully_connected": fully_connected("C014_fully_connected", [2, 3], [2, 2]),
    # Every combination broadcasts: [2,1] or [2,3] with [1,3] or [2,3].
    "valid/downstream_two_ifs_broadcast": two_ifs("downstream_two_ifs_broadcast", ([2, 1], [2, 3], [2, 0]),
                                                  ([1, 3], [2, 3], [0, 3]), [2, 3]),
    # [2,3] and [3,2] both hold 6 elements: two rows of input_size 3.
    "valid/downstream_fully_connected": fully_connected("downstream_fully_connected", [2, 3], [3, 2]),
    # [2,1] and [1,3] both broadcast with [2,3].
    "valid/downstream_broadcast": add_case("downstream_broadcast", [2, 1], [1, 3]),
    # MUL and ADD by a one-element tensor take any shape (REDUCE_SUM would too, but the ONNX export has no rule for it).
    "valid/downstream_shape_agnostic": after_mul(
        "downstream_shape_agnostic", "ADD",
        [operand("two", [1], "CONSTANT_COPY", value=[2.0]), operand("act2", [], "CONSTANT_COPY", typ="INT32", value=[0])],
        []),
    # The condition is a constant true: the breaking else branch never runs.
    "valid/downstream_dead_branch": add_case(
        "downstream_dead_branch", [2, 3], [3, 2],
        cond=operand("cond", [1], "CONSTANT_COPY", typ="TENSOR_BOOL8", value=[True])),
}

if __name__ == "__main__":
    for path, m in CASES.items():
        with open(os.path.join(HERE, path + ".nnapi.json"), "w") as f:
            f.write(json.dumps(m, indent=2) + "\n")
        print(path)
