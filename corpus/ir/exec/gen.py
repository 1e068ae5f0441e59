#!/usr/bin/env python3
"""Generates corpus/ir/exec: OpenVINO IR models with golden data for `condlint run` (both branches of every If).

Run: /usr/bin/python3 corpus/ir/exec/gen.py [OUT_DIR]   (numpy + python3-onnx; deterministic)

The expected outputs are computed here with numpy, independently of condlint's executor. Each model sits in its
own directory with test_data_set_N/input_K.pb (K = main-graph Parameter order) and output_K.pb (K = Result
order), plus pins.json where a data set pins an If.
"""
import json
import os
import shutil
import sys

import numpy as np
from onnx import numpy_helper

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
PREC = {"f32": "FP32", "i64": "I64", "i32": "I32", "boolean": "BOOL"}
NP = {"f32": np.float32, "i64": np.int64, "i32": np.int32, "boolean": np.bool_}
IND = "    "


def dims(shape):
    return [f"<dim>{d}</dim>" for d in shape]


class Graph:
    """A layer list with edges; ids are assigned in order. A value is (layer_id, port_id, et, shape)."""

    def __init__(self, weights):
        self.layers = []  # list of lists of lines
        self.edges = []
        self.next_id = 0
        self.weights = weights  # shared bytearray of the model's .bin

    def layer(self, typ, name, inputs, outs, data=None, version="opset1", extra=()):
        lid = self.next_id
        self.next_id += 1
        lines = [f'<layer id="{lid}" name="{name}" type="{typ}" version="{version}">']
        if data:
            lines.append(IND + "<data " + " ".join(f'{k}="{v}"' for k, v in data.items()) + "/>")
        if inputs:
            lines.append(IND + "<input>")
            for k, v in enumerate(inputs):
                sh = v[3]
                if sh:
                    lines += [IND * 2 + f'<port id="{k}">'] + [IND * 3 + d for d in dims(sh)] + [IND * 2 + "</port>"]
                else:
                    lines.append(IND * 2 + f'<port id="{k}"/>')
                self.edges.append((v[0], v[1], lid, k))
        if inputs:
            lines.append(IND + "</input>")
        res = []
        if outs:
            lines.append(IND + "<output>")
            for j, (et, sh) in enumerate(outs):
                pid = len(inputs) + j
                if sh:
                    lines += [IND * 2 + f'<port id="{pid}" precision="{PREC[et]}">'] + [IND * 3 + d for d in dims(sh)] + [IND * 2 + "</port>"]
                else:
                    lines.append(IND * 2 + f'<port id="{pid}" precision="{PREC[et]}"/>')
                res.append((lid, pid, et, list(sh)))
            lines.append(IND + "</output>")
        lines += [IND + l for l in extra]
        lines.append("</layer>")
        self.layers.append(lines)
        return res

    def param(self, name, et, shape):
        return self.layer("Parameter", name, [], [(et, shape)], data={"element_type": et, "shape": ",".join(map(str, shape))})[0]

    def const(self, name, et, arr):
        arr = np.asarray(arr, dtype=NP[et])
        off = len(self.weights)
        b = arr.astype("<" + arr.dtype.str[1:] if arr.dtype.itemsize > 1 else arr.dtype).tobytes()
        self.weights.extend(b)
        return self.layer("Const", name, [], [(et, list(arr.shape))],
                          data={"element_type": et, "shape": ",".join(map(str, arr.shape)), "offset": off, "size": len(b)})[0]

    def op(self, typ, name, inputs, et, shape, data=None, version="opset1"):
        return self.layer(typ, name, inputs, [(et, shape)], data=data, version=version)[0]

    def result(self, name, v):
        return self.layer("Result", name, [v], [])

    def xml(self):
        out = [IND + "<layers>"]
        for l in self.layers:
            out += [IND * 2 + x for x in l]
        out += [IND + "</layers>", IND + "<edges>"]
        for e in self.edges:
            out.append(IND * 2 + f'<edge from-layer="{e[0]}" from-port="{e[1]}" to-layer="{e[2]}" to-port="{e[3]}"/>')
        out.append(IND + "</edges>")
        return out

    def if_layer(self, name, cond, ins, then_g, else_g, outs):
        """ins: outer values (after cond); the bodies' Parameters are their first layers, in order; outs: (et, shape) of
        each If output, bound to the bodies' Results in order."""
        def port_map(g):
            params = [i for i, l in enumerate(g.layers) if 'type="Parameter"' in l[0]]
            results = [i for i, l in enumerate(g.layers) if 'type="Result"' in l[0]]
            m = [f'<input external_port_id="{k + 1}" internal_layer_id="{p}"/>' for k, p in enumerate(params)]
            m += [f'<output external_port_id="{k}" internal_layer_id="{r}"/>' for k, r in enumerate(results)]
            return m
        extra = ["<then_port_map>"] + [IND + x for x in port_map(then_g)] + ["</then_port_map>"]
        extra += ["<else_port_map>"] + [IND + x for x in port_map(else_g)] + ["</else_port_map>"]
        extra += ["<then_body>"] + then_g.xml() + ["</then_body>", "<else_body>"] + else_g.xml() + ["</else_body>"]
        return self.layer("If", name, [cond] + ins, outs, version="opset8", extra=extra)


