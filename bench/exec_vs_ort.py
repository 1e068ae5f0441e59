#!/usr/bin/env python3
"""The reference executor's time against ONNX Runtime's (one thread) on the same inputs: the real models of
corpus-modern/onnx that have golden data, and the models tools/fetch_bench_models.sh fetched (pipecat's
smart-turn-v3.2, run on condlint's `--random 1 --seed 0` inputs). Never run by the tests; the figures go in
bench/README.md ("The executor against ONNX Runtime").

    tools/venv/bin/python bench/exec_vs_ort.py [--condlint build/condlint] [--runs 3] [--json FILE] [MODEL...]

Per model and round, interleaved so that the machine's drift hits both alike:
  - condlint: `condlint run --branches taken --data DIR MODEL` (a model without golden data: `--random 1 --seed 0`;
    --branches taken: the branches the data takes, the one run ORT makes) as a fresh process (its start, the load,
    the lint the run needs and the comparison with the golden outputs included): wall time, and its CPU time (user + system, from wait4), which another engineer's load inflates less;
  - ONNX Runtime: an InferenceSession with intra_op_num_threads=1 and inter_op_num_threads=1 made and run once on
    the same inputs, in this process (Python's and onnxruntime's import not counted): wall and process CPU time.
Each side's median over the rounds; ratio = condlint / ORT; the summary is the median ratio over the models.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def corpus_models():
    """corpus-modern/onnx/NAME/NAME.onnx with its test_data_set_0 (the first set: one run per round)."""
    out = []
    for model in sorted(glob.glob(os.path.join(ROOT, "corpus-modern", "onnx", "*", "*.onnx"))):
        data = os.path.join(os.path.dirname(model), "test_data_set_0")
        if os.path.isdir(data):
            out.append((model, data))
    return out


def fetched_models():
    return [(m, None) for m in sorted(glob.glob(os.path.join(ROOT, "tools", "bench_models", "*", "*.onnx")))]


def time_condlint(condlint, model, data):
    args = [condlint, "run", "--branches", "taken", "--timeout-ms", "600000"]
    args += ["--data", data] if data else ["--random", "1", "--seed", "0"]
    start = time.perf_counter()
    proc = subprocess.Popen(args + [model], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    rc = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, rc


def random_inputs(condlint, model, tmp):
    """condlint's own --random 1 --seed 0 inputs, saved as golden data, for ONNX Runtime to read."""
    save = os.path.join(tmp, os.path.basename(model))
    subprocess.run([condlint, "run", "--random", "1", "--seed", "0", "--timeout-ms", "600000", "--save", save,
                    model], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    data = os.path.join(save, "test_data_set_0")
    return data if os.path.isdir(data) else None


def ort_feeds(model, data):
    import onnx
    from onnx import numpy_helper
    graph_inputs = onnx.load(model, load_external_data=False).graph
    inits = {t.name for t in graph_inputs.initializer}
    names = [i.name for i in graph_inputs.input if i.name not in inits]
    feeds = {}
    for k, name in enumerate(names):
        path = os.path.join(data, "input_%d.pb" % k)
        if not os.path.exists(path):
            break
        t = onnx.load_tensor(path)
        feeds[t.name or name] = numpy_helper.to_array(t)
    return feeds


def time_ort(model, feeds):
    import onnxruntime as ort
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    wall0, cpu0 = time.perf_counter(), time.process_time()
    sess = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
    sess.run(None, feeds)
    return time.perf_counter() - wall0, time.process_time() - cpu0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*", help="models (default: corpus-modern with golden data + fetched ones)")
    ap.add_argument("--condlint", default=os.path.join(ROOT, "build", "condlint"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", help="write the table as JSON to FILE")
    args = ap.parse_args()
    if args.models:
        models = []
        for m in args.models:
            d = os.path.join(os.path.dirname(m), "test_data_set_0")
            models.append((m, d if os.path.isdir(d) else None))
    else:
        models = corpus_models() + fetched_models()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        plan = []
        for model, data in models:
            ort_data = data or random_inputs(args.condlint, model, tmp)
            try:
                feeds = ort_feeds(model, ort_data) if ort_data else None
                time_ort(model, feeds)  # warm: the file in the page cache, ORT's kernels registered
            except Exception as e:  # noqa: BLE001  (a model ORT does not run is named, not timed)
                print("skip %s: ONNX Runtime: %s" % (os.path.basename(model), str(e).splitlines()[0][:100]),
                      file=sys.stderr)
                continue
            plan.append((model, data, feeds, {"cl_wall": [], "cl_cpu": [], "ort_wall": [], "ort_cpu": [], "rc": 0}))
        for _ in range(args.runs):
            for model, data, feeds, t in plan:
                wall, cpu, rc = time_condlint(args.condlint, model, data)
                t["cl_wall"].append(wall)
                t["cl_cpu"].append(cpu)
                t["rc"] = t["rc"] or rc
                ow, oc = time_ort(model, feeds)
                t["ort_wall"].append(ow)
                t["ort_cpu"].append(oc)
    print("%-46s %9s %9s %9s %9s %8s %8s %s" % ("model", "cl wall", "ort wall", "cl cpu", "ort cpu", "wall x",
                                                "cpu x", "run"))
    for model, data, _, t in plan:
        med = {k: statistics.median(v) for k, v in t.items() if k != "rc"}
        row = {"model": os.path.relpath(model, ROOT), "data": "golden" if data else "random 1, seed 0",
               "condlint_run_exit": t["rc"], **{k: round(v, 4) for k, v in med.items()},
               "wall_ratio": med["cl_wall"] / med["ort_wall"], "cpu_ratio": med["cl_cpu"] / max(med["ort_cpu"], 1e-6)}
        rows.append(row)
        print("%-46s %8.3fs %8.3fs %8.3fs %8.3fs %8.1f %8.1f %s" % (
            os.path.basename(model)[:46], med["cl_wall"], med["ort_wall"], med["cl_cpu"], med["ort_cpu"],
            row["wall_ratio"], row["cpu_ratio"], "ok" if t["rc"] == 0 else "exit %d" % t["rc"]))
    if rows:
        corpus = [r for r in rows if r["data"] == "golden"]
        for name, sel in (("corpus-modern (golden data)", corpus), ("all", rows)):
            if sel:
                print("median ratio condlint / ORT, %s, %d models: wall %.2f, cpu %.2f" % (
                    name, len(sel), statistics.median(r["wall_ratio"] for r in sel),
                    statistics.median(r["cpu_ratio"] for r in sel)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
