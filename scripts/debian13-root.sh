#!/bin/sh
# A Debian 13 (trixie) root for the desktop tests: KWin 6 and GNOME Shell 48
# beside Debian 12's KWin 5.27 and GNOME Shell 43, labwc (which Debian 12
# does not ship), and sway 1.10 (which passes touch cancels on to apps, as
# Debian 12's 1.7 does not; the kernel tests run it on the virtual machine's
# devices, scripts/kernel-guest-compositor.sh). debootstrap writes a minimal root into DIR (as root,
# through sudo), then apt-get installs the compositors in it; about 1.7 GB
# and 2 minutes. The tests run each
# compositor in it with chroot, in a private mount namespace of their own
# (Tests/Harness/HeadlessDesktops.swift, `DesktopRoot`); act and the windows
# stay on the host and meet the compositor in the test's scratch folder.
#
#   scripts/debian13-root.sh DIR     makes DIR unless it is complete
set -eu
dir=${1:?usage: $0 DIR}
stamp=$dir/.gestured-root-complete
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo -n"
compositors="kwin-wayland gnome-shell labwc sway"
# Installs the packages named in the root, or stops saying so.
install() {
    echo "debian13-root: $* into $dir"
    $sudo chroot "$dir" sh -c "DEBIAN_FRONTEND=noninteractive apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $*" >> "$dir.log" 2>&1 || {
        echo "debian13-root: installing $* failed; the log is $dir.log" >&2
        exit 1
    }
}
if [ -f "$stamp" ]; then
    # A root made before labwc or sway joined the list gets them added.
    [ -x "$dir/usr/bin/labwc" ] || install labwc
    [ -x "$dir/usr/bin/sway" ] || install sway
    echo "debian13-root: $dir is complete"
    exit 0
fi
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
echo "debian13-root: debootstrap trixie into $dir (from $mirror)"
$sudo rm -rf "$dir"
$sudo mkdir -p "$dir"
$sudo debootstrap --variant=minbase trixie "$dir" "$mirror" > "$dir.log" 2>&1 || {
    echo "debian13-root: debootstrap failed; its log is $dir.log" >&2
    exit 1
}
install $compositors
# KWin's binary carries a file capability that some sandboxes refuse to
# exec; a copy has none. Its name must stay kwin_wayland (its Qt platform
# plugin looks for it).
$sudo mkdir -p "$dir/opt/kwin"
$sudo cp "$dir/usr/bin/kwin_wayland" "$dir/opt/kwin/kwin_wayland"
$sudo touch "$stamp"
echo "debian13-root: $dir ready ($($sudo du -sh "$dir" | cut -f1))"
