#!/usr/bin/env bash
# The Arch and RPM packages hold what the Debian package holds: the same
# files (units, rules, sysusers, tmpfiles, quirks, man pages, completions,
# the GNOME Shell extension, documents, recordings), each with the same
# mode. Compared after what differs by each distribution's rules alone:
# Debian 12 keeps units and udev rules under /lib (/usr/lib elsewhere),
# each compresses man pages its own way, and the license and changelog go
# where each says (Debian's copyright and changelog, the others'
# /usr/share/licenses), with Debian's lintian overrides, and rpm's
# /usr/lib/.build-id links to the binary.
# Usage: scripts/package-files-test.sh DEB ARCH_PKG RPM; prints "package-files: ok".
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 DEB ARCH_PKG RPM" >&2; exit 2; }
deb=$1 pkg=$2 rpm=$3
for f in "$deb" "$pkg" "$rpm"; do
    [ -f "$f" ] || { echo "package-files: $f is missing: run make deb arch rpm first" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One "MODE PATH" line per file or link, sorted, after the rules above.
normal() {
    sed -E -e 's|^(\S+) /lib/|\1 /usr/lib/|' -e 's/\.(gz|zst|xz)$//' |
        grep -vE ' /usr/share/(doc/gestured/(copyright|changelog(\.Debian)?)|licenses/gestured/LICENSE|lintian/overrides/gestured)$' |
        grep -vE '^l\S* /usr/lib/\.build-id/' |
        LC_ALL=C sort
}
dpkg-deb --fsys-tarfile "$deb" | tar -tvf - | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $1, $6 }' | normal >"$work/deb"
bsdtar -tvf "$pkg" | awk '$1 !~ /^d/ && $9 !~ /^\./ { print $1, "/" $9 }' | normal >"$work/arch"
rpm -qp --nodigest --nosignature --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$rpm" | awk '$1 !~ /^d/' | normal >"$work/rpm"

status=0
for other in arch rpm; do
    if ! diff -u --label deb --label "$other" "$work/deb" "$work/$other" >"$work/diff-$other"; then
        echo "package-files: the $other package's files differ from the .deb's (- only in the .deb, + only in $other):" >&2
        cat "$work/diff-$other" >&2
        status=1
    fi
done
# The scriptlets, read (not run: no pacman or dnf root here): the RPM's
# systemd macros expanded with the units they name, the Arch package's
# install file in it.
scripts=$(rpm -qp --nodigest --nosignature --scripts "$rpm")
for line in "systemctl --no-reload preset gestured.socket gestured.service" \
    "systemctl --no-reload disable --now gestured.socket gestured.service" \
    "systemctl try-restart gestured.service" "systemd-sysusers /usr/lib/sysusers.d/gestured.conf" \
    "udevadm trigger --subsystem-match=input --action=change"; do
    grep -qF -- "$line" <<<"$scripts" || { echo "package-files: the RPM's scriptlets lack '$line':" >&2; echo "$scripts" >&2; status=1; }
done
bsdtar -xOf "$pkg" .INSTALL | grep -q "systemctl enable --now gestured.socket" ||
    { echo "package-files: the Arch package has no .INSTALL saying how to enable the socket" >&2; status=1; }
n=$(wc -l <"$work/deb")
[ "$n" -gt 100 ] || { echo "package-files: the .deb lists only $n files: not a whole package" >&2; exit 1; }
[ "$status" -eq 0 ] && echo "package-files: ok ($n files in each, the same modes; the scriptlets read)"
exit "$status"
