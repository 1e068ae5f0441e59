#!/usr/bin/env python3
"""Measures which ai.onnx opsets and IR versions an installed onnxruntime loads: one Identity model per opset (at
IR 8) and per IR version (at opset 13); prints each verdict. data/targets.json's onnxruntime rows are its results,
one PyPI wheel per release (python -m venv DIR; DIR/bin/pip install onnxruntime==X; DIR/bin/python this-script).
Needs onnx to write the probes (any python with onnx: pass --write DIR first)."""
import os
import sys

OPSETS = range(14, 33)
IR_VERSIONS = range(7, 16)


def write(d):
    from onnx import TensorProto as T
    from onnx import helper as h
    for name, opset, ir in [(f"opset{o}", o, 8) for o in OPSETS] + [(f"ir{i}", 13, i) for i in IR_VERSIONS]:
        g = h.make_graph([h.make_node("Identity", ["x"], ["y"])], "g", [h.make_tensor_value_info("x", T.FLOAT, [2])],
                         [h.make_tensor_value_info("y", T.FLOAT, [2])])
        m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
        m.ir_version = ir
        with open(os.path.join(d, name + ".onnx"), "wb") as f:
            f.write(m.SerializeToString())


def probe(d):
    import onnxruntime as ort
    print("onnxruntime", ort.__version__)
    for name in [f"opset{o}" for o in OPSETS] + [f"ir{i}" for i in IR_VERSIONS]:
        try:
            ort.InferenceSession(os.path.join(d, name + ".onnx"), providers=["CPUExecutionProvider"])
            print(name, "loads")
        except Exception as e:  # the refusal's first line says which check refused
            print(name, "refused:", str(e).splitlines()[0][:200])


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--write":
        write(sys.argv[2])
    elif len(sys.argv) == 2:
        probe(sys.argv[1])
    else:
        sys.exit("usage: probe_onnxruntime.py --write DIR | probe_onnxruntime.py DIR")
