#!/usr/bin/python3
"""A `cmd:` runtime for condlint diff's tests: runs the model with `condlint run` (the reference executor)
and then perturbs one output, to check that diff catches it and names the branch.

usage: diff_runtime_perturb.py --condlint BIN [--output K] [--delta D] [--when always|never|then|else|PATH=then|else]
                               [--fail] [--unsupported K] MODEL INPUT_DIR OUTPUT_DIR

--when else: perturb only when some If of the model was pinned to its else branch (pinned variants carry
Constant nodes named condlint_pin_N_true / condlint_pin_N_false, docs/diff.md). --fail: exit 3 without outputs.
--unsupported K: write output_K.unsupported instead of output_K.pb."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

p = argparse.ArgumentParser()
p.add_argument("--condlint", required=True)
p.add_argument("--output", type=int, default=0)
p.add_argument("--delta", type=float, default=1.0)
p.add_argument("--when", default="always")
p.add_argument("--fail", action="store_true")
p.add_argument("--unsupported", type=int, default=-1)
p.add_argument("model")
p.add_argument("inputs")
p.add_argument("outputs")
a = p.parse_args()

if a.fail:
    print("perturb runtime: asked to fail", file=sys.stderr)
    sys.exit(3)

model = onnx.load(a.model)


def pinned_values(g, out):
    for n in g.node:
        if n.op_type == "Constant" and n.name.startswith("condlint_pin_"):
            out.add(n.name.rsplit("_", 1)[1])
        for at in n.attribute:
            if at.type == onnx.AttributeProto.GRAPH:
                pinned_values(at.g, out)
    return out


pins = pinned_values(model.graph, set())
perturb = a.when == "always" or (a.when == "then" and "true" in pins) or (a.when == "else" and "false" in pins)

with tempfile.TemporaryDirectory() as tmp:
    ds = os.path.join(tmp, "test_data_set_0")
    shutil.copytree(a.inputs, ds)
    save = os.path.join(tmp, "save")
    r = subprocess.run([a.condlint, "run", a.model, "--data", ds, "--branches", "taken", "--save", save],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        print("condlint run failed: " + r.stderr, file=sys.stderr)
        sys.exit(1)
    os.makedirs(a.outputs, exist_ok=True)
    src = os.path.join(save, "test_data_set_0")
    for f in sorted(os.listdir(src)):
        if not f.startswith("output_"):
            continue
        k = int(f[len("output_"):-len(".pb")])
        if k == a.unsupported:
            with open(os.path.join(a.outputs, "output_%d.unsupported" % k), "w") as u:
                u.write("this test runtime cannot return output %d\n" % k)
            continue
        t = onnx.TensorProto()
        with open(os.path.join(src, f), "rb") as fh:
            t.ParseFromString(fh.read())
        if perturb and k == a.output:
            arr = numpy_helper.to_array(t).copy()
            arr.flat[arr.size - 1] += a.delta
            t = numpy_helper.from_array(arr, t.name)
        with open(os.path.join(a.outputs, f), "wb") as fh:
            fh.write(t.SerializeToString())
