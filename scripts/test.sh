#!/usr/bin/env bash
# Command 2 of the README (and all that .ci/run does): install what is missing, build, run every test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
cd "${CONDLINT_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "$(nproc)"
