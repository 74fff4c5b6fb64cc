#!/usr/bin/env bash
# Installs the units into a scratch directory (with ExecStart= pointing at a
# binary that exists there) and checks them: `systemd-analyze verify`, then
# the offline `systemd-analyze security` exposure score of gestured.service.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
# Every directory install-files writes is under the scratch root: nothing is
# installed on the machine running the tests.
make -s install-files GESTURED_BIN="${GESTURED_BIN:-$(swift build -c release --show-bin-path)/gestured}" DESTDIR= \
    PREFIX="$root/prefix" BINDIR="$root/bin" UNITDIR="$root/system" USERUNITDIR="$root/user" \
    SYSUSERSDIR="$root/sysusers.d" TMPFILESDIR="$root/tmpfiles.d" UDEVRULESDIR="$root/udev" DOCDIR="$root/doc" \
    DATADIR="$root/share" MANDIR="$root/man" POLKITRULESDIR="$root/polkit" LIBINPUTQUIRKSDIR="$root/libinput" >/dev/null
echo "== systemd-analyze verify gestured.socket gestured.service"
systemd-analyze verify "$root/system/gestured.socket" "$root/system/gestured.service"
mkdir -p "$root/run" && chmod 700 "$root/run"
XDG_RUNTIME_DIR="$root/run" systemd-analyze verify --user "$root/user/gestured.service" "$root/user/gestured-act.service"
echo "ok"
echo "== systemd-analyze security --offline=true gestured.service"
systemd-analyze security --offline=true "$root/system/gestured.service" | tail -1
