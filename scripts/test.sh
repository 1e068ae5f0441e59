#!/usr/bin/env bash
# Command 2 of the README (and all that .ci/run does): install what is missing, build, run every test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
cd "${CONDLINT_BUILD_DIR:-$root/build}"
status=0
ctest --output-on-failure -j "$(nproc)" || status=$?
# Say which tests skipped and why (ctest hides the reasons of tests that did not fail).
grep -h -o "skipped: .*" Testing/Temporary/LastTest.log 2>/dev/null | sort -u | sed 's/^/ctest: /' || true
exit "$status"
