#!/usr/bin/env bash
# The daemon end to end without a touchscreen: for a few bundled recordings,
# `gestured serve --replay` serves the trace as a virtual touchscreen and
# `gestured monitor` subscribes over the Unix socket and prints what comes.
# GESTURED_BIN: the binary to run (default: the release build).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${GESTURED_BIN:-"$(swift build -c release --show-bin-path)/gestured"}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "Each recording below is served by 'gestured serve --replay' as a virtual touchscreen;"
echo "'gestured monitor' prints what the daemon publishes: time, gesture, phase, #id, fingers, where (mm), then details."
demo() { # TRACE WHAT
    echo
    echo "== $2 (Recordings/$1.evemu)"
    # A daemon that gave up root cannot remove its socket from a folder of root's: the next one waits for its own.
    rm -f "$dir/gestured.sock"
    "$bin" serve --socket "$dir/gestured.sock" --replay "Recordings/$1.evemu" --wait-subscribers 1 \
        --log-level warning &
    server=$!
    for _ in $(seq 100); do [ -S "$dir/gestured.sock" ] && break; sleep 0.02; done
    # The trace starts when the monitor has subscribed; it lasts under 2 s.
    "$bin" monitor --socket "$dir/gestured.sock" --phases recognized,began,ended &
    client=$!
    sleep 2.5
    kill -TERM "$server"
    wait "$server" "$client"
}
demo double-tap-1f.phone "a double tap with one finger: one gesture, recognized at the second lift"
demo swipe-right-1f.tablet "a swipe to the right: a drag while the finger moves, then the swipe it was"
demo pinch-close-2f.phone "two fingers closing: a pinch from began to ended, its scale below 1"
demo hold-then-drag.phone "a finger held still, then moved: a touch-and-hold whose movement is its own (Δ at its end), not a drag"
rel=${bin#"$PWD"/}
# The README's short name for the same binary (.build/release links to the build's triple folder).
if [ "$(readlink -f .build/release/gestured 2>/dev/null)" = "$(readlink -f "$bin")" ]; then rel=.build/release/gestured; fi
cat <<NEXT

Next:
  $rel replay --format text Recordings/tour.tablet.evemu    every gesture of a tour, frame by frame
  $rel replay --svg tour.svg Recordings/tour.tablet.evemu   the same as a picture
  README.md, "Binding gestures": a swipe that runs a command, in one line of configuration
NEXT
