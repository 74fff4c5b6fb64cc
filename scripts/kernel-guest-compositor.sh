#!/usr/bin/env bash
# A real compositor on claimed touchscreens (docs/claiming.md, "When the
# compositor drops the cancel"): run by scripts/kernel-guest.sh inside the
# virtual machine. Debian's sway reads the guest's devices through libinput
# as on a real seat (seatd as root, sway as nobody with wlroots' libinput
# backend and a headless output; then the Debian 13 root's sway, and its
# KWin and GNOME Shell on qemu's virtio-gpu), wev fills that output (on
# GNOME, a centred window) as the app under the fingers, and
# `gestured act` runs as nobody beside them, its bindings taken
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
cp "$repo/systemd/76-gestured-touchpad.rules" /run/udev/rules.d/
udevadm control --reload
udevadm trigger --action=add --subsystem-match=misc >/dev/null 2>&1
udevadm settle --timeout=10

# Each scenario: TAG (its compositor's name, a dash, what it plays) and the recording it plays.
file_of() {
    case $1 in
        # KWin binds touchpad swipes of four fingers (to switch desktops).
        kwin13-pad) echo "$repo/Recordings/swipe-left-4f.phone.evemu" && return ;;
    esac
    case ${1#*-} in
        swipe | swipe-passed | pad) echo "$repo/Recordings/swipe-up-3f.kiosk.evemu" ;;
        tap) echo "$repo/Recordings/tap-1f.phone.evemu" ;;
        hold) echo "$repo/Recordings/hold-1f.tablet.evemu" ;;
    esac
}
# The compositors: Debian 12's sway (1.7, which drops the touch cancel) and,
# where the Debian 13 root of the desktop tests is there with its sway (1.10,
# which passes it on), that one.
root=$repo/.build/debian13
compositors="sway12"
if [ -x "$root/usr/bin/sway" ]; then
    compositors="sway12 sway13"
else
    echo "no sway in $root (scripts/debian13-root.sh installs it)" >"$out/compositor-sway13-missing"
fi
# And that root's KWin (6.3) and GNOME Shell (48), on the DRM device of
# qemu's virtio-gpu (scripts/kernel-test.sh adds one), their seat from a
# logind played by python-dbusmock (scripts/logind-seat.py): both take
# their devices from logind only.
modprobe virtio_gpu 2>/dev/null
udevadm settle --timeout=10
seat_missing=
if [ ! -c /dev/dri/card0 ]; then
    seat_missing="no /dev/dri/card0 in the guest (qemu's virtio-gpu-pci, scripts/kernel-test.sh)"
elif ! /usr/bin/python3 -c 'import dbusmock' 2>/dev/null; then
    seat_missing="no python3-dbusmock (make setup-tests)"
fi
for c in kwin13:kwin_wayland gnome13:gnome-shell; do
    if [ ! -x "$root/usr/bin/${c#*:}" ]; then
        echo "no ${c#*:} in $root (scripts/debian13-root.sh installs it)" >"$out/compositor-${c%%:*}-missing"
    elif [ -n "$seat_missing" ]; then
        echo "$seat_missing" >"$out/compositor-${c%%:*}-missing"
    else
        compositors="$compositors ${c%%:*}"
    fi
done
tags=""
for c in $compositors; do tags="$tags $c-swipe $c-tap $c-hold"; done
tags="$tags sway12-swipe-passed sway13-pad"
case $compositors in *kwin13*) tags="$tags kwin13-pad" ;; esac
case $compositors in *gnome13*) tags="$tags gnome13-pad gnome13-swipe-passed" ;; esac
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
printf 'xwayland disable\noutput HEADLESS-1 resolution 1280x720\nfor_window [app_id="wev"] fullscreen enable\n' >"$run/sway12.config"
# sway 1.8 and later bind touchpad gestures: the daemon's virtual touchpad
# swiping up with three fingers moves it to workspace 2.
{ cat "$run/sway12.config"; printf 'bindgesture swipe:3:up workspace 2\n'; } >"$run/sway13.config"
chmod 644 "$run/sway12.config" "$run/sway13.config"
# The shipped libinput quirk for the virtual touchpad, beside the root's
# libinput's own, mounted over them in its namespace.
quirks=$run/quirks13
mkdir -p "$quirks"
[ ! -d "$root/usr/share/libinput" ] || cp -a "$root/usr/share/libinput/." "$quirks/"
cp "$repo/systemd/50-gestured-touchpad.quirks" "$quirks/"

