#!/usr/bin/env bash
# Command 1 of the README: install what is missing, build, and lint the bundled corpus.
# Reports go to reports/out/ (text and JSON). Exits 0 when the run completed (the corpus holds
# failing models on purpose), 2 when condlint could not run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
out="$root/reports/out"
mkdir -p "$out"
bin="${CONDLINT_BUILD_DIR:-$root/build}/condlint"
cd "$root"
set +e
"$bin" lint corpus --format json --output "$out/corpus.json"
code=$?
"$bin" lint corpus --output "$out/corpus.txt"
set -e
if [ "$code" -ge 2 ]; then
  echo "demo: condlint failed (exit $code)" >&2
  exit 2
fi
tail -n 1 "$out/corpus.txt"
echo "demo: reports written to reports/out/ (corpus.txt, corpus.json); lint exit code $code"
