#!/usr/bin/env bash
# Claimed touchscreens on a real kernel (docs/claiming.md): run by
# scripts/kernel-guest.sh inside the virtual machine once its own daemon has
# stopped. A daemon with `claim = true` for the devices named "… #claim-TAG",
# the compositor played by readers of each clone (uinput-touch record, for
# the frames and when they arrived; libinput debug-events, for what
# libinput makes of them), and plain readers of unclaimed devices named
# "… #plain-TAG" playing the same recordings, for comparison. Everything it
# saw lands in OUT as claim-*; Tests/EndToEndTests/KernelTests reads it.
# Usage: kernel-guest-claim.sh OUT REPO GESTURED UINPUT_TOUCH
set -uo pipefail
out=$1 repo=$2 gestured=$3 touch=$4
log() { echo "claim: $(cut -d' ' -f1 /proc/uptime) s: $*" >>"$out/guest.log"; }
run=$(mktemp -d)
chmod 755 "$run"

# The shipped rules, for user daemon (no user gestured here): read access to
# touchscreens, write access to /dev/uinput (given already), and the clone
# rule calling this build's `gestured clone-properties`.
sed 's/u:gestured:/u:daemon:/' "$repo/systemd/74-gestured.rules" >/run/udev/rules.d/74-gestured.rules
sed "s|@BINDIR@|$(dirname "$gestured")|" "$repo/systemd/81-gestured-clone.rules" >/run/udev/rules.d/81-gestured-clone.rules
cp "$repo/systemd/76-gestured-touchpad.rules" /run/udev/rules.d/
# The shipped libinput quirk for the virtual touchpad, beside libinput's own:
# a copy of its data folder mounted over it for this run (the package step
# after it installs into the real one).
quirks=$(mktemp -d)
cp -a /usr/share/libinput/. "$quirks/"
cp "$repo/systemd/50-gestured-touchpad.quirks" "$quirks/"
mount --bind "$quirks" /usr/share/libinput || log "cannot mount the quirks: the touchpad runs without its quirk"
# What a machine's rules would give its touchscreen: the clone must get it too.
printf '%s\n' 'ACTION!="remove", SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="*#claim-*", ATTRS{name}!="*(gestured)", ENV{WL_OUTPUT}="DSI-1", ENV{LIBINPUT_CALIBRATION_MATRIX}="1 0 0 0 1 0"' \
    >/run/udev/rules.d/60-claim-test.rules
udevadm control --reload

