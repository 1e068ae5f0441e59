#!/usr/bin/env python3
"""condlint diff's OpenVINO runtime: the directory protocol of docs/diff.md (`ov_run.py MODEL INPUTS OUTPUTS
[--pin PATH=0|1 ...]`). Reads MODEL with openvino.Core().read_model (ONNX, or an IR .xml with its .bin), pins the
condition of each If named by --pin (its node path, main/if/then/inner, as condlint names it) to a constant,
compiles it for CPU, feeds INPUTS/input_K.pb (onnx TensorProto, by graph order) and writes OUTPUTS/output_K.pb.
Exit 0 on success; a model OpenVINO refuses, or an output it cannot give, is exit 1 with the reason on stderr."""
import os
import sys


def if_paths(graph, prefix, out):
    """Every If of `graph` and of the bodies below it, by its condlint path (main/NAME/then/NAME, a Loop's or
    TensorIterator's body as body), into `out`."""
    for op in graph.get_ops():
        kind = op.get_type_name()
        path = prefix + "/" + op.get_friendly_name()
        if kind == "If":
            out.setdefault(path, op)
            for k, role in ((0, "then"), (1, "else")):
                if_paths(op.get_function(k), path + "/" + role, out)
        elif kind in ("Loop", "TensorIterator"):
            if_paths(op.get_function(), path + "/body", out)


def pin(model, pins, np, ov):
    """Replaces the condition of each If named in `pins` (path -> branch) by that constant."""
    ifs = {}
    if_paths(model, "main", ifs)
    for path, value in pins:
        op = ifs.get(path)
        if op is None:
            raise ValueError(f"--pin {path}: no If has this path")
        shape = op.input(0).get_partial_shape()
        dims = [d.get_length() for d in shape] if shape.is_static else []
        const = ov.opset8.constant(np.full(dims, value, dtype=bool))
        op.input(0).replace_source_output(const.output(0))


def main(argv):
    pins = []
    args = []
    k = 1
    while k < len(argv):
        if argv[k] == "--pin" and k + 1 < len(argv) and "=" in argv[k + 1]:
            path, value = argv[k + 1].rsplit("=", 1)
            pins.append((path, value in ("1", "true")))
            k += 2
        else:
            args.append(argv[k])
            k += 1
    if len(args) != 3:
        print("usage: ov_run.py MODEL INPUTS_DIR OUTPUTS_DIR [--pin PATH=0|1 ...]", file=sys.stderr)
        return 2
    model_path, in_dir, out_dir = args
    try:
        import numpy as np
        import openvino as ov
        from onnx import TensorProto, numpy_helper
    except ImportError as e:
        print(f"ov_run: openvino, onnx or numpy is not installed (scripts/install-deps.sh installs them into "
              f"tools/venv): {e}", file=sys.stderr)
        return 2
    core = ov.Core()
    try:
        model = core.read_model(model_path)
        pin(model, pins, np, ov)
        model.validate_nodes_and_infer_types()
        compiled = core.compile_model(model, "CPU")
    except Exception as e:  # a refusal: OpenVINO's words, not a traceback
        print(f"ov_run: OpenVINO refuses the model: {e}", file=sys.stderr)
        return 1
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
    try:
        result = compiled(feeds)
    except Exception as e:
        print(f"ov_run: OpenVINO fails to run the model: {e}", file=sys.stderr)
        return 1
    for j, port in enumerate(compiled.outputs):
        value = np.asarray(result[port])
        name = port.get_any_name() if port.get_names() else f"output_{j}"
        with open(os.path.join(out_dir, f"output_{j}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, name).SerializeToString())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
