#!/usr/bin/env bash
# Regenerates corpus-modern/: real exports (random weights, nothing downloaded but PyPI packages) and the verdicts
# of the newest onnx and ONNX Runtime on each. Run once by a developer; the README's commands and CI never run it.
#
# Four virtual environments beside this script (gitignored), all from Debian's /usr/bin/python3 (3.11):
#   .venv     torch 2.15.0 + torchvision 0.29.2 (dynamo exporter), onnxscript 0.7.2, transformers 5.24.0,
#             onnxruntime-genai 0.18.0 (model builder), and the judges: onnx 1.23.2, onnxruntime 1.32.0.
#   .venv-ts  torch 2.0.1 + torchvision 0.15.2 + onnx 1.14.1: the TorchScript exporter (dynamo=False). torch 2.15's
#             TorchScript exporter cannot export torchvision's batched_nms; torchvision 0.14 (Debian's) has no
#             wheel for Python 3.11 on PyPI, 0.15.2 is the oldest that has.
#   .venv-t24 torch 2.4.1 + onnxscript 0.1.0.dev20240401: torch.onnx.dynamo_export keeps onnxscript's torch_lib
#             functions and their Ifs (the onnxscript builds tried from 0.1.0.dev20240501 to 0.1.0 trace those
#             functions, the If resolved); transformers 4.46.3 + optimum 1.23.3 (its ONNX exporter requires
#             transformers < 4.47), onnx 1.17.0 and onnxruntime 1.20.1 (optimum's validation): export_torch24.py.
#             About 5.6 GB, 100 s to install.
#   .venv-tf  tensorflow-cpu 2.15.1 (Keras 2.15) + tf2onnx 1.16.1 (it pins protobuf 3.20, which onnx 1.23 and
#             TF 2.16+ do not take; pip resolves onnx 1.17.0 and numpy 1.26.4 beside them): export_tf2onnx.py.
#             About 1.3 GB, 1 minute to install; no CUDA libraries.
# What worked for torch on CPU: the PyPI Linux wheel of torch >= 2.x imports only with its CUDA libraries present
# (installed with --no-deps, `import torch` fails: "libcublasLt.so.*[0-9] not found"), so it is installed with its
# nvidia-* dependencies: about 5.4 GB in .venv, 1 minute at 100 MB/s. No GPU is needed or used.
# Takes about 40 s when the environments exist, 6 minutes when they do not (measured 2026-11-27: the three installs
# take 2, 1 and 1.7 minutes, 16 GB in all).
#
# Usage: bash tools/modern_corpus/generate.sh [OUT]     (OUT defaults to corpus-modern/ of this checkout)
#        ONLY=tf2onnx bash tools/modern_corpus/generate.sh [OUT]
#   ONLY=tf2onnx makes .venv-tf alone, rewrites the tf2onnx_* models and their MANIFEST rows and keeps every other
#   row: judged by judge_stage.py in tools/venv (scripts/install-deps.sh: the same onnx and onnxruntime as .venv).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/corpus-modern}"
py=/usr/bin/python3

if ! "$py" -c 'import ensurepip, venv' 2>/dev/null; then
  apt-get install -y python3-venv
fi
if [ ! -x "$here/.venv-tf/bin/python" ]; then
  "$py" -m venv "$here/.venv-tf"
  "$here/.venv-tf/bin/pip" install -q tensorflow-cpu==2.15.1 tf2onnx==1.16.1
fi

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
if [ "${ONLY:-}" = tf2onnx ]; then  # tf2onnx numbers the names it makes in set order: a fixed hash seed
  PYTHONHASHSEED=0 timeout 900 "$here/.venv-tf/bin/python" "$here/export_tf2onnx.py" "$stage"
  timeout 900 "$root/tools/venv/bin/python" "$here/judge_stage.py" "$stage" "$out"
  exit 0
fi
if [ ! -x "$here/.venv/bin/python" ]; then
  "$py" -m venv "$here/.venv"
  "$here/.venv/bin/pip" install -q torch==2.15.0 torchvision==0.29.2 onnxscript==0.7.2 onnx-ir==1.1.0 \
    transformers==5.24.0 onnx==1.23.2 onnxruntime==1.32.0 onnxruntime-genai==0.18.0
fi
if [ ! -x "$here/.venv-ts/bin/python" ]; then
  "$py" -m venv "$here/.venv-ts"
  "$here/.venv-ts/bin/pip" install -q torch==2.0.1 torchvision==0.15.2 'numpy<2' onnx==1.14.1
fi
if [ ! -x "$here/.venv-t24/bin/python" ]; then
  "$py" -m venv "$here/.venv-t24"
  "$here/.venv-t24/bin/pip" install -q torch==2.4.1 onnxscript==0.1.0.dev20240401 transformers==4.46.3 \
    optimum==1.23.3 onnx==1.17.0 onnxruntime==1.20.1 'numpy<2'
fi

timeout 900 "$here/.venv-ts/bin/python" "$here/export_torchscript.py" "$stage"
# optimum names the weights it shares between the merged decoders in set order: a fixed hash seed fixes the bytes.
PYTHONHASHSEED=0 timeout 900 "$here/.venv-t24/bin/python" "$here/export_torch24.py" "$stage"
# tf2onnx numbers the names it makes in set order too.
PYTHONHASHSEED=0 timeout 900 "$here/.venv-tf/bin/python" "$here/export_tf2onnx.py" "$stage"
rm -rf "$out/onnx"
timeout 1800 "$here/.venv/bin/python" "$here/generate.py" "$stage" "$out"
