#!/usr/bin/env bash
# Command 1 of the README: install what is missing, build, and lint the bundled corpus.
# Reports go to reports/out/ (text, JSON, SARIF, HTML and a screenshot of the HTML). Exits 0 when the run completed (the corpus holds
# failing models on purpose), 2 when condlint could not run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
out="$root/reports/out"
mkdir -p "$out"
# The executable only (the tests are not run here), its progress in a log; the log's end is shown when it fails.
echo "demo: building condlint (log: reports/out/build.log)"
bash "$root/scripts/build.sh" condlint >"$out/build.log" 2>&1 || { tail -n 40 "$out/build.log" >&2; echo "demo: the build failed" >&2; exit 2; }
bin="${CONDLINT_BUILD_DIR:-$root/build}/condlint"
cd "$root"
set +e
"$bin" lint corpus --format json --output "$out/corpus.json"
code=$?
"$bin" lint corpus --output "$out/corpus.txt" --sarif "$out/corpus.sarif" --html "$out/corpus.html"
set -e
if [ "$code" -ge 2 ]; then
  echo "demo: condlint failed (exit $code)" >&2
  exit 2
fi
echo "demo: linted corpus/: models broken on purpose (corpus/*/invalid: at least one case per rule, each with the"
echo "      findings it must give, *.expect) beside valid ones that must give none; so the lint exit code is 1:"
tail -n 1 "$out/corpus.txt"
# Validate the SARIF as CI does (the Multitool exits 0 even for invalid files: read its output).
sarif_tool="$root/tools/sarif/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
if [ -x "$sarif_tool" ]; then
  rm -f "$out/corpus.sarif.validation.sarif"
  "$sarif_tool" validate "$out/corpus.sarif" --rule-kind "Sarif;Gh" -o "$out/corpus.sarif.validation.sarif" >/dev/null 2>&1 || true
  /usr/bin/python3 - "$out/corpus.sarif.validation.sarif" <<'PY' || { echo "demo: SARIF validation failed" >&2; exit 2; }
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
bad = [r for run in runs for r in run.get("results", []) if r.get("level", "warning") in ("error", "warning")]
print(f"demo: SARIF Multitool validation: {len(bad)} errors or warnings")
sys.exit(1 if bad else 0)
PY
else
  echo "demo: SARIF Multitool absent; SARIF not validated"
fi
# A screenshot of the HTML report in a real browser.
browser="$(command -v chromium-headless-shell || command -v chromium || true)"
if [ -n "$browser" ]; then
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,2000 \
    --screenshot="$out/corpus.png" "file://$out/corpus.html" >/dev/null 2>&1 && echo "demo: screenshot reports/out/corpus.png"
else
  echo "demo: no chromium-headless-shell/chromium; no screenshot"
fi
# Executor and diff results in HTML: lint --exec, run and diff pages (per If, then/else tables).
set +e
"$bin" lint corpus/ir/exec-cases corpus/ir/exec --exec --html "$out/exec.html" >/dev/null
"$bin" run corpus/ir/exec/nested_if/nested_if.xml --html "$out/run.html" >/dev/null
perturb="cmd:/usr/bin/python3 $root/tests/diff_runtime_perturb.py --condlint $bin --when else {model} {inputs} {outputs}"
/usr/bin/python3 -c 'import onnx, numpy' 2>/dev/null || perturb=ref   # the perturbing runtime needs python3-onnx
"$bin" diff tests/data/diff/nested_if/model.onnx --runtime ref --runtime "$perturb" --html "$out/diff.html" >/dev/null 2>&1
# A sharded lint as a CI matrix runs it: two shares' SARIF, merged into the SARIF and the page of the whole corpus.
for k in 1 2; do "$bin" -q lint corpus --shard "$k/2" --format sarif -o "$out/share$k.sarif"; done
"$bin" merge "$out/share1.sarif" "$out/share2.sarif" -o "$out/merged.sarif" --html "$out/merge.html"
set -e
if [ -n "$browser" ]; then
  for page in exec run diff merge; do
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,2000 \
      --screenshot="$out/$page.png" "file://$out/$page.html" >/dev/null 2>&1 && echo "demo: screenshot reports/out/$page.png"
  done
fi
echo "demo: reports written to reports/out/ (corpus.txt, corpus.json, corpus.sarif, corpus.html, exec.html, run.html, diff.html, merge.html); lint exit code $code (1: the findings of the broken models, as intended)"
