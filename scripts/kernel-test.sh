#!/usr/bin/env bash
# Boots Debian's kernel in a virtual machine (virtme-ng over qemu, the host's
# filesystem read-only) and runs scripts/kernel-guest.sh there: real uinput
# touchscreens, evdev, udev and libinput's udev backend under `gestured
# serve`. What the guest saw lands in OUT; Tests/EndToEndTests/KernelTests
# reads it (docs/testing.md, "The real-kernel harness").
# Usage: scripts/kernel-test.sh OUT      (OUT: an empty scratch directory)
# Uses KVM when it boots the kernel, else software emulation; OUT/vm says which.
# Needs: qemu-system-x86, linux-image-amd64, virtme-ng (make setup), busybox-static,
# the tests' build (TEST_BUILD, .build/lint by default; GESTURED_BIN picks
# another binary) and scripts/build-harness.sh.
# GESTURED_DEB names the Debian package (make deb) the guest installs last
# (scripts/kernel-guest-deb.sh); `make test` passes the one it built.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
# The guest writes only into OUT: it must be a directory of its own, never
# the checkout (an empty argument would be the current directory).
[ -n "${1:-}" ] && [ -d "$1" ] || { echo "kernel-test: usage: kernel-test.sh OUT (an existing scratch directory)" >&2; exit 2; }
out=$(cd "$1" && pwd)
[ "$out" != "$repo" ] || { echo "kernel-test: OUT must not be the checkout" >&2; exit 2; }
gestured=${GESTURED_BIN:-$(swift build --build-path "${TEST_BUILD:-.build/lint}" --show-bin-path)/gestured}
touch=$repo/.build/harness/uinput-touch
kernel=${GESTURED_KERNEL:-$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)}
# virtme-ng: the copy `make setup` installs under .build/tools, else one on PATH.
vng=$repo/.build/tools/bin/vng
[ -x "$vng" ] || vng=$(command -v vng) || { echo "kernel-test: vng (virtme-ng) is not installed: run make setup" >&2; exit 3; }
# vng runs the rest of virtme-ng (virtme-run) from PATH.
PATH=$(dirname "$vng"):$PATH
[ -n "$kernel" ] && [ -r "$kernel" ] || { echo "kernel-test: no readable kernel in /boot (apt-get install linux-image-amd64)" >&2; exit 3; }
[ -x "$touch" ] || { echo "kernel-test: $touch is missing (scripts/build-harness.sh)" >&2; exit 3; }

# The plan: every bundled recording with a number, and the sizes their
# .expect files give as [[device]] sections matching "NAME #I".
: >"$out/plan"
: >"$out/gestured.toml"
i=0
for f in Recordings/*.evemu; do
    name=$(basename "$f" .evemu)
    echo "$i $name" >>"$out/plan"
    size=$(sed -n 's/^# size: *//p' "Recordings/$name.expect" | head -n 1)
    if [ -n "$size" ]; then
        device=$(sed -n 's/^N: //p' "$f" | head -n 1)
        printf '[[device]]\nmatch = "%s #%d"\nsize = "%s"\n\n' "$device" "$i" "$size" >>"$out/gestured.toml"
    fi
    i=$((i + 1))
done

# Every labelled recording of people's hands (../shared/traces/real-hands,
# when it is beside the checkout), numbered again, each as "rI PATH", with
# its size from the labels as a [[device]] section matching "NAME #rI".
: >"$out/plan-real"
labels=$repo/../shared/traces/real-hands/labels.json
if [ -f "$labels" ]; then
    python3 - "$labels" "$out/plan-real" "$out/gestured.toml" <<'PY'
import json, os, sys
labels, plan, config = sys.argv[1:4]
root = os.path.dirname(os.path.abspath(labels))
with open(labels) as f, open(plan, "a") as p, open(config, "a") as c:
    for i, (_, label) in enumerate(sorted(json.load(f).items())):
        path = os.path.join(root, label["file"])
        p.write(f"r{i} {path}\n")
        name = next((l[3:].strip() for l in open(path, errors="replace") if l.startswith("N: ")), None)
        size = label.get("size_mm")
        if name and size:
            c.write(f"[[device]]\nmatch = {json.dumps(name + f' #r{i}')}\nsize = \"{size[0]}x{size[1]}\"\n\n")
PY
fi

# The rotated panel of the guest: the tablet's swipe, a quarter turn clockwise.
device=$(sed -n 's/^N: //p' Recordings/swipe-right-1f.tablet.evemu | head -n 1)
printf '[[device]]\nmatch = "%s #rotated"\nrotation = 90\n\n' "$device" >>"$out/gestured.toml"
: >"$out/extra-plays"

# GESTURED_GUEST picks another guest script, by its path in the repository
# (Performance/scripts/kernel-cost.sh's).
deb=""
if [ -n "${GESTURED_DEB:-}" ]; then
    [ -f "$GESTURED_DEB" ] || { echo "kernel-test: GESTURED_DEB=$GESTURED_DEB is not a file (make deb)" >&2; exit 2; }
    deb=$(cd "$(dirname "$GESTURED_DEB")" && pwd)/$(basename "$GESTURED_DEB")
fi
guest="$repo/${GESTURED_GUEST:-scripts/kernel-guest.sh} $out $repo $gestured $touch $deb"
boot() {
    local started=$SECONDS
    rm -f "$out/status"
    # A PC machine (not microvm) with qemu's virtio-gpu: the DRM device KWin
    # needs (scripts/kernel-guest-compositor.sh loads its driver). Until then
    # the guest has no display, as the steps before it expect (a touchscreen
    # of no known size would take the display's size from its EDID).
    timeout --kill-after=10 "$2" "$vng" --run "$kernel" --user root --cpus 2 --memory 2G --rwdir="$out" \
        --disable-microvm --qemu-opts="-device virtio-gpu-pci" --append "modprobe.blacklist=virtio_gpu" "${@:3}" \
        --exec "$guest" >"$out/vm-$1.log" 2>&1 || true
    echo "$1 $((SECONDS - started)) s" >"$out/vm"
    [ -f "$out/status" ]
}
# Whether KVM runs this kernel: a /dev/kvm that opens but cannot run a
# guest (nested virtualisation that stalls) would cost the whole KVM budget.
# The kernel prints its banner within a second where KVM works.
kvm_works() {
    [ -w /dev/kvm ] || return 1
    timeout --kill-after=2 15 qemu-system-x86_64 -accel kvm -machine q35 -cpu max -m 256M -display none -nodefaults \
        -no-reboot -serial stdio -kernel "$kernel" -append "console=ttyS0 earlyprintk=serial panic=-1 loglevel=8" \
        2>/dev/null </dev/null | grep -q -m 1 "Linux version"
}
# Under software emulation the guest takes 15 to 25 minutes on two cores,
# as busy as the host is; the budget is for a hang, not for speed.
if kvm_works && boot kvm 300; then
    :
elif boot tcg 2400 --disable-kvm; then
    :
else
    echo "kernel-test: the virtual machine did not run the guest script; see $out/vm-*.log" >&2
    tail -n 20 "$out"/vm-*.log >&2
    exit 2
fi
cat "$out/vm"
