import Foundation
import GestureCore
import Testing
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What every tool of the package shares: lines from a descriptor, files
/// read within a limit, log-safe text and its rate, socket addresses.
@Suite("Tool support")
struct ToolSupportTests {
    @Test("a rate: a burst of its count, then its count a second, never more")
    func rateBucket() {
        var b = RateBucket(perSecond: 5)
        let t0 = Timestamp(microseconds: 1_000_000)
        #expect((0..<7).map { _ in b.take(now: t0) } == [true, true, true, true, true, false, false])
        #expect(b.take(now: t0 + .milliseconds(100)) == false)
        #expect(b.take(now: t0 + .milliseconds(200)) == true)
        #expect(b.take(now: t0 + .milliseconds(200)) == false)
        // Idle a long while: the burst again, not more.
        let later = t0 + .milliseconds(60_000)
        #expect((0..<6).map { _ in b.take(now: later) } == [true, true, true, true, true, false])
    }

    @Test("framed messages: taken whole from what was read, however they were split, the rest kept")
    func frames() {
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        defer {
            close(fds[0])
            close(fds[1])
        }
        var buffer = LineBuffer(limit: 1024)
        var scratch = [UInt8](repeating: 0, count: 64)
        var taken: [[UInt8]] = []
        // Messages of a length byte and that many bytes, split across writes.
        for chunk in [[3, 1, 2], [3, 2, 9], [9, 0, 1, 7, 4]] as [[UInt8]] {
            _ = chunk.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
            _ = buffer.fill(from: fds[0], budget: 64, scratch: &scratch)
            while let n = buffer.unread.first.map(Int.init), buffer.unread.count > n {
                taken.append(Array(buffer.unread.dropFirst().prefix(n)))
                buffer.consume(n + 1)
            }
        }
        #expect(taken == [[1, 2, 3], [9, 9], [], [7]])
        #expect(Array(buffer.unread) == [4])
    }

    /// A pipe with `chunks` written to it one after another, read by a `LineBuffer`.
    static func lines(_ chunks: [String], limit: Int = 1024) -> [String] {
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        defer {
            close(fds[0])
            close(fds[1])
        }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        var buffer = LineBuffer(limit: limit)
        var scratch = [UInt8](repeating: 0, count: 256)
        var out: [String] = []
        for chunk in chunks {
            _ = chunk.withCString { write(fds[1], $0, strlen($0)) }
            while case .read(let n) = buffer.fill(from: fds[0], budget: 256, scratch: &scratch), n > 0 {}
            while let line = buffer.nextText() { out.append(line) }
        }
        return out
    }

    @Test(
        "LineBuffer: lines split wherever the writes fall; blank lines passed over; a line keeps its leading blanks; CRLF taken")
    func lineBuffer() {
        #expect(Self.lines(["{\"a\":1}\n{\"b\"", ":2}\n"]) == ["{\"a\":1}", "{\"b\":2}"])
        #expect(Self.lines(["\n\n \t\n\r\n", "x\n", "\n", "  y \r\n"]) == ["x", "  y "])
        #expect(Self.lines([String(repeating: "\n", count: 5000) + "last\n"], limit: 8192) == ["last"])
        #expect(Self.lines(["part", "ial", ""]).isEmpty)
        #expect(Self.lines(["\t\t", " z\n"]) == ["\t\t z"])
    }

    @Test("LineBuffer: a flood of newlines is passed over in one scan, whatever the writes")
    func blankFlood() {
        let flood = (0..<20).map { _ in String(repeating: "\n", count: 200) } + ["end\n"]
        #expect(Self.lines(flood) == ["end"])
    }

    @Test(
        "readTextFile: a regular file within the limit; a larger one, a directory, a device and a FIFO refused, each saying why")
    func readingFiles() throws {
        let dir = NSTemporaryDirectory() + "gestured-toolsupport-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try writeTextFile(dir + "/a.toml", "x = 1\n")
        #expect(try readTextFile(dir + "/a.toml") == "x = 1\n")
        try writeTextFile(dir + "/big", String(repeating: "y", count: 2000))
        #expect(throws: FileError.self) { try readTextFile(dir + "/big", limit: 1000) }
        #expect(throws: FileError.self) { try readTextFile(dir) }
        #expect(throws: FileError.self) { try readTextFile("/dev/zero") }
        #expect(mkfifo(dir + "/fifo", 0o600) == 0)
        #expect(throws: FileError.self) { try readTextFile(dir + "/fifo") }
        do {
            _ = try readTextFile(dir + "/missing")
            Issue.record("a missing file was read")
        } catch {
            #expect("\(error)".contains(dir + "/missing"), "\(error)")
        }
    }

    @Test("logSafe: control characters written out, long text cut")
    func safeText() {
        #expect(logSafe("a\u{1b}[31mb\nc") == "a\\x1b[31mb\\x0ac")
        #expect(logSafe(String(repeating: "x", count: 300), limit: 10) == String(repeating: "x", count: 10) + "…")
        #expect(logSafe("é ok") == "é ok")
    }

    @Test("RepeatLimiter: a burst, then a count of what was left unsaid when the window turns")
    func repeatLimiter() {
        var limiter = RepeatLimiter(burst: 2, window: .milliseconds(1000))
        var said: [String] = []
        let say: (String) -> Void = { said.append($0) }
        for i in 0..<5 { limiter.note(now: Timestamp(microseconds: Int64(i) * 1000), say) { "line \(i)" } }
        #expect(said == ["line 0", "line 1"])
        limiter.note(now: Timestamp(microseconds: 2_000_000), say) { "line 5" }
        #expect(said == ["line 0", "line 1", "... and 3 more like it in 1 s, not logged", "line 5"])
    }

    @Test("UnixAddress: a path of at most 107 bytes; longer ones refused")
    func unixAddress() {
        #expect(UnixAddress("/run/gestured/gestured.sock") != nil)
        #expect(UnixAddress("/" + String(repeating: "a", count: 106)) != nil)
        #expect(UnixAddress("/" + String(repeating: "a", count: 107)) == nil)
    }

    @Test("a mistyped name gets the one known name a few edits away; a far or ambiguous one gets none")
    func suggestions() {
        let known = ["socket", "socket-group", "seat", "deliver", "tap.maxDuration", "tap.maxDistance"]
        #expect(Suggestion.closest(to: "sokcet", among: known) == "socket")
        #expect(Suggestion.closest(to: "socket-gruop", among: known) == "socket-group")
        #expect(Suggestion.closest(to: "Seat", among: known) == "seat")
        #expect(Suggestion.closest(to: "tap.maxDurtion", among: known) == "tap.maxDuration")
        #expect(Suggestion.closest(to: "colour", among: known) == nil)
        #expect(Suggestion.closest(to: "tap.maxD", among: ["tap.maxDa", "tap.maxDb"]) == nil)
        #expect(
            Suggestion.unknown("key", "delivr", known: ["deliver", "seat"], context: " in [daemon]")
                == "unknown key 'delivr' in [daemon]; did you mean 'deliver'? known: deliver, seat")
        #expect(Suggestion.unknown("key", "zzz", known: ["seat"]) == "unknown key 'zzz'; known: seat")
    }
}
