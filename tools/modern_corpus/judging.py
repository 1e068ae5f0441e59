"""The judges of corpus-modern/: the newest onnx and ONNX Runtime on one exported model, and its MANIFEST.tsv row.

Imported by generate.py (tools/modern_corpus/.venv) and judge_stage.py (tools/venv): both hold onnx 1.23.2 and
onnxruntime 1.32.0, and nothing here needs torch.
"""

import contextlib
import glob
import hashlib
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

MAX_MODEL = 2 * 1024 * 1024
MAX_GOLDEN = 200 * 1024
MODELS = ""  # OUT/onnx: set by init()


def init(out):
    global MODELS
    MODELS = os.path.join(out, "onnx")
    os.makedirs(MODELS, exist_ok=True)

# ---------------------------------------------------------------------------------------------------- the judges


def control_flow(m):
    """Counts of If/Loop/Scan in the main graph (at any depth) and in model-local functions."""

    def walk(g):
        c = {"If": 0, "Loop": 0, "Scan": 0}
        for n in g.node:
            if n.op_type in c and n.domain in ("", "ai.onnx"):
                c[n.op_type] += 1
            for a in n.attribute:
                subs = ([a.g] if a.type == onnx.AttributeProto.GRAPH else []) + list(a.graphs)
                for s in subs:
                    for k, v in walk(s).items():
                        c[k] += v
        return c

    main = walk(m.graph)
    funcs = {}
    for f in m.functions:
        c = walk(f)
        if any(c.values()):
            funcs[f"{f.domain}:{f.name}"] = c
    return main, funcs


def fmt_counts(c):
    return " ".join(f"{k}={v}" for k, v in c.items() if v) or "none"


def oracle_onnx(m):
    v = {}
    try:
        onnx.checker.check_model(m, full_check=True)
        v["check_model_full"] = "ok"
    except Exception as e:
        v["check_model_full"] = "REJECTED: " + one_line(e)
    try:
        onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True, data_prop=True)
        v["strict_inference"] = "ok"
    except Exception as e:
        v["strict_inference"] = "REJECTED: " + one_line(e)
    return v


def one_line(e):
    s = " ".join(str(e).split())
    return (type(e).__name__ + ": " + s)[:400]


@contextlib.contextmanager
def captured_stderr():
    """ONNX Runtime logs from C++ to fd 2: redirect the fd to a file and hand back what was written."""
    buf = {"text": ""}
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield buf
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            buf["text"] = tmp.read().decode("utf-8", "replace")


NP = {onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.INT64: np.int64, onnx.TensorProto.INT32: np.int32,
      onnx.TensorProto.BOOL: np.bool_, onnx.TensorProto.FLOAT16: np.float16, onnx.TensorProto.DOUBLE: np.float64}
DIMS = {"batch_size": 1, "sequence_length": 8, "past_sequence_length": 0, "total_sequence_length": 8,
        "kv_cache_dim": 16,  # head size of the tiny configs below (hidden 32, 2 heads)
        "past_decoder_sequence_length": 8}  # optimum's merged decoder: a step after 8 cached positions


def make_inputs(m, stem, rng):
    """Random inputs of the declared types and shapes; symbolic dimensions by name (DIMS), else 8."""
    inits = {i.name for i in m.graph.initializer}
    feeds = {}
    for vi in m.graph.input:
        if vi.name in inits:
            continue
        t = vi.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else DIMS.get(d.dim_param, 8) for d in t.shape.dim]
        dt = NP[t.elem_type]
        name = vi.name
        if "nms" in stem and name == "boxes":
            xy = rng.random((shape[0], 2), dtype=np.float32) * 10
            a = np.concatenate([xy, xy + 1 + rng.random((shape[0], 2), dtype=np.float32) * 5], axis=1)
        elif "nms" in stem and name == "idxs":
            a = rng.integers(0, 3, shape).astype(dt)
        elif "attention_mask" in name:  # dynamo_export names it l_attention_mask_
            a = np.ones(shape, dt)
        elif name == "use_cache_branch":  # optimum's merged decoder: the branch with the cache
            a = np.ones(shape, dt)
        elif name == "cache_position":  # the positions after the cached ones (an embedding index: must be in range)
            a = (np.arange(shape[0]) + DIMS["past_decoder_sequence_length"]).astype(dt)
        elif name == "position_ids":
            a = np.broadcast_to(np.arange(shape[-1]), shape).astype(dt)
        elif dt in (np.int64, np.int32):
            a = rng.integers(0, 100, shape).astype(dt)
        elif dt == np.bool_:
            a = rng.random(shape) > 0.5
        elif "fasterrcnn" in stem:
            a = rng.random(shape, dtype=np.float32)
        else:
            a = rng.standard_normal(shape).astype(dt)
        feeds[name] = a
    return feeds


