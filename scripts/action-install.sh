#!/usr/bin/env bash
# How the GitHub Action (action.yml) installs condlint VERSION into the virtual environment $CONDLINT_VENV, in order:
#
#   prebuilt  1. the published wheel: pip install --only-binary condlint condlint==VERSION (PyPI, or pip's index)
#             2. else the wheel attached to the GitHub release vVERSION of the action's repository (the release
#                workflow attaches it), found with the GitHub API and installed if it suits this machine
#             Writes installed=pypi|release, or installed= (neither), to $GITHUB_OUTPUT, and the cache key of step 3.
#   source    3. else build it from the action's own checkout: the Debian/Ubuntu -dev packages
#                (scripts/install-deps.sh --build-only, with sudo), then scripts/wheel.sh (pyproject.toml's build,
#                the libraries bundled by auditwheel) into $CONDLINT_WHEEL_CACHE, which action.yml keeps with
#                actions/cache keyed by version and system: a later run installs the cached wheel with no apt-get and
#                no compile. The checkout must be of VERSION (uses: OWNER/condlint@vVERSION).
#
# Environment: CONDLINT_VERSION, CONDLINT_VENV; ACTION_REPOSITORY (owner/name; empty in some composite-action contexts,
# then read from the action's path, .../_actions/OWNER/NAME/REF), ACTION_PATH (the checkout), GH_TOKEN (for the API),
# GITHUB_API_URL (default https://api.github.com), CONDLINT_WHEEL_CACHE.
set -euo pipefail
mode="${1:?usage: action-install.sh prebuilt|source}"
version="${CONDLINT_VERSION:?}"
venv="${CONDLINT_VENV:?}"
action_path="${ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
say() { echo "condlint-action: $*"; }
output() { [ -z "${GITHUB_OUTPUT:-}" ] || echo "$1" >>"$GITHUB_OUTPUT"; }

[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
pip=("$venv/bin/python" -m pip install --disable-pip-version-check -q)

installed_version() { "$venv/bin/condlint" --version 2>/dev/null | sed -n 's/^condlint //p'; }

from_release() {
  local repo="${ACTION_REPOSITORY:-}" api="${GITHUB_API_URL:-https://api.github.com}" dir
  if [ -z "$repo" ]; then
    # .../_actions/OWNER/NAME/REF when the action is named by `uses: OWNER/NAME@REF`.
    repo="$(sed -n 's|.*/_actions/\([^/]*\)/\([^/]*\)/[^/]*$|\1/\2|p' <<<"$action_path")"
  fi
  [ -n "$repo" ] || { say "no repository to look for release v$version in"; return 1; }
  dir="$(mktemp -d)"
  local auth=()
  [ -z "${GH_TOKEN:-}" ] || auth=(-H "Authorization: Bearer $GH_TOKEN")
  if ! curl -fsSL "${auth[@]}" -H "Accept: application/vnd.github+json" "$api/repos/$repo/releases/tags/v$version" \
    -o "$dir/release.json" 2>"$dir/curl.err"; then
    say "no release v$version in $repo ($(tr -d '\n' <"$dir/curl.err"))"
    return 1
  fi
  # Every wheel of this version the release has; pip picks the one this machine takes (or none).
  local urls
  urls="$(python3 -c '
import json, sys
for a in json.load(open(sys.argv[1])).get("assets", []):
    if a["name"].startswith("condlint-" + sys.argv[2] + "-") and a["name"].endswith(".whl"):
        print(a["name"], a["browser_download_url"])' "$dir/release.json" "$version")"
  [ -n "$urls" ] || { say "release v$version of $repo has no wheel"; return 1; }
  local name url
  while read -r name url; do
    curl -fsSL -o "$dir/$name" "$url" || { say "could not download $url"; return 1; }
  done <<<"$urls"
  "${pip[@]}" --no-index --find-links "$dir" "condlint==$version" || {
    say "no wheel of release v$version suits this machine ($(cut -d' ' -f1 <<<"$urls" | tr '\n' ' '))"
    return 1
  }
  say "installed condlint $version from the wheel of release v$version of $repo"
}

case "$mode" in
prebuilt)
  # The key under which step 3 keeps its wheel: the version and the system it was built on.
  os="$(. /etc/os-release && echo "${ID}-${VERSION_ID:-}")"
  output "cache-key=condlint-source-$version-$os-$(uname -m)"
  if "${pip[@]}" --only-binary condlint "condlint==$version" 2>/dev/null; then
    say "installed condlint $version from PyPI"
    output "installed=pypi"
  elif from_release; then
    output "installed=release"
  else
    say "condlint $version is neither on PyPI nor attached to a release for this machine: building it from source"
    output "installed="
    exit 0
  fi
  ;;
source)
  cache="${CONDLINT_WHEEL_CACHE:?}"
  mkdir -p "$cache"
  if ! ls "$cache"/condlint-"$version"-*.whl >/dev/null 2>&1; then
    have="$(sed -n 's/^project(condlint VERSION \([0-9.]*\).*/\1/p' "$action_path/CMakeLists.txt")"
    [ "$have" = "$version" ] || {
      echo "condlint-action: the action's checkout is condlint $have, not $version: name the action at v$version" \
        "(uses: OWNER/condlint@v$version) to build $version, or install a published $version" >&2
      exit 1
    }
    sudo=()
    [ "$(id -u)" = 0 ] || sudo=(sudo)
    "${sudo[@]}" bash "$action_path/scripts/install-deps.sh" --build-only
    CONDLINT_WHEEL_DIR="$cache" bash "$action_path/scripts/wheel.sh"
  else
    say "the wheel built from source before is cached: $(ls "$cache"/condlint-"$version"-*.whl)"
  fi
  "${pip[@]}" --no-index --find-links "$cache" "condlint==$version"
  say "installed condlint $version built from source"
  ;;
*)
  echo "usage: action-install.sh prebuilt|source" >&2
  exit 2
  ;;
esac
[ "$(installed_version)" = "$version" ] || { echo "condlint-action: condlint --version is not $version" >&2; exit 1; }
