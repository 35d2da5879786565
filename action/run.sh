#!/usr/bin/env bash
# The run steps of the abex GitHub Action (action.yml), kept in a script so that a test can
# execute exactly what the action does. Inputs arrive as ABEX_* environment variables (composite
# actions get no INPUT_* variables); GitHub's own variables (GITHUB_EVENT_PATH, GITHUB_TOKEN,
# GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, ...) are read by `cargo abex` itself.
#
#   install  install `cargo-abex` and put it on PATH: `action/install.sh` (the release binary of
#            the action's version, else a build from its source; or ABEX_BINARY, a built one)
#   run      analyse the pull request with the chosen front end, post the review (not from a
#            fork: its token is read-only), write the job summary and the step outputs
#
# The exit code is abex's: 0, or 1 with fail-on `finding` and a gap found, 2 for a usage
# error, 3 for an infrastructure failure. A failure to post is a warning, never an exit code.
set -euo pipefail

# Secrets: the token and the model's key arrive in this step's environment, which every process
# of the same user can read in /proc/<pid>/environ for as long as this shell lives. So the shell
# first starts itself again without them, receiving them through a pipe into variables it does
# not export; each is then handed to the abex process that needs it alone (the analysis gets the
# key, the poster the token), and abex withholds it from the project's code (docs/ci.md).
if [ "${1:-}" = run ] && [ -z "${_ABEX_SECRETS_FD:-}" ]; then
  exec env -u GITHUB_TOKEN -u GH_TOKEN -u ABEX_API_KEY -u OPENAI_API_KEY _ABEX_SECRETS_FD=3 \
    bash "${BASH_SOURCE[0]}" "$@" \
    3< <(printf '%s\n%s\n' "${GITHUB_TOKEN:-}" "${ABEX_API_KEY:-${OPENAI_API_KEY:-}}")
fi
github_token="" api_key=""
if [ -n "${_ABEX_SECRETS_FD:-}" ]; then
  IFS= read -r github_token <&3 || true
  IFS= read -r api_key <&3 || true
  exec 3<&-
  unset _ABEX_SECRETS_FD
fi

action_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

say() { echo "abex-action: $*" >&2; }

install() {
  "$action_dir/action/install.sh"
}

# A duration as the cargo front end takes it (`90s`, `10m`, `1h`, or seconds) in seconds, for
# pytest's --abex-time-budget.
seconds() {
  case "$1" in
    *h) echo $(( ${1%h} * 3600 )) ;;
    *m) echo $(( ${1%m} * 60 )) ;;
    *s) echo "${1%s}" ;;
    *) echo "$1" ;;
  esac
}

# Runs a command with the token ($1) and the model's key ($2) in its environment, each only when
# given.
with_secrets() {
  local token=$1 key=$2 vars=()
  shift 2
  if [ -n "$token" ]; then vars+=("GITHUB_TOKEN=$token"); fi
  if [ -n "$key" ]; then vars+=("ABEX_API_KEY=$key"); fi
  env "${vars[@]}" "$@"
}

front_end() {
  case "${ABEX_FRONT_END:-auto}" in
    cargo | pytest) echo "$ABEX_FRONT_END" ;;
    auto)
      if [ -f Cargo.toml ]; then echo cargo
      elif [ -f pyproject.toml ] || [ -f setup.py ] || [ -f setup.cfg ]; then echo pytest
      else say "no Cargo.toml or pyproject.toml in $(pwd); set the front-end input"; exit 2
      fi ;;
    *) say "front-end must be auto, cargo or pytest, not '${ABEX_FRONT_END}'"; exit 2 ;;
  esac
}