# A tap in the left edge band of the laptop's panel (x 1 mm in), held 80 ms
# with a little jitter: what an edge binding must not swallow.
laptop=$repo/Recordings/edge-swipe-left.laptop.evemu
edgetap=$run/edge-tap.laptop.evemu
{
    sed '/^E: /,$d' "$laptop"
    printf 'E: 1000.000000 0003 0039 1\nE: 1000.000000 0003 0035 11\nE: 1000.000000 0003 0036 828\nE: 1000.000000 0001 014a 1\nE: 1000.000000 0000 0000 0\n'
    printf 'E: 1000.040000 0003 0036 830\nE: 1000.040000 0000 0000 0\n'
    printf 'E: 1000.080000 0003 0039 -1\nE: 1000.080000 0001 014a 0\nE: 1000.080000 0000 0000 0\n'
} >"$edgetap"
# The same finger resting there 400 ms: longer than the hold-back bound.
edgerest=$run/edge-rest.laptop.evemu
{
    sed '/^E: /,$d' "$laptop"
    printf 'E: 1000.000000 0003 0039 1\nE: 1000.000000 0003 0035 11\nE: 1000.000000 0003 0036 828\nE: 1000.000000 0001 014a 1\nE: 1000.000000 0000 0000 0\n'
    for t in 040 080 120 160 200 240 280 320 360; do printf 'E: 1000.%s000 0003 0036 %d\nE: 1000.%s000 0000 0000 0\n' $t $((828 + ${t#0} % 3)) $t; done
    printf 'E: 1000.400000 0003 0039 -1\nE: 1000.400000 0001 014a 0\nE: 1000.400000 0000 0000 0\n'
} >"$edgerest"

# Three fingers landing together on the kiosk panel (476 x 268 mm) and
# spreading from the first frame on, 1 mm a finger every 10 ms for 400 ms:
# a pinch libinput can tell from a swipe before its 150 ms timeout.
padpinch=$run/spread-3f.kiosk.evemu
python3 - "$repo/Recordings/swipe-up-3f.kiosk.evemu" >"$padpinch" <<'PY'
import math, sys
header = [l for l in open(sys.argv[1]) if not l.startswith("E: ")]
sys.stdout.write("".join(header))
ux, uy = 32767 / 476, 32767 / 268
for k in range(41):
    t = 1000 + k * 0.01
    for slot, angle in enumerate((90, 210, 330)):
        r = 20 + k
        x = 238 + r * math.cos(math.radians(angle))
        y = 134 - r * math.sin(math.radians(angle))
        print(f"E: {t:.6f} 0003 002f {slot}")
        if k == 0:
            print(f"E: {t:.6f} 0003 0039 {slot + 1}")
        print(f"E: {t:.6f} 0003 0035 {round(x * ux)}")
        print(f"E: {t:.6f} 0003 0036 {round(y * uy)}")
    if k == 0:
        print(f"E: {t:.6f} 0001 014a 1")
    print(f"E: {t:.6f} 0000 0000 0")
t = 1000 + 41 * 0.01
for slot in range(3):
    print(f"E: {t:.6f} 0003 002f {slot}")
    print(f"E: {t:.6f} 0003 0039 -1")
print(f"E: {t:.6f} 0001 014a 0")
print(f"E: {t:.6f} 0000 0000 0")
PY

# Clicks under the finger, on the tablet panel (4096 x 2560 units at 19 a
# mm): a finger resting 1.5 s at 25 %, 70 % of the panel (trembling a unit
# or two); the same finger moving 5 mm right from 200 to 350 ms, then
# resting; an 80 ms tap; a second finger 30 ms after a first, both lifting
# at 120 ms (a two-finger tap, its centre at 41.5 %, 46.9 %).
python3 - "$repo/Recordings/hold-1f.tablet.evemu" "$run" <<'PY'
import sys
header = "".join(l for l in open(sys.argv[1]) if not l.startswith("E: "))
def write(name, frames):
    with open(f"{sys.argv[2]}/{name}.tablet.evemu", "w") as f:
        f.write(header)
        for t, events in frames:
            for e in events:
                f.write(f"E: {1000 + t:.6f} {e}\n")
            f.write(f"E: {1000 + t:.6f} 0000 0000 0\n")
def finger(slot, x, y, until, move=None):
    frames = [(0.0, [f"0003 002f {slot}", f"0003 0039 {slot + 1}", f"0003 0035 {x}", f"0003 0036 {y}", "0001 014a 1"])]
    k = 1
    while k * 0.016 < until:
        t = k * 0.016
        dx = 0 if move is None else round(95 * min(1, max(0, (t - 0.2) / 0.15)))
        frames.append((t, [f"0003 0035 {x + dx + k % 2}", f"0003 0036 {y + (k // 2) % 2}"]))
        k += 1
    frames.append((until, ["0003 0039 -1", "0001 014a 0"]))
    return frames
write("click-hold", finger(0, 1024, 1792, 1.5))
write("click-move", finger(0, 1024, 1792, 1.5, move=True))
write("click-tap", finger(0, 2048, 1280, 0.08))
write("click-two", [
    (0.0, ["0003 002f 0", "0003 0039 1", "0003 0035 1400", "0003 0036 1000", "0001 014a 1"]),
    (0.03, ["0003 002f 1", "0003 0039 2", "0003 0035 2000", "0003 0036 1400"]),
    (0.06, ["0003 002f 0", "0003 0035 1401"]),
    (0.09, ["0003 002f 1", "0003 0036 1401"]),
    (0.12, ["0003 002f 0", "0003 0039 -1", "0003 002f 1", "0003 0039 -1", "0001 014a 0"]),
])
# Strokes on the same panel: an L (40 mm down in 0.4 s, then 25 mm right
# in 0.25 s, the lift 50 ms later) drawn by two fingers 20 mm apart, the
# second landing two frames after the first, after a 0.1 s rest; and by
# one finger after a 0.8 s rest. Resting fingers tremble a unit.
def stroke(starts, rest):
    mm = 19
    def drawn(t):
        s = t - rest
        if s <= 0:
            return (0, 0)
        if s <= 0.4:
            return (0, 40 * mm * s / 0.4)
        return (25 * mm * min(1, (s - 0.4) / 0.25), 40 * mm)
    frames, k = [], 0
    while k * 0.016 < rest + 0.7:
        t, events = k * 0.016, []
        for slot, (x, y) in enumerate(starts):
            if k < 2 * slot:
                continue
            dx, dy = drawn(t)
            events.append(f"0003 002f {slot}")
            if k == 2 * slot:
                events.append(f"0003 0039 {slot + 1}")
            events += [f"0003 0035 {round(x + dx) + k % 2}", f"0003 0036 {round(y + dy)}"]
            if k == 0:
                events.append("0001 014a 1")
        frames.append((t, events))
        k += 1
    lift = [e for slot in range(len(starts)) for e in (f"0003 002f {slot}", "0003 0039 -1")]
    frames.append((rest + 0.7, lift + ["0001 014a 0"]))
    return frames
write("stroke-two", stroke([(1400, 700), (1780, 700)], 0.1))
write("stroke-rest", stroke([(1400, 700)], 0.8))
PY

# Each scenario: TAG and the recording it plays.
file_of() {
    case $1 in
        tap) echo "$repo/Recordings/tap-1f.phone.evemu" ;;
        drag | load) echo "$repo/Recordings/slow-drag-right.tablet.evemu" ;;
        pinch | reload | kill | term) echo "$repo/Recordings/pinch-close-2f.phone.evemu" ;;
        swipe | free | removed | leftto | taken | elsewhere | here | padswipe | padmode) echo "$repo/Recordings/swipe-up-3f.kiosk.evemu" ;;
        padpinch) echo "$padpinch" ;;
        edge) echo "$laptop" ;;
        edgetap) echo "$edgetap" ;;
        edgerest) echo "$edgerest" ;;
        rest) echo "$repo/Recordings/hold-1f.tablet.evemu" ;;
        clickhold) echo "$run/click-hold.tablet.evemu" ;;
        clickmove) echo "$run/click-move.tablet.evemu" ;;
        clicktap) echo "$run/click-tap.tablet.evemu" ;;
        clicktwo) echo "$run/click-two.tablet.evemu" ;;
        stroketwo) echo "$run/stroke-two.tablet.evemu" ;;
        strokerest) echo "$run/stroke-rest.tablet.evemu" ;;
    esac
}
name_of() { sed -n 's/^N: //p' "$(file_of "$1")" | head -n 1; }
# A [[device]] section for TAG's device named NAME: claimed or not, and the
# size the recording's .expect gives, if any (where the recording reports
# no resolution).
section() { # TAG NAME CLAIM
    local expect size
    expect=$(file_of "$1")
    expect=$repo/Recordings/$(basename "${expect%.evemu}" | sed 's/^edge-\(tap\|rest\)/edge-swipe-left/; s/^spread-3f/swipe-up-3f/; s/^\(click\|stroke\)-[a-z]*/hold-1f/').expect
    size=$(sed -n 's/^# size: *//p' "$expect" | head -n 1)
    printf '[[device]]\nmatch = "%s"\nclaim = %s\n' "$2" "$3"
    [ -z "$size" ] || printf 'size = "%s"\n' "$size"
    echo
}
claimed_tags="tap drag load pinch free swipe edge edgetap edgerest elsewhere here leftto taken padswipe padpinch padmode clickhold clickmove clicktap clicktwo stroketwo strokerest removed reload kill term"
config() { # the daemon's configuration; RELOADED: the reload scenario's device no longer claimed
    local tag
    for tag in $claimed_tags; do
        if [ "$tag" = reload ] && [ "${1:-}" = reloaded ]; then
            section "$tag" "$(name_of "$tag") #claim-$tag" false
        else
            section "$tag" "$(name_of "$tag") #claim-$tag" true
        fi
    done
}
config >"$run/claim.toml"
section rest "$(name_of rest) #claim-rest" true >"$run/rest.toml"

