"""Writes corpus-modern/: real exports of real architectures, judged by the newest onnx and ONNX Runtime.

Runs in tools/modern_corpus/.venv (see generate.sh for the pinned versions). Exports with random weights (nothing is
downloaded), keeps each model one small .onnx file (no external data), and writes for each:
  corpus-modern/onnx/<stem>/<stem>.onnx
  corpus-modern/onnx/<stem>/test_data_set_0/input_K.pb, output_K.pb   (ONNX Runtime's outputs, when small)
and corpus-modern/MANIFEST.tsv: source, exporter, md5, the control flow it holds and the verdicts of
onnx.checker.check_model(full_check=True), strict shape inference, and ONNX Runtime (load, run, run-time warnings).

Usage: .venv/bin/python generate.py STAGE OUT      (STAGE: export_torchscript.py's output, may be empty)
"""

import contextlib
import glob
import hashlib
import importlib.metadata as md
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torchvision
from onnx import numpy_helper

warnings.filterwarnings("ignore")
STAGE, OUT = sys.argv[1], sys.argv[2]
MODELS = os.path.join(OUT, "onnx")
MAX_MODEL = 2 * 1024 * 1024
MAX_GOLDEN = 200 * 1024
VERSIONS = {p: md.version(p) for p in ("torch", "torchvision", "onnxscript", "onnx-ir", "transformers", "onnx",
                                       "onnxruntime", "onnxruntime-genai")}
DYNAMO = {"torch": VERSIONS["torch"], "onnxscript": VERSIONS["onnxscript"], "exporter": "torch.onnx dynamo"}


# ---------------------------------------------------------------------------------------------------- the models


class GatedSqueezeExcite(torch.nn.Module):
    """A conv stem whose output goes through torchvision's SqueezeExcitation or a plain scale, chosen by the data."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.se = torchvision.ops.SqueezeExcitation(8, 4)

    def forward(self, x):
        y = self.stem(x)
        return torch.cond(y.mean() > 0, lambda t: self.se(t), lambda t: t * 0.5, (y,))


class Inner(torch.nn.Module):
    def forward(self, x):
        return torch.cond(x.mean() > 0, lambda t: t * 2.0, lambda t: t - 1.0, (x,))


class NestedCond(torch.nn.Module):
    """torch.cond inside a torch.cond branch: the exporter writes each branch as a model-local function."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 16)
        self.inner = Inner()

    def forward(self, x):
        y = self.lin(x)
        return torch.cond(y.sum() > 0, lambda t: self.inner(t).relu(), lambda t: t.sigmoid(), (y,))


class HalveUntilSmall(torch.nn.Module):
    """A data-dependent trip count: halve until every element is below 1 (torch's while_loop, ONNX Loop)."""

    def forward(self, x):
        from torch._higher_order_ops.while_loop import while_loop

        def cond(i, t):
            return t.abs().max() > 1.0

        def body(i, t):
            return i + 1, t * 0.5

        return while_loop(cond, body, (torch.zeros((), dtype=torch.int64), x))


def dynamo_export(model, args, opset, kwargs=None, **kw):
    return torch.onnx.export(model, args, kwargs=kwargs, dynamo=True, opset_version=opset, **kw).model_proto


def dynamo_export_keeping_functions(model, args, opset):
    """The dynamo exporter's translation before its inline/version-conversion pass: torch.cond branches stay
    model-local functions (torch.onnx.export always inlines them)."""
    from torch.onnx._internal.exporter import _core, _registration

    registry = _registration.ONNXRegistry().from_torchlib(opset_version=opset)
    return _core.export(model, args, registry=registry, optimize=False, opset_version=None).model_proto


def tiny_llama():
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                      num_key_value_heads=1, vocab_size=128, max_position_embeddings=64, bos_token_id=1,
                      eos_token_id=2, pad_token_id=0)
    return LlamaForCausalLM(cfg).eval(), cfg


PHI3_ROPE = {"rope_type": "longrope", "type": "longrope", "short_factor": [1.0] * 8, "long_factor": [4.0] * 8,
             "original_max_position_embeddings": 32, "rope_theta": 10000.0}


def tiny_phi3():
    from transformers import Phi3Config, Phi3ForCausalLM

    torch.manual_seed(0)
    cfg = Phi3Config(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                     num_key_value_heads=2, vocab_size=128, max_position_embeddings=128,
                     original_max_position_embeddings=32, rope_scaling=dict(PHI3_ROPE), bos_token_id=1,
                     eos_token_id=2, pad_token_id=0)
    return Phi3ForCausalLM(cfg).eval(), cfg


def describe(cfg, keys):
    return ", ".join(f"{k}={getattr(cfg, k)}" for k in keys if hasattr(cfg, k))


LM_KEYS = ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
           "vocab_size", "max_position_embeddings", "original_max_position_embeddings", "rope_scaling")


def tiny_tokenizer(vocab_size):
    """A word-level tokenizer of vocab_size tokens t0..tN, made here (no download)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel({f"t{i}": i for i in range(vocab_size)}, unk_token="t0"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="t0", bos_token="t1", eos_token="t2",
                                   pad_token="t0")


def genai_build(model_and_cfg, tag):
    """onnxruntime-genai's model builder on a tiny random checkpoint saved locally (fp32, CPU)."""
    model, cfg = model_and_cfg
    with tempfile.TemporaryDirectory() as d:
        src, out, cache = os.path.join(d, "hf"), os.path.join(d, "out"), os.path.join(d, "cache")
        model.save_pretrained(src)
        tiny_tokenizer(cfg.vocab_size).save_pretrained(src)  # the builder writes tokenizer files beside the model
        r = subprocess.run([sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", src, "-o", out, "-p",
                            "fp32", "-e", "cpu", "-c", cache], capture_output=True, text=True, timeout=600)
        path = os.path.join(out, "model.onnx")
        if not os.path.exists(path):
            raise RuntimeError(f"builder wrote no model.onnx: {(r.stderr or r.stdout)[-400:]}")
        return onnx.load(path)  # external data, if any, is loaded into the proto


