#!/bin/sh
# The package's GNOME Shell extension, gestured-context@gestured, in the
# format a Shell reads: gnome-shell/reporter.js inside gnome-shell/legacy.js
# (GNOME Shell 43 and 44) or gnome-shell/module.js (45 and later, ES
# modules), with its metadata.json.
#
#   scripts/gnome-extension.sh FORMAT DIR   writes DIR/gestured-context@gestured/
#   scripts/gnome-extension.sh --format     prints the format for this machine:
#       that of the installed gnome-shell, else legacy on Debian 12 (GNOME 43)
#       and module elsewhere
set -eu
cd "$(dirname "$0")/.."
uuid=gestured-context@gestured

if [ "${1:-}" = --format ]; then
    major=$(gnome-shell --version 2>/dev/null | sed -nE 's/^GNOME Shell ([0-9]+).*/\1/p' || true)
    if [ -z "$major" ] && [ -r /etc/os-release ]; then
        . /etc/os-release
        [ "${ID:-}" = debian ] && [ "${VERSION_ID:-}" = 12 ] && major=43
    fi
    if [ -n "$major" ] && [ "$major" -lt 45 ]; then echo legacy; else echo module; fi
    exit 0
fi

[ $# -eq 2 ] || { echo "usage: $0 legacy|module DIR, or $0 --format" >&2; exit 2; }
case $1 in
    legacy) versions='"43", "44"' ;;
    module) versions='"45", "46", "47", "48", "49"' ;;
    *) echo "gnome-extension: the format is legacy (GNOME Shell 43, 44) or module (45 and later), not '$1'" >&2; exit 2 ;;
esac
out=$2/$uuid
mkdir -p "$out"
sed -e '/^\/\/ @REPORTER@$/{r gnome-shell/reporter.js' -e 'd;}' "gnome-shell/$1.js" > "$out/extension.js"
cat > "$out/metadata.json" <<JSON
{
  "uuid": "$uuid",
  "name": "gestured context",
  "description": "Tells gestured act which window has the focus and whether the on-screen keyboard is shown, so that per-app gesture bindings work on GNOME under Wayland. It only reports: it acts on no window.",
  "shell-version": [$versions]
}
JSON
chmod 644 "$out/extension.js" "$out/metadata.json"