start_daemon() {
    # A daemon that could not remove its socket (its user may not write
    # this directory) left it behind.
    rm -f "$run/c.sock"
    local subscribed
    subscribed=$(grep -c '"type":"subscribed"' "$out/claim-events.jsonl" 2>/dev/null)
    "$gestured" serve --socket "$run/c.sock" --config "$run/claim.toml" --user daemon --log-level info >>"$out/claim-serve.log" 2>&1 &
    daemon=$!
    for _ in $(seq 300); do [ -S "$run/c.sock" ] && break; sleep 0.1; done
    "$gestured" monitor --socket "$run/c.sock" --json >>"$out/claim-events.jsonl" 2>>"$out/claim-monitor.log" &
    monitor=$!
    for _ in $(seq 600); do
        [ "$(grep -c '"type":"subscribed"' "$out/claim-events.jsonl")" -gt "${subscribed:-0}" ] && break
        sleep 0.05
    done
}
start_daemon

# The node of the input device named NAME, once it exists.
node_named() {
    for _ in $(seq 600); do
        for e in /sys/class/input/event*; do
            if [ "$(cat "$e/device/name" 2>/dev/null)" = "$1" ]; then
                echo "/dev/input/${e##*/}"
                return 0
            fi
        done
        sleep 0.05
    done
    return 1
}
# Every input device's name, now.
names() { cat /sys/class/input/event*/device/name 2>/dev/null | sort; }

