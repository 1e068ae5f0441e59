#!/usr/bin/env bash
# Configures and builds condlint into build/ (or $CONDLINT_BUILD_DIR): every target, or the targets named
# (scripts/build.sh condlint builds the executable only).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CONDLINT_BUILD_DIR:-$root/build}"
launcher=()
if command -v ccache >/dev/null 2>&1 && [ "${CONDLINT_NO_CCACHE:-0}" != 1 ]; then
  # Paths relative to the checkout and no working directory in the hash: clones in other directories share hits.
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" "${launcher[@]}" ${CONDLINT_CMAKE_ARGS:-} >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build" -j "$(nproc)" "${targets[@]}"
