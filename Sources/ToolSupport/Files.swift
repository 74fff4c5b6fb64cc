import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Files read whole, with a limit on their size, and written whole.

/// A file that could not be read, with the path and the system's reason.
package struct FileError: Error, CustomStringConvertible {
    package var path: String
    package var reason: String
    package var description: String { "\(path): \(reason)" }
    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}

/// Reads a whole file as UTF-8 text (invalid bytes become U+FFFD), straight
/// into the string's own storage: a 45 MB trace is read once, not copied.
package func readTextFile(_ path: String, limit: Int = 1 << 30) throws(FileError) -> String {
    try withRegularFile(path, limit: limit) { fd, size throws(FileError) in
        var failure: FileError?
        let text = String(unsafeUninitializedCapacity: size) { buffer in
            do throws(FileError) {
                return try readAll(fd, into: buffer, path: path)
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        return text
    }
}

/// A regular file's bytes, as `readTextFile` reads them, for readers that
/// check the encoding themselves (TOML must be UTF-8).
package func readFileBytes(_ path: String, limit: Int = 1 << 30) throws(FileError) -> [UInt8] {
    try withRegularFile(path, limit: limit) { fd, size throws(FileError) in
        var failure: FileError?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            do throws(FileError) {
                count = try readAll(fd, into: buffer, path: path)
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }
}

/// What a file gives until its end, at most `limit` bytes (the rest is
/// left unread): for files whose size says nothing of what they hold, as
/// /proc's report 0.
package func readUntilEnd(_ path: String, limit: Int) throws(FileError) -> [UInt8] {
    let fd = try openForReading(path)
    defer { try? fd.close() }
    var bytes = [UInt8](repeating: 0, count: limit)
    let count = try bytes.withUnsafeMutableBufferPointer { buffer throws(FileError) in
        try readAll(fd, into: buffer, path: path)
    }
    bytes.removeLast(limit - count)
    return bytes
}

/// Opens `path` to read it, non-blocking: a FIFO would wait for a writer.
private func openForReading(_ path: String) throws(FileError) -> FileDescriptor {
    do {
        return try FileDescriptor.open(path, .readOnly, options: [.nonBlocking, .closeOnExec])
    } catch {
        throw FileError(path: path, reason: "\(error)")
    }
}

/// Opens `path` (non-blocking: a FIFO would wait for a writer), and calls
/// `body` with it and its size if it is a regular file of at most `limit`
/// bytes; otherwise an error saying what it is.
private func withRegularFile<T>(
    _ path: String, limit: Int, _ body: (FileDescriptor, Int) throws(FileError) -> T
) throws(FileError) -> T {
    let fd = try openForReading(path)
    defer { try? fd.close() }
    var st = stat()
    guard fstat(fd.rawValue, &st) == 0 else { throw FileError(path: path, reason: "\(Errno.last)") }
    switch st.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw FileError(path: path, reason: "is a directory")
    default: throw FileError(path: path, reason: "is not a regular file (a device, a pipe or a socket); give a file")
    }
    if st.st_size > limit {
        throw FileError(path: path, reason: "is \(st.st_size) bytes, more than the \(limit) this file may have")
    }
    return try body(fd, Int(st.st_size))
}

/// Reads until `buffer` is full or the file ends (what is added to a file
/// while it is read is left out: the file as it was when it was opened);
/// swift-system retries a read a signal interrupted. Returns the bytes read.
private func readAll(
    _ fd: FileDescriptor, into buffer: UnsafeMutableBufferPointer<UInt8>, path: String
) throws(FileError)
    -> Int
{
    var count = 0
    while count < buffer.count {
        let n: Int
        do {
            n = try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[count...]))
        } catch {
            throw FileError(path: path, reason: "\(error)")
        }
        if n == 0 { break }
        count += n
    }
    return count
}

/// The most a configuration file may hold (1 MiB: the longest real one is a
/// few KiB; a drop-in directory may hold many).
package let configurationFileLimit = 1 << 20

/// Writes `text` to `path` through a temporary file beside it, renamed into
/// place, so a reader never sees half a file.
package func writeTextFile(_ path: String, _ text: String) throws(FileError) {
    let temporary = path + ".tmp\(getpid())"
    do {
        let fd = try FileDescriptor.open(
            temporary, .writeOnly, options: [.create, .truncate, .closeOnExec],
            permissions: [.ownerReadWrite, .groupRead, .otherRead])
        try fd.closeAfter { _ = try fd.writeAll(text.utf8) }
    } catch {
        unlink(temporary)
        throw FileError(path: path, reason: "\(error)")
    }
    guard rename(temporary, path) == 0 else {
        let reason = "\(Errno.last)"
        unlink(temporary)
        throw FileError(path: path, reason: reason)
    }
}

package func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

/// Where a symbolic link points, or nil.
package func readLink(_ path: String) -> String? {
    var buffer = [UInt8](repeating: 0, count: 4096)
    let n = buffer.withUnsafeMutableBytes { readlink(path, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count) }
    return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
}

/// Names in a directory ending in `suffix`, sorted; empty if it does not exist.
package func listDirectory(_ path: String, suffix: String) -> [String] {
    ((try? directoryEntries(path)) ?? []).map(\.name).filter { $0.hasSuffix(suffix) }
}

/// The entries of a directory (no hidden ones), sorted, each with whether it is a directory.
package func directoryEntries(_ path: String) throws(FileError) -> [(name: String, isDirectory: Bool)] {
    guard let dir = opendir(path) else { throw FileError(path: path, reason: "\(Errno.last)") }
    defer { closedir(dir) }
    var out: [(String, Bool)] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if name.hasPrefix(".") { continue }
        var st = stat()
        let isDirectory = stat(path + "/" + name, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
        out.append((name, isDirectory))
    }
    return out.sorted { $0.0 < $1.0 }
}