def oracle_ort(m, stem):
    v = {"ort_load": "", "ort_run": "", "ort_run_warnings": ""}
    so = ort.SessionOptions()
    so.log_severity_level = 2  # warnings and up: VerifyOutputSizes is a warning
    try:
        with captured_stderr() as log:
            sess = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
        v["ort_load"] = "ok"
    except Exception as e:
        v["ort_load"] = "REFUSED: " + one_line(e)
        return v, None, None
    feeds = make_inputs(m, stem, np.random.default_rng(0))
    try:
        with captured_stderr() as log:
            outs = sess.run(None, feeds)
        v["ort_run"] = "ok: " + " ".join(f"{o.name}{list(a.shape)}" for o, a in zip(sess.get_outputs(), outs))
    except Exception as e:
        v["ort_run"] = "FAILED: " + one_line(e)
        return v, None, None
    warns = [" ".join(l.split("]", 1)[-1].split()) for l in log["text"].splitlines() if "[W:" in l or "[E:" in l]
    v["ort_run_warnings"] = " | ".join(warns)[:600]
    return v, feeds, dict(zip([o.name for o in sess.get_outputs()], outs))


def save_golden(m, stem, feeds, outputs):
    """ONNX backend-test layout beside the model, only when small (np.array keeps 0-d arrays 0-d;
    np.ascontiguousarray would make them 1-d)."""
    inits = {i.name for i in m.graph.initializer}
    ins = [numpy_helper.from_array(np.array(feeds[vi.name], order="C"), vi.name) for vi in m.graph.input
           if vi.name not in inits]
    outs = [numpy_helper.from_array(np.array(outputs[vi.name], order="C"), vi.name) for vi in m.graph.output]
    size = sum(t.ByteSize() for t in ins + outs)
    if size > MAX_GOLDEN:
        return f"not saved: {size} bytes"
    d = os.path.join(MODELS, stem, "test_data_set_0")
    os.makedirs(d, exist_ok=True)
    for k, t in enumerate(ins):
        with open(os.path.join(d, f"input_{k}.pb"), "wb") as f:
            f.write(t.SerializeToString())
    for k, t in enumerate(outs):
        with open(os.path.join(d, f"output_{k}.pb"), "wb") as f:
            f.write(t.SerializeToString())
    return f"test_data_set_0 ({size} bytes)"


# ---------------------------------------------------------------------------------------------------- the driver

COLUMNS = ["file", "bytes", "md5", "ir_version", "opsets", "control_flow_main", "control_flow_in_functions",
           "source", "config", "exporter", "check_model_full", "strict_inference", "ort_load", "ort_run",
           "ort_run_warnings", "golden", "export_error"]


def judge(stem, source, exporter, m):
    for t in m.graph.initializer:  # one self-contained file
        if t.data_location == onnx.TensorProto.EXTERNAL:
            raise RuntimeError("external data left after load")
    data = m.SerializeToString()
    row = {"file": f"onnx/{stem}/{stem}.onnx", "bytes": len(data), "md5": hashlib.md5(data).hexdigest(),
           "ir_version": m.ir_version, "opsets": " ".join(f"{o.domain or 'ai.onnx'}:{o.version}" for o in m.opset_import),
           "source": source["architecture"], "config": source.get("config", ""), "exporter": json.dumps(exporter),
           "export_error": ""}
    if len(data) > MAX_MODEL:
        row["export_error"] = f"not kept: {len(data)} bytes is over 2 MiB"
        return row
    main, funcs = control_flow(m)
    row["control_flow_main"] = fmt_counts(main)
    row["control_flow_in_functions"] = "; ".join(f"{k} {fmt_counts(v)}" for k, v in funcs.items()) or "none"
    row.update(oracle_onnx(m))
    d = os.path.join(MODELS, stem)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, stem + ".onnx"), "wb") as f:
        f.write(data)
    v, feeds, outputs = oracle_ort(m, stem)
    row.update(v)
    row["golden"] = save_golden(m, stem, feeds, outputs) if outputs is not None else "none (ONNX Runtime did not run it)"
    return row


def failed(stem, source, exporter, err):
    row = {c: "" for c in COLUMNS}
    row.update(file=f"onnx/{stem}/{stem}.onnx (not written)", source=source["architecture"],
               config=source.get("config", ""), exporter=json.dumps(exporter), export_error=err)
    return row


def judge_stage(stage):
    """The rows of the models an exporter script staged: STAGE/<stem>.onnx beside STAGE/<stem>.json."""
    rows = []
    for meta_path in sorted(glob.glob(os.path.join(stage, "*.json"))):
        with open(meta_path) as f:
            meta = json.load(f)
        stem = meta["stem"]
        if "export_error" in meta:
            rows.append(failed(stem, meta["source"], meta["exporter"], meta["export_error"]))
            continue
        print("judging", stem, flush=True)
        rows.append(judge(stem, meta["source"], meta["exporter"], onnx.load(os.path.join(stage, stem + ".onnx"))))
    return rows


def read_manifest(out):
    """The rows of OUT/MANIFEST.tsv, each a dict by column ([] when there is none)."""
    path = os.path.join(out, "MANIFEST.tsv")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        lines = f.read().splitlines()
    columns = lines[0].split("\t")
    return [dict(zip(columns, line.split("\t"))) for line in lines[1:] if line]


def write_manifest(out, rows):
    rows = sorted(rows, key=lambda r: r["file"])
    with open(os.path.join(out, "MANIFEST.tsv"), "w") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(str(r.get(c, "")).replace("\t", " ").replace("\n", " ") for c in COLUMNS) + "\n")
    total = sum(int(r["bytes"] or 0) for r in rows)
    print(f"{len(rows)} rows, {total} model bytes; judges: onnx {onnx.__version__}, onnxruntime {ort.__version__}")
