#!/usr/bin/env bash
# The daemon end to end without a touchscreen: for a few bundled recordings,
# `gestured serve --replay` serves the trace as a virtual touchscreen and
# `gestured monitor` subscribes over the Unix socket and prints what comes.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(swift build -c release --show-bin-path)/gestured"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for trace in double-tap-1f.phone swipe-right-1f.tablet pinch-close-2f.phone hold-then-drag.phone; do
    echo "== $trace: gestured serve --replay Recordings/$trace.evemu, gestured monitor --phases recognized,began,ended"
    "$bin" serve --socket "$dir/gestured.sock" --replay "Recordings/$trace.evemu" --wait-subscribers 1 \
        --log-level warning &
    server=$!
    for _ in $(seq 100); do [ -S "$dir/gestured.sock" ] && break; sleep 0.02; done
    # The trace starts when the monitor has subscribed; it lasts under 2 s.
    "$bin" monitor --socket "$dir/gestured.sock" --phases recognized,began,ended --latency &
    client=$!
    sleep 2.5
    kill -TERM "$server"
    wait "$server" "$client"
done
