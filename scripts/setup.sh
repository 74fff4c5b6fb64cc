#!/usr/bin/env bash
# Installs the Debian packages gestured builds and tests with. Swift itself
# (6.1 or later) must already be on PATH. Run as root or through sudo.
set -euo pipefail
packages=(
    pkg-config      # finds libinput for the CInput module
    libinput-dev    # the daemon's input (and CInputTests)
    libudev-dev     # device properties (ID_INPUT_TOUCHSCREEN)
    libevdev-dev    # raw evdev work (gestured record)
)
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${packages[@]}"
command -v swift >/dev/null || { echo "setup: swift is not on PATH; install Swift 6.1 or later from swift.org" >&2; exit 1; }
