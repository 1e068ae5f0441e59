"""Writes corpus-modern/: real exports of real architectures, judged by the newest onnx and ONNX Runtime.

Runs in tools/modern_corpus/.venv (see generate.sh for the pinned versions). Exports with random weights (nothing is
downloaded), keeps each model one small .onnx file (no external data), and writes for each:
  corpus-modern/onnx/<stem>/<stem>.onnx
  corpus-modern/onnx/<stem>/test_data_set_0/input_K.pb, output_K.pb   (ONNX Runtime's outputs, when small)
and corpus-modern/MANIFEST.tsv: source, exporter, md5, the control flow it holds and the verdicts of
onnx.checker.check_model(full_check=True), strict shape inference, and ONNX Runtime (load, run, run-time warnings).

The judges and the MANIFEST writer are judging.py's (shared with judge_stage.py, which judges staged exports alone).

Usage: .venv/bin/python generate.py STAGE OUT      (STAGE: the exporter scripts' output, may be empty)
"""

import importlib.metadata as md
import os
import subprocess
import sys
import tempfile
import traceback
import warnings

import onnx
import torch
import torchvision

from judging import failed, init, judge, judge_stage, one_line, write_manifest

warnings.filterwarnings("ignore")
STAGE, OUT = sys.argv[1], sys.argv[2]
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


def main():
    init(OUT)
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
    rows += judge_stage(STAGE)
    write_manifest(OUT, rows)


if __name__ == "__main__":
    main()
