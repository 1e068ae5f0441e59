#!/usr/bin/env bash
# Models the benchmarks time but the repository does not hold (bench/exec_vs_ort.py), fetched from the PyPI wheels
# that ship them, each wheel pinned by version and sha256 and each model by sha256, into tools/bench_models/
# (gitignored). Never run by the tests or by scripts/install-deps.sh.
#
#   pipecat-ai 1.14.0 (BSD-2-Clause): pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx, 8,679,182 bytes,
#   pipecat's Smart Turn v3.2 turn detector: a QDQ-quantized Whisper-style audio encoder, input_features [N,80,800]
#   -> logits [N,1], no If.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pip="${PIP:-$root/tools/venv/bin/pip}"
dest="$root/tools/bench_models/pipecat-ai@1.14.0"
model="smart-turn-v3.2-cpu.onnx"
model_sha=2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f
wheel_sha=0352f504b44e78bdf524e45af4bc759601c835b9b7dc195efe5e03384b974a44
if [ -f "$dest/$model" ] && [ "$(sha256sum < "$dest/$model" | cut -c1-64)" = "$model_sha" ]; then
  echo "$dest/$model"; exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'pipecat-ai==1.14.0 --hash=sha256:%s\n' "$wheel_sha" > "$tmp/req.txt"
"$pip" download --quiet --no-deps --only-binary=:all: --require-hashes -r "$tmp/req.txt" -d "$tmp" >&2
mkdir -p "$dest"
python3 - "$tmp"/pipecat_ai-1.14.0-py3-none-any.whl "$dest" "$model" <<'PY'
import sys, zipfile
wheel, dest, name = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    with open(dest + "/" + name, "wb") as out:
        out.write(z.read("pipecat/audio/turn/smart_turn/data/" + name))
    with open(dest + "/LICENSE", "wb") as out:
        out.write(z.read("pipecat_ai-1.14.0.dist-info/licenses/LICENSE"))
PY
if [ "$(sha256sum < "$dest/$model" | cut -c1-64)" != "$model_sha" ]; then
  echo "fetch_bench_models: $model differs from its pinned sha256; removed" >&2
  rm -f "$dest/$model"; exit 1
fi
echo "$dest/$model"
