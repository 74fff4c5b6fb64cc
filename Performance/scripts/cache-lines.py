#!/usr/bin/env python3
"""Distinct cache lines one turn of a program's loop touches, by kind.

Usage: Performance/scripts/cache-lines.py LACKEY_LOG BINARY [--functions N]

LACKEY_LOG is what `valgrind --tool=lackey --trace-mem=yes` wrote for
BINARY (Performance/scripts/daemon-cost.sh --lines runs it so): every instruction's
address and every load and store. A turn runs from one return of the
program's wait (its call of poll, epoll_wait or epoll_pwait2) to the next.
For each turn it counts the 64-byte lines touched: the binary's own code and
data, the stack, and the rest (the shared libraries' code; their data and
the heap), then prints the median and mean over the turns, leaving out the
first 20 (start-up) and the last 5 (the stop). With --functions N it also
names the N functions of the binary whose code lines a turn touches most,
and the N that first touch most of the turn's other lines (heap, the
libraries' data, the stack, the binary's data), each with its lines per
turn by the mean: where to look for lines to save. A line of the
libraries' code is named by its 64 KiB region (lackey does not say which
library is where).

A line touched once per turn costs a cache miss when the turn starts cold,
as it does after the task switches of every frame under the emulation
(docs/cost.md, "Code layout").
"""

import bisect
import collections
import functools
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


def binutils(*command):
    """What a binutils tool prints about a binary (its last argument)."""
    try:
        return subprocess.run(list(command), capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        fail(f"cannot read {command[-1]} with {command[0]} (binutils): {e}")


def binary_layout(binary):
    """The return sites of the wait calls and the executable's segments (unrelocated)."""
    dump = binutils("objdump", "-d", "--no-show-raw-insn", binary)
    header = binutils("readelf", "-hlW", binary)
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


def symbols(binary, base):
    """The binary's defined symbols with a size and its sections, sorted:
    (start, end, name), relocated; a section's name is in brackets."""
    listing = binutils("nm", "-nS", "--defined-only", binary)
    sections = binutils("readelf", "-SW", binary)
    found = []
    for line in listing.splitlines():
        fields = line.split(maxsplit=3)
        if len(fields) == 4 and int(fields[1], 16) > 0:
            start = int(fields[0], 16) + base
            found.append((start, start + int(fields[1], 16), fields[3]))
    found.sort()
    sorted_sections = []
    for line in sections.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m and int(m.group(2), 16) > 0:
            start = int(m.group(2), 16) + base
            sorted_sections.append((start, start + int(m.group(3), 16), f"[{m.group(1)}]"))
    sorted_sections.sort()
    return found, sorted_sections


def readable(names):
    """Swift's names demangled (swift-demangle, from the toolchain), or as they are without it."""
    try:
        out = subprocess.run(
            ["swift-demangle", "--simplified", "--compact"], input="\n".join(names) + "\n", capture_output=True, text=True, check=True
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return list(names)
    return out if len(out) == len(names) else list(names)


def main():
    args = sys.argv[1:]
    functions = 0
    if len(args) == 4 and args[2] == "--functions" and args[3].isdigit():
        functions = int(args[3])
        args = args[:2]
    if len(args) != 2:
        fail("usage: cache-lines.py LACKEY_LOG BINARY [--functions N]")
    log, binary = args
    returns, segments, base = binary_layout(binary)
    boundaries = {r + base for r in returns}
    lo = min(s for s, _, _ in segments) + base
    hi = max(e for _, e, _ in segments) + base
    code = [(s + base, e + base) for s, e, x in segments if x]

    table, sections = symbols(binary, base) if functions else ([], [])
    starts = [start for start, _, _ in table]

    @functools.cache
    def name(address):
        """The function at an address of the binary (else its section), or
        the 64 KiB region of libraries' code of another."""
        if not lo <= address < hi:
            return f"libraries' code at {address >> 16 << 16:#x}"
        i = bisect.bisect_right(starts, address) - 1
        if i >= 0 and address < table[i][1]:
            return table[i][2]
        return next((n for s, e, n in sections if s <= address < e), f"{address - base:#x}")

    def kind(address, fetch):
        if lo <= address < hi:
            return "own code" if any(s <= address < e for s, e in code) else "own data"
        if address >= STACK_FROM:
            return "stack"
        return "libraries' code" if fetch else "libraries' data and heap"

    # Each turn: its lines by kind, its instructions and, with --functions,
    # its own code lines by function and its other lines by the function
    # whose instruction first touched them.
    turns = []
    lines = collections.defaultdict(set)
    instructions = 0
    code_lines, first_touch = {}, {}
    fetched = 0
    try:
        with open(log, errors="replace") as f:
            for line in f:
                if line.startswith("I  "):
                    address = int(line[3 : line.index(",")], 16)
                    if address in boundaries:
                        by_code = collections.Counter(name(a) for a in code_lines.values())
                        by_data = collections.Counter(name(a) for a in first_touch.values())
                        turns.append(({k: len(v) for k, v in lines.items()}, instructions, by_code, by_data))
                        lines = collections.defaultdict(set)
                        instructions = 0
                        code_lines, first_touch = {}, {}
                    instructions += 1
                    k = kind(address, True)
                    lines[k].add(address >> 6)
                    if functions:
                        fetched = address
                        if k == "own code":
                            code_lines.setdefault(address >> 6, address)
                elif line[:1] == " " and line[1:2] in ("L", "S", "M"):
                    address = int(line[3 : line.index(",")], 16)
                    lines[kind(address, False)].add(address >> 6)
                    if functions and address >> 6 not in first_touch:
                        first_touch[address >> 6] = fetched
    except OSError as e:
        fail(f"cannot read {log}: {e}")
    turns = turns[20:-5]
    if not turns:
        fail(f"{log}: fewer than 26 turns of {binary}'s wait: is it the log of that binary, under lackey --trace-mem=yes?")
    kinds = ["own code", "own data", "stack", "libraries' code", "libraries' data and heap"]
    print(f"{len(turns)} turns; distinct 64-byte lines per turn, median (mean):")
    for k in kinds:
        values = [t[0].get(k, 0) for t in turns]
        print(f"  {k:26} {statistics.median(values):6.0f} ({statistics.mean(values):.1f})")
    totals = [sum(t[0].values()) for t in turns]
    print(f"  {'all':26} {statistics.median(totals):6.0f} ({statistics.mean(totals):.1f})")
    executed = [t[1] for t in turns]
    print(f"  instructions per turn      {statistics.median(executed):6.0f} ({statistics.mean(executed):.1f})")
    if functions:
        for title, column in [
            ("own code lines per turn (mean) by function", 2),
            ("other lines per turn (mean) by the function that first touched them", 3),
        ]:
            top = sum((t[column] for t in turns), collections.Counter()).most_common(functions)
            print(f"{title}, the {functions} most:")
            for (_, n), f in zip(top, readable([f for f, _ in top])):
                print(f"  {n / len(turns):6.1f}  {f}")


main()
