#!/usr/bin/env python3
"""The daemon's end-to-end figures (docs/performance.md), from the real binary.

Usage: Performance/scripts/daemon-figures.py [--idle-seconds 60] [--bin PATH]

Measures, on a release build of `gestured serve --replay`:
  - start to READY=1 (sd_notify), 20 starts;
  - delivery latency (frame time to a subscriber's receipt, CLOCK_MONOTONIC),
    p50/p99/max, with 1 and with 100 subscribers, through `gestured monitor
    --latency --connections N`, and the lateness of timer-published events;
  - resident memory idle, and with 100 subscribers;
  - CPU time and context switches (wake-ups) of the idle daemon, with 100
    subscribers connected, over --idle-seconds.
Nothing is asserted: these are measurements to read.
"""
import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Every kind of gesture, then taps and holds again: their events are published
# by timers (a tap after the double-tap interval, a hold at its deadline).
TABLET = ["tap-2f", "double-tap-2f", "hold-1f", "slow-drag-right", "flick-right", "pinch-close-3f",
          "swipe-right-1f", "curved-stroke"] + ["tap-2f", "hold-1f"] * 5


def long_trace(path, spacing_s=2.5):
    """The tablet recordings one after another, `spacing_s` apart, as one evemu file."""
    out = []
    header_done = False
    offset = 0.0
    for name in TABLET:
        lines = open(os.path.join(ROOT, "Recordings", name + ".tablet.evemu")).read().splitlines()
        if not header_done:
            out += [l for l in lines if not l.startswith("E:")]
            header_done = True
        first = None
        for l in lines:
            if not l.startswith("E: "):
                continue
            f = l.split()
            sec, usec = f[1].split(".")
            t = int(sec) * 1_000_000 + int(usec)
            first = t if first is None else first
            at = int(offset * 1_000_000) + t - first + 1_000_000
            out.append("E: %d.%06d %s %s %s" % (at // 1_000_000, at % 1_000_000, f[2], f[3], f[4]))
        offset += spacing_s
    open(path, "w").write("\n".join(out) + "\n")


def status(pid):
    fields = {}
    for line in open("/proc/%d/status" % pid):
        k, _, v = line.partition(":")
        fields[k] = v.strip()
    stat = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    ticks = int(stat[11]) + int(stat[12])  # utime + stime, in clock ticks
    return {
        "rss_kib": int(fields["VmRSS"].split()[0]),
        "switches": int(fields["voluntary_ctxt_switches"]) + int(fields["nonvoluntary_ctxt_switches"]),
        "ticks": ticks,
    }


class Daemon:
    def __init__(self, binary, workdir, args):
        self.sock = os.path.join(workdir, "gestured.sock")
        notify_path = os.path.join(workdir, "notify.sock")
        if os.path.exists(notify_path):
            os.unlink(notify_path)
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(notify_path)
        env = dict(os.environ, NOTIFY_SOCKET=notify_path)
        for k in ("LISTEN_FDS", "LISTEN_PID"):
            env.pop(k, None)
        # 100 subscribers of one user: more than the default share of the slots.
        config = os.path.join(workdir, "figures.toml")
        with open(config, "w") as f:
            f.write("[daemon]\nmax-clients-per-user = 128\n")
        self.started = time.clock_gettime(time.CLOCK_MONOTONIC)
        self.proc = subprocess.Popen([binary, "serve", "--socket", self.sock, "--log-level", "warning",
                                      "--config", config] + args, env=env)
        self.notify.settimeout(10)
        while True:
            if b"READY=1" in self.notify.recv(4096):
                break
        self.ready_ms = (time.clock_gettime(time.CLOCK_MONOTONIC) - self.started) * 1000

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        self.notify.close()


def subscribers(path, n):
    conns = []
    for _ in range(n):
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        s.sendall(b'{"type":"subscribe"}\n')
        conns.append(s)
    for s in conns:  # hello and subscribed
        s.settimeout(5)
        got = b""
        while got.count(b"\n") < 2:
            got += s.recv(4096)
    return conns


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--idle-seconds", type=int, default=60)
    ap.add_argument("--bin", default=None)
    a = ap.parse_args()
    binary = a.bin
    if binary is None:
        subprocess.run(["make", "-s", "release"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        out = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.strip()
        binary = os.path.join(out, "gestured")
    work = tempfile.mkdtemp(prefix="gestured-figures-")
    tap = os.path.join(ROOT, "Recordings", "tap-1f.phone.evemu")
    print("binary: %s" % binary)

    # The floor under every latency here: how late a sleeping thread wakes.
    late = []
    for _ in range(200):
        t = time.clock_gettime(time.CLOCK_MONOTONIC)
        time.sleep(0.01)
        late.append(time.clock_gettime(time.CLOCK_MONOTONIC) - t - 0.01)
    print("this machine: a 10 ms sleep wakes %.0f us late on average, %.0f us at worst (200 sleeps)" % (
        sum(late) / len(late) * 1e6, max(late) * 1e6))

    # Start to READY=1.
    times = []
    for _ in range(20):
        d = Daemon(binary, work, ["--replay", tap])
        times.append(d.ready_ms)
        d.stop()
    times.sort()
    print("start to READY=1 over 20 starts: median %.1f ms, max %.1f ms" % (times[10], times[-1]))

    # Latency with 1 and 100 subscribers.
    trace = os.path.join(work, "long.evemu")
    long_trace(trace)
    expected = len(subprocess.run([binary, "replay", trace], capture_output=True, text=True,
                                  check=True).stdout.splitlines())
    for n in (1, 100):
        d = Daemon(binary, work, ["--replay", trace, "--wait-subscribers", str(n)])
        r = subprocess.run([binary, "monitor", "--socket", d.sock, "--latency", "--quiet", "--connections", str(n),
                            "--count", str(expected)], capture_output=True, text=True, timeout=120)
        print("%d subscriber(s), %d events each:" % (n, expected))
        for line in r.stdout.splitlines():
            print("  " + line)
        if r.returncode != 0:
            print("  monitor failed: " + r.stderr.strip())
        d.stop()

    # Memory and idleness.
    d = Daemon(binary, work, ["--replay", tap])
    time.sleep(1)
    idle = status(d.proc.pid)
    conns = subscribers(d.sock, 100)
    # The subscribers' arrival is over: STATUS= a second later, then the
    # pages their connections mapped given back 2 s after the last.
    time.sleep(3)
    before = status(d.proc.pid)
    time.sleep(a.idle_seconds)
    after = status(d.proc.pid)
    hz = os.sysconf("SC_CLK_TCK")
    print("resident memory: idle %.1f MiB; with 100 subscribers %.1f MiB" % (idle["rss_kib"] / 1024,
                                                                             after["rss_kib"] / 1024))
    print("idle with 100 subscribers over %d s: %d context switches (wake-ups), %.2f s CPU" % (
        a.idle_seconds, after["switches"] - before["switches"], (after["ticks"] - before["ticks"]) / hz))
    for s in conns:
        s.close()
    d.stop()


if __name__ == "__main__":
    sys.exit(main())
