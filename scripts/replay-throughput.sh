#!/usr/bin/env bash
# Measures `gestured replay` throughput end to end: file reading, evemu
# parsing, frame assembly, the recognizer pipeline and JSON output.
# Usage: scripts/replay-throughput.sh [REPEATS]   (default 400)
# Builds a long trace by repeating the bundled recordings one after another
# (each shifted to start after the last), replays it with a release build to
# /dev/null, and prints frames per second.
set -euo pipefail
cd "$(dirname "$0")/.."
repeats=${1:-400}
make -s release >/dev/null
bin=$(swift build -c release --show-bin-path)/gestured
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
long="$work/long.evemu"
# The tablet panel's header, then every tablet recording's events, REPEATS times,
# each copy moved 2 s past the previous one.
first=$(ls Recordings/*.tablet.evemu | head -1)
grep -v '^E:' "$first" > "$long"
awk -v repeats="$repeats" '
  FNR == 1 { file++ }
  /^E:/ { split($2, t, "."); ev[file, ++n[file]] = t[1] " " t[2] " " $3 " " $4 " " $5 }
  END {
    offset = 0
    for (r = 0; r < repeats; r++) {
      for (f = 1; f <= file; f++) {
        for (i = 1; i <= n[f]; i++) {
          split(ev[f, i], p, " ")
          printf "E: %d.%06d %s %s %s\n", p[1] + offset, p[2], p[3], p[4], p[5]
        }
        offset += 4
      }
    }
  }' Recordings/*.tablet.evemu >> "$long"
events=$(grep -c '^E:' "$long")
start=$(date +%s%N)
"$bin" replay --verbose "$long" > "$work/out.jsonl" 2> "$work/err"
end=$(date +%s%N)
frames=$(sed -n 's/.* \([0-9]*\) frames$/\1/p' "$work/err")
gestures=$(wc -l < "$work/out.jsonl")
ns=$((end - start))
echo "trace: $events evdev events, $frames frames; output: $gestures JSON lines"
echo "time: $((ns / 1000000)) ms"
echo "throughput: $((frames * 1000000000 / ns)) frames/s, $((events * 1000000000 / ns)) evdev events/s"
