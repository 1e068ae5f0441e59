#!/usr/bin/env python3
"""corpus-modern/onnxslim/: onnxslim's outputs of corpus-modern/onnx/, judged by onnx and ONNX Runtime.

    python3 tools/onnxslim_corpus/gen.py            # from the repository root (any directory works)

Run with any python3 >= 3.9: the script makes its own virtual environment, build/onnxslim-venv (the versions in PINS
below; reinstalled when PINS change), and runs itself again inside it. For every corpus-modern/onnx/**/*.onnx it
runs onnxslim with its default options (`onnxslim.slim(model)`, what the `onnxslim in.onnx out.onnx` CLI does),
writes corpus-modern/onnxslim/<same relative path>, and writes corpus-modern/onnxslim/MANIFEST.tsv (README.md
beside this file says what each column means). A model onnxslim fails on is skipped and listed with the reason.
"""

import argparse
import copy
import hashlib
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV = os.path.join(ROOT, "build", "onnxslim-venv")
SRC = os.path.join(ROOT, "corpus-modern", "onnx")
OUT = os.path.join(ROOT, "corpus-modern", "onnxslim")
MAX_TOTAL = 6 * 1024 * 1024  # past this, only the models with an If node are kept

# onnxslim 0.1.98 is the newest release on PyPI (checked when this corpus was made). Its own requirements
# (colorama, ml-dtypes, onnx, packaging, sympy>=1.13.1) and theirs are pinned too, so that `pip install` resolves
# the same environment every time.
PINS = [
    "onnxslim==0.1.98",
    "onnx==1.23.2",
    "onnxruntime==1.32.0",
    "numpy==2.4.6",
    "protobuf==7.36.2",
    "ml_dtypes==0.7.0",
    "sympy==1.14.0",
    "mpmath==1.3.0",
    "colorama==0.4.6",
    "packaging==26.4",
    "flatbuffers==25.12.19",
    "typing_extensions==4.16.0",
]

COLUMNS = ["path", "source_model", "onnxslim_version", "sha256", "bytes", "onnx_full_check", "ort_enable_all",
           "ort_disable_all", "if_nodes", "shadow_copies", "ort_outputs_vs_source", "inputs", "source_verdicts", "status"]


# ------------------------------------------------------------------------------------------------ the environment

def venv_python():
    return os.path.join(VENV, "bin", "python")


def ensure_venv():
    """Create build/onnxslim-venv and install PINS, unless it already holds exactly them (a stamp file)."""
    stamp = os.path.join(VENV, "condlint-pins.txt")
    want = "\n".join(PINS) + "\n"
    if os.path.exists(stamp) and open(stamp).read() == want and os.path.exists(venv_python()):
        return
    print(f"gen.py: creating {os.path.relpath(VENV, ROOT)} ({', '.join(PINS[:3])}, ...)", flush=True)
    subprocess.check_call([sys.executable, "-m", "venv", "--clear", VENV])
    subprocess.check_call([venv_python(), "-m", "pip", "install", "-q", "--disable-pip-version-check", *PINS])
    with open(stamp, "w") as f:
        f.write(want)


def in_venv():
    return os.path.realpath(sys.prefix) == os.path.realpath(VENV)


# ------------------------------------------------------------------------------------------------ the judges

def one_line(e):
    lines = [l.strip() for l in str(e).splitlines() if l.strip()]
    s = lines[0] if lines else ""
    return (type(e).__name__ + ": " + s)[:300]


def where(e):
    """The innermost frame of a failure inside onnxslim (or its onnx_graphsurgeon), and the depth of the stack."""
    import traceback
    tb = traceback.extract_tb(e.__traceback__)
    ours = [f for f in tb if "onnxslim" in f.filename]
    if not ours:
        return ""
    f = ours[-1]
    if isinstance(e, RecursionError):  # name the function that recurses: the frame seen most often
        from collections import Counter
        key, _ = Counter((g.filename, g.lineno, g.name) for g in ours).most_common(1)[0]
        f = next(g for g in ours if (g.filename, g.lineno, g.name) == key)
    rel = f.filename.split("site-packages/")[-1]
    return f" (in {rel}:{f.lineno} {f.name}, {len(tb)} frames)"


