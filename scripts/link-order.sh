#!/usr/bin/env bash
# Writes Sources/gestured/link-order.txt: the functions `gestured serve`
# runs (start-up on the seat, the idle loop, a replayed trace served to a
# subscriber, a reload and the stop), one mangled name per line. `make release` links them
# first in the binary (lld's --symbol-ordering-file), so the code the daemon
# runs sits on a few pages instead of being spread over the whole 10 MB of
# code (docs/performance.md, "Memory"). A name the binary no longer has is
# skipped by the linker: the file only goes stale, it never breaks a build.
# Run it again after large changes to the daemon. Needs valgrind (make setup).
set -euo pipefail
cd "$(dirname "$0")/.."
out=Sources/gestured/link-order.txt
# A link without the order: the functions are listed in the order the
# linker places them by itself (object by object), so the file changes only
# where the code does.
make -s release RELEASE_ORDER= >/dev/null
bin=.build/release/gestured
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# valgrind 3.19 cannot read the DWARF 5 Swift writes: a copy without it, symbols kept.
objcopy --strip-debug "$bin" "$scratch/gestured"
: >"$scratch/empty.toml"
# First the daemon as installed: libinput on the seat, idle, stopped (where
# udev is not running it stops at once: its start-up is still listed).
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$scratch/callgrind.seat" \
    "$scratch/gestured" serve --socket "$scratch/seat.sock" --config "$scratch/empty.toml" 2>"$scratch/seat.log" &
seat=$!
for _ in $(seq 600); do [ -S "$scratch/seat.sock" ] || ! kill -0 "$seat" 2>/dev/null && break; sleep 0.1; done
sleep 2
kill -TERM "$seat" 2>/dev/null || true
wait "$seat" || true
# Then a trace served to a subscriber, a reload and the stop.
sock="$scratch/gestured.sock"
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$scratch/callgrind.out" \
    "$scratch/gestured" serve --socket "$sock" --config "$scratch/empty.toml" \
    --replay Recordings/tour.tablet.evemu --wait-subscribers 1 2>"$scratch/serve.log" &
daemon=$!
for _ in $(seq 600); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || { cat "$scratch/serve.log" >&2; echo "link-order: the daemon did not start" >&2; exit 1; }
# A subscriber for the whole trace (every event of it, as `replay` counts them), then a reload and the stop.
events=$("$bin" replay --format jsonl Recordings/tour.tablet.evemu | grep -c .)
timeout 600 "$bin" monitor --socket "$sock" --json --count "$events" >"$scratch/events" || true
kill -HUP "$daemon"
sleep 2
kill -TERM "$daemon"
wait "$daemon" || { cat "$scratch/serve.log" >&2; echo "link-order: the daemon failed" >&2; exit 1; }
# Every function entered or called (callgrind names each once per file).
grep -hoE '^c?fn=\([0-9]+\) .+' "$scratch"/callgrind.* | sed -E 's/^c?fn=\([0-9]+\) //' | sort -u >"$scratch/names"
# The binary's own functions among them (not libc's or libinput's), by address in that link.
nm --defined-only --numeric-sort "$scratch/gestured" | awk '$2 ~ /^[tTwW]$/ {print $3}' | awk '!seen[$0]++' >"$scratch/defined"
awk 'NR == FNR {ran[$0] = 1; next} ran[$0]' "$scratch/names" "$scratch/defined" >"$out"
echo "link-order: $(grep -c . "$out") functions, $(grep -c . "$scratch/events") lines seen by the subscriber; wrote $out (the next 'make release' links with it)"
