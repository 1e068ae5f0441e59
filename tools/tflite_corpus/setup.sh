#!/usr/bin/env bash
# Makes tools/tflite_corpus/.venv (gitignored): TensorFlow's converter (tensorflow-cpu) and the LiteRT interpreter
# (ai-edge-litert) from PyPI, pinned in requirements.txt, on Debian's /usr/bin/python3 (3.11). About 1 GB; no CUDA.
# Then: tools/tflite_corpus/.venv/bin/python tools/tflite_corpus/gen.py [OUT]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
py=/usr/bin/python3
if ! "$py" -c 'import ensurepip, venv' 2>/dev/null; then
  apt-get install -y python3-venv
fi
if [ ! -x "$here/.venv/bin/python" ]; then
  "$py" -m venv "$here/.venv"
fi
"$here/.venv/bin/pip" install -q -r "$here/requirements.txt"
"$here/.venv/bin/python" -c 'import importlib.metadata as m; print("tensorflow-cpu", m.version("tensorflow-cpu"), "ai-edge-litert", m.version("ai-edge-litert"))'
