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
        guard let address else { return false }
        let fd = clinux_unix_socket(Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var path = Array(address.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.enumerated() { raw[i] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (path.first == 0 ? 0 : 1))
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, length) }
            }
        }
        return sent == bytes.count
    }
}
