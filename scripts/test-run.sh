#!/usr/bin/env bash
# Usage: scripts/test-run.sh SECONDS COMMAND [ARG...]
#
# Runs one test run (`swift test ...`) under scripts/watchdog.sh, then lists
# every test it skipped, each with its reason (a test that needs root, a tool
# or a virtual machine this machine lacks says which, and how to get it).
# In CI (CI=true) a skipped test fails the run: CI must run every test.
# Exits with the run's status, or 1 for a CI run that skipped tests.
set -uo pipefail
limit=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
started=$SECONDS
"$(dirname "$0")/watchdog.sh" "$limit" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
# Swift Testing's line for each skipped test: ➜ Test "NAME" skipped: "REASON"
skipped=$(sed -nE 's/^[^ ]* Test "(.*)" skipped(: "(.*)")?$/  \1: \3/p' "$log")
if [ -z "$skipped" ]; then
    echo "test-run: no test skipped"
else
    echo "test-run: $(printf '%s\n' "$skipped" | wc -l) test(s) skipped:"
    printf '%s\n' "$skipped"
    if [ "${CI:-}" = true ]; then
        echo "test-run: CI must run every test; a skipped one fails the run" >&2
        [ "$status" -ne 0 ] || status=1
    fi
fi
# Every process a test started ends with the run: none of the test users'
# (the strangers of Tests/Harness/Requirement.swift, uids 4000 to 4999) is
# left, nor one of nobody's (uid 65534: the stand-ins tests start as
# nobody through sudo) that began during the run and names gestured. One
# that is fails the run, named, and is ended.
ran=$((SECONDS - started + 1))
left=$(ps -eo uid=,pid=,etimes=,args= | awk -v ran="$ran" '($1 >= 4000 && $1 < 5000) || ($1 == 65534 && $3 <= ran && /gestured/)')
if [ -n "$left" ]; then
    echo "test-run: processes of the test users are still running after the run (a test started them and never ended them):"
    printf '%s\n' "$left"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
    printf '%s\n' "$left" | awk '{print $2}' | xargs -r $sudo kill -KILL 2>/dev/null
    [ "$status" -ne 0 ] || status=1
fi
exit "$status"
