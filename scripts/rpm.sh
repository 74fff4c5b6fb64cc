#!/usr/bin/env bash
# Builds the RPM package for Fedora (make rpm): .build/rpm/gestured-VERSION-1.ARCH.rpm,
# with rpmbuild from packaging/rpm/gestured.spec, built in place in this
# checkout (`make release man`, then `make install-files` with Fedora's
# paths). The spec's Version must be the version `gestured --version` prints.
# Needs rpmbuild (make setup-packages installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v rpmbuild >/dev/null || { echo "make rpm: rpmbuild is missing: run make setup-packages (rpm)" >&2; exit 1; }
version=$(scripts/version.sh)
specver=$(sed -n 's/^Version: *//p' packaging/rpm/gestured.spec)
[ "$specver" = "$version" ] || {
    echo "make rpm: packaging/rpm/gestured.spec's Version is $specver, gestured --version says $version: make them one" >&2
    exit 1
}
out=$PWD/.build/rpm
rm -rf "$out" && mkdir -p "$out/top"
# --nodeps: BuildRequires name Fedora's packages, which another
# distribution's rpm database does not know; the Makefile's build checks
# its libraries itself.
rpmbuild -bb --build-in-place --nodeps \
    --define "_topdir $out/top" --define "_rpmdir $out" --define "_build_name_fmt %%{NAME}-%%{VERSION}-%%{RELEASE}.%%{ARCH}.rpm" \
    packaging/rpm/gestured.spec
rm -rf "$out/top"
rpm=$(ls "$out"/gestured-"$version"-*.rpm)
echo "rpm: $rpm"
