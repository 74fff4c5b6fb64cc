#!/usr/bin/env bash
# A real compositor on claimed touchscreens (docs/claiming.md, "When the
# compositor drops the cancel"): run by scripts/kernel-guest.sh inside the
# virtual machine. Debian's sway reads the guest's devices through libinput
# as on a real seat (seatd as root, sway as nobody with wlroots' libinput
# backend and a headless output), wev fills that output as the app under the
# fingers, and `gestured act` runs as nobody beside them, its bindings taken
# through a daemon that claims the touchscreens. What wev saw of each
# scenario lands in OUT as compositor-wev-TAG.log;
# Tests/EndToEndTests/KernelCompositorTests reads it.
# Usage: kernel-guest-compositor.sh OUT REPO GESTURED UINPUT_TOUCH
set -uo pipefail
out=$1 repo=$2 gestured=$3 touch=$4
log() { echo "compositor: $(cut -d' ' -f1 /proc/uptime) s: $*" >>"$out/guest.log"; }
for tool in sway seatd wev stdbuf runuser; do
    command -v "$tool" >/dev/null || {
        echo "$tool is not installed (make setup-tests: scripts/debian-*packages.txt)" >"$out/compositor-missing"
        exit 0
    }
done
run=$(mktemp -d)
chmod 755 "$run"
pids=()
# runuser passes the signal on to its child; what nobody still runs after
# that (nothing else of the guest runs as nobody by now) is killed, so that
# no compositor keeps the devices open for the steps after this one.
cleanup() {
    kill "${pids[@]}" 2>/dev/null
    wait "${pids[@]}" 2>/dev/null
    pkill -KILL -u nobody 2>/dev/null
}
trap cleanup EXIT

# The rules a machine with the package has, for the daemon's user `daemon`
# here: read access to touchscreens, /dev/uinput, and the clone's properties.
mkdir -p /run/udev/rules.d
cp "$repo/systemd/70-gestured.rules" /run/udev/rules.d/
sed 's/u:gestured:/u:daemon:/' "$repo/systemd/74-gestured.rules" >/run/udev/rules.d/74-gestured.rules
sed 's/u:gestured:/u:daemon:/' "$repo/systemd/75-gestured-uinput.rules" >/run/udev/rules.d/75-gestured-uinput.rules
sed "s|@BINDIR@|$(dirname "$gestured")|" "$repo/systemd/81-gestured-clone.rules" >/run/udev/rules.d/81-gestured-clone.rules
udevadm control --reload
udevadm trigger --action=add --subsystem-match=misc >/dev/null 2>&1
udevadm settle --timeout=10

# Each scenario: TAG and the recording it plays.
file_of() {
    case $1 in
        swipe | swipe-passed) echo "$repo/Recordings/swipe-up-3f.kiosk.evemu" ;;
        tap) echo "$repo/Recordings/tap-1f.phone.evemu" ;;
        hold) echo "$repo/Recordings/hold-1f.tablet.evemu" ;;
    esac
}
tags="swipe tap hold swipe-passed"
name_of() { sed -n 's/^N: //p' "$(file_of "$1")" | head -n 1; }
{
    printf '[daemon]\nsocket-mode = "0666"\ndeliver = "everyone"\n\n'
    for tag in $tags; do
        expect=$repo/Recordings/$(basename "$(file_of "$tag")" .evemu).expect
        size=$(sed -n 's/^# size: *//p' "$expect" | head -n 1)
        printf '[[device]]\nmatch = "%s #wl-%s"\nclaim = true\n' "$(name_of "$tag")" "$tag"
        [ -z "$size" ] || printf 'size = "%s"\n' "$size"
        echo
    done
} >"$run/gestured.toml"
"$gestured" serve --socket "$run/w.sock" --config "$run/gestured.toml" --user daemon --log-level info \
    >"$out/compositor-serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do [ -S "$run/w.sock" ] && break; sleep 0.1; done
"$gestured" monitor --socket "$run/w.sock" --json >"$out/compositor-events.jsonl" 2>&1 &
pids+=($!)

