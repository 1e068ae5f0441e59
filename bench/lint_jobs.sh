#!/usr/bin/env bash
# Wall time of `condlint lint DIR` with -j 1 and -j 2 (median of 5 runs each; more -j values with JOBS="1 2 4").
#   bench/lint_jobs.sh DIR...        lint these directories/files
#   bench/lint_jobs.sh               corpus/ir copied COPIES times (default 36: ~1700 files, the size
#                                    of the 932 ONNX node tests + 763 NNAPI vectors the issue names)
# Reports go to /dev/null; the figure includes loading, rules and writing a JSON report.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CONDLINT_BIN:-${CONDLINT_BUILD_DIR:-$root/build}/condlint}"
runs="${RUNS:-5}"
jobs_list="${JOBS:-1 2}"
[ -x "$bin" ] || { echo "bench: build condlint first (scripts/build.sh)" >&2; exit 2; }

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  for i in $(seq 1 "${COPIES:-36}"); do cp -r "$root/corpus/ir" "$tmp/copy$i"; done
  targets=("$tmp")
fi

files=$("$bin" lint "${targets[@]}" --format json --fail-on never 2>/dev/null |
        /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["files"])')
echo "bench: ${files} files; median of ${runs} runs; $(nproc) cores"
for j in $jobs_list; do
  times=()
  for _ in $(seq 1 "$runs"); do
    t0=$(date +%s%N)
    "$bin" lint "${targets[@]}" -j "$j" --format json -o /dev/null --fail-on never 2>/dev/null || true
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000000 )))
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
  echo "bench: -j $j  median ${median} ms  (runs: ${times[*]} ms)"
done
