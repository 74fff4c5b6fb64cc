import CLinux
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's signals, read from a signalfd in the loop like any other
/// descriptor: nothing runs in a signal handler.
package struct SignalSource {
    /// What the signals ask for.
    package enum Request: Equatable {
        /// SIGTERM or SIGINT.
        case stop(Int32)
        /// SIGHUP.
        case reload
    }

    /// The signals the daemon handles: stop, and reload.
    static let signals: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    package let fd: Int32
    private let token: Readiness.Token

    /// Holds the daemon's signals pending from here on, so that one arriving
    /// while it starts (a SIGHUP before the signalfd exists would end the
    /// process) is handled once it serves. Call first thing in `serve`.
    package static func hold() {
        var signals = Self.signals
        _ = clinux_block_signals(&signals, Int32(signals.count))
    }

    /// A signalfd, watched in `loop`.
    package init(loop: Readiness) throws(SetupError) {
        var signals = Self.signals
        fd = clinux_signalfd(&signals, Int32(signals.count))
        guard fd >= 0 else { throw SetupError("signalfd", Errno.last) }
        do {
            token = try loop.watch(fd, "the signalfd", owner: .signals)
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    package var tokens: [Readiness.Token] { [token] }

    /// Whether the last wait found signals pending.
    package func isReady(_ loop: Readiness) -> Bool { loop.readable(token) }

    /// The signals pending now, in the order they came.
    package func read(into requests: inout [Request]) {
        while true {
            let signo = clinux_signalfd_read(fd)
            guard signo > 0 else { return }
            requests.append(signo == SIGHUP ? .reload : .stop(signo))
        }
    }

    package func close() { _ = Glibc.close(fd) }
}
