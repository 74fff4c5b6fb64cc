#!/usr/bin/env bash
# What claiming a touchscreen adds to the compositor's latency: every
# bundled recording played on a uinput touchscreen in the virtual machine of
# scripts/kernel-test.sh: read plainly from the device, from the copy a
# relay that does nothing else makes (the least any pass-through costs),
# and from the clone of the daemon that claims it (docs/claiming.md). For
# each frame, from the player's write to the reader's read: p50 and p99 of
# each reader, the differences, and the frames lost or out of order. A
# measurement, not a test (docs/performance.md, "Claimed touchscreens").
# Usage: Performance/scripts/claim-latency.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
make -s release >/dev/null
scripts/build-harness.sh >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
GESTURED_GUEST=Performance/scripts/claim-latency-guest.sh GESTURED_BIN="$(swift build -c release --show-bin-path)/gestured" \
    scripts/kernel-test.sh "$out" >/dev/null
echo "machine: $(cat "$out/vm") ($(grep -c ^processor /proc/cpuinfo) host CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1))"
python3 - "$out" <<'PY'
import os, sys

out = sys.argv[1]

def frames(path):
    """[(time µs, events, read µs)] of an E: file written by uinput-touch."""
    result, events = [], []
    if not os.path.exists(path):
        return result
    for line in open(path):
        if line.startswith("# read +") and result:
            t, e, _ = result[-1]
            result[-1] = (t, e, t + int(line[8:].split()[0]))
        elif line.startswith("E: "):
            _, stamp, ty, code, value = line.split()
            s, us = stamp.split(".")
            if (ty, code) == ("0000", "0000"):
                result.append((int(s) * 1_000_000 + int(us), events, None))
                events = []
            else:
                events.append((ty, code, value))
    return result

def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]

plan = [line.split() for line in open(os.path.join(out, "plan"))]
kinds = ("plain", "relay", "claim")
late = {k: [] for k in kinds}
written = lost = reordered = 0
for i, name in plan:
    runs = {}
    for kind in kinds:
        sent = frames(os.path.join(out, f"sent-{kind}-{i}.evemu"))
        read = frames(os.path.join(out, f"read-{kind}-{i}.evemu"))
        runs[kind] = read
        for s, r in zip(sent, read):
            if r[2] is not None:
                late[kind].append(r[2] - s[0])
        if kind == "claim":
            written += len(sent)
            lost += max(0, len(sent) - len(read))
    plain, clone = runs["plain"], runs["claim"]
    reordered += sum(1 for a, b in zip(plain, clone) if a[1] != b[1])
    reordered += sum(1 for a, b in zip(clone, clone[1:]) if b[0] < a[0])
print(f"recordings: {len(plan)}, frames written to claimed devices: {written}")
labels = {"plain": "plain reader of the device", "relay": "reader of the relay's copy", "claim": "reader of gestured's clone"}
for kind in kinds:
    v = late[kind]
    print(f"{labels[kind]}: p50 {pct(v, 50)} us, p99 {pct(v, 99)} us ({len(v)} frames)")
def added(a, b):
    return f"p50 {pct(late[a], 50) - pct(late[b], 50):+d} us, p99 {pct(late[a], 99) - pct(late[b], 99):+d} us"
print(f"added by the relay: {added('relay', 'plain')}")
print(f"added by claiming: {added('claim', 'plain')}")
print(f"gestured above the relay: {added('claim', 'relay')}")
print(f"frames lost on the clone: {lost}; out of order or unlike the plain reader's: {reordered}")
PY