# Runs "$@" from the Debian 13 root as nobody, chrooted in a mount namespace
# of its own where /proc, /dev, /sys, /run (udev's database, seatd's socket)
# and /tmp (the session's runtime directory) are the guest's, and the
# root's libinput quirks are those of $quirks.
in_root() {
    unshare --mount --propagation private --fork --kill-child=SIGTERM -- sh -c \
        "for d in proc dev sys run; do mount --rbind /\$d '$root'/\$d || exit 1; done; mount --bind /tmp '$root/tmp' &&
         mount --bind '$quirks' '$root/usr/share/libinput' &&
         exec chroot --userspec=65534:65534 '$root' \"\$@\"" sh "$@"
}

# KWin's seat: a system bus anyone may use, logind on it with nobody's
# session c1 active on seat0, and what logind's uaccess gives that session's
# user: the DRM device (KWin opens it itself beside the descriptor logind
# hands it). Sets `system` (the bus's address).
start_seat() {
    [ -z "${system:-}" ] || return 0
    cat >"$run/system-bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$run/system-bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
  </policy>
</busconfig>
CONF
    dbus-daemon --config-file="$run/system-bus.conf" --nofork --nopidfile >"$out/compositor-system-bus.log" 2>&1 &
    pids+=($!)
    system=unix:path=$run/system-bus
    for _ in $(seq 100); do [ -S "$run/system-bus" ] && break; sleep 0.1; done
    DBUS_SYSTEM_BUS_ADDRESS=$system /usr/bin/python3 -m dbusmock --system --template "$repo/scripts/logind-seat.py" \
        -p '{"uid": 65534, "user": "nobody"}' >"$out/compositor-logind.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 600); do grep -q CanTTY "$out/compositor-logind.log" && break; sleep 0.1; done
    setfacl -m u:nobody:rw /dev/dri/card*
}

# start_wev C SOCKET SECONDS READY: once compositor C's Wayland SOCKET is
# there (within SECONDS), wev as nobody in `session`, waited for until its
# log shows READY (at most 150 s). Sets `wev`.
start_wev() {
    local c=$1 socket=$2 limit=$3 ready=$4
    for _ in $(seq $((limit * 10))); do [ -S "$socket" ] && break; sleep 0.1; done
    [ -S "$socket" ] || { log "$c did not start"; return 1; }
    runuser -u nobody -- "${session[@]}" stdbuf -oL wev >"$run/wev-$c.log" 2>&1 &
    wev=$!
    for _ in $(seq 1500); do grep -q "$ready" "$run/wev-$c.log" && break; sleep 0.1; done
}

# nobody's session bus for compositor C, at RUNTIME/bus.
session_bus() {
    runuser -u nobody -- env XDG_RUNTIME_DIR="$1" dbus-daemon --session --address="unix:path=$1/bus" --nofork --nopidfile \
        >"$out/compositor-$2-bus.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do [ -S "$1/bus" ] && break; sleep 0.1; done
}

