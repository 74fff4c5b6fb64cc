package import SystemPackage

/// Lines read from a descriptor (a socket, a pipe): bytes are read in as
/// they come and taken out a line at a time, or, for a protocol of framed
/// messages, a frame at a time (`unread`, `consume`). The one reader of
/// the package's streams: the daemon's clients, act's connection, its
/// commands' standard error and its compositor's IPC, the monitor. What
/// was taken is dropped at the next `fill`, once per read: taking costs
/// nothing however many messages a read brought.
///
/// The bytes before `scanHead` are known to hold no newline, so a long line
/// that arrives in many pieces is scanned once, not once per piece.
package struct LineBuffer {
    /// The most bytes kept here (the longest line and a read): `fill`
    /// reads nothing more while they wait, and the sender is held back by
    /// the kernel's buffer.
    package let limit: Int
    private var input: [UInt8] = []
    private var inputHead = 0
    private var scanHead = 0
    /// The bytes from `inputHead` to `scanHead` are blanks only (a line of
    /// them is passed over).
    private var scannedBlank = true

    package init(limit: Int) { self.limit = limit }

    package enum FillResult: Equatable {
        /// Bytes read (0: nothing waiting, or no room).
        case read(Int)
        /// The other side closed it.
        case endOfFile
        case failed(Errno)
    }

    /// Bytes read and not yet taken as lines, complete or not.
    package var buffered: Int { input.count - inputHead }

    /// Room for more: less than `limit` bytes wait.
    package var wantsInput: Bool { buffered < limit }

    /// Reads once, at most `budget` bytes and at most the room left, through
    /// `scratch` (reused from read to read: a new buffer for each costs more
    /// than the read). A read a signal interrupted is made again
    /// (swift-system); a descriptor with nothing to give now reads 0.
    package mutating func fill(from fd: Int32, budget: Int, scratch: inout [UInt8]) -> FillResult {
        if inputHead > 0 {
            input.removeSubrange(0..<inputHead)
            scanHead -= inputHead
            inputHead = 0
        }
        let want = min(budget, limit - buffered, scratch.count)
        guard want > 0 else { return .read(0) }
        let n: Int
        do {
            n = try scratch.withUnsafeMutableBytes {
                try FileDescriptor(rawValue: fd).read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<want]))
            }
        } catch Errno.resourceTemporarilyUnavailable {
            return .read(0)
        } catch {
            return .failed(error as? Errno ?? .ioError)
        }
        if n == 0 { return .endOfFile }
        input.append(contentsOf: scratch[0..<n])
        return .read(n)
    }

    /// The next complete line, without its newline (and a carriage return
    /// before it); empty lines and lines of blanks are passed over here, in
    /// one pass over the bytes: a flood of newlines costs a scan, not a
    /// line each. Valid until the next `fill`.
    package mutating func nextLine() -> ArraySlice<UInt8>? {
        var head = inputHead
        var blank = scannedBlank
        let scanned = scanHead
        let newline: Int? = input.withUnsafeBufferPointer { bytes in
            var i = scanned
            while i < bytes.count {
                let b = bytes[i]
                if b == UInt8(ascii: "\n") {
                    guard blank else { return i }
                    // A line of blanks: passed over.
                    head = i + 1
                } else if b != 0x20 && b != 0x09 && b != 0x0d {
                    blank = false
                }
                i += 1
            }
            return nil
        }
        guard let nl = newline else {
            (inputHead, scannedBlank, scanHead) = (head, blank, input.count)
            return nil
        }
        var line = input[head..<nl]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        (inputHead, scannedBlank, scanHead) = (nl + 1, true, nl + 1)
        return line
    }

    /// The next complete line as text (invalid UTF-8 becomes U+FFFD).
    package mutating func nextText() -> String? {
        nextLine().map { String(decoding: $0, as: UTF8.self) }
    }

    /// Everything left, a line begun but not ended: for a writer that never
    /// ends its lines, once more than it may keep is waiting.
    package mutating func takeRest() -> ArraySlice<UInt8> {
        let rest = input[inputHead...]
        inputHead = input.count
        scanHead = inputHead
        scannedBlank = true
        return rest
    }

    /// The bytes read and not taken yet (valid until the next `fill`), for
    /// a protocol whose messages say their own length.
    package var unread: ArraySlice<UInt8> { input[inputHead...] }

    /// Takes the first `count` bytes of `unread` (a message read whole).
    package mutating func consume(_ count: Int) {
        inputHead = min(inputHead + count, input.count)
        scanHead = max(scanHead, inputHead)
        scannedBlank = true
    }

    /// A complete line waits (a newline among the bytes not yet scanned).
    package var hasLine: Bool { input[scanHead...].contains(UInt8(ascii: "\n")) }
}
