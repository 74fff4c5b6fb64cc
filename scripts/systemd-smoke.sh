#!/usr/bin/env bash
# Runs gestured under a real systemd without touching the host's: boots a
# throwaway systemd as PID 1 of new PID, mount and UTS namespaces (tmpfs on
# /run, /tmp, /var/tmp and /etc/systemd/system, copies of /etc/passwd and
# /etc/group), then
#   1. starts it ad hoc: systemd-run --service-type=notify --collect … serve --replay
#      and reads gestures with `gestured monitor`;
#   2. installs the shipped units and starts gestured.socket; the first client
#      activates gestured.service, which runs as user gestured;
#      a member of group gesture connects on first use, after a restart and
#      after kill -9 of the service, and the socket stays root:gesture 0660;
#   3. reloads and stops it.
# Needs root (or a user namespace) and systemd; prints "systemd-smoke: ok" at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${GESTURED_BIN:-$(swift build -c release --show-bin-path)/gestured}
[ -x "$bin" ] || { echo "systemd-smoke: no gestured at $bin; build first (make release) or set GESTURED_BIN" >&2; exit 1; }
work=$(mktemp -d /var/tmp/gestured-smoke.XXXXXX)
chmod 755 "$work"
pid1=""
ns=""
cleanup() {
    # systemd as the namespace's PID 1, and everything in the session unshare
    # leads (setsid), whichever of them got as far as starting.
    [ -n "$pid1" ] && kill -9 "$pid1" 2>/dev/null || true
    [ -n "$ns" ] && { pkill -9 -s "$ns" 2>/dev/null; kill -9 "$ns" 2>/dev/null; } || true
    rm -rf "$work"
}
trap cleanup EXIT

# Installed as a package would be, under /mnt/gestured: a tmpfs inside the
# namespaces that the unit's PrivateTmp= and ProtectHome= leave visible.
root=/mnt/gestured
make -s install-files GESTURED_BIN="$bin" DESTDIR="$work" BINDIR="$root/bin" UNITDIR="$root/system" USERUNITDIR="$root/user" \
    SYSUSERSDIR="$root/sysusers.d" TMPFILESDIR="$root/tmpfiles.d" DOCDIR="$root/doc" >/dev/null
cp -r Recordings "$work$root/Recordings"

cat >"$work/boot.sh" <<'BOOT'
set -e
mount -t tmpfs tmpfs /run
mkdir -p /run/systemd
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /etc/systemd/system
mount -t tmpfs tmpfs /mnt
cp -a "$1/mnt/gestured" /mnt/
for f in passwd group; do cp "/etc/$f" "/run/$f.copy"; mount --bind "/run/$f.copy" "/etc/$f"; done
printf '[Unit]\nDescription=gestured smoke test\nDefaultDependencies=no\n' >/etc/systemd/system/smoke.target
exec /lib/systemd/systemd --system --unit=smoke.target --log-target=console --log-level=warning </dev/null
BOOT
user_ns=""
[ "$(id -u)" -eq 0 ] || user_ns="--map-root-user"
setsid unshare $user_ns --pid --fork --mount --uts --propagation private --mount-proc sh "$work/boot.sh" "$work" \
    >"$work/systemd.log" 2>&1 </dev/null &
ns=$!
for _ in $(seq 100); do
    pid1=$(pgrep -f "systemd --system --unit=smoke.target" | head -1 || true)
    [ -n "$pid1" ] && nsenter -t "$pid1" -m -p -- systemctl is-system-running >/dev/null 2>&1 && break
    sleep 0.1
done
[ -n "$pid1" ] || { echo "systemd-smoke: systemd did not start:" >&2; cat "$work/systemd.log" >&2; exit 1; }
inside() { nsenter -t "$pid1" -m -p -- "$@"; }
echo "== systemd $(inside systemctl --version | head -1 | cut -d' ' -f2) running as PID 1 of its own namespaces"

echo "== 1. systemd-run --service-type=notify --collect gestured serve --replay … --loop"
# DefaultDependencies=no: this throwaway systemd has no sysinit.target to pull in.
inside systemd-run --service-type=notify --collect -p DefaultDependencies=no --unit=gestured-try \
    "$root/bin/gestured" serve --socket /run/gestured-try.sock --replay "$root/Recordings/pinch-close-2f.phone.evemu" --loop
inside systemctl show -p ActiveState -p StatusText gestured-try
inside timeout 10 "$root/bin/gestured" monitor --socket /run/gestured-try.sock --phases began,ended --count 2
inside systemctl stop gestured-try

