#!/usr/bin/env bash
# Installs the Debian packages listed in scripts/debian-packages.txt. Swift
# itself (6.1 or later) must already be on PATH. Run as root (`make setup`
# uses sudo when needed).
set -euo pipefail
cd "$(dirname "$0")"
mapfile -t packages < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' debian-packages.txt | awk '{print $1}')
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${packages[@]}"
command -v swift >/dev/null || { echo "setup: swift is not on PATH; install Swift 6.1 or later from swift.org" >&2; exit 1; }
