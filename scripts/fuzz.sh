#!/usr/bin/env bash
# Fuzzes what gestured reads from outside with libFuzzer (Fuzz/, built with
# -sanitize=fuzzer,address): evemu traces, libinput record files,
# configuration files and socket requests.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 30, all four)
# Corpora start from Recordings/, ../shared/traces (when present) and
# Fuzz/seeds/, and grow in .build/fuzz/corpus/. A crash stops the run with the
# input saved in .build/fuzz/crashes/ and the command that replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzEvemu FuzzLibinputRecord FuzzConfig FuzzRequest)
build=.build/fuzz
# gold fails on these objects (an internal error in its DWARF reader); lld links them.
(cd Fuzz && swift build --build-path "../$build" -Xswiftc -sanitize=fuzzer,address \
    -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld 2>&1 | grep -v "Cannot export local symbol" | tail -3)
bin=$(cd Fuzz && swift build --build-path "../$build" --show-bin-path)

seed() {
    local target=$1 dir=$2
    mkdir -p "$dir"
    case $target in
    FuzzEvemu)
        cp Recordings/*.evemu Fuzz/seeds/evemu/* "$dir/"
        if [ -d ../shared/traces ]; then
            # Real recordings up to 64 KB (the fuzzer's input limit below).
            find ../shared/traces -type f -size -64k \( -name '*.evemu' -o -name '*.events' -o -name '*.desc' \) \
                -exec sh -c 'cp "$1" "$2/shared-$(echo "$1" | md5sum | cut -c1-12)"' _ {} "$dir" \;
        fi ;;
    FuzzLibinputRecord) cp Fuzz/seeds/libinput-record/* "$dir/" ;;
    FuzzConfig) cp Fuzz/seeds/config/* examples/gestured.toml "$dir/" ;;
    FuzzRequest) cp Fuzz/seeds/request/* "$dir/" ;;
    esac
}

# Known leaks that are not gestured's (scripts/lsan-suppressions.txt); any other leak fails.
# The Swift runtime's crash handler reads memory ASan has poisoned and
# hides the real report: leave crashes to the sanitizer.
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt:print_suppressions=0"
status=0
for target in "${targets[@]}"; do
    corpus=$build/corpus/$target
    crashes=$build/crashes/$target
    mkdir -p "$crashes"
    [ -d "$corpus" ] || seed "$target" "$corpus"
    echo "== $target: ${seconds}s, corpus $(ls "$corpus" | wc -l) inputs"
    log=$build/$target.log
    # -rss_limit_mb bounds memory, -timeout catches hangs (a input taking over 10 s).
    if "$bin/$target" "$corpus" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$crashes/" -print_final_stats=1 >"$log" 2>&1; then
        grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ *DONE)" "$log" | tr '\n' ' '
        echo
    else
        status=1
        echo "$target found a problem:"
        grep -E "ERROR|SUMMARY|Test unit written|Fatal error|timeout" "$log" | head -10
        echo "replay it: $bin/$target $crashes/<file>   (log: $log)"
    fi
done
exit $status
