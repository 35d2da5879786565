#!/usr/bin/env bash
# Installs `cargo-abex` for the abex GitHub Action (action.yml), kept in a script so that a test
# can run exactly what the action does against a fake release server.
#
#   fetch    take ABEX_BINARY (an already built `cargo-abex`, which the tests use), or, when the
#            action's source is a release's (see below), download that release's archive for
#            this runner, check it against the SHA-256 the source holds and install it; write the
#            step outputs `installed` (true, or false: build it) and `build-key` (the cache key
#            of the build fallback)
#   build    the fallback: build `cargo-abex` from the action's own source, into a target folder
#            that action.yml restores and saves with actions/cache under `build-key`
#   version  print the release version of the action's source (nothing: not a release's source)
#   digest   print the digest of the action's source (what the release workflow records)
#   (none)   fetch, then build when nothing was fetched
#
# Trust comes from the action's own source, which the workflow pinned: `action/release-sums.txt`,
# committed by the release workflow, names the version and the digest of the source the release
# binaries were built from, and the SHA-256 of each archive. The archive is used only when the
# source checked out has that digest (a pinned commit that is not a release's builds from
# source, never runs an older binary) and only when its SHA-256 is the one committed (a changed
# release asset is refused, exit 3, never built in its place). ABEX_RELEASE_URL replaces the
# releases' base URL, `https://github.com/<ABEX_ACTION_REPOSITORY>/releases/download` (a mirror,
# or a test's server).
set -euo pipefail

action_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sums="$action_dir/action/release-sums.txt"
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

# SHA-256 of the files named on stdin (NUL-separated), one `<hash>  <path>` line each.
sha256_lines() {
  if command -v sha256sum >/dev/null 2>&1; then xargs -0 sha256sum; else xargs -0 shasum -a 256; fi
}

# SHA-256 of stdin.
sha256_stdin() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi | cut -d' ' -f1
}

sha256() { sha256_stdin < "$1"; }

# The digest of the source `cargo-abex` is built from: the SHA-256 of the list of its files'
# SHA-256s, sorted by path (the workspace manifest and lockfile, the core, the CLI, the prompts).
digest() {
  (cd "$action_dir" && find Cargo.toml Cargo.lock src cargo-abex/Cargo.toml cargo-abex/src prompts \
    -type f -print0 | LC_ALL=C sort -z | sha256_lines | sha256_stdin)
}

# The version of the action's source ([workspace.package] in Cargo.toml, its first `version`).
source_version() { sed -n 's/^version = "\(.*\)"$/\1/p' "$action_dir/Cargo.toml" | head -1; }

# The release version of the action's source: the sums file names this version and this source's
# digest; nothing otherwise.
release_version() {
  [ -f "$sums" ] || return 0
  local version
  version=$(source_version)
  if grep -qxF "source $version $(digest)" "$sums"; then echo "$version"; fi
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
  local version target base expected
  version=$(release_version)
  target=$(release_target)
  if [ -z "$version" ]; then
    say "the action's source is not a release's (no sums for its version and digest in action/release-sums.txt): building abex from it"
    output installed false
    return
  fi
  expected=$(awk -v t="$target" '$1 == t { print $2 }' "$sums")
  base="${ABEX_RELEASE_URL:-}"
  if [ -z "$base" ] && [ -n "${ABEX_ACTION_REPOSITORY:-}" ]; then
    base="https://github.com/$ABEX_ACTION_REPOSITORY/releases/download"
  fi
  if [ -z "$target" ] || [ -z "$expected" ] || [ -z "$base" ]; then
    say "no release binary of $version for $(uname -s) $(uname -m): building abex"
    output installed false
    return
  fi
  local name="cargo-abex-$target-v$version"
  local url="${base%/}/v$version/$name.tar.gz" work status actual
  work=$(mktemp -d)
  status=$(download "$url" "$work/$name.tar.gz")
  if [ "$status" != 200 ]; then
    say "no release asset $url (HTTP $status): building abex from the action's source"
    rm -rf "$work"
    output installed false
    return
  fi
  actual=$(sha256 "$work/$name.tar.gz")
  if ! [[ "$expected" =~ ^[0-9a-f]{64}$ ]] || [ "$expected" != "$actual" ]; then
    say "error: checksum mismatch for $url: the action's source says ${expected:-nothing}, the download is $actual"
    say "refusing to install it (hint: the release asset was changed after the release, or the sums file is wrong)"
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
  say "installed cargo-abex $version ($target) from $url, SHA-256 $actual verified against the action's source"
  publish
  output installed true
}

build() {
  mkdir -p "$bin_dir"
  say "building cargo-abex from $action_dir (cargo install --locked)"
  # From the action's folder: Cargo reads configuration from the working folder up, and the
  # checkout of the pull request (the job's working folder) is not to configure this build.
  (cd "$action_dir" && CARGO_TARGET_DIR="$build_dir" cargo install --locked --quiet \
    --path "$action_dir/cargo-abex" --root "$root") \
    || { say "failed to build abex from $action_dir"; exit 3; }
  publish
}

case "${1:-}" in
  fetch) fetch ;;
  build) build ;;
  version) release_version ;;
  digest) digest ;;
  "")
    outputs=$(mktemp)
    GITHUB_OUTPUT="$outputs" fetch
    installed=$(sed -n 's/^installed=//p' "$outputs")
    rm -f "$outputs"
    if [ "$installed" != true ]; then build; fi
    ;;
  *) echo "usage: $0 [fetch|build|version|digest]" >&2; exit 2 ;;
esac
