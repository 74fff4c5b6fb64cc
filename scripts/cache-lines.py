#!/usr/bin/env python3
"""Distinct cache lines one turn of a program's loop touches, by kind.

Usage: scripts/cache-lines.py LACKEY_LOG BINARY

LACKEY_LOG is what `valgrind --tool=lackey --trace-mem=yes` wrote for
BINARY (scripts/daemon-cost.sh --lines runs it so): every instruction's
address and every load and store. A turn runs from one return of the
program's wait (its call of poll, epoll_wait or epoll_pwait2) to the next.
For each turn it counts the 64-byte lines touched: the binary's own code and
data, the stack, and the rest (the shared libraries' code; their data and
the heap), then prints the median and mean over the turns, leaving out the
first 20 (start-up) and the last 5 (the stop).

A line touched once per turn costs a cache miss when the turn starts cold,
as it does after the task switches of every frame under the emulation
(docs/performance.md, "Cache lines per frame").
"""

import collections
import re
import statistics
import subprocess
import sys

WAITS = re.compile(r"call\s+[0-9a-f]+ <(poll|ppoll|epoll_wait|epoll_pwait2)@plt>")
# valgrind loads a position-independent executable here on x86_64.
PIE_BASE = 0x108000
STACK_FROM = 0x1000000000


def fail(message):
    sys.exit(f"cache-lines: {message}")


def binary_layout(binary):
    """The return sites of the wait calls and the executable's segments (unrelocated)."""
    try:
        dump = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], capture_output=True, text=True, check=True).stdout
        header = subprocess.run(["readelf", "-hlW", binary], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        fail(f"cannot read {binary} with objdump and readelf (binutils): {e}")
    returns = []
    previous_was_wait = False
    for line in dump.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s", line)
        if not m:
            continue
        if previous_was_wait:
            returns.append(int(m.group(1), 16))
        previous_was_wait = bool(WAITS.search(line))
    if not returns:
        fail(f"{binary} calls no poll, epoll_wait or epoll_pwait2: which turn would be counted?")
    segments = []
    for line in header.splitlines():
        fields = line.split()
        if fields and fields[0] == "LOAD":
            start, size, flags = int(fields[2], 16), int(fields[5], 16), " ".join(fields[6:-1])
            segments.append((start, start + size, "E" in flags))
    pie = "DYN" in header.split("Type:")[1].split("\n")[0]
    return returns, segments, (PIE_BASE if pie else 0)


def main():
    if len(sys.argv) != 3:
        fail("usage: cache-lines.py LACKEY_LOG BINARY")
    log, binary = sys.argv[1], sys.argv[2]
    returns, segments, base = binary_layout(binary)
    boundaries = {r + base for r in returns}
    lo = min(s for s, _, _ in segments) + base
    hi = max(e for _, e, _ in segments) + base
    code = [(s + base, e + base) for s, e, x in segments if x]

    def kind(address, fetch):
        if lo <= address < hi:
            return "own code" if any(s <= address < e for s, e in code) else "own data"
        if address >= STACK_FROM:
            return "stack"
        return "libraries' code" if fetch else "libraries' data and heap"

    turns = []
    lines = collections.defaultdict(set)
    instructions = 0
    try:
        with open(log, errors="replace") as f:
            for line in f:
                if line.startswith("I  "):
                    address = int(line[3 : line.index(",")], 16)
                    if address in boundaries:
                        turns.append(({k: len(v) for k, v in lines.items()}, instructions))
                        lines = collections.defaultdict(set)
                        instructions = 0
                    instructions += 1
                    lines[kind(address, True)].add(address >> 6)
                elif line[:1] == " " and line[1:2] in ("L", "S", "M"):
                    address = int(line[3 : line.index(",")], 16)
                    lines[kind(address, False)].add(address >> 6)
    except OSError as e:
        fail(f"cannot read {log}: {e}")
    turns = turns[20:-5]
    if not turns:
        fail(f"{log}: fewer than 26 turns of {binary}'s wait: is it the log of that binary, under lackey --trace-mem=yes?")
    kinds = ["own code", "own data", "stack", "libraries' code", "libraries' data and heap"]
    print(f"{len(turns)} turns; distinct 64-byte lines per turn, median (mean):")
    for k in kinds:
        values = [t.get(k, 0) for t, _ in turns]
        print(f"  {k:26} {statistics.median(values):6.0f} ({statistics.mean(values):.1f})")
    totals = [sum(t.values()) for t, _ in turns]
    print(f"  {'all':26} {statistics.median(totals):6.0f} ({statistics.mean(totals):.1f})")
    print(f"  instructions per turn      {statistics.median(i for _, i in turns):6.0f} ({statistics.mean(i for _, i in turns):.1f})")


main()
