#!/usr/bin/env bash
# Writes Performance/layout/link-order.txt: the functions `gestured serve`
# runs, one mangled name per line; `make release-profiled` links them first
# in the binary (every function is in a section of its own; lld's
# --symbol-ordering-file), so that the code the daemon runs sits together
# instead of spread over the 10 MB of code (docs/cost.md, "Memory").
# First the functions run for every frame (a trace played into an emulated
# touchscreen through the real libinput, with a subscriber), most called
# first; then those run once the daemon is ready (clients connecting and
# subscribing, a replayed trace served, a reload, the stop); then the rest
# of what it runs, start-up's (the seat's and the replay's). Start-up's
# pages are given back once the daemon is ready: what serving maps again
# then sits on pages of its own, not beside start-up's code. Within the
# last two parts, the order the linker would place them in by itself (so
# the file changes only where the code does). A name the binary no longer
# has is skipped by the linker: the file only goes stale, it never breaks a
# build. A name the binary defines more than once (a local helper each
# object has a copy of, such as objectdestroyTm) is left out when one of its
# copies sits in a library's one big code section: lld would move every
# section holding the name, and with it the regular-expression libraries'
# code (860 KB), which the daemon never runs. Run it again after large
# changes to the daemon.
# Needs valgrind (sudo apt-get install valgrind) and the umockdev harness
# (make setup; it builds it). KEEP_SCRATCH=1 keeps its scratch folder (the
# callgrind files and the lists) to look at.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=Performance/layout/link-order.txt
scratch=$(mktemp -d)
trap '[ -n "${KEEP_SCRATCH:-}" ] || rm -rf "$scratch"' EXIT
rm -f .build/profiled/release/gestured  # a link of its own, for the map
make -s release-profiled PROFILED_ORDER="-Xlinker -Map=$scratch/map" >/dev/null
scripts/build-harness.sh >/dev/null
swift build --package-path Performance --product daemon-cost >/dev/null
bin=.build/profiled/release/gestured
# Names defined more than once, one copy of them in a whole object's .text
# (the link map: a line per input section, then a line per symbol in it).
awk '
    NF == 5 && $5 ~ /:\(/ { bulk = ($5 ~ /:\(\.text\)$/); next }
    NF == 5 && $5 !~ /^\./ { copies[$5]++; if (bulk) inBulk[$5] = 1 }
    END { for (s in copies) if (copies[s] > 1 && inBulk[s]) print s }' "$scratch/map" >"$scratch/ambiguous"
# valgrind 3.19 cannot read the DWARF 5 Swift writes: a copy without it, symbols kept.
objcopy --strip-debug "$bin" "$scratch/gestured"
: >"$scratch/empty.toml"
# Started as root, the daemon would become another user, whom
# callgrind_control cannot reach: it stays root.
as_root=()
[ "$(id -u)" = 0 ] && as_root=(--user root)
# exec: run in the background, the function is valgrind itself (its pid is $!, for the signals below).
grind() { exec valgrind --tool=callgrind --demangle=no --callgrind-out-file="$scratch/callgrind.$1" "${@:2}"; }
# The frames: daemon-cost runs the release binary under callgrind on an
# emulated touchscreen; its dump after the trace began holds the per-frame work.
GESTURED_BIN=$bin "$(swift build --package-path Performance --show-bin-path)/daemon-cost" --programs gestured --runs 0 --callgrind --keep \
    >"$scratch/cost.log" 2>&1 || { cat "$scratch/cost.log" >&2; echo "link-order: daemon-cost failed" >&2; exit 1; }
kept=$(sed -n 's/^kept: //p' "$scratch/cost.log" | tail -n 1)
trace=$(grep -l "gestured serve" "$kept"/callgrind.out.*.1 | head -n 1)
# The daemon as installed: libinput on the seat, idle, stopped (where udev
# is not running it stops at once: its start-up is still listed).
grind seat "$scratch/gestured" serve --socket "$scratch/seat.sock" --config "$scratch/empty.toml" "${as_root[@]}" \
    2>"$scratch/seat.log" &
seat=$!
for _ in $(seq 600); do [ -S "$scratch/seat.sock" ] || ! kill -0 "$seat" 2>/dev/null && break; sleep 0.1; done
sleep 2
kill -TERM "$seat" 2>/dev/null || true
wait "$seat" || true
# A trace served to a subscriber, a reload and the stop.
sock="$scratch/gestured.sock"
grind replay "$scratch/gestured" serve --socket "$sock" --config "$scratch/empty.toml" "${as_root[@]}" \
    --replay Recordings/tour.tablet.evemu --wait-subscribers 1 2>"$scratch/serve.log" &
daemon=$!
for _ in $(seq 600); do grep -q "ready:" "$scratch/serve.log" && break; sleep 0.1; done
grep -q "ready:" "$scratch/serve.log" || { cat "$scratch/serve.log" >&2; echo "link-order: the daemon did not start" >&2; exit 1; }
# Start-up's functions into callgrind.replay.1; the last dump, at the stop,
# holds what ran once the daemon was ready.
callgrind_control --dump "$daemon" >/dev/null 2>&1
events=$("$bin" replay --format jsonl Recordings/tour.tablet.evemu | grep -c .)
timeout 600 "$bin" monitor --socket "$sock" --json --count "$events" >"$scratch/events" || true
kill -HUP "$daemon"
sleep 2
kill -TERM "$daemon"
wait "$daemon" || { cat "$scratch/serve.log" >&2; echo "link-order: the daemon failed" >&2; exit 1; }
# The binary's own functions, by address in this link.
nm --defined-only --numeric-sort "$scratch/gestured" | awk '$2 ~ /^[tTwW]$/ {print $3}' | awk '!seen[$0]++' >"$scratch/defined"
# Per frame: the functions of the trace's dump that are called, or make
# calls, at least once every ten turns of the loop (one libinput_dispatch
# each: a library's function, which no build inlines, as the profile's
# build does the loop's wait): the loop itself is entered once but calls
# the turn every time. Most called first.
awk '
    /^c?fn=\([0-9]+\)/ { id = $1; sub(/^c?fn=/, "", id); if (NF > 1) { name[id] = $2 } }
    /^fn=/ { caller = $1; sub(/^fn=/, "", caller) }
    /^cfn=/ { callee = $1; sub(/^cfn=/, "", callee) }
    /^calls=/ { split($1, c, "="); calls[callee] += c[2]; made[caller] += c[2] }
    END {
        for (id in calls) if (name[id] == "libinput_dispatch") min = calls[id] / 10
        if (!min) { print "link-order: no call of libinput_dispatch in the trace'"'"'s dump" > "/dev/stderr"; exit 1 }
        for (id in name) {
            n = calls[id] > made[id] ? calls[id] : made[id]
            if (n >= min) print n, name[id]
        }
    }' "$trace" |
    sort -rn | awk '{print $2}' >"$scratch/hot"
names() { grep -hoE '^c?fn=\([0-9]+\) .+' "$@" | sed -E 's/^c?fn=\([0-9]+\) //' | sort -u; }
names "$scratch/callgrind.replay" >"$scratch/serving"
names "$scratch"/callgrind.* "$kept"/callgrind.out.* >"$scratch/names"
{
    awk 'NR == FNR {defined[$0] = 1; next} defined[$0]' "$scratch/defined" "$scratch/hot"
    awk 'NR == FNR {ran[$0] = 1; next} ran[$0]' "$scratch/serving" "$scratch/defined"
    awk 'NR == FNR {ran[$0] = 1; next} ran[$0]' "$scratch/names" "$scratch/defined"
} | awk 'NR == FNR {ambiguous[$0] = 1; next} !ambiguous[$0] && !seen[$0]++' "$scratch/ambiguous" - >"$out"
rm -rf "$kept"
echo "link-order: $(grep -c . "$scratch/hot") functions per frame, $(grep -c . "$scratch/serving") run once ready, $(grep -c . "$out") in all ($(grep -c . "$scratch/ambiguous") names left out for their copies in whole objects); $(grep -c . "$scratch/events") lines seen by the replay's subscriber; wrote $out (the next 'make release-profiled' links with it)"
