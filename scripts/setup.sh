#!/usr/bin/env bash
# Installs the Debian packages of the lists given (scripts/debian-packages.txt
# by default) that are not installed yet, as root (`make setup` and `make
# setup-tests` use sudo when needed). With --missing, as anyone, only prints
# those: the Makefile asks first, so that sudo is called only when there is
# something to install. Swift itself (6.1 or later) is not checked here:
# under sudo it is often not on PATH even when the user has it; `make setup`
# checks it as the user first (scripts/check-swift.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
missing_only=false
if [ "${1:-}" = --missing ]; then
    missing_only=true
    shift
fi
[ $# -gt 0 ] || set -- scripts/debian-packages.txt
mapfile -t packages < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$@" | awk '{print $1}')
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if $missing_only; then
    printf '%s\n' "${missing[@]}"
    exit 0
fi
if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: every package of $* is installed"
    exit 0
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
