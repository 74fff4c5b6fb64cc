import Foundation
import GestureDaemon
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Where the package's build products are: the directory of the running test binary.
public enum BuildProducts {
    public static var directory: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var dir = (exe as NSString).deletingLastPathComponent
        // swift test runs .build/<triple>/debug/gesturedPackageTests.xctest
        if dir.hasSuffix(".xctest") { dir = (dir as NSString).deletingLastPathComponent }
        return dir
    }

    /// The `gestured` executable built beside the tests, or `$GESTURED_BIN`
    /// (figures from a release build: docs/performance.md).
    public static var gestured: String {
        ProcessInfo.processInfo.environment["GESTURED_BIN"] ?? directory + "/gestured"
    }

    /// The package's root (for Recordings/).
    public static var packageRoot: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }

    /// Where `scripts/build-harness.sh` puts the umockdev harness.
    public static var harnessDirectory: String { packageRoot + "/.build/harness" }

    /// virtme-ng's `vng`: the one `make setup` installs under .build/tools,
    /// else one on PATH; nil when there is none.
    public static var vng: String? {
        let fm = FileManager.default
        let own = packageRoot + "/.build/tools/bin/vng"
        if fm.isExecutableFile(atPath: own) { return own }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { "\($0)/vng" }.first { fm.isExecutableFile(atPath: $0) }
    }
}

/// Something went wrong talking to a child process or a socket.
public struct ChannelError: Error, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}

/// How much longer the tests wait under a sanitizer (`make sanitize` sets
/// GESTURED_SANITIZER): AddressSanitizer makes the daemon several times
/// slower, and quiet windows and timeouts sized for a normal build then end
/// before its events arrive. Only waits are scaled; no expectation changes.
public enum Timing {
    public static let scale: Double = ProcessInfo.processInfo.environment["GESTURED_SANITIZER"] == nil ? 1 : 5
}

/// Reads lines from a file descriptor with a timeout.
public final class LineChannel {
    public let fd: Int32
    private var pending: [UInt8] = []
    public private(set) var closed = false

    public init(fd: Int32) { self.fd = fd }

    /// The next line if one has arrived by now, without waiting; nil if none has.
    public func lineIfReady() -> String? {
        while true {
            if let nl = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<nl], as: UTF8.self)
                pending.removeSubrange(...nl)
                return line
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard !closed, poll(&p, 1, 0) == 1 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n <= 0 {
                // A failed read (the peer reset) ends the stream too.
                closed = true
                return nil
            }
            pending.append(contentsOf: chunk[0..<n])
        }
    }

    /// The next line, waiting at most `timeout` seconds (times `Timing.scale`); nil at end of stream.
    public func readLine(timeout: Double) throws -> String? {
        let timeout = timeout * Timing.scale
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<nl], as: UTF8.self)
                pending.removeSubrange(...nl)
                return line
            }
            if closed { return nil }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else {
                throw ChannelError("no line within \(timeout) s (have: \(String(decoding: pending, as: UTF8.self)))")
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, Int32(left * 1000) + 1)
            if r < 0 && errno == EINTR { continue }
            if r <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n < 0 && errno != ECONNRESET {
                // Not the peer's doing: a descriptor closed under the test
                // (by a second close elsewhere in the process) is named, not
                // taken for the peer hanging up.
                throw ChannelError("read from descriptor \(fd): \(String(cString: strerror(errno)))")
            }
            if n <= 0 {
                closed = true
                continue
            }
            pending.append(contentsOf: chunk[0..<n])
        }
    }
}

/// A blocking stream socket connected to `path`, or -1 with `errno` set.
/// Connecting and sending give up after 30 s (times `Timing.scale`; EAGAIN)
/// instead of blocking a test for ever on a full backlog or a peer that
/// stopped reading.
public func connectUnix(_ path: String) -> Int32 {
    guard let addr = UnixAddress(path) else {
        errno = ENAMETOOLONG
        return -1
    }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return -1 }
    var limit = timeval(tv_sec: Int(30 * Timing.scale), tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    let r = addr.connect(fd)
    guard r == 0 else {
        let saved = errno
        close(fd)
        errno = saved
        return -1
    }
    return fd
}

/// A client of the daemon's socket, for tests: raw lines in and out.
public final class SocketClient {
    /// The connection; -1 once `hangUp` closed it.
    public private(set) var fd: Int32
    public let lines: LineChannel

    public init(path: String, timeout: Double = 5) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let fd = connectUnix(path)
            if fd >= 0 {
                self.fd = fd
                lines = LineChannel(fd: fd)
                return
            }
            let why = String(cString: strerror(errno))
            if Date() > deadline { throw ChannelError("cannot connect to \(path): \(why)") }
            usleep(10_000)
        }
    }

    deinit { hangUp() }

    /// Closes the connection now (once: its number may be another's after).
    public func hangUp() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    public func send(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        try sendRaw(bytes)
    }

    public func sendRaw(_ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw ChannelError("send: \(String(cString: strerror(errno)))") }
            off += n
        }
    }

    /// The next line parsed as a JSON object.
    public func next(timeout: Double = 5) throws -> [String: Any]? {
        guard let line = try lines.readLine(timeout: timeout) else { return nil }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw ChannelError("not a JSON object: \(line)")
        }
        return object
    }

    /// Reads messages until one of `type` arrives; returns it and everything before it.
    public func read(until type: String, timeout: Double = 5) throws -> (message: [String: Any], before: [[String: Any]]) {
        var before: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(timeout * Timing.scale)
        while true {
            guard let m = try next(timeout: max(0.01, deadline.timeIntervalSinceNow / Timing.scale)) else {
                throw ChannelError("connection closed while waiting for \(type); got \(before.count) messages")
            }
            if m["type"] as? String == type { return (m, before) }
            before.append(m)
        }
    }

    /// hello, then subscribe with `filters` (a JSON fragment such as `"gestures":["tap"]`), then subscribed.
    @discardableResult
    public func subscribe(_ filters: String = "", timeout: Double = 5) throws -> [String: Any] {
        let hello = try next(timeout: timeout)
        guard hello?["type"] as? String == "hello" else { throw ChannelError("expected hello, got \(String(describing: hello))") }
        try send(#"{"type":"subscribe""# + (filters.isEmpty ? "" : "," + filters) + "}")
        return try read(until: "subscribed", timeout: timeout).message
    }

    /// Gesture summaries ("tap fingers=1", "drag ended fingers=2 direction=…") received until `quiet` seconds pass with nothing.
    public func gestures(quiet: Double, max: Double = 10) throws -> [[String: Any]] {
        var out: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(max * Timing.scale)
        while Date() < deadline {
            do {
                guard let m = try next(timeout: quiet) else { break }
                if m["type"] as? String == "gesture" { out.append(m) }
            } catch is ChannelError {
                break
            }
        }
        return out
    }
}

/// "gesture[ phase] fingers=N[ direction=D]" for discrete gestures and ends of continuous ones,
/// the way `.expect` files list them.
public func summarize(_ events: [[String: Any]]) -> [String] {
    events.compactMap { e in
        let phase = e["phase"] as? String ?? ""
        guard ["recognized", "ended", "cancelled"].contains(phase) else { return nil }
        var s = e["gesture"] as? String ?? "?"
        if phase == "cancelled" { s += " cancelled" }
        s += " fingers=\(e["fingers"] as? Int ?? 0)"
        if let d = e["direction"] as? String { s += " direction=\(d)" }
        if let edge = e["edge"] as? String { s += " edge=\(edge)" }
        return s
    }
}