# Starts compositor C (sway12: this system's sway; sway13: the Debian 13
# root's, through in_root; kwin13: start_kwin; gnome13: start_gnome) as
# nobody, then wev fullscreen (on GNOME, a window). Sets `session` (the
# environment of a client), `sway` (the compositor's process, whichever it
# is) and `wev`.
start_session() {
    local c=$1 runtime=$run/runtime-$1 display=
    mkdir -p "$runtime"
    chown nobody "$runtime"
    chmod 700 "$runtime"
    if [ "$c" = kwin13 ]; then
        start_kwin "$runtime"
        return
    fi
    if [ "$c" = gnome13 ]; then
        start_gnome "$runtime"
        return
    fi
    session=(env -i XDG_RUNTIME_DIR="$runtime" HOME="$runtime" PATH=/usr/bin:/bin SWAYSOCK="$runtime/sway-ipc.sock")
    local compositor=("${session[@]}" WLR_BACKENDS=headless,libinput WLR_RENDERER=pixman LIBSEAT_BACKEND=seatd
        sway --debug --config "$run/$c.config")
    if [ "$c" = sway13 ]; then
        in_root "${compositor[@]}" >"$out/compositor-$c-sway.log" 2>&1 &
    else
        runuser -u nobody -- "${compositor[@]}" >"$out/compositor-$c-sway.log" 2>&1 &
    fi
    sway=$!
    for _ in $(seq 600); do
        display=$(sed -n "s/^.*Running compositor on wayland display '\([^']*\)'.*$/\1/p" "$out/compositor-$c-sway.log" | head -n 1)
        [ -n "$display" ] && break
        sleep 0.1
    done
    [ -n "$display" ] || { log "$c did not start"; return 1; }
    session+=(WAYLAND_DISPLAY="$display")
    start_wev "$c" "$runtime/$display" 10 'fullscreen activated' || return 1
    log "$c on $display, wev fullscreen"
    runuser -u nobody -- "${session[@]}" swaymsg -t get_version -r >"$out/compositor-$c-version.json" 2>&1
}
# KWin on the DRM device, its libinput devices from logind, wev made
# fullscreen by a window rule; act finds KWin by XDG_CURRENT_DESKTOP, as in
# a Plasma session. Sets what start_session sets.
start_kwin() {
    local runtime=$1 display=wl-kwin13
    start_seat
    mkdir -p "$runtime/.config"
    printf '[Desktops]\nNumber=2\nRows=1\n' >"$runtime/.config/kwinrc"
    printf '[General]\ncount=1\nrules=wev\n\n[wev]\nDescription=wev fullscreen\nfullscreen=true\nfullscreenrule=2\nwmclass=wev\nwmclassmatch=1\n' \
        >"$runtime/.config/kwinrulesrc"
    chown -R nobody "$runtime"
    session_bus "$runtime" kwin13
    session=(env -i XDG_RUNTIME_DIR="$runtime" HOME="$runtime" PATH=/usr/bin:/bin
        DBUS_SESSION_BUS_ADDRESS="unix:path=$runtime/bus" XDG_CURRENT_DESKTOP=KDE WAYLAND_DISPLAY="$display")
    in_root "${session[@]}" XDG_SESSION_ID=c1 DBUS_SYSTEM_BUS_ADDRESS="$system" KWIN_COMPOSE=Q \
        kwin_wayland --drm --socket "$display" --no-lockscreen >"$out/compositor-kwin13-kwin.log" 2>&1 &
    sway=$!
    start_wev kwin13 "$runtime/$display" 90 'fullscreen activated' || return 1
    log "kwin13 on $display, wev fullscreen"
    in_root kwin_wayland --version >"$out/compositor-kwin13-version" 2>&1
}

# GNOME Shell on the DRM device, its devices from logind as KWin's. Mutter
# draws with OpenGL, here Mesa's llvmpipe; llvmpipe's code for AVX2
# (gathers) crashes under qemu's emulation, so it is held to SSE4.1. GNOME
# opens the overview at start: it is closed over D-Bus before the
# scenarios. wev is not made fullscreen (mutter has no window rules): GNOME
# centres its 640 by 480 window, under the recordings' fingers. Sets what
# start_session sets.
start_gnome() {
    local runtime=$1 display=wl-gnome13
    start_seat
    # What sd-login reads of logind's state (logind writes these files).
    mkdir -p /run/systemd/sessions /run/systemd/seats /run/systemd/users
    printf 'UID=65534\nUSER=nobody\nACTIVE=1\nIS_DISPLAY=1\nSTATE=active\nREMOTE=0\nTYPE=wayland\nCLASS=user\nSEAT=seat0\nVTNR=0\n' \
        >/run/systemd/sessions/c1
    printf 'IS_SEAT0=1\nCAN_MULTI_SESSION=1\nCAN_TTY=0\nCAN_GRAPHICAL=1\nACTIVE=c1\nACTIVE_UID=65534\nSESSIONS=c1\nUIDS=65534\n' \
        >/run/systemd/seats/seat0
    printf 'NAME=nobody\nSTATE=active\nSESSIONS=c1\nSEATS=seat0\nACTIVE_SESSIONS=c1\nDISPLAY=c1\n' >/run/systemd/users/65534
    session_bus "$runtime" gnome13
    session=(env -i XDG_RUNTIME_DIR="$runtime" HOME="$runtime" PATH=/usr/bin:/bin
        DBUS_SESSION_BUS_ADDRESS="unix:path=$runtime/bus" XDG_CURRENT_DESKTOP=GNOME WAYLAND_DISPLAY="$display")
    in_root "${session[@]}" XDG_SESSION_ID=c1 XDG_SESSION_TYPE=wayland DBUS_SYSTEM_BUS_ADDRESS="$system" \
        GALLIUM_OVERRIDE_CPU_CAPS=sse4.1 gnome-shell --wayland --no-x11 --display-server --wayland-display "$display" \
        >"$out/compositor-gnome13-gnome.log" 2>&1 &
    sway=$!
    start_wev gnome13 "$runtime/$display" 120 'configure: width: 640' || return 1
    close_overview
    log "gnome13 on $display, wev mapped, overview $(gnome_overview)"
    in_root gnome-shell --version >"$out/compositor-gnome13-version" 2>&1
}

