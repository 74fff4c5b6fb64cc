#!/usr/bin/env bash
# Builds the Arch Linux package (make arch): .build/arch/gestured-VERSION-1-ARCH.pkg.tar.*,
# with makepkg from packaging/arch/PKGBUILD (which runs `make release man`
# and `make install-files` with Arch's paths). Its pkgver must be the
# version `gestured --version` prints.
# makepkg refuses to run as root: as root (CI), it runs in a user namespace
# of its own where this uid is an ordinary one that still owns the checkout.
# Needs makepkg, pacman, fakeroot and bsdtar (make setup-packages installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
# makepkg looks pacman up before anything else and stops, saying only "An
# unknown error has occurred", when there is none.
for tool in makepkg pacman fakeroot bsdtar; do
    command -v "$tool" >/dev/null || { echo "make arch: $tool is missing: run make setup-packages (makepkg, pacman-package-manager, fakeroot, libarchive-tools)" >&2; exit 1; }
done
version=$(scripts/version.sh)
pkgver=$(sed -n 's/^pkgver=//p' packaging/arch/PKGBUILD)
[ "$pkgver" = "$version" ] || {
    echo "make arch: packaging/arch/PKGBUILD's pkgver is $pkgver, gestured --version says $version: make them one" >&2
    exit 1
}
out=$PWD/.build/arch
rm -rf "$out" && mkdir -p "$out/build"
run=()
if [ "$(id -u)" -eq 0 ]; then
    run=(unshare --user --map-user=1000 --map-group=1000 --)
fi
# --nodeps: the build's libraries are checked by the Makefile's own build,
# and a machine other than Arch has no pacman database to ask.
(cd packaging/arch && BUILDDIR="$out/build" PKGDEST="$out" SRCDEST="$out/build" \
    "${run[@]}" makepkg --nodeps --force --noconfirm --noprogressbar)
rm -rf "$out/build"
pkg=$(ls "$out"/gestured-"$version"-*.pkg.tar.*)
echo "arch: $pkg"
