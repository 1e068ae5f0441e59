#!/usr/bin/env python3
"""condlint lint --target onnxruntime's load check with ONNX Runtime from PyPI, where Node's onnxruntime-node is not
installed: `ort_check.py LIST RESULTS`, the protocol of `ort_run.js --check`. LIST is a JSON array of model paths (no
file name can break it); for
each model a session is created with graph optimizations off, then on, and one JSON line is appended to RESULTS:
{"i": INDEX, "ok": true} or {"i": INDEX, "ok": false, "stage": ..., "error": ...}. The first line is
{"version": ...}. Exit 0 when the list was read, 2 when onnxruntime is not installed."""
import json
import sys


def main(argv):
    if len(argv) != 3:
        print("usage: ort_check.py LIST RESULTS", file=sys.stderr)
        return 2
    try:
        import onnxruntime as ort
    except ImportError as e:
        print(f"ort_check: onnxruntime is not installed (scripts/install-deps.sh installs it into tools/venv): {e}",
              file=sys.stderr)
        return 2
    ort.set_default_logger_severity(4)
    with open(argv[1], encoding="utf-8") as f:
        models = json.load(f)
    if not isinstance(models, list) or not all(isinstance(m, str) for m in models):
        print("LIST is not a JSON array of strings", file=sys.stderr)
        return 2
    levels = [("optimizations off", ort.GraphOptimizationLevel.ORT_DISABLE_ALL),
              ("optimizations on", ort.GraphOptimizationLevel.ORT_ENABLE_ALL)]
    with open(argv[2], "a", encoding="utf-8") as out:
        out.write(json.dumps({"version": ort.__version__}) + "\n")
        out.flush()
        for i, path in enumerate(models):
            result = {"i": i, "ok": True}
            for stage, level in levels:
                options = ort.SessionOptions()
                options.graph_optimization_level = level
                try:
                    ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
                except Exception as e:  # each exception is the runtime's refusal
                    result = {"i": i, "ok": False, "stage": stage, "error": str(e)[:16384]}
                    break
            out.write(json.dumps(result) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
