#!/usr/bin/env bash
# Installs what condlint needs to build and test, from Debian's packages only.
# As root it runs apt-get; otherwise it prints the exact command and exits 2.
set -euo pipefail

packages=(
  g++ cmake make pkg-config
  libpugixml-dev libprotobuf-dev protobuf-compiler libonnx-dev
  libcli11-dev libspdlog-dev nlohmann-json3-dev googletest libgtest-dev
  python3-jsonschema   # validates the JSON report against schemas/ in the test suite
  libonnx-testdata     # ONNX node tests with golden data (conformance tests)
  libyaml-cpp-dev      # the .condlint.yaml configuration file
  chromium-headless-shell  # renders the HTML report in the browser test and the demo's screenshot
)

# The SARIF validator (npm @microsoft/sarif-multitool-linux) into tools/sarif/node_modules (gitignored),
# used by the SARIF test and CI. Optional: skipped with a message when npm is unavailable.
root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sarif_tool="$root_dir/tools/sarif/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
if [ -f "$sarif_tool" ]; then
  chmod u+x "$sarif_tool"
elif command -v npm >/dev/null 2>&1; then
  echo "install-deps: installing @microsoft/sarif-multitool-linux into tools/sarif/node_modules"
  mkdir -p "$root_dir/tools/sarif"
  if npm install --prefix "$root_dir/tools/sarif" --no-save --no-audit --no-fund @microsoft/sarif-multitool-linux >/dev/null; then
    chmod u+x "$sarif_tool"  # npm may skip the package's postinstall chmod
  else
    echo "install-deps: npm install failed; the SARIF validation test will be skipped" >&2
  fi
else
  echo "install-deps: npm not found; skipping the SARIF validator (its test will be skipped)"
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
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
