#!/usr/bin/env bash
# Builds the end-to-end test harness (Tests/Harness/c) into .build/harness:
# umockdev-harness, which emulates touchscreens for the real libinput, and
# fstat-fix.so, preloaded before umockdev's library (see docs/testing.md); and
# libinput-drain, the floor Performance/scripts/daemon-cost.sh measures daemons against;
# uinput-touch, which makes real devices for the kernel tests (kernel-test.sh).
# Needs gcc and libumockdev-dev (scripts/debian-test-packages.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/harness
mkdir -p "$out"
if ! pkg-config --exists umockdev-1.0; then
    echo "build-harness: libumockdev-dev is missing (make setup installs it)" >&2
    exit 1
fi
cc -std=gnu11 -O2 -Wall -Wextra -Wno-format-truncation -o "$out/umockdev-harness" Tests/Harness/c/umockdev-harness.c \
    $(pkg-config --cflags --libs umockdev-1.0)
cc -std=gnu11 -O2 -Wall -Wextra -Wno-format-truncation -shared -fPIC -o "$out/fstat-fix.so" Tests/Harness/c/fstat-fix.c -ldl
cc -std=gnu11 -O2 -Wall -Wextra -o "$out/libinput-drain" Performance/c/libinput-drain.c $(pkg-config --cflags --libs libinput)
cc -std=gnu11 -O2 -Wall -Wextra -o "$out/uinput-touch" Tests/Harness/c/uinput-touch.c $(pkg-config --cflags --libs libevdev)
echo "build-harness: $out/umockdev-harness, $out/fstat-fix.so, $out/libinput-drain and $out/uinput-touch"