# Whether GNOME Shell's overview is open ("b true"), over the session bus;
# and closing it (its animation takes about a second).
gnome_overview() {
    runuser -u nobody -- "${session[@]}" busctl --user get-property org.gnome.Shell /org/gnome/Shell org.gnome.Shell OverviewActive
}
close_overview() {
    runuser -u nobody -- "${session[@]}" busctl --user set-property org.gnome.Shell /org/gnome/Shell org.gnome.Shell OverviewActive b false
    sleep 2
}

# KWin's current virtual desktop (its id), from KWin over the session bus.
kwin_desktop() {
    runuser -u nobody -- "${session[@]}" busctl --user get-property org.kde.KWin \
        /VirtualDesktopManager org.kde.KWin.VirtualDesktopManager current
}

# Whether the compositor, the process named COMPOSITOR of nobody's, holds
# the input device named NAME open.
holds_device() {
    local pid node
    pid=$(pgrep -u nobody -x "$1" | head -n 1)
    [ -n "$pid" ] || return 1
    for node in /sys/class/input/event*; do
        [ "$(cat "$node/device/name" 2>/dev/null)" = "$2" ] || continue
        ls -l "/proc/$pid/fd" 2>/dev/null | grep -q " /dev/input/$(basename "$node")\$" && return 0
    done
    return 1
}

stop_session() {
    # runuser passes the signal on to sway; unshare --fork ignores it while
    # its child runs: sway is told by name.
    kill "$wev" "$sway" 2>/dev/null
    pkill -TERM -u nobody -x sway 2>/dev/null
    pkill -TERM -u nobody -x kwin_wayland 2>/dev/null
    pkill -TERM -u nobody -x gnome-shell 2>/dev/null
    wait "$wev" "$sway" 2>/dev/null
    rm -f /run/systemd/sessions/c1 /run/systemd/seats/seat0 /run/systemd/users/65534
    cp "$run/wev-$1.log" "$out/compositor-$1-wev.log"
}

# act, as nobody in the session: a claimed three-finger swipe types "a"
# (the daemon's keyboard, which sway reads too); a still hold clicks right
# where it is; or, with BINDINGS "touchpad", the three-finger swipe goes on
# to the daemon's virtual touchpad. LOG names its log; SETTING: [context]
# touch-cancel, or nothing (auto).
start_act() {
    local log=$1 setting=${2:-} bindings=${3:-}
    {
        [ -z "$setting" ] || printf '[context]\ntouch-cancel = "%s"\n\n' "$setting"
        if [ "$bindings" = touchpad ]; then
            printf '[[bind]]\ngesture = "swipe"\nfingers = %d\ntouchpad = true\n' "${pad_fingers:-3}"
        else
            printf '[[bind]]\ngesture = "swipe"\nfingers = 3\nkeys = "a"\n\n'
            printf '[[bind]]\ngesture = "touch-and-hold"\npointer = "right-click"\nhold-ms = 600\n'
        fi
    } >"$run/actions-$log.toml"
    chmod 644 "$run/actions-$log.toml"
    runuser -u nobody -- "${session[@]}" "$gestured" act --config "$run/actions-$log.toml" --socket "$run/w.sock" \
        >"$out/compositor-$log-act.log" 2>&1 &
    act=$!
    for _ in $(seq 600); do grep -q 'touch cancels: ' "$out/compositor-$log-act.log" && break; sleep 0.1; done
    # The daemon takes a subscription within a turn; the claimed thread, the next command.
    sleep 2
}
stop_act() {
    kill "$act"
    wait "$act" 2>/dev/null
}

# Plays TAG's recording on a device named "NAME #wl-TAG" once the
# compositor (C, TAG's first part) has its clone (and the devices `also`
# names, as sway's log spells them), and cuts what wev saw meanwhile into
# compositor-TAG-wev.log.
scenario() {
    local tag=$1 c=${1%%-*} from
    "$touch" play "$(file_of "$tag")" --settle 0 --suffix " #wl-$tag" --wait-for "$run/go-$tag" \
        --keep-until "$run/done-$tag" </dev/null >"$out/compositor-$tag-play.out" 2>&1 &
    local played=$!
    if [ "$c" = kwin13 ] || [ "$c" = gnome13 ]; then
        local process=kwin_wayland
        [ "$c" = kwin13 ] || process=gnome-shell
        for device in "$(name_of "$tag") #wl-$tag (gestured)" ${also:+"${also//_/ }"}; do
            for _ in $(seq 900); do holds_device "$process" "$device" && break; sleep 0.1; done
            holds_device "$process" "$device" || log "$c never opened $device"
        done
    else
        for device in "#wl-${tag}_(gestured)" ${also:-}; do
            for _ in $(seq 900); do grep -qF "$device" "$out/compositor-$c-sway.log" && break; sleep 0.1; done
            grep -qF "$device" "$out/compositor-$c-sway.log" || log "$c never added $device"
        done
    fi
    sleep 1
    from=$(wc -l <"$run/wev-$c.log")
    log "play $tag"
    touch "$run/go-$tag"
    for _ in $(seq 600); do grep -q '^late ' "$out/compositor-$tag-play.out" && break; sleep 0.1; done
    # Time for a click after the hold, and for wev to print it.
    sleep 3
    tail -n +"$((from + 1))" "$run/wev-$c.log" >"$out/compositor-$tag-wev.log"
    touch "$run/done-$tag"
    wait "$played"
}

