#!/usr/bin/env python3
"""C014 on OpenVINO IR against OpenVINO: the IR half of the generated differential (run_differential.py is the ONNX half).

For each seed gen_if_consumers.py draws (one If whose branches give different shapes, then 1-3 consumers):

* Conversion: the ONNX model, its last value made the graph output (the generator sends it out through
  SequenceConstruct, which OpenVINO's ONNX frontend does not convert), goes through `ov.convert_model` and
  `ov.save_model(..., compress_to_fp16=False)`. A conversion that fails is recorded (not judged).
* Oracle: OpenVINO's CPU plugin (INFERENCE_PRECISION_HINT f32) compiles the IR and infers with the inputs that select
  each branch (the generator's `runs`: with unknown dims, the drawn sizes and sizes one larger). A branch fails when
  its inference fails at every size tried ("size-dependent" when at some only, not judged); a compile failure fails
  every branch, except the CPU plugin's refusal of an If of dynamic rank, which is IR021's business: it is its own
  category ("dynamic rank (IR021)"), not judged for C014.
* condlint: `lint --format json` on the IR. It agrees when it gives a C014 error exactly where OpenVINO fails under a
  branch: a C014 error where every branch runs is a false alarm, none where a branch fails a miss. C014's warnings
  and notes are counted apart (by the oracle's verdict), not judged.

OpenVINO runs in one child process (this script with --_oracle) fed the models one by one; a model that kills it is
asked again in a fresh child (its result is kept, with the first crash noted); a model that kills it twice is recorded
as a crash (an "error").

  CONDLINT_BINARY=build/condlint tools/venv/bin/python tests/differential/run_differential_ir.py --seeds 0:300 \\
      --table docs/differential-c014.md
--table replaces the IR section of that file (between its markers; appended when absent) and keeps the rest.
Exit 0; with --fail-on-false-alarms, 1 when there is one; 77: no onnx/openvino.
"""
import argparse
import collections
import datetime
import json
import os
import platform
import re
import select
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

BEGIN = "<!-- BEGIN ir-differential (run_differential_ir.py) -->"
END = "<!-- END ir-differential -->"
DYNAMIC_RANK = "doesn't support If operation with dynamic rank"


def one_line(text, n=400):
    return " ".join(str(text).split())[:n]


# ---- the oracle (child process): convert, compile, infer

def oracle_child():
    import numpy as np
    import openvino as ov
    core = ov.Core()
    config = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1, "NUM_STREAMS": 1}
    for line in sys.stdin:
        job = json.loads(line)
        rng = np.random.default_rng(job["seed"])
        result = {}
        try:
            m = ov.convert_model(job["onnx"])
            ov.save_model(m, job["xml"], compress_to_fp16=False)
        except Exception as e:  # noqa: BLE001 - a conversion that fails is data
            print(json.dumps({"convert": one_line(e)}), flush=True)
            continue
        try:
            compiled = core.compile_model(job["xml"], "CPU", config)
        except Exception as e:  # noqa: BLE001
            print(json.dumps({"compile": one_line(e, 600)}), flush=True)
            continue
        names = {n for i in compiled.inputs for n in i.get_names()}
        try:
            import onnxruntime as ort
            so = ort.SessionOptions()
            so.log_severity_level = 3
            so.intra_op_num_threads = 1
            sess = ort.InferenceSession(job["onnx"], so, providers=["CPUExecutionProvider"])
        except Exception:  # noqa: BLE001 - ORT's verdict is only beside OpenVINO's
            sess = None
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
            ort_ok = None
            if sess is not None:
                try:
                    sess.run(None, feed)
                    ort_ok = True
                except Exception:  # noqa: BLE001
                    ort_ok = False
            # The converter may drop an input (a branch's input of no elements folded into a constant).
            feed = {k: v for k, v in feed.items() if k in names}
            try:
                compiled.create_infer_request().infer(feed)
                runs.append({"branch": run["branch"], "variant": run["variant"], "ok": True, "ort_ok": ort_ok})
            except Exception as e:  # noqa: BLE001
                runs.append({"branch": run["branch"], "variant": run["variant"], "ok": False, "error": one_line(e),
                             "ort_ok": ort_ok})
        result["runs"] = runs
        print(json.dumps(result), flush=True)


