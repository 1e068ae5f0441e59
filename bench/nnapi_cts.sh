#!/usr/bin/env bash
# The 763 Android CTS control-flow vectors (../shared/corpus/nnapi-cts/): wall time and peak RSS of
#   1. `condlint lint` of all of them (one process, -j 1 and -j 2),
#   2. `condlint lint --exec` (lint + the reference executor on every example, both IF branches),
# median of RUNS (default 5). Reports go to /dev/null. Not run by the tests.
#   bench/nnapi_cts.sh [CTS_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CONDLINT_BIN:-${CONDLINT_BUILD_DIR:-$root/build}/condlint}"
cts="${1:-$root/../shared/corpus/nnapi-cts}"
runs="${RUNS:-5}"
[ -x "$bin" ] || { echo "bench: build condlint first (scripts/build.sh)" >&2; exit 2; }
[ -d "$cts" ] || { echo "bench: no CTS vectors at $cts (../shared is not here)" >&2; exit 2; }
n=$(find "$cts" -name '*.nnapi.json' | wc -l)
echo "bench: $n NNAPI CTS vectors in $cts; median of $runs runs; $(nproc) cores"
measure() {  # label, command...
  local label="$1"; shift
  local times=() rss=()
  for _ in $(seq 1 "$runs"); do
    local out tf
    tf=$(mktemp)
    /usr/bin/time -o "$tf" -f "%e %M" "$@" >/dev/null 2>&1 || true
    out=$(tail -1 "$tf"); rm -f "$tf"
    times+=("${out% *}"); rss+=("${out#* }")
  done
  local t m
  t=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
  m=$(printf '%s\n' "${rss[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
  awk -v l="$label" -v t="$t" -v m="$m" 'BEGIN { printf "  %-34s %7.2f s   peak RSS %6.1f MiB\n", l, t, m / 1024 }'
}
measure "lint -j 1" "$bin" lint "$cts" -j 1 --format json --fail-on never
measure "lint -j 2" "$bin" lint "$cts" -j 2 --format json --fail-on never
measure "lint --exec -j 1 (both branches)" "$bin" lint "$cts" --exec -j 1 --format json --fail-on never
measure "lint --exec -j 2 (both branches)" "$bin" lint "$cts" --exec -j 2 --format json --fail-on never
