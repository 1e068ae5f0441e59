#!/usr/bin/env bash
# Installs the wheel on a fresh Debian (a debootstrap minbase root: none of the build's packages, no checkout, no
# build tree) into a new virtual environment, and checks that it works there: `condlint`, `python -m condlint` and
# `import condlint` lint the corpus and give the JSON report the build tree's executable gives, byte for byte.
#
#   bash scripts/wheel-check.sh [WHEEL]      (default: the newest dist/condlint-*.whl; scripts/wheel.sh makes it)
#
# Needs root and debootstrap (apt-get install debootstrap). The root is made once (a few minutes: debootstrap, then
# python3 and python3-venv, which a machine needs to pip-install anything) and kept in $CONDLINT_FRESH_ROOT
# (default /var/tmp/condlint-fresh-<suite>) for later runs; `rm -rf` it to start over. CONDLINT_FRESH_SUITE picks
# the Debian release (default bookworm, Debian 12). The comparison with the build tree uses $CONDLINT_BUILD_DIR
# (default build/) when it has an executable. Not part of scripts/test.sh: it takes minutes and needs root.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
suite="${CONDLINT_FRESH_SUITE:-bookworm}"
fresh="${CONDLINT_FRESH_ROOT:-/var/tmp/condlint-fresh-$suite}"
mirror="${CONDLINT_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
wheel="${1:-$(ls -t "$root"/dist/condlint-*.whl 2>/dev/null | head -n 1)}"
t_start=$(date +%s)
say() { echo "wheel-check: $*"; }
fail() { echo "wheel-check: FAILED: $*" >&2; exit 1; }

[ -n "$wheel" ] && [ -f "$wheel" ] || fail "no wheel (run scripts/wheel.sh, or name one)"
[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || fail "needs debootstrap (apt-get install debootstrap)"

if [ ! -x "$fresh/usr/bin/python3" ] || [ ! -f "$fresh/.condlint-ready" ]; then
  say "making a $suite minbase root in $fresh"
  rm -rf "$fresh"
  debootstrap --variant=minbase "$suite" "$fresh" "$mirror" >"$fresh.log" 2>&1 || fail "debootstrap (log: $fresh.log)"
  cp /etc/resolv.conf "$fresh/etc/"
  chroot "$fresh" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
    sh -c 'apt-get update && apt-get install -y --no-install-recommends python3 python3-venv' >>"$fresh.log" 2>&1 ||
    fail "installing python3 in the root (log: $fresh.log)"
  touch "$fresh/.condlint-ready"
fi
t_root=$(date +%s)

# What the check needs inside: the wheel and the corpus as committed (git archive: no build products).
work="$fresh/check"
rm -rf "$work"
mkdir -p "$work"
cp "$wheel" "$work/"
git -C "$root" archive HEAD corpus | tar -x -C "$work"
mounted=()
cleanup() {
  local m
  for m in "${mounted[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT
mount -t proc proc "$fresh/proc" && mounted+=("$fresh/proc")
mount --bind /dev "$fresh/dev" && mounted+=("$fresh/dev")

expected_version="$(sed -n 's/^project(condlint VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")"
set +e
chroot "$fresh" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
  WHEEL="/check/$(basename "$wheel")" VERSION="$expected_version" bash -euo pipefail -c '
cd /check
say() { echo "wheel-check (inside): $*"; }
# Nothing of the build is here: no -dev package, no compiler, no checkout.
dev="$(dpkg-query -W -f "\${Package}\n" | grep -E -- "-dev$|^g\+\+|^cmake$" || true)"
[ -z "$dev" ] || { echo "build packages present: $dev" >&2; exit 1; }
[ ! -e /work ] || { echo "/work is visible" >&2; exit 1; }
say "$(. /etc/os-release; echo "$PRETTY_NAME"), glibc $(ldd --version | head -n 1 | grep -o "[0-9.]*$"), $(python3 --version)"
python3 -m venv /check/venv
/check/venv/bin/pip install --no-index --disable-pip-version-check -q "$WHEEL"
export PATH="/check/venv/bin:$PATH"
exe="$(python -c "import condlint; print(condlint.binary())")"
say "installed: $(condlint --version) at $exe"
[ "$(condlint --version)" = "condlint $VERSION" ] || { echo "version is not $VERSION" >&2; exit 1; }
missing="$(ldd "$exe" | grep "not found" || true)"
[ -z "$missing" ] || { echo "unresolved libraries: $missing" >&2; exit 1; }
say "libraries: $(ldd "$exe" | grep -c "condlint.libs") from the wheel, the rest from the system: $(ldd "$exe" | grep -v condlint.libs | grep -o "^[[:space:]]*[^ ]*" | tr -d "\t" | tr "\n" " ")"
code=0; condlint lint corpus --format json -o wheel.json || code=$?
[ "$code" = 1 ] || { echo "condlint lint corpus: exit $code, expected 1 (the corpus has broken models)" >&2; exit 1; }
code=0; python -m condlint lint corpus --format json -o wheel-m.json || code=$?
[ "$code" = 1 ] && cmp -s wheel.json wheel-m.json || { echo "python -m condlint differs (exit $code)" >&2; exit 1; }
condlint lint corpus --sarif wheel.sarif --html wheel.html >wheel.txt || true
tail -n 1 wheel.txt
python - <<PY
import json, condlint
r = condlint.lint(["corpus"])
assert r.exit_code == 1 and r.raw == json.load(open("wheel.json")), "lint() is not the command line report"
c006 = [f for f in r.by_rule("C006") if f.path == "corpus/ir/invalid/C006_branch_types.xml"]
assert [(f.line, f.column, f.node) for f in c006] == [(26, 9, "main/if")], c006
assert condlint.lint(["corpus/onnx/valid"]).ok
print("wheel-check (inside): import condlint: %d findings (%d errors) in %d files, C006 at %s" % (
    len(r), len(r.errors), len(r.files), c006[0].location))
PY
'
status=$?
set -e
[ "$status" = 0 ] || fail "inside the fresh root (exit $status)"

# The same report as the build tree's executable, byte for byte (same relative paths: lint from a copy of the
# corpus); the build tree should be of the same commit.
build="$(realpath -m "${CONDLINT_BUILD_DIR:-$root/build}")"
if [ -x "$build/condlint" ]; then
  cmp_dir="$(mktemp -d)"
  cp -r "$work/corpus" "$cmp_dir/"
  (cd "$cmp_dir" && "$build/condlint" lint corpus --format json -o build.json) || true
  # A few messages name a file by its absolute path: the copy's directory is /check inside the root.
  sed -i "s|$cmp_dir/|/check/|g" "$cmp_dir/build.json"
  cmp -s "$cmp_dir/build.json" "$work/wheel.json" || fail "the wheel's report differs from $build/condlint's"
  rm -rf "$cmp_dir"
  say "the wheel's JSON report on the corpus is $build/condlint's, byte for byte"
else
  say "no $build/condlint: report not compared with the build tree's"
fi
say "passed: $(basename "$wheel") on a fresh $suite; root $((t_root - t_start)) s, check $(($(date +%s) - t_root)) s"
