import CLinux
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// sd_notify(3) without libsystemd: one datagram to `$NOTIFY_SOCKET`.
///
/// The address is a path, or with a leading `@` a name in the abstract
/// namespace. Without `$NOTIFY_SOCKET` (not started by systemd) nothing is sent.
///
/// The daemon never blocks on it for long: a receiver that stopped reading
/// (its queue holds `net.unix.max_dgram_qlen` datagrams) costs a status
/// update, not the loop. What systemd must hear (`READY=1`, `STOPPING=1`)
/// waits up to `patience` for room; a status update does not wait.
package final class SystemdNotifier {
    let address: String?
    /// The socket, connected on the first message and kept: a daemon that
    /// was root when it first spoke still reaches systemd once it is not.
    private var fd: Int32 = -1
    /// How long a message that must arrive waits for room in the receiver's queue.
    static let patienceMs: Int32 = 1000

    package init(environment value: String? = getenv("NOTIFY_SOCKET").map { String(cString: $0) }) {
        address = value.flatMap { $0.isEmpty ? nil : $0 }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Connects to `$NOTIFY_SOCKET` now, if not yet (so that poll(2) tells
    /// when the receiver's queue has room); false when there is none.
    @discardableResult
    package func connect() -> Bool {
        if fd >= 0 { return true }
        guard let address, let addr = UnixAddress(address) else { return false }
        let s = clinux_unix_socket(Int32(SOCK_DGRAM.rawValue), 1)
        guard s >= 0 else { return false }
        guard addr.connect(s) == 0 else {
            close(s)
            return false
        }
        fd = s
        return true
    }

    /// Sends `state` ("READY=1\nSTATUS=…"); returns false if it could not be
    /// sent. With `wait`, a full queue is waited on for a moment.
    @discardableResult
    package func notify(_ state: String, wait: Bool = true) -> Bool {
        guard connect() else { return false }
        let bytes = Array(state.utf8)
        for attempt in 0..<2 {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent == bytes.count { return true }
            guard sent < 0, errno == EAGAIN, wait, attempt == 0 else { return false }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&p, 1, Self.patienceMs) == 1 else { return false }
        }
        return false
    }
}
