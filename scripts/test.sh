#!/usr/bin/env bash
# Command 2 of the README (and all that .ci/run does): install what is missing, build, run every test; then the
# same suite built with AddressSanitizer + UndefinedBehaviorSanitizer, and a short fuzz smoke of every fuzz target.
# Prints how long each phase took.
#
# The sanitizer build (build-san/) is also the fuzz build: with clang, one build under ASan + UBSan makes the test
# binaries and the libFuzzer targets (the code under test carries libFuzzer's coverage hooks, which cost nothing
# outside a fuzzer). Without clang it is built with g++ and the fuzz smoke says it is skipped.
#   CONDLINT_SKIP_SANITIZE=1  skip the sanitizer build and its suite   CONDLINT_FUZZ_SECONDS=N  per target (5; 0 skips)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
phases=()
t_start=$(date +%s)
t_phase=$t_start
phase_done() {  # phase_done NAME: records how long the phase that ends now took
  local now
  now=$(date +%s)
  phases+=("$(printf '%-34s %5d s' "$1" $((now - t_phase)))")
  echo "test.sh: $1 took $((now - t_phase)) s"
  t_phase=$now
}
print_phases() {
  echo "test.sh: phases"
  for p in "${phases[@]}"; do echo "  $p"; done
  echo "  $(printf '%-34s %5d s' total $(($(date +%s) - t_start)))"
}

bash "$root/scripts/install-deps.sh"
phase_done "install"
bash "$root/scripts/build.sh"
phase_done "build"
status=0
(cd "${CONDLINT_BUILD_DIR:-$root/build}" && ctest --output-on-failure -j "$(nproc)") || status=$?
# Say which tests skipped and why (ctest hides the reasons of tests that did not fail).
grep -h -o "skipped: .*" "${CONDLINT_BUILD_DIR:-$root/build}/Testing/Temporary/LastTest.log" 2>/dev/null | sort -u |
  sed 's/^/ctest: /' || true
phase_done "test suite"

have_libfuzzer() {
  command -v clang++ >/dev/null 2>&1 &&
    echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
      clang++ -x c++ -fsanitize=fuzzer,address -o /dev/null - >/dev/null 2>&1
}

