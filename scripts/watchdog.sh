#!/usr/bin/env bash
# Usage: scripts/watchdog.sh SECONDS COMMAND [ARG...]
#
# Runs COMMAND; if it is still running after SECONDS, prints what it was doing
# (its process tree, each process's kernel wait channel, and with gdb the
# stacks of every thread of its test binaries), then stops it (SIGTERM, SIGKILL
# 10 s later) and exits 124. Otherwise exits with COMMAND's status.
#
# `make test` runs each test suite under it, so that a hang fails CI within
# minutes with a report saying where, instead of running into CI's own limit
# with nothing printed.
set -uo pipefail
limit=$1
shift
"$@" &
child=$!
# Forwards Ctrl-C and termination to the command.
trap 'kill -TERM "$child" 2>/dev/null' INT TERM

# Every descendant of $1, depth first.
descendants() {
    local kid
    for kid in $(pgrep -P "$1"); do
        echo "$kid"
        descendants "$kid"
    done
}

report() {
    echo "watchdog: \`$*\` still running after ${limit} s; what it is doing:" >&2
    local pids
    pids=$(descendants "$child")
    # shellcheck disable=SC2086 # one pid per word
    ps -o pid,ppid,etimes,stat,wchan:24,args --forest -p "$child" ${pids:+$pids} 2>/dev/null | cut -c1-240 >&2
    if command -v gdb >/dev/null; then
        for pid in $pids; do
            local cmdline
            cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)
            case "$cmdline" in
            *.xctest*)
                echo "watchdog: threads of $pid (${cmdline:0:160}):" >&2
                timeout 60 gdb -p "$pid" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt 25' 2>&1 |
                    grep -E '^(Thread|#)' | cut -c1-200 >&2
                ;;
            esac
        done
    fi
}

deadline=$((SECONDS + limit))
while kill -0 "$child" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
        report "$@"
        pids="$child $(descendants "$child")"
        # shellcheck disable=SC2086
        kill -TERM $pids 2>/dev/null
        for _ in $(seq 20); do
            # shellcheck disable=SC2086
            kill -0 $pids 2>/dev/null || break
            sleep 0.5
        done
        # shellcheck disable=SC2086
        kill -KILL $pids 2>/dev/null
        wait "$child" 2>/dev/null
        echo "watchdog: stopped \`$*\` after ${limit} s" >&2
        exit 124
    fi
    sleep 1
done
wait "$child"
