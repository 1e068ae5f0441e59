#!/usr/bin/python3
"""Both branches on real models: `condlint run`, `condlint lint --exec` and `condlint diff --runtime ref --runtime
onnxruntime` on real-world models with golden data that ONNX Runtime made (make_golden.py), in a temporary
directory (nothing is written beside the installed models).

  /usr/bin/python3 tests/realworld/exec_models.py --condlint build/condlint MODEL.onnx...

Wanted for each model: `run` 0 failed runs and every If branch covered (by data or pinning) or not forced with a
stated reason (dead, behind a shape guard) - none "not run"; `lint --exec` 0 errors and 0 warnings; `diff` 0 failed
and 0 diverging runs. Prints each model's branch coverage. A missing model is named and skipped; exit 77 when none is
there or python3-onnx / ONNX Runtime is missing. Last line: `exec_models: N passed, M failed`.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run_json(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    try:
        return r.returncode, json.loads(r.stdout)
    except ValueError:
        return r.returncode, {"_stderr": r.stderr[-500:], "_stdout": r.stdout[-500:]}


def check(condlint, model, tmp):
    name = os.path.splitext(os.path.basename(model))[0]
    out = os.path.join(tmp, name)
    g = subprocess.run([sys.executable, os.path.join(HERE, "make_golden.py"), model, out],
                       capture_output=True, text=True)
    if g.returncode == 77:
        return None, g.stdout.strip()
    if g.returncode != 0:
        return ["make_golden failed: " + (g.stdout + g.stderr).strip()[-300:]], ""
    m = os.path.join(out, os.path.basename(model))
    problems = []
    rc, run = run_json([condlint, "run", m, "--format", "json"])
    s = run.get("summary", {})
    br = s.get("branches", {})
    print("  run: %s runs, %s failed; If branches: %s by data, %s by synthesized inputs, %s pinned, %s dead, "
          "%s behind shape guards, %s not covered (reason given), %s not run"
          % (s.get("runs"), s.get("failed"), br.get("data"), br.get("synthesized"), br.get("pinned"), br.get("dead"),
             br.get("guarded"), br.get("not_covered"), br.get("not_run")))
    for c in run.get("branch_coverage", []):
        print("    %-5s %-11s %s%s" % (c["branch"], c["how"], c["if"], "  (" + c["why"] + ")" if c.get("why") else ""))
    if s.get("failed", 1) != 0:
        problems.append("run: %s failed runs" % s.get("failed"))
        for c in run.get("cases", []):
            if c.get("status") not in ("passed", "unsupported"):
                problems.append("  %s %s: %s" % (c.get("status"), c.get("pins"), str(c.get("message"))[:200]))
    if br.get("not_run", 1) != 0:
        problems.append("run: %s If branches not run and not explained" % br.get("not_run"))
    rc, lint = run_json([condlint, "lint", "--exec", m, "--format", "json", "--fail-on", "never"])
    ls = lint.get("summary", {})
    print("  lint --exec: %s errors, %s warnings, %s notes" % (ls.get("errors"), ls.get("warnings"), ls.get("notes")))
    if ls.get("errors", 1) or ls.get("warnings", 1):
        for f in lint.get("files", [{}])[0].get("findings", []):
            if f["level"] != "note":
                problems.append("lint --exec: %s %s" % (f["rule"], f["message"][:200]))
    rc, diff = run_json([condlint, "diff", m, "--runtime", "ref", "--runtime", "onnxruntime", "--format", "json"])
    ds = (diff.get("models") or [{}])[0].get("summary", diff.get("summary", {}))
    print("  diff: %s runs, %s agree, %s diverge, %s failed, %s not comparable"
          % (ds.get("runs"), ds.get("agree"), ds.get("diverge"), ds.get("failed"), ds.get("not_comparable")))
    if ds.get("failed", 1) or ds.get("diverge", 1):
        problems.append("diff: %s failed, %s diverge" % (ds.get("failed"), ds.get("diverge")))
    return problems, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--condlint", required=True)
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    passed = failed = 0
    present = [m for m in a.models if os.path.isfile(m)]
    for m in a.models:
        if m not in present:
            print("exec_models: not installed, skipped: %s (scripts/install-deps.sh)" % m)
    if not present:
        print("exec_models: skipped: no real-world model is installed")
        return 77
    with tempfile.TemporaryDirectory(prefix="condlint_exec_models_") as tmp:
        for m in present:
            print("== " + m)
            problems, skip = check(a.condlint, m, tmp)
            if problems is None:
                print("exec_models: skipped: " + skip)
                return 77
            for p in problems:
                print("  FAIL " + p)
            if problems:
                failed += 1
            else:
                passed += 1
    print("exec_models: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