# Plays TAG's recording on a device named "NAME #KIND-TAG" (KIND: claim or
# plain) with the frames' times in claim-sent-KIND-TAG.evemu; reads the
# clone (claim) or the device itself (plain) as a compositor would, into
# claim-read-KIND-TAG.evemu and claim-libinput-KIND-TAG.out. Extra
# arguments go to the player. Sets `played`, `reader`, `li`, `source`.
play() {
    local kind=$1 tag=$2
    shift 2
    local name
    name="$(name_of "$tag") #$kind-$tag"
    "$touch" play "$(file_of "$tag")" --settle 0 --suffix " #$kind-$tag" --wait-for "$run/go-$kind-$tag" \
        --sent "$out/claim-sent-$kind-$tag.evemu" "$@" </dev/null >"$out/claim-play-$kind-$tag.out" 2>&1 &
    played=$!
    source=$(node_named "$name")
    local read=$name
    if [ "$kind" = claim ]; then
        read="$name (gestured)"
        # The daemon has it when its monitor hears of it.
        for _ in $(seq 600); do grep -q "\"type\":\"device_added\".*#claim-$tag\"" "$out/claim-events.jsonl" && break; sleep 0.05; done
    fi
    "$touch" record "$read" 60 "$out/claim-read-$kind-$tag.evemu" >"$out/claim-record-$kind-$tag.out" 2>&1 &
    reader=$!
    for _ in $(seq 600); do grep -q '^recording' "$out/claim-record-$kind-$tag.out" && break; sleep 0.05; done
    libinput debug-events --device "$(node_named "$read")" >"$out/claim-libinput-$kind-$tag.out" 2>&1 &
    li=$!
    for _ in $(seq 600); do grep -qs 'DEVICE_ADDED' "$out/claim-libinput-$kind-$tag.out" && break; sleep 0.05; done
    log "$kind $tag"
    # What must happen once the device is there, before its touches.
    [ -z "${before_touches:-}" ] || "$before_touches"
    touch "$run/go-$kind-$tag"
}
# Waits for the player and the readers (the readers end with their device).
finish() {
    wait "$played"
    wait "$reader" 2>/dev/null
    sleep 0.5
    kill "$li" 2>/dev/null
    wait "$li" 2>/dev/null
}

# 1. The same recordings plain and claimed, with nothing claimed yet: a
#    one-finger tap and drag, a pinch, and a three-finger swipe that no
#    binding wants.
for tag in tap drag pinch free; do
    play plain "$tag"
    finish
    play claim "$tag"
    finish
done

# 1b. The drag again, claimed, while 16 connections send the daemon the
#     costliest requests there are as fast as they are answered: what
#     reaches the clone, and when, against the calm drag above.
# The lines: a 64 KiB string, 30,000 numbers, 30,000 nested arrays, each
# sent over and over through socat by 16 connections, whose answers are counted.
size=$((64 * 1024 - 100))
{
    printf '{"type":"subscribe","x":"%s"}\n' "$(head -c $((size - 40)) /dev/zero | tr '\0' a)"
    printf '{"type":"subscribe","fingers":[%s1]}\n' "$(yes '1,' | head -n 30000 | tr -d '\n')"
    printf '{"type":"subscribe","x":%s%s}\n' "$(head -c 30000 /dev/zero | tr '\0' '[')" "$(head -c 30000 /dev/zero | tr '\0' ']')"
} >"$run/costly.lines"
attackers=()
for k in $(seq 16); do
    (while cat "$run/costly.lines"; do :; done | timeout 60 socat - UNIX-CONNECT:"$run/c.sock" | wc -l >"$run/attack-$k.count") \
        2>/dev/null &
    attackers+=($!)
done
sleep 1
play claim load
finish
pkill -f "socat - UNIX-CONNECT:$run/c.sock"
wait "${attackers[@]}" 2>/dev/null
echo "answered $(cat "$run"/attack-*.count | awk '{ n += $1 } END { print n + 0 }')" >"$out/claim-attack.out"

# 2. gestured act with a three-finger swipe and a left-edge swipe bound: act
#    claims both (three fingers and edges by default).
printf '[[bind]]\ngesture = "swipe"\nfingers = 3\nrun = ["sh", "-c", "echo swipe >>%s/ran"]\n\n' "$run" >"$run/actions.toml"
printf '[[bind]]\ngesture = "swipe"\nedge = "left"\nrun = ["sh", "-c", "echo edge >>%s/ran"]\n' "$run" >>"$run/actions.toml"
chmod 644 "$run/actions.toml"
"$gestured" act --config "$run/actions.toml" --socket "$run/c.sock" >"$out/claim-act.log" 2>&1 &
act=$!
for _ in $(seq 600); do grep -q 'connected to' "$out/claim-act.log" && break; sleep 0.05; done
play claim swipe
finish
for tag in edgetap edgerest; do
    play plain "$tag"
    finish
    play claim "$tag"
    finish
