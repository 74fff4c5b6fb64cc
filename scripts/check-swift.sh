#!/usr/bin/env bash
# Checks, as the user who will build, that Swift 6.1 or later is on PATH.
# `make setup` runs it before sudo: sudo's secure_path would hide a Swift
# installed in /opt or under the home directory, and the build runs as the
# user anyway (`make`, then `sudo make install`, which only copies).
set -euo pipefail
swift=${1:-swift}
if ! command -v "$swift" >/dev/null; then
    echo "setup: '$swift' is not on your PATH ($PATH)." >&2
    echo "setup: install Swift 6.1 or later from https://www.swift.org/install/linux/ and add its usr/bin to PATH;" >&2
    echo "setup: run 'make setup' as yourself, not with sudo (it asks for sudo only to install Debian packages)." >&2
    exit 1
fi
version=$("$swift" --version 2>/dev/null | sed -n 's/.*Swift version \([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1 \2/p' | head -n1)
read -r major minor <<<"${version:-0 0}"
if [ "$major" -lt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -lt 1 ]; }; then
    echo "setup: $(command -v "$swift") is Swift ${major}.${minor}; gestured needs 6.1 or later (https://www.swift.org/install/linux/)." >&2
    exit 1
fi
echo "setup: Swift $major.$minor at $(command -v "$swift")"
