#!/usr/bin/env bash
# What gestured costs per frame on top of libinput, beside Debian's lisgd and
# a program that only drains libinput (the floor): CPU per frame, peak and
# idle resident memory, what each recognized; with --callgrind instructions
# per frame, with --strace system calls per frame, with --lines the cache
# lines each turn touches (docs/cost.md).
# Every program reads the same trace written into the same emulated
# touchscreen (umockdev), one after another, --runs times.
# Usage: Performance/scripts/daemon-cost.sh [--runs 3] [--sets 3] [--callgrind] [--strace] ...
# Needs lisgd, valgrind and strace (sudo apt-get install lisgd valgrind strace),
# and python3 for --lines;
# a measurement, not a test.
set -euo pipefail
cd "$(dirname "$0")/../.."
make -s release >/dev/null
scripts/build-harness.sh >/dev/null
swift build --package-path Performance --product daemon-cost >/dev/null
GESTURED_BIN="${GESTURED_BIN:-$(swift build -c release --show-bin-path)/gestured}" \
    exec "$(swift build --package-path Performance --show-bin-path)/daemon-cost" "$@"
