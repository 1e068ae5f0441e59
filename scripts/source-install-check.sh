#!/usr/bin/env bash
# Checks the three ways to install condlint from source, each through pyproject.toml's build backend
# (scikit-build-core, as the wheel is built) into a fresh virtual environment under build/source-install/:
#
#   pip install .                          from a clone
#   pip install git+file:///.../clone      what `pip install git+https://github.com/OWNER/condlint@vX.Y.Z` does
#   pip install dist/condlint-X.Y.Z.tar.gz the sdist, built here with scripts/wheel.sh's pinned `build`
#
# After each install the clone is moved away, and from another directory, with a bare environment, `condlint
# --version`, `python -m condlint --version`, `condlint lint` of corpus files and `import condlint` must work (and the
# JSON report on the corpus must be the build tree's executable's, byte for byte, when $CONDLINT_BUILD_DIR, default
# build/, has one). It also checks what the sdist holds (what the `condlint` target builds from, nothing big) and that
# a build missing a Debian -dev package stops with one error naming the packages and the apt-get line.
#
#   bash scripts/source-install-check.sh                  (nice -n 5 on a shared machine)
#   bash scripts/source-install-check.sh --sdist FILE     that sdist only, as the release workflow checks its own
#
# It checks HEAD as committed (it clones the repository and builds the sdist from that clone): commit first. It needs the Debian packages of
# scripts/install-deps.sh that the executable builds against, and PyPI for scikit-build-core and `build`. Not part of
# scripts/test.sh: it compiles condlint three times (ccache, when installed, makes the second and third mostly hits;
# CONDLINT_NO_CCACHE=1 compiles each from nothing). CMAKE_BUILD_PARALLEL_LEVEL (default 2) sets the compile jobs.
set -euo pipefail
given_sdist=""
if [ "${1:-}" = --sdist ]; then
  given_sdist="$(realpath "${2:?--sdist FILE}")"
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${CONDLINT_SOURCE_CHECK_DIR:-$root/build/source-install}"
build="${CONDLINT_BUILD_DIR:-$root/build}"
py="${PYTHON:-python3}"
t_start=$(date +%s)
say() { echo "source-install-check: $*"; }
fail() { echo "source-install-check: FAILED: $*" >&2; exit 1; }
timings=()
lap() { timings+=("$(printf '%-44s %5d s' "$1" $(($(date +%s) - $2)))"); }

version="$(sed -n 's/^project(condlint VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")"
[ -n "$version" ] || fail "no project(condlint VERSION ...) in CMakeLists.txt"
rm -rf "$work"
mkdir -p "$work/tmp" "$work/outside"
# pip clones (git+file) and unpacks (sdist) under $TMPDIR: with it under $work, every build has the same paths
# relative to the ccache base directory, so the second and third builds reuse the first one's objects.
export TMPDIR="$work/tmp"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
if command -v ccache >/dev/null 2>&1 && [ "${CONDLINT_NO_CCACHE:-0}" != 1 ]; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR="$work" CCACHE_NOHASHDIR=1
else
  unset CMAKE_CXX_COMPILER_LAUNCHER
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1

say "condlint $version, $(git -C "$root" log -1 --format='%h %cs') (HEAD of $root)"
# What the lint from outside reads: the corpus as committed.
git -C "$root" archive HEAD corpus | tar -x -C "$work/outside"
clone="$work/clone"

# ---- The sdist: built with the pinned build of scripts/wheel.sh from a clone, or the one given ----
t=$(date +%s)
if [ -n "$given_sdist" ]; then
  sdist="$given_sdist"
  [ "$(basename "$sdist")" = "condlint-$version.tar.gz" ] || fail "$sdist is not condlint-$version.tar.gz"
else
  git clone -q --no-local "$root" "$clone"
  tools="$root/build/wheel-tools"
  [ -x "$tools/bin/python" ] || "$py" -m venv "$tools"
  "$tools/bin/python" -m pip install -q build==1.2.2.post1
  "$tools/bin/python" -m build --sdist --outdir "$work/dist" "$clone" >"$work/sdist.log" 2>&1 ||
    fail "python -m build --sdist (log: $work/sdist.log)"
  sdist="$work/dist/condlint-$version.tar.gz"
  [ -f "$sdist" ] || fail "no $sdist"
fi
listing="$(tar -tzf "$sdist" | sed "s|^condlint-$version/||")"
for need in CMakeLists.txt pyproject.toml README.md cmake/embed_files.cmake cmake/embed_targets.cmake cmake/layers.cmake \
  cmake/check_layers.cmake src/cli/main.cpp data/targets.json reports/template.html reports/report.css reports/report.js \
  rules/C006.md schemas/report.schema.json python/condlint/__init__.py tools/openvino/ov_check.py tools/openvino/ov_run.py \
  tools/ort/ort_check.py; do
  grep -qx -- "$need" <<<"$listing" || fail "the sdist has no $need"
done
# Every rule page the build embeds, and every source file of src/.
for f in $(git -C "$root" ls-files rules/ src/ cmake/ data/ reports/ python/); do
  grep -qx -- "$f" <<<"$listing" || fail "the sdist has no $f"
done
for big in corpus-openvino/ corpus-modern/ bench/ fuzz/ tools/models/ build/ .git/; do
  ! grep -q "^$big" <<<"$listing" || fail "the sdist holds $big"
done
kib=$(( $(stat -c %s "$sdist") / 1024 ))
[ "$kib" -lt 4096 ] || fail "the sdist is $kib KiB (more than 4 MiB: what did it take in?)"
say "sdist: $(basename "$sdist"), $kib KiB, $(wc -l <<<"$listing") files"
lap "sdist (python -m build --sdist)" "$t"