san="$root/build-san"
fuzz_ready=0
if [ "${CONDLINT_SKIP_SANITIZE:-0}" != 1 ]; then
  san_args="-DCONDLINT_SANITIZE=ON -DCONDLINT_BENCH=OFF"
  if have_libfuzzer; then
    san_args="$san_args -DCMAKE_CXX_COMPILER=clang++ -DCONDLINT_FUZZ=ON"
    fuzz_ready=1
  fi
  echo "test.sh: sanitizer build (AddressSanitizer + UndefinedBehaviorSanitizer$([ $fuzz_ready = 1 ] && echo ', with the fuzz targets')) in $san"
  CONDLINT_BUILD_DIR="$san" CONDLINT_CMAKE_ARGS="$san_args ${CONDLINT_CMAKE_ARGS:-}" bash "$root/scripts/build.sh"
  phase_done "sanitizer build"
  # UBSan reports abort the test (halt_on_error), so undefined behaviour fails it like a crash does.
  # Under the sanitizers every test runs except those that repeat, at scale or against another runtime, code paths
  # that smaller tests of the suite already take there (they ran above, unsanitized): the Python differential tests
  # (RealWorld.*: thousands of condlint runs on mutants and real models), the 108 OpenVINO-written IRs run against
  # their golden data (CorpusOpenvino.*), the IR half of the C014 differential (OpenVINO converting and running 12
  # generated models: Differential.C014.ir_sample; the ONNX half runs),
  # the real models through the installed runtimes' live checks and OpenVINO's reader at the depths it crashes
  # (children the sanitizers do not see into), the Python API over the CLI, the wire-level strip of every corpus model
  # (OnnxWire's own tests and the fuzz targets take that code), the NNAPI export of 10,000 nested and 2^40
  # shared IFs, the comparisons with ONNX Runtime over every CTS vector and node test, and the byte-for-byte merge of
  # 1, 3 and 7 shares (44 condlint runs; the other Merge tests take its code paths), and the CLI repeats of what
  # the library tests take there: 10,000 nested IR Ifs through the CLI (Hostile.IrIfsNested10000Deep has them),
  # one versus two loader threads (ASan does not see races), the exit codes of merge, the CI documents' sharded
  # command lines, and the diffs against a Python test runtime (DiffRef takes the diff code); the memory bounds
  # (ASan's allocator and shadow memory make RSS figures meaningless there: a 4 MB dims list and a 384 MiB weights
  # file, whose limits and paths smaller Hostile tests take), the real Silero model through run and diff with
  # synthesized inputs (FirstHour.SynthesizedInputsKeepTheShapesGiven; ExecOnnx tests take the executor there), and
  # the CLI merges of the HTML pages and of missing, cut or foreign shares (the Merge library tests take that code).
  # Together they are two thirds of the sanitized suite's time (docs/hardening.md). CONDLINT_SANITIZED_SUITE=1: the tests that end
  # in an external validator (the SARIF Multitool, headless Chromium) run condlint sanitized and leave the validator's
  # verdict on the same bytes to the suite above (about 90 s of test time).
  san_skip='^(RealWorld\.|CorpusOpenvino\.|Differential\.C014\.ir_sample$|LiveTargets\.RealWorldModelsUnderBothTargets$|Targets\.IrNestingAtTheDepthsOpenVinosReaderCrashesOrStallsAt$|Python\.CondlintApi$|OnnxWire\.EveryCorpusModelLintsAsFromItsWholeBytes$|ExportNnapi\.(HostileNestingAndCycles|CtsVectorsAgreeWithTheNnapiExecutor|OnnxRuntimeAgreesWithTheExamples)$|DiffOrt\.NodeTestsRefAgreesWithOnnxRuntime$|Merge\.(SharesGiveTheUnshardedReportByteForByte|TheExitCodeFollowsFailOnOverTheMergedResults)$|IrLoader\.(TenThousandNestedIfsThroughTheCli|TwoCoresGiveTheModelAndFindingsOfOne)$|Hostile\.(NnapiDimensionsListOfMillionsStaysWithinTheMemoryBound|OnnxWeightsInTheFileAreNeverCopied)$|FirstHour\.SynthesizedInputsKeepTheShapesGiven$|Merge\.(TheHtmlPageOfTheSharesIsTheUnshardedLintsPage|AMissingRepeatedCutOrForeignShareIsAnError)$|CiDocs\.ShardedCommandLinesRunAndTheirMergeIsTheUnshardedReport$|DiffCmd\.(PerturbedOutputIsCaughtEverywhere|DivergenceInOneBranchOnlyIsNamed)$)'
  (cd "$san" &&
    UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" \
      CONDLINT_SANITIZED_SUITE=1 ctest --output-on-failure -j "$(nproc)" --timeout 1200 -E "$san_skip") || status=1
  phase_done "sanitizer test suite"
fi

# Fuzz smoke: each target for a few seconds, seeded from corpus/ (scripts/fuzz.sh), built above.
secs="${CONDLINT_FUZZ_SECONDS:-5}"
if [ "$secs" = 0 ]; then
  echo "test.sh: fuzz smoke skipped (CONDLINT_FUZZ_SECONDS=0)"
elif [ "${CONDLINT_SKIP_SANITIZE:-0}" = 1 ]; then
  echo "test.sh: fuzz smoke skipped: it runs the sanitizer build's fuzz targets (CONDLINT_SKIP_SANITIZE=1)"
elif [ "$fuzz_ready" = 1 ]; then
  CONDLINT_FUZZ_BUILD_DIR="$san" bash "$root/scripts/fuzz.sh" "$secs" || status=1
  phase_done "fuzz smoke"
else
  echo "test.sh: fuzz smoke skipped: clang++ with libFuzzer (-fsanitize=fuzzer) is not installed"
fi
print_phases
exit "$status"
