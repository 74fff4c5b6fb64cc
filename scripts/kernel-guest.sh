#!/usr/bin/env bash
# Runs inside the virtual machine scripts/kernel-test.sh boots, as root, on a
# real kernel: uinput, evdev, udev, libinput's udev backend. Writes what it
# saw into OUT (the only directory it may write on the host).
# Usage: kernel-guest.sh OUT REPO GESTURED UINPUT_TOUCH [DEB]
set -uo pipefail
out=$1 repo=$2 gestured=$3 touch=$4 deb=${5:-}
log() { echo "guest: $*" >>"$out/guest.log"; }
exec 2>>"$out/guest.log"
run=$(mktemp -d)

modprobe uinput 2>/dev/null
[ -c /dev/uinput ] || { log "no /dev/uinput"; echo "no-uinput" >"$out/status"; exit 1; }
# udev, so that touchscreens are tagged ID_INPUT_TOUCHSCREEN=1 and libinput's
# udev backend sees them come and go.
udevd=$(command -v systemd-udevd || echo /lib/systemd/systemd-udevd)
"$udevd" --daemon 2>>"$out/guest.log"
# The shipped udev rules, for user nobody instead of gestured (no such user
# here): touchscreens tagged uaccess, and an ACL on them and on nothing else.
# The uinput rule for user daemon instead (so that nobody, who runs act
# below, is seen to need no uinput).
mkdir -p /run/udev/rules.d
cp "$repo/systemd/70-gestured.rules" /run/udev/rules.d/
sed 's/u:gestured:/u:nobody:/' "$repo/systemd/74-gestured.rules" >/run/udev/rules.d/74-gestured.rules
sed 's/u:gestured:/u:daemon:/' "$repo/systemd/75-gestured-uinput.rules" >/run/udev/rules.d/75-gestured-uinput.rules
udevadm control --reload
udevadm trigger --action=add >/dev/null 2>&1
udevadm settle --timeout=10
# One daemon on seat0 for everything, one subscriber taking every event.
"$gestured" serve --socket "$run/g.sock" --config "$out/gestured.toml" >"$out/serve.log" 2>&1 &
serve=$!
for _ in $(seq 100); do [ -S "$run/g.sock" ] && break; sleep 0.1; done
"$gestured" monitor --socket "$run/g.sock" --json >"$out/events.jsonl" 2>"$out/monitor.log" &
monitor=$!
# Nothing plays before the subscriber is subscribed (under emulation that
# can take longer than any fixed pause).
for _ in $(seq 600); do grep -q '"type":"subscribed"' "$out/events.jsonl" && break; sleep 0.05; done
grep -q '"type":"subscribed"' "$out/events.jsonl" || log "the monitor never subscribed"

# A keyboard beside the touchscreens the whole time: it must not be opened.
"$touch" keyboard 1000 >"$out/keyboard.out" &
keyboard=$!

# Plays a recording on a new device named "NAME SUFFIX" once the daemon has
# announced it (under software emulation udev can take a second), and
# destroys the device once the daemon has read all of it and decided what
# waits on a timer (--drained: the kernel gives a reader nothing more of a
# device destroyed, so a lift the daemon had not read yet would be missing
# from what is compared, and a tap still in its double-tap window would be
# dropped with the device).
# Sets `played` to the player's pid.
play() {
    local file=$1 suffix=$2 log=$3
    shift 3
    "$touch" play "$file" --settle 0 --suffix " $suffix" --wait-for "$run/go$suffix" --drained "$run/g.sock" "$@" \
        </dev/null >"$log" 2>&1 &
    played=$!
    for _ in $(seq 600); do
        grep -q "\"type\":\"device_added\".*$suffix\"" "$out/events.jsonl" && break
        sleep 0.05
    done
    touch "$run/go$suffix"
}

