#!/usr/bin/env python3
"""Generates corpus/ir: valid models and one failing model per rule, with .expect sidecars.

Run: python3 corpus/ir/gen.py [OUT_DIR]   (stdlib only; deterministic; recomputes the @LINE values)
"""
import os
import struct
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
VALID = os.path.join(ROOT, "valid")
INVALID = os.path.join(ROOT, "invalid")

PREC = {"f32": "FP32", "i64": "I64", "boolean": "BOOL", "i32": "I32", "f16": "FP16"}
IND = "    "


def ind(lines, n=1):
    return [IND * n + l if l else l for l in lines]


def shape_attr(shape):
    return ",".join("?" if d == -1 else str(d) for d in shape)


def port(pid, shape, prec=None, names=None, dims_text=None):
    attrs = f'id="{pid}"'
    if names:
        attrs += f' names="{names}"'
    if prec:
        attrs += f' precision="{prec}"'
    dims = dims_text if dims_text is not None else [str(d) for d in shape]
    if not dims:
        return [f"<port {attrs}/>"]
    return [f"<port {attrs}>"] + ind([f"<dim>{d}</dim>" for d in dims]) + ["</port>"]


def layer(lid, name, typ, version="opset1", data=None, ins=(), outs=(), extra=()):
    """ins: list of (port_id, shape[, dims_text]); outs: list of (port_id, et|None, shape[, names])."""
    body = []
    if data is not None:
        body.append(f"<data {data}/>")
    if ins:
        body.append("<input>")
        for i in ins:
            body += ind(port(i[0], i[1], dims_text=i[2] if len(i) > 2 else None))
        body.append("</input>")
    if outs:
        body.append("<output>")
        for o in outs:
            prec = PREC[o[1]] if o[1] else None
            body += ind(port(o[0], o[2], prec=prec, names=o[3] if len(o) > 3 else None))
        body.append("</output>")
    body += list(extra)
    return [f'<layer id="{lid}" name="{name}" type="{typ}" version="{version}">'] + ind(body) + ["</layer>"]


def param(lid, name, et, shape, data_shape=None):
    s = shape_attr(shape) if data_shape is None else data_shape
    return layer(lid, name, "Parameter", data=f'element_type="{et}" shape="{s}"', outs=[(0, et, shape)])


def const(lid, name, et, shape, offset, size):
    return layer(lid, name, "Const",
                 data=f'element_type="{et}" shape="{shape_attr(shape)}" offset="{offset}" size="{size}"',
                 outs=[(0, et, shape)])


def result(lid, name, shape, dims_text=None):
    return layer(lid, name, "Result", ins=[(0, shape, dims_text)] if dims_text else [(0, shape)])


def unary(lid, name, typ, et, shape, data=None):
    return layer(lid, name, typ, data=data, ins=[(0, shape)], outs=[(1, et, shape)])


def add(lid, name, et, shape):
    return layer(lid, name, "Add", data='auto_broadcast="numpy"', ins=[(0, shape), (1, shape)],
                 outs=[(2, et, shape)])


def edge(f, fp, t, tp):
    return f'<edge from-layer="{f}" from-port="{fp}" to-layer="{t}" to-port="{tp}"/>'


def graph(layers, edges):
    out = ["<layers>"]
    for l in layers:
        out += ind(l)
    out.append("</layers>")
    out.append("<edges>")
    out += ind(edges)
    out.append("</edges>")
    return out


def port_map(tag, entries):
    out = [f"<{tag}>"]
    for e in entries:
        kind, ext, internal = e[0], e[1], e[2]
        extra = e[3] if len(e) > 3 else ""
        out.append(IND + f'<{kind} external_port_id="{ext}" internal_layer_id="{internal}"{extra}/>')
    out.append(f"</{tag}>")
    return out


def body(tag, layers, edges):
    return [f"<{tag}>"] + ind(graph(layers, edges)) + [f"</{tag}>"]


def if_layer(lid, name, ins, outs, then_map, else_map, then_b, else_b, version="opset8", omit=()):
    """ins: list of (port_id, shape); outs: list of (port_id, et|None, shape[, names]).
    then_b/else_b: (layers, edges)."""
    extra = []
    if "then_port_map" not in omit:
        extra += port_map("then_port_map", then_map)
    if "else_port_map" not in omit:
        extra += port_map("else_port_map", else_map)
    if "then_body" not in omit:
        extra += body("then_body", *then_b)
    if "else_body" not in omit:
        extra += body("else_body", *else_b)
    return layer(lid, name, "If", version=version, ins=ins, outs=outs, extra=extra)


def net(name, layers, edges, version="11", root="net", decl=True):
    out = ['<?xml version="1.0"?>'] if decl else []
    attrs = f'name="{name}" version="{version}"' if version is not None else f'name="{name}"'
    out.append(f"<{root} {attrs}>")
    out += ind(graph(layers, edges))
    out.append(f"</{root}>")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- small building blocks

def identity_body(et="f32", shape=(2,), pname="a", rname="a_out"):
    shape = list(shape)
    return ([param(0, pname, et, shape), result(1, rname, shape)], [edge(0, 0, 1, 0)])


def relu_body(et="f32", shape=(2,), pname="a"):
    shape = list(shape)
    return ([param(0, pname, et, shape), unary(1, "relu", "Relu", et, shape), result(2, "relu_out", shape)],
            [edge(0, 0, 1, 0), edge(1, 1, 2, 0)])


