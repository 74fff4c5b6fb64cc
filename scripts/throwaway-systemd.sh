# A throwaway systemd for scripts that test what the units do: systemd as
# PID 1 of new PID, mount and UTS namespaces, booting only what the script
# starts. Sourced by scripts/systemd-smoke.sh and scripts/deb-test.sh.
#
#   name=...                the caller's name, for messages
#   work=...                a scratch folder (mode 755) the caller made
#   throwaway_boot FILES    boots it; FILES is shell run first inside the new
#                           namespaces (as root there), making what systemd
#                           and the test may write anything but the machine's
#   inside CMD...           runs CMD in the namespaces, bounded to 60 s
#   wait_for S WHAT CMD...  until CMD succeeds, or fails after S s saying WHAT
#   hello_as USER WHAT      prints whether USER gets the daemon's hello on
#                           /run/gestured/gestured.sock
#
# The caller sets `step` before each step and calls throwaway_cleanup from its
# EXIT trap: on failure it prints the units' status, the journal and
# systemd's log, then kills the namespaces and removes the control groups
# systemd made. Every command is bounded: a systemd that stopped answering
# must not hang the report.
pid1=""
ns=""
step="starting"

throwaway_diagnose() {
    echo "$name: FAILED during: $step (${SECONDS}s into the script)"
    if [ -n "$pid1" ]; then
        # Result= first: "oom-kill", "watchdog", "signal" or "exit-code" says
        # why the service last stopped, before any longer output is cut.
        echo "-- gestured.service: $(timeout 10 nsenter -t "$pid1" -m -p -- systemctl show -p Result -p NRestarts -p MemoryCurrent gestured.service 2>&1 | paste -sd' ' -)"
        echo "-- systemctl status gestured.socket gestured.service"
        timeout 10 nsenter -t "$pid1" -m -p -- systemctl status --no-pager --lines=0 gestured.socket gestured.service 2>&1 || true
        echo "-- journal (last 40 lines)"
        timeout 10 nsenter -t "$pid1" -m -p -- journalctl --no-pager -n 40 -o short-monotonic 2>&1 || true
        echo "-- processes in the namespace"
        timeout 10 nsenter -t "$pid1" -m -p -- ps -eo pid,user,stat,etimes,comm 2>&1 || true
    fi
    echo "-- systemd's log"
    tail -n 40 "$work/systemd.log" 2>/dev/null || true
}

throwaway_cleanup() {
    local status=$1
    [ "$status" -eq 0 ] || throwaway_diagnose
    # systemd as the namespace's PID 1, and everything in the session unshare
    # leads (setsid), whichever of them got as far as starting.
    [ -n "$pid1" ] && kill -9 "$pid1" 2>/dev/null || true
    [ -n "$ns" ] && { pkill -9 -s "$ns" 2>/dev/null; kill -9 "$ns" 2>/dev/null; } || true
    # The control groups the throwaway systemd made (it shares the machine's
    # cgroup file system), deepest first, once the killed processes have left them.
    if [ -f "$work/cgroups.before" ]; then
        local left
        new_cgroups() { find /sys/fs/cgroup -mindepth 1 -type d 2>/dev/null | sort | comm -13 "$work/cgroups.before" - | sort -r; }
        for _ in $(seq 50); do
            left=$(new_cgroups)
            [ -n "$left" ] || break
            echo "$left" | xargs -r -d '\n' rmdir 2>/dev/null || true
            sleep 0.1
        done
        left=$(new_cgroups)
        [ -z "$left" ] || echo "$name: could not remove these control groups: $left" >&2
    fi
    rm -rf "$work"
}

# Only what the test starts runs: every unit the distribution ships is
# masked but the journal's (the test reads it), and no generator runs.
# Otherwise starting gestured.service, which wants sysinit.target, would boot
# the machine again: udev coldplug, sysctl, tmpfiles, journal files in
# /var/log/journal, each slow under load.
throwaway_boot() {
    {
        echo 'set -e'
        echo 'mount -t tmpfs tmpfs /run'
        echo 'mkdir -p /run/systemd'
        echo "$1"
        cat <<'BOOT'
if [ -d /lib/systemd/system-generators ]; then mount -t tmpfs tmpfs /lib/systemd/system-generators; fi
rm -rf /etc/systemd/system
mkdir -p /etc/systemd/system /etc/systemd/journald.conf.d
printf '[Journal]\nStorage=volatile\nReadKMsg=no\n' >/etc/systemd/journald.conf.d/throwaway.conf
for unit in /lib/systemd/system/*; do
    [ -d "$unit" ] && continue
    case ${unit##*/} in
        *.target | *.slice | systemd-journald.service | systemd-journald.socket | systemd-journald-dev-log.socket) ;;
        # gestured's own, if a package installed them on this machine: the
        # copies under test replace them.
        gestured*) ;;
        *) ln -s /dev/null "/etc/systemd/system/${unit##*/}" ;;
    esac
done
printf '[Unit]\nDescription=gestured test\nDefaultDependencies=no\n' >/etc/systemd/system/throwaway.target
exec /lib/systemd/systemd --system --unit=throwaway.target --log-target=console --log-level=warning </dev/null
BOOT
    } >"$work/boot.sh"
    find /sys/fs/cgroup -mindepth 1 -type d 2>/dev/null | sort >"$work/cgroups.before"
    local user_ns=""
    [ "$(id -u)" -eq 0 ] || user_ns="--map-root-user"
    setsid unshare $user_ns --pid --fork --mount --uts --propagation private --mount-proc sh "$work/boot.sh" "$work" \
        >"$work/systemd.log" 2>&1 </dev/null &
    ns=$!
    disown "$ns"
    step="booting systemd in its own namespaces"
    local deadline=$((SECONDS + 30))
    until [ -n "$pid1" ] && timeout 10 nsenter -t "$pid1" -m -p -- systemctl is-system-running >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || { echo "$name: systemd did not start within 30 s"; exit 1; }
        sleep 0.1
        pid1=$(pgrep -f "systemd --system --unit=throwaway.target" | head -1 || true)
    done
    echo "== systemd $(inside systemctl --version | head -1 | cut -d' ' -f2) running as PID 1 of its own namespaces"
}

inside() { timeout -k 5 60 nsenter -t "$pid1" -m -p -- "$@"; }

wait_for() {
    local limit=$1 what=$2
    shift 2
    local deadline=$((SECONDS + limit))
    until "$@"; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            echo "$name: $what: not within $limit s"
            return 1
        fi
        sleep 0.2
    done
}

# A few tries: a service being restarted (slowly, under a sanitizer) may not
# answer within socat's one second of quiet. A member of `gesture` must get
# `hello` every time.
hello_as() {
    local who=$1 what=$2
    local line
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        line=$(inside setpriv --reuid "$who" --regid "$who" --init-groups -- \
            timeout 5 socat -T 1 -u UNIX-CONNECT:/run/gestured/gestured.sock STDOUT 2>&1 | head -1) || true
        case "$line" in *'"type":"hello"'* | *'Permission denied'*) break ;; esac
        sleep 0.5
    done
    case "$line" in
        *'"type":"hello"'*) echo "$what: $who got hello" ;;
        *) echo "$what: $who got no hello: ${line:-nothing}" ;;
    esac
}