# Every bundled recording, two at a time, each on a device of its own
# named "NAME #I" so that its events can be told apart; what the kernel
# delivered, with its timestamps, in delivered-I.evemu.
batch=()
while read -r i name; do
    play "$repo/Recordings/$name.evemu" "#$i" "$out/play-$i.out" --echo "$out/delivered-$i.evemu"
    batch+=("$played")
    if [ ${#batch[@]} -eq 2 ]; then
        wait "${batch[@]}"
        batch=()
    fi
done <"$out/plan"
[ ${#batch[@]} -eq 0 ] || wait "${batch[@]}"

# The same for every recording of people's hands in plan-real (empty when
# ../shared/traces is not beside the checkout), on devices named "NAME #rI".
batch=()
while read -r tag path; do
    play "$path" "#$tag" "$out/play-$tag.out" --echo "$out/delivered-$tag.evemu"
    batch+=("$played")
    if [ ${#batch[@]} -eq 2 ]; then
        wait "${batch[@]}"
        batch=()
    fi
done <"$out/plan-real"
[ ${#batch[@]} -eq 0 ] || wait "${batch[@]}"

# A device destroyed in the middle of a pinch: the pinch ends cancelled.
events=$(grep -c '^E: ' "$repo/Recordings/pinch-close-2f.phone.evemu")
play "$repo/Recordings/pinch-close-2f.phone.evemu" "#removed" "$out/play-removed.out" --stop-after $((events / 2))
wait "$played"
sleep 1

# What the rule gave: the ACLs of a touchscreen's node and of the keyboard's,
# and what `gestured devices` finds as that user.
"$touch" play "$repo/Recordings/tap-1f.phone.evemu" --suffix " #acl" --wait-for "$run/go-acl" </dev/null >"$out/play-acl.out" 2>&1 &
played=$!
for _ in $(seq 600); do grep -q "\"type\":\"device_added\".*#acl\"" "$out/events.jsonl" && break; sleep 0.05; done
udevadm settle --timeout=10
getfacl -p "$(sed -n 's/^node //p' "$out/play-acl.out")" >"$out/acl-touchscreen.out" 2>&1
getfacl -p "$(sed -n 's/^node //p' "$out/keyboard.out")" >"$out/acl-keyboard.out" 2>&1
runuser -u nobody -- "$gestured" devices >"$out/devices-nobody.out" 2>&1
touch "$run/go-acl"
wait "$played"
printf 'acl\n' >>"$out/extra-plays"

# A panel mounted a quarter turn clockwise ([[device]] rotation = 90, put
# through libinput's calibration matrix), and one that reports no resolution
# and has no size configured (the daemon says what it assumes).
play "$repo/Recordings/swipe-right-1f.tablet.evemu" "#rotated" "$out/play-rotated.out"
wait "$played"
play "$repo/Recordings/tap-2f.tablet.evemu" "#noresolution" "$out/play-noresolution.out" --no-resolution
wait "$played"
printf 'rotated\nnoresolution\n' >>"$out/extra-plays"

# A bundled recording replayed by evemu's own tools (Debian's evemu-tools),
# as anyone would replay it: evemu-device makes the device from the file's
# description (named as in the file, with no suffix), evemu-play writes its
# events with their timing.
# Starts evemu-device on FILE, writing to LOG; sets `device_pid` and, once
# evemu-device names it, `device_node` (empty if it made none).
evemu_device() {
    evemu-device "$1" >"$2" 2>&1 &
    device_pid=$!
    device_node=""
    for _ in $(seq 600); do
        device_node=$(sed -n 's|^.*: \(/dev/input/event[0-9]*\)$|\1|p' "$2" | head -n 1)
        [ -n "$device_node" ] && break
        kill -0 "$device_pid" 2>/dev/null || break
        sleep 0.05
    done
}
evemu_file="$repo/Recordings/pinch-close-2f.phone.evemu"
evemu_device "$evemu_file" "$out/evemu-device.out"
evemu_device=$device_pid evemu_node=$device_node
if [ -n "$evemu_node" ]; then
    evemu_name=$(sed -n 's/^N: //p' "$evemu_file" | head -n 1)
    for _ in $(seq 600); do grep -q "\"type\":\"device_added\".*\"device\":\"$evemu_name\"" "$out/events.jsonl" && break; sleep 0.05; done
    evemu-play "$evemu_node" <"$evemu_file" >"$out/evemu-play.out" 2>&1
    echo "evemu-play exited $?" >>"$out/evemu-play.out"
    sleep 1
else
    log "evemu-device made no device from $evemu_file"
fi
kill "$evemu_device" 2>/dev/null
wait "$evemu_device" 2>/dev/null
printf 'evemu\n' >>"$out/extra-plays"

# A tablet-mode switch (SW_TABLET_MODE alone) made by evemu-device and
# turned by evemu-event, and act with a tap bound once for tablet mode and
# once for out of it: a tap with the switch off, then one with it on. act
# runs as nobody, the daemon's user here, which it trusts, through this
# daemon's socket opened to it; the commands write where nobody may.
printf '# EVEMU 1.3\nN: gestured test tablet-mode switch\nI: 0019 0001 0002 0001\nP: 00 00 00 00 00 00 00 00\nB: 00 21 00 00 00 00 00 00 00\nB: 05 02 00 00 00 00 00 00 00\n' \
    >"$run/switch.evemu"
evemu_device "$run/switch.evemu" "$out/switch-device.out"
switch_device=$device_pid switch_node=$device_node
for _ in $(seq 600); do grep -q "tablet-mode switch: gestured test tablet-mode switch" "$out/serve.log" && break; sleep 0.05; done
getfacl -p "$switch_node" >"$out/acl-switch.out" 2>&1
modes=$(mktemp -d)
chmod 777 "$modes"
chmod 755 "$run"
chmod 666 "$run/g.sock"
printf '[[bind]]\ngesture = "tap"\nwhen = { tablet-mode = true }\nrun = ["sh", "-c", "echo tablet >> %s/modes"]\n\n[[bind]]\ngesture = "tap"\nwhen = { tablet-mode = false }\nrun = ["sh", "-c", "echo desk >> %s/modes"]\n' \
    "$modes" "$modes" >"$run/modes.toml"
chmod 644 "$run/modes.toml"
runuser -u nobody -- "$gestured" act --config "$run/modes.toml" --socket "$run/g.sock" >"$out/act-modes.log" 2>&1 &
act_modes=$!
for _ in $(seq 600); do grep -q "connected to" "$out/act-modes.log" && break; sleep 0.05; done
play "$repo/Recordings/tap-1f.phone.evemu" "#desk" "$out/play-desk.out"
wait "$played"
for _ in $(seq 200); do grep -q desk "$modes/modes" 2>/dev/null && break; sleep 0.05; done
evemu-event --sync "$switch_node" --type EV_SW --code SW_TABLET_MODE --value 1 >>"$out/switch-device.out" 2>&1
for _ in $(seq 600); do grep -q "tablet mode: on" "$out/act-modes.log" && break; sleep 0.05; done
play "$repo/Recordings/tap-1f.phone.evemu" "#tablet" "$out/play-tablet.out"
wait "$played"
for _ in $(seq 200); do grep -q tablet "$modes/modes" 2>/dev/null && break; sleep 0.05; done
kill "$act_modes" "$switch_device" 2>/dev/null
wait "$act_modes" "$switch_device" 2>/dev/null
cp "$modes/modes" "$out/modes" 2>/dev/null
printf 'desk\ntablet\n' >>"$out/extra-plays"

# Starts `gestured record` on a device a player makes from FILE, named
# "NAME #TAG", once the recorder says it records and the daemon has announced
# the device (a device gone before udev tells the daemon of it is never
# added); sets `played` and `recorder`. The player waits for $run/go-TAG.
record() {
    local file=$1 tag=$2
    shift 2
    "$touch" play "$file" --suffix " #$tag" --wait-for "$run/go-$tag" "$@" </dev/null >"$out/play-$tag.out" 2>&1 &
    played=$!
    local node=""
    for _ in $(seq 600); do
        node=$(sed -n 's/^node //p' "$out/play-$tag.out")
        [ -n "$node" ] && break
        sleep 0.05
    done
    "$gestured" record --device "$node" -o "$out/recorded-$tag.evemu" >"$out/record-$tag.log" 2>&1 &
    recorder=$!
    for _ in $(seq 600); do grep -q "recording $node" "$out/record-$tag.log" && break; sleep 0.05; done
    for _ in $(seq 600); do grep -q "\"type\":\"device_added\".*#$tag\"" "$out/events.jsonl" && break; sleep 0.05; done
}
# gestured record on a real device: a swipe, recorded as it is played.
record "$repo/Recordings/swipe-right-1f.tablet.evemu" recorded
touch "$run/go-recorded"
wait "$played" "$recorder"
# A recorder that stops reading while a long trace is written at once: the
# kernel drops events (SYN_DROPPED); the file must say so and stay readable.
record "$repo/Recordings/tour.tablet.evemu" dropped --burst
kill -STOP "$recorder"
touch "$run/go-dropped"
for _ in $(seq 600); do grep -q '^late' "$out/play-dropped.out" && break; sleep 0.05; done
kill -CONT "$recorder"
wait "$played" "$recorder"
printf 'recorded\ndropped\n' >>"$out/extra-plays"

"$gestured" devices >"$out/devices.out" 2>&1

# gestured act's keys on a real uinput: a replayed swipe, a binding that
# types alt+Left, act run as nobody (who may not write /dev/uinput: the
# daemon types for it), the daemon running as user daemon (to whom the
# uinput rule gave write access above, as it gives it to gestured), and a
# reader of the daemon's keyboard.
getfacl -p /dev/uinput >"$out/acl-uinput.out" 2>&1
runuser -u nobody -- test -w /dev/uinput && echo "nobody may write /dev/uinput" >>"$out/acl-uinput.out"
shared=$(mktemp -d)
chmod 755 "$shared"
printf '[[bind]]\ngesture = "swipe"\nkeys = "alt+Left"\n' >"$shared/actions.toml"
chmod 644 "$shared/actions.toml"
# No logind in the guest: nobody is known to be at the screen, so act's
# user is let in as on any machine without logind (deliver = "everyone").
{ cat "$out/gestured.toml"; printf '[daemon]\nsocket-mode = "0666"\ndeliver = "everyone"\n'; } >"$shared/gestured.toml"
"$touch" watch "gestured virtual keyboard" 30 >"$out/keys.out" 2>&1 &
watcher=$!
"$gestured" serve --socket "$shared/r.sock" --replay "$repo/Recordings/swipe-left-1f.tablet.evemu" --wait-subscribers 1 \
    --config "$shared/gestured.toml" --user daemon >"$out/replay-serve.log" 2>&1 &
replay=$!
for _ in $(seq 200); do [ -S "$shared/r.sock" ] && break; sleep 0.05; done
runuser -u nobody -- "$gestured" act --config "$shared/actions.toml" --socket "$shared/r.sock" >"$out/act.log" 2>&1 &
act=$!
# act starts slowly under emulation: up to 30 s for the chord, then a
# second more for anything typed after it (nothing should be).
for _ in $(seq 600); do
    grep -q '^KEY_LEFTALT 0' "$out/keys.out" && { sleep 1; break; }
    kill -0 "$watcher" 2>/dev/null || break
    sleep 0.05
done
kill "$watcher" 2>/dev/null
wait "$watcher"
kill "$act" "$replay" 2>/dev/null
wait "$act" "$replay" 2>/dev/null
kill "$keyboard" 2>/dev/null
kill -TERM "$serve"
wait "$serve"
echo "serve exited $?" >>"$out/guest.log"
kill "$monitor" 2>/dev/null

# Claimed touchscreens, with a daemon of their own.
"$repo/scripts/kernel-guest-claim.sh" "$out" "$repo" "$gestured" "$touch"
# A touchscreen claimed and let go while a reader has it open all along.
timeout -k 10 180 "$repo/scripts/kernel-guest-stale.sh" "$out" "$repo" "$gestured" "$touch" ||
    log "the stale-state step exited $?"
# Real compositors (Debian's sway, the Debian 13 root's sway, KWin and GNOME Shell) on
# claimed touchscreens, wev the app.
timeout -k 10 780 "$repo/scripts/kernel-guest-compositor.sh" "$out" "$repo" "$gestured" "$touch" ||
    log "the compositor step exited $?"
# The Debian package, installed last: it replaces the rules above with its own.
# Bounded: the results above are kept whatever happens to it.
if [ -n "$deb" ]; then timeout -k 10 300 "$repo/scripts/kernel-guest-deb.sh" "$out" "$repo" "$deb" "$touch" || log "the package step exited $?"; fi
echo ok >"$out/status"