def simple_if_model(name, cond_et="boolean", cond_shape=(), cond_data_shape=None, if_out_et="f32",
                    then_b=None, else_b=None, then_map=None, else_map=None, if_version="opset8",
                    omit=(), extra_outer_layers=(), extra_edges=(), drop_edges=(), result_dims_text=None,
                    net_version="11", root="net"):
    """P0 cond, P1 x f32[2] -> If 2 -> Result 3."""
    cond_shape = list(cond_shape)
    then_b = then_b or relu_body()
    else_b = else_b or identity_body()
    then_map = then_map or [("input", 1, 0), ("output", 0, 2)]
    else_map = else_map or [("input", 1, 0), ("output", 0, 1)]
    layers = [param(0, "cond", cond_et, cond_shape, data_shape=cond_data_shape), param(1, "x", "f32", [2])]
    layers += list(extra_outer_layers)
    layers.append(if_layer(2, "if", [(0, cond_shape), (1, [2])], [(2, if_out_et, [2])], then_map, else_map,
                           then_b, else_b, version=if_version, omit=omit))
    layers.append(result(3, "out", [2], dims_text=result_dims_text))
    edges = [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0)]
    edges = [e for i, e in enumerate(edges) if i not in drop_edges] + list(extra_edges)
    return net(name, layers, edges, version=net_version, root=root)


def f32(*vals):
    return b"".join(struct.pack("<f", v) for v in vals)


# ---------------------------------------------------------------- writer with line lookup

written = []


def write(directory, fname, text, expect=None, binary=None):
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, fname)
    with open(path, "w") as f:
        f.write(text)
    written.append(path)
    if binary is not None:
        bpath = path[:-4] + ".bin"
        with open(bpath, "wb") as f:
            f.write(binary)
        written.append(bpath)
    if expect is not None:
        lines = text.split("\n")
        out = []
        for item in expect:
            if isinstance(item, str):
                out.append(item)
                continue
            rule, needle, nth, comment = item
            hits = [i + 1 for i, l in enumerate(lines) if needle in l]
            if len(hits) < nth:
                raise SystemExit(f"{fname}: '{needle}' occurs {len(hits)}x, wanted #{nth}")
            ln = hits[nth - 1]
            if comment:
                out.append(f"# {comment}")
            out.append(f"{rule}@{ln}")
        epath = path[:-4] + ".expect"
        with open(epath, "w") as f:
            f.write("\n".join(out) + "\n")
        written.append(epath)


# ================================================================ VALID

def spec_if_example():
    sh = [2, 4]

    def spec_body(second):
        return ([param(0, "add_x", "f32", sh), param(1, second, "f32", sh), add(2, "Add", "f32", sh),
                 result(3, "Identity/sink_port_0", sh)],
                [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0)])

    layers = [param(0, "cond", "boolean", []), param(1, "x", "f32", sh), param(2, "y", "f32", sh),
              param(3, "z", "f32", sh),
              if_layer(6, "if/cond", [(0, []), (1, sh), (2, sh), (3, sh)],
                       [(4, "f32", sh, "if/cond/Identity:0,if/cond:0")],
                       [("input", 1, 0), ("input", 2, 1), ("output", 0, 3)],
                       [("input", 1, 0), ("input", 3, 1), ("output", 0, 3)],
                       spec_body("add_z"), spec_body("add_w")),
              result(7, "if/cond/sink_port_0", sh)]
    edges = [edge(0, 0, 6, 0), edge(1, 0, 6, 1), edge(2, 0, 6, 2), edge(3, 0, 6, 3), edge(6, 4, 7, 0)]
    write(VALID, "spec_if_example.xml", net("if8_spec_example", layers, edges))


def nested_if():
    inner = if_layer(2, "inner_if", [(0, []), (1, [2])], [(2, "f32", [2])],
                     [("input", 1, 0), ("output", 0, 2)], [("input", 1, 0), ("output", 0, 1)],
                     relu_body(pname="ia"), identity_body(pname="ib", rname="ib_out"))
    then_b = ([param(0, "c", "boolean", []), param(1, "a", "f32", [2]), inner, result(3, "then_out", [2])],
              [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0)])
    else_b = identity_body(pname="b", rname="else_out")
    layers = [param(0, "cond", "boolean", []), param(1, "cond_inner", "boolean", []), param(2, "x", "f32", [2]),
              if_layer(3, "outer_if", [(0, []), (1, []), (2, [2])], [(3, "f32", [2])],
                       [("input", 1, 0), ("input", 2, 1), ("output", 0, 3)],
                       [("input", 2, 0), ("output", 0, 1)], then_b, else_b),
              result(4, "out", [2])]
    edges = [edge(0, 0, 3, 0), edge(1, 0, 3, 1), edge(2, 0, 3, 2), edge(3, 3, 4, 0)]
    write(VALID, "nested_if.xml", net("nested_if", layers, edges))


def output_ids(fname, out_ids):
    a, b = [2, 4], [4]
    then_b = ([param(0, "a", "f32", a), param(1, "b", "f32", b), unary(2, "relu_a", "Relu", "f32", a),
               result(3, "then_out0", a), result(4, "then_out1", b)],
              [edge(0, 0, 2, 0), edge(2, 1, 3, 0), edge(1, 0, 4, 0)])
    else_b = ([param(0, "a", "f32", a), param(1, "b", "f32", b), unary(2, "relu_b", "Relu", "f32", b),
               result(3, "else_out0", a), result(4, "else_out1", b)],
              [edge(0, 0, 3, 0), edge(1, 0, 2, 0), edge(2, 1, 4, 0)])
    o0, o1 = out_ids
    layers = [param(0, "cond", "boolean", []), param(1, "x", "f32", a), param(2, "y", "f32", b),
              if_layer(3, "if", [(0, []), (1, a), (2, b)], [(3, "f32", a), (4, "f32", b)],
                       [("input", 1, 0), ("input", 2, 1), ("output", o0, 3), ("output", o1, 4)],
                       # listed out of order on purpose: readers sort by external_port_id
                       [("input", 2, 1), ("input", 1, 0), ("output", o1, 4), ("output", o0, 3)],
                       then_b, else_b),
              result(5, "out0", a), result(6, "out1", b)]
    edges = [edge(0, 0, 3, 0), edge(1, 0, 3, 1), edge(2, 0, 3, 2), edge(3, 3, 5, 0), edge(3, 4, 6, 0)]
    write(VALID, fname, net("output_ids", layers, edges))


