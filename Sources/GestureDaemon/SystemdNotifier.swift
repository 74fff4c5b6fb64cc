import CLinux

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
package struct SystemdNotifier {
    let address: String?
    /// How long a message that must arrive waits for room in the receiver's queue.
    static let patienceMs: Int32 = 1000

    package init(environment value: String? = getenv("NOTIFY_SOCKET").map { String(cString: $0) }) {
        address = value.flatMap { $0.isEmpty ? nil : $0 }
    }

    package var isActive: Bool { address != nil }

    /// Sends `state` ("READY=1\nSTATUS=…"); returns false if it could not be
    /// sent. With `wait`, a full queue is waited on for a moment.
    @discardableResult
    package func notify(_ state: String, wait: Bool = true) -> Bool {
        guard let address, let addr = UnixAddress(address) else { return false }
        let fd = clinux_unix_socket(Int32(SOCK_DGRAM.rawValue), 1)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        // Connected, so that poll(2) tells when the receiver's queue has room.
        guard addr.withSockaddr({ connect(fd, $0, $1) }) == 0 else { return false }
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
