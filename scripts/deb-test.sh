#!/usr/bin/env bash
# Installs, upgrades, removes and purges the Debian package in a throwaway
# systemd (scripts/throwaway-systemd.sh) whose /etc, /usr and /var are
# overlays on a tmpfs: apt and dpkg work as on a real machine, and nothing
# reaches this one. Checks that
#   1. `apt-get install ./gestured_*.deb` makes the user gestured and the group
#      gesture, enables and starts gestured.socket (root:gesture 0660), whose
#      first client starts gestured.service as gestured: a member of gesture
#      gets hello, another user is refused; act's user unit is installed and
#      enabled for no one; the example configuration is in the docs folder;
#   2. an upgrade (from the same package numbered just below) keeps an edited
#      /etc/gestured/gestured.toml and restarts the running service;
#   3. `apt-get remove` stops the units (their enabling stays until a purge);
#      `apt-get purge` leaves no file, user, group or unit of gestured: the
#      file list of /etc, /usr and /var (dpkg's and apt's own records
#      aside) and getent's users and groups are those from before the install.
# A gestured installed on this machine is purged inside the overlays first:
# every step starts from a machine without it.
# Usage: scripts/deb-test.sh [PACKAGE]  (default: the one make deb built)
# Needs root (or sudo through the caller) and systemd; prints "deb-test: ok".
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
    if sudo -n true 2>/dev/null; then exec sudo -n "$PWD/scripts/deb-test.sh" "$@"; fi
    [ "${CI:-}" != true ] || { echo "deb-test: needs root, and sudo -n does not work: CI must run every test" >&2; exit 1; }
    echo "deb-test: skipped: needs root (run sudo -v first, or give yourself a NOPASSWD rule)"
    exit 0
fi
deb=${1:-$(ls .build/deb/gestured_*.deb 2>/dev/null | tail -1)}
[ -f "$deb" ] || { echo "deb-test: no package: run make deb first, or name one" >&2; exit 1; }
work=$(mktemp -d /var/tmp/gestured-deb.XXXXXX)
chmod 755 "$work"
name=deb-test
. scripts/throwaway-systemd.sh
trap 'throwaway_cleanup $?' EXIT
trap 'exit 143' TERM

# The package as it is, and as the version just below it (the "previous"
# release an upgrade starts from): same files and maintainer scripts.
version=$(dpkg-deb -f "$deb" Version)
cp "$deb" "$work/gestured.deb"
dpkg-deb -R "$deb" "$work/previous"
sed -i "s/^Version: .*/Version: ${version}~previous/" "$work/previous/DEBIAN/control"
dpkg-deb -b --root-owner-group "$work/previous" "$work/gestured-previous.deb" >/dev/null
rm -rf "$work/previous"

throwaway_boot '
mount -t tmpfs tmpfs /tmp
for d in etc usr var; do
    mkdir -p /tmp/overlay/$d/upper /tmp/overlay/$d/work
    mount -t overlay overlay -o lowerdir=/$d,upperdir=/tmp/overlay/$d/upper,workdir=/tmp/overlay/$d/work /$d
done
# A container image'"'"'s policy-rc.d (exit 101: start nothing) is the host'"'"'s
# business; this systemd is the machine the package is installed on.
rm -f /usr/sbin/policy-rc.d
# man-db'"'"'s trigger would rebuild every manual page'"'"'s index on each step.
rm -f /var/lib/man-db/auto-update'

# What is on the system, but for dpkg's, apt's and the logs' own records.
snapshot() {
    inside sh -c 'find /etc /usr /var -xdev \( -path /var/lib/dpkg -o -path /var/lib/apt -o -path /var/cache \
        -o -path /var/log -o -path /var/tmp -o -path /etc/ld.so.cache \) -prune -o -print | sort'
}
accounts() { inside sh -c 'getent passwd | cut -d: -f1; getent group | cut -d: -f1' | sort; }
apt() { inside env DEBIAN_FRONTEND=noninteractive apt-get -q -y -o Dpkg::Use-Pty=0 "$@"; }
active() { [ "$(inside systemctl show -p ActiveState --value "$1")" = active ]; }
socket_owner() { inside stat -c '%a %U %G' /run/gestured/gestured.sock; }
expect_eq() { [ "$2" = "$3" ] || { echo "deb-test: $1: expected '$3', got '$2'"; exit 1; }; }

# The machine as it would be without gestured: one installed here (the
# README's "Installing") is purged inside the overlays first; the host's own
# stays as it is.
if inside dpkg-query -W -f '${Status}' gestured 2>/dev/null | grep -q 'install ok installed'; then
    echo "== gestured $(inside dpkg-query -W -f '${Version}' gestured) is installed on this machine: purged inside the overlays first"
    apt purge gestured | tail -2
    inside systemctl daemon-reload