def cond_from_const():
    then_b = ([param(0, "a", "f32", [2]), const(1, "bias", "f32", [2], 4, 8), add(2, "add", "f32", [2]),
               result(3, "then_out", [2])],
              [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0)])
    layers = [const(0, "cond", "boolean", [], 0, 1), param(1, "x", "f32", [2]),
              if_layer(2, "if", [(0, []), (1, [2])], [(2, "f32", [2])],
                       [("input", 1, 0), ("output", 0, 3)], [("input", 1, 0), ("output", 0, 1)],
                       then_b, identity_body()),
              result(3, "out", [2])]
    edges = [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0)]
    # 12 bytes: bool true @0 (1 B) + 3 B padding, f32[2] {1.0, 2.0} @4 (8 B)
    # A constant condition is valid IR (OpenVINO folds the If); its else branch never runs, which C012 notes.
    write(VALID, "cond_from_const.xml", net("cond_from_const", layers, edges),
          expect=[("C012", '<layer id="2" name="if" type="If"', 1, "the else branch never runs")],
          binary=b"\x01\x00\x00\x00" + f32(1.0, 2.0))


def shape_guard(directory, fname, x_shape, expect):
    """If(dim 1 of x == 4) then x + bias, else x, as exporters write shape guards. With x declared [1,4] the
    condition is true for every input the model accepts (C012: the else branch is dead); with x [1,?] it depends
    on the input (no finding)."""
    x_dims = list(x_shape)
    then_b = ([param(0, "a", "f32", x_dims), const(1, "bias", "f32", [1], 24, 4), add(2, "add", "f32", x_dims),
               result(3, "then_out", x_dims)],
              [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0)])
    layers = [param(0, "x", "f32", x_dims),
              layer(1, "shape", "ShapeOf", version="opset3", data='output_type="i64"', ins=[(0, x_dims)],
                    outs=[(1, "i64", [2])]),
              const(2, "index", "i64", [], 0, 8), const(3, "axis", "i64", [], 8, 8),
              layer(4, "width", "Gather", version="opset8", data='batch_dims="0"', ins=[(0, [2]), (1, []), (2, [])],
                    outs=[(3, "i64", [])]),
              const(5, "four", "i64", [], 16, 8),
              layer(6, "is_four", "Equal", data='auto_broadcast="numpy"', ins=[(0, []), (1, [])],
                    outs=[(2, "boolean", [])]),
              if_layer(7, "guard", [(0, []), (1, x_dims)], [(2, "f32", x_dims)],
                       [("input", 1, 0), ("output", 0, 3)], [("input", 1, 0), ("output", 0, 1)],
                       then_b, identity_body(shape=x_dims)),
              result(8, "out", x_dims)]
    edges = [edge(0, 0, 1, 0), edge(1, 1, 4, 0), edge(2, 0, 4, 1), edge(3, 0, 4, 2), edge(4, 3, 6, 0),
             edge(5, 0, 6, 1), edge(6, 2, 7, 0), edge(0, 0, 7, 1), edge(7, 2, 8, 0)]
    binary = struct.pack("<qqq", 1, 0, 4) + f32(0.5)
    write(directory, fname, net(fname[:-4], layers, edges), expect=expect, binary=binary)


def computed_shape_guard():
    """A shape guard on a value computed from the input, as OpenVINO's converter writes Silero VAD's: x [1,?] is
    unsqueezed at axis 1, and the If tests dim 1 of that (always 1). The else branch (another Unsqueeze, rank 4) never
    runs; OpenVINO folds the condition and declares the If output as the then branch gives it, [1,1,?]. C012 says the
    else branch is dead (from condlint's own shape rules, not from the declared dims); C010 stays silent."""
    x, u, w = [1, -1], [1, 1, -1], [1, 1, 1, -1]
    else_b = ([param(0, "a", "f32", u), const(1, "eaxis", "i64", [1], 32, 8),
               layer(2, "lift_again", "Unsqueeze", ins=[(0, u), (1, [1])], outs=[(2, "f32", w)]),
               result(3, "else_out", w)],
              [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0)])
    layers = [param(0, "x", "f32", x), const(1, "axis", "i64", [1], 0, 8),
              layer(2, "lift", "Unsqueeze", ins=[(0, x), (1, [1])], outs=[(2, "f32", u)]),
              layer(3, "shape", "ShapeOf", version="opset3", data='output_type="i64"', ins=[(0, u)],
                    outs=[(1, "i64", [3])]),
              const(4, "index", "i64", [], 8, 8), const(5, "gaxis", "i64", [], 16, 8),
              layer(6, "dim1", "Gather", version="opset8", data='batch_dims="0"', ins=[(0, [3]), (1, []), (2, [])],
                    outs=[(3, "i64", [])]),
              const(7, "one", "i64", [], 24, 8),
              layer(8, "is_one", "Equal", data='auto_broadcast="numpy"', ins=[(0, []), (1, [])],
                    outs=[(2, "boolean", [])]),
              if_layer(9, "guard", [(0, []), (1, u)], [(2, "f32", u)],
                       [("input", 1, 0), ("output", 0, 1)], [("input", 1, 0), ("output", 0, 3)],
                       identity_body(shape=u), else_b),
              result(10, "out", u)]
    edges = [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0), edge(3, 1, 6, 0), edge(4, 0, 6, 1),
             edge(5, 0, 6, 2), edge(6, 3, 8, 0), edge(7, 0, 8, 1), edge(8, 2, 9, 0), edge(2, 2, 9, 1),
             edge(9, 2, 10, 0)]
    binary = struct.pack("<qqqqq", 1, 1, 0, 1, 0)
    write(VALID, "shape_guard_computed.xml", net("shape_guard_computed", layers, edges),
          expect=[("C012", '<layer id="9" name="guard" type="If"', 1,
                   "dim 1 of 'lift' is 1 by Unsqueeze's shape rule: the else branch is dead; no C010")],
          binary=binary)


