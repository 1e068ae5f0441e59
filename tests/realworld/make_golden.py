#!/usr/bin/python3
"""Makes golden data for a real-world model from ONNX Runtime: random inputs of the shapes and values that
tests/realworld/soundness.json gives the model, ONNX Runtime's outputs on them (tools/ort/ort_run.js).

  /usr/bin/python3 tests/realworld/make_golden.py MODEL.onnx OUT_DIR [--sets N] [--seed S]

OUT_DIR gets a copy of the model and OUT_DIR/test_data_set_K/{input,output}_J.pb, the layout `condlint run` and
`condlint lint --exec` read. Nothing is written beside MODEL. Exit 0 on success, 1 when ONNX Runtime fails, 2 on
usage errors, 77 when python3-onnx or the adapter is missing (a test that needs this data then skips).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
except ImportError:
    print("make_golden: skipped: Debian's python3-onnx is not installed")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_RUN = os.path.join(HERE, "..", "..", "tools", "ort", "ort_run.js")
NP = {onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.FLOAT16: np.float16, onnx.TensorProto.DOUBLE: np.float64,
      onnx.TensorProto.INT64: np.int64, onnx.TensorProto.INT32: np.int32, onnx.TensorProto.BOOL: np.bool_,
      onnx.TensorProto.UINT8: np.uint8, onnx.TensorProto.INT8: np.int8}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("out")
    ap.add_argument("--sets", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if not os.path.isfile(ORT_RUN) or shutil.which("node") is None:
        print("make_golden: skipped: node or tools/ort is missing (scripts/install-deps.sh installs them)")
        return 77
    with open(os.path.join(HERE, "soundness.json")) as f:
        cfg = json.load(f).get(os.path.basename(a.model), {})
    model = onnx.load(a.model, load_external_data=False)
    inits = {t.name for t in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in inits]
    os.makedirs(a.out, exist_ok=True)
    dst = os.path.join(a.out, os.path.basename(a.model))
    shutil.copyfile(a.model, dst)
    rng = np.random.default_rng(a.seed)
    # --sets data sets of the model's usual inputs, then one for each alternative the config lists ("also": other
    # shapes and values, e.g. the 8 kHz chunk of a VAD model), so that the data itself takes both branches.
    configs = [cfg] * a.sets + [dict(cfg, **alt) for alt in cfg.get("also", [])]
    for k, cfg in enumerate(configs):
        d = os.path.join(a.out, "test_data_set_%d" % k)
        os.makedirs(d, exist_ok=True)
        for j, vi in enumerate(inputs):
            tt = vi.type.tensor_type
            shape = cfg.get("input_shapes", {}).get(vi.name)
            if shape is None:
                shape = [dim.dim_value if dim.dim_value > 0 else 1 for dim in tt.shape.dim]
            dtype = NP.get(tt.elem_type)
            if dtype is None:
                print("make_golden: input %s has an element type this script does not make" % vi.name)
                return 2
            if vi.name in cfg.get("values", {}):
                arr = np.full(shape, cfg["values"][vi.name], dtype=dtype)
            elif np.issubdtype(dtype, np.floating):
                arr = (rng.standard_normal(shape) * 0.5).astype(dtype)
            elif dtype == np.bool_:
                arr = rng.integers(0, 2, shape).astype(np.bool_)
            else:
                arr = rng.integers(0, 3, shape).astype(dtype)
            with open(os.path.join(d, "input_%d.pb" % j), "wb") as f:
                f.write(numpy_helper.from_array(arr, vi.name).SerializeToString())
        r = subprocess.run(["node", ORT_RUN, dst, d, d], capture_output=True, text=True)
        if r.returncode != 0:
            print("make_golden: ONNX Runtime failed on %s: %s" % (d, r.stderr.strip()[:300]))
            return 1
    print("make_golden: %d data sets for %s in %s" % (len(configs), os.path.basename(a.model), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
