#!/usr/bin/env python3
"""A stand-in for i3's IPC, for the kernel tests (kernel-guest-claim.sh):
gestured act's focus source where no compositor runs. It answers
SUBSCRIBE and GET_TREE; the tree has one window, focused, whose app is the
first line of APP_FILE. On SIGUSR1 it tells every subscriber that the
focus moved (a window event), and act asks for the tree again.

Usage: stand-in-i3.py SOCKET APP_FILE
"""
import json
import os
import select
import signal
import socket
import struct
import sys

MAGIC = b"i3-ipc"
SUBSCRIBE, GET_TREE, WINDOW_EVENT = 2, 4, 0x80000003


def message(kind, payload):
    body = json.dumps(payload).encode()
    return MAGIC + struct.pack("=II", len(body), kind) + body


def tree(app_file):
    with open(app_file, encoding="utf-8") as f:
        app = f.readline().strip()
    window = {"id": 10, "type": "con", "name": app, "focused": True, "fullscreen_mode": 0,
              "app_id": app, "nodes": [], "floating_nodes": []}
    workspace = {"id": 3, "type": "workspace", "name": "1", "focused": False, "nodes": [window],
                 "floating_nodes": []}
    return {"id": 1, "type": "root", "name": "root",
            "nodes": [{"id": 2, "type": "output", "name": "DSI-1", "nodes": [workspace]}]}


def main():
    path, app_file = sys.argv[1], sys.argv[2]
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGUSR1, lambda *_: None)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    buffers = {}
    subscribers = set()
    while True:
        ready, _, _ = select.select([server, wake_read] + list(buffers), [], [])
        for r in ready:
            if r is server:
                c, _ = server.accept()
                buffers[c] = b""
            elif r == wake_read:
                os.read(wake_read, 64)
                for c in subscribers:
                    c.sendall(message(WINDOW_EVENT, {"change": "focus", "container": {"id": 10, "type": "con"}}))
            else:
                data = r.recv(65536)
                if not data:
                    subscribers.discard(r)
                    del buffers[r]
                    r.close()
                    continue
                buffers[r] += data
                while len(buffers[r]) >= 14:
                    length, kind = struct.unpack("=II", buffers[r][6:14])
                    if len(buffers[r]) < 14 + length:
                        break
                    buffers[r] = buffers[r][14 + length:]
                    if kind == SUBSCRIBE:
                        subscribers.add(r)
                        r.sendall(message(SUBSCRIBE, {"success": True}))
                    elif kind == GET_TREE:
                        r.sendall(message(GET_TREE, tree(app_file)))


if __name__ == "__main__":
    main()