def scalar_or_vector():
    """then gives a scalar, else a [2]: OpenVINO's If-8 rule writes their union as [?] (one dynamic dim, not a dynamic
    rank), as its converter does for torchvision's batched NMS. Declared so, it is no C010; C011 notes the branches."""
    then_b = ([const(0, "then_value", "f32", [], 0, 4), result(1, "then_out", [])], [edge(0, 0, 1, 0)])
    else_b = ([const(0, "else_value", "f32", [2], 4, 8), result(1, "else_out", [2])], [edge(0, 0, 1, 0)])
    layers = [param(0, "cond", "boolean", []),
              if_layer(1, "if", [(0, [])], [(1, "f32", [-1])], [("output", 0, 1)], [("output", 0, 1)], then_b, else_b),
              result(2, "out", [-1])]
    write(VALID, "if_scalar_or_vector.xml", net("if_scalar_or_vector", layers, [edge(0, 0, 1, 0), edge(1, 1, 2, 0)]),
          expect=[("C011", '<layer id="1" name="if" type="If"', 1, "[] and [2] give [?] by OpenVINO's If-8 rule")],
          binary=f32(1.0, 2.0, 3.0))


def compressed_convert(directory, fname, port_et, expect):
    """As save_model(compress_to_fp16=True) writes a branch: an f16 Const behind a decompression Convert to f32 whose
    output port (and the Result's) keep FP16. OpenVINO types the Convert by destination_type: the If output f32 is
    what both branches give (no C007); IR020 notes the port. With the port FP32 (port_et="f32") nothing fires."""
    conv = layer(1, "t_out", "Convert", data='destination_type="f32"', ins=[(0, [2])], outs=[(1, port_et, [2])],
                 extra=['<rt_info>', IND + '<attribute name="decompression" version="0"/>', '</rt_info>'])
    then_b = ([const(0, "then_value", "f16", [2], 0, 4), conv,
               layer(2, "t_out/sink_port_0", "Result", ins=[(0, [2])])], [edge(0, 0, 1, 0), edge(1, 1, 2, 0)])
    else_b = ([const(0, "else_value", "f32", [2], 4, 8), result(1, "else_out", [2])], [edge(0, 0, 1, 0)])
    layers = [param(0, "cond", "boolean", []),
              if_layer(1, "if", [(0, [])], [(1, "f32", [2])], [("output", 0, 2)], [("output", 0, 1)], then_b, else_b),
              result(2, "out", [2])]
    binary = struct.pack("<HH", 0x3C00, 0x4000) + f32(3.0, 4.0)
    write(directory, fname, net(fname[:-4], layers, [edge(0, 0, 1, 0), edge(1, 1, 2, 0)]), expect=expect,
          binary=binary)


def const_bodies_model(name, then_c, else_c, out_shape, cond=None, if_version="opset8"):
    cond = cond or param(0, "cond", "boolean", [])
    then_b = ([then_c, result(1, "then_out", out_shape)], [edge(0, 0, 1, 0)])
    else_b = ([else_c, result(1, "else_out", out_shape)], [edge(0, 0, 1, 0)])
    layers = [cond,
              if_layer(1, "if", [(0, [])], [(1, "f32", out_shape)],
                       [("output", 0, 1)], [("output", 0, 1)], then_b, else_b, version=if_version),
              result(2, "out", out_shape)]
    edges = [edge(0, 0, 1, 0), edge(1, 1, 2, 0)]
    return net(name, layers, edges)


def body_without_parameters():
    text = const_bodies_model("body_without_parameters", const(0, "then_value", "f32", [], 0, 4),
                              const(0, "else_value", "f32", [], 4, 4), [])
    write(VALID, "body_without_parameters.xml", text, binary=f32(1.0, -1.0))


def multi_output():
    x, n = [2], [3]
    then_b = ([param(0, "a", "f32", x), param(1, "k", "i64", n), unary(2, "relu", "Relu", "f32", x),
               result(3, "then_out0", x), result(4, "then_out1", n), result(5, "then_out2", x)],
              [edge(0, 0, 2, 0), edge(2, 1, 3, 0), edge(1, 0, 4, 0), edge(0, 0, 5, 0)])
    else_b = ([param(0, "a", "f32", x), param(1, "k", "i64", n), result(2, "else_out0", x),
               result(3, "else_out1", n), unary(4, "neg", "Negative", "f32", x), result(5, "else_out2", x)],
              [edge(0, 0, 2, 0), edge(1, 0, 3, 0), edge(0, 0, 4, 0), edge(4, 1, 5, 0)])
    layers = [param(0, "cond", "boolean", []), param(1, "x", "f32", x), param(2, "n", "i64", n),
              if_layer(3, "if", [(0, []), (1, x), (2, n)], [(3, "f32", x), (4, "i64", n), (5, "f32", x)],
                       [("input", 1, 0), ("input", 2, 1), ("output", 0, 3), ("output", 1, 4), ("output", 2, 5)],
                       [("input", 1, 0), ("input", 2, 1), ("output", 0, 2), ("output", 1, 3), ("output", 2, 5)],
                       then_b, else_b),
              result(4, "out0", x), result(5, "out1", n), result(6, "out2", x)]
    edges = [edge(0, 0, 3, 0), edge(1, 0, 3, 1), edge(2, 0, 3, 2),
             edge(3, 3, 4, 0), edge(3, 4, 5, 0), edge(3, 5, 6, 0)]
    write(VALID, "multi_output.xml", net("multi_output", layers, edges))


