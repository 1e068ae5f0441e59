#!/usr/bin/env python3
"""condlint diff's OpenVINO runtime: the directory protocol of docs/diff.md (`ov_run.py MODEL INPUTS OUTPUTS`).
Reads MODEL with openvino.Core().read_model (ONNX, or an IR .xml with its .bin), compiles it for CPU, feeds
INPUTS/input_K.pb (onnx TensorProto, by graph order) and writes OUTPUTS/output_K.pb. Exit 0 on success; a model
OpenVINO refuses, or an output it cannot give, is exit 1 with the reason on stderr."""
import os
import sys


def main(argv):
    if len(argv) != 4:
        print("usage: ov_run.py MODEL INPUTS_DIR OUTPUTS_DIR", file=sys.stderr)
        return 2
    model_path, in_dir, out_dir = argv[1:]
    try:
        import numpy as np
        import openvino as ov
        from onnx import TensorProto, numpy_helper
    except ImportError as e:
        print(f"ov_run: openvino, onnx or numpy is not installed (scripts/install-deps.sh installs them into "
              f"tools/venv): {e}", file=sys.stderr)
        return 2
    core = ov.Core()
    model = core.read_model(model_path)
    compiled = core.compile_model(model, "CPU")
    feeds = {}
    k = 0
    while os.path.exists(os.path.join(in_dir, f"input_{k}.pb")):
        t = TensorProto()
        with open(os.path.join(in_dir, f"input_{k}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        feeds[k] = np.array(numpy_helper.to_array(t))  # a writable copy: OpenVINO shares the memory it is given
        k += 1
    if k != len(compiled.inputs):
        print(f"ov_run: the model has {len(compiled.inputs)} inputs, the data {k}", file=sys.stderr)
        return 1
    result = compiled(feeds)
    for j, port in enumerate(compiled.outputs):
        value = np.asarray(result[port])
        name = port.get_any_name() if port.get_names() else f"output_{j}"
        with open(os.path.join(out_dir, f"output_{j}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, name).SerializeToString())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