echo "== 2. the shipped gestured.socket and gestured.service"
# The user and groups of gestured.sysusers.conf (written directly: sysusers cannot
# replace a bind-mounted /etc/passwd).
inside sh -c 'echo "gesture:x:995:member" >>/etc/group; echo "input:x:994:" >>/etc/group
    echo "gestured:x:993:" >>/etc/group; echo "gestured:x:993:993::/:/usr/sbin/nologin" >>/etc/passwd
    echo "member:x:992:" >>/etc/group; echo "member:x:992:992::/:/usr/sbin/nologin" >>/etc/passwd
    echo "other:x:991:" >>/etc/group; echo "other:x:991:991::/:/usr/sbin/nologin" >>/etc/passwd'
# Connects as USER (with that user's groups) and prints the daemon's first line,
# or why it could not: a member of `gesture` must get `hello` every time.
hello_as() {
    local who=$1 what=$2
    local line
    # A few tries: a service being restarted (slowly, under a sanitizer) may
    # not answer within socat's one second of quiet.
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        line=$(inside setpriv --reuid "$who" --regid "$who" --init-groups -- \
            timeout 5 socat -T 1 -u UNIX-CONNECT:/run/gestured/gestured.sock STDOUT 2>&1 | head -1) || true
        case "$line" in *'"type":"hello"'* | *'Permission denied'*) break ;; esac
        sleep 0.5
    done
    case "$line" in
        *'"type":"hello"'*) echo "$what: $who got hello" ;;
        *) echo "$what: $who got no hello: ${line:-nothing}" ;;
    esac
}
socket_owner() { inside stat -c '%A %U %G' /run/gestured/gestured.sock /run/gestured 2>&1 | paste -sd' ' -; }
inside sh -c "cp $root/system/gestured.service $root/system/gestured.socket /etc/systemd/system/"
if [ -n "${GESTURED_SANITIZER:-}" ]; then
    # A sanitizer build (make sanitize): LeakSanitizer stops the process's threads
    # with ptrace at exit, which the unit's SystemCallFilter= forbids; it would
    # print a fatal error instead of a report. Leaks are checked by the other tests.
    inside sh -c 'mkdir -p /etc/systemd/system/gestured.service.d
        printf "[Service]\nEnvironment=ASAN_OPTIONS=detect_leaks=0\n" >/etc/systemd/system/gestured.service.d/sanitizer.conf'
fi
inside systemctl daemon-reload
inside systemctl start gestured.socket
inside ls -l /run/gestured/gestured.sock
# The first connection activates the service.
inside timeout 1 "$root/bin/gestured" monitor --socket /run/gestured/gestured.sock --quiet || true
# Under a sanitizer the service can take longer than that second to start.
for _ in $(seq 300); do
    [ "$(inside systemctl show -p ActiveState --value gestured.service)" = active ] && break
    sleep 0.1
done
inside systemctl show -p ActiveState -p StatusText -p User gestured.service
inside ps -o user=,comm= -C gestured
# The socket keeps its owner, group and mode, and members of `gesture` keep
# being served, across first use, a restart and a crash (kill -9).
hello_as member "first use"
echo "first use: socket $(socket_owner)"
hello_as other "first use (not in gesture)"
inside systemctl restart gestured.service
hello_as member "after restart"
echo "after restart: socket $(socket_owner)"
main=$(inside systemctl show -p MainPID --value gestured.service)
inside kill -9 "$main"
for _ in $(seq 300); do
    state=$(inside systemctl show -p ActiveState --value gestured.service)
    [ "$state" = active ] && [ "$(inside systemctl show -p MainPID --value gestured.service)" != "$main" ] && break
    sleep 0.1
done
echo "after kill -9 of pid $main: service $state, restarts $(inside systemctl show -p NRestarts --value gestured.service)"
hello_as member "after kill -9"
echo "after kill -9: socket $(socket_owner)"
echo "== 3. systemctl reload, stop"
inside systemctl reload gestured.service
# ExecReload= only sends SIGHUP: wait for the daemon to say it reloaded.
for _ in $(seq 100); do
    inside journalctl -u gestured --no-pager -o cat | grep -q 'configuration reloaded' && break
    sleep 0.2
done
inside systemctl stop gestured.service gestured.socket
inside journalctl -u gestured --no-pager -o cat | grep -E 'configuration|stopp|error' | tail -5
echo "systemd-smoke: ok"
