#!/usr/bin/env bash
# A model zoo of about 1,000 files linted with -j 2: without a cache, with a cold `--cache`, with a warm one, and
# after one model changed. Prints wall time (median of RUNS, default 3) and peak RSS of each, and the ratios to
# the run without a cache in the same session (absolute times drift on shared machines).
#   bench/zoo_cache.sh            the zoo: the npm real-world models (tools/models) 25 times each and the corpus
#                                 5 times (about 1,100 files, 620 MB); without tools/models, the corpus 8 times
#   bench/zoo_cache.sh DIR        lint DIR instead (it is not modified; the "one changed" and "fresh checkout"
#                                 runs are skipped)
#   FORMAT=text bench/zoo_cache.sh    the report format (default sarif)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CONDLINT_BIN:-${CONDLINT_BUILD_DIR:-$root/build}/condlint}"
runs="${RUNS:-3}"
format="${FORMAT:-sarif}"  # the report written: sarif, json or text
[ -x "$bin" ] || { echo "bench: build condlint first (scripts/build.sh)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

if [ $# -gt 0 ]; then
  tree="$1"
else
  tree="$tmp/zoo"
  mkdir -p "$tree"
  copies=8
  if [ -d "$root/tools/models" ] && find "$root/tools/models" -name '*.onnx' | grep -q .; then
    copies=5
    for i in $(seq 1 25); do
      mkdir -p "$tree/rw$i"
      find "$root/tools/models" -name '*.onnx' -print0 |
        while IFS= read -r -d '' f; do cp "$f" "$tree/rw$i/$(basename "$(dirname "$(dirname "$f")")")-$(basename "$f")"; done
    done
  fi
  for i in $(seq 1 "$copies"); do cp -r "$root/corpus" "$tree/corpus$i"; done
  sleep 3  # files changed in the last two seconds get no identity in the cache (src/lint/cache.hpp)
fi

files=$("$bin" lint "$tree" --format json --fail-on never 2>/dev/null |
        /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["files"])')
bytes=$(du -sbL "$tree" | cut -f1)
echo "bench: ${files} files, $((bytes / 1048576)) MiB; median of ${runs} runs; -j 2; --format $format; $(nproc) cores"

# one NAME ARGS...: runs condlint RUNS times, prints the median wall time (ms) and the peak RSS (MiB) of one more
# run. The clock is bash's own ($EPOCHREALTIME): nothing but condlint runs between the two readings (a `date` or
# `/usr/bin/time` process there costs a few ms, a tenth of an unchanged run).
one() {
  local name="$1"; shift
  local times=()
  for _ in $(seq 1 "$runs"); do
    [ -n "${before:-}" ] && eval "$before"
    local t0 t1
    t0=$EPOCHREALTIME
    "$bin" lint "$tree" -j 2 --format "$format" -o "$tmp/$name.sarif" --fail-on never "$@" 2>/dev/null || true
    t1=$EPOCHREALTIME
    times+=($(( (${t1//[.,]/} - ${t0//[.,]/}) / 1000 )))  # ms, from µs written with the locale's decimal mark
  done
  [ -n "${before:-}" ] && eval "$before"
  /usr/bin/time -f '%M' -o "$tmp/rss" "$bin" lint "$tree" -j 2 --format "$format" -o "$tmp/rss.out" \
    --fail-on never "$@" 2>/dev/null || true
  local median
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
  echo "$name $median $(( $(tail -1 "$tmp/rss") / 1024 ))"
}

results=()
before="" results+=("$(one plain)")
before="rm -rf '$tmp/cache'" results+=("$(one cold --cache "$tmp/cache")")
# Fill the cache once, then time warm runs.
"$bin" lint "$tree" -j 2 --cache "$tmp/cache" --format sarif -o /dev/null --fail-on never 2>/dev/null || true
before="" results+=("$(one warm --cache "$tmp/cache")")
if [ $# -eq 0 ]; then
  victim=$(find "$tree" -name '*.xml' | sort | awk 'NR == 1')  # awk reads all: no SIGPIPE under pipefail
  # Each timed run first edits one model (a comment at its end), so exactly one is judged again.
  before="echo '<!-- edit -->' >> '$victim'" results+=("$(one one_changed --cache "$tmp/cache")")
  # A fresh checkout: every file has new times (so a new identity) but the same bytes: all are hashed again.
  before="find '$tree' -type f -exec touch {} +; sleep 2.1" results+=("$(one fresh_checkout --cache "$tmp/cache")")
fi
cmp -s "$tmp/plain.sarif" "$tmp/warm.sarif" && same=yes || same=NO
plain_ms=$(echo "${results[0]}" | cut -d' ' -f2)
printf '%-12s %10s %10s %12s\n' run "ms" "x plain" "peak MiB"
for r in "${results[@]}"; do
  read -r name ms mib <<<"$r"
  printf '%-12s %10s %10s %12s\n' "$name" "$ms" "$(awk -v a="$ms" -v b="$plain_ms" 'BEGIN{printf "%.3f", a/b}')" "$mib"
done
echo "bench: the warm run's SARIF is the uncached one: $same"
