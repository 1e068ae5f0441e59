#!/usr/bin/python3
"""Generates the ONNX corpus: valid models (stay silent) and one or more failing models per rule.

Run with Debian's python3-onnx:  /usr/bin/python3 corpus/onnx/gen.py
The .onnx files are committed, so the tests need no Python. Expectations (.expect) are written
here too: one rule ID per line, as corpus_test.cpp reads them.
"""
import os
import struct
import sys

import onnx
from onnx import TensorProto as TP
from onnx import helper as h

HERE = os.path.dirname(os.path.abspath(__file__))
F, I64, B = TP.FLOAT, TP.INT64, TP.BOOL


def vi(name, elem, shape):
    return h.make_tensor_value_info(name, elem, shape)


def untyped(name):
    v = onnx.ValueInfoProto()
    v.name = name
    return v


def branch(name, nodes, outputs, inputs=(), inits=()):
    return h.make_graph(nodes, name, list(inputs), outputs, initializer=list(inits))


def model(nodes, inputs, outputs, opset=13, inits=(), value_info=(), extra_opsets=(), ir=None):
    g = h.make_graph(nodes, "main", inputs, outputs, initializer=list(inits), value_info=list(value_info))
    ops = [h.make_opsetid("", opset)] + [h.make_opsetid(d, v) for d, v in extra_opsets]
    m = h.make_model(g, opset_imports=ops, producer_name="condlint-corpus")
    m.ir_version = ir if ir else {10: 5, 11: 6, 13: 7, 16: 8}.get(opset, 7)
    return m


def save(rel, m, expect=()):
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = m if isinstance(m, bytes) else m.SerializeToString()
    with open(path, "wb") as f:
        f.write(data)
    exp = path[: -len(".onnx")] + ".expect"
    if expect:
        with open(exp, "w") as f:
            f.write("\n".join(expect) + "\n")
    elif os.path.exists(exp):
        os.remove(exp)


def attr(node, name):
    return next(i for i, a in enumerate(node.attribute) if a.name == name)


def const(name, values, elem=F):
    return h.make_node("Constant", [], [name], name="const_" + name,
                       value=h.make_tensor(name + "_v", elem, [len(values)], values))


def simple_if(name="If_0", then_out=("t_out", F, [2]), else_out=("e_out", F, [2]), out=("y", F, [2]),
              then_nodes=None, else_nodes=None, cond="c"):
    tn = then_nodes if then_nodes is not None else [h.make_node("Add", ["x", "one"], [then_out[0]], name="Add_t")]
    en = else_nodes if else_nodes is not None else [h.make_node("Sub", ["x", "one"], [else_out[0]], name="Sub_e")]
    tb = branch("then", tn, [vi(*then_out)])
    eb = branch("else", en, [vi(*else_out)])
    return h.make_node("If", [cond], [out[0]], name=name, then_branch=tb, else_branch=eb)


STD_INPUTS = [vi("c", B, []), vi("x", F, [2])]
ONE = [h.make_tensor("one", F, [2], [1.0, 1.0])]


def nested(depth, opset=13):
    """`depth` Ifs, each in the then_branch of the one above; every level captures the main x."""
    inner = None
    for k in reversed(range(depth)):
        out = "y%d" % k
        if inner is None:
            tn = [h.make_node("Add", ["x", "one"], ["t%d" % k], name="Add_%d" % k)]
        else:
            tn = [inner, h.make_node("Identity", ["y%d" % (k + 1)], ["t%d" % k], name="Id_%d" % k)]
        tb = branch("then%d" % k, tn, [vi("t%d" % k, F, [2])])
        eb = branch("else%d" % k, [h.make_node("Neg", ["x"], ["e%d" % k], name="Neg_%d" % k)], [vi("e%d" % k, F, [2])])
        inner = h.make_node("If", ["c"], [out], name="If_%d" % k, then_branch=tb, else_branch=eb)
    return model([inner], STD_INPUTS, [vi("y0", F, [2])], opset=opset, inits=ONE)