done
play claim edge
finish
sleep 1
cp "$run/ran" "$out/claim-ran.out" 2>/dev/null || : >"$out/claim-ran.out"

# 2a. Claims follow the touchscreen's output: act told the touchscreens
#     show on eDP-1 ([screen] output), a three-finger swipe bound `when = {
#     output = "HDMI-*" }` claims nothing there and passes whole; bound for
#     "eDP-*", it is taken.
# act hears of each device as it comes and sends the claims on it then.
act_claims_it() {
    if [ "$tag" = here ]; then
        for _ in $(seq 600); do grep -q 'claiming 3 fingers on /dev/input/' "$out/claim-act-$tag.log" && break; sleep 0.05; done
    fi
    sleep 1
}
for where in 'elsewhere:HDMI-*' 'here:eDP-*'; do
    tag=${where%%:*}
    kill "$act"
    wait "$act" 2>/dev/null
    printf '[screen]\noutput = "eDP-1"\nfollow-rotation = false\n\n[[bind]]\ngesture = "swipe"\nfingers = 3\nwhen = { output = "%s" }\nrun = ["true"]\n' \
        "${where#*:}" >"$run/output.toml"
    chmod 644 "$run/output.toml"
    "$gestured" act --config "$run/output.toml" --socket "$run/c.sock" >"$out/claim-act-$tag.log" 2>&1 &
    act=$!
    for _ in $(seq 600); do grep -q 'connected to' "$out/claim-act-$tag.log" && break; sleep 0.05; done
    # The daemon takes a subscription within a turn; the claimed thread, the next command.
    sleep 2
    before_touches=act_claims_it play claim "$tag"
    finish
done

# 2b. Claims follow the focused app: act again with the same bindings and
#     `leave-to-apps`, its focus from a stand-in for i3's IPC (the headless
#     sway tests cover the real compositors). With that app in front the
#     swipe passes whole and runs nothing; with another it is taken as above.
kill "$act"
wait "$act" 2>/dev/null
echo gestured.test.maps >"$run/app"
python3 "$repo/scripts/stand-in-i3.py" "$run/i3.sock" "$run/app" 2>"$out/claim-i3.log" &
i3=$!
for _ in $(seq 300); do [ -S "$run/i3.sock" ] && break; sleep 0.1; done
{
    printf '[context]\nleave-to-apps = ["gestured.test.maps"]\n\n'
    cat "$run/actions.toml"
} >"$run/context.toml"
chmod 644 "$run/context.toml"
: >"$run/ran"
I3SOCK=$run/i3.sock "$gestured" act --config "$run/context.toml" --socket "$run/c.sock" >"$out/claim-act-context.log" 2>&1 &
act=$!
for _ in $(seq 600); do
    grep -q 'connected to' "$out/claim-act-context.log" && grep -q 'its touches are left to it' "$out/claim-act-context.log" && break
    sleep 0.05
done
# The daemon takes a subscription within a turn; the claimed thread, the next command.
sleep 2
play claim leftto
finish
echo gestured.test.other >"$run/app"
kill -USR1 "$i3"
for _ in $(seq 600); do grep -q 'claiming 3 fingers, left edge on claimed touchscreens now' "$out/claim-act-context.log" && break; sleep 0.05; done
sleep 2
play claim taken
finish
sleep 1
cp "$run/ran" "$out/claim-ran-context.out"
# act keeps claiming three fingers and the left edge (its focus no longer known) for what follows.
kill "$i3"
wait "$i3" 2>/dev/null

# 2c. The touchpad output: act with a three-finger swipe and a
#     three-finger pinch bound `touchpad = true`. The daemon makes its
#     virtual touchpad; libinput debug-events reads it as a compositor
#     would. Then the swipe again with a tablet-mode switch on and a key of
#     an internal (i8042) keyboard pressed just before.
kill "$act"
wait "$act" 2>/dev/null
printf '[[bind]]\ngesture = "swipe"\nfingers = 3\ntouchpad = true\n\n[[bind]]\ngesture = "pinch"\nfingers = 3\ntouchpad = true\n' \
    >"$run/touchpad.toml"
