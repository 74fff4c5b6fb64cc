#if canImport(Glibc)
    import Glibc
#endif

/// A Unix socket address: a path, or with a leading `@` a name in the
/// abstract namespace (as `$NOTIFY_SOCKET` may give).
package struct UnixAddress {
    private var storage = sockaddr_un()
    private let length: socklen_t

    /// Nil when the path does not fit `sun_path` (107 bytes and a NUL).
    package init?(_ path: String) {
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: storage.sun_path) else { return nil }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        // An abstract name's length counts exactly its bytes; a path's includes the NUL.
        length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
    }

    /// `connect(2)` of `fd` to this address; its result.
    package func connect(_ fd: Int32) -> Int32 { withSockaddr { Glibc.connect(fd, $0, $1) } }

    /// `bind(2)` of `fd` to this address; its result.
    package func bind(_ fd: Int32) -> Int32 { withSockaddr { Glibc.bind(fd, $0, $1) } }

    private func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
