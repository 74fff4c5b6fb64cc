#!/usr/bin/env bash
# Runs gestured under a real systemd without touching the host's: boots a
# throwaway systemd as PID 1 of new PID, mount and UTS namespaces (a copy of
# /etc and empty tmpfs where it writes; the control groups it makes are
# removed at the end), then
#   1. starts it ad hoc: systemd-run --service-type=notify --collect … serve --replay
#      and reads gestures with `gestured monitor`;
#   2. installs the shipped units and starts gestured.socket; the first client
#      activates gestured.service, which runs as user gestured;
#      a member of group gesture connects on first use, after a restart and
#      after kill -9 of the service, and the socket stays root:gesture 0660;
#   3. reloads and stops it.
# Needs root (or a user namespace) and systemd; prints "systemd-smoke: ok" at the end.
# Every step is bounded in time; when one fails or times out, the script says
# which, and prints the units' status, the journal and systemd's own log.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${GESTURED_BIN:-$(swift build -c release --show-bin-path)/gestured}
[ -x "$bin" ] || { echo "systemd-smoke: no gestured at $bin; build first (make release) or set GESTURED_BIN" >&2; exit 1; }
work=$(mktemp -d /var/tmp/gestured-smoke.XXXXXX)
chmod 755 "$work"
name=systemd-smoke
. scripts/throwaway-systemd.sh
trap 'throwaway_cleanup $?' EXIT
# timeout(1) ends a script that ran too long with SIGTERM: report, then clean up.
trap 'exit 143' TERM

# Installed as a package would be, under /mnt/gestured: a tmpfs inside the
# namespaces that the unit's PrivateTmp= and ProtectHome= leave visible.
root=/mnt/gestured
make -s install-files GESTURED_BIN="$bin" DESTDIR="$work" BINDIR="$root/bin" UNITDIR="$root/system" USERUNITDIR="$root/user" \
    SYSUSERSDIR="$root/sysusers.d" TMPFILESDIR="$root/tmpfiles.d" DOCDIR="$root/doc" >/dev/null
cp -r Recordings "$work$root/Recordings"

# Nothing the throwaway systemd or its services write reaches the machine:
# /etc is a copy on a tmpfs, /run, /tmp, /var/tmp, /var/log and
# /var/lib/systemd are empty tmpfs.
throwaway_boot '
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /mnt
cp -a "$1/mnt/gestured" /mnt/
mkdir -p /run/etc
cp -a /etc/. /run/etc/
mount --bind /run/etc /etc
for d in /var/tmp /var/log /var/lib/systemd; do
    if [ -d "$d" ]; then mount -t tmpfs tmpfs "$d"; fi
done'
active() { [ "$(inside systemctl show -p ActiveState --value "$1")" = active ]; }

step="1. systemd-run --service-type=notify"
echo "== 1. systemd-run --service-type=notify --collect gestured serve --replay … --loop"
# DefaultDependencies=no: an ad-hoc unit needs none of the (masked) early boot.
inside systemd-run --service-type=notify --collect -p DefaultDependencies=no --unit=gestured-try \
    "$root/bin/gestured" serve --socket /run/gestured-try.sock --replay "$root/Recordings/pinch-close-2f.phone.evemu" --loop
inside systemctl show -p ActiveState -p StatusText gestured-try
inside timeout 10 "$root/bin/gestured" monitor --socket /run/gestured-try.sock --phases began,ended --count 2
inside systemctl stop gestured-try

step="2. installing the shipped units"
echo "== 2. the shipped gestured.socket and gestured.service"
# The user and groups of gestured.sysusers.conf, written into the namespace's
# copy of /etc (systemd-sysusers is masked with the rest).
inside sh -c 'echo "gesture:x:995:member" >>/etc/group; echo "input:x:994:" >>/etc/group
    echo "gestured:x:993:" >>/etc/group; echo "gestured:x:993:993::/:/usr/sbin/nologin" >>/etc/passwd
    echo "member:x:992:" >>/etc/group; echo "member:x:992:992::/:/usr/sbin/nologin" >>/etc/passwd
    echo "other:x:991:" >>/etc/group; echo "other:x:991:991::/:/usr/sbin/nologin" >>/etc/passwd'