chmod 644 "$run/touchpad.toml"
"$gestured" act --config "$run/touchpad.toml" --socket "$run/c.sock" >"$out/claim-act-touchpad.log" 2>&1 &
act=$!
for _ in $(seq 600); do grep -q 'claiming 3 fingers (to the touchpad)' "$out/claim-act-touchpad.log" && break; sleep 0.05; done
# The daemon takes a subscription within a turn; the claimed thread, the next command.
sleep 2
padswitch=$run/tablet-switch.evemu
printf '# EVEMU 1.3\nN: gestured test claim tablet switch\nI: 0019 0001 0002 0001\nP: 00 00 00 00 00 00 00 00\nB: 00 21 00 00 00 00 00 00 00\nB: 05 02 00 00 00 00 00 00 00\n' >"$padswitch"
evemu-device "$padswitch" >"$out/claim-touchpad-switch.out" 2>&1 &
padswitch_pid=$!
padkeys=$run/internal-keyboard.evemu
printf '# EVEMU 1.3\nN: gestured test internal keyboard\nI: 0011 0001 0001 ab41\nP: 00 00 00 00 00 00 00 00\nB: 00 13 00 00 00 00 00 00 00\nB: 01 fe ff ff ff 00 00 00 00\nB: 04 10 00 00 00 00 00 00 00\n' >"$padkeys"
evemu-device "$padkeys" >"$out/claim-touchpad-keyboard.out" 2>&1 &
padkeys_pid=$!
# The node evemu-device made, from what it printed into FILE.
evemu_node() { for _ in $(seq 600); do sed -n 's|^.*: \(/dev/input/event[0-9]*\)$|\1|p' "$1" | head -n 1 | grep . && return; sleep 0.05; done; }
# Once the touchscreen is there (and with it the virtual touchpad, made when
# the first claimed touchscreen takes a touchpad claim): libinput and a
# recorder on the pad, as a compositor would read it; for padmode, a key on
# the internal keyboard just before the touches.
read_pad() {
    pad=$(node_named "Virtual touchpad (gestured)")
    if [ ! -s "$out/claim-touchpad-udev.out" ]; then
        udevadm settle
        udevadm info "$pad" >"$out/claim-touchpad-udev.out" 2>&1
        # Every input device's name and phys; the clone's udev properties
        # (81-gestured-clone.rules gives it the touchscreen's).
        for e in /sys/class/input/event*; do echo "${e##*/}: $(cat "$e/device/name") phys=$(cat "$e/device/phys")"; done \
            >"$out/claim-touchpad-devices.out" 2>&1
        udevadm info "$(node_named "$(name_of "$tag") #claim-$tag (gestured)")" >"$out/claim-clone-udev.out" 2>&1
    fi
    libinput quirks list "$pad" >"$out/claim-touchpad-quirks-$tag.out" 2>&1
    libinput debug-events --device "$pad" >"$out/claim-touchpad-$tag.out" 2>&1 &
    padli=$!
    for _ in $(seq 600); do grep -qs 'DEVICE_ADDED' "$out/claim-touchpad-$tag.out" && break; sleep 0.05; done
    "$touch" record "Virtual touchpad (gestured)" 30 "$out/claim-read-touchpad-$tag.evemu" >"$out/claim-record-touchpad-$tag.out" 2>&1 &
    padreader=$!
    for _ in $(seq 600); do grep -q '^recording' "$out/claim-record-touchpad-$tag.out" && break; sleep 0.05; done
    if [ "$tag" = padmode ]; then
        local keys
        keys=$(evemu_node "$out/claim-touchpad-keyboard.out")
        evemu-event --sync "$keys" --type EV_KEY --code KEY_A --value 1
        evemu-event --sync "$keys" --type EV_KEY --code KEY_A --value 0
    fi
}
for tag in padswipe padpinch padmode; do
    if [ "$tag" = padmode ]; then
        evemu-event --sync "$(evemu_node "$out/claim-touchpad-switch.out")" --type EV_SW --code SW_TABLET_MODE --value 1
    fi
    before_touches=read_pad play claim "$tag"
    finish
    sleep 0.5
    kill "$padli" "$padreader" 2>/dev/null
    wait "$padli" "$padreader" 2>/dev/null
done
kill "$padswitch_pid" "$padkeys_pid" 2>/dev/null
wait "$padswitch_pid" "$padkeys_pid" 2>/dev/null

# 2d. Clicks under the finger: act with a one-finger touch-and-hold and a
#     two-finger tap bound to right-click (the tap with claim = true). The
#     daemon makes its pointer when act subscribes; libinput debug-events
#     reads it, as a compositor would, during each scenario.
kill "$act"
wait "$act" 2>/dev/null
printf '[[bind]]\ngesture = "touch-and-hold"\nfingers = 1\npointer = "right-click"\n\n[[bind]]\ngesture = "tap"\nfingers = 2\npointer = "right-click"\nclaim = true\n' \
    >"$run/click.toml"