fi

snapshot >"$work/files.before"
accounts >"$work/accounts.before"

step="1. apt-get install"
echo "== 1. apt-get install ./$(basename "$deb") (as $version~previous first)"
apt install "$work/gestured-previous.deb" | tail -3
inside getent passwd gestured
inside getent group gesture
expect_eq "gestured.socket enabled" "$(inside systemctl is-enabled gestured.socket)" enabled
expect_eq "gestured.socket active" "$(inside systemctl is-active gestured.socket)" active
expect_eq "the socket's mode, owner and group" "$(socket_owner)" "660 root gesture"
expect_eq "gestured-act enabled for every user" "$(inside systemctl --global is-enabled gestured-act.service || true)" disabled
inside test -f /usr/share/doc/gestured/gestured.toml.example
# Every document the units' Documentation= and the man pages name is there by that name.
for doc in $(inside sh -c 'grep -ho "file:/usr/share/doc/gestured/[A-Za-z.-]*" /lib/systemd/system/gestured.* /usr/lib/systemd/user/gestured*.service; zcat /usr/share/man/man1/gestured*.1.gz | grep -o "/usr/share/doc/gestured/[A-Za-z.-]*md"' | sed 's/^file://' | sort -u); do
    inside test -f "$doc" || { echo "deb-test: $doc is named by a unit or man page but not installed (compressed?)"; exit 1; }
done
inside grep -q 'subject.user == "gestured"' /usr/share/polkit-1/rules.d/50-gestured-sensor.rules
inside sh -c 'useradd --system --no-create-home --groups gesture member && useradd --system --no-create-home other'
result=$(hello_as member "installed")
echo "$result"
expect_eq "a member of gesture" "$result" "installed: member got hello"
result=$(hello_as other "installed (not in gesture)")
echo "$result"
case "$result" in *'got no hello'*) ;; *) echo "deb-test: a user not in gesture was let in"; exit 1 ;; esac
wait_for 30 "gestured.service started by its first client" active gestured.service
expect_eq "the service's user" "$(inside systemctl show -p User --value gestured.service)" gestured
before_upgrade=$(inside systemctl show -p MainPID --value gestured.service)

step="2. an upgrade keeps the configuration"
echo "== 2. upgrade to $version with an edited /etc/gestured/gestured.toml"
inside sh -c 'printf "# edited by the admin\n[daemon]\nlog-level = \"debug\"\n" >/etc/gestured/gestured.toml'
apt install "$work/gestured.deb" | tail -3
expect_eq "the installed version" "$(inside dpkg-query -W -f '${Version}' gestured)" "$version"
inside grep -q "edited by the admin" /etc/gestured/gestured.toml || { echo "deb-test: the upgrade replaced the edited gestured.toml"; exit 1; }
restarted() {
    local now
    now=$(inside systemctl show -p MainPID --value gestured.service)
    [ "$now" != 0 ] && [ "$now" != "$before_upgrade" ]
}
wait_for 30 "gestured.service restarted by the upgrade" restarted
result=$(hello_as member "upgraded")
echo "$result"
expect_eq "a member of gesture after the upgrade" "$result" "upgraded: member got hello"
inside sh -c 'userdel member; userdel other'

step="3. apt-get remove, then purge"
echo "== 3. apt-get remove, then apt-get purge"
apt remove gestured | tail -2
expect_eq "gestured.socket after remove" "$(inside systemctl is-active gestured.socket || true)" inactive
expect_eq "gestured.service after remove" "$(inside systemctl is-active gestured.service || true)" inactive
inside test ! -e /usr/bin/gestured
inside test -L /etc/systemd/system/sockets.target.wants/gestured.socket ||
    { echo "deb-test: remove forgot that the admin enabled gestured.socket (only purge should)"; exit 1; }
apt purge gestured | tail -2
inside systemctl daemon-reload
snapshot >"$work/files.after"
accounts >"$work/accounts.after"
if ! diff "$work/files.before" "$work/files.after" >"$work/files.diff"; then
    echo "deb-test: purge left or took these files (< before, > after):"
    cat "$work/files.diff"
    exit 1
fi
if ! diff "$work/accounts.before" "$work/accounts.after"; then
    echo "deb-test: purge left or took these users or groups"
    exit 1
fi
inside test ! -e /run/gestured
expect_eq "gestured.socket after purge" "$(inside systemctl show -p LoadState --value gestured.socket)" not-found
echo "purged: the same $(wc -l <"$work/files.after") files and $(wc -l <"$work/accounts.after") users and groups as before"
# The throwaway systemd goes before the verdict, so that what its cleanup
# says comes before "ok", never after it.
trap - EXIT
throwaway_cleanup 0
echo "deb-test: ok"
