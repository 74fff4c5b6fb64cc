#!/usr/bin/env bash
# Writes Performance/layout/gestured.profdata: how often each branch of
# gestured's Swift code was taken while it did its usual work, which `make
# release-profiled` compiles with (LLVM's profile-guided optimization): the paths a
# frame takes are laid out together and the rest moved aside, so that a frame
# runs through fewer lines of code (docs/cost.md, "Code
# layout"). The work counted:
#   - the daemon serving a trace played into an emulated touchscreen through
#     the real libinput, to a subscriber of recognized and ended gestures and
#     to one of everything (Performance/scripts/daemon-cost.sh's trace and harness);
#   - `gestured replay` of every bundled recording (the recognizers on many
#     more gestures of every kind, and their JSON).
# A function whose code changed since has no profile (LLVM checks each
# function's shape) and is compiled as without one: a stale profile only
# loses what it gained. Run it again after large changes to the daemon's or
# the recognizers' paths, then Performance/scripts/link-order.sh (the order follows the
# functions the profile leaves).
# Needs the umockdev harness (make setup; it builds it). KEEP_SCRATCH=1 keeps
# its scratch folder (the raw profiles) to look at.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=Performance/layout/gestured.profdata
scratch=$(mktemp -d)
trap '[ -n "${KEEP_SCRATCH:-}" ] || rm -rf "$scratch"' EXIT
profdata=${LLVM_PROFDATA:-$(dirname "$(readlink -f "$(command -v swiftc)")")/llvm-profdata}
[ -x "$profdata" ] || { echo "profile: $profdata not found: it comes with the Swift toolchain (set LLVM_PROFDATA)" >&2; exit 1; }

# An instrumented release build of its own (the usual one is left as it is):
# the same flags, with counters in place of the profile's use (the file
# named here is the default; LLVM_PROFILE_FILE below says where each goes).
make -s release RELEASE_BUILD=.build/profiling \
    RELEASE_PROFILE="-Xswiftc -Xfrontend -Xswiftc -ir-profile-generate=$PWD/.build/profiling/default.profraw -Xswiftc -Xclang-linker -Xswiftc -fprofile-generate" \
    >/dev/null
bin=.build/profiling/release/gestured
scripts/build-harness.sh >/dev/null
swift build --package-path Performance --product daemon-cost >/dev/null
cost="$(swift build --package-path Performance --show-bin-path)/daemon-cost"
# The daemon serving daemon-cost's trace once, with these options.
serve() {
    GESTURED_BIN=$bin "$cost" --programs gestured --runs 1 "$@" >>"$scratch/cost.log" 2>&1 ||
        { cat "$scratch/cost.log" >&2; echo "profile: daemon-cost $* failed" >&2; exit 1; }
}

# Each process writes its counts when it exits (%p: one file per process, %m: merged by the binary).
export LLVM_PROFILE_FILE="$scratch/raw/serve-%p.profraw"
serve --filters '"phases":["recognized","ended"]'
serve --sets 1
export LLVM_PROFILE_FILE="$scratch/raw/replay-%m.profraw"
for f in Recordings/*.evemu; do
    "$bin" replay "$f" >/dev/null 2>&1 || { echo "profile: gestured replay $f failed" >&2; exit 1; }
done
unset LLVM_PROFILE_FILE
n=$(find "$scratch/raw" -name 'serve-*.profraw' | wc -l)
[ "$n" -ge 2 ] || { echo "profile: the daemon left $n profiles, not 2 (did it stop cleanly? $scratch/cost.log)" >&2; exit 1; }

# LLVM's indexed form: its text form cannot be read back when names begin
# with '$', as Swift's all do (LLVM 21 takes such a line for a record's
# bitmap). -sparse leaves out the functions whose counts are all zero: they are
# compiled as without a profile, not as cold. `llvm-profdata show` reads it.
"$profdata" merge -sparse -o "$out" "$scratch"/raw/*.profraw
functions=$("$profdata" show "$out" | sed -n 's/^Total functions: //p')
echo "profile: $out: $functions functions, from $n daemon runs and $(ls Recordings/*.evemu | wc -l) replays"
