#!/usr/bin/env bash
# Runs inside the virtual machine scripts/kernel-test.sh boots, after the
# other kernel tests, when it was given the Debian package (GESTURED_DEB;
# `make test` builds it first). With a uinput touchscreen already plugged in,
# installs it with dpkg (the guest's /etc, /usr and /var are overlays:
# nothing reaches the host), plugs in a second one, and checks that the
# package's udev rules let the service's user read both (the postinst's
# trigger reaches the first): the packaged daemon, started as user gestured,
# opens them and publishes the tap of each. Writes OUT/deb.out and
# OUT/deb-events.jsonl.
# Usage: kernel-guest-deb.sh OUT REPO DEB UINPUT_TOUCH
set -uo pipefail
out=$1 repo=$2 deb=$3 touch=$4
exec >"$out/deb.out" 2>&1
run=$(mktemp -d)
chmod 755 "$run"

# A touchscreen plugged in before the install, and one after; each plays a
# tap once "$run/goSUFFIX" exists, and prints "done" in "$run/playSUFFIX.log"
# when it is gone. Prints the node of the device named "... SUFFIX".
plug() {
    local suffix=$1 name node=""
    "$touch" play "$repo/Recordings/tap-1f.phone.evemu" --settle 0 --suffix " $suffix" --wait-for "$run/go$suffix" \
        </dev/null >"$run/play$suffix.log" 2>&1 &
    for _ in $(seq 200); do
        for name in /sys/class/input/event*/device/name; do
            case $(cat "$name" 2>/dev/null) in *"$suffix") node=/dev/input/$(basename "$(dirname "$(dirname "$name")")") ;; esac
        done
        [ -n "$node" ] && break
        sleep 0.05
    done
    udevadm settle --timeout=10
    echo "$node"
}
# What the package's rules gave user gestured on NODE.
acl() { getfacl -p "$1" 2>&1 | grep -E '^user:gestured:' || echo "no ACL for gestured"; }

# The test copies of the rules in /run/udev/rules.d would shadow the package's.
rm -f /run/udev/rules.d/*gestured*
udevadm control --reload
before=$(plug "#before")
echo "plugged in before the install: ${before:-none}"
echo "before the install: $(acl "$before")"
# virtme-ng mounts files of its own over some of /etc; systemd-sysusers
# replaces /etc/shadow by renaming, which a mount point refuses. Underneath
# is the overlay of the host's /etc, which the guest may write.
for f in /etc/shadow /etc/gshadow /etc/passwd /etc/group; do
    if mountpoint -q "$f"; then umount "$f" && echo "unmounted virtme-ng's $f"; fi
done
# The guest reads the host's files with the rights of the user who booted
# it, and the host's shadow files are root's alone: one the guest cannot
# read (nor so copy into the overlay to change) is made anew from passwd and
# group, every account locked (nobody logs in to the guest).
for f in /etc/shadow /etc/gshadow; do
    if ! cat "$f" >/dev/null 2>&1; then
        rm -f "$f"
        if [ "$f" = /etc/shadow ]; then sed 's/:.*/:*:::::::/' /etc/passwd >"$f"; else sed 's/:.*/:!::/' /etc/group >"$f"; fi
        chmod 640 "$f"
        echo "$f is closed to the user who booted the guest: made anew from $([ "$f" = /etc/shadow ] && echo passwd || echo group)"
    fi
done
# man-db's trigger would rebuild every manual page's index: minutes under emulation.
rm -f /var/lib/man-db/auto-update
# A folder only the host's polkitd may read (Debian's polkitd makes
# /usr/share/polkit-1/rules.d 0700) would stop dpkg too. An empty folder of
# the guest's own stands in for it.
for d in /usr/share/polkit-1/rules.d /etc/polkit-1/rules.d; do
    if [ -d "$d" ] && ! ls "$d" >/dev/null 2>&1; then
        mount -t tmpfs tmpfs "$d" && echo "$d is closed to the user who booted the guest: an empty one in its place"
    fi
done
DEBIAN_FRONTEND=noninteractive dpkg -i "$deb"
echo "dpkg exited $?"
getent passwd gestured | cut -d: -f1,7
ls /lib/udev/rules.d | grep gestured
ls /usr/share/libinput | grep gestured
udevadm settle --timeout=10
# Under emulation the replayed "change" event can still be on its way
# after settle gives up: look for the ACL for up to 30 s more.
for _ in $(seq 60); do
    acl "$before" | grep -q '^user:gestured:' && break
    sleep 0.5
done
echo "before the install, after it: $(acl "$before")"
after=$(plug "#after")
echo "plugged in after the install: ${after:-none}"
echo "after the install: $(acl "$after")"

# The packaged daemon as the service's user: it reads touchscreens only
# through what the package's rules gave that user.
install -d -o gestured -g gestured -m 755 "$run/sock"
setpriv --reuid gestured --regid gestured --clear-groups -- /usr/bin/gestured serve --socket "$run/sock/p.sock" \
    >"$run/serve.log" 2>&1 &
serve=$!
for _ in $(seq 200); do [ -S "$run/sock/p.sock" ] && break; sleep 0.05; done
/usr/bin/gestured monitor --socket "$run/sock/p.sock" --json >"$out/deb-events.jsonl" 2>"$run/monitor.log" &
monitor=$!
for _ in $(seq 600); do grep -q '"type":"subscribed"' "$out/deb-events.jsonl" && break; sleep 0.05; done
touch "$run/go#before" "$run/go#after"
# The players were started in command substitutions: not this shell's to wait for.
for _ in $(seq 600); do grep -qx done "$run/play#before.log" && grep -qx done "$run/play#after.log" && break; sleep 0.05; done
for _ in $(seq 200); do [ "$(grep -c '"gesture":"tap"' "$out/deb-events.jsonl")" -ge 2 ] && break; sleep 0.05; done
kill "$monitor" 2>/dev/null
kill -TERM "$serve"
wait "$serve"
echo "serve as gestured exited $?"
cat "$run/serve.log"
