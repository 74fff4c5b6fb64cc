package import GestureCore
package import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// swift-log handler writing one line per message to standard error.
///
/// Under journald (`$JOURNAL_STREAM` names standard error) each line starts
/// with a `<N>` syslog priority prefix, which journald turns into the
/// message's priority; on a terminal it reads `gestured: warning: …`.
package struct StderrLogHandler: LogHandler {
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    let journal: Bool

    package init(level: Logger.Level, journal: Bool) {
        self.logLevel = level
        self.journal = journal
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var line: String
        if journal {
            line = "<\(Self.syslogPriority(event.level))>"
        } else {
            line = "gestured: "
            switch event.level {
            case .critical, .error: line += "error: "
            case .warning: line += "warning: "
            case .notice, .info, .debug, .trace: break
            }
        }
        line += event.message.description
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        if !all.isEmpty {
            line += " (" + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") + ")"
        }
        line += "\n"
        var bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            offset += n
        }
        bytes.removeAll()
    }

    /// syslog(3) priorities, which journald reads from the `<N>` prefix.
    static func syslogPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .critical: 2
        case .error: 3
        case .warning: 4
        case .notice: 5
        case .info: 6
        case .debug, .trace: 7
        }
    }

    /// Whether standard error is the journal stream systemd gave us
    /// (`$JOURNAL_STREAM` is "device:inode" of that stream).
    package static var stderrIsJournal: Bool {
        guard let value = getenv("JOURNAL_STREAM") else { return false }
        let parts = String(cString: value).split(separator: ":")
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
        var st = stat()
        guard fstat(2, &st) == 0 else { return false }
        return UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
    }

    /// The swift-log level for a `log-level` setting.
    package static func level(named name: String) -> Logger.Level {
        switch name {
        case "error": .error
        case "warning": .warning
        case "notice": .notice
        case "debug": .debug
        default: .info
        }
    }
}

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

    /// The same, as a warning of `logger`.
    mutating func note(now: Timestamp, _ logger: Logger, _ message: () -> String) {
        note(now: now, { logger.warning("\($0)") }, message)
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
