#!/usr/bin/env bash
# Runs inside the virtual machine Performance/scripts/kernel-cost.sh boots, as root, on a
# real kernel: what gestured costs per frame on real evdev devices, beside a
# program that only drains libinput (the floor) and Debian's lisgd, and how
# long an event takes from uinput to a subscriber with 1 and 100 of them.
# Writes its figures into OUT/cost.txt. A measurement, not a test.
# Usage: kernel-cost-guest.sh OUT REPO GESTURED UINPUT_TOUCH
set -uo pipefail
out=$1 repo=$2 gestured=$3 touch=$4
drain=$(dirname "$touch")/libinput-drain
runs=${GESTURED_COST_RUNS:-3}
exec 2>>"$out/guest.log"
run=$(mktemp -d)
modprobe uinput 2>/dev/null
[ -c /dev/uinput ] || { echo "no /dev/uinput" >"$out/status"; exit 1; }
udevd=$(command -v systemd-udevd || echo /lib/systemd/systemd-udevd)
"$udevd" --daemon
udevadm settle --timeout=10

# The trace Performance/scripts/kernel-cost.sh built: every tablet recording, one after another.
trace=$out/cost-trace.evemu
frames=$(awk '$1 == "E:" && $3 == "0000" && $4 == "0000"' "$trace" | wc -l)
# Nanoseconds a process has run, all its threads.
cpu() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
peak() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/"$1"/status; }
# Starts a player of the trace on a new device "... #TAG" that waits for
# $run/go; sets `node` to its device node.
player() {
    rm -f "$run/play-$1.out"
    "$touch" play "$trace" --suffix " #$1" --wait-for "$run/go" </dev/null >"$run/play-$1.out" 2>&1 &
    players+=($!)
    node=""
    for _ in $(seq 600); do
        node=$(sed -n 's/^node //p' "$run/play-$1.out")
        [ -n "$node" ] && break
        sleep 0.05
    done
}

{
    echo "trace: the tablet recordings one after another, $frames frames; $(nproc) CPUs; $(uname -r)"
    echo "program cpu_ns frames peak_kib (one line per program and run)"
} >"$out/cost.txt"
for r in $(seq "$runs"); do
    rm -f "$run/go"
    players=()
    # The three programs at once, each on its own device fed the same frames.
    player drain
    "$drain" "$node" >"$run/drain.out" 2>&1 &
    pids=(drain:$!)
    player lisgd
    bindings=()
    for f in 1 2 3; do
        for g in LR RL DU UD DLUR URDL ULDR DRUL; do bindings+=(-g "$f,$g,*,*,R,echo $f$g >> $run/lisgd.out"); done
    done
    lisgd -d "$node" -w 1280 -h 800 "${bindings[@]}" >/dev/null 2>&1 &
    pids+=(lisgd:$!)
    player gestured
    # Defaults, but room for the 100 subscribers of the latency runs below.
    printf '[daemon]\nmax-clients = 256\nmax-clients-per-user = 200\n' >"$run/daemon.toml"
    "$gestured" serve --socket "$run/g.sock" --device "$node" --config "$run/daemon.toml" --log-level warning \
        >>"$out/guest.log" 2>&1 &
    pids+=(gestured:$!)
    for _ in $(seq 200); do [ -S "$run/g.sock" ] && break; sleep 0.05; done
    "$gestured" monitor --socket "$run/g.sock" --json >"$run/events-$r.jsonl" 2>/dev/null &
    monitor=$!
    sleep 2
    declare -A before=()
    for p in "${pids[@]}"; do before[${p%%:*}]=$(cpu "${p#*:}"); done
    touch "$run/go"
    wait "${players[@]}"
    sleep 1.5
    for p in "${pids[@]}"; do
        name=${p%%:*} pid=${p#*:}
        if [ -d /proc/"$pid" ]; then
            echo "$name $(($(cpu "$pid") - ${before[$name]})) $frames $(peak "$pid")" >>"$out/cost.txt"
        else
            echo "$name did not run to the end of run $r (guest.log says why)" >>"$out/cost.txt"
        fi
    done
    for p in "${pids[@]}"; do kill -TERM "${p#*:}" 2>/dev/null; done
    wait "$monitor" 2>/dev/null
    for p in "${pids[@]}"; do wait "${p#*:}" 2>/dev/null; done
    echo "gestured published $(grep -c '"type":"gesture"' "$run/events-$r.jsonl") gesture events in run $r" >>"$out/cost.txt"
    rm -f "$run/g.sock"
done

# Latency from the uinput write (the kernel's event time) to a subscriber's
# read, with 1 and with 100 subscribers, on the release build.
for n in 1 100; do
    rm -f "$run/go"
    players=()
    player latency
    "$gestured" serve --socket "$run/l.sock" --device "$node" --config "$run/daemon.toml" --log-level warning \
        >>"$out/guest.log" 2>&1 &
    serve=$!
    for _ in $(seq 200); do [ -S "$run/l.sock" ] && break; sleep 0.05; done
    "$gestured" monitor --socket "$run/l.sock" --latency --quiet --connections "$n" >"$run/latency-$n.out" 2>&1 &
    monitor=$!
    sleep 2
    touch "$run/go"
    wait "${players[@]}"
    sleep 1.5
    kill -TERM "$serve"
    wait "$serve" "$monitor"
    echo "subscribers $n: $(grep -h 'latency over' "$run/latency-$n.out")" >>"$out/cost.txt"
    echo "subscribers $n, worst player lateness: $(sed -n 's/^late //p' "$run/play-latency.out")" >>"$out/cost.txt"
    rm -f "$run/l.sock"
done
echo ok >"$out/status"
