#!/usr/bin/env python3
"""Generates the ONNX corpus cases of opsets newer than Debian's onnx 1.12 knows (18, 20, 23), with the newest onnx.

Run with the project's virtual environment (scripts/install-deps.sh creates it):
    tools/venv/bin/python corpus/onnx/gen_modern.py
Each valid case uses operator versions that changed after opset 17 (Split-18 with num_outputs, Reduce*-18 with axes
as an input, Pad-18/19, Resize-19, Gelu-20, RMSNormalization-23) and an If switching between two such subgraphs;
the newest onnx's check_model(full_check=True) must accept it and ONNX Runtime must load it (both checked here, the
script stops otherwise). Each invalid case is one the newest onnx rejects; its .expect pins condlint's finding.
The .onnx files are committed, so the tests need no Python.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F, I64, B = TP.FLOAT, TP.INT64, TP.BOOL
IR_OF_OPSET = {18: 8, 20: 9, 23: 11}  # what onnx.helper.make_model writes for these opsets


def vi(name, elem, shape):
    return h.make_tensor_value_info(name, elem, shape)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def model(nodes, inputs, outputs, opset, inits=()):
    g = h.make_graph(nodes, "main", inputs, outputs, initializer=list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)], producer_name="condlint-corpus")
    m.ir_version = IR_OF_OPSET[opset]
    return m


def if_node(name, cond, then_nodes, then_out, else_nodes, else_out, out):
    tb = h.make_graph(then_nodes, "then", [], [then_out])
    eb = h.make_graph(else_nodes, "else", [], [else_out])
    return h.make_node("If", [cond], [out], name=name, then_branch=tb, else_branch=eb)


def save(rel, m, expect=()):
    path = os.path.join(HERE, rel)
    with open(path, "wb") as f:
        f.write(m.SerializeToString())
    exp = path[: -len(".onnx")] + ".expect"
    if expect:
        with open(exp, "w") as f:
            f.write("\n".join(expect) + "\n")
    elif os.path.exists(exp):
        os.remove(exp)


def accepted(m):
    """None when the newest onnx (full check) and ONNX Runtime accept m, else why not."""
    try:
        onnx.checker.check_model(m, full_check=True)
    except Exception as e:  # noqa: BLE001 - any rejection is the answer
        return "onnx: %s" % str(e).splitlines()[0]
    try:
        import onnxruntime as ort

        ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001
        return "onnxruntime: %s" % str(e).splitlines()[0]
    return None


def split_reduce_pad_18():
    """Opset 18: Split-18 (num_outputs), ReduceMean-18 (axes input), Pad-18 (axes input), an If between Split-18 and
    ReduceSum-18 subgraphs."""
    nodes = [
        h.make_node("Split", ["x"], ["a", "b"], name="Split_chunk", axis=1, num_outputs=2),
        h.make_node("ReduceMean", ["a", "axes1"], ["m"], name="ReduceMean_mean_dim", keepdims=1),
        h.make_node("Pad", ["b", "pads", "", "axes1"], ["p"], name="Pad_axes", mode="constant"),
        if_node("If_switch", "c",
                [h.make_node("Split", ["x"], ["t0", "t1"], name="Split_t", axis=1, num_outputs=2),
                 h.make_node("Add", ["t0", "t1"], ["t_out"], name="Add_t")], vi("t_out", F, [2, 2]),
                [h.make_node("ReduceSum", ["x", "axes1"], ["e_sum"], name="ReduceSum_e", keepdims=1),
                 h.make_node("Expand", ["e_sum", "shape22"], ["e_out"], name="Expand_e")], vi("e_out", F, [2, 2]),
                "y"),
    ]
    return model(nodes, [vi("c", B, []), vi("x", F, [2, 4])],
                 [vi("m", F, [2, 1]), vi("p", F, [2, 4]), vi("y", F, [2, 2])], 18,
                 inits=[ints("axes1", [1]), ints("pads", [1, 1]), ints("shape22", [2, 2])])


def pad_resize_gelu_20():
    """Opset 20: Pad-19 (wrap), Resize-19 (half_pixel_symmetric, antialias), Gelu-20, an If between them."""
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "scales")
    nodes = [
        h.make_node("Gelu", ["x"], ["g"], name="Gelu_0", approximate="tanh"),
        if_node("If_pad_or_resize", "c",
                [h.make_node("Pad", ["g", "pads", "", "axes23"], ["t_out"], name="Pad_wrap", mode="wrap")],
                vi("t_out", F, [1, 1, 4, 4]),
                [h.make_node("Resize", ["g", "", "scales"], ["e_out"], name="Resize_sym", mode="linear",
                             antialias=1, coordinate_transformation_mode="half_pixel_symmetric")],
                vi("e_out", F, [1, 1, 4, 4]), "y"),
    ]
    return model(nodes, [vi("c", B, []), vi("x", F, [1, 1, 2, 2])], [vi("y", F, [1, 1, 4, 4])], 20,
                 inits=[ints("pads", [1, 1, 1, 1]), ints("axes23", [2, 3]), scales])


def if_split_rms_23():
    """Opset 23: If-23 between a Split-18 subgraph and a ReduceMean-18 / RMSNormalization-23 subgraph; the branch
    outputs declare an element type and no shape."""
    scale = numpy_helper.from_array(np.ones([4], dtype=np.float32), "scale")
    nodes = [
        if_node("If_rope", "c",
                [h.make_node("Split", ["x"], ["t0", "t1"], name="Split_t", axis=1, num_outputs=2),
                 h.make_node("Concat", ["t1", "t0"], ["t_out"], name="Concat_t", axis=1)], vi("t_out", F, None),
                [h.make_node("ReduceMean", ["x", "axes1"], ["e_mean"], name="ReduceMean_e", keepdims=1),
                 h.make_node("Sub", ["x", "e_mean"], ["e_centered"], name="Sub_e"),
                 h.make_node("RMSNormalization", ["e_centered", "scale"], ["e_out"], name="RMSNorm_e", axis=-1)],
                vi("e_out", F, None), "y"),
    ]
    return model(nodes, [vi("c", B, []), vi("x", F, [2, 4])], [vi("y", F, [2, 4])], 23,
                 inits=[ints("axes1", [1]), scale])


def reducemean_axes_attribute_18():
    """Opset 18 ReduceMean with its axes as an attribute (ReduceMean-13's form): the newest onnx rejects it."""
    nodes = [h.make_node("ReduceMean", ["x"], ["m"], name="ReduceMean_attr", axes=[1], keepdims=1)]
    return model(nodes, [vi("x", F, [2, 4])], [vi("m", F, [2, 1])], 18)


def split_num_outputs_float_18():
    """Opset 18 Split whose num_outputs is a float: the newest onnx rejects the attribute's type."""
    n = h.make_node("Split", ["x"], ["a", "b"], name="Split_float", axis=1)
    n.attribute.append(h.make_attribute("num_outputs", 2.0))
    return model([n], [vi("x", F, [2, 4])], [vi("a", F, [2, 2]), vi("b", F, [2, 2])], 18)


def reducemean_float_axes_20():
    """Opset 20 ReduceMean whose axes input is float: the newest onnx's strict inference rejects its type."""
    axes = numpy_helper.from_array(np.array([1], dtype=np.float32), "axes_f")
    nodes = [h.make_node("ReduceMean", ["x", "axes_f"], ["m"], name="ReduceMean_float_axes", keepdims=1)]
    return model(nodes, [vi("x", F, [2, 4])], [vi("m", F, [2, 1])], 20, inits=[axes])


def if_reduce_shapes_18():
    """Opset 18: an If whose branches give [2, 6] by ReduceMean-18 and ReduceMax-18 (constant axes, keepdims 0) and by
    Split-18 halves reduced again; the If output declares [2, 6], so a wrong inference of either branch would
    contradict it."""
    nodes = [
        if_node("If_reduce", "c",
                [h.make_node("ReduceMean", ["x", "axes_last"], ["t_out"], name="ReduceMean_t", keepdims=0)],
                vi("t_out", F, None),
                [h.make_node("Split", ["x"], ["e0", "e1"], name="Split_e", axis=2, num_outputs=2),
                 h.make_node("ReduceMax", ["e1", "axes_last"], ["e_out"], name="ReduceMax_e", keepdims=0)],
                vi("e_out", F, None), "y"),
    ]
    return model(nodes, [vi("c", B, []), vi("x", F, [2, 6, 4])], [vi("y", F, [2, 6])], 18,
                 inits=[ints("axes_last", [-1])])


def if_reshape_squeeze_23():
    """Opset 23: an If whose branches give [3, 4] by Reshape-23 (constant shape with 0 and -1) and by Unsqueeze-23 then
    Squeeze-23 (constant axes); the If output declares [3, 4]."""
    nodes = [
        if_node("If_reshape", "c",
                [h.make_node("Reshape", ["x", "shape_0m1"], ["t_out"], name="Reshape_t")], vi("t_out", F, None),
                [h.make_node("Unsqueeze", ["x", "axes_0"], ["e_u"], name="Unsqueeze_e"),
                 h.make_node("Squeeze", ["e_u", "axes_0"], ["e_out"], name="Squeeze_e")], vi("e_out", F, None), "y"),
    ]
    return model(nodes, [vi("c", B, []), vi("x", F, [3, 4])], [vi("y", F, [3, 4])], 23,
                 inits=[ints("shape_0m1", [0, -1]), ints("axes_0", [0])])


def reducemean18_axis_out_of_range():
    """Opset 18 ReduceMean whose constant axes name dimension 2 of a rank-2 input: the newest onnx's inference fails."""
    nodes = [h.make_node("ReduceMean", ["x", "axes2"], ["m"], name="ReduceMean_axis2", keepdims=1)]
    return model(nodes, [vi("x", F, [2, 4])], [vi("m", F, [2, 1])], 18, inits=[ints("axes2", [2])])


def split18_sizes_sum():
    """Opset 18 Split whose constant split sizes add up to 5 on a dimension of 4: the newest onnx's inference fails."""
    nodes = [h.make_node("Split", ["x", "sizes"], ["a", "b"], name="Split_sizes", axis=1)]
    return model(nodes, [vi("x", F, [2, 4])], [vi("a", F, [2, 2]), vi("b", F, [2, 2])], 18,
                 inits=[ints("sizes", [2, 3])])


def pad18_pads_count():
    """Opset 18 Pad with 4 pads for 1 axis: the newest onnx's inference fails."""
    nodes = [h.make_node("Pad", ["x", "pads4", "", "axes1"], ["p"], name="Pad_count")]
    return model(nodes, [vi("x", F, [2, 4])], [vi("p", F, [2, 6])], 18, inits=[ints("pads4", [1, 1, 1, 1]),
                                                                          ints("axes1", [1])])


def squeeze23_not_one():
    """Opset 23 Squeeze of a dimension of 4: the newest onnx's inference fails."""
    nodes = [h.make_node("Squeeze", ["x", "axes1"], ["s"], name="Squeeze_4")]
    return model(nodes, [vi("x", F, [2, 4])], [vi("s", F, [2])], 23, inits=[ints("axes1", [1])])


def reshape23_two_minus_one():
    """Opset 23 Reshape to [-1, -1]: the newest onnx's inference fails."""
    nodes = [h.make_node("Reshape", ["x", "shape_m1m1"], ["r"], name="Reshape_two")]
    return model(nodes, [vi("x", F, [2, 4])], [vi("r", F, [8])], 23, inits=[ints("shape_m1m1", [-1, -1])])
def with_functions(m, functions):
    m.functions.extend(functions)
    m.opset_import.append(h.make_opsetid("local", 1))
    return m


def if_in_function_18():
    """Opset 18, the If inside a model-local function (as torch dynamo and onnxscript export control flow): main
    calls local.gate twice (with alpha 0.1 both times); gate's If switches between a call of local.double and a
    LeakyRelu whose alpha is the function's attribute. The calls' outputs are typed through the bodies."""
    double = h.make_function(
        "local", "double", ["t"], ["d"],
        [h.make_node("Add", ["t", "t"], ["d"], name="Add_double")],
        opset_imports=[h.make_opsetid("", 18)])
    leaky = h.make_node("LeakyRelu", ["x"], ["l"], name="LeakyRelu_alpha")
    leaky.attribute.append(h.make_attribute_ref("alpha", onnx.AttributeProto.FLOAT))
    gate_nodes = [
        h.make_node("ReduceSum", ["x"], ["s"], name="ReduceSum_all", keepdims=0),
        h.make_node("Constant", [], ["zero"], name="Constant_zero", value=numpy_helper.from_array(
            np.array(0.0, dtype=np.float32), "zero_value")),
        h.make_node("Greater", ["s", "zero"], ["c"], name="Greater_positive"),
        if_node("If_in_gate", "c", [h.make_node("double", ["x"], ["dx"], name="Call_double", domain="local")],
                onnx.ValueInfoProto(name="dx"), [leaky], onnx.ValueInfoProto(name="l"), "y"),
    ]
    gate = h.make_function("local", "gate", ["x"], ["y"], gate_nodes,
                           opset_imports=[h.make_opsetid("", 18), h.make_opsetid("local", 1)],
                           attributes=["alpha"])
    nodes = [
        h.make_node("gate", ["a"], ["ga"], name="Call_gate_a", domain="local", alpha=0.1),
        h.make_node("gate", ["b"], ["gb"], name="Call_gate_b", domain="local", alpha=0.1),
        h.make_node("Add", ["ga", "gb"], ["out"], name="Add_out"),
    ]
    m = model(nodes, [vi("a", F, [2, 4]), vi("b", F, [2, 4])], [vi("out", F, [2, 4])], 18)
    return with_functions(m, [gate, double])


def if_in_function_branch_types_18():
    """Opset 18, an If inside a model-local function whose branches give float and int64 (C006, located in the
    function's body: function:local.pick/If_in_pick)."""
    pick_nodes = [
        h.make_node("ReduceSum", ["x"], ["s"], name="ReduceSum_all", keepdims=0),
        h.make_node("Constant", [], ["zero"], name="Constant_zero", value=numpy_helper.from_array(
            np.array(0.0, dtype=np.float32), "zero_value")),
        h.make_node("Greater", ["s", "zero"], ["c"], name="Greater_positive"),
        if_node("If_in_pick", "c", [h.make_node("Identity", ["x"], ["t"], name="Identity_float")],
                onnx.ValueInfoProto(name="t"),
                [h.make_node("Cast", ["x"], ["e"], name="Cast_int64", to=I64)],
                onnx.ValueInfoProto(name="e"), "y"),
    ]
    pick = h.make_function("local", "pick", ["x"], ["y"], pick_nodes, opset_imports=[h.make_opsetid("", 18)])
    nodes = [h.make_node("pick", ["a"], ["out"], name="Call_pick", domain="local")]
    m = model(nodes, [vi("a", F, [2, 4])], [vi("out", F, [2, 4])], 18)
    return with_functions(m, [pick])


def main():
    valid = {
        "valid/opset18_split_reduce_pad.onnx": split_reduce_pad_18(),
        "valid/opset20_pad_resize_gelu.onnx": pad_resize_gelu_20(),
        "valid/opset23_if_split_rmsnorm.onnx": if_split_rms_23(),
        "valid/opset18_if_reduce_shapes.onnx": if_reduce_shapes_18(),
        "valid/opset23_if_reshape_squeeze.onnx": if_reshape_squeeze_23(),
        "valid/opset18_if_in_function.onnx": if_in_function_18(),
    }
    invalid = {
        "invalid/ONNX017_reducemean18_axes_attribute.onnx":
            (reducemean_axes_attribute_18(), ["ONNX017@node:main/ReduceMean_attr"]),
        "invalid/ONNX017_split18_num_outputs_float.onnx":
            (split_num_outputs_float_18(), ["ONNX017@node:main/Split_float"]),
        "invalid/ONNX008_reducemean20_float_axes.onnx":
            (reducemean_float_axes_20(), ["ONNX008@node:main/ReduceMean_float_axes"]),
        "invalid/ONNX008_reducemean18_axis_out_of_range.onnx":
            (reducemean18_axis_out_of_range(), ["ONNX008@node:main/ReduceMean_axis2"]),
        "invalid/ONNX008_split18_sizes_sum.onnx": (split18_sizes_sum(), ["ONNX008@node:main/Split_sizes"]),
        "invalid/ONNX008_pad18_pads_count.onnx": (pad18_pads_count(), ["ONNX008@node:main/Pad_count"]),
        "invalid/ONNX008_squeeze23_not_one.onnx": (squeeze23_not_one(), ["ONNX008@node:main/Squeeze_4"]),
        "invalid/ONNX008_reshape23_two_minus_one.onnx":
            (reshape23_two_minus_one(), ["ONNX008@node:main/Reshape_two"]),
        "invalid/C006_if_in_function.onnx": (if_in_function_branch_types_18(), ["C006@node:function:local.pick/If_in_pick"]),
    }
    bad = False
    for rel, m in valid.items():
        why = accepted(m)
        if why:
            print("gen_modern: %s is not accepted: %s" % (rel, why), file=sys.stderr)
            bad = True
        save(rel, m)
    for rel, (m, expect) in invalid.items():
        try:
            onnx.checker.check_model(m, full_check=True)
            print("gen_modern: %s is accepted by onnx %s" % (rel, onnx.__version__), file=sys.stderr)
            bad = True
        except Exception:  # noqa: BLE001 - rejected, as it must be
            pass
        save(rel, m, expect)
    if bad:
        sys.exit(1)
    print("gen_modern: %d valid, %d invalid cases written (onnx %s)" % (len(valid), len(invalid), onnx.__version__))


if __name__ == "__main__":
    main()
