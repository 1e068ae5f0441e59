#!/usr/bin/env python3
"""C014 (branch-breaks-consumer) against ONNX Runtime, on models gen_if_consumers.py generates.

For each seed: the model (one If whose branches give different shapes, then 1-3 consumers), the oracle, condlint.

* Oracle: ONNX Runtime (CPU; ORT_DISABLE_ALL and the default optimization level) runs the model with the inputs that
  select each branch (gen_if_consumers' `runs`; with unknown dims, at the drawn sizes and at sizes one larger).
  Expectation: "error" when a runtime fails under a branch (for every size tried), "none" when every branch runs in
  both modes; "size-dependent" when a branch fails at some sizes only (not judged: listed apart).
* condlint: `lint --format json` (the binary in $CONDLINT_BINARY, default build/condlint). It agrees when it gives a
  C014 error exactly where the oracle says "error": an error where every branch runs is a false alarm, none where a
  branch fails a miss. Other rules' findings are listed in a column, not judged.

ONNX Runtime runs in one child process (this script with --_oracle) fed the models one by one; a model that kills it
is recorded as a crash (an "error") and the child is restarted.

  tools/venv/bin/python tests/differential/run_differential.py --seeds 0:500 --table docs/differential-c014.md
Exit 0; with --fail-on-false-alarms, 1 when there is one (misses are recorded, not failed); 77: no onnx/onnxruntime.
"""
import argparse
import collections
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)


# ---- the oracle (child process)

def oracle_child():
    import numpy as np
    import onnxruntime as ort
    levels = {"disable_all": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
              "default": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}
    for line in sys.stdin:
        job = json.loads(line)
        rng = np.random.default_rng(job["seed"])
        result = {}
        for mode, level in levels.items():
            so = ort.SessionOptions()
            so.graph_optimization_level = level
            so.log_severity_level = 3
            so.intra_op_num_threads = 1
            so.inter_op_num_threads = 1
            try:
                sess = ort.InferenceSession(job["path"], so, providers=["CPUExecutionProvider"])
            except Exception as e:  # noqa: BLE001 - a model ONNX Runtime refuses to load fails every branch
                result[mode] = {"load": " ".join(str(e).split())[:400]}
                continue
            runs = []
            for run in job["runs"]:
                feed = {}
                for name, spec in run["feeds"].items():
                    if spec["dtype"] == "bool":
                        feed[name] = np.array(spec["value"], dtype=bool).reshape(spec["dims"])
                    elif "value" in spec:
                        feed[name] = np.full(spec["dims"], spec["value"], dtype=np.float32)
                    else:
                        feed[name] = rng.standard_normal(spec["dims"]).astype(np.float32)
                try:
                    sess.run(None, feed)
                    runs.append({"branch": run["branch"], "variant": run["variant"], "ok": True})
                except Exception as e:  # noqa: BLE001
                    runs.append({"branch": run["branch"], "variant": run["variant"], "ok": False,
                                 "error": " ".join(str(e).split())[:400]})
            result[mode] = {"runs": runs}
        print(json.dumps(result), flush=True)


