#!/usr/bin/env bash
# A touchscreen claimed and let go while a reader (a compositor's libinput)
# has it open all along, on a real kernel; run by scripts/kernel-guest.sh
# inside the virtual machine after the claim scenarios.
#
# The kernel sends a reader only what changed, and a slot number only when
# the slot written to is not the last one it sent. While the daemon holds
# its grab, the reader gets nothing, so the kernel's idea of what the reader
# last saw moves on without it. Played here: a two-finger touch the reader
# sees (it ends in slot 1); a reload that claims the device; a one-finger
# tap in slot 0 that only the daemon sees (the kernel's last slot is now 0,
# the reader's still 1); a reload that lets the device go; the two-finger
# touch again. Unless the daemon gives the device back as the reader last
# saw it, the kernel leaves out the touch's first slot number, and the
# reader puts its first finger in slot 1 and then finds slot 1 taken
# ("double tracking ID"): one finger lost. Writes stale-*.out into OUT.
# Usage: kernel-guest-stale.sh OUT REPO GESTURED UINPUT_TOUCH
set -uo pipefail
out=$1 repo=$2 gestured=$3 touch=$4
log() { echo "stale: $(cut -d' ' -f1 /proc/uptime) s: $*" >>"$out/guest.log"; }
run=$(mktemp -d)
chmod 755 "$run"

phone=$repo/Recordings/pinch-close-2f.phone.evemu
name="$(sed -n 's/^N: //p' "$phone" | head -n 1) #stale"
trace=$run/stale.phone.evemu
# Two fingers (slots 0 and 1) down 100 ms, the last event in slot 1; then,
# 1 s later, one finger in slot 0 for 80 ms. EV_ABS 0x2f ABS_MT_SLOT, 0x39
# ABS_MT_TRACKING_ID, 0x35 and 0x36 the position; EV_KEY 0x14a BTN_TOUCH.
{
    sed '/^E: /,$d' "$phone"
    printf 'E: 1000.000000 0003 002f 0\nE: 1000.000000 0003 0039 21\nE: 1000.000000 0003 0035 300\nE: 1000.000000 0003 0036 900\n'
    printf 'E: 1000.000000 0003 002f 1\nE: 1000.000000 0003 0039 22\nE: 1000.000000 0003 0035 700\nE: 1000.000000 0003 0036 1300\n'
    printf 'E: 1000.000000 0001 014a 1\nE: 1000.000000 0000 0000 0\n'
    printf 'E: 1000.100000 0003 002f 0\nE: 1000.100000 0003 0039 -1\nE: 1000.100000 0003 002f 1\nE: 1000.100000 0003 0039 -1\n'
    printf 'E: 1000.100000 0001 014a 0\nE: 1000.100000 0000 0000 0\n'
    printf 'E: 1001.100000 0003 002f 0\nE: 1001.100000 0003 0039 23\nE: 1001.100000 0003 0035 500\nE: 1001.100000 0003 0036 1800\n'
    printf 'E: 1001.100000 0001 014a 1\nE: 1001.100000 0000 0000 0\n'
    printf 'E: 1001.180000 0003 0039 -1\nE: 1001.180000 0001 014a 0\nE: 1001.180000 0000 0000 0\n'
} >"$trace"
# The tap begins at the 17th event (16 counted from 0, as the player counts).
first_of_tap=16

section() { printf '[[device]]\nmatch = "%s"\nclaim = %s\nsize = "68x146"\n\n' "$name" "$1"; }
section false >"$run/stale.toml"
"$gestured" serve --socket "$run/s.sock" --config "$run/stale.toml" --user daemon --log-level info \
    >"$out/stale-serve.log" 2>&1 &
daemon=$!
for _ in $(seq 300); do [ -S "$run/s.sock" ] && break; sleep 0.1; done

node_named() {
    local n
    for _ in $(seq 600); do
        for n in /sys/class/input/event*; do
            [ "$(cat "$n/device/name" 2>/dev/null)" = "$1" ] && { echo "/dev/input/${n##*/}"; return; }
        done
        sleep 0.05
    done
}
"$touch" play "$trace" --settle 0 --suffix " #stale" --wait-for "$run/go" \
    --pause-after "$first_of_tap" "$run/resume" --again "$run/again" </dev/null >"$out/stale-play.out" 2>&1 &
player=$!
source=$(node_named "$name")
for _ in $(seq 600); do grep -q "$name" "$out/stale-serve.log" && break; sleep 0.05; done
# The reader, open from before the first touch to after the last.
libinput debug-events --device "$source" >"$out/stale-libinput.out" 2>&1 &
reader=$!
for _ in $(seq 600); do grep -qs 'DEVICE_ADDED' "$out/stale-libinput.out" && break; sleep 0.05; done
log "the two fingers, read by all"
touch "$run/go"
for _ in $(seq 600); do grep -q '^paused' "$out/stale-play.out" && break; sleep 0.05; done
section true >"$run/stale.toml"
kill -HUP "$daemon"
for _ in $(seq 600); do grep -q "#stale: grabbed" "$out/stale-serve.log" && break; sleep 0.05; done
log "claimed; the tap, for the daemon alone"
touch "$run/resume"
for _ in $(seq 600); do grep -q '^late' "$out/stale-play.out" && break; sleep 0.05; done
sleep 0.5
section false >"$run/stale.toml"
kill -HUP "$daemon"
for _ in $(seq 600); do grep -q "#stale: let go" "$out/stale-serve.log" && break; sleep 0.05; done
sleep 0.5
log "let go; the two fingers again"
touch "$run/again"
for _ in $(seq 600); do grep -q '^again done' "$out/stale-play.out" && break; sleep 0.05; done
wait "$player"
sleep 1
kill "$reader" "$daemon" 2>/dev/null
wait "$reader" "$daemon" 2>/dev/null
log "done"
