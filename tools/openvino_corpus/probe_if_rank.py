#!/usr/bin/env python3
"""The probe behind rule IR021: which If outputs OpenVINO's CPU plugin compiles. Builds, with OpenVINO's Python API,
one If per pair of branch shapes (each branch reshapes the f32[2] input), and for each prints the If output's shape
as OpenVINO infers it and whether compile_model(..., "CPU") accepts it and the model runs.

    tools/venv/bin/python tools/openvino_corpus/probe_if_rank.py

Measured with OpenVINO 2026.4.1 on x86-64 (AMD EPYC): [2]|[1,2] and [2]|[1,1,2] give a dynamic rank ([...]) and
are refused ("CPU plug-in doesn't support If operation with dynamic rank", src/plugins/intel_cpu/src/node.cpp);
[2]|[2] gives [2], [1,2]|[2,1] gives [1..2,1..2], a scalar and [2] give [?]: all compiled and run.
"""
import numpy as np
import openvino as ov
from openvino import opset8 as ops

PAIRS = [([2], [2]), ([1, 2], [2, 1]), ([2], [1, 2]), ([2], [1, 1, 2]), ([], [2])]


def branch(shape):
    p = ops.parameter([2], ov.Type.f32)
    if shape == []:
        out = ops.reduce_sum(p, ops.constant(np.array([0], dtype=np.int64)), False)
    else:
        out = ops.reshape(p, ops.constant(np.array(shape, dtype=np.int64)), False)
    r = ops.result(out)
    return ov.Model([r], [p]), p, r


def model(then_shape, else_shape):
    cond = ops.parameter([], ov.Type.boolean, name="cond")
    x = ops.parameter([2], ov.Type.f32, name="x")
    node = ops.if_op(cond)
    tb, tp, tr = branch(then_shape)
    eb, ep, er = branch(else_shape)
    node.set_then_body(tb)
    node.set_else_body(eb)
    node.set_input(x.output(0), tp, ep)
    out = node.set_output(tr, er)
    return ov.Model([ops.result(out)], [cond, x])


def main():
    core = ov.Core()
    print("openvino", ov.__version__)
    for t, e in PAIRS:
        m = model(t, e)
        verdict = "compiled and ran"
        try:
            compiled = core.compile_model(m, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
            compiled([np.array(True), np.ones(2, np.float32)])
        except Exception as ex:  # OpenVINO raises RuntimeError subclasses
            verdict = "refused: " + [l for l in str(ex).splitlines() if "CPU plug-in" in l or "Unexpected" in l][:1][0] \
                if "CPU plug-in" in str(ex) else "refused: " + str(ex).splitlines()[0]
        print(f"then {t} else {e}: If output {m.outputs[0].get_partial_shape()}: {verdict}")


if __name__ == "__main__":
    main()
