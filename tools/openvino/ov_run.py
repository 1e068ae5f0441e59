#!/usr/bin/env python3
"""condlint diff's OpenVINO runtime: the directory protocol of docs/diff.md (`ov_run.py MODEL INPUTS OUTPUTS
[--pin PATH=0|1 ...]`). Reads MODEL with openvino.Core().read_model (ONNX, or an IR .xml with its .bin), pins the
condition of each If named by --pin (its node path, main/if/then/inner, as condlint names it) to a constant,
compiles it for CPU, feeds INPUTS/input_K.pb (onnx TensorProto, by graph order) and writes OUTPUTS/output_K.pb.
Exit 0 on success; a model OpenVINO refuses, or an output it cannot give, is exit 1 with the reason on stderr.

`ov_run.py --batch JOBS.tsv` runs many jobs in one process (condlint diff uses it to pay OpenVINO's start-up
once): one job a line, MODEL<TAB>INPUTS_DIR<TAB>OUTPUTS_DIR[<TAB>PATH=0|1...]. Per job, OUTPUTS_DIR gets the
outputs and an empty file `done`, or error.txt with the reason; the batch goes on after a failed job. A model is
compiled once for each set of pins."""
import os
import sys


def segment(name):
    """A node name as one segment of a condlint path: '~' written ~0 and '/' written ~1 (model/node_path.hpp)."""
    return name.replace("~", "~0").replace("/", "~1")


def if_paths(graph, prefix, out):
    """Every If of `graph` and of the bodies below it, by its condlint path (main/NAME/then/NAME, a Loop's or
    TensorIterator's body as body), into `out`."""
    for op in graph.get_ops():
        kind = op.get_type_name()
        path = prefix + "/" + segment(op.get_friendly_name())
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


class Refusal(Exception):
    """A model OpenVINO refuses or cannot run: its words, for stderr or error.txt."""


def compile_model(core, model_path, pins, np, ov):
    try:
        model = core.read_model(model_path)
        pin(model, pins, np, ov)
        model.validate_nodes_and_infer_types()
        # f32: on a CPU with bf16 or f16 units the plugin would otherwise infer in that precision (a 1e-2 "divergence"
        # of its own); condlint compares the model's arithmetic, so every run is asked for f32.
        return core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    except Exception as e:  # a refusal: OpenVINO's words, not a traceback
        raise Refusal(f"OpenVINO refuses the model: {e}")


def run_job(compiled, in_dir, out_dir, np, TensorProto, numpy_helper):
    feeds = {}
    k = 0
    while os.path.exists(os.path.join(in_dir, f"input_{k}.pb")):
        t = TensorProto()
        with open(os.path.join(in_dir, f"input_{k}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        feeds[k] = np.array(numpy_helper.to_array(t))  # a writable copy: OpenVINO shares the memory it is given
        k += 1
    if k != len(compiled.inputs):
        raise Refusal(f"the model has {len(compiled.inputs)} inputs, the data {k}")
    try:
        result = compiled(feeds)
    except Exception as e:
        raise Refusal(f"OpenVINO fails to run the model: {e}")
    os.makedirs(out_dir, exist_ok=True)
    for j, port in enumerate(compiled.outputs):
        value = np.asarray(result[port])
        name = port.get_any_name() if port.get_names() else f"output_{j}"
        with open(os.path.join(out_dir, f"output_{j}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, name).SerializeToString())


def parse_pins(items):
    pins = []
    for item in items:
        path, value = item.rsplit("=", 1)
        pins.append((path, value in ("1", "true")))
    return pins


def main(argv):
    batch = len(argv) == 3 and argv[1] == "--batch"
    pins = []
    args = []
    k = 1
    while not batch and k < len(argv):
        if argv[k] == "--pin" and k + 1 < len(argv) and "=" in argv[k + 1]:
            pins += parse_pins([argv[k + 1]])
            k += 2
        else:
            args.append(argv[k])
            k += 1
    if not batch and len(args) != 3:
        print("usage: ov_run.py MODEL INPUTS_DIR OUTPUTS_DIR [--pin PATH=0|1 ...] | ov_run.py --batch JOBS.tsv",
              file=sys.stderr)
        return 2
    try:
        import numpy as np
        import openvino as ov
        from onnx import TensorProto, numpy_helper
    except ImportError as e:
        print(f"ov_run: openvino, onnx or numpy is not installed (scripts/install-deps.sh installs them into "
              f"tools/venv): {e}", file=sys.stderr)
        return 2
    core = ov.Core()
    if not batch:
        try:
            compiled = compile_model(core, args[0], pins, np, ov)
            run_job(compiled, args[1], args[2], np, TensorProto, numpy_helper)
        except Refusal as e:
            print(f"ov_run: {e}", file=sys.stderr)
            return 1
        return 0
    with open(argv[2], encoding="utf-8", errors="surrogateescape") as f:
        jobs = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    cached_key, cached = None, None
    for job in jobs:
        out_dir = job[2] if len(job) > 2 else ""
        try:
            if len(job) < 3:
                raise Refusal("a job line needs MODEL, INPUTS_DIR and OUTPUTS_DIR")
            os.makedirs(out_dir, exist_ok=True)
            key = (job[0], tuple(job[3:]))
            if key != cached_key:
                cached_key, cached = None, None
                cached = compile_model(core, job[0], parse_pins(job[3:]), np, ov)
                cached_key = key
            run_job(cached, job[1], out_dir, np, TensorProto, numpy_helper)
            open(os.path.join(out_dir, "done"), "w").close()
        except Exception as e:  # the batch goes on: each job's failure is its own
            if out_dir:
                with open(os.path.join(out_dir, "error.txt"), "w", encoding="utf-8") as f:
                    f.write(f"{e}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
