import Foundation
import GestureCore
import Harness
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Hostile clients against the real binary, while a well-behaved subscriber
/// receives a replayed trace: it must get exactly what `gestured replay`
/// gives for that trace, the daemon must stay up, and its memory bounded.
@Suite("Socket abuse", .serialized)
struct AbuseTests {
    static let trace = DaemonProcess.recording("hold-then-drag.phone.evemu")

    /// Resident memory of a process, KiB.
    static func rss(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// What `gestured replay` gives for the trace: the reference.
    static func replayed() throws -> [String] {
        try runGestured(["replay", trace]).out.split(separator: "\n").map(String.init)
    }

    /// A connection that connects, maybe writes `bytes`, and closes at once.
    static func hitAndRun(_ path: String, _ bytes: [UInt8]) {
        let fd = connectUnix(path)
        guard fd >= 0 else { return }
        if !bytes.isEmpty { _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
        close(fd)
    }

    @Test(
        "300 idle connections, a 2,000-connection storm with junk, half lines and a megabyte without a newline: a subscriber gets every event, memory stays bounded"
    )
    func storm() throws {
        let d = try DaemonProcess(
            ["--replay", Self.trace, "--wait-subscribers", "1"],
            config: "[daemon]\nmax-clients = 400\nmax-clients-per-user = 400\n")
        let pid = d.process.pid
        let before = Self.rss(pid)
        // Hundreds of connections that never say or read anything.
        var idle: [SocketClient] = []
        for _ in 0..<300 { idle.append(try SocketClient(path: d.socket)) }
        let withIdle = Self.rss(pid)

        // A storm from another thread while the subscriber receives the trace.
        let junk: [[UInt8]] = [
            [], Array("{\"type\":\"subscribe\"}\n".utf8), Array("{\"type\":".utf8), [0xff, 0xfe, 0x0a],
            Array("[1,2,3]\n{\"type\":\"subscribe\",\"fingers\":\"x\"}\n".utf8), Array(repeating: UInt8(ascii: "a"), count: 4096),
        ]
        let socketPath = d.socket
        let storm = Thread {
            for i in 0..<2000 { Self.hitAndRun(socketPath, junk[i % junk.count]) }
            // A megabyte without a newline, then gone.
            Self.hitAndRun(socketPath, Array(repeating: UInt8(ascii: "x"), count: 1 << 20))
        }
        let good = try SocketClient(path: d.socket)
        _ = try good.subscribe()
        storm.start()
        let events = try good.gestures(quiet: 1.5, max: 30)
        while !storm.isFinished { usleep(50_000) }

        // Exactly what the trace gives without any of this.
        let reference = try Self.replayed().compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(events.count == reference.count, "log:\n\(d.log.suffix(2000))")
        #expect(summarize(events) == summarize(reference))
        #expect(events.map { $0["phase"] as? String } == reference.map { $0["phase"] as? String })

        // Still up and answering; memory back near where the idle clients left it.
        try good.send(#"{"type":"ping"}"#)
        _ = try good.read(until: "pong")
        let after = Self.rss(pid)
        print(
            "daemon resident memory: \(before) KiB at start, \(withIdle) KiB with 300 idle clients, \(after) KiB after the storm")
        ResidentMemory.expect(after - withIdle, below: 8 * 1024, "growth from \(withIdle) KiB with idle clients")
        idle.removeAll()
        #expect(try d.stop() == 0)
    }

    @Test("more clients than max-clients: the extra ones are told busy; the others carry on")
    func tooMany() throws {
        let d = try DaemonProcess(
            ["--replay", Self.trace, "--wait-subscribers", "99"], config: "[daemon]\nmax-clients = 8\nmax-clients-per-user = 8\n")
        var clients: [SocketClient] = []
        for _ in 0..<8 { clients.append(try SocketClient(path: d.socket)) }
        for c in clients { #expect(try c.next()?["type"] as? String == "hello") }
        let extra = try SocketClient(path: d.socket)
        let refused = try extra.read(until: "error").message
        #expect(refused["code"] as? String == "busy" && refused["fatal"] as? Bool == true)
        #expect(try extra.next(timeout: 2) == nil, "the extra client is closed")
        try clients[0].send(#"{"type":"ping"}"#)
        _ = try clients[0].read(until: "pong")
        #expect(try d.stop() == 0)
    }
}
