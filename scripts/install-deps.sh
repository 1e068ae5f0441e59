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
)

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
