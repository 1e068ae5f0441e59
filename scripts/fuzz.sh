#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, AddressSanitizer + UBSan) and runs each for SECONDS (default 60),
# seeded from corpus/. Crashers are written to fuzz/crashers/<target>/; keep each one as a regression
# case under tests/ once fixed.
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
# UBSan findings abort (so libFuzzer saves them as crashers) instead of printing and going on.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
secs="${1:-60}"; shift || true
# CONDLINT_FUZZ_BUILD_DIR: a build directory already configured with the fuzz targets (scripts/test.sh's
# build-san/); otherwise build-fuzz/ is configured here, optimised for long runs.
build="${CONDLINT_FUZZ_BUILD_DIR:-$root/build-fuzz}"
if [ -z "${CONDLINT_FUZZ_BUILD_DIR:-}" ]; then
  launcher=()
  if command -v ccache >/dev/null 2>&1 && [ "${CONDLINT_NO_CCACHE:-0}" != 1 ]; then
    export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCONDLINT_FUZZ=ON \
    -DCONDLINT_SANITIZE=ON -DCONDLINT_SANITIZE_FLAGS="-O1 -gline-tables-only" -DCONDLINT_BENCH=OFF "${launcher[@]}" >/dev/null
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$root"/fuzz/*_fuzz.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
# Targets run side by side, one per core (CONDLINT_FUZZ_JOBS, default nproc): each is single-threaded.
jobs="${CONDLINT_FUZZ_JOBS:-$(nproc)}"
mkdir -p "$build/logs"
prepare_seeds() {
  local t="$1" seeds="$build/seeds/$1"
  mkdir -p "$seeds"
  case "$t" in
    ir_*) find "$root/corpus" -name '*.xml' -exec cp {} "$seeds/" \; ;;
    merge_*) cp "$root"/fuzz/seeds/merge/* "$seeds/" ;;
    nnapi_testmodel_*) find "$root/tests/fixtures/nnapi_testmodel" -name '*.cpp' -exec cp {} "$seeds/" \; ;;
    onnx_*) find "$root/corpus" -name '*.onnx' -exec cp {} "$seeds/" \; ;;
    tflite_*) find "$root/corpus" "$root/corpus-tflite" -name '*.tflite' -exec cp {} "$seeds/" \; ;;
    nnapi_*) find "$root/corpus" -name '*.nnapi.json' -exec cp {} "$seeds/" \; ;;
    golden_data_*)
      # The first byte picks the reader (see fuzz/golden_data_fuzz.cpp): 0x00 .npy, 0x40 .pb as a tensor,
      # 0x80.. .pb as a declared sequence / optional.
      local n=0 f
      while IFS= read -r -d '' f; do
        n=$((n + 1))
        case "$f" in
          *.npy) { printf '\x00'; cat "$f"; } >"$seeds/npy_$n" ;;
          *) { printf '\x40'; cat "$f"; } >"$seeds/pb_$n"; { printf '\x81'; cat "$f"; } >"$seeds/seq_$n" ;;
        esac
      done < <(find "$root/corpus" "$root/tests" "$root/fuzz/seeds/golden_data" \( -name '*.pb' -o -name '*.npy' \) -size -64k -print0) ;;
    *) find "$root/corpus" -type f -size -64k -exec cp {} "$seeds/" \; ;;
  esac
}
status=0
# Only new findings count: crashers already kept (and fixed) are moved to tests/fuzz_regressions/.
declare -A before
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
  batch=("${targets[@]:i:jobs}")
  for t in "${batch[@]}"; do
    crash="$root/fuzz/crashers/$t"
    mkdir -p "$crash"
    prepare_seeds "$t"
    before[$t]="$(ls "$crash" | wc -l)"
    echo "fuzz: $t for ${secs}s (log: $build/logs/$t.log)"
    "$build/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$crash/" \
      -print_final_stats=1 "$build/seeds/$t" >"$build/logs/$t.log" 2>&1 &
  done
  wait || true
  for t in "${batch[@]}"; do
    crash="$root/fuzz/crashers/$t"
    grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY|.*runtime error)" \
      "$build/logs/$t.log" | sed "s/^/fuzz: $t: /" || true
    if [ "$(ls "$crash" | wc -l)" != "${before[$t]}" ]; then
      echo "fuzz: $t found problems: $(ls "$crash")"; status=1
    fi
  done
done
exit "$status"
