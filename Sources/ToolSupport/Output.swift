package import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Writes every byte of `text` to `fd`, however many calls it takes; a
/// call a signal interrupted is made again. A socket is written with
/// `MSG_NOSIGNAL`, so a peer that has gone is an error (`EPIPE`), never a
/// `SIGPIPE`; any other descriptor with `write(2)`. A descriptor that
/// cannot take more now (`EAGAIN`) is an error too: for non-blocking
/// descriptors that must not block, queue instead.
package func writeAll(_ fd: Int32, _ text: String) throws(Errno) {
    var text = text
    var failure: Errno?
    text.withUTF8 { bytes in
        do throws(Errno) { try writeEvery(UnsafeRawBufferPointer(bytes), to: fd) } catch { failure = error }
    }
    if let failure { throw failure }
}

/// `writeAll` for bytes.
package func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) {
    var failure: Errno?
    bytes.withUnsafeBytes { raw in
        do throws(Errno) { try writeEvery(raw, to: fd) } catch { failure = error }
    }
    if let failure { throw failure }
}

private func writeEvery(_ bytes: UnsafeRawBufferPointer, to fd: Int32) throws(Errno) {
    var offset = 0
    var isSocket = true
    while offset < bytes.count {
        let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
        var n = isSocket ? send(fd, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL)) : write(fd, rest.baseAddress, rest.count)
        if n < 0 && isSocket && errno == ENOTSOCK {
            isSocket = false
            n = write(fd, rest.baseAddress, rest.count)
        }
        if n < 0 {
            if errno == EINTR { continue }
            throw Errno.last
        }
        offset += n
    }
}

extension Errno {
    /// The calling thread's `errno`, after a system call that failed.
    package static var last: Errno { Errno(rawValue: errno) }
}

/// Buffered writes to a file descriptor (stdout by default); flushes at 64 KiB and on `flush()`.
package struct OutputBuffer {
    package var fd: Int32 = 1
    var buffer: [UInt8] = []

    package init(fd: Int32 = 1) {
        self.fd = fd
        buffer.reserveCapacity(1 << 16)
    }

    package mutating func write(_ s: String) {
        buffer.append(contentsOf: s.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    package mutating func flush() {
        // A failure is stdout closed (a pipe to `head`): nothing more to do.
        try? writeAll(fd, buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Writes one line to standard error.
package func printError(_ message: String) {
    try? writeAll(2, message + "\n")
}

/// Writes why a command failed to standard error, each of its lines
/// (a configuration with several mistakes has one per mistake) after the
/// program's name, as a reader of many programs' errors expects.
package func printFailure(_ error: some Error) {
    let lines = "\(error)".split(separator: "\n", omittingEmptySubsequences: false)
    try? writeAll(2, lines.map { "gestured: \($0)\n" }.joined())
}
