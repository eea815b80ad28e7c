# shellcheck shell=bash
# The harness every CLI test script shares. Source it first thing:
#   set -uo pipefail
#   source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
# It makes WORK, a fresh directory removed on exit, and counts failures; the script ends with
# `finish`, which prints the count and exits 1 on any failure (0 otherwise).
#   use_binary PATH        BIN = PATH made absolute (the script may cd elsewhere)
#   on_exit 'COMMAND'      runs COMMAND on exit, before WORK is removed (e.g. killing a job)
#   fail MESSAGE...        prints "FAIL: MESSAGE" and counts one failure
#   expect_exit CODE -- COMMAND...
#                          runs COMMAND with its stdout and stderr in OUTPUT; a failure when it
#                          exits other than CODE. Returns 0 when the code matched, 1 otherwise.
#   expect_contains WHAT NEEDLE TEXT
#                          a failure unless TEXT holds NEEDLE (a fixed string)
#   skip MESSAGE           ends the script: exit 77 (a ctest skip) after "SKIP: MESSAGE", or
#                          exit 1 when checks before it failed
#   finish [MESSAGE]       ends the script: "N failure(s)" and exit 1, or MESSAGE (default "all
#                          checks passed") and exit 0

failures=0
OUTPUT=
WORK=$(mktemp -d)
harness_exit_commands=()

harness_cleanup() {
  local command
  for command in "${harness_exit_commands[@]}"; do eval "$command"; done
  rm -rf "$WORK"
}
trap harness_cleanup EXIT

on_exit() { harness_exit_commands+=("$1"); }

use_binary() {
  # shellcheck disable=SC2034  # BIN is for the sourcing script
  BIN=$(realpath "$1") || { echo "FAIL: binary '$1' not found"; exit 1; }
}

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

expect_exit() {
  local code=$1
  [ "${2:-}" = "--" ] || { fail "expect_exit $code: expected -- before the command"; return 1; }
  shift 2
  OUTPUT=$("$@" 2>&1)
  local rc=$?
  [ "$rc" -eq "$code" ] && return 0
  fail "$*: exit $rc, expected $code: $(tail -5 <<<"$OUTPUT")"
  return 1
}

expect_contains() {
  grep -qF -- "$2" <<<"$3" || fail "$1: output lacks '$2': $(head -c 800 <<<"$3")"
}

skip() {
  if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s) (before the skip: $*)"
    exit 1
  fi
  echo "SKIP: $*"
  exit 77
}

finish() {
  if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)"
    exit 1
  fi
  echo "${1:-all checks passed}"
  exit 0
}
