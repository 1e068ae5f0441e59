#!/usr/bin/env python3
"""condlint lint --target openvino's load check: `ov_check.py LIST RESULTS`. LIST is a JSON array of model paths (no
file name can break it) (an
IR .xml with its .bin, or ONNX). For each model, openvino.Core().read_model and compile_model on CPU; one JSON line
is appended to RESULTS per model: {"i": INDEX, "ok": true} or {"i": INDEX, "ok": false, "stage": ..., "error": ...}.
The first line is {"version": ...}. Lines are written as each model finishes, so the caller knows which model a
crash or a hang stopped at. Exit 0 when the list was read, 2 when openvino is not installed."""
import json
import sys


def main(argv):
    if len(argv) != 3:
        print("usage: ov_check.py LIST RESULTS", file=sys.stderr)
        return 2
    try:
        import openvino as ov
    except ImportError as e:
        print(f"ov_check: openvino is not installed (scripts/install-deps.sh installs it into tools/venv): {e}",
              file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        models = json.load(f)
    if not isinstance(models, list) or not all(isinstance(m, str) for m in models):
        print("LIST is not a JSON array of strings", file=sys.stderr)
        return 2
    core = ov.Core()
    with open(argv[2], "a", encoding="utf-8") as out:
        out.write(json.dumps({"version": ov.get_version()}) + "\n")
        out.flush()
        for i, path in enumerate(models):
            result = {"i": i, "ok": True}
            stage = "read_model"
            try:
                model = core.read_model(path)
                stage = "compile_model on CPU"
                core.compile_model(model, "CPU")
            except Exception as e:  # OpenVINO raises RuntimeError and its own types; each is a refusal
                result = {"i": i, "ok": False, "stage": stage, "error": str(e)[:16384]}
            out.write(json.dumps(result) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