def dynamo_lm(make, opset, **kw):
    model, _ = make()
    ids = torch.randint(0, 128, (1, 8))
    return dynamo_export(model, (), opset, kwargs={"input_ids": ids, "use_cache": False}, **kw)


def jobs():
    """(stem, source, exporter, thunk) for every model made in this environment."""
    x_img = torch.randn(1, 3, 8, 8)
    out = []
    for opset in (18, 20, 23):
        out.append((f"dynamo_gated_se_opset{opset}",
                    {"architecture": "Conv2d stem + torch.cond(mean > 0, torchvision.ops.SqueezeExcitation, x * 0.5)",
                     "config": "3->8 channels, SE squeeze 4, input 1x3x8x8"},
                    dict(DYNAMO, opset=opset, options="default (optimize=True)"),
                    lambda o=opset: dynamo_export(GatedSqueezeExcite().eval(), (x_img,), o)))
        out.append((f"dynamo_while_loop_opset{opset}",
                    {"architecture": "torch while_loop: halve until max |x| <= 1 (data-dependent trip count)",
                     "config": "input 4x4"},
                    dict(DYNAMO, opset=opset, options="default (optimize=True)"),
                    lambda o=opset: dynamo_export(HalveUntilSmall(), (torch.randn(4, 4) * 8,), o)))
    out.append(("dynamo_nested_cond_functions_opset18",
                {"architecture": "Linear + torch.cond whose then-branch holds another torch.cond",
                 "config": "16 features, input 2x16"},
                dict(DYNAMO, opset=18, options="torch.onnx._internal.exporter._core.export(optimize=False): "
                     "branches kept as model-local functions"),
                lambda: dynamo_export_keeping_functions(NestedCond().eval(), (torch.randn(2, 16),), 18)))
    for opset in (18, 23):
        out.append((f"dynamo_phi3_longrope_opset{opset}",
                    {"architecture": "transformers Phi3ForCausalLM (LongRoPE)",
                     "config": describe(tiny_phi3()[1], LM_KEYS)},
                    dict(DYNAMO, transformers=VERSIONS["transformers"], opset=opset,
                         options="input_ids 1x8, use_cache=False"),
                    lambda o=opset: dynamo_lm(tiny_phi3, o)))
    for opset in (18, 20):
        out.append((f"dynamo_llama_opset{opset}",
                    {"architecture": "transformers LlamaForCausalLM", "config": describe(tiny_llama()[1], LM_KEYS)},
                    dict(DYNAMO, transformers=VERSIONS["transformers"], opset=opset,
                         options="input_ids 1x8, use_cache=False, optimize=False"),
                    lambda o=opset: dynamo_lm(tiny_llama, o, optimize=False)))
    genai = {"exporter": "onnxruntime-genai model builder", "onnxruntime-genai": VERSIONS["onnxruntime-genai"],
             "transformers": VERSIONS["transformers"], "torch": VERSIONS["torch"], "options": "-p fp32 -e cpu"}
    out.append(("genai_phi3_longrope",
                {"architecture": "transformers Phi3ForCausalLM (LongRoPE) via save_pretrained",
                 "config": describe(tiny_phi3()[1], LM_KEYS)},
                genai, lambda: genai_build(tiny_phi3(), "phi3")))
    out.append(("genai_llama",
                {"architecture": "transformers LlamaForCausalLM via save_pretrained",
                 "config": describe(tiny_llama()[1], LM_KEYS)},
                genai, lambda: genai_build(tiny_llama(), "llama")))
    return out


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


def main():
    os.makedirs(MODELS, exist_ok=True)
    rows = []
    for stem, source, exporter, thunk in jobs():
        print("exporting", stem, flush=True)
        torch.manual_seed(0)  # the same weights and example inputs on every run
        try:
            m = thunk()
        except Exception as e:
            traceback.print_exc(limit=3)
            rows.append(failed(stem, source, exporter, one_line(e)))
            continue
        rows.append(judge(stem, source, exporter, m))
    for meta_path in sorted(glob.glob(os.path.join(STAGE, "*.json"))):
        meta = json.load(open(meta_path))
        stem = meta["stem"]
        if "export_error" in meta:
            rows.append(failed(stem, meta["source"], meta["exporter"], meta["export_error"]))
            continue
        print("judging", stem, flush=True)
        rows.append(judge(stem, meta["source"], meta["exporter"], onnx.load(os.path.join(STAGE, stem + ".onnx"))))
    rows.sort(key=lambda r: r["file"])
    with open(os.path.join(OUT, "MANIFEST.tsv"), "w") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(str(r.get(c, "")).replace("\t", " ").replace("\n", " ") for c in COLUMNS) + "\n")
    total = sum(int(r["bytes"] or 0) for r in rows)
    print(f"{len(rows)} rows, {total} model bytes; judges: onnx {VERSIONS['onnx']}, onnxruntime {VERSIONS['onnxruntime']}")


if __name__ == "__main__":
    main()