chmod 644 "$run/click.toml"
"$gestured" act --config "$run/click.toml" --socket "$run/c.sock" >"$out/claim-act-click.log" 2>&1 &
act=$!
for _ in $(seq 600); do grep -q 'connected to' "$out/claim-act-click.log" && break; sleep 0.05; done
# The daemon takes a subscription within a turn; the claimed thread, the next command.
sleep 2
read_pointer() {
    local pointer
    pointer=$(node_named "gestured virtual pointer")
    [ -s "$out/claim-pointer-udev.out" ] || { udevadm settle; udevadm info "$pointer" >"$out/claim-pointer-udev.out" 2>&1; }
    libinput debug-events --device "$pointer" >"$out/claim-pointer-$tag.out" 2>&1 &
    pointerli=$!
    for _ in $(seq 600); do grep -qs 'DEVICE_ADDED' "$out/claim-pointer-$tag.out" && break; sleep 0.05; done
}
for tag in clickhold clicktap clickmove clicktwo; do
    before_touches=read_pointer play claim "$tag"
    finish
    sleep 1
    kill "$pointerli" 2>/dev/null
    wait "$pointerli" 2>/dev/null
done
# Five left clicks asked back to back by one client: each is to be written
# whole and spaced, so that libinput reports every press and release.
tag=clickburst
read_pointer
python3 - "$run/c.sock" >"$out/claim-click-burst.out" 2>&1 <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b'{"type":"subscribe","gestures":["tap"],"pointer":true}\n')
time.sleep(0.5)
s.sendall(b''.join(b'{"type":"pointer","button":"left","x":0.%d,"y":0.5}\n' % (i + 2) for i in range(5)))
s.settimeout(0.5)
got, end = b'', time.time() + 10
while time.time() < end and got.count(b'"clicked"') + got.count(b'"error"') < 5:
    try:
        data = s.recv(65536)
    except socket.timeout:
        continue
    if not data:
        break
    got += data
print(got.decode(), end='')
PY
sleep 1
kill "$pointerli" 2>/dev/null
wait "$pointerli" 2>/dev/null

# 2e. Strokes on a claimed touchscreen: act with an L bound drawn by two
#     fingers (claim = true: claimed as the second lands) and drawn by one
#     finger after a 600 ms rest (claimed when the rest has lasted that
#     long). What act ran lands in claim-ran-strokes.out.
kill "$act"
wait "$act" 2>/dev/null
{
    printf '[[shape]]\nname = "L"\nexamples = ["0,0 0,40 25,40"]\n\n'
    printf '[[bind]]\ngesture = "stroke"\nshape = "L"\nfingers = 2\nclaim = true\nrun = ["sh", "-c", "echo stroke-two >>%s/ran-strokes"]\n\n' "$run"
    printf '[[bind]]\ngesture = "stroke"\nshape = "L"\nfingers = 1\nhold-ms = 600\nrun = ["sh", "-c", "echo stroke-rest >>%s/ran-strokes"]\n' "$run"
} >"$run/strokes.toml"
chmod 644 "$run/strokes.toml"
"$gestured" act --config "$run/strokes.toml" --socket "$run/c.sock" >"$out/claim-act-strokes.log" 2>&1 &
act=$!
for _ in $(seq 600); do grep -q 'connected to' "$out/claim-act-strokes.log" && break; sleep 0.05; done
sleep 2
for tag in stroketwo strokerest; do
    play claim "$tag"
    finish
done
sleep 1
cp "$run/ran-strokes" "$out/claim-ran-strokes.out" 2>/dev/null || : >"$out/claim-ran-strokes.out"
# What follows runs with the touchpad bindings' claims, as before 2d.
kill "$act"
wait "$act" 2>/dev/null
"$gestured" act --config "$run/touchpad.toml" --socket "$run/c.sock" >>"$out/claim-act-touchpad.log" 2>&1 &
act=$!
for _ in $(seq 600); do [ "$(grep -c 'claiming 3 fingers (to the touchpad)' "$out/claim-act-touchpad.log")" -ge 2 ] && break; sleep 0.05; done
sleep 2

