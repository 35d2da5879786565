#!/usr/bin/env bash
# Installs `cargo-abex` for the abex GitHub Action (action.yml), kept in a script so that a test
# can run exactly what the action does against a fake release server.
#
#   fetch    take ABEX_BINARY (an already built `cargo-abex`, which the tests use), or download
#            the release archive of the action's own version for this runner, verify its SHA-256
#            and install it; write the step outputs `installed` (true, or false when there is no
#            such release asset) and `build-key` (the cache key of the build fallback)
#   build    the fallback: build `cargo-abex` from the action's own source, into a target folder
#            that action.yml restores and saves with actions/cache under `build-key`
#   version  print the release version the action's ref names (nothing: a branch, build it)
#   (none)   fetch, then build when nothing was fetched
#
# The action's ref and repository arrive as ABEX_ACTION_REF and ABEX_ACTION_REPOSITORY (composite
# actions see `github.action_ref` only through `env:`). ABEX_RELEASE_URL replaces the releases'
# base URL, `https://github.com/<repository>/releases/download` (a mirror, or a test's server).
# Exit codes: 0 installed or nothing to download; 3 a download refused (its checksum does not
# match: never installed, never replaced by a build) or a failed build.
set -euo pipefail

action_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
root="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/abex"
bin_dir="$root/bin"
build_dir="$root/build"

say() { echo "abex-action: $*" >&2; }

output() { echo "$1=$2" >> "${GITHUB_OUTPUT:-/dev/null}"; }

# Puts the installed binary on PATH for this step and, through GITHUB_PATH, for the later ones.
publish() {
  echo "$bin_dir" >> "${GITHUB_PATH:-/dev/null}"
  export PATH="$bin_dir:$PATH"
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1
}

# The version of the action's own source ([workspace.package] in Cargo.toml, its first `version`).
source_version() { sed -n 's/^version = "\(.*\)"$/\1/p' "$action_dir/Cargo.toml" | head -1; }

# The release whose binary matches the action's ref: a version tag names itself; a major or
# minor tag (`v1`, `v1.2`), a commit SHA (pinned as a release's commit) or an unknown ref takes
# the version of the source it checked out; a branch names none (its code is not a release).
release_version() {
  local ref="${ABEX_ACTION_REF:-}"
  if [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+ ]]; then
    echo "${ref#v}"
  elif [ -z "$ref" ] || [[ "$ref" =~ ^v[0-9]+(\.[0-9]+)?$ ]] || [[ "$ref" =~ ^[0-9a-f]{40}$ ]]; then
    source_version
  fi
}

# The release target of this runner (.github/workflows/release.yml builds these four).
release_target() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo x86_64-unknown-linux-musl ;;
    Linux-aarch64 | Linux-arm64) echo aarch64-unknown-linux-musl ;;
    Darwin-x86_64) echo x86_64-apple-darwin ;;
    Darwin-arm64) echo aarch64-apple-darwin ;;
  esac
}

# Downloads $1 into $2 and prints the HTTP status (000 when no server answered).
download() {
  curl --silent --location --retry 2 --connect-timeout 10 --max-time 600 \
    --output "$2" --write-out '%{http_code}' "$1" 2>/dev/null || true
}

fetch() {
  mkdir -p "$bin_dir"
  output build-key "abex-build-$(uname -s)-$(uname -m)-$(sha256 "$action_dir/Cargo.lock")"
  if [ -n "${ABEX_BINARY:-}" ]; then
    say "using the prebuilt $ABEX_BINARY"
    ln -sf "$ABEX_BINARY" "$bin_dir/cargo-abex"
    publish
    output installed true
    return
  fi
  local version target base
  version=$(release_version)
  target=$(release_target)
  base="${ABEX_RELEASE_URL:-}"
  if [ -z "$base" ] && [ -n "${ABEX_ACTION_REPOSITORY:-}" ]; then
    base="https://github.com/$ABEX_ACTION_REPOSITORY/releases/download"
  fi
  if [ -z "$version" ] || [ -z "$target" ] || [ -z "$base" ]; then
    say "no release binary for ref '${ABEX_ACTION_REF:-}' on $(uname -s) $(uname -m): building abex"
    output installed false
    return
  fi
  local name="cargo-abex-$target-v$version"
  local url="${base%/}/v$version/$name.tar.gz" work status
  work=$(mktemp -d)
  # The checksum first: a release without one is no release to trust.
  status=$(download "$url.sha256" "$work/$name.tar.gz.sha256")
  if [ "$status" = 200 ]; then
    status=$(download "$url" "$work/$name.tar.gz")
  fi
  if [ "$status" != 200 ]; then
    say "no release asset $url (HTTP $status): building abex from the action's source"
    rm -rf "$work"
    output installed false
    return
  fi
  local expected actual
  expected=$(head -c 64 "$work/$name.tar.gz.sha256" | tr 'A-F' 'a-f')
  actual=$(sha256 "$work/$name.tar.gz")
  if ! [[ "$expected" =~ ^[0-9a-f]{64}$ ]] || [ "$expected" != "$actual" ]; then
    say "error: checksum mismatch for $url: the release says ${expected:-nothing}, the download is $actual"
    say "refusing to install it (hint: download it again; if it persists, the release asset or its .sha256 was changed)"
    rm -rf "$work"
    exit 3
  fi
  tar -xzf "$work/$name.tar.gz" -C "$work"
  if [ ! -f "$work/$name/cargo-abex" ]; then
    say "error: $url holds no $name/cargo-abex"
    rm -rf "$work"
    exit 3
  fi
  install -m 755 "$work/$name/cargo-abex" "$bin_dir/cargo-abex"
  rm -rf "$work"
  say "installed cargo-abex $version ($target) from $url, SHA-256 $actual verified"
  publish
  output installed true
}

build() {
  mkdir -p "$bin_dir"
  say "building cargo-abex from $action_dir (cargo install --locked)"
  CARGO_TARGET_DIR="$build_dir" cargo install --locked --quiet --path "$action_dir/cargo-abex" \
    --root "$root" || { say "failed to build abex from $action_dir"; exit 3; }
  publish
}

case "${1:-}" in
  fetch) fetch ;;
  build) build ;;
  version) release_version ;;
  "")
    outputs=$(mktemp)
    GITHUB_OUTPUT="$outputs" fetch
    installed=$(sed -n 's/^installed=//p' "$outputs")
    rm -f "$outputs"
    if [ "$installed" != true ]; then build; fi
    ;;
  *) echo "usage: $0 [fetch|build|version]" >&2; exit 2 ;;
esac