def if_in_loop():
    s = [1, 2]
    inner_if = if_layer(3, "step_if", [(0, []), (1, s)], [(2, "f32", s)],
                        [("input", 1, 0), ("output", 0, 2)], [("input", 1, 0), ("output", 0, 2)],
                        relu_body(shape=s, pname="t_in"),
                        ([param(0, "e_in", "f32", s), unary(1, "neg", "Negative", "f32", s),
                          result(2, "neg_out", s)], [edge(0, 0, 1, 0), edge(1, 1, 2, 0)]))
    loop_body = body("body",
                     [param(0, "cond_in", "boolean", []), result(1, "cond_out", []),
                      param(2, "a_in", "f32", s), inner_if, result(4, "a_out", s)],
                     [edge(0, 0, 1, 0), edge(0, 0, 3, 0), edge(2, 0, 3, 1), edge(3, 2, 4, 0)])
    extra = port_map("port_map", [("input", 1, 0), ("input", 2, 2),
                                  ("output", -1, 1, ' purpose="execution_condition"'), ("output", 3, 4)])
    extra += ["<back_edges>", IND + edge(1, 0, 0, 0), IND + edge(4, 0, 2, 0), "</back_edges>"]
    extra += loop_body
    loop = layer(3, "loop", "Loop", version="opset5", ins=[(0, [1]), (1, []), (2, s)], outs=[(3, "f32", s)],
                 extra=extra)
    layers = [param(0, "trip_count", "i64", [1]), param(1, "exec_cond", "boolean", []),
              param(2, "a_init", "f32", s), loop, result(4, "a_final", s)]
    edges = [edge(0, 0, 3, 0), edge(1, 0, 3, 1), edge(2, 0, 3, 2), edge(3, 3, 4, 0)]
    write(VALID, "if_in_loop.xml", net("if_in_loop", layers, edges))


def dynamic_shapes():
    d = [-1, 4]
    layers = [param(0, "cond", "boolean", []), param(1, "x", "f32", d), param(2, "y", "f32", d),
              if_layer(3, "if", [(0, []), (1, d), (2, d)], [(3, "f32", d)],
                       [("input", 1, 0), ("output", 0, 2)], [("input", 2, 0), ("output", 0, 1)],
                       relu_body(shape=d, pname="a"), identity_body(shape=d, pname="b", rname="b_out")),
              result(4, "out", d)]
    edges = [edge(0, 0, 3, 0), edge(1, 0, 3, 1), edge(2, 0, 3, 2), edge(3, 3, 4, 0)]
    write(VALID, "dynamic_shapes.xml", net("dynamic_shapes", layers, edges))


# ================================================================ INVALID

def if_ranks(directory, fname, y_shape, expect):
    """then gives x [2], else gives y: of rank 2 ([1,2]) the If output is of dynamic rank by OpenVINO's If-8 rule and
    OpenVINO's CPU plugin refuses to compile it (IR021); of rank 1 ([3]) it is [2..3] and compiles (C011 only)."""
    text = two_input_model(fname[:-4], x_shape=[2], y_shape=y_shape, out_shape=[],
                           then_b=identity_body(shape=[2], pname="a"),
                           else_b=identity_body(shape=y_shape, pname="b", rname="b_out"),
                           then_map=[("input", 1, 0), ("output", 0, 1)], else_map=[("input", 2, 0), ("output", 0, 1)])
    write(directory, fname, text, expect=expect)


def two_input_model(name, x_et="f32", y_et="f32", x_shape=(2,), y_shape=(2,), out_et="f32", out_shape=(2,),
                    then_b=None, else_b=None, then_map=None, else_map=None):
    """P0 cond, P1 x, P2 y -> If 3 (output port 3) -> Result 4."""
    x_shape, y_shape, out_shape = list(x_shape), list(y_shape), list(out_shape)
    layers = [param(0, "cond", "boolean", []), param(1, "x", x_et, x_shape), param(2, "y", y_et, y_shape),
              if_layer(3, "if", [(0, []), (1, x_shape), (2, y_shape)], [(3, out_et, out_shape)],
                       then_map, else_map, then_b, else_b),
              result(4, "out", out_shape)]
    edges = [edge(0, 0, 3, 0), edge(1, 0, 3, 1), edge(2, 0, 3, 2), edge(3, 3, 4, 0)]
    return net(name, layers, edges)