def write_model(name, g, weights, data_sets):
    d = os.path.join(ROOT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, name + ".xml"), "w") as f:
        f.write('<?xml version="1.0"?>\n')
        f.write(f'<net name="{name}" version="11">\n')
        f.write("\n".join(g.xml()) + "\n</net>\n")
    if weights:
        with open(os.path.join(d, name + ".bin"), "wb") as f:
            f.write(bytes(weights))
    for n, (inputs, outputs, pins) in enumerate(data_sets):
        ds = os.path.join(d, f"test_data_set_{n}")
        os.makedirs(ds)
        for k, a in enumerate(inputs):
            with open(os.path.join(ds, f"input_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(np.asarray(a), f"input_{k}").SerializeToString())
        for k, a in enumerate(outputs):
            with open(os.path.join(ds, f"output_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(np.asarray(a), f"output_{k}").SerializeToString())
        if pins:
            with open(os.path.join(ds, "pins.json"), "w") as f:
                json.dump({"pins": pins}, f)


def spec_if():
    """The OpenVINO If-8 specification example as a whole net: then x + y, else x + z."""
    w = bytearray()
    g = Graph(w)
    cond = g.param("cond", "boolean", [])
    x = g.param("x", "f32", [2, 4])
    y = g.param("y", "f32", [2, 4])
    z = g.param("z", "f32", [2, 4])
    t = Graph(w)
    a, b = t.param("add_x", "f32", [2, 4]), t.param("add_y", "f32", [2, 4])
    t.result("then_out", t.op("Add", "then_add", [a, b], "f32", [2, 4], data={"auto_broadcast": "numpy"}))
    e = Graph(w)
    a, b = e.param("add_x", "f32", [2, 4]), e.param("add_z", "f32", [2, 4])
    e.result("else_out", e.op("Add", "else_add", [a, b], "f32", [2, 4], data={"auto_broadcast": "numpy"}))
    # then maps (x, y), else (x, z): write the port maps by hand.
    out = g.if_layer("if_cond", cond, [x, y, z], t, e, [("f32", [2, 4])])
    # fix the maps: then takes inputs 1,2; else 1,3
    lines = g.layers[-1]
    s = "\n".join(lines)
    s = s.replace('<else_port_map>\n' + IND * 2 + '<input external_port_id="1" internal_layer_id="0"/>\n' + IND * 2 +
                  '<input external_port_id="2" internal_layer_id="1"/>',
                  '<else_port_map>\n' + IND * 2 + '<input external_port_id="1" internal_layer_id="0"/>\n' + IND * 2 +
                  '<input external_port_id="3" internal_layer_id="1"/>')
    g.layers[-1] = s.split("\n")
    g.result("out", out[0])
    rng = np.random.default_rng(1)
    X, Y, Z = (rng.standard_normal((2, 4)).astype(np.float32) for _ in range(3))
    write_model("spec_if", g, w, [
        ([np.array(True), X, Y, Z], [X + Y], None),
        ([np.array(False), X, Y, Z], [X + Z], None),
    ])


def nested_if():
    """outer(c1): then inner(c2): then Relu(x) * 2, else -x; else tanh(x) - 0.5. Data for all three paths, and
    one data set that pins the inner If against its data."""
    w = bytearray()
    g = Graph(w)
    c1 = g.param("c1", "boolean", [])
    c2 = g.param("c2", "boolean", [])
    x = g.param("x", "f32", [2, 3])
    # outer then
    ot = Graph(w)
    p_c2, p_x = ot.param("p_c2", "boolean", []), ot.param("p_x", "f32", [2, 3])
    it = Graph(w)
    q = it.param("q_x", "f32", [2, 3])
    two = it.const("two", "f32", [2.0])
    it.result("inner_then_out", it.op("Multiply", "mul2", [it.op("Relu", "relu", [q], "f32", [2, 3]), two], "f32", [2, 3],
                                      data={"auto_broadcast": "numpy"}))
    ie = Graph(w)
    q = ie.param("q_x", "f32", [2, 3])
    ie.result("inner_else_out", ie.op("Negative", "neg", [q], "f32", [2, 3]))
    inner = ot.if_layer("inner", p_c2, [p_x], it, ie, [("f32", [2, 3])])
    ot.result("outer_then_out", inner[0])
    # outer else (takes c2 too, unused but mapped)
    oe = Graph(w)
    oe.param("p_c2", "boolean", [])
    p_x = oe.param("p_x", "f32", [2, 3])
    half = oe.const("half", "f32", [[0.5]])
    oe.result("outer_else_out", oe.op("Subtract", "sub", [oe.op("Tanh", "tanh", [p_x], "f32", [2, 3]), half], "f32", [2, 3],
                                      data={"auto_broadcast": "numpy"}))
    out = g.if_layer("outer", c1, [c2, x], ot, oe, [("f32", [2, 3])])
    g.result("out", out[0])
    X = np.array([[-1.5, 0.0, 2.0], [3.25, -0.5, 1.0]], np.float32)
    T, F = np.array(True), np.array(False)
    then_then = np.maximum(X, 0) * np.float32(2)
    then_else = -X
    else_ = (np.tanh(X) - np.float32(0.5)).astype(np.float32)
    write_model("nested_if", g, w, [
        ([T, T, X], [then_then], None),
        ([T, F, X], [then_else], None),
        ([F, T, X], [else_], None),
        ([T, T, X], [then_else], {"main/outer/then/inner": False}),
    ])


def ops():
    """No If: one model that runs most of the supported ops, expected values by numpy."""
    w = bytearray()
    g = Graph(w)
    x = g.param("x", "f32", [2, 3])
    idx = g.param("idx", "i64", [2])
    a = g.param("a", "i32", [4])
    b = g.param("b", "i32", [4])
    nb = {"auto_broadcast": "numpy"}
    W = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    m = g.op("MatMul", "matmul", [x, g.const("W", "f32", W)], "f32", [2, 4], data={"transpose_a": "false", "transpose_b": "true"})
    s = g.op("Softmax", "softmax", [m], "f32", [2, 4], data={"axis": 1}, version="opset8")
    r = g.op("ReduceMean", "rmean", [s, g.const("ax1", "i64", [1])], "f32", [2, 1], data={"keep_dims": "true"})
    ga = g.op("Gather", "gather", [m, idx, g.const("gax", "i64", 1)], "f32", [2, 2], data={"batch_dims": 0}, version="opset8")
    t = g.op("Transpose", "transpose", [ga, g.const("perm", "i64", [1, 0])], "f32", [2, 2])
    cc = g.op("Concat", "concat", [t, ga], "f32", [4, 2], data={"axis": 0})
    rs = g.op("Reshape", "reshape", [cc, g.const("rshape", "i64", [0, -1])], "f32", [4, 2], data={"special_zero": "true"})
    ss = g.op("StridedSlice", "sslice", [rs, g.const("sb", "i64", [1, 0]), g.const("se", "i64", [3, 0]), g.const("sst", "i64", [1, 1])],
              "f32", [2, 2], data={"begin_mask": "0,1", "end_mask": "0,1", "new_axis_mask": "", "shrink_axis_mask": "", "ellipsis_mask": ""})
    us = g.op("Unsqueeze", "unsq", [ss, g.const("uax", "i64", [0])], "f32", [1, 2, 2])
    sq = g.op("Squeeze", "sq", [us, g.const("sax", "i64", [0])], "f32", [2, 2])
    br = g.op("Broadcast", "bcast", [r, g.const("bshape", "i64", [2, 2])], "f32", [2, 2], data={"mode": "numpy"}, version="opset3")
    out0 = g.op("Add", "add0", [g.op("Sigmoid", "sig", [sq], "f32", [2, 2]), br], "f32", [2, 2], data=nb)
    out1 = g.op("Divide", "div", [a, b], "i32", [4], data={"auto_broadcast": "numpy", "m_pythondiv": "true"})
    out2 = g.op("ShapeOf", "shapeof", [rs], "i64", [2], data={"output_type": "i64"}, version="opset3")
    out3 = g.op("Select", "select", [g.op("Greater", "gt", [a, b], "boolean", [4], data=nb), a, b], "i32", [4], data=nb, version="opset1")
    lt = g.op("Less", "lt", [a, b], "boolean", [4], data=nb)
    ne = g.op("NotEqual", "ne", [a, b], "boolean", [4], data=nb)
    eq = g.op("Equal", "eq", [a, b], "boolean", [4], data=nb)
    out4 = g.op("LogicalOr", "lor", [g.op("LogicalAnd", "land", [lt, ne], "boolean", [4], data=nb),
                                     g.op("LogicalNot", "lnot", [eq], "boolean", [4])], "boolean", [4], data=nb)
    mn = g.op("Minimum", "min", [g.op("Tanh", "tanh", [x], "f32", [2, 3]), g.op("Relu", "relu", [x], "f32", [2, 3])], "f32", [2, 3], data=nb)
    le = g.op("Negative", "neg", [g.op("Log", "log", [g.op("Exp", "exp", [x], "f32", [2, 3])], "f32", [2, 3])], "f32", [2, 3])
    out5 = g.op("ReduceSum", "rsum", [g.op("Subtract", "subt", [mn, le], "f32", [2, 3], data=nb), g.const("ax0", "i64", [0])],
                "f32", [3], data={"keep_dims": "false"})
    mx = g.op("Maximum", "max", [g.op("Abs", "abs", [x], "f32", [2, 3]), g.const("half", "f32", [0.5])], "f32", [2, 3], data=nb)
    out6 = g.op("Power", "pow", [g.op("Sqrt", "sqrt", [mx], "f32", [2, 3]), g.const("two", "f32", [3.0])], "f32", [2, 3], data=nb)
    out7 = g.op("Convert", "convert", [a], "f32", [4], data={"destination_type": "f32"})
    for k, o in enumerate([out0, out1, out2, out3, out4, out5, out6, out7]):
        g.result(f"out{k}", o)
    X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
    I = np.array([3, 0], np.int64)
    A = np.array([7, -7, 6, 2], np.int32)
    B = np.array([2, 2, 6, 5], np.int32)
    M = (X.astype(np.float64) @ W.T.astype(np.float64)).astype(np.float32)
    e = np.exp(M - M.max(axis=1, keepdims=True))
    S = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    R = S.mean(axis=1, keepdims=True).astype(np.float32)
    G = M[:, I]
    CC = np.concatenate([G.T, G], axis=0)
    SS = CC[1:3, :]
    O0 = (1 / (1 + np.exp(-SS)) + np.broadcast_to(R, (2, 2))).astype(np.float32)
    O1 = (A // B).astype(np.int32)
    O2 = np.array(CC.shape, np.int64)
    O3 = np.where(A > B, A, B).astype(np.int32)
    O4 = np.logical_or(np.logical_and(A < B, A != B), np.logical_not(A == B))
    O5 = (np.minimum(np.tanh(X), np.maximum(X, 0)) - (-np.log(np.exp(X)))).sum(axis=0).astype(np.float32)
    O6 = (np.sqrt(np.maximum(np.abs(X), 0.5)) ** 3).astype(np.float32)
    O7 = A.astype(np.float32)
    write_model("ops", g, w, [([X, I, A, B], [O0, O1, O2, O3, O4, O5, O6, O7], None)])


def if_in_loop():
    """corpus/ir/valid/if_in_loop.xml (Loop-5 whose body runs If(cond_in, a): then Relu(a), else -a, with a back
    edge on a and the condition passed through) with golden data: the data selects then; the pinned data sets
    run else at every iteration, so a flips sign once per iteration."""
    d = os.path.join(ROOT, "if_in_loop")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    shutil.copy(os.path.join(os.path.dirname(ROOT), "valid", "if_in_loop.xml"), os.path.join(d, "if_in_loop.xml"))
    A = np.array([[1.5, -2.0]], np.float32)
    pin_else = {"main/loop/body/step_if": False}
    sets = [
        ([np.array([3], np.int64), np.array(True), A], [np.maximum(A, 0)], None),
        ([np.array([3], np.int64), np.array(True), A], [-A], pin_else),        # (-1)^3
        ([np.array([2], np.int64), np.array(True), A], [A], pin_else),         # (-1)^2
        ([np.array([3], np.int64), np.array(False), A], [A], None),            # no iteration: a_init
    ]
    for n, (inputs, outputs, pins) in enumerate(sets):
        ds = os.path.join(d, f"test_data_set_{n}")
        os.makedirs(ds)
        for k, a in enumerate(inputs):
            with open(os.path.join(ds, f"input_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(np.asarray(a), f"input_{k}").SerializeToString())
        for k, a in enumerate(outputs):
            with open(os.path.join(ds, f"output_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(np.asarray(a), f"output_{k}").SerializeToString())
        if pins:
            with open(os.path.join(ds, "pins.json"), "w") as f:
                json.dump({"pins": pins}, f)


def shape_guard():
    """A shape guard as exporters write them: If(dim 1 of x == 1) then x + 1, else x * 2, with x f32[1,?]. The data
    has x [1,4], so the then branch is reached only by inputs of another shape: `condlint run` never pins it (pinning
    would feed it a shape its condition excludes) and reaches it with inputs synthesized with the open dim set to 1."""
    w = bytearray()
    g = Graph(w)
    x = g.layer("Parameter", "x", [], [("f32", [1, -1])], data={"element_type": "f32", "shape": "1,?"})[0]
    shp = g.op("ShapeOf", "shape", [x], "i64", [2], data={"output_type": "i64"}, version="opset3")
    n = g.op("Gather", "n", [shp, g.const("i1", "i64", 1), g.const("axis0", "i64", 0)], "i64", [],
             data={"batch_dims": 0}, version="opset8")
    cond = g.op("Equal", "is_single", [n, g.const("one", "i64", 1)], "boolean", [], data={"auto_broadcast": "numpy"})
    t = Graph(w)
    p = t.layer("Parameter", "p", [], [("f32", [1, -1])], data={"element_type": "f32", "shape": "1,?"})[0]
    t.result("then_out", t.op("Add", "plus_one", [p, t.const("c1", "f32", 1.0)], "f32", [1, -1],
                              data={"auto_broadcast": "numpy"}))
    e = Graph(w)
    p = e.layer("Parameter", "p", [], [("f32", [1, -1])], data={"element_type": "f32", "shape": "1,?"})[0]
    e.result("else_out", e.op("Multiply", "twice", [p, e.const("c2", "f32", 2.0)], "f32", [1, -1],
                              data={"auto_broadcast": "numpy"}))
    out = g.if_layer("guard", cond, [x], t, e, [("f32", [1, -1])])
    g.result("out", out[0])
    X = np.array([[1, 2, 3, 4]], np.float32)
    write_model("shape_guard", g, w, [([X], [X * 2], None)])


def exec_case(name, else_body, golden, expect, computed_cond=False):
    """corpus/ir/exec-cases/<name>: cond, x f32[2] -> If(then: Relu(x), else: else_body(graph, x)); one data set
    with cond = true whose output_0 is `golden`; the .expect names the EX rule `lint --exec` must report.
    computed_cond: the condition is max(x) < 100 instead (x alone is the input), a value no input search aims at,
    so the else branch is reached by pinning."""
    global ROOT
    w = bytearray()
    g = Graph(w)
    if computed_cond:
        x = g.param("x", "f32", [2])
        top = g.op("ReduceMax", "top", [x, g.const("axes", "i64", [0])], "f32", [], data={"keep_dims": "false"})
        cond = g.op("Less", "small", [top, g.const("limit", "f32", 100.0)], "boolean", [],
                    data={"auto_broadcast": "numpy"})
    else:
        cond = g.param("cond", "boolean", [])
        x = g.param("x", "f32", [2])
    t = Graph(w)
    p = t.param("p", "f32", [2])
    t.result("then_out", t.op("Relu", "relu", [p], "f32", [2]))
    e = Graph(w)
    p = e.param("p", "f32", [2])
    e.result("else_out", else_body(e, p))
    out = g.if_layer("sel", cond, [x], t, e, [("f32", [2])])
    g.result("out", out[0])
    X = np.array([1.5, -2.0], np.float32)
    saved = ROOT
    ROOT = os.path.join(os.path.dirname(saved), "exec-cases")
    write_model(name, g, w, [([X] if computed_cond else [np.array(True), X], [golden(X)], None)])
    with open(os.path.join(ROOT, name, name + ".expect"), "w") as f:
        f.write(expect + "\n")
    ROOT = saved


def exec_cases():
    # EX001: the golden output is wrong at index 1 (relu gives 0).
    exec_case("golden_mismatch", lambda e, p: e.op("Negative", "neg", [p], "f32", [2]),
              lambda X: np.array([1.5, 0.25], np.float32), "EX001@2 # data set 0 expects 0.25 where relu(-2) = 0")
    # EX002: the else branch gathers index 5 of a 2-element tensor: it cannot run.
    exec_case("branch_failed",
              lambda e, p: e.op("Gather", "gather", [p, e.const("idx", "i64", [5, 0]), e.const("axis", "i64", 0)], "f32", [2],
                                data={"batch_dims": 0}, version="opset8"),
              lambda X: np.maximum(X, 0), "EX002@50 # the else branch (pinned) fails: Gather index 5 out of range",
              computed_cond=True)
    # EX003: the else branch uses HSwish, which the executor does not implement.
    exec_case("unsupported_op", lambda e, p: e.op("HSwish", "hswish", [p], "f32", [2], version="opset4"),
              lambda X: np.maximum(X, 0), "EX003@83 # unsupported op HSwish at main/sel/else/hswish")


if __name__ == "__main__":
    shape_guard()
    if_in_loop()
    exec_cases()
    spec_if()
    nested_if()
    ops()
