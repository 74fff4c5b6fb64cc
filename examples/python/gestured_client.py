#!/usr/bin/env python3
"""A minimal gestured client: no dependencies beyond Python's standard library.

    python3 gestured_client.py [--socket PATH] [GESTURE ...]

Connects to the daemon, subscribes (to the gestures named, or to all), and
prints one line per gesture event. See docs/protocol.md.
"""
import json
import os
import socket
import sys


def default_socket():
    if os.environ.get("GESTURED_SOCKET"):
        return os.environ["GESTURED_SOCKET"]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.exists(os.path.join(runtime, "gestured.sock")):
        return os.path.join(runtime, "gestured.sock")
    return "/run/gestured/gestured.sock"


def main(argv):
    path = default_socket()
    if len(argv) >= 2 and argv[0] == "--socket":
        path, argv = argv[1], argv[2:]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as e:
        sys.exit(f"gestured_client: cannot connect to {path}: {e.strerror}. "
                 "Is gestured serve running? (--socket or GESTURED_SOCKET chooses another path)")
    stream = sock.makefile("rw", encoding="utf-8", newline="\n")

    hello = json.loads(stream.readline())
    if hello.get("type") != "hello":
        sys.exit(f"unexpected first message: {hello}")
    print(f"# {hello['server']}, protocol {hello['version'][0]}.{hello['version'][1]}", flush=True)

    request = {"type": "subscribe"}
    if argv:
        request["gestures"] = argv
    stream.write(json.dumps(request) + "\n")
    stream.flush()

    for line in stream:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "gesture":
            extra = message.get("direction") or ""
            print(f"{message['gesture']} {message['phase']} fingers={message['fingers']} "
                  f"at {message['x_mm']:.1f},{message['y_mm']:.1f} mm {extra}".rstrip(), flush=True)
        elif kind == "error":
            print(f"# error {message['code']}: {message['message']}", file=sys.stderr, flush=True)
            if message.get("fatal"):
                return 1
        elif kind in ("device_added", "device_removed"):
            print(f"# {kind}: {message['device']}", flush=True)
        elif kind == "goodbye":
            return 0
        # Other types (subscribed, config_reloaded, ...) and unknown fields are ignored.
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(0)