def invalid():
    W = lambda f, t, e, b=None: write(INVALID, f, t, expect=e, binary=b)

    # ---- C001
    then_b = ([const(0, "then_value", "f32", [], 0, 4), result(1, "then_out", [])], [edge(0, 0, 1, 0)])
    else_b = ([const(0, "else_value", "f32", [], 4, 4), result(1, "else_out", [])], [edge(0, 0, 1, 0)])
    layers = [if_layer(0, "if", [], [(0, "f32", [])], [("output", 0, 1)], [("output", 0, 1)], then_b, else_b),
              result(1, "out", [])]
    W("C001_no_condition.xml", net("no_condition", layers, [edge(0, 0, 1, 0)]),
      ["# the If has no <input> ports at all, so there is no condition input",
       "C001"], f32(1.0, -1.0))

    W("C001_cond_unconnected.xml", simple_if_model("cond_unconnected", drop_edges=(0,)),
      ["# If input 0 (the condition) has no incoming edge: the condition is missing (C001)",
       "# and, independently, an input port is unconnected (IR014)",
       "C001", "IR014"])

    # ---- C002
    W("C002_cond_f32.xml", simple_if_model("cond_f32", cond_et="f32"),
      ["# condition is an f32 scalar Parameter (precision FP32), not boolean", "C002"])

    # ---- C003
    W("C003_cond_shape_3.xml", simple_if_model("cond_shape_3", cond_shape=[3]),
      ["# boolean condition of static shape [3]: three elements", "C003"])
    W("C003_cond_shape_0.xml", simple_if_model("cond_shape_0", cond_shape=[0]),
      ["# boolean condition of static shape [0]: no element at all", "C003"])
    W("C003_cond_shape_1x1.xml", simple_if_model("cond_shape_1x1", cond_shape=[1, 1]),
      ["# boolean condition of static shape [1,1]: one element but rank 2", "C003"])

    # ---- C004
    W("C004_cond_dynamic.xml", simple_if_model("cond_dynamic", cond_shape=[-1]),
      ["# boolean condition of shape [?]: cannot be proven to hold one element", "C004"])

    # ---- C005
    then_b = ([param(0, "a", "f32", [2]), result(1, "then_out0", [2]), unary(2, "relu", "Relu", "f32", [2]),
               result(3, "then_out1", [2])],
              [edge(0, 0, 1, 0), edge(0, 0, 2, 0), edge(2, 1, 3, 0)])
    layers = [param(0, "cond", "boolean", []), param(1, "x", "f32", [2]),
              if_layer(2, "if", [(0, []), (1, [2])], [(2, "f32", [2]), (3, "f32", [2])],
                       [("input", 1, 0), ("output", 0, 1), ("output", 1, 3)],
                       [("input", 1, 0), ("output", 0, 1)], then_b, identity_body()),
              result(3, "out0", [2]), result(4, "out1", [2])]
    edges = [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0), edge(2, 3, 4, 0)]
    W("C005_output_count.xml", net("output_count", layers, edges),
      ["# If declares 2 outputs, then_body maps 2, else_body maps only 1", "C005"])

    # ---- C006
    c6 = dict(y_et="i64", then_b=identity_body(pname="a"), else_b=identity_body(et="i64", pname="k", rname="k_out"),
              then_map=[("input", 1, 0), ("output", 0, 1)], else_map=[("input", 2, 0), ("output", 0, 1)])
    W("C006_branch_types.xml", two_input_model("branch_types", out_et=None, **c6),
      ["# output 0: then gives f32, else gives i64.",
       "# The If output port states no precision, so C007 has no declared type to compare against.",
       "C006"])
    W("C006_branch_types_declared.xml", two_input_model("branch_types_declared", out_et="f32", **c6),
      ["# same as C006_branch_types.xml, but the If output declares FP32:",
       "# the else branch (i64) then also contradicts the declared type (C007)",
       "C006", "C007"])

    # ---- C007
    W("C007_output_type.xml", simple_if_model("output_type", if_out_et="i64"),
      ["# both branches produce f32, the If output port declares I64 (one finding per branch)", "C007"])

    # ---- C008
    then_b = ([param(0, "a", "i64", [2]), unary(1, "to_f32", "Convert", "f32", [2], data='destination_type="f32"'),
               result(2, "then_out", [2])],
              [edge(0, 0, 1, 0), edge(1, 1, 2, 0)])
    W("C008_input_type.xml", simple_if_model("input_type", then_b=then_b),
      ["# outer x is f32, then_body Parameter 'a' it is bound to is declared i64", "C008"])

    # ---- C009
    W("C009_input_shape.xml",
      two_input_model("input_shape", x_shape=[2, 4], y_shape=[2, 4], out_shape=[3, 4],
                      then_b=identity_body(shape=[3, 4], pname="a"),
                      else_b=identity_body(shape=[3, 4], pname="b", rname="b_out"),
                      then_map=[("input", 1, 0), ("output", 0, 1)], else_map=[("input", 2, 0), ("output", 0, 1)]),
      ["# outer x and y are [2,4]; the body Parameters they are bound to are declared [3,4]",
       "# (one finding per branch). Branch results and the If output are all [3,4], so nothing else fires.",
       "C009"])

    # ---- C010
    W("C010_output_shape.xml",
      two_input_model("output_shape", x_shape=[2], y_shape=[3], out_shape=[2],
                      then_b=identity_body(shape=[2], pname="a"),
                      else_b=identity_body(shape=[3], pname="b", rname="b_out"),
                      then_map=[("input", 1, 0), ("output", 0, 1)], else_map=[("input", 2, 0), ("output", 0, 1)]),
      ["# If output declared [2]; then gives [2], else gives [3]: else cannot produce [2] (C010),",
       "# and the two branches differ in shape (C011, note) -- unavoidable with this layout",
       "C010", "C011"])
    W("C010_both_branches.xml",
      two_input_model("output_shape_both", x_shape=[3], y_shape=[3], out_shape=[2],
                      then_b=identity_body(shape=[3], pname="a"),
                      else_b=identity_body(shape=[3], pname="b", rname="b_out"),
                      then_map=[("input", 1, 0), ("output", 0, 1)], else_map=[("input", 2, 0), ("output", 0, 1)]),
      ["# If output declared [2]; both branches give [3] (no C011: the branches agree)", "C010"])

    # ---- C011
    W("C011_branch_shapes.xml",
      two_input_model("branch_shapes", x_shape=[2, 4], y_shape=[3, 4], out_shape=[-1, 4],
                      then_b=identity_body(shape=[2, 4], pname="a"),
                      else_b=identity_body(shape=[3, 4], pname="b", rname="b_out"),
                      then_map=[("input", 1, 0), ("output", 0, 1)], else_map=[("input", 2, 0), ("output", 0, 1)]),
      ["# then gives [2,4], else gives [3,4]; the If output [-1,4] admits both (no C010)", "C011"])

    # ---- IR001
    full = simple_if_model("truncated")
    cut = full.index('<port id="1">', full.index('type="If"'))
    W("IR001_truncated.xml", full[:cut + len('<port id="1"')] + "\n",
      ["# the file ends in the middle of the If's <input> (an unterminated start tag)", "IR001"])

    # ---- IR002
    W("IR002_version.xml", simple_if_model("old_version", net_version="7"),
      ["# <net version=\"7\">: only IR v10 and v11 are read", "IR002"])
    W("IR002_root.xml", simple_if_model("wrong_root", root="model"),
      ["# root element is <model>, not <net>", "IR002"])

    # ---- IR003
    t = simple_if_model("bad_dim", result_dims_text=["two"])
    W("IR003_bad_dim.xml", t, ["# <dim>two</dim> in the outer Result's input port",
                               ("IR003", "<dim>two</dim>", 1, "")])

    # ---- IR004
    t = simple_if_model("no_else_body", omit=("else_body", "else_port_map"))
    W("IR004_no_else_body.xml", t,
      ["# the If has neither <else_body> nor <else_port_map> (one or two IR004 findings).",
       "# With a branch missing, no generic rule (C005...) looks at this If.",
       ("IR004", 'type="If"', 1, "the If <layer>")])

    # ---- IR005
    then_b = ([param(0, "a", "f32", [2])], [])
    t = simple_if_model("body_without_result", then_b=then_b, then_map=[("input", 1, 0)])
    W("IR005_body_without_result.xml", t,
      ["# then_body has a Parameter and no Result; hence then_port_map maps no output",
       "# and the then branch's mapped output count (0) differs from the If's (1): C005 is unavoidable",
       "IR005", "C005"])

    # ---- IR006
    t = simple_if_model("input_out_of_range", then_map=[("input", 2, 0), ("output", 0, 2)])
    W("IR006_input_out_of_range.xml", t,
      ["# the If has 2 input ports (0, 1); then_port_map input names external_port_id 2",
       ("IR006", '<input external_port_id="2" internal_layer_id="0"/>', 1, "")])
    t = simple_if_model("input_negative", then_map=[("input", -1, 0), ("output", 0, 2)])
    W("IR006_input_negative.xml", t,
      ["# then_port_map input with external_port_id -1",
       ("IR006", '<input external_port_id="-1" internal_layer_id="0"/>', 1, "")])

    # ---- IR007
    t = two_input_model("unknown_layer", then_b=identity_body(pname="a"), else_b=identity_body(pname="b", rname="b_out"),
                        then_map=[("input", 1, 0), ("input", 2, 7), ("output", 0, 1)],
                        else_map=[("input", 1, 0), ("output", 0, 1)])
    W("IR007_unknown_layer.xml", t,
      ["# then_port_map maps If input 2 to internal_layer_id 7, which the then_body does not have",
       ("IR007", '<input external_port_id="2" internal_layer_id="7"/>', 1, "")])

    # ---- IR008
    t = two_input_model("wrong_layer_type", then_b=relu_body(pname="a"), else_b=identity_body(pname="b", rname="b_out"),
                        then_map=[("input", 1, 0), ("input", 2, 1), ("output", 0, 2)],
                        else_map=[("input", 1, 0), ("output", 0, 1)])
    W("IR008_wrong_layer_type.xml", t,
      ["# then_port_map maps If input 2 to layer 1, a Relu (not a Parameter)",
       ("IR008", '<input external_port_id="2" internal_layer_id="1"/>', 1, "")])

    # ---- IR009
    then_b = ([param(0, "a", "f32", [2]), param(1, "b", "f32", [2]), add(2, "add", "f32", [2]),
               result(3, "then_out", [2])],
              [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0)])
    t = simple_if_model("duplicate_input", then_b=then_b,
                        then_map=[("input", 1, 0), ("input", 1, 1), ("output", 0, 3)])
    W("IR009_duplicate_input.xml", t,
      ["# two then_port_map inputs share external_port_id 1; OpenVINO keeps the first and drops the",
       "# second, leaving Parameter 'b' unbound. Reported at the second (dropped) entry.",
       ("IR009", '<input external_port_id="1" internal_layer_id="1"/>', 1, "")])
    then_b = ([param(0, "a", "f32", [2]), result(1, "then_out", [2]), unary(2, "relu", "Relu", "f32", [2]),
               result(3, "then_relu_out", [2])],
              [edge(0, 0, 1, 0), edge(0, 0, 2, 0), edge(2, 1, 3, 0)])
    t = simple_if_model("duplicate_output", then_b=then_b,
                        then_map=[("input", 1, 0), ("output", 0, 1), ("output", 0, 3)])
    W("IR009_duplicate_output.xml", t,
      ["# two then_port_map outputs share external_port_id 0 (Results 1 and 3); OpenVINO keeps the",
       "# first. Reported at the second (dropped) entry. Result 3 does have a port-map entry, so IR011",
       "# does not fire, and the then branch still maps exactly one distinct output (no C005).",
       ("IR009", '<output external_port_id="0" internal_layer_id="3"/>', 1, "")])

    # ---- IR010
    t = simple_if_model("unmapped_parameter", then_b=then_b_add(), then_map=[("input", 1, 0), ("output", 0, 3)])
    W("IR010_unmapped_parameter.xml", t,
      ["# then_body Parameter 'b' (id 1) has no input entry in then_port_map",
       ("IR010", '<layer id="1" name="b" type="Parameter"', 1, "the unmapped Parameter's <layer>")])

    # ---- IR011
    then_b = ([param(0, "a", "f32", [2]), result(1, "then_out", [2]), unary(2, "relu", "Relu", "f32", [2]),
               result(3, "then_unused", [2])],
              [edge(0, 0, 1, 0), edge(0, 0, 2, 0), edge(2, 1, 3, 0)])
    t = simple_if_model("unmapped_result", then_b=then_b, then_map=[("input", 1, 0), ("output", 0, 1)])
    W("IR011_unmapped_result.xml", t,
      ["# then_body Result 'then_unused' (id 3) is mapped to no If output",
       ("IR011", 'name="then_unused"', 1, "the unmapped Result's <layer>")])

    # ---- IR012
    t = simple_if_model("duplicate_layer_id", extra_outer_layers=[param(1, "x_copy", "f32", [2])])
    W("IR012_duplicate_layer_id.xml", t,
      ["# two outer layers with id 1 ('x' and 'x_copy', identical Parameters)",
       ("IR012", 'name="x_copy"', 1, "the second layer with id 1")])

    # ---- IR013
    t = simple_if_model("edge_missing_layer", extra_edges=[edge(1, 0, 9, 0)])
    W("IR013_missing_layer.xml", t,
      ["# an edge into layer 9, which does not exist",
       ("IR013", 'to-layer="9"', 1, "")])
    t = simple_if_model("two_edges_one_input", extra_edges=[edge(1, 0, 3, 0)])
    W("IR013_two_edges_one_input.xml", t,
      ["# the outer Result's port 0 is fed by the If and, a second time, by Parameter x",
       ("IR013", '<edge from-layer="1" from-port="0" to-layer="3" to-port="0"/>', 1, "the second edge into that port")])

    # ---- IR014
    t = simple_if_model("input_unconnected", drop_edges=(1,))
    W("IR014_input_unconnected.xml", t,
      ["# If input port 1 has no incoming edge (Parameter x is left dangling)",
       ("IR014", '<port id="1">', 1, "the If's unconnected input <port>")])

    # ---- IR015
    then_b = ([param(0, "a", "f32", [2]), add(1, "add", "f32", [2]), unary(2, "relu", "Relu", "f32", [2]),
               result(3, "then_out", [2])],
              [edge(0, 0, 1, 0), edge(2, 1, 1, 1), edge(1, 2, 2, 0), edge(1, 2, 3, 0)])
    t = simple_if_model("cycle", then_b=then_b, then_map=[("input", 1, 0), ("output", 0, 3)])
    W("IR015_cycle.xml", t, ["# then_body: add -> relu -> add forms a cycle", "IR015"])

    # ---- IR016
    t = simple_if_model("if_opset7", if_version="opset7")
    W("IR016_if_opset7.xml", t,
      ["# If declared as version=\"opset7\"; If exists from opset8 on",
       ("IR016", 'type="If"', 1, "the If <layer>")])

    # ---- IR017
    t = const_bodies_model("const_out_of_bounds", const(0, "then_value", "f32", [], 0, 4),
                           const(0, "else_value", "f32", [], 4, 4), [])
    W("IR017_const_out_of_bounds.xml", t,
      ["# the .bin holds 4 bytes; else_body Const reads offset 4 + size 4 = 8 > 4",
       ("IR017", 'name="else_value"', 1, "the Const <layer>")], f32(1.0))

    # ---- IR018
    t = const_bodies_model("const_size_mismatch", const(0, "then_value", "f32", [2], 0, 4),
                           const(0, "else_value", "f32", [2], 0, 8), [2])
    W("IR018_const_size_mismatch.xml", t,
      ["# then_body Const f32[2] needs 8 bytes but declares size 4 (the 8-byte .bin is big enough)",
       ("IR018", 'name="then_value"', 1, "the Const <layer>")],
      f32(1.0, 2.0))

    # ---- IR019
    layers_text = const_bodies_model("weights_missing", const(0, "then_value", "f32", [], 0, 4),
                                     const(0, "else_value", "f32", [], 4, 4), [])
    W("IR019_weights_missing.xml", layers_text,
      ["# Consts point into IR019_weights_missing.bin, which does not exist", "IR019"])