run() {
  cd "${ABEX_WORKING_DIRECTORY:-.}"
  local base="${ABEX_BASE_REF:-${GITHUB_BASE_REF:-}}" args=()
  if [ -n "$base" ]; then
    if ! git rev-parse --verify --quiet "origin/$base^{commit}" >/dev/null; then
      git fetch --quiet --no-tags origin "$base:refs/remotes/origin/$base" 2>/dev/null \
        || say "could not fetch origin/$base; checkout with fetch-depth: 0"
    fi
    args+=(--base "origin/$base")
  fi
  # No key (always the case for a fork's pull request): the built-in offline engine.
  # With one, the model engine reads ABEX_API_KEY, ABEX_MODEL and ABEX_BASE_URL itself.
  if [ -z "$api_key" ]; then
    args+=(--offline)
  elif [ -n "${ABEX_BUDGET_USD:-}" ]; then
    args+=(--budget-usd "$ABEX_BUDGET_USD")
  fi
  if [ -n "${ABEX_TIME_BUDGET:-}" ]; then args+=(--time-budget "$ABEX_TIME_BUDGET"); fi
  local post=(--fail-on "${ABEX_FAIL_ON:-never}" --max-comments "${ABEX_MAX_COMMENTS:-30}")
  local want_post=false
  if [ "${ABEX_POST:-true}" = true ] && [ -n "$github_token" ] && [ -n "${GITHUB_EVENT_PATH:-}" ]; then
    want_post=true
  fi
  local status=0
  case "$(front_end)" in
    cargo)
      if $want_post; then post+=(--post-review); fi
      with_secrets "$github_token" "$api_key" cargo-abex abex "${args[@]}" "${post[@]}" || status=$?
      ;;
    pytest)
      # The plugin writes the same report; posting and the job summary are the core's.
      if ! python -c "import pytest_abex" 2>/dev/null; then
        # The wheel of the action's release (no compiler), else a build from its own source.
        local version
        version=$("$action_dir/action/install.sh" version)
        if [ -n "$version" ] && python -m pip install --quiet --only-binary pytest-abex \
          "pytest-abex==$version"; then
          say "installed the pytest-abex $version wheel"
        else
          say "installing pytest-abex from $action_dir/pytest-abex (builds its core)"
          python -m pip install --quiet "$action_dir/pytest-abex" \
            || { say "failed to install pytest-abex"; exit 3; }
        fi
      fi
      local py=(--abex)
      if [ -n "$base" ]; then py+=(--abex-base "origin/$base"); fi
      if [ -z "$api_key" ]; then
        py+=(--abex-offline)
      elif [ -n "${ABEX_BUDGET_USD:-}" ]; then
        py+=(--abex-budget-usd "$ABEX_BUDGET_USD")
      fi
      if [ -n "${ABEX_TIME_BUDGET:-}" ]; then
        py+=(--abex-time-budget "$(seconds "$ABEX_TIME_BUDGET")")
      fi
      # The project's tests run here: the key only, which the plugin withholds before any
      # conftest.py is imported; the token reaches only the poster, after the tests.
      # The job summary and outputs are the poster's alone (written once).
      GITHUB_STEP_SUMMARY="" GITHUB_OUTPUT="" with_secrets "" "$api_key" python -m pytest "${py[@]}" \
        || status=$?
      if [ -f .abex/out/report.json ]; then
        local sub=(post)
        $want_post || sub+=(--summary-only)
        local posted=0
        with_secrets "$github_token" "" cargo-abex abex "${sub[@]}" .abex/out/report.json "${post[@]}" \
          || posted=$?
        if [ "$status" -eq 0 ]; then status=$posted; fi
      fi
      ;;
  esac
  # The event travels with the report, for a `workflow_run` job that posts it (docs/ci.md).
  if [ -d .abex/out ] && [ -n "${GITHUB_EVENT_PATH:-}" ] && [ -f "$GITHUB_EVENT_PATH" ]; then
    cp "$GITHUB_EVENT_PATH" .abex/out/event.json
  fi
  return "$status"
}

case "${1:-}" in
  install) install ;;
  run) run ;;
  *) echo "usage: $0 install|run" >&2; exit 2 ;;
esac
