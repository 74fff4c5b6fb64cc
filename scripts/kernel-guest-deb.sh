#!/usr/bin/env bash
# Runs inside the virtual machine scripts/kernel-test.sh boots, after the
# other kernel tests, when it was given the Debian package (GESTURED_DEB;
# `make test` builds it first). Installs it with dpkg (the guest's /etc, /usr
# and /var are overlays: nothing reaches the host), then plugs in a uinput
# touchscreen and checks that the package's udev rules let the service's
# user read it: the packaged daemon, started as user gestured, opens it and
# publishes its tap. Writes OUT/deb.out and OUT/deb-events.jsonl.
# Usage: kernel-guest-deb.sh OUT REPO DEB UINPUT_TOUCH
set -uo pipefail
out=$1 repo=$2 deb=$3 touch=$4
exec >"$out/deb.out" 2>&1
run=$(mktemp -d)
chmod 755 "$run"

# The test copies of the rules in /run/udev/rules.d would shadow the package's.
rm -f /run/udev/rules.d/*gestured*
# virtme-ng mounts files of its own over some of /etc; systemd-sysusers
# replaces /etc/shadow by renaming, which a mount point refuses. Underneath
# is the overlay of the host's /etc, which the guest may write.
for f in /etc/shadow /etc/gshadow /etc/passwd /etc/group; do
    if mountpoint -q "$f"; then umount "$f" && echo "unmounted virtme-ng's $f"; fi
done
# man-db's trigger would rebuild every manual page's index: minutes under emulation.
rm -f /var/lib/man-db/auto-update
DEBIAN_FRONTEND=noninteractive dpkg -i "$deb"
echo "dpkg exited $?"
getent passwd gestured | cut -d: -f1,7
ls /lib/udev/rules.d | grep gestured
udevadm settle --timeout=10

"$touch" play "$repo/Recordings/tap-1f.phone.evemu" --settle 0 --suffix " #packaged" --wait-for "$run/go" </dev/null >"$run/play.log" 2>&1 &
player=$!
node=""
for _ in $(seq 200); do
    for name in /sys/class/input/event*/device/name; do
        case $(cat "$name" 2>/dev/null) in *"#packaged") node=/dev/input/$(basename "$(dirname "$(dirname "$name")")") ;; esac
    done
    [ -n "$node" ] && break
    sleep 0.05
done
udevadm settle --timeout=10
echo "plugged in after the install: ${node:-none}"
getfacl -p "$node" 2>&1 | grep -E '^user:gestured:' || echo "no ACL for gestured on $node"

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
touch "$run/go"
wait "$player"
for _ in $(seq 200); do grep -q '"phase":"ended"' "$out/deb-events.jsonl" && break; sleep 0.05; done
kill "$monitor" 2>/dev/null
kill -TERM "$serve"
wait "$serve"
echo "serve as gestured exited $?"
cat "$run/serve.log"