def then_b_add():
    return ([param(0, "a", "f32", [2]), param(1, "b", "f32", [2]), add(2, "add", "f32", [2]),
             result(3, "then_out", [2])],
            [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0)])


if __name__ == "__main__":
    spec_if_example()
    nested_if()
    output_ids("output_ids_zero_based.xml", (0, 1))
    output_ids("output_ids_serializer.xml", (3, 4))
    cond_from_const()
    shape_guard(VALID, "shape_guard_open_dim.xml", [1, -1], None)
    shape_guard(INVALID, "C012_dead_shape_guard.xml", [1, 4],
                [("C012", '<layer id="7" name="guard" type="If"', 1, "dim 1 of 'x' is 4: the else branch is dead")])
    computed_shape_guard()
    scalar_or_vector()
    if_ranks(INVALID, "IR021_if_ranks_differ.xml", [1, 2],
             [("IR021", '<layer id="3" name="if" type="If"', 1, "then [2], else [1,2]: an If output of dynamic rank, "
               "which OpenVINO's CPU plugin refuses (no C011: one root cause, one finding)")])
    if_ranks(VALID, "if_ranks_equal.xml", [3],
             [("C011", '<layer id="3" name="if" type="If"', 1, "then [2], else [3]: [2..3], which OpenVINO compiles")])
    compressed_convert(VALID, "convert_port_f32.xml", "f32", None)
    compressed_convert(INVALID, "IR020_convert_port_f16.xml", "f16",
                       [("IR020", '<layer id="1" name="t_out" type="Convert"', 1,
                         "the decompression Convert's output port says FP16, its destination_type f32: a note, no C007")])
    body_without_parameters()
    multi_output()
    if_in_loop()
    dynamic_shapes()
    invalid()
    for p in written:
        print(p)
