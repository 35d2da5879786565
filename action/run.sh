#!/usr/bin/env bash
# The run steps of the abex GitHub Action (action.yml), kept in a script so that a test can
# execute exactly what the action does. Inputs arrive as ABEX_* environment variables (composite
# actions get no INPUT_* variables); GitHub's own variables (GITHUB_EVENT_PATH, GITHUB_TOKEN,
# GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, ...) are read by abex itself.
#
#   install  install `cargo-abex` and put it on PATH: `action/install.sh` (the release binary of
#            the action's version, else a build from its source; or ABEX_BINARY, a built one)
#   analyse  analyse the pull request checked out here with the chosen front end; write the
#            job summary, the step outputs and the report (with the event) for the artifact.
#            No GitHub token is used or passed on: the pull request's code runs here. On the
#            pytest path a model key stays out of the pytest process (which imports the pull
#            request's code, its `.pth` files and entry points first): this script starts itself
#            again without the key in its environment, hands the key to `cargo abex
#            model-proxy` on stdin, and gives pytest the proxy's loopback endpoint and token.
#   post     post a report an `analyse` step uploaded (ABEX_REPORT_DIR) on its pull request,
#            with GITHUB_TOKEN; nothing of the pull request runs here.
#
# Each step's shell `exec`s into this script and this script `exec`s into abex when nothing is
# left to do after it, so the runner's SIGINT and SIGTERM (a cancelled job, `timeout-minutes`)
# reach abex itself, which saves what it finished, and no parent process of the pull request's
# code keeps the key in its environment.
#
# The exit code is abex's: 0, or 1 with fail-on `finding` and a gap found, 2 for a usage or
# configuration error (an input refused here included), 3 for an infrastructure failure, 130,
# 143 or 129 when a signal stopped the run.
set -euo pipefail

# Started again without the key in the environment (see `analyse`): the key comes on fd 3 into
# a variable that is not exported.
api_key=""
if [ -n "${_ABEX_KEY_FD:-}" ]; then
  IFS= read -r api_key <&3 || true
  exec 3<&-
  unset _ABEX_KEY_FD
fi

action_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

say() { echo "abex-action: $*" >&2; }
fail() { say "error: $*"; exit 2; }

# Checks input `$1` (its value `$2`) against the extended regular expression `$3`.
check() {
  [[ "$2" =~ $3 ]] || fail "the input $1 is \`$2\`, which is not $4"
}

install() {
  "$action_dir/action/install.sh"
}

# A duration as the cargo front end takes it (`90s`, `10m`, `1h`, or seconds) in seconds, for
# pytest's --abex-time-budget. The input was checked to be digits and one unit.
seconds() {
  case "$1" in
    *h) echo $(( 10#${1%h} * 3600 )) ;;
    *m) echo $(( 10#${1%m} * 60 )) ;;
    *s) echo $(( 10#${1%s} )) ;;
    *) echo $(( 10#$1 )) ;;
  esac
}

front_end() {
  case "${ABEX_FRONT_END:-auto}" in
    cargo | pytest) echo "$ABEX_FRONT_END" ;;
    auto)
      if [ -f Cargo.toml ]; then echo cargo
      elif [ -f pyproject.toml ] || [ -f setup.py ] || [ -f setup.cfg ]; then echo pytest
      else fail "no Cargo.toml or pyproject.toml in $(pwd); set the front-end input"
      fi ;;
    *) fail "front-end must be auto, cargo or pytest, not '${ABEX_FRONT_END}'" ;;
  esac
}

# Events that run with the repository's secrets and a write token whatever the pull request:
# analysing a checkout other than the workflow's own commit there runs untrusted code with them.
refuse_untrusted_checkout() {
  case "${GITHUB_EVENT_NAME:-}" in
    pull_request_target | workflow_run | issue_comment) ;;
    *) return 0 ;;
  esac
  local head
  head=$(git rev-parse HEAD 2>/dev/null || echo "no commit")
  if [ "$head" = "${GITHUB_SHA:-}" ] || [ "${ABEX_ALLOW_UNTRUSTED:-false}" = true ]; then
    return 0
  fi
  fail "refused: this ${GITHUB_EVENT_NAME} workflow runs with the repository's secrets and a write token, and the checkout ($head) is not the workflow's own commit (${GITHUB_SHA:-unknown}): analysing it would run a pull request's code with them
