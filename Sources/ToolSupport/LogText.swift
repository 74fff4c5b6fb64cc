package import GestureCore

/// Says a kind of line that others can cause at will (refused
/// connections, bad lines from a peer) at most `burst` times per `window`,
/// then, with the next one after the window, how many were left unsaid.
package struct RepeatLimiter {
    package var burst = 10
    package var window = Timestamp.Duration.milliseconds(10_000)
    private var windowStart = Timestamp(microseconds: .min / 2)
    private var said = 0
    private var suppressed = 0

    package init(burst: Int = 10, window: Timestamp.Duration = .milliseconds(10_000)) {
        self.burst = burst
        self.window = window
    }

    /// Says `message()` through `say` unless `burst` lines were said in this window.
    package mutating func note(now: Timestamp, _ say: (String) -> Void, _ message: () -> String) {
        if now - windowStart >= window {
            if suppressed > 0 { say("... and \(suppressed) more like it in \(Int(window.seconds)) s, not logged") }
            windowStart = now
            said = 0
            suppressed = 0
        }
        if said < burst {
            said += 1
            say(message())
        } else {
            suppressed += 1
        }
    }
}

/// Text from elsewhere (a peer's line, a file's name) made safe for a log
/// line: control characters written as `\xNN`, so that none can move a
/// terminal's cursor or start a line of its own; cut to `limit` characters.
package func logSafe(_ text: some StringProtocol, limit: Int = 200) -> String {
    var out = ""
    var count = 0
    for c in text.unicodeScalars {
        if count >= limit {
            out += "…"
            break
        }
        if c.value < 0x20 || c.value == 0x7f || (0x80...0x9f).contains(c.value) {
            out += "\\x" + (c.value < 0x10 ? "0" : "") + String(c.value, radix: 16)
        } else {
            out.unicodeScalars.append(c)
        }
        count += 1
    }
    return out
}