# The daemon's own absolute pointer (what clicks where a compositor offers
# act none of its own): a client subscribed with `pointer` asks for a right
# click at a quarter across, three quarters down; sway places that pointer
# on its one output. What wev saw lands in compositor-C-pointer-wev.log.
daemon_click() {
    local c=$1 from
    rm -f "$run/pointer.in"
    mkfifo "$run/pointer.in"
    socat - UNIX-CONNECT:"$run/w.sock" <"$run/pointer.in" >"$out/compositor-$c-pointer.out" 2>&1 &
    local client=$!
    exec 9>"$run/pointer.in"
    printf '{"type":"subscribe","gestures":["tap"],"pointer":true}\n' >&9
    for _ in $(seq 600); do grep -qF "gestured_virtual_pointer" "$out/compositor-$c-sway.log" && break; sleep 0.1; done
    sleep 1
    from=$(wc -l <"$run/wev-$c.log")
    printf '{"type":"pointer","button":"right","x":0.25,"y":0.75}\n' >&9
    for _ in $(seq 300); do grep -q '"type":"clicked"' "$out/compositor-$c-pointer.out" && break; sleep 0.1; done
    sleep 2
    tail -n +"$((from + 1))" "$run/wev-$c.log" >"$out/compositor-$c-pointer-wev.log"
    exec 9>&-
    wait "$client" 2>/dev/null
}

for c in $compositors; do
    start_session "$c" || continue
    start_act "$c"
    for what in swipe tap hold; do scenario "$c-$what"; done
    stop_act
    if [ "$c" = sway12 ]; then
        # The same swipe with act told that sway passes the cancel on: what
        # an app gets from this sway without the fallback.
        start_act sway12-passed passed-on
        scenario sway12-swipe-passed
        stop_act
        daemon_click "$c"
    elif [ "$c" = sway13 ]; then
        # The touchpad output: sway's own gesture binding follows the
        # daemon's virtual touchpad to workspace 2.
        runuser -u nobody -- "${session[@]}" swaymsg -t get_workspaces -r >"$out/compositor-$c-pad-before.json" 2>&1
        start_act "$c-pad" "" touchpad
        also="Virtual_touchpad_(gestured)" scenario "$c-pad"
        runuser -u nobody -- "${session[@]}" swaymsg -t get_workspaces -r >"$out/compositor-$c-pad-after.json" 2>&1
        stop_act
    elif [ "$c" = kwin13 ]; then
        # The touchpad output: KWin's own four-finger swipe switches to the
        # next of its two virtual desktops, following the daemon's touchpad.
        kwin_desktop >"$out/compositor-$c-pad-before" 2>&1
        pad_fingers=4 start_act "$c-pad" "" touchpad
        also="Virtual_touchpad_(gestured)" scenario "$c-pad"
        kwin_desktop >"$out/compositor-$c-pad-after" 2>&1
        stop_act
    elif [ "$c" = gnome13 ]; then
        # The touchpad output: GNOME's own three-finger swipe up opens the
        # overview, following the daemon's touchpad.
        gnome_overview >"$out/compositor-$c-pad-before" 2>&1
        start_act "$c-pad" "" touchpad
        also="Virtual_touchpad_(gestured)" scenario "$c-pad"
        gnome_overview >"$out/compositor-$c-pad-after" 2>&1
        stop_act
        # The same swipe with act told that GNOME passes the cancel on: what
        # an app gets from GNOME Shell without the fallback. Last: mutter
        # keeps the touches it never ended and dies of them as their
        # touchscreen goes.
        close_overview
        start_act gnome13-passed passed-on
        scenario gnome13-swipe-passed
        stop_act
    fi
    stop_session "$c"
done
echo done >"$out/compositor-status"
