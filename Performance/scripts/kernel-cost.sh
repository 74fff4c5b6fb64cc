#!/usr/bin/env bash
# What gestured costs on a real kernel, where no emulation inflates system
# calls: CPU per frame above a program that only drains libinput (the
# floor) and Debian's lisgd on uinput touchscreens fed the same frames, peak
# resident memory, and latency from the uinput write to a subscriber's read
# with 1 and 100 subscribers. Boots the virtual machine of
# scripts/kernel-test.sh with Performance/scripts/kernel-cost-guest.sh; prints the raw
# figures, then a summary. A measurement, not a test (docs/performance.md).
# Usage: Performance/scripts/kernel-cost.sh [RUNS]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/../.."
make -s release >/dev/null
scripts/build-harness.sh >/dev/null
command -v lisgd >/dev/null || { echo "kernel-cost: lisgd is not installed (apt-get install lisgd)" >&2; exit 3; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The trace: every tablet recording, each starting 1 s after the last ended,
# and on slot 0 as a recording does (ABS_MT_SLOT 0 first: the previous one
# may have ended on another slot).
first=$(ls Recordings/*.tablet.evemu | head -n 1)
grep -v '^E:' "$first" >"$out/cost-trace.evemu"
awk '
  FNR == 1 { file++ }
  /^E:/ {
    split($2, t, "."); us = t[1] * 1000000 + t[2]
    if (!(file in first)) first[file] = us
    last[file] = us
    ev[file, ++n[file]] = (us - first[file]) " " $3 " " $4 " " $5
  }
  END {
    offset = 1000000
    for (f = 1; f <= file; f++) {
      printf "E: %d.%06d 0003 002f 0000\n", int(offset / 1000000), offset % 1000000
      for (i = 1; i <= n[f]; i++) {
        split(ev[f, i], p, " "); us = p[1] + offset
        printf "E: %d.%06d %s %s %s\n", int(us / 1000000), us % 1000000, p[2], p[3], p[4]
      }
      offset += last[f] - first[f] + 1000000
    }
  }' Recordings/*.tablet.evemu >>"$out/cost-trace.evemu"
GESTURED_COST_RUNS=${1:-3} GESTURED_GUEST=Performance/scripts/kernel-cost-guest.sh \
    GESTURED_BIN="$(swift build -c release --show-bin-path)/gestured" scripts/kernel-test.sh "$out" >/dev/null
echo "machine: $(cat "$out/vm") ($(grep -c ^processor /proc/cpuinfo) host CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1))"
cat "$out/cost.txt"
echo "== per frame, each run (µs): floor, lisgd above it, gestured above it; peak resident KiB"
awk '
    NF == 4 && $2 ~ /^[0-9]+$/ && ($1 == "drain" || $1 == "lisgd" || $1 == "gestured") {
        per[$1] = $2 / $3 / 1000; kib[$1] = $4
        if ($1 == "gestured") {
            printf "floor %.1f  lisgd %+.1f  gestured %+.1f  (gestured - lisgd %+.1f)  peak KiB: floor %d, lisgd %d, gestured %d\n",
                per["drain"], per["lisgd"] - per["drain"], per["gestured"] - per["drain"], per["gestured"] - per["lisgd"],
                kib["drain"], kib["lisgd"], kib["gestured"]
        }
    }' "$out/cost.txt"
