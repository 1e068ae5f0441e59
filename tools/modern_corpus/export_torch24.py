"""Exports of the torch 2.4 era, for tools/modern_corpus/generate.py: what today's exporters no longer write.

Runs in tools/modern_corpus/.venv-t24 (torch 2.4.1, onnxscript 0.1.0.dev20240401, transformers 4.46.3, optimum
1.23.3; see generate.sh). Writes STAGE/<stem>.onnx and STAGE/<stem>.json (source and exporter), nothing else; the
judging is generate.py's, with the newest onnx and ONNX Runtime.

- dynamo_export_llama_functions_opset18: torch.onnx.dynamo_export (the exporter torch 2.5 deprecated) keeps every
  module and every onnxscript torch_lib function it calls as a model-local function. torch_lib's script functions
  of that date hold Ifs on the rank of their input (aten_mean_dim, aten_t, aten_softmax_no_dtype); later onnxscript
  releases mark them traceable, so they are inlined with the If resolved, and torch 2.15's exporter inlines all
  functions anyway.
- optimum_whisper_decoder_merged: optimum's ONNX export of Whisper with past (task
  automatic-speech-recognition-with-past) merges the decoder without and with past into one model whose main graph
  is a single If on the input use_cache_branch. optimum's exporter requires transformers < 4.47.

Usage: .venv-t24/bin/python export_torch24.py STAGE
"""

import importlib.metadata as md
import os
import shutil
import sys
import tempfile
import warnings

import torch

warnings.filterwarnings("ignore")
from staging import stage_export  # noqa: E402

STAGE = sys.argv[1]
os.makedirs(STAGE, exist_ok=True)
VERSIONS = {p: md.version(p) for p in ("torch", "onnxscript", "transformers", "optimum", "onnx", "onnxruntime")}


class LogitsOf(torch.nn.Module):
    """The causal LM's logits for input_ids and attention_mask, without a cache (dynamo_export takes tensors)."""

    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, input_ids, attention_mask):
        return self.lm(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits


def tiny_llama():
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    # Eager attention: torch 2.4's dynamo_export fails on the SDPA path of transformers 4.46.
    cfg = LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                      num_key_value_heads=1, vocab_size=128, max_position_embeddings=64, bos_token_id=1,
                      eos_token_id=2, pad_token_id=0, attn_implementation="eager")
    return LlamaForCausalLM(cfg).eval(), cfg


def tiny_whisper():
    from transformers import WhisperConfig, WhisperForConditionalGeneration

    torch.manual_seed(0)
    # max_source_positions 1500: optimum's dummy mel input has Whisper's 3000 frames, which the encoder halves.
    cfg = WhisperConfig(vocab_size=128, num_mel_bins=16, encoder_layers=1, decoder_layers=1,
                        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
                        d_model=32, max_source_positions=1500, max_target_positions=64, pad_token_id=0,
                        bos_token_id=1, eos_token_id=2, decoder_start_token_id=1, begin_suppress_tokens=None,
                        suppress_tokens=None)
    return WhisperForConditionalGeneration(cfg).eval(), cfg


def describe(cfg, keys):
    return ", ".join(f"{k}={getattr(cfg, k)}" for k in keys if hasattr(cfg, k))


LLAMA_KEYS = ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
              "vocab_size", "max_position_embeddings")
WHISPER_KEYS = ("d_model", "encoder_layers", "decoder_layers", "encoder_attention_heads", "decoder_attention_heads",
                "encoder_ffn_dim", "decoder_ffn_dim", "num_mel_bins", "vocab_size", "max_source_positions",
                "max_target_positions")


def export_llama(path, meta):
    model, _ = tiny_llama()
    ids = torch.randint(0, 128, (1, 8))
    program = torch.onnx.dynamo_export(LogitsOf(model).eval(), ids, torch.ones(1, 8, dtype=torch.int64))
    program.save(path)


def export_whisper(path, meta):
    """optimum's main_export on a tiny checkpoint saved locally; keeps decoder_model_merged.onnx and what optimum's
    own validation against transformers said."""
    import logging

    from optimum.exporters.onnx import main_export
    from transformers import WhisperFeatureExtractor

    model, _ = tiny_whisper()
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "hf"), os.path.join(d, "onnx")
        model.save_pretrained(src)
        WhisperFeatureExtractor(feature_size=16).save_pretrained(src)  # the export reads the preprocessor's config
        records = []
        handler = logging.Handler()
        handler.emit = records.append
        logging.getLogger("optimum").addHandler(handler)
        try:
            main_export(src, output=out, task="automatic-speech-recognition-with-past", device="cpu")
        finally:
            logging.getLogger("optimum").removeHandler(handler)
        notes = [" ".join(r.getMessage().split()) for r in records if r.levelno >= logging.WARNING]
        notes = [n.split(" The exported model was saved at")[0] for n in notes if "tolerance" in n]
        meta["exporter"]["validation"] = "; ".join(notes)[:400] or "ok"
        shutil.copyfile(os.path.join(out, "decoder_model_merged.onnx"), path)


def save(stem, source, exporter, export):
    meta = {"stem": stem, "source": source, "exporter": exporter}

    def run(path):
        torch.manual_seed(0)  # the same weights and example inputs on every run
        export(path, meta)

    stage_export(STAGE, stem, meta, run)

save("dynamo_export_llama_functions_opset18",
     {"architecture": "transformers LlamaForCausalLM (eager attention); torch_lib functions kept as local functions",
      "config": describe(tiny_llama()[1], LLAMA_KEYS)},
     {"torch": VERSIONS["torch"], "onnxscript": VERSIONS["onnxscript"], "transformers": VERSIONS["transformers"],
      "exporter": "torch.onnx.dynamo_export", "opset": 18,
      "options": "default ExportOptions; input_ids and attention_mask 1x8, use_cache=False"},
     export_llama)
save("optimum_whisper_decoder_merged",
     {"architecture": "transformers WhisperForConditionalGeneration: optimum's merged decoder (If on use_cache_branch)",
      "config": describe(tiny_whisper()[1], WHISPER_KEYS)},
     {"optimum": VERSIONS["optimum"], "transformers": VERSIONS["transformers"], "torch": VERSIONS["torch"],
      "onnx": VERSIONS["onnx"], "onnxruntime": VERSIONS["onnxruntime"],
      "exporter": "optimum.exporters.onnx main_export",
      "options": "task automatic-speech-recognition-with-past, default opset, post-processing (merge) on"},
     export_whisper)
