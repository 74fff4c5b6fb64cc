#!/usr/bin/env python3
"""A panel that follows the finger: the smallest client of a tracked gesture.

gestured act starts it once (a binding's `pipe`) and writes it one JSON
line per event of the binding's gestures. Each line of a tracked gesture
carries `progress` (0 where the fingers landed, 1 at the track's
distance); the end carries `completed`, the decision every client of that
gesture shares. The panel slides in with the progress, then snaps open or
falls back when the gesture ends (follow.toml has the binding).

    follow-panel.py           a window (python3-tk: sudo apt-get install python3-tk)
    follow-panel.py --text    one line per change on standard output, no window
"""

import json
import queue
import sys
import threading

WIDTH, HEIGHT = 480, 320


def read_lines(out):
    """Hands each gesture line of stdin to `out`, then None at its end."""
    for raw in sys.stdin:
        try:
            event = json.loads(raw)
        except ValueError:
            print(f"follow-panel: not JSON, skipped: {raw.strip()[:80]}", file=sys.stderr)
            continue
        if isinstance(event, dict) and isinstance(event.get("progress"), (int, float)):
            out(event)
    out(None)


def settled(event):
    """Where the panel rests after `event`: 1 open, 0 closed, None while it is moving."""
    if event.get("phase") in ("ended", "cancelled"):
        return 1.0 if event.get("completed") else 0.0
    return None


def text():
    """Prints the panel's position as it changes, and where it settles."""
    def show(event):
        if event is None:
            return
        rest = settled(event)
        if rest is None:
            print(f"panel {event['progress']:.2f}", flush=True)
        else:
            print("panel open" if rest else "panel closed", flush=True)
    read_lines(show)


def window():
    try:
        import tkinter
    except ImportError:
        sys.exit("follow-panel: no tkinter; install it (sudo apt-get install python3-tk) or run with --text")
    root = tkinter.Tk()
    root.title("gestured: follow the finger")
    canvas = tkinter.Canvas(root, width=WIDTH, height=HEIGHT, background="#202124", highlightthickness=0)
    canvas.pack()
    panel = canvas.create_rectangle(0, 0, 0, HEIGHT, fill="#8ab4f8", width=0)
    label = canvas.create_text(WIDTH // 2, HEIGHT // 2, fill="#e8eaed", text="drag from the left edge")
    events = queue.Queue()
    state = {"shown": 0.0, "target": None}

    def draw(fraction):
        state["shown"] = fraction
        canvas.coords(panel, 0, 0, WIDTH * max(0.0, min(1.0, fraction)), HEIGHT)

    def tick():
        while not events.empty():
            event = events.get()
            if event is None:
                root.destroy()
                return
            rest = settled(event)
            if rest is None:
                state["target"] = None
                draw(event["progress"])
                canvas.itemconfigure(label, text=f"{event['progress']:.2f}")
            else:
                state["target"] = rest
                canvas.itemconfigure(label, text="open" if rest else "closed")
        # After the end, ease toward where it settles, 60 frames a second.
        if state["target"] is not None:
            step = state["target"] - state["shown"]
            draw(state["target"] if abs(step) < 0.01 else state["shown"] + step * 0.25)
        root.after(16, tick)

    threading.Thread(target=read_lines, args=(events.put,), daemon=True).start()
    tick()
    root.mainloop()


if __name__ == "__main__":
    if "--text" in sys.argv[1:]:
        text()
    else:
        window()