# 3. Endings in the middle of a claimed touchscreen's touches. After each:
#    the devices there are, whether the source can be grabbed (it cannot
#    while a grab is held), then the rest of the recording.
# The device itself read as the compositor reads it: libinput debug-events
# on the node, into claim-libinput-source-TAG.out. Sets `source_li`.
read_source() {
    libinput debug-events --device "$source" >"$out/claim-libinput-source-$tag.out" 2>&1 &
    source_li=$!
    for _ in $(seq 600); do grep -qs 'DEVICE_ADDED' "$out/claim-libinput-source-$tag.out" && break; sleep 0.05; done
}
interrupted() { # TAG HOW
    local tag=$1 how=$2 events
    events=$(grep -c '^E: ' "$(file_of "$tag")")
    source_li=""
    if [ "$how" = removed ]; then
        play claim "$tag" --stop-after $((events / 2))
    else
        # Kept until the grab below has tried it (and, let go by a reload,
        # played once more). A reload's device is read from before its
        # touches, as a compositor has it open all along: what it read
        # last is what it must find again once the device is let go.
        local again=() first=""
        [ "$how" != reload ] || { again=(--again "$run/again-$tag"); first=read_source; }
        before_touches=$first play claim "$tag" --pause-after $((events / 2)) "$run/resume-$tag" \
            --keep-until "$run/looked-$tag" "${again[@]}"
        for _ in $(seq 600); do grep -q '^paused' "$out/claim-play-claim-$tag.out" && break; sleep 0.05; done
        log "$tag paused with its fingers down"
    fi
    # The device as the compositor reads it, once the claim has ended.
    if [ "$how" != removed ] && [ -z "$source_li" ]; then read_source; fi
    log "$how in the middle of $tag"
    case $how in
        kill) kill -KILL "$daemon" ;;
        term) kill -TERM "$daemon" ;;
        reload)
            # What `gestured devices` says of it (it opens it as the daemon does, for a moment).
            "$gestured" devices --config "$run/claim.toml" --device "$source" >"$out/claim-devices.out" 2>&1
            config reloaded >"$run/claim.toml"
            kill -HUP "$daemon"
            for _ in $(seq 600); do grep -q "#claim-reload: no longer claimed" "$out/claim-serve.log" && break; sleep 0.05; done
            # Still held while the fingers are down.
            "$touch" grab "$source" >"$out/claim-grab-during-$tag.out" 2>&1
            ;;
    esac
    [ "$how" = kill ] || [ "$how" = term ] && wait "$daemon" 2>/dev/null
    sleep 1
    names >"$out/claim-names-during-$tag.out"
    log "$tag resumed"
    touch "$run/resume-$tag"
    [ "$how" = removed ] || { for _ in $(seq 600); do grep -q '^late' "$out/claim-play-claim-$tag.out" && break; sleep 0.05; done; }
    sleep 0.5
    names >"$out/claim-names-after-$tag.out"
    [ "$how" = removed ] || "$touch" grab "$source" >"$out/claim-grab-after-$tag.out" 2>&1
    if [ "$how" = reload ]; then
        # The next touch of the device let go, the same pinch again: the
        # daemon reads it whole.
        touch "$run/again-$tag"
        for _ in $(seq 600); do grep -q '^again done' "$out/claim-play-claim-$tag.out" && break; sleep 0.05; done
        sleep 1
    fi
    touch "$run/looked-$tag"
    finish
    if [ -n "$source_li" ]; then
        kill "$source_li" 2>/dev/null
        wait "$source_li" 2>/dev/null
    fi
}
interrupted removed removed
interrupted reload reload
interrupted term term
echo "claim daemon exited after SIGTERM" >>"$out/claim-serve.log"
kill "$act" "$monitor" 2>/dev/null
wait "$act" "$monitor" 2>/dev/null
config >"$run/claim.toml"
start_daemon
interrupted kill kill
kill "$monitor" 2>/dev/null
wait "$monitor" 2>/dev/null

# 4. A finger resting when the daemon starts: no grab until it lifts. The
#    hold is paused with its finger down, a daemon claiming it starts.
"$touch" play "$(file_of rest)" --settle 0 --suffix " #claim-rest" --pause-after 10 "$run/resume-rest" \
    </dev/null >"$out/claim-play-claim-rest.out" 2>&1 &
played=$!
for _ in $(seq 600); do grep -q '^paused' "$out/claim-play-claim-rest.out" && break; sleep 0.05; done
"$touch" record "$(name_of rest) #claim-rest" 60 "$out/claim-read-source-rest.evemu" >/dev/null 2>&1 &
reader=$!
"$gestured" serve --socket "$run/r.sock" --config "$run/rest.toml" --user daemon --log-level info >>"$out/claim-rest.log" 2>&1 &
rest=$!
for _ in $(seq 300); do grep -q "#claim-rest: claimed" "$out/claim-rest.log" && break; sleep 0.1; done
sleep 1
echo "--- resumed" >>"$out/claim-rest.log"
touch "$run/resume-rest"
wait "$played" "$reader"
kill -TERM "$rest"
wait "$rest"
echo "rest daemon exited $?" >>"$out/claim-rest.log"
log "rest done"
umount /usr/share/libinput
rm -rf "$quirks"