class Oracle:
    def __init__(self, python, stderr=subprocess.DEVNULL):
        self.python = python
        self.proc = None
        self.stderr = stderr

    def start(self):
        self.proc = subprocess.Popen([self.python, os.path.abspath(__file__), "--_oracle"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr, text=True, start_new_session=True)

    def ask(self, job, timeout=60):
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        line, why = "", ""
        try:
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
            # A crashing child may leave a forked process holding the pipe open: watch the child itself, too.
            for _ in range(timeout):
                if select.select([self.proc.stdout], [], [], 1)[0]:
                    line = self.proc.stdout.readline()
                    break
                if self.proc.poll() is not None:
                    break
            else:
                why = f"OpenVINO did not answer in {timeout} s (killed)"
        except BrokenPipeError:
            pass
        if not line:
            self.kill()
            return {"crash": why or f"OpenVINO's process died (exit {self.proc_code})"}
        return json.loads(line)

    def kill(self):
        """The child and whatever it forked (its own session), then the child reaped."""
        try:
            os.killpg(self.proc.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc_code = self.proc.wait()
        self.proc = None

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


def expectation(result):
    """('error' | 'none' | 'size-dependent' | 'not converted' | 'dynamic rank', failing branches, text, note)."""
    if "crash" in result:
        return "error", ["then", "else"], result["crash"], "crash"
    if "convert" in result:
        return "not converted", [], result["convert"], ""
    if "compile" in result:
        if DYNAMIC_RANK in result["compile"]:
            return "dynamic rank", [], result["compile"], ""
        return "error", ["then", "else"], "[compile] " + result["compile"], "compile fails"
    failing, text = set(), ""
    notes = ["crashed first, after other models in one process; this is a fresh process's run"] if result.get(
        "first_try") else []
    by_branch = collections.defaultdict(list)
    for run in result["runs"]:
        by_branch[run["branch"]].append(run)
    for br, runs in by_branch.items():
        bad = [x for x in runs if not x["ok"]]
        if bad and len(bad) == len(runs):
            failing.add(br)
            text = text or f"[{br}] {bad[0]['error']}"
        elif bad:
            notes.append(f"{br} fails at some sizes")
            text = text or f"[{br}, some sizes] {bad[0]['error']}"
    if failing:
        return "error", sorted(failing), text, "; ".join(notes)
    if text:
        return "size-dependent", [], text, "; ".join(notes)
    return "none", [], "", "; ".join(notes)


def ort_failing(result):
    """The branches under which ONNX Runtime, run beside OpenVINO on the same ONNX model and inputs, fails at every
    size tried (a check on the oracle: OpenVINO's CPU plugin may run a consumer on shapes it does not check)."""
    by_branch = collections.defaultdict(list)
    for run in result.get("runs", []):
        by_branch[run["branch"]].append(run.get("ort_ok"))
    return sorted(br for br, oks in by_branch.items() if oks and all(ok is False for ok in oks))


def failing_op(text):
    """What OpenVINO names in its error: the op ("[CPU] Add node", "doesn't support Squeeze operation with dynamic
    rank", "[SoftmaxDecomposition]"), prefixed "compile: " for a compile failure; else "?"."""
    t = text or ""
    if "died" in t or "did not answer" in t:
        return "crash"
    m = (re.search(r"doesn't support (\w+) operation with (dynamic rank)", t) or re.search(r"\[CPU\] (\w+) node", t)
         or re.search(r"\[(\w+Decomposition)\]", t) or re.search(r"(\w+) node with name", t))
    op = " ".join(g for g in m.groups() if g) if m else "?"
    return ("compile: " + op) if t.startswith("[compile]") else op


def convert_failure(text):
    """The ops OpenVINO's ONNX frontend names when a conversion fails ("ArgMax-18"), else the error's start."""
    ops = re.findall(r"-- (\S+-\d+) with a message", text) or re.findall(r"No conversion rule found for operations: "
                                                                          r"([\w:, ]+)", text)
    return ", ".join(sorted(set(ops))) if ops else one_line(text, 60)


def strip_sequence(model):
    """The model with its SequenceConstruct output replaced by the value it wraps (a float tensor, shape undeclared)."""
    from onnx import TensorProto, helper
    g = model.graph
    seq = [n for n in g.node if n.op_type == "SequenceConstruct"]
    if len(seq) != 1 or len(g.output) != 1 or g.output[0].name != seq[0].output[0]:
        return model
    g.node.remove(seq[0])
    del g.output[:]
    g.output.append(helper.make_tensor_value_info(seq[0].input[0], TensorProto.FLOAT, None))
    return model


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--_oracle":
        oracle_child()
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0:40", help="A:B: seeds A..B-1")
    ap.add_argument("--exclude", default="", help="comma-separated seeds to leave out (known false alarms)")
    ap.add_argument("--table", help="write the IR section (Markdown) into this file")
    ap.add_argument("--fail-on-false-alarms", action="store_true",
                    help="exit 1 when condlint errs where OpenVINO runs every branch")
    ap.add_argument("--keep", help="keep the generated models and IRs in this directory")
    args = ap.parse_args()
    try:
        import onnx
        import openvino  # noqa: F401
        import gen_if_consumers as gen
        from run_differential import lint, md, shape_text
    except ImportError as e:
        print(f"run_differential_ir: skip" f"ped: {e}")
        return 77
    binary = os.environ.get("CONDLINT_BINARY", os.path.join(ROOT, "build", "condlint"))
    if not os.path.exists(binary):
        print(f"run_differential_ir: no condlint binary at {binary} (set CONDLINT_BINARY)")
        return 2
    workdir = args.keep or tempfile.mkdtemp(prefix="condlint_diff_c014_ir_")
    os.makedirs(workdir, exist_ok=True)
    exclude = {int(s) for s in args.exclude.split(",") if s.strip()}
    seeds = [s for s in gen.parse_seeds(args.seeds) if s not in exclude]
    oracle = Oracle(sys.executable, None if os.environ.get("CONDLINT_DIFF_DEBUG") else subprocess.DEVNULL)
    cases, skipped = [], 0
    try:
        for seed in seeds:
            model, meta = gen.generate(seed)
            if model is None:
                skipped += 1
                continue
            path = os.path.join(workdir, f"seed_{seed}.onnx")
            onnx.save(strip_sequence(model), path)
            meta["onnx"], meta["xml"] = path, os.path.join(workdir, f"seed_{seed}.xml")
            job = {"seed": seed, "onnx": path, "xml": meta["xml"], "runs": meta["runs"]}
            meta["ov"] = oracle.ask(job)
            if "crash" in meta["ov"]:  # once more in a fresh process: a crash may be left by an earlier model
                again = oracle.ask(job)
                meta["ov"] = again if "crash" not in again else {"crash": meta["ov"]["crash"] + ", twice"}
                meta["ov"]["first_try"] = "crashed"
            cases.append(meta)
    finally:
        oracle.close()
    converted = [c for c in cases if os.path.exists(c["xml"]) and "convert" not in c["ov"]]
    findings = lint(binary, [c["xml"] for c in converted])

    counts = collections.Counter()
    rows = []
    convert_fail = collections.Counter()
    miss_by = collections.defaultdict(list)
    soft = collections.Counter()  # (oracle verdict, 'C014 warning/note') -> cases
    for c in cases:
        exp, failing, text, note = expectation(c["ov"])
        c["expectation"], c["failing"], c["ov_text"], c["note"] = exp, failing, text, note
        counts["cases"] += 1
        if exp == "not converted":
            c["verdict"], c["c014"], c["soft"], c["others"] = "not converted", [], [], []
            convert_fail[convert_failure(text)] += 1
            counts["not converted"] += 1
            rows.append(c)
            continue
        counts["converted"] += 1
        f = findings.get(c["xml"], [])
        c014 = [x for x in f if x["rule"] == "C014" and x["level"] == "error"]
        c014_soft = [x for x in f if x["rule"] == "C014" and x["level"] != "error"]
        others = sorted({f"{x['rule']}:{x['level'][0]}" for x in f if x["rule"] != "C014"})
        c["c014"], c["soft"], c["others"] = c014, c014_soft, others
        if exp == "dynamic rank":
            verdict = "dynamic rank (IR021, not judged)"
            counts["dynamic rank"] += 1
            if any(x["rule"] == "IR021" for x in f):
                counts["dynamic rank, IR021 reported"] += 1
        elif exp == "size-dependent":
            verdict = "size-dependent (not judged)"
            counts["size-dependent"] += 1
        elif exp == "error" and c014:
            verdict = "agree"
        elif exp == "none" and not c014:
            verdict = "agree"
        elif exp == "none":
            ort_fails = ort_failing(c["ov"])
            verdict = "false alarm" + (f" (OpenVINO runs, ONNX Runtime fails under {'/'.join(ort_fails)})"
                                       if ort_fails else "")
            if ort_fails:
                counts["false alarms where ONNX Runtime fails"] += 1
        else:
            verdict = "miss (every branch fails)" if len(failing) == 2 else "miss"
            miss_by[(failing_op(text), c["shape_kind"], "every branch" if len(failing) == 2 else "one branch")].append(
                c["seed"])
        if exp in ("error", "none"):
            soft[(exp, "C014 warning/note" if c014_soft else "none")] += 1
        if verdict == "agree":
            counts["agreements"] += 1
        elif verdict.startswith("false alarm"):
            counts["false alarms"] += 1
        elif verdict.startswith("miss"):
            counts["misses"] += 1
            if "every branch" in verdict:
                counts["misses where every branch fails"] += 1
        c["verdict"] = verdict
        if verdict != "agree":
            rows.append(c)

    summary = (f"run_differential_ir: {counts['cases']} cases ({skipped} draws skipped by onnx's full check), "
               f"{counts['converted']} converted, {counts['dynamic rank']} refused by the CPU plugin as an If of dynamic "
               f"rank (IR021; not judged), {counts['size-dependent']} size-dependent (not judged); judged: "
               f"{counts['agreements']} agreements, {counts['false alarms']} false alarms ({counts['false alarms where ONNX Runtime fails']} "
               f"where ONNX Runtime fails under the branch), {counts['misses']} misses "
               f"({counts['misses where every branch fails']} where every branch fails)")
    print(summary)
    for c in rows:
        if c["verdict"].startswith("false alarm"):
            print(f"  false alarm: seed {c['seed']}: {c['c014'][0]['message'][:300]}")
    if args.table:
        write_table(args, binary, cases, rows, counts, skipped, miss_by, soft, convert_fail, summary, md, shape_text)
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    if args.fail_on_false_alarms and counts["false alarms"]:
        return 1
    return 0


def write_table(args, binary, cases, rows, counts, skipped, miss_by, soft, convert_fail, summary, md, shape_text):
    import numpy
    import onnx
    import openvino
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "?"
    judged = lambda v: v.split(" (")[0]  # noqa: E731
    lines = [
        BEGIN,
        "## The IR half: C014 on OpenVINO IR against OpenVINO",
        "",
        "Generated by `tests/differential/run_differential_ir.py` (do not edit this section by hand; the ONNX half",
        "above keeps it). The same seeds' models, their last value made the graph output (OpenVINO's ONNX frontend",
        "does not convert the generator's SequenceConstruct), converted by `ov.convert_model` and saved with",
        "`compress_to_fp16=False`. The oracle is OpenVINO's CPU plugin (INFERENCE_PRECISION_HINT f32): it compiles",
        "the IR and infers with the inputs that select each branch; a compile failure fails every branch, except its",
        "refusal of an If of dynamic rank, which is IR021's business (counted apart, not judged). condlint lints the",
        "IR and agrees when it gives a C014 error exactly where OpenVINO fails under a branch; C014's warnings and",
        "notes are counted apart.",
        "",
        f"- command: `CONDLINT_BINARY={os.path.relpath(binary, ROOT) if binary.startswith(ROOT) else binary} "
        f"tools/venv/bin/python tests/differential/run_differential_ir.py --seeds {args.seeds}"
        + (f" --exclude {args.exclude}" if args.exclude else "")
        + f" --table {os.path.relpath(os.path.abspath(args.table), ROOT)}`",
        f"- versions: {version} (commit {commit}), openvino {openvino.__version__.split('-')[0]}, onnx "
        f"{onnx.__version__}, numpy {numpy.__version__}, Python {platform.python_version()}",
        f"- date: {datetime.date.today().isoformat()}",
        "",
        "### Counts (IR)",
        "",
        "| cases | converted | dynamic rank (IR021, not judged) | size-dependent (not judged) | agreements | "
        "false alarms | of which ONNX Runtime fails under the branch | misses | of which every branch fails |",
        "|---|---|---|---|---|---|---|---|---|",
        f"| {counts['cases']} | {counts['converted']} | {counts['dynamic rank']} | {counts['size-dependent']} | "
        f"{counts['agreements']} | {counts['false alarms']} | {counts['false alarms where ONNX Runtime fails']} | "
        f"{counts['misses']} | "
        f"{counts['misses where every branch fails']} |",
        "",
        f"Draws skipped by onnx's full check: {skipped}. Conversions that fail: " +
        (", ".join(f"{k} ({v})" for k, v in convert_fail.most_common()) or "none") + ". "
        f"Of the {counts['dynamic rank']} Ifs of dynamic rank, condlint reports IR021 on "
        f"{counts['dynamic rank, IR021 reported']}.",
        "",
        "C014's warnings and notes (not judged), by OpenVINO's verdict: " + ", ".join(
            f"{'a branch fails' if e == 'error' else 'every branch runs'}, {s}: {soft[(e, s)]}"
            for e in ("error", "none") for s in ("C014 warning/note", "none")) + ".",
    ]
    for title, key in (("By the branches' shapes", "shape_kind"),
                       ("By the condition (input: a boolean graph input; data: ReduceSum(x) > 0)", "cond")):
        by = collections.defaultdict(collections.Counter)
        for c in cases:
            by[c[key]][judged(c["verdict"])] += 1
        lines += ["", f"### {title} (IR)", "",
                  "| kind | agree | false alarm | miss | dynamic rank | size-dependent | not converted |",
                  "|---|---|---|---|---|---|---|"]
        for k in sorted(by):
            n = by[k]
            lines.append(f"| {k} | {n['agree']} | {n['false alarm']} | {n['miss']} | {n['dynamic rank']} | "
                         f"{n['size-dependent']} | {n['not converted']} |")
    by_op = collections.defaultdict(collections.Counter)
    for c in cases:
        for s in {s["op"] for s in c["chain"]}:
            by_op[s][judged(c["verdict"])] += 1
    lines += ["", "### By consumer op (IR; a case counts for each op of its chain)", "",
              "| op | agree | false alarm | miss | dynamic rank | size-dependent | not converted |",
              "|---|---|---|---|---|---|---|"]
    for k in sorted(by_op):
        n = by_op[k]
        lines.append(f"| {k} | {n['agree']} | {n['false alarm']} | {n['miss']} | {n['dynamic rank']} | "
                     f"{n['size-dependent']} | {n['not converted']} |")
    lines += ["", "### Misses by the op OpenVINO fails in and the branches' shapes (IR)", "",
              "| failing op | shape kind | branches that fail | misses | seeds |", "|---|---|---|---|---|"]
    for (op, k, br), seeds in sorted(miss_by.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"| {op} | {k} | {br} | {len(seeds)} | {', '.join(map(str, seeds))} |")
    fa = [c for c in cases if c["verdict"].startswith("false alarm")]
    lines += ["", "### The false alarms (IR)", "",
              "Seeds: " + (", ".join(f"{c['seed']}" + ("" if "ONNX Runtime fails" in c["verdict"] else " (both runtimes run)")
                                     for c in fa) or "none") + ".",
              "",
              "What they are (read in the run of 2026-12-02 with openvino 2026.4.1; not re-derived by the script):",
              "",
              "- Where ONNX Runtime fails under the branch condlint names (most of them): OpenVINO's CPU plugin compiles",
              "  with the If output's merged shape, which passes the consumer's shape rule, and at inference runs the",
              "  consumer on the branch's real shape without checking it. Seed 59 (`Mul(v, f32[4])`, the else branch",
              "  `f32[2]`): the else run returns a `[4]` result whose last elements are not products (1.2e-30, 0, 0, 0).",
              "  OpenVINO's own shape rule rejects the consumer on those shapes (condlint follows that rule), so the IR",
              "  is wrong for that branch, but OpenVINO does not fail: a silent wrong result. C014's message says",
              "  \"OpenVINO fails there at run time\", and this OpenVINO does not.",
              "- Seed 53: the converter writes the ONNX else branch's `Constant f32[0]` as a scalar Const (`shape=\"\"`),",
              "  so the IR's Concat joins `f32[]` with `f32[2]` (OpenVINO's Concat rule: ranks 0 and 1 differ), and the",
              "  CPU plugin runs it. ONNX Runtime runs the ONNX model (a Concat input of no elements is skipped).",
              "- Seed 155: `Expand(v, [3, 4, 0])` of the then branch's `f32[3, 4, 4]`: OpenVINO's Broadcast shape",
              "  inference rejects it (\"dimension equal 4 cannot be broadcasted (numpy mode) to 0\"), condlint follows",
              "  that rule, and both runtimes run it.",
              "",
              "No C++ change was made for them: each would make C014 on IR follow what the CPU plugin lets through",
              "rather than OpenVINO's shape rules. Differential.C014.ir_sample leaves out the sample's false alarm seeds",
              "(CMakeLists.txt says which)."]
    lines += ["", "### Disagreements (IR)", "",
              "One line per case that is not an agreement (false alarms, misses, and the cases not judged). Reproduce",
              "one: `tools/venv/bin/python tests/differential/run_differential_ir.py --seeds S --keep /tmp/s && "
              "build/condlint lint /tmp/s/seed_S.xml`.", "",
              "| seed | verdict | condition | then | else | consumer chain | OpenVINO's error | "
              "condlint on the IR (C014 errors; C014 warnings/notes; other findings) |",
              "|---|---|---|---|---|---|---|---|"]
    for c in rows:
        cl = "; ".join(p for p in (
            f"C014: {md(c['c014'][0]['message'][:160])}" if c["c014"] else "",
            f"C014:{c['soft'][0]['level'][0]} {md(c['soft'][0]['message'][:120])}" if c["soft"] else "",
            ", ".join(c["others"])) if p) or "-"
        ov_text = md(c["ov_text"][:240]) + (f" ({md(c['note'])})" if c["note"] else "")
        lines.append(f"| {c['seed']} | {c['verdict']} | {c['cond']} | {md(shape_text(c['branches']['then']))} | "
                     f"{md(shape_text(c['branches']['else']))} | {md(' -> '.join(s['desc'] for s in c['chain']))} | "
                     f"{ov_text or '-'} | {cl} |")
    lines += ["", summary, END]
    section = "\n".join(lines)
    text = open(args.table).read() if os.path.exists(args.table) else ""
    if BEGIN in text and END in text:
        head, _, rest = text.partition(BEGIN)
        _, _, tail = rest.partition(END)
        text = head + section + tail
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    with open(args.table, "w") as f:
        f.write(text)


if __name__ == "__main__":
    sys.exit(main())
