import Foundation
import Harness
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Gestures go to the user at the screen: the one whose login session
/// logind calls active on the daemon's seat (logind played by
/// python-dbusmock on a private bus), and typing keys is for that user only.
@Suite("Delivery to the session at the screen", .serialized)
struct SessionTests {
    static let tap = DaemonProcess.recording("tap-1f.phone.evemu")

    /// A client that subscribes to taps (saying it will type keys), asks to
    /// type `alt+Left` when told to, and prints every line it gets for
    /// `seconds`.
    static let client = """
        import socket, sys, time
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[1])
        s.sendall(b'{"type":"subscribe","gestures":["tap"],"keys":true}\\n')
        if sys.argv[3] == 'keys':
            s.sendall(b'{"type":"keys","keys":"alt+Left"}\\n')
        s.settimeout(0.2)
        end = time.time() + float(sys.argv[2])
        pending = b''
        while time.time() < end:
            try:
                data = s.recv(65536)
            except socket.timeout:
                continue
            if not data:
                break
            pending += data
            while b'\\n' in pending:
                line, pending = pending.split(b'\\n', 1)
                print(line.decode(), flush=True)
        """

    /// Runs `client` as `uid` against `socket` for `seconds`.
    static func start(_ uid: UInt32, _ socket: String, seconds: Double, keys: Bool) throws -> Child {
        try Child(
            Requirement.asUser(uid, ["/usr/bin/python3", "-c", client, socket, "\(seconds)", keys ? "keys" : "-"]))
    }

    /// The types of the lines, with `gesture` for each tap.
    static func kinds(_ output: String) -> [String] {
        output.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]).flatMap { m in
                guard let type = m["type"] as? String else { return nil }
                return type == "error" ? "error " + (m["code"] as? String ?? "") : type
            }
        }
    }

    @Test(
        "two users' clients: only the active session's user gets gestures; after a switch the other does, each told paused or resumed; keys only for the user at the screen",
        .requires(.root, LogindMock.requirement))
    func activeSessionOnly() throws {
        let logind = try LogindMock()
        // Two strangers: neither root nor what a daemon started as root becomes.
        let (first, second) = (Requirement.strangerUID, Requirement.strangerUID + 1)
        try logind.addSession("c2", uid: second, name: "second")
        try logind.addSession("c1", uid: first, name: "first")
        let d = try DaemonProcess(
            ["--replay", Self.tap, "--loop"], config: "[daemon]\nsocket-mode = \"0666\"\n", systemBus: logind.address)
        chmod(d.directory, 0o755)
        try d.waitForLog("seat0: the active session is uid \(first)'s", timeout: 10)
        let atScreen = try Self.start(first, d.socket, seconds: 6, keys: true)
        let other = try Self.start(second, d.socket, seconds: 6, keys: true)
        usleep(2_500_000)
        try logind.activate("c2")
        try d.waitForLog("seat0: the active session is uid \(second)'s", timeout: 10)
        let a = Self.kinds(try atScreen.finish(timeout: 30).out)
        let b = Self.kinds(try other.finish(timeout: 30).out)
        print("sessions: uid \(first) got \(a), uid \(second) got \(b)")
        // The user at the screen first: taps, then paused, then nothing.
        let paused = try #require(a.firstIndex(of: "paused"), "\(a)")
        #expect(a[..<paused].contains("gesture") && !a[paused...].contains("gesture"), "\(a)")
        #expect(!a.contains("error not-at-screen"), "\(a)")
        // The other: paused from the start, its keys refused, then resumed and taps.
        let resumed = try #require(b.firstIndex(of: "resumed"), "\(b)")
        #expect(b.firstIndex(of: "paused").map { $0 < resumed } == true, "\(b)")
        #expect(!b[..<resumed].contains("gesture") && b[resumed...].contains("gesture"), "\(b)")
        #expect(b[..<resumed].contains("error not-at-screen"), "\(b)")
        #expect(try d.stop() == 0)
    }

    @Test("no logind on the system bus: every allowed client gets gestures, and the log says why once")
    func withoutLogind() throws {
        let d = try DaemonProcess(["--replay", Self.tap, "--wait-subscribers", "1"])
        let c = try SocketClient(path: d.socket)
        try c.subscribe()
        #expect(summarize(try c.gestures(quiet: 0.7)) == ["tap fingers=1"])
        #expect(d.log.components(separatedBy: "sessions cannot be told apart").count == 2, "\(d.log)")
        #expect(try d.stop() == 0)
    }
}
