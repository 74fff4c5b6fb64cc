#!/usr/bin/env bash
# The C glue of the Wayland protocols act speaks beyond the core protocol,
# written by wayland-scanner (Debian's libwayland-bin) from their XML in
# Sources/CWayland/protocols into Sources/CWayland/generated (or DIR): for
# each, its interface tables (private-code) and its client header.
# `make wayland-protocols` runs it; a test runs it into a scratch folder and
# compares, so the committed files are what the scanner writes.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-Sources/CWayland/generated}
command -v wayland-scanner >/dev/null || {
    echo "wayland-protocols: wayland-scanner is missing: apt-get install libwayland-bin (make setup)" >&2
    exit 1
}
mkdir -p "$out"
for xml in Sources/CWayland/protocols/*.xml; do
    name=$(basename "$xml" .xml)
    wayland-scanner private-code "$xml" "$out/$name-protocol.c"
    wayland-scanner client-header "$xml" "$out/$name-client-protocol.h"
done