def valid():
    # opset 11, one If, outer captures (x, one) in both branches.
    save("valid/if_opset11.onnx", model([simple_if()], STD_INPUTS, [vi("y", F, [2])], opset=11, inits=ONE))
    # opset 13: sequence outputs (If-13).
    tb = branch("then", [h.make_node("SequenceConstruct", ["x", "x"], ["ts"], name="Seq_t")],
                [h.make_tensor_sequence_value_info("ts", F, [2])])
    eb = branch("else", [h.make_node("SequenceConstruct", ["x"], ["es"], name="Seq_e")],
                [h.make_tensor_sequence_value_info("es", F, [2])])
    n = h.make_node("If", ["c"], ["s"], name="If_seq", then_branch=tb, else_branch=eb)
    save("valid/if_opset13_sequence.onnx",
         model([n], STD_INPUTS, [h.make_tensor_sequence_value_info("s", F, [2])], opset=13))
    # opset 16: optional outputs (If-16).
    opt = h.make_optional_type_proto(h.make_tensor_type_proto(F, [2]))
    tb = branch("then", [h.make_node("Optional", ["x"], ["to"], name="Opt_t")], [h.make_value_info("to", opt)])
    eb = branch("else", [h.make_node("Optional", [], ["eo"], name="Opt_e", type=h.make_tensor_type_proto(F, [2]))],
                [h.make_value_info("eo", opt)])
    n = h.make_node("If", ["c"], ["o"], name="If_opt", then_branch=tb, else_branch=eb)
    save("valid/if_opset16_optional.onnx", model([n], STD_INPUTS, [h.make_value_info("o", opt)], opset=16))
    # Nested Ifs, 3 deep, capturing from two levels up.
    save("valid/nested_ifs.onnx", nested(3))
    # Two outputs of different types.
    tb = branch("then", [h.make_node("Add", ["x", "one"], ["ta"], name="Add_t"),
                         h.make_node("Shape", ["x"], ["tb"], name="Shape_t")],
                [vi("ta", F, [2]), vi("tb", I64, [1])])
    eb = branch("else", [h.make_node("Mul", ["x", "x"], ["ea"], name="Mul_e"),
                         h.make_node("Shape", ["ea"], ["eb"], name="Shape_e")],
                [vi("ea", F, [2]), vi("eb", I64, [1])])
    n = h.make_node("If", ["c"], ["ya", "yb"], name="If_two", then_branch=tb, else_branch=eb)
    save("valid/multi_output.onnx",
         model([n], STD_INPUTS, [vi("ya", F, [2]), vi("yb", I64, [1])], opset=13, inits=ONE))
    # If inside a Loop body; the If reads the loop-carried value and the body's condition.
    body_if = simple_if(name="If_in_loop", cond="cond_in", out=("v_next", F, [2]),
                        then_nodes=[h.make_node("Add", ["v", "one"], ["t_out"], name="Add_t")],
                        else_nodes=[h.make_node("Sub", ["v", "one"], ["e_out"], name="Sub_e")])
    body = h.make_graph([h.make_node("Identity", ["cond_in"], ["cond_out"], name="Id_cond"), body_if], "body",
                        [vi("i", I64, []), vi("cond_in", B, []), vi("v", F, [2])],
                        [vi("cond_out", B, []), vi("v_next", F, [2])])
    save("valid/if_in_loop.onnx",
         model([h.make_node("Loop", ["n", "c", "x"], ["v_final"], name="Loop_0", body=body)],
               [vi("c", B, []), vi("x", F, [2]), vi("n", I64, [])], [vi("v_final", F, [2])], opset=13, inits=ONE))
    # A computed condition: ReduceSum (keepdims=0) -> Greater -> bool scalar.
    nodes = [h.make_node("ReduceSum", ["x"], ["s"], name="Sum", keepdims=0),
             h.make_node("Greater", ["s", "zero"], ["cc"], name="Greater"),
             simple_if(cond="cc")]
    save("valid/computed_condition.onnx",
         model(nodes, [vi("x", F, [2])], [vi("y", F, [2])], opset=11,
               inits=ONE + [h.make_tensor("zero", F, [], [0.0])]))
    # External data beside the model, within its directory.
    t = h.make_tensor("one", F, [2], [1.0, 1.0])
    t.ClearField("float_data")
    t.data_location = TP.EXTERNAL
    for k, v in (("location", "external_data.bin"), ("offset", "0"), ("length", "8")):
        e = t.external_data.add()
        e.key, e.value = k, v
    with open(os.path.join(HERE, "valid/external_data.bin"), "wb") as f:
        import struct
        f.write(struct.pack("<2f", 1.0, 1.0))
    save("valid/external_data.onnx", model([simple_if()], STD_INPUTS, [vi("y", F, [2])], opset=13, inits=[t]))


