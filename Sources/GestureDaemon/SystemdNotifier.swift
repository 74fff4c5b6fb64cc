import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// sd_notify(3) without libsystemd: one datagram to `$NOTIFY_SOCKET`.
///
/// The address is a path, or with a leading `@` a name in the abstract
/// namespace. Without `$NOTIFY_SOCKET` (not started by systemd) nothing is sent.
package struct SystemdNotifier {
    let address: String?

    package init(environment value: String? = getenv("NOTIFY_SOCKET").map { String(cString: $0) }) {
        address = value.flatMap { $0.isEmpty ? nil : $0 }
    }

    package var isActive: Bool { address != nil }

    /// Sends `state` ("READY=1\nSTATUS=…"); returns false if it could not be sent.
    @discardableResult
    package func notify(_ state: String) -> Bool {
        guard let address, let addr = UnixAddress(address) else { return false }
        let fd = clinux_unix_socket(Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(state.utf8)
        let sent = addr.withSockaddr { sa, length in
            bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, length) }
        }
        return sent == bytes.count
    }
}