hint: analyse on \`pull_request\` and post from a \`workflow_run\` job (docs/ci.md, examples/workflows); allow-untrusted-code-with-secrets: true runs it anyway"
}

analyse() {
  local fail_on="${ABEX_FAIL_ON:-never}" budget="${ABEX_BUDGET_USD:-}" time="${ABEX_TIME_BUDGET:-}"
  check fail-on "$fail_on" '^(never|finding)$' 'never or finding'
  [ -z "$budget" ] || check budget-usd "$budget" '^[0-9]{1,6}(\.[0-9]{1,6})?$' 'an amount in US dollars such as 0.50'
  [ -z "$time" ] || check time-budget "$time" '^[0-9]{1,6}[smh]?$' 'a duration such as 600, 90s, 10m or 1h'
  refuse_untrusted_checkout
  local dir="${ABEX_WORKING_DIRECTORY:-.}" fe
  fe=$(cd "$dir" && front_end)
  if [ "$fe" = pytest ] && [ -n "${ABEX_API_KEY:-}" ] && [ -z "$api_key" ]; then
    # The pytest process will run the pull request's code from its first instruction: the key
    # goes to the proxy alone. This shell starts again without it in its environment block.
    exec env -u ABEX_API_KEY -u OPENAI_API_KEY -u GITHUB_TOKEN -u GH_TOKEN _ABEX_KEY_FD=3 bash "$action_dir/action/run.sh" analyse \
      3< <(printf '%s\n' "$ABEX_API_KEY")
  fi
  cd "$dir"
  # No token here, whatever the job's environment holds: the pull request's code runs below.
  unset GITHUB_TOKEN GH_TOKEN
  local base="${ABEX_BASE_REF:-${GITHUB_BASE_REF:-}}" args=()
  if [ -n "$base" ]; then
    git check-ref-format --branch "$base" >/dev/null 2>&1 && [[ "$base" != -* ]] \
      || fail "the input base-ref \`$base\` is not a branch name"
    if ! git rev-parse --verify --quiet "origin/$base^{commit}" >/dev/null; then
      git fetch --quiet --no-tags origin "refs/heads/$base:refs/remotes/origin/$base" 2>/dev/null \
        || say "could not fetch origin/$base; checkout with fetch-depth: 0"
    fi
  fi
  # No key (always the case for a fork's pull request): the built-in offline engine. With one,
  # the model engine reads ABEX_API_KEY, ABEX_MODEL and ABEX_BASE_URL itself.
  local offline=false
  if [ -z "${ABEX_API_KEY:-}" ] && [ -z "$api_key" ]; then
    offline=true
    unset ABEX_API_KEY OPENAI_API_KEY
  fi
  case "$fe" in
    cargo)
      if [ -n "$base" ]; then args+=(--base "origin/$base"); fi
      if $offline; then args+=(--offline); elif [ -n "$budget" ]; then args+=(--budget-usd "$budget"); fi
      if [ -n "$time" ]; then args+=(--time-budget "$(seconds "$time")s"); fi
      exec cargo-abex abex "${args[@]}" --fail-on "$fail_on"
      ;;
    pytest)
      # With a key, the proxy that holds it starts first, from the abex this job installed,
      # before any of the project's Python runs in this step (a `.pth` file of its installed
      # package runs at every interpreter start and could replace that binary).
      local proxied=false
      if [ -n "$api_key" ]; then
        start_proxy "$budget"
        proxied=true
      fi
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
      args=(--abex --abex-fail-on "$fail_on")
      if [ -n "$base" ]; then args+=(--abex-base "origin/$base"); fi
      if $offline; then args+=(--abex-offline); elif [ -n "$budget" ]; then args+=(--abex-budget-usd "$budget"); fi
      if [ -n "$time" ]; then args+=(--abex-time-budget "$(seconds "$time")"); fi
      # The plugin writes the report, the job summary, the step outputs and the annotations.
      if ! $proxied; then
        exec python -m pytest "${args[@]}"
      fi
      pytest_through_proxy "${args[@]}"
      ;;
  esac
}

# Starts `cargo abex model-proxy` (after the budget, $1), which alone holds the key: it reads it
# on stdin; sets `proxy` (its pid), `proxy_url` and `proxy_token`, and forgets the key.
proxy="" proxy_url="" proxy_token=""
start_proxy() {
  local proxy_out proxy_args=()
  if [ -n "$1" ]; then proxy_args+=(--budget-usd "$1"); fi
  proxy_out=$(mktemp)
  cargo-abex abex model-proxy "${proxy_args[@]}" > "$proxy_out" < <(printf '%s\n' "$api_key") &
  proxy=$!
  api_key=""
  for _ in $(seq 100); do
    if [ -s "$proxy_out" ] || ! kill -0 "$proxy" 2>/dev/null; then break; fi
    sleep 0.1
  done
  read -r proxy_url proxy_token < "$proxy_out" || { say "the model proxy did not start"; exit 3; }
  rm -f "$proxy_out"
}

# Runs `python -m pytest ARGS` with the model reached through the proxy; forwards SIGINT, SIGTERM
# and SIGHUP to pytest, waits for it, stops the proxy and exits with pytest's status.
pytest_through_proxy() {
  local child status
  # Started with SIGINT's default action (a background job's is "ignore"), so that it can stop.
  ( trap - INT; ABEX_API_KEY="$proxy_token" ABEX_BASE_URL="$proxy_url" exec python -m pytest "$@" ) &
  child=$!
  trap 'kill -INT "$child" 2>/dev/null || true' INT
  trap 'kill -TERM "$child" 2>/dev/null || true' TERM
  trap 'kill -HUP "$child" 2>/dev/null || true' HUP
  while :; do
    status=0
    wait "$child" || status=$?
    kill -0 "$child" 2>/dev/null || break
  done
  kill "$proxy" 2>/dev/null || true
  wait "$proxy" 2>/dev/null || true
  exit "$status"
}

post() {
  local fail_on="${ABEX_FAIL_ON:-never}" max="${ABEX_MAX_COMMENTS:-30}" identity="${ABEX_IDENTITY:-}"
  local dir="${ABEX_REPORT_DIR:-}"
  check fail-on "$fail_on" '^(never|finding)$' 'never or finding'
  check max-comments "$max" '^[0-9]{1,4}$' 'a number of comments'
  [ -z "$identity" ] || check identity "$identity" '^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$' 'a GitHub login'
  [ -f "$dir/report.json" ] || fail "no report.json in \`$dir\`: the analysis uploaded none (did it run?)"
  local args=("$dir/report.json" --fail-on "$fail_on" --max-comments "$max")
  if [ -n "$identity" ]; then args+=(--identity "$identity"); fi
  # In a `workflow_run` job the pull request comes from the artifact's event (checked against the
  # run's own head); a job that `needs:` the analysis has the pull request's event itself.
  if [ "${GITHUB_EVENT_NAME:-}" = workflow_run ]; then
    [ -f "$dir/event.json" ] || fail "no event.json in \`$dir\` to tell the pull request"
    args+=(--event "$dir/event.json")
  fi
  exec cargo-abex abex post "${args[@]}"
}

# The toolchain part of the scratch build's cache key, as the step output `toolchain=` (letters,
# digits and dots; the rest `-`): set for a crate with rustc on the PATH, left unset otherwise
# (a Python project, no toolchain), which skips the cache step.
scratch_key() {
  cd "${ABEX_WORKING_DIRECTORY:-.}" || fail "no folder \`${ABEX_WORKING_DIRECTORY:-.}\` (the working-directory input)"
  local toolchain
  if [ -f Cargo.toml ] && toolchain=$(rustc --version 2>/dev/null); then
    echo "toolchain=$(printf '%s' "$toolchain" | tr -c 'A-Za-z0-9.' '-')" >> "$GITHUB_OUTPUT"
  fi
}

case "${1:-}" in
  install) install ;;
  analyse) analyse ;;
  post) post ;;
  scratch-key) scratch_key ;;
  *) echo "usage: $0 install|analyse|post|scratch-key" >&2; exit 2 ;;
esac