def invalid():
    std = lambda nodes, outs=None, opset=13, inits=ONE, inputs=STD_INPUTS, **kw: model(
        nodes, inputs, outs or [vi("y", F, [2])], opset=opset, inits=inits, **kw)
    good = std([simple_if()]).SerializeToString()
    # ONNX001: truncated, and bytes that are not protobuf at all.
    save("invalid/ONNX001_truncated.onnx", good[: len(good) * 2 // 3], ["ONNX001"])
    save("invalid/ONNX001_not_protobuf.onnx", b"\xff\xff\xff\xff this is not an onnx model\n", ["ONNX001"])
    no_graph = onnx.ModelProto()
    no_graph.ir_version = 8
    no_graph.opset_import.add().version = 13
    save("invalid/ONNX001_no_graph.onnx", no_graph, ["ONNX001"])
    # ONNX002: 33 nested Ifs (stock readers stop at 31).
    save("invalid/ONNX002_nested_33.onnx", nested(33), ["ONNX002"])
    # ONNX003: If forms.
    n = simple_if()
    del n.attribute[attr(n, "else_branch")]
    save("invalid/ONNX003_missing_else.onnx", std([n]), ["ONNX003"])
    n = simple_if()
    n.input.append("x")
    save("invalid/ONNX003_two_inputs.onnx", std([n]), ["ONNX003"])
    n = simple_if()
    n.attribute.append(h.make_attribute("mode", 1))
    save("invalid/ONNX003_unknown_attribute.onnx", std([n]), ["ONNX003"])
    n = simple_if()
    n.attribute[attr(n, "then_branch")].CopyFrom(h.make_attribute("then_branch", 3))
    save("invalid/ONNX003_branch_not_graph.onnx", std([n]), ["ONNX003"])
    # C001 + ONNX003: an If with no input at all.
    n = simple_if()
    del n.input[:]
    save("invalid/C001_no_condition.onnx", std([n]), ["C001", "ONNX003"])
    # ONNX004: a branch with a formal input.
    n = simple_if()
    n.attribute[attr(n, "then_branch")].g.input.append(vi("p", F, [2]))
    save("invalid/ONNX004_branch_inputs.onnx", std([n]), ["ONNX004"])
    # ONNX005: sequence output under opset 11 (If-11 allows tensors only).
    tb = branch("then", [h.make_node("SequenceConstruct", ["x"], ["ts"], name="Seq_t")],
                [h.make_tensor_sequence_value_info("ts", F, [2])])
    eb = branch("else", [h.make_node("SequenceConstruct", ["x"], ["es"], name="Seq_e")],
                [h.make_tensor_sequence_value_info("es", F, [2])])
    n = h.make_node("If", ["c"], ["s"], name="If_seq", then_branch=tb, else_branch=eb)
    save("invalid/ONNX005_sequence_opset11.onnx",
         std([n], [h.make_tensor_sequence_value_info("s", F, [2])], opset=11, inits=[]), ["ONNX005"])
    # ONNX006: If-1 (opset 10) with different branch shapes (also the C011 note).
    n = simple_if(then_out=("t_out", F, [2]), else_out=("e_out", F, [3]),
                  else_nodes=[h.make_node("Concat", ["x", "half"], ["e_out"], name="Concat_e", axis=0)])
    save("invalid/ONNX006_if1_shapes.onnx",
         std([n], [vi("y", F, ["n"])], opset=10, inits=ONE + [h.make_tensor("half", F, [1], [0.5])]),
         ["ONNX006", "C011"])
    # ONNX007: a branch output declared [2] that computes [3].
    n = simple_if(then_nodes=[h.make_node("Concat", ["x", "half"], ["t_out"], name="Concat_t", axis=0)])
    save("invalid/ONNX007_declared_2_computes_3.onnx",
         std([n], inits=ONE + [h.make_tensor("half", F, [1], [0.5])]), ["ONNX007"])
    # ONNX008: a non-broadcastable Add inside a branch.
    n = simple_if(then_nodes=[h.make_node("Add", ["x", "three"], ["t_out"], name="Add_bad")])
    save("invalid/ONNX008_bad_broadcast.onnx",
         std([n], inits=ONE + [h.make_tensor("three", F, [3], [1.0, 2.0, 3.0])]), ["ONNX008"])
    # ONNX009: a branch reads a name defined only after the If.
    n = simple_if(then_nodes=[h.make_node("Add", ["x", "later"], ["t_out"], name="Add_t")])
    nodes = [n, h.make_node("Identity", ["x"], ["later"], name="Id_later")]
    save("invalid/ONNX009_reads_later_name.onnx", std(nodes), ["ONNX009"])
    # ONNX010: two nodes of one branch define the same name.
    n = simple_if(then_nodes=[h.make_node("Add", ["x", "one"], ["t_out"], name="Add_t"),
                              h.make_node("Mul", ["x", "one"], ["t_out"], name="Mul_t")])
    save("invalid/ONNX010_duplicate_name.onnx", std([n]), ["ONNX010"])
    # ONNX011: a branch initializer shadows the outer 'one'.
    n = simple_if()
    n.attribute[attr(n, "then_branch")].g.initializer.append(h.make_tensor("one", F, [2], [5.0, 5.0]))
    save("invalid/ONNX011_initializer_shadows.onnx", std([n]), ["ONNX011"])
    # ONNX011 as a warning: as onnxslim writes it, each branch holds a copy of the outer 'one' under its name, of the
    # same element type, dims and raw bytes.
    one_raw = h.make_tensor("one", F, [2], vals=struct.pack("<2f", 1.0, 1.0), raw=True)
    n = simple_if()
    for b in ("then_branch", "else_branch"):
        n.attribute[attr(n, b)].g.initializer.append(h.make_tensor("one", F, [2], vals=struct.pack("<2f", 1.0, 1.0),
                                                                   raw=True))
    save("invalid/ONNX011_initializer_shadows_equal.onnx", std([n], inits=[one_raw]),
         ["ONNX011@node:main/If_0/then", "ONNX011@node:main/If_0/else"])
    # ONNX012: the else branch returns the outer x itself.
    n = simple_if(else_out=("x", F, [2]), else_nodes=[])
    save("invalid/ONNX012_outer_passthrough.onnx", std([n]), ["ONNX012"])
    # ONNX013: a branch output produced by a custom op, type not declared.
    tb = branch("then", [h.make_node("Mystery", ["x"], ["t_out"], name="Mystery_t", domain="com.example")],
                [untyped("t_out")])
    eb = branch("else", [h.make_node("Neg", ["x"], ["e_out"], name="Neg_e")], [vi("e_out", F, [2])])
    n = h.make_node("If", ["c"], ["y"], name="If_0", then_branch=tb, else_branch=eb)
    save("invalid/ONNX013_custom_op_output.onnx", std([n], extra_opsets=[("com.example", 1)]), ["ONNX013"])
    # ONNX014: external data that leaves the model's directory.
    for rel, loc in (("invalid/ONNX014_external_dotdot.onnx", "../../secret.bin"),
                     ("invalid/ONNX014_external_absolute.onnx", "/etc/passwd")):
        t = h.make_tensor("one", F, [2], [1.0, 1.0])
        t.ClearField("float_data")
        t.data_location = TP.EXTERNAL
        e = t.external_data.add()
        e.key, e.value = "location", loc
        save(rel, std([simple_if()], inits=[t]), ["ONNX014"])
    # ONNX015: external data file missing.
    t = h.make_tensor("one", F, [2], [1.0, 1.0])
    t.ClearField("float_data")
    t.data_location = TP.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = "location", "no_such_weights.bin"
    save("invalid/ONNX015_external_missing.onnx", std([simple_if()], inits=[t]), ["ONNX015"])
    # ONNX016: an opset newer than the newest onnx whose definitions condlint has (ai.onnx opset 99, IR 9); its
    # nodes cannot be judged, so a note names them.
    m99 = std([simple_if()])
    m99.opset_import[0].version = 99
    m99.ir_version = 9
    save("invalid/ONNX016_opset_99.onnx", m99, ["ONNX016"])
    # A shape guard as PyTorch exports it: the then branch Unsqueezes (rank 3), the else branch passes the rank-2
    # input through. The If output is of unknown rank (onnx's union of both branches), so the Unsqueeze and the LSTM
    # downstream are inferred from nothing false: the true note that the branches differ (C011), no ONNX008
    # from an LSTM judged on the union, no ONNX013 after it. Judged per branch, the LSTM fails when 'c' is true (it
    # gets rank 4): C014, as ONNX Runtime confirms.
    tb = branch("then", [h.make_node("Unsqueeze", ["x", "ax0"], ["t_out"], name="Unsqueeze_t")], [vi("t_out", F, [1, "n", 3])])
    eb = branch("else", [h.make_node("Identity", ["x"], ["e_out"], name="Identity_e")], [vi("e_out", F, ["n", 3])])
    guard = h.make_node("If", ["c"], ["y"], name="If_guard", then_branch=tb, else_branch=eb)
    nodes = [guard,
             h.make_node("Unsqueeze", ["y", "ax1"], ["z"], name="Unsqueeze_z"),
             h.make_node("LSTM", ["z", "W", "R"], ["Y", "Y_h"], name="LSTM_0", hidden_size=4)]
    W = h.make_tensor("W", F, [1, 16, 3], [0.1] * 48)
    R = h.make_tensor("R", F, [1, 16, 4], [0.1] * 64)
    ax0 = h.make_tensor("ax0", I64, [1], [0])
    ax1 = h.make_tensor("ax1", I64, [1], [1])
    guard_model = model(nodes, [vi("c", B, []), vi("x", F, ["n", 3])], [vi("Y_h", F, [1, "b", 4])], inits=[W, R, ax0, ax1])
    save("invalid/C011_shape_guard_union.onnx", guard_model, ["C011", "C014@node:main/LSTM_0"])
    # ONNX017: what onnx's checker rejects and no other rule reports: an attribute Neg does not have (inside a
    # branch), and a main-graph output whose tensor type has no shape.
    tb = branch("then", [h.make_node("Neg", ["x"], ["t_out"], name="Neg_t", alpha=0.5)], [vi("t_out", F, [2])])
    eb = branch("else", [h.make_node("Neg", ["x"], ["e_out"], name="Neg_e")], [vi("e_out", F, [2])])
    save("invalid/ONNX017_unknown_attribute.onnx",
         std([h.make_node("If", ["c"], ["y"], name="If_0", then_branch=tb, else_branch=eb)]), ["ONNX017"])
    m = std([simple_if()])
    m.graph.output[0].type.tensor_type.ClearField("shape")
    save("invalid/ONNX017_output_without_shape.onnx", m, ["ONNX017"])
    # ONNX018: an initializer whose raw_data (4 bytes) cannot hold the 1000000 x 1000000 floats its dims declare
    # (onnx's checker passes it; ONNX Runtime refuses the model at load).
    t = h.make_tensor("one", F, [2], [1.0, 1.0])
    t.ClearField("float_data")
    t.ClearField("dims")
    t.dims.extend([1000000, 1000000])
    t.raw_data = b"\x00\x00\x80\x3f"
    save("invalid/ONNX018_raw_data_short.onnx", std([simple_if()], inits=[t]), ["ONNX018"])
    # C012: a PyTorch-style guard that can never fire: the else branch runs only when dim 0 of 'x' is 0, and 'x' is
    # declared [2]. The note names the condition and the fact that decides it.
    guard_cond = [h.make_node("Shape", ["x"], ["x_shape"], name="Shape_x"),
                  h.make_node("Gather", ["x_shape", "zero_i"], ["x_dim0"], name="Gather_dim0", axis=0),
                  h.make_node("Cast", ["x_dim0"], ["nonempty"], name="Cast_bool", to=TP.BOOL)]
    save("invalid/C012_dead_guard.onnx",
         std(guard_cond + [simple_if(cond="nonempty")], inputs=[vi("x", F, [2])],
             inits=ONE + [h.make_tensor("zero_i", I64, [], [0])]), ["C012"])
    # C013: a graph input with 1,025 dims, one past the limit; read as unknown rank, nothing downstream reported.
    save("invalid/C013_rank_past_limit.onnx",
         std([simple_if()], inputs=[vi("c", B, []), vi("x", F, [2]), vi("big", F, [1] * 1025)]), ["C013"])
    # Generic rules on ONNX.
    save("invalid/C002_condition_float.onnx", std([simple_if()], inputs=[vi("c", F, []), vi("x", F, [2])]), ["C002"])
    save("invalid/C003_condition_3_elements.onnx", std([simple_if()], inputs=[vi("c", B, [3]), vi("x", F, [2])]),
         ["C003"])
    save("invalid/C004_condition_dynamic.onnx", std([simple_if()], inputs=[vi("c", B, ["n"]), vi("x", F, [2])]),
         ["C004"])
    tb = branch("then", [h.make_node("Add", ["x", "one"], ["ta"], name="Add_t"),
                         h.make_node("Neg", ["x"], ["tb"], name="Neg_t")], [vi("ta", F, [2]), vi("tb", F, [2])])
    eb = branch("else", [h.make_node("Sub", ["x", "one"], ["ea"], name="Sub_e")], [vi("ea", F, [2])])
    n = h.make_node("If", ["c"], ["y"], name="If_0", then_branch=tb, else_branch=eb)
    save("invalid/C005_branch_output_counts.onnx", std([n]), ["C005"])
    n = simple_if(else_out=("e_out", I64, [1]), else_nodes=[h.make_node("Shape", ["x"], ["e_out"], name="Shape_e")])
    save("invalid/C006_branch_types.onnx", std([n], [vi("y", F, ["n"])]), ["C006", "C007", "C011"])
    save("invalid/C007_declared_output_type.onnx", std([simple_if()], [vi("y", I64, [2])]), ["C007"])
    # The first example: If output declared [2], branches give [2] and [3].
    n = simple_if(else_out=("e_out", F, [3]),
                  else_nodes=[h.make_node("Concat", ["x", "half"], ["e_out"], name="Concat_e", axis=0)])
    save("invalid/C010_declared_shape_unreachable.onnx",
         std([n], inits=ONE + [h.make_tensor("half", F, [1], [0.5])]), ["C010", "C011"])
    c010_both()
    onnx007_loop_declared()


def onnx007_loop_declared():
    # The Loop's final value is declared [7777]; condlint's Loop inference proves [2], onnx's does not: the checker
    # and ONNX Runtime accept the model (ONNX Runtime warns at run time), so ONNX007 warns.
    m = onnx.load(os.path.join(HERE, "valid/if_in_loop.onnx"))
    out = next(o for o in m.graph.output if o.name == "v_final")
    del out.type.tensor_type.shape.dim[:]
    out.type.tensor_type.shape.dim.add().dim_value = 7777
    save("invalid/ONNX007_loop_output_declared.onnx", m, ["ONNX007@node:main/Loop_0"])


def c010_both():
    # Both branches give [3] where [2] is declared: onnx's checker rejects it (an error, not a warning).
    n = simple_if(then_out=("t_out", F, [3]), else_out=("e_out", F, [3]),
                  then_nodes=[h.make_node("Concat", ["x", "half"], ["t_out"], name="Concat_t", axis=0)],
                  else_nodes=[h.make_node("Concat", ["half", "x"], ["e_out"], name="Concat_e", axis=0)])
    save("invalid/C010_both_branches_contradict.onnx",
         model([n], STD_INPUTS, [vi("y", F, [2])], opset=13, inits=ONE + [h.make_tensor("half", F, [1], [0.5])]),
         ["C010@node:main/If_0"])


if __name__ == "__main__":
    valid()
    invalid()
    print("corpus/onnx written", file=sys.stderr)