def verdicts(path):
    """The source model's verdicts, for comparison: onnx full check, ORT session at ENABLE_ALL / DISABLE_ALL."""
    import onnx
    import onnxruntime as ort
    out = []
    try:
        onnx.checker.check_model(path, full_check=True)
        out.append("onnx ok")
    except Exception as e:
        out.append("onnx REJECTED")
    for name, level in (("enable_all", ort.GraphOptimizationLevel.ORT_ENABLE_ALL),
                        ("disable_all", ort.GraphOptimizationLevel.ORT_DISABLE_ALL)):
        try:
            session(path, level)
            out.append(f"ort {name} ok")
        except Exception:
            out.append(f"ort {name} REFUSED")
    return ", ".join(out)


def subgraphs(node):
    import onnx
    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            yield a.g
        for g in a.graphs:
            yield g


def count_ifs(m):
    """If nodes at every depth: (in the main graph and its subgraphs, in model-local functions and theirs)."""

    def walk(nodes):
        c = 0
        for n in nodes:
            if n.op_type == "If" and n.domain in ("", "ai.onnx"):
                c += 1
            for g in subgraphs(n):
                c += walk(g.node)
        return c

    return walk(m.graph.node), sum(walk(f.node) for f in m.functions)


def tensor_key(t):
    """dtype, dims and the values' bytes (whatever field holds them)."""
    from onnx import numpy_helper
    a = numpy_helper.to_array(t)
    return t.data_type, tuple(t.dims), a.tobytes()


def stored_key(t):
    """The stored TensorProto less its name: equal when the same field holds the same values."""
    c = copy.deepcopy(t)
    c.name = ""
    c.ClearField("doc_string")
    return c.SerializeToString(deterministic=True)


def shadow_copies(m):
    """Subgraph initializers whose name an enclosing graph (or function) defines as an initializer or an input.

    Returns (count, identical: same dtype, dims and values; identical_stored: the same stored field too, what
    condlint's ONNX011 compares; names of the ones that are not identical)."""
    found = {"n": 0, "same": 0, "stored": 0, "differ": []}

    def walk(nodes, scope):
        for n in nodes:
            for g in subgraphs(n):
                visit(g, scope)

    def visit(g, outer):
        for t in g.initializer:
            if t.name in outer:
                found["n"] += 1
                kind, o = outer[t.name]
                if kind == "init" and tensor_key(o) == tensor_key(t):
                    found["same"] += 1
                    if stored_key(o) == stored_key(t):
                        found["stored"] += 1
                else:
                    found["differ"].append(f"{t.name} ({'outer input' if kind == 'input' else 'other value'})")
        scope = dict(outer)
        for vi in g.input:
            scope[vi.name] = ("input", None)
        for t in g.initializer:
            scope[t.name] = ("init", t)
        walk(g.node, scope)

    main = {}
    for vi in m.graph.input:
        main[vi.name] = ("input", None)
    for t in m.graph.initializer:
        main[t.name] = ("init", t)
    walk(m.graph.node, main)
    for f in m.functions:
        walk(f.node, {i: ("input", None) for i in f.input})
    return found


def fmt_shadows(s):
    txt = f"{s['n']} ({s['same']} identical dtype/dims/bytes"
    if s["stored"] != s["same"]:
        txt += f", {s['stored']} of them stored alike"
    txt += ")"
    if s["differ"]:
        txt += "; differ: " + ", ".join(s["differ"][:5]) + (" ..." if len(s["differ"]) > 5 else "")
    return txt