class Oracle:
    def __init__(self, python):
        self.python = python
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen([self.python, os.path.abspath(__file__), "--_oracle"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def ask(self, job):
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        try:
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:
            code = self.proc.wait()
            self.proc = None
            return {"crash": f"ONNX Runtime's process died (exit {code})"}
        return json.loads(line)

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()


def expectation(result):
    """('error' | 'none' | 'size-dependent', failing branches, error text, note)."""
    if "crash" in result:
        return "error", ["then", "else"], result["crash"], "crash"
    failing, text, notes = set(), "", []
    for mode, r in result.items():
        if "load" in r:
            failing |= {"then", "else"}
            text = text or f"[{mode}, at load] {r['load']}"
            notes.append(f"{mode}: load fails")
            continue
        by_branch = collections.defaultdict(list)
        for run in r["runs"]:
            by_branch[run["branch"]].append(run)
        for br, runs in by_branch.items():
            bad = [x for x in runs if not x["ok"]]
            if bad and len(bad) == len(runs):
                failing.add(br)
                text = text or f"[{mode}, {br}] {bad[0]['error']}"
            elif bad:
                notes.append(f"{mode}: {br} fails at some sizes")
                text = text or f"[{mode}, {br}, some sizes] {bad[0]['error']}"
    modes = {m: r for m, r in result.items()}
    fails_in = [m for m, r in modes.items()
                if "load" in r or any(not x["ok"] for x in r.get("runs", []))]
    if len(fails_in) == 1:
        notes.append(f"fails only with {fails_in[0]}")
    if failing:
        return "error", sorted(failing), text, "; ".join(notes)
    if notes:
        return "size-dependent", [], text, "; ".join(notes)
    return "none", [], "", ""


# ---- condlint

def lint(binary, paths):
    """path -> list of findings (rule, level, message)."""
    out = {}
    for k in range(0, len(paths), 100):
        chunk = paths[k:k + 100]
        p = subprocess.run([binary, "lint", "--format", "json", *chunk], capture_output=True, text=True)
        try:
            report = json.loads(p.stdout)
        except json.JSONDecodeError:
            for path in chunk:
                out[path] = [{"rule": "?", "level": "error", "message": "condlint gave no JSON: " + p.stderr[:300]}]
            continue
        for f in report.get("files", []):
            out[f["path"]] = [{"rule": x.get("rule"), "level": x.get("level"), "message": x.get("message", "")}
                              for x in f.get("findings", [])]
    return out


# ---- the comparison

def failing_op(text):
    """The op ONNX Runtime names in its error ("running Pad node", "op_type:Gemm", "Op (Gemm)"), else "?"."""
    m = re.search(r"running (\w+) node|op_type:(\w+)|Op \((\w+)\)", text or "")
    return next((g for g in m.groups() if g), "?") if m else ("crash" if "died" in (text or "") else "?")


def shape_text(desc):
    d = desc["dims"]
    decl = desc["declared"]
    return f"{desc['source']} f32{d}" + ("" if decl == "type only" or decl == [str(x) for x in d] else f" decl {decl}")


def md(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--_oracle":
        oracle_child()
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0:40", help="A:B: seeds A..B-1")
    ap.add_argument("--jobs", type=int, default=1, help="ONNX Runtime processes (1: the only one supported)")
    ap.add_argument("--table", help="write the disagreement table (Markdown) to this file")
    ap.add_argument("--fail-on-false-alarms", action="store_true", help="exit 1 when condlint errs where ORT runs")
    ap.add_argument("--keep", help="keep the generated models in this directory")
    args = ap.parse_args()
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
        import gen_if_consumers as gen
    except ImportError as e:
        print(f"run_differential: skip" f"ped: {e}")
        return 77
    binary = os.environ.get("CONDLINT_BINARY", os.path.join(ROOT, "build", "condlint"))
    if not os.path.exists(binary):
        print(f"run_differential: no condlint binary at {binary} (set CONDLINT_BINARY)")
        return 2
    workdir = args.keep or tempfile.mkdtemp(prefix="condlint_diff_c014_")
    os.makedirs(workdir, exist_ok=True)
    seeds = gen.parse_seeds(args.seeds)
    oracle = Oracle(sys.executable)
    cases, skipped = [], collections.Counter()
    try:
        for seed in seeds:
            model, meta = gen.generate(seed)
            if model is None:
                skipped[meta["skip"].split("(op_type:")[-1].split(",")[0] if "op_type:" in meta["skip"] else "other"] += 1
                continue
            path = os.path.join(workdir, f"seed_{seed}.onnx")
            onnx.save(model, path)
            meta["path"] = path
            meta["ort"] = oracle.ask({"seed": seed, "path": path, "runs": meta["runs"]})
            cases.append(meta)
    finally:
        oracle.close()
    findings = lint(binary, [c["path"] for c in cases])

    rows = []
    counts = collections.Counter()
    miss_by = collections.defaultdict(list)  # (failing op, shape kind, branches) -> seeds
    fa_by = collections.Counter()
    for c in cases:
        exp, failing, text, note = expectation(c["ort"])
        f = findings.get(c["path"], [])
        c014 = [x for x in f if x["rule"] == "C014" and x["level"] == "error"]
        others = sorted({f"{x['rule']}:{x['level'][0]}" for x in f if not (x["rule"] == "C014" and x["level"] == "error")})
        ops = "+".join(s["op"] for s in c["chain"])
        first_op = c["chain"][0]["op"] if c["chain"] else "-"
        counts["cases"] += 1
        if exp == "size-dependent":
            verdict = "size-dependent (not judged)" + (", C014 error" if c014 else "")
            counts["size-dependent"] += 1
        elif exp == "error" and c014:
            verdict = "agree"
        elif exp == "none" and not c014:
            verdict = "agree"
        elif exp == "none":
            verdict = "false alarm"
            fa_by[(c["shape_kind"], first_op)] += 1
        else:
            both = len(failing) == 2
            verdict = "miss (every branch fails)" if both else "miss"
            miss_by[(failing_op(text), c["shape_kind"], "every branch" if both else "one branch")].append(c["seed"])
        if verdict == "agree":
            counts["agreements"] += 1
        elif verdict == "false alarm":
            counts["false alarms"] += 1
        elif verdict.startswith("miss"):
            counts["misses"] += 1
            if "every branch" in verdict:
                counts["misses where every branch fails"] += 1
        c["verdict"], c["expectation"], c["failing"], c["ort_text"], c["note"] = verdict, exp, failing, text, note
        c["others"], c["c014"] = others, c014
        if verdict != "agree":
            rows.append(c)

    judged = counts["cases"] - counts["size-dependent"]
    summary = (f"run_differential: {counts['cases']} cases ({sum(skipped.values())} draws skipped by onnx's full check), "
               f"{judged} judged: {counts['agreements']} agreements, {counts['false alarms']} false alarms, "
               f"{counts['misses']} misses ({counts['misses where every branch fails']} where every branch fails); "
               f"{counts['size-dependent']} size-dependent, not judged")
    print(summary)
    for c in rows:
        if c["verdict"] == "false alarm":
            print(f"  false alarm: seed {c['seed']}: {c['c014'][0]['message'][:300]}")
    if args.table:
        write_table(args, binary, cases, rows, counts, skipped, miss_by, fa_by, summary)
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    if args.fail_on_false_alarms and counts["false alarms"]:
        return 1
    return 0


def write_table(args, binary, cases, rows, counts, skipped, miss_by, fa_by, summary):
    import numpy
    import onnx
    import onnxruntime
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    try:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
    except OSError:
        commit = "?"
    by_kind = collections.defaultdict(collections.Counter)
    by_op = collections.defaultdict(collections.Counter)
    for c in cases:
        v = c["verdict"].split(" (")[0]
        by_kind[c["shape_kind"]][v] += 1
        for s in {s["op"] for s in c["chain"]}:
            by_op[s][v] += 1
    lines = [
        "# C014 against ONNX Runtime: the generated differential",
        "",
        "Generated by `tests/differential/run_differential.py` (models from `tests/differential/gen_if_consumers.py`);",
        "do not edit by hand. Each seed gives one model: one If whose branches give different shapes, then 1-3",
        "consumers. The oracle is ONNX Runtime (CPU, ORT_DISABLE_ALL and the default level) running the inputs that",
        "select each branch: \"error\" where a branch fails (at every size tried), \"none\" where every branch runs.",
        "condlint agrees when it gives a C014 error exactly where the oracle says \"error\"; other rules' findings are",
        "listed (`rule:level initial`), not judged. A miss \"where every branch fails\" is a model ORT rejects under",
        "both branches (or at load): C014 judges a consumer that one branch breaks, so another rule's error may be the",
        "right finding there (see the column).",
        "",
        f"- command: `CONDLINT_BINARY={os.path.relpath(binary, ROOT) if binary.startswith(ROOT) else binary} "
        f"tools/venv/bin/python tests/differential/run_differential.py --seeds {args.seeds} --jobs {args.jobs} "
        f"--table {os.path.relpath(os.path.abspath(args.table), ROOT)}`",
        f"- versions: {version} (commit {commit}), onnx {onnx.__version__}, onnxruntime {onnxruntime.__version__}, "
        f"numpy {numpy.__version__}, Python {platform.python_version()}; opset 18",
        f"- date: {datetime.date.today().isoformat()}",
        "",
        "## Counts",
        "",
        "| cases | skipped draws (onnx's full check) | agreements | false alarms | misses | of which every branch fails "
        "| size-dependent (not judged) |",
        "|---|---|---|---|---|---|---|",
        f"| {counts['cases']} | {sum(skipped.values())} | {counts['agreements']} | {counts['false alarms']} | "
        f"{counts['misses']} | {counts['misses where every branch fails']} | {counts['size-dependent']} |",
        "",
        "Draws skipped, by the node onnx's full check rejects: " +
        (", ".join(f"{k} {v}" for k, v in skipped.most_common()) or "none") + ".",
        "",
        "### By the branches' shapes",
        "",
        "| shape kind | agree | false alarm | miss | size-dependent |",
        "|---|---|---|---|---|",
    ]
    for k in sorted(by_kind):
        n = by_kind[k]
        lines.append(f"| {k} | {n['agree']} | {n['false alarm']} | {n['miss']} | {n['size-dependent']} |")
    by_cond = collections.defaultdict(collections.Counter)
    for c in cases:
        by_cond[c["cond"]][c["verdict"].split(" (")[0]] += 1
    lines += ["", "### By the condition (input: a boolean graph input; data: ReduceSum(x) > 0)", "",
              "| condition | agree | false alarm | miss | size-dependent |", "|---|---|---|---|---|"]
    for k in sorted(by_cond):
        n = by_cond[k]
        lines.append(f"| {k} | {n['agree']} | {n['false alarm']} | {n['miss']} | {n['size-dependent']} |")
    lines += ["", "### By consumer op (a case counts for each op of its chain)", "",
              "| op | agree | false alarm | miss | size-dependent |", "|---|---|---|---|---|"]
    for k in sorted(by_op):
        n = by_op[k]
        lines.append(f"| {k} | {n['agree']} | {n['false alarm']} | {n['miss']} | {n['size-dependent']} |")
    lines += ["", "### Misses by the op ONNX Runtime fails in and the branches' shapes (most common first)", "",
              "| failing op | shape kind | branches that fail | misses | seeds (first 5) |", "|---|---|---|---|---|"]
    for (op, k, br), seeds in sorted(miss_by.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"| {op} | {k} | {br} | {len(seeds)} | {', '.join(map(str, seeds[:5]))} |")
    ops = collections.Counter()
    for (op, k, br), seeds in miss_by.items():
        ops[op] += len(seeds)
    lines += ["", "Misses by failing op: " + ", ".join(f"{op} {n}" for op, n in ops.most_common()) + "."]
    if fa_by:
        lines += ["", "### False alarms by shape kind and first consumer", "", "| shape kind | op | false alarms |",
                  "|---|---|---|"]
        for (k, op), n in fa_by.most_common():
            lines.append(f"| {k} | {op} | {n} |")
    lines += ["", "## Disagreements", "",
              "One line per case where condlint and the oracle disagree (and each size-dependent case). Reproduce one:",
              "`tools/venv/bin/python tests/differential/gen_if_consumers.py --seeds S --out /tmp/s && build/condlint "
              "lint /tmp/s/seed_S.onnx`.", "",
              "| seed | verdict | condition | then | else | If output declared | consumer chain | ORT's error | "
              "condlint (C014 errors; other findings) |",
              "|---|---|---|---|---|---|---|---|---|"]
    for c in rows:
        cl = (f"C014: {md(c['c014'][0]['message'][:200])}; " if c["c014"] else "") + (", ".join(c["others"]) or "-")
        ort_text = md(c["ort_text"][:260]) + (f" ({md(c['note'])})" if c["note"] else "")
        lines.append(f"| {c['seed']} | {c['verdict']} | {c['cond']} | {md(shape_text(c['branches']['then']))} | "
                     f"{md(shape_text(c['branches']['else']))} | {c['if_output_declared']} | "
                     f"{md(' -> '.join(s['desc'] for s in c['chain']))} | {ort_text or '-'} | {cl} |")
    lines += ["", summary, ""]
    # The IR half's section (run_differential_ir.py writes it between these markers) is kept.
    begin, end = "<!-- BEGIN ir-differential", "<!-- END ir-differential -->"
    old = open(args.table).read() if os.path.exists(args.table) else ""
    if begin in old and end in old:
        lines += [begin + old.partition(begin)[2].partition(end)[0] + end, ""]
    with open(args.table, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
