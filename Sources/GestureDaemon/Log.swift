import GestureCore
package import Logging
import ToolSupport

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
        // A log that cannot be written has nowhere to say so.
        try? writeAll(2, line)
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

extension RepeatLimiter {
    /// The same, as a warning of `logger`.
    mutating func note(now: Timestamp, _ logger: Logger, _ message: () -> String) {
        note(now: now, { logger.warning("\($0)") }, message)
    }
}
