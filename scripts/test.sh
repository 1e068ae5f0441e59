#!/usr/bin/env bash
# Command 2 of the README (and all that .ci/run does): install what is missing, build, run every test;
# then the same suite built with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/), and a
# short fuzz smoke of every fuzz target when clang with libFuzzer is present.
#   CONDLINT_SKIP_SANITIZE=1  skip the sanitizer build     CONDLINT_FUZZ_SECONDS=N  per target (20; 0 skips)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
cd "${CONDLINT_BUILD_DIR:-$root/build}"
status=0
ctest --output-on-failure -j "$(nproc)" || status=$?
# Say which tests skipped and why (ctest hides the reasons of tests that did not fail).
grep -h -o "skipped: .*" Testing/Temporary/LastTest.log 2>/dev/null | sort -u | sed 's/^/ctest: /' || true

# The whole suite again under ASan + UBSan. UBSan reports abort the test (halt_on_error), so
# undefined behaviour fails it like a crash does.
if [ "${CONDLINT_SKIP_SANITIZE:-0}" != 1 ]; then
  asan="$root/build-asan"
  t0=$(date +%s)
  echo "test.sh: sanitizer build (AddressSanitizer + UndefinedBehaviorSanitizer) in $asan"
  CONDLINT_BUILD_DIR="$asan" CONDLINT_CMAKE_ARGS="-DCONDLINT_SANITIZE=ON ${CONDLINT_CMAKE_ARGS:-}" bash "$root/scripts/build.sh"
  t1=$(date +%s)
  (cd "$asan" &&
    UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" \
      ctest --output-on-failure -j "$(nproc)" --timeout 1200) || status=1
  echo "test.sh: sanitizer build $((t1 - t0)) s, sanitizer test run $(($(date +%s) - t1)) s"
fi

# Fuzz smoke: each target for a few seconds, seeded from corpus/ (scripts/fuzz.sh). Needs clang's
# libFuzzer; without it, say so and go on.
secs="${CONDLINT_FUZZ_SECONDS:-20}"
if [ "$secs" = 0 ]; then
  echo "test.sh: fuzz smoke skipped (CONDLINT_FUZZ_SECONDS=0)"
elif command -v clang++ >/dev/null 2>&1 &&
  echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
    clang++ -x c++ -fsanitize=fuzzer,address -o /dev/null - >/dev/null 2>&1; then
  bash "$root/scripts/fuzz.sh" "$secs" || status=1
else
  echo "test.sh: fuzz smoke skipped: clang++ with libFuzzer (-fsanitize=fuzzer) is not installed"
fi
exit "$status"
