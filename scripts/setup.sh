#!/usr/bin/env bash
# Installs the Debian packages listed in scripts/debian-packages.txt, as
# root (`make setup` uses sudo when needed). Swift itself (6.1 or later) is
# not checked here: under sudo it is often not on PATH even when the user has
# it; `make setup` checks it as the user first (scripts/check-swift.sh).
set -euo pipefail
cd "$(dirname "$0")"
mapfile -t packages < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' debian-packages.txt | awk '{print $1}')
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${packages[@]}"
