#!/usr/bin/env bash
# Measures `gestured replay` throughput end to end: file reading, evemu
# parsing, frame assembly, the recognizer pipeline and JSON output.
# Usage: Performance/scripts/replay-throughput.sh [REPEATS]   (default 400)
# Builds a long trace by repeating the bundled recordings one after another
# (each shifted to start 2 s after the last ended), replays it with a release
# build, and prints frames per second. A warning from the replay (time going
# backwards, say) fails the run: the trace would not be what it claims.
set -euo pipefail
cd "$(dirname "$0")/../.."
repeats=${1:-400}
make -s release >/dev/null
bin=$(swift build -c release --show-bin-path)/gestured
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
long="$work/long.evemu"
# The tablet panel's header, then every tablet recording's events, REPEATS
# times: each copy starts 2 s after the previous one ended (recordings last
# from under a second to ten, so time never goes backwards), on slot 0 as a
# recording does (ABS_MT_SLOT 0 first: the previous one may have ended on
# another slot).
first=$(ls Recordings/*.tablet.evemu | head -1)
grep -v '^E:' "$first" > "$long"
awk -v repeats="$repeats" '
  FNR == 1 { file++ }
  /^E:/ {
    split($2, t, ".")
    us = t[1] * 1000000 + t[2]
    if (!(file in first)) first[file] = us
    last[file] = us
    ev[file, ++n[file]] = (us - first[file]) " " $3 " " $4 " " $5
  }
  END {
    offset = 0
    for (r = 0; r < repeats; r++) {
      for (f = 1; f <= file; f++) {
        printf "E: %d.%06d 0003 002f 0000\n", int(offset / 1000000), offset % 1000000
        for (i = 1; i <= n[f]; i++) {
          split(ev[f, i], p, " ")
          us = p[1] + offset
          printf "E: %d.%06d %s %s %s\n", int(us / 1000000), us % 1000000, p[2], p[3], p[4]
        }
        offset += last[f] - first[f] + 2000000
      }
    }
  }' Recordings/*.tablet.evemu >> "$long"
events=$(grep -c '^E:' "$long")
start=$(date +%s%N)
"$bin" replay --verbose "$long" > "$work/out.jsonl" 2> "$work/err"
end=$(date +%s%N)
frames=$(sed -n 's/.* \([0-9]*\) frames$/\1/p' "$work/err")
if grep -v -e ' frames$' -e ': panel ' "$work/err" | grep -q .; then
    echo "replay-throughput: the replay warned; the trace is not what this script means to build:" >&2
    grep -v -e ' frames$' -e ': panel ' "$work/err" | head -5 >&2
    exit 1
fi
gestures=$(wc -l < "$work/out.jsonl")
ns=$((end - start))
echo "trace: $events evdev events, $frames frames; output: $gestures JSON lines"
echo "time: $((ns / 1000000)) ms"
echo "throughput: $((frames * 1000000000 / ns)) frames/s, $((events * 1000000000 / ns)) evdev events/s"
