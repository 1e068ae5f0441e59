#!/usr/bin/env python3
"""Each warning class of "a declaration the model contradicts" is checked against the runtimes.

condlint reports a contradicted declaration (C010 for ONNX where one branch contradicts it, ONNX007 where only
condlint's deeper inference proves it, ONNX006 for If-1) as a WARNING because the newest onnx's checker accepts the
model and ONNX Runtime runs it (docs/precision.md, "Severity by evidence"). This test holds condlint to that: for
every model given, condlint must report at least one such warning and no error, the newest onnx's
check_model(full_check=True) must accept it, and ONNX Runtime must load it and run every combination of its
boolean inputs (both branches of every If) without failing. ONNX Runtime's own report of the contradiction at run
time (VerifyOutputSizes) is printed where it gives one.

Run with the project's venv (scripts/install-deps.sh: tools/venv, the newest onnx and onnxruntime):
  tools/venv/bin/python tests/realworld/warnings_vs_ort.py --condlint build/condlint MODEL.onnx...
Exit 0 all hold, 1 one does not, 77 skipped (no onnx/onnxruntime). Last line: `warnings_vs_ort: N passed, M failed`.
"""
import argparse
import itertools
import json
import subprocess
import sys

WARNING_RULES = {"C010", "ONNX006", "ONNX007"}


def run_all_branches(path):
    """Child process: runs the model on every combination of its boolean inputs; prints JSON of the outcomes."""
    import numpy as np
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 1  # warnings: ONNX Runtime's VerifyOutputSizes report
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    inputs = sess.get_inputs()
    bools = [i for i in inputs if i.type == "tensor(bool)"]
    outcomes = []
    for values in itertools.product([True, False], repeat=len(bools)):
        feed = {}
        for i in inputs:
            shape = [d if isinstance(d, int) else 1 for d in i.shape]
            if i.type == "tensor(bool)":
                feed[i.name] = np.array(values[bools.index(i)], dtype=bool).reshape(shape)
            elif i.type in ("tensor(int64)", "tensor(int32)"):
                feed[i.name] = np.full(shape, 2, dtype=np.int64 if i.type.endswith("int64)") else np.int32)
            else:
                feed[i.name] = np.ones(shape, dtype=np.float32)
        try:
            sess.run(None, feed)
            outcomes.append({"bools": list(values), "ok": True})
        except Exception as e:  # a failure under some branch: not a warning's model
            outcomes.append({"bools": list(values), "ok": False, "error": str(e)[:300]})
    print(json.dumps(outcomes))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--_run":
        run_all_branches(sys.argv[2])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--condlint", required=True)
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    try:
        import onnx
        import onnxruntime  # noqa: F401
    except ImportError:
        print("warnings_vs_ort: skipped: the newest onnx and onnxruntime are not installed (tools/venv)")
        return 77
    passed = failed = 0
    for m in a.models:
        problems = []
        report = json.loads(subprocess.run([a.condlint, "lint", "--format", "json", "--fail-on", "never", m],
                                           capture_output=True, text=True).stdout)
        findings = [f for file in report.get("files", []) for f in file.get("findings", [])]
        warned = sorted({f["rule"] for f in findings if f["level"] == "warning" and f["rule"] in WARNING_RULES})
        errors = [f["rule"] for f in findings if f["level"] == "error"]
        if not warned:
            problems.append("condlint gives none of the warnings %s" % sorted(WARNING_RULES))
        if errors:
            problems.append("condlint gives errors %s" % errors)
        try:
            onnx.checker.check_model(onnx.load(m), full_check=True)
            onnx_verdict = "accepts"
        except Exception as e:
            onnx_verdict = "rejects"
            problems.append("onnx %s rejects it: %s" % (onnx.__version__, str(e)[:200]))
        child = subprocess.run([sys.executable, __file__, "--_run", m], capture_output=True, text=True)
        ort_note = ""
        if child.returncode != 0:
            problems.append("ONNX Runtime does not load it: %s" % child.stderr.strip()[-300:])
        else:
            outcomes = json.loads(child.stdout)
            bad = [o for o in outcomes if not o["ok"]]
            if bad:
                problems.append("ONNX Runtime fails with booleans %s: %s" % (bad[0]["bools"], bad[0]["error"]))
            ort_note = "runs %d branch combination(s)" % len(outcomes)
            if "VerifyOutputSizes" in child.stderr or "does not match actual shape" in child.stderr:
                ort_note += ", warns at run time (VerifyOutputSizes)"
        print("%s: condlint warns %s; onnx %s; ONNX Runtime %s" % (m, ",".join(warned) or "-", onnx_verdict,
                                                                   ort_note or "-"))
        for p in problems:
            print("  FAIL: " + p)
        if problems:
            failed += 1
        else:
            passed += 1
    print("warnings_vs_ort: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
