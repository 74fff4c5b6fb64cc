#!/usr/bin/env bash
# Runs inside the virtual machine Performance/scripts/claim-latency.sh boots (through
# scripts/kernel-test.sh): every bundled recording played three times on a
# uinput touchscreen: read plainly; passed through by the least relay
# there can be (`uinput-touch relay`) and read from its copy; claimed by
# gestured and read from its clone. Each frame's write time and read time
# go into OUT.
# Usage: claim-latency-guest.sh OUT REPO GESTURED UINPUT_TOUCH
set -uo pipefail
out=$1 repo=$2 gestured=$3 touch=$4
exec 2>>"$out/guest.log"
run=$(mktemp -d)
modprobe uinput 2>/dev/null
[ -c /dev/uinput ] || { echo "no /dev/uinput" >>"$out/guest.log"; exit 1; }
mkdir -p /run/udev/rules.d
cp "$repo/systemd/70-gestured.rules" /run/udev/rules.d/
sed "s|@BINDIR@|$(dirname "$gestured")|" "$repo/systemd/81-gestured-clone.rules" >/run/udev/rules.d/81-gestured-clone.rules
udevd=$(command -v systemd-udevd || echo /lib/systemd/systemd-udevd)
"$udevd" --daemon
udevadm trigger --action=add >/dev/null 2>&1
udevadm settle --timeout=10

: >"$run/claim.toml"
while read -r i name; do
    printf '[[device]]\nmatch = "%s #claim-%s"\nclaim = true\n\n' "$(sed -n 's/^N: //p' "$repo/Recordings/$name.evemu" | head -n 1)" "$i" >>"$run/claim.toml"
done <"$out/plan"
"$gestured" serve --socket "$run/s.sock" --config "$run/claim.toml" --user root >"$out/serve.log" 2>&1 &
serve=$!
for _ in $(seq 300); do [ -S "$run/s.sock" ] && break; sleep 0.1; done

# Plays recording NAME on a device named "… #KIND-I"; reads the device
# (plain), the relay's copy (relay) or gestured's clone (claim).
play() {
    local kind=$1 i=$2 name=$3 device
    device="$(sed -n 's/^N: //p' "$repo/Recordings/$name.evemu" | head -n 1) #$kind-$i"
    "$touch" play "$repo/Recordings/$name.evemu" --settle 0 --suffix " #$kind-$i" --wait-for "$run/go-$kind-$i" \
        --sent "$out/sent-$kind-$i.evemu" </dev/null >/dev/null 2>>"$out/guest.log" &
    local player=$! relay=""
    if [ "$kind" = relay ]; then
        "$touch" relay "$device" 60 >"$run/relay.out" 2>>"$out/guest.log" &
        relay=$!
        device="$device (relay)"
    fi
    [ "$kind" = claim ] && device="$device (gestured)"
    "$touch" record "$device" 60 "$out/read-$kind-$i.evemu" >"$run/record.out" 2>>"$out/guest.log" &
    local reader=$!
    for _ in $(seq 600); do grep -q '^recording' "$run/record.out" && break; sleep 0.05; done
    touch "$run/go-$kind-$i"
    wait "$player" "$reader"
    [ -z "$relay" ] || wait "$relay"
}
while read -r i name; do
    play plain "$i" "$name"
    play relay "$i" "$name"
    play claim "$i" "$name"
done <"$out/plan"
kill -TERM "$serve"
wait "$serve"
echo ok >"$out/status"