def session(path, level):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.graph_optimization_level = level
    so.log_severity_level = 3
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def golden_inputs(src_dir):
    """The inputs of test_data_set_0 beside the source model, by name (None where there is none)."""
    import onnx
    from onnx import numpy_helper
    d = os.path.join(src_dir, "test_data_set_0")
    if not os.path.isdir(d):
        return None
    out = {}
    k = 0
    while os.path.exists(os.path.join(d, f"input_{k}.pb")):
        t = onnx.TensorProto()
        with open(os.path.join(d, f"input_{k}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        out[t.name or f"#{k}"] = numpy_helper.to_array(t)
        k += 1
    return out


def make_feeds(sess, golden, seed=0):
    """Random inputs (seed 0): the shapes of test_data_set_0 where it has the input, else the declared shape with
    every symbolic dimension 2. Integers lie in the golden input's [min, max] (else [0, 1]); masks are ones."""
    import numpy as np
    rng = np.random.default_rng(seed)
    types = {"tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(float16)": np.float16,
             "tensor(int64)": np.int64, "tensor(int32)": np.int32, "tensor(int8)": np.int8,
             "tensor(uint8)": np.uint8, "tensor(bool)": np.bool_}
    feeds = {}
    for k, i in enumerate(sess.get_inputs()):
        dt = types[i.type]
        g = None
        if golden is not None:
            g = golden.get(i.name, golden.get(f"#{k}"))
        shape = list(g.shape) if g is not None else [d if isinstance(d, int) and d >= 0 else 2 for d in i.shape]
        if "attention_mask" in i.name:
            a = np.ones(shape, dt)
        elif dt == np.bool_:
            a = rng.random(shape) > 0.5
        elif np.issubdtype(dt, np.integer):
            lo, hi = (int(g.min()), int(g.max())) if g is not None and g.size else (0, 1)
            a = rng.integers(lo, hi + 1, shape).astype(dt)
        else:
            a = rng.standard_normal(shape).astype(dt)
        feeds[i.name] = a
    return feeds


def max_abs_diff(a, b):
    import numpy as np
    if isinstance(a, list) or isinstance(b, list):  # sequence outputs
        if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
            return float("inf")
        return max([max_abs_diff(x, y) for x, y in zip(a, b)], default=0.0)
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return float("inf")
    if a.size == 0:
        return 0.0
    if a.dtype == np.bool_:
        return float(np.any(a != b))
    if np.issubdtype(a.dtype, np.integer):
        return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))
    x, y = a.astype(np.float64), b.astype(np.float64)
    both_nan = np.isnan(x) & np.isnan(y)
    d = np.where(both_nan, 0.0, np.abs(x - y))
    d = np.where(np.isnan(d), np.inf, d)
    return float(np.max(d))


def compare(src_path, out_path, golden):
    """ORT's outputs of the slimmed model against the source model's on the same random inputs, at both levels."""
    import onnxruntime as ort
    res = []
    how = "random (seed 0), shapes of test_data_set_0" if golden is not None else "random (seed 0), symbolic dims 2"
    for name, level in (("enable_all", ort.GraphOptimizationLevel.ORT_ENABLE_ALL),
                        ("disable_all", ort.GraphOptimizationLevel.ORT_DISABLE_ALL)):
        try:
            s0, s1 = session(src_path, level), session(out_path, level)
        except Exception as e:
            res.append(f"{name}: n/a ({one_line(e)})")
            continue
        feeds = make_feeds(s0, golden)
        try:
            o0 = s0.run(None, feeds)
        except Exception as e:
            if golden is None:
                res.append(f"{name}: n/a (the source model fails on random inputs: {one_line(e)})")
                continue
            feeds = {i.name: golden.get(i.name, golden.get(f"#{k}")) for k, i in enumerate(s0.get_inputs())}
            how = "test_data_set_0 values (the source model fails on random ones)"
            o0 = s0.run(None, feeds)
        try:
            o1 = s1.run(None, feeds)
        except Exception as e:
            res.append(f"{name}: the slimmed model fails: {one_line(e)}")
            continue
        n0 = [o.name for o in s0.get_outputs()]
        n1 = [o.name for o in s1.get_outputs()]
        if n0 != n1 or len(o0) != len(o1):
            res.append(f"{name}: outputs differ in names/count ({n0} vs {n1})")
            continue
        d = max([max_abs_diff(a, b) for a, b in zip(o0, o1)], default=0.0)
        res.append(f"{name}: " + ("equal (max abs diff 0)" if d == 0 else f"max abs diff {d:.3g}"))
    return "; ".join(res), how


# ------------------------------------------------------------------------------------------------ the driver

def slim_one(src_path):
    import onnx
    import onnxslim
    m = onnx.load(src_path)
    out = onnxslim.slim(copy.deepcopy(m))
    if out is None:
        raise RuntimeError("onnxslim.slim returned None")
    return out