socket_owner() { inside stat -c '%A %U %G' /run/gestured/gestured.sock /run/gestured 2>&1 | paste -sd' ' -; }
inside sh -c "cp $root/system/gestured.service $root/system/gestured.socket /etc/systemd/system/"
if [ -n "${GESTURED_SANITIZER:-}" ]; then
    # A sanitizer build (make sanitize): LeakSanitizer stops the process's threads
    # with ptrace at exit, which the unit's SystemCallFilter= forbids; it would
    # print a fatal error instead of a report. Leaks are checked by the other tests.
    # AddressSanitizer keeps freed memory in quarantine (256 MiB) beside its
    # shadow, so a churn of connections takes the process past the unit's
    # MemoryMax= and the kernel kills it ("Memory cgroup out of memory" in
    # its log); the bound holds for the plain build, which the same script
    # runs with the unit unchanged.
    inside sh -c 'mkdir -p /etc/systemd/system/gestured.service.d
        printf "[Service]\nEnvironment=ASAN_OPTIONS=detect_leaks=0\nMemoryMax=infinity\n" >/etc/systemd/system/gestured.service.d/sanitizer.conf'
fi
inside systemctl daemon-reload
inside systemctl start gestured.socket
inside ls -l /run/gestured/gestured.sock
# The first connection activates the service.
step="2. the first connection activates gestured.service"
inside timeout 1 "$root/bin/gestured" monitor --socket /run/gestured/gestured.sock --quiet || true
# Under a sanitizer the service can take longer than that second to start.
wait_for 60 "gestured.service active after the first connection" active gestured.service
inside systemctl show -p ActiveState -p StatusText -p User gestured.service
inside ps -o user=,comm= -C gestured
# The socket keeps its owner, group and mode, and members of `gesture` keep
# being served, across first use, a restart and a crash (kill -9).
step="2. clients on first use"
hello_as member "first use"
echo "first use: socket $(socket_owner)"
hello_as other "first use (not in gesture)"
step="2. systemctl restart gestured.service"
inside systemctl restart gestured.service
hello_as member "after restart"
echo "after restart: socket $(socket_owner)"
step="2. kill -9 of the service, restarted by Restart=on-failure"
main=$(inside systemctl show -p MainPID --value gestured.service)
inside kill -9 "$main"
# One read of the three: read one at a time, "active" could come from before
# systemd noticed the kill and "MainPID=0" from after it.
restarts=1
restarted() {
    local state
    state=$(inside systemctl show -p ActiveState -p MainPID -p NRestarts gestured.service)
    grep -qx 'ActiveState=active' <<<"$state" && grep -qx "NRestarts=$restarts" <<<"$state" &&
        ! grep -qx -e 'MainPID=0' -e "MainPID=$main" <<<"$state"
}
wait_for 60 "gestured.service restarted (NRestarts=1) and active with a new process after kill -9" restarted
echo "after kill -9 of pid $main: service active, restarts $(inside systemctl show -p NRestarts --value gestured.service)"
hello_as member "after kill -9"
echo "after kill -9: socket $(socket_owner)"
step="2. the watchdog (WatchdogSec=10s): kept alive by the loop, a stopped loop restarted"
main=$(inside systemctl show -p MainPID --value gestured.service)
sleep 12
[ "$(inside systemctl show -p NRestarts --value gestured.service)" = 1 ] ||
    { echo "systemd-smoke: gestured.service was restarted while serving: its loop did not send WATCHDOG=1 within WatchdogSec"; exit 1; }
# Only the watchdog can restart a stopped process.
inside kill -STOP "$main"
restarts=2
wait_for 60 "gestured.service, stopped with SIGSTOP, restarted by its watchdog (NRestarts=2)" restarted
echo "a stopped loop: restarted by the watchdog, restarts $(inside systemctl show -p NRestarts --value gestured.service)"
hello_as member "after the watchdog"
step="3. a member churning connections, then systemctl reload, stop"
echo "== 3. a member churning connections for 3 s, then systemctl reload, stop"
# Connections that come and go are not one journal line each: the reload's
# notice after them must be there, among a handful of lines.
churned=$(inside setpriv --reuid member --regid member --init-groups -- timeout 20 /usr/bin/python3 -c '
import socket, time
n, end = 0, time.time() + 3
while time.time() < end:
    s = socket.socket(socket.AF_UNIX)
    s.connect("/run/gestured/gestured.sock")
    s.close()
    n += 1
print(n)')
echo "churn: $churned connections in 3 s"
inside systemctl reload gestured.service
# ExecReload= only sends SIGHUP: wait for the daemon to say it reloaded.
reloaded() { inside journalctl -u gestured --no-pager -o cat | grep -q 'configuration reloaded'; }
wait_for 20 "the daemon's 'configuration reloaded' in the journal after systemctl reload" reloaded
echo "journal: $(inside journalctl -u gestured --no-pager -o cat | wc -l) lines from gestured in all"
inside systemctl stop gestured.service gestured.socket
inside journalctl -u gestured --no-pager -o cat | grep -E 'configuration|stopp|error' | tail -5
# The throwaway systemd goes before the verdict, so that what its cleanup
# says comes before "ok", never after it.
trap - EXIT
throwaway_cleanup 0
echo "systemd-smoke: ok"
