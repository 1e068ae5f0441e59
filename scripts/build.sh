#!/usr/bin/env bash
# Configures and builds condlint into build/ (or $CONDLINT_BUILD_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CONDLINT_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" ${CONDLINT_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$(nproc)"