def run(args):
    import onnx
    import onnxslim
    version = getattr(onnxslim, "__version__", None)
    if version is None:
        from importlib.metadata import version as v
        version = v("onnxslim")

    models = sorted(os.path.relpath(os.path.join(d, f), SRC) for d, _, fs in os.walk(SRC) for f in fs
                    if f.endswith(".onnx"))
    if args.only:
        models = [p for p in models if any(s in p for s in args.only)]
    os.makedirs(OUT, exist_ok=True)
    for d, _, fs in os.walk(OUT, topdown=False):  # a fresh tree: nothing left from an earlier run
        for f in fs:
            if f.endswith(".onnx") or f == "MANIFEST.tsv":
                os.remove(os.path.join(d, f))
        if d != OUT and not os.listdir(d):
            os.rmdir(d)

    rows = []
    for rel in models:
        src_path = os.path.join(SRC, rel)
        out_path = os.path.join(OUT, rel)
        row = {c: "" for c in COLUMNS}
        row.update(path=rel, source_model="corpus-modern/onnx/" + rel, onnxslim_version=version)
        print(f"gen.py: {rel}", flush=True)
        try:
            m = slim_one(src_path)
        except BaseException as e:  # onnxslim may sys.exit or raise anything
            if isinstance(e, KeyboardInterrupt):
                raise
            row["status"] = "skipped: onnxslim failed: " + one_line(e) + where(e)
            row["source_verdicts"] = verdicts(src_path)
            rows.append(row)
            continue
        os.makedirs(os.path.dirname(out_path), exist_ok=True)
        onnx.save(m, out_path)
        data = open(out_path, "rb").read()
        row["sha256"] = hashlib.sha256(data).hexdigest()
        row["bytes"] = str(len(data))
        try:
            onnx.checker.check_model(out_path, full_check=True)
            row["onnx_full_check"] = "ok"
        except Exception as e:
            row["onnx_full_check"] = "REJECTED: " + one_line(e)
        import onnxruntime as ort
        for col, level in (("ort_enable_all", ort.GraphOptimizationLevel.ORT_ENABLE_ALL),
                           ("ort_disable_all", ort.GraphOptimizationLevel.ORT_DISABLE_ALL)):
            try:
                session(out_path, level)
                row[col] = "ok"
            except Exception as e:
                row[col] = "REFUSED: " + one_line(e)
        main_ifs, fn_ifs = count_ifs(m)
        row["if_nodes"] = str(main_ifs + fn_ifs) + (f" ({fn_ifs} in functions)" if fn_ifs else "")
        row["shadow_copies"] = fmt_shadows(shadow_copies(m))
        row["ort_outputs_vs_source"], row["inputs"] = compare(src_path, out_path,
                                                              golden_inputs(os.path.dirname(src_path)))
        row["source_verdicts"] = verdicts(src_path)
        row["status"] = "slimmed"
        rows.append(row)

    total = sum(int(r["bytes"]) for r in rows if r["bytes"])
    if total > MAX_TOTAL:  # the size budget: keep only the models with If nodes
        for r in rows:
            if r["bytes"] and r["if_nodes"].split()[0] == "0":
                os.remove(os.path.join(OUT, r["path"]))
                r["status"] = f"dropped: no If node (all outputs {total} bytes > {MAX_TOTAL})"
                r["sha256"] = ""
                for c in ("bytes",):
                    r[c] = ""
        for d, _, _ in sorted(os.walk(OUT), reverse=True):
            if d != OUT and not os.listdir(d):
                os.rmdir(d)

    with open(os.path.join(OUT, "MANIFEST.tsv"), "w") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(r[c].replace("\t", " ").replace("\n", " ") for c in COLUMNS) + "\n")
    kept = sum(1 for r in rows if r["status"] == "slimmed")
    print(f"gen.py: {kept} slimmed, {len(rows) - kept} skipped or dropped, "
          f"{os.path.relpath(OUT, ROOT)}/MANIFEST.tsv written")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", help="only the models whose path contains one of these strings (a partial "
                    "tree and MANIFEST: for debugging; rerun without it before committing)")
    args = ap.parse_args()
    if not in_venv():
        ensure_venv()
        env = dict(os.environ, PYTHONHASHSEED="0")
        os.execve(venv_python(), [venv_python(), os.path.abspath(__file__), *sys.argv[1:]], env)
    run(args)


if __name__ == "__main__":
    main()