# The seat: seatd hands sway the devices (the guest has no VT to bind to).
SEATD_VTBOUND=0 seatd -u nobody -g nogroup -l info >"$out/compositor-seatd.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do [ -S /run/seatd.sock ] && break; sleep 0.1; done
runtime=$run/runtime
mkdir -p "$runtime"
chown nobody "$runtime"
chmod 700 "$runtime"
printf 'xwayland disable\noutput HEADLESS-1 resolution 1280x720\nfor_window [app_id="wev"] fullscreen enable\n' >"$run/sway.config"
chmod 644 "$run/sway.config"
session=(env -i XDG_RUNTIME_DIR="$runtime" HOME="$runtime" PATH=/usr/bin:/bin SWAYSOCK="$runtime/sway-ipc.sock")
runuser -u nobody -- "${session[@]}" WLR_BACKENDS=headless,libinput WLR_RENDERER=pixman LIBSEAT_BACKEND=seatd \
    sway --debug --config "$run/sway.config" >"$out/compositor-sway.log" 2>&1 &
pids+=($!)
display=
for _ in $(seq 600); do
    display=$(sed -n "s/^.*Running compositor on wayland display '\([^']*\)'.*$/\1/p" "$out/compositor-sway.log" | head -n 1)
    [ -n "$display" ] && break
    sleep 0.1
done
[ -n "$display" ] || { log "sway did not start"; exit 0; }
session+=(WAYLAND_DISPLAY="$display")
runuser -u nobody -- "${session[@]}" stdbuf -oL wev >"$run/wev.log" 2>&1 &
pids+=($!)
for _ in $(seq 600); do grep -q 'fullscreen activated' "$run/wev.log" && break; sleep 0.1; done
log "sway on $display, wev fullscreen"

# act, as nobody in sway's session: a claimed three-finger swipe types "a"
# (the daemon's keyboard, which sway reads too); a still hold clicks right
# where it is. SETTING: [context] touch-cancel, or nothing (auto).
start_act() {
    {
        [ -z "${1:-}" ] || printf '[context]\ntouch-cancel = "%s"\n\n' "$1"
        printf '[[bind]]\ngesture = "swipe"\nfingers = 3\nkeys = "a"\n\n'
        printf '[[bind]]\ngesture = "touch-and-hold"\npointer = "right-click"\nhold-ms = 600\n'
    } >"$run/actions.toml"
    chmod 644 "$run/actions.toml"
    runuser -u nobody -- "${session[@]}" "$gestured" act --config "$run/actions.toml" --socket "$run/w.sock" \
        >"$out/compositor-act-${1:-auto}.log" 2>&1 &
    act=$!
    for _ in $(seq 600); do grep -q 'touch cancels: ' "$out/compositor-act-${1:-auto}.log" && break; sleep 0.1; done
    # The daemon takes a subscription within a turn; the claimed thread, the next command.
    sleep 2
}

# Plays TAG's recording on a device named "NAME #wl-TAG" once sway has its
# clone, and cuts what wev saw meanwhile into compositor-wev-TAG.log.
scenario() {
    local tag=$1 from
    "$touch" play "$(file_of "$tag")" --settle 0 --suffix " #wl-$tag" --wait-for "$run/go-$tag" \
        --keep-until "$run/done-$tag" </dev/null >"$out/compositor-play-$tag.out" 2>&1 &
    local played=$!
    for _ in $(seq 900); do grep -qF "#wl-${tag}_(gestured)" "$out/compositor-sway.log" && break; sleep 0.1; done
    grep -qF "#wl-${tag}_(gestured)" "$out/compositor-sway.log" || log "sway never added the clone of #wl-$tag"
    sleep 1
    from=$(wc -l <"$run/wev.log")
    log "play $tag"
    touch "$run/go-$tag"
    for _ in $(seq 600); do grep -q '^late ' "$out/compositor-play-$tag.out" && break; sleep 0.1; done
    # Time for a click after the hold, and for wev to print it.
    sleep 3
    tail -n +"$((from + 1))" "$run/wev.log" >"$out/compositor-wev-$tag.log"
    touch "$run/done-$tag"
    wait "$played"
}

start_act
for tag in swipe tap hold; do scenario "$tag"; done
kill "$act"
wait "$act" 2>/dev/null
# The same swipe with act told that sway passes the cancel on: what an app
# gets from this sway without the fallback.
start_act passed-on
scenario swipe-passed
kill "$act"
wait "$act" 2>/dev/null
cp "$run/wev.log" "$out/compositor-wev.log"
swaymsg_out=$(runuser -u nobody -- "${session[@]}" swaymsg -t get_version -r 2>&1)
echo "$swaymsg_out" >"$out/compositor-version.json"
echo done >"$out/compositor-status"
