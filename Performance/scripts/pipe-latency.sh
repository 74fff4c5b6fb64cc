#!/usr/bin/env bash
# From a frame's arrival to its line in a `pipe` program's standard input
# (docs/performance.md, "Tracked gestures to a pipe"): a release daemon
# replays a drag for ever (each frame is due at its time in the trace: that
# is its arrival), ten `gestured monitor --json` subscribers take every
# event, and `gestured act` pipes the drag's tracked events to a reader
# that notes, for each `changed` and `ended` line, CLOCK_MONOTONIC at its
# read minus the event's `time_us` (the frame's time). Prints p50, p99 and
# the worst over SECONDS (default 20).
# A measurement, not a test. Usage: Performance/scripts/pipe-latency.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-20}
make -s release >/dev/null
bin=$(swift build -c release --show-bin-path)/gestured
run=$(mktemp -d)
pids=()
cleanup() {
    kill "${pids[@]}" 2>/dev/null || :
    wait 2>/dev/null || :
    rm -rf "$run"
}
trap cleanup EXIT
cat >"$run/reader.py" <<'PY'
import json, sys, time
out = open(sys.argv[1], "a", buffering=1)
for line in sys.stdin:
    now = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
    event = json.loads(line)
    # A `began` carries the time the gesture began (its first finger
    # down), not that of the frame that made it a drag: only the lines
    # a frame makes on its arrival are timed.
    if event.get("phase") in ("changed", "ended"):
        out.write(f"{event['id']} {now - event['time_us']}\n")
PY
cat >"$run/actions.toml" <<EOF2
[[bind]]
gesture = "drag"
track = { axis = "x", distance-mm = 60 }
pipe = ["python3", "$run/reader.py", "$run/latencies"]
EOF2
: >"$run/empty.toml"
"$bin" serve --config "$run/empty.toml" --socket "$run/s.sock" --replay Recordings/slow-drag-right.tablet.evemu --loop \
    --log-level warning 2>"$run/serve.log" &
pids+=($!)
for _ in $(seq 100); do [ -S "$run/s.sock" ] && break; sleep 0.1; done
for _ in $(seq 10); do
    "$bin" monitor --socket "$run/s.sock" --json >/dev/null 2>&1 &
    pids+=($!)
done
"$bin" act --config "$run/actions.toml" --socket "$run/s.sock" 2>"$run/act.log" &
pids+=($!)
sleep "$seconds"
python3 - "$run/latencies" "$seconds" <<'PY'
import sys
lines = [line.split() for line in open(sys.argv[1]) if line.strip()]
# The first gesture's lines wait for the program to start (act starts it
# at its first line): left out, as start-up, not delivery.
values = sorted(int(v) for g, v in lines if g != lines[0][0]) if lines else []
if not values:
    sys.exit("pipe-latency: the reader got no line (see act's log)")
def q(p):
    return values[min(len(values) - 1, int(p * len(values)))] / 1000
print(f"{len(values)} lines in {sys.argv[2]} s (the first gesture's left out), 10 other subscribers: "
      f"p50 {q(0.50):.3f} ms, p99 {q(0.99):.3f} ms, worst {values[-1] / 1000:.3f} ms")
PY