# ---- Install each way, then check it with the clone out of reach ----
check_install() {  # check_install NAME VENV
  local name="$1" venv="$2" exe slug
  slug="$(basename "$venv")"
  [ ! -d "$clone" ] || mv "$clone" "$clone.away"
  # A bare environment, from a directory outside the clone: nothing of the build is on any path.
  local run=(env -i HOME="$HOME" PATH=/usr/bin:/bin LANG=C.UTF-8)
  cd "$work/outside"
  [ "$("${run[@]}" "$venv/bin/condlint" --version)" = "condlint $version" ] || fail "$name: condlint --version"
  [ "$("${run[@]}" "$venv/bin/python" -m condlint --version)" = "condlint $version" ] || fail "$name: python -m condlint --version"
  exe="$("${run[@]}" "$venv/bin/python" -c 'import condlint; print(condlint.binary())')"
  case "$exe" in "$venv"/*) ;; *) fail "$name: the executable is $exe, not inside $venv" ;; esac
  ! ldd "$exe" | grep -q "not found" || fail "$name: unresolved libraries: $(ldd "$exe" | grep "not found")"
  ! ldd "$exe" | grep -q "$work" || fail "$name: a library from the build: $(ldd "$exe" | grep "$work")"
  local code=0 out
  out="$("${run[@]}" "$venv/bin/condlint" lint corpus/ir/invalid/C006_branch_types.xml corpus/onnx/valid 2>&1)" || code=$?
  [ "$code" = 1 ] || fail "$name: condlint lint of a broken model: exit $code, expected 1: $out"
  grep -q "C006" <<<"$out" || fail "$name: no C006 in: $out"
  code=0; "${run[@]}" "$venv/bin/condlint" lint corpus --format json -o "$work/$slug.json" || code=$?
  [ "$code" = 1 ] || fail "$name: condlint lint corpus: exit $code, expected 1"
  "${run[@]}" "$venv/bin/python" - <<'PY' || fail "$name: the Python API"
import condlint
r = condlint.lint(["corpus/ir/invalid/C006_branch_types.xml"])
c006 = r.by_rule("C006")
assert r.exit_code == 1 and [(f.line, f.column, f.node) for f in c006] == [(26, 9, "main/if")], c006
assert condlint.lint(["corpus/onnx/valid"]).ok
PY
  if [ -x "$build/condlint" ]; then
    (cd "$work/outside" && "$build/condlint" lint corpus --format json -o "$work/build.json") || true
    cmp -s "$work/build.json" "$work/$slug.json" || fail "$name: the JSON report on the corpus differs from $build/condlint's"
  fi
  cd "$root"
  [ ! -d "$clone.away" ] || mv "$clone.away" "$clone"
  say "$name: condlint $version works with the source moved away: --version, python -m condlint, lint, import condlint$([ -x "$build/condlint" ] && echo "; the corpus report is $build/condlint's, byte for byte")"
}

new_venv() { rm -rf "$1"; "$py" -m venv "$1"; }

if [ -z "$given_sdist" ]; then
  t=$(date +%s)
  new_venv "$work/venv-dot"
  (cd "$clone" && "$work/venv-dot/bin/pip" install -q .) >"$work/install-dot.log" 2>&1 ||
    fail "pip install . (log: $work/install-dot.log)"
  lap "pip install . (from the clone)" "$t"
  check_install "pip install ." "$work/venv-dot"

  t=$(date +%s)
  new_venv "$work/venv-git"
  "$work/venv-git/bin/pip" install -q "git+file://$clone" >"$work/install-git.log" 2>&1 ||
    fail "pip install git+file://$clone (log: $work/install-git.log)"
  lap "pip install git+file://... (a clone of it)" "$t"
  check_install "pip install git+file://" "$work/venv-git"
fi

t=$(date +%s)
new_venv "$work/venv-sdist"
"$work/venv-sdist/bin/pip" install -q "$sdist" >"$work/install-sdist.log" 2>&1 || fail "pip install $sdist (log: $work/install-sdist.log)"
lap "pip install condlint-$version.tar.gz (sdist)" "$t"
check_install "pip install sdist" "$work/venv-sdist"

# ---- A machine without some -dev packages: one error naming them and the apt-get line ----
t=$(date +%s)
new_venv "$work/venv-fail"
code=0
SKBUILD_CMAKE_DEFINE="CMAKE_DISABLE_FIND_PACKAGE_pugixml=ON;CMAKE_DISABLE_FIND_PACKAGE_ONNX=ON" \
  "$work/venv-fail/bin/pip" install --config-settings=build-dir="$work/fail-build" "$sdist" >"$work/install-fail.log" 2>&1 || code=$?
[ "$code" != 0 ] || fail "pip install without pugixml and onnx succeeded"
[ "$(grep -c "CMake Error" "$work/install-fail.log")" = 1 ] || fail "not one CMake error (log: $work/install-fail.log)"
grep -q "apt-get install -y --no-install-recommends libpugixml-dev libonnx-dev" "$work/install-fail.log" ||
  fail "the error does not give the apt-get line of libpugixml-dev libonnx-dev (log: $work/install-fail.log)"
say "without libpugixml-dev and libonnx-dev: pip install stops with one CMake error:"
sed -n '/CMake Error/,/apt-get install/p' "$work/install-fail.log" | sed 's/^/    /'
lap "pip install, two -dev packages missing" "$t"

rm -rf "$work/tmp"
say "passed"
for l in "${timings[@]}"; do echo "  $l"; done
echo "  $(printf '%-44s %5d s' total $(($(date +%s) - t_start)))"
