#!/usr/bin/env bash
# Builds the Debian package (make deb): .build/deb/gestured_VERSION_ARCH.deb,
# with Debian's own tools from debian/ (debhelper's dh sequence, which runs
# `make release man` and `make install-files` with Debian's paths), then
# checks it with lintian. debian/changelog is written from CHANGELOG.md, whose
# newest version must be the one `gestured --version` prints.
# Needs debhelper, fakeroot and lintian (make deb installs them first: make setup-packages).
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in dh dpkg-checkbuilddeps fakeroot lintian; do
    command -v "$tool" >/dev/null || { echo "make deb: $tool is missing: run make setup-packages (debhelper, dpkg-dev, fakeroot, lintian)" >&2; exit 1; }
done
version=$(scripts/version.sh)
/usr/bin/python3 scripts/debian-changelog.py CHANGELOG.md debian/control >debian/changelog
newest=$(dpkg-parsechangelog -S Version)
[ "$newest" = "$version" ] || {
    echo "make deb: CHANGELOG.md's newest version is $newest, gestured --version says $version: make them one" >&2
    exit 1
}
dpkg-checkbuilddeps
mkdir -p .build/deb
rm -f .build/deb/gestured_*.deb
# What dh leaves in debian/ is removed whatever happens (it is in .gitignore too).
trap 'fakeroot debian/rules clean >/dev/null 2>&1 || true' EXIT
debian/rules build
fakeroot debian/rules binary
deb=$(ls .build/deb/gestured_"$version"_*.deb)
echo "== lintian $deb"
# --fail-on warning: a warning fails the build as an error does; the
# overrides in debian/gestured.lintian-overrides each say why.
lintian --fail-on error,warning --display-info "$deb"
echo "deb: $deb"
