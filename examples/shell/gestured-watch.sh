#!/bin/sh
# Runs a command for each gesture gestured publishes, with nothing but socat
# and sed: the smallest useful client (docs/protocol.md).
#
#   examples/shell/gestured-watch.sh [GESTURES]        e.g. swipe,flick (default: all)
#
# Each finished gesture prints "GESTURE PHASE FINGERS [DIRECTION]"; replace the
# `echo` below with what should happen (switch workspace, show a keyboard, …),
# or let `gestured act` run commands from a bindings file instead (README).
# The socket: $GESTURED_SOCKET, else $XDG_RUNTIME_DIR/gestured.sock if it
# exists, else /run/gestured/gestured.sock.
set -eu
socket=${GESTURED_SOCKET:-}
if [ -z "$socket" ]; then
    if [ -n "${XDG_RUNTIME_DIR:-}" ] && [ -S "$XDG_RUNTIME_DIR/gestured.sock" ]; then
        socket=$XDG_RUNTIME_DIR/gestured.sock
    else
        socket=/run/gestured/gestured.sock
    fi
fi
if [ ! -S "$socket" ]; then
    echo "gestured-watch: no gestured socket at $socket: is gestured serve running? (GESTURED_SOCKET chooses another path)" >&2
    exit 1
fi
filter=""
if [ -n "${1:-}" ]; then
    filter=$(printf '%s' "$1" | sed -e 's/[^a-z,-]//g' -e 's/,/","/g')
    filter=",\"gestures\":[\"$filter\"]"
fi
# Only finished gestures: discrete ones are "recognized", continuous ones "ended".
request="{\"type\":\"subscribe\"$filter,\"phases\":[\"recognized\",\"ended\"]}"
# socat keeps the connection open after the request (-t: wait that long after stdin ends).
echo "$request" | socat -t 1000000000 - "UNIX-CONNECT:$socket" | while IFS= read -r line; do
    case $line in
    *'"type":"gesture"'*)
        gesture=$(printf '%s\n' "$line" | sed -n 's/.*"gesture":"\([^"]*\)".*/\1/p')
        phase=$(printf '%s\n' "$line" | sed -n 's/.*"phase":"\([^"]*\)".*/\1/p')
        fingers=$(printf '%s\n' "$line" | sed -n 's/.*"fingers":\([0-9]*\).*/\1/p')
        direction=$(printf '%s\n' "$line" | sed -n 's/.*"direction":"\([^"]*\)".*/\1/p')
        echo "$gesture $phase $fingers${direction:+ $direction}"
        ;;
    *'"type":"error"'*) echo "gestured-watch: $line" >&2 ;;
    esac
done
