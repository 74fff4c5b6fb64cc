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

    /// A client that subscribes to taps (saying it will type keys and
    /// click, and with `argv[4]`'s fields added to its `subscribe`), sends
    /// the request `argv[5]` (by default, to type `alt+Left`) once
    /// (`argv[3]` `once`), every half second (`every`) or never (`-`), and
    /// prints every line it gets for `argv[2]` seconds.
    static let client = """
        import socket, sys, time
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[1])
        s.sendall(b'{"type":"subscribe","gestures":["tap"],"keys":true,"pointer":true' + sys.argv[4].encode() + b'}\\n')
        request = (sys.argv[5] if len(sys.argv) > 5 else '{"type":"keys","keys":"alt+Left"}').encode() + b'\\n'
        s.settimeout(0.1)
        end = time.time() + float(sys.argv[2])
        asked = 0
        pending = b''
        while time.time() < end:
            if sys.argv[3] != '-' and time.time() >= asked + 0.5 and (asked == 0 or sys.argv[3] == 'every'):
                asked = time.time()
                s.sendall(request)
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

    /// A right click at the middle of the picture.
    static let click = #"{"type":"pointer","button":"right","x":0.5,"y":0.5}"#

    /// How often `client` asks for keys.
    enum Keys: String {
        case never = "-"
        case once, every
    }

    /// Runs `client` as `uid` against `socket` for `seconds`, sending `request` (nil: keys).
    static func start(
        _ uid: UInt32, _ socket: String, seconds: Double, keys: Keys, subscribing extra: String = "",
        request: String? = nil
    ) throws -> Child {
        let arguments = [socket, "\(seconds)", keys.rawValue, extra] + (request.map { [$0] } ?? [])
        return try Child(Requirement.asUser(uid, ["/usr/bin/python3", "-c", client] + arguments))
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
        "a user's chords are limited per user, not per connection: sixteen connections asking for ten chords each at once get twenty through between them"
    )
    func ratesPerUser() throws {
        let d = try DaemonProcess(["--replay", Self.tap, "--loop"])
        // The test's own user (the daemon's, or root) is always at the screen.
        var clients: [SocketClient] = []
        for _ in 0..<16 {
            let c = try SocketClient(path: d.socket)
            _ = try c.subscribe(#""gestures":["tap"],"keys":true"#)
            clients.append(c)
        }
        for c in clients {
            for _ in 0..<10 { try c.send(#"{"type":"keys","keys":"ctrl+c"}"#) }
        }
        var codes: [String: Int] = [:]
        for c in clients {
            var answers = 0
            while answers < 10, let m = try c.next(timeout: 10) {
                guard let type = m["type"] as? String, type == "typed" || type == "error" else { continue }
                codes[type == "typed" ? "typed" : (m["code"] as? String ?? "?"), default: 0] += 1
                answers += 1
            }
        }
        print("one user's 160 chords at once over 16 connections: \(codes)")
        // Without uinput the ones let through are answered no-keyboard.
        let through = (codes["typed"] ?? 0) + (codes["no-keyboard"] ?? 0)
        #expect(through == 20 && codes["rate-limited"] == 140, "\(codes)")
        #expect(try d.stop() == 0)
    }

    @Test(
        "two users' clients: only the active session's user gets gestures; after a switch the other does, each told paused or resumed; keys only for the user at the screen",
        .requires(.root, LogindMock.requirement))
    func activeSessionOnly() throws {
        let sessions = try TwoSessions(replaying: Self.tap)
        let (logind, d, first, second) = (sessions.logind, sessions.daemon, sessions.first, sessions.second)
        let atScreen = try Self.start(first, d.socket, seconds: 6, keys: .once)
        let other = try Self.start(second, d.socket, seconds: 6, keys: .once)
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

    @Test(
        "no logind on the system bus: nobody is known to be at the screen; a stranger's client is paused, gets no gesture, types no key and makes no click, the daemon's own user's gets taps and no more clicks than the rate; the log says why once",
        .requires(.root))
    func withoutLogind() throws {
        let d = try DaemonProcess(
            ["--replay", Self.tap, "--loop"], config: "[daemon]\nsocket-mode = \"0666\"\n")
        chmod(d.directory, 0o755)
        let stranger = try Self.start(Requirement.strangerUID, d.socket, seconds: 3, keys: .once)
        let clicking = try Self.start(Requirement.strangerUID, d.socket, seconds: 3, keys: .once, request: Self.click)
        let own = try SocketClient(path: d.socket)
        try own.subscribe(#""gestures":["tap"]"#)
        // The looped replay taps about once a trace; the first may come
        // late on a loaded machine, so wait for it rather than for quiet.
        var first: [String] = []
        for _ in 0..<10 where first.isEmpty {
            first = summarize([try own.read(until: "gesture", timeout: 10).message])
        }
        #expect(first == ["tap fingers=1"])
        let k = Self.kinds(try stranger.finish(timeout: 30).out)
        #expect(k.contains("paused") && !k.contains("gesture") && !k.contains("resumed"), "\(k)")
        #expect(k.contains("error not-at-screen"), "\(k)")
        let c = Self.kinds(try clicking.finish(timeout: 30).out)
        #expect(c.contains("error not-at-screen") && !c.contains("clicked"), "\(c)")
        // The daemon's own user: a burst of clicks beyond the rate, the rest
        // refused (the first answered by the pointer, or without uinput by why not).
        for _ in 0..<8 { try own.send(Self.click) }
        var answers: [String] = []
        while answers.count < 8 {
            let (m, before) = try own.read(until: "error", timeout: 10)
            answers += before.filter { $0["type"] as? String == "clicked" }.map { _ in "clicked" }
            answers.append(m["code"] as? String ?? "")
        }
        print("clicks beyond the rate: \(answers)")
        #expect(answers.filter { $0 == "rate-limited" }.count == 3, "\(answers)")
        let said = "nobody is known to be at the screen"
        #expect(d.log.components(separatedBy: said).count == 2, "\(d.log)")
        #expect(d.log.contains("deliver = \"everyone\""), "\(d.log)")
        #expect(try d.stop() == 0)
    }

    /// A daemon replaying taps for ever, its socket open to the strangers, on `logind`'s bus.
    static func daemon(_ logind: FakeLogind) throws -> DaemonProcess {
        let d = try DaemonProcess(
            ["--replay", Self.tap, "--loop"], config: "[daemon]\nsocket-mode = \"0666\"\n", systemBus: logind.address)
        chmod(d.directory, 0o755)
        return d
    }

    @Test(
        "logind that stalls through a session switch, then errs: the user who was at the screen is paused at once and gets nothing more; nobody is let in until logind answers again",
        .requires(.root, FakeLogind.requirement))
    func failsClosed() throws {
        let (first, second) = (Requirement.strangerUID, Requirement.strangerUID + 1)
        let logind = try FakeLogind(uid: first, session: "c1")
        let d = try Self.daemon(logind)
        try d.waitForLog("seat0: the active session is uid \(first)'s", timeout: 10)
        let a = try Self.start(first, d.socket, seconds: 30, keys: .never)
        let b = try Self.start(second, d.socket, seconds: 30, keys: .once)
        usleep(1_500_000)
        // The switch, while logind does not answer: everyone is paused at
        // once (the signal says the active session changed), and the
        // question times out.
        try logind.set(mode: "stall")
        try logind.activate("c2", uid: second)
        try d.waitForLog("seat0: logind has not confirmed who is at the screen", timeout: 10)
        try d.waitForLog("did not say the active session of seat0", timeout: 20)
        usleep(1_000_000)
        // Failing outright, asked again after a second, then two (a
        // question asked meanwhile may still stall until its timeout).
        try logind.set(mode: "error")
        try d.waitForLog("logind is failing", timeout: 25)
        usleep(1_500_000)
        try logind.set(mode: "answer")
        try logind.activate("c2", uid: second)
        try d.waitForLog("seat0: the active session is uid \(second)'s", timeout: 10)
        let ka = Self.kinds(try a.finish(timeout: 30).out)
        let kb = Self.kinds(try b.finish(timeout: 30).out)
        print("fails closed: uid \(first) got \(ka), uid \(second) got \(kb)")
        let paused = try #require(ka.firstIndex(of: "paused"), "\(ka)")
        #expect(ka[..<paused].contains("gesture") && !ka[paused...].contains("gesture"), "\(ka)")
        #expect(!ka.contains("resumed"), "\(ka)")
        let resumed = try #require(kb.firstIndex(of: "resumed"), "\(kb)")
        #expect(!kb[..<resumed].contains("gesture") && kb[resumed...].contains("gesture"), "\(kb)")
        #expect(kb[..<resumed].contains("error not-at-screen"), "\(kb)")
        #expect(try d.stop() == 0)
    }

    /// A client that subscribes to taps (saying it will type keys) and
    /// prints each line it gets after the time it got it (seconds since the
    /// epoch); with `argv[3]` `keys`, it also asks for a chord each time it
    /// has read something, or 20 ms went by, and prints `sent TIME` before each.
    static let stampingClient = """
        import socket, sys, time
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[1])
        s.sendall(b'{"type":"subscribe","gestures":["tap"],"keys":true}\\n')
        s.settimeout(0.02)
        end = time.time() + float(sys.argv[2])
        pending = b''
        while time.time() < end:
            if sys.argv[3] == 'keys':
                print('sent %f' % time.time(), flush=True)
                s.sendall(b'{"type":"keys","keys":"ctrl+c"}\\n')
            try:
                data = s.recv(65536)
            except socket.timeout:
                continue
            if not data:
                break
            pending += data
            while b'\\n' in pending:
                line, pending = pending.split(b'\\n', 1)
                print('%f %s' % (time.time(), line.decode()), flush=True)
        """

    /// The lines `stampingClient` printed: when, and what (its sends as `sent`).
    static func stamped(_ output: String) -> [(at: Double, kind: String)] {
        output.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.first == "sent", parts.count == 2, let t = Double(parts[1]) { return (t, "sent") }
            guard parts.count == 2, let t = Double(parts[0]),
                let kind = Self.kinds(String(parts[1])).first
            else { return nil }
            return (t, kind)
        }
    }

    @Test(
        "a session switch while logind is busy (its answers and its signal four seconds late): the user who left gets no gesture 1.5 s after the switch; the user who came is resumed once logind's answers say so",
        .requires(.root, FakeLogind.requirement))
    func switchUnderLoad() throws {
        let (first, second) = (Requirement.strangerUID, Requirement.strangerUID + 1)
        let logind = try FakeLogind(uid: first, session: "c1")
        let d = try Self.daemon(logind)
        try d.waitForLog("seat0: the active session is uid \(first)'s", timeout: 10)
        let a = try Child(Requirement.asUser(first, ["/usr/bin/python3", "-c", Self.stampingClient, d.socket, "16", "-"]))
        let b = try Child(Requirement.asUser(second, ["/usr/bin/python3", "-c", Self.stampingClient, d.socket, "16", "-"]))
        usleep(3_000_000)
        let lateness = 4.0
        try logind.set(delay: lateness)
        try logind.activate("c2", uid: second)
        let switched = Date().timeIntervalSince1970
        let ka = Self.stamped(try a.finish(timeout: 30).out)
        let kb = Self.stamped(try b.finish(timeout: 30).out)
        let lastTap = ka.last { $0.kind == "gesture" }?.at ?? 0
        let resumed = kb.first { $0.kind == "resumed" }?.at
        print(
            "switch under a busy logind: the user who left got its last tap \(String(format: "%.2f", lastTap - switched)) s after the switch, was paused at \(ka.first { $0.kind == "paused" }.map { String(format: "%.2f", $0.at - switched) } ?? "never") s; the user who came was resumed at \(resumed.map { String(format: "%.2f", $0 - switched) } ?? "never") s (logind answered from \(lateness) s)"
        )
        #expect(ka.contains { $0.kind == "gesture" && $0.at < switched }, "\(ka)")
        #expect(lastTap - switched < 1.5 * Timing.scale, "a tap \(lastTap - switched) s after the switch: \(ka)")
        #expect(ka.contains { $0.kind == "paused" && $0.at > switched }, "\(ka)")
        // Who is at the screen takes two answers (the seat's session, then its user), each late.
        let came = try #require(resumed, "\(kb) \(d.log)")
        #expect(came - switched < 2 * lateness + 2 * Timing.scale, "resumed \(came - switched) s after the switch")
        #expect(kb.contains { $0.kind == "gesture" && $0.at > came }, "\(kb)")
        #expect(try d.stop() == 0)
    }

    @Test(
        "a flood of 5,000 LockedHint changes ending locked, logind answering 0.3 s late, while the user at the screen asks for chords as fast as they are answered: no chord asked after the lock is let through",
        .requires(.root, FakeLogind.requirement))
    func lockFlood() throws {
        let uid = Requirement.strangerUID
        let logind = try FakeLogind(uid: uid, session: "c1")
        let d = try Self.daemon(logind)
        try d.waitForLog("seat0: the active session is uid \(uid)'s", timeout: 10)
        let client = try Child(Requirement.asUser(uid, ["/usr/bin/python3", "-c", Self.stampingClient, d.socket, "6", "keys"]))
        usleep(1_500_000)
        try logind.set(delay: 0.3)
        try logind.flip(5000)
        let locked = Date().timeIntervalSince1970
        let lines = Self.stamped(try client.finish(timeout: 30).out)
        // Each answer is to the oldest request not yet answered.
        let sent = lines.filter { $0.kind == "sent" }.map(\.at)
        let answers = lines.filter { $0.kind == "typed" || $0.kind.hasPrefix("error ") }
        let after = zip(sent, answers).filter { $0.0 > locked }.map(\.1.kind)
        // Refused for the lock, or because logind is too slow to say who is at the screen: never let through.
        let passed = after.filter { $0 != "error locked" && $0 != "error not-at-screen" }.count
        print(
            "lock flood: \(after.count) chords asked after the lock, \(after.count { $0 == "error locked" }) refused as locked, \(passed) let through (typed, or refused for want of a keyboard or by the rate)"
        )
        #expect(!after.isEmpty && passed == 0, "\(after.prefix(20))")
        #expect(try d.stop() == 0)
    }

    @Test(
        "signals forged by another client of the bus (logind's PropertiesChanged, the bus's NameOwnerChanged) change nothing and make the daemon ask logind nothing more than it asks anyway",
        .requires(.root, FakeLogind.requirement))
    func forgedSignals() throws {
        let (first, second) = (Requirement.strangerUID, Requirement.strangerUID + 1)
        let logind = try FakeLogind(uid: first, session: "c1")
        let d = try Self.daemon(logind)
        try d.waitForLog("seat0: the active session is uid \(first)'s", timeout: 10)
        let a = try Self.start(first, d.socket, seconds: 6, keys: .never)
        let b = try Self.start(second, d.socket, seconds: 6, keys: .once)
        usleep(1_000_000)
        // What the daemon asks anyway while in use (it confirms who is at
        // the screen twice a second), over the time the forgery takes.
        let start = try logind.questions()
        usleep(1_500_000)
        let before = try logind.questions()
        let confirming = before - start
        let forging = Date()
        let sent = try logind.bus.forge(
            service: "org.freedesktop.login1", path: "/org/freedesktop/login1/seat/seat0",
            interface: "org.freedesktop.login1.Seat", count: 600)
        usleep(1_500_000)
        let asked = try logind.questions() - before
        let spans = Date().timeIntervalSince(forging) / 1.5
        let ka = Self.kinds(try a.finish(timeout: 30).out)
        let kb = Self.kinds(try b.finish(timeout: 30).out)
        print(
            "forged: \(sent) signals sent; logind asked \(asked) questions meanwhile, \(confirming) in as long before; uid \(first) got \(ka.count { $0 == "gesture" }) taps"
        )
        #expect(sent >= 600)
        // No question for the forged signals: no more than the confirmations make.
        #expect(Double(asked) <= Double(confirming) * max(1, spans) + 4, "\(asked) against \(confirming)")
        #expect(!ka.contains("paused") && ka.count { $0 == "gesture" } >= 4, "\(ka)")
        #expect(!kb.contains("gesture") && !kb.contains("resumed"), "\(kb)")
        #expect(!d.log.contains("left the system bus"), "\(d.log)")
        #expect(try d.stop() == 0)
    }

    @Test(
        "the session at the screen locked (logind's LockedHint): its clients are told, still get gestures, have no key typed or click made, and nothing is claimed; unlocked, the claim comes back",
        .requires(.root, FakeLogind.requirement))
    func lockedHandsOff() throws {
        let uid = Requirement.strangerUID
        let logind = try FakeLogind(uid: uid, session: "c1")
        let d = try DaemonProcess(
            ["--replay", Self.tap, "--loop", "-v"], config: "[daemon]\nsocket-mode = \"0666\"\n", systemBus: logind.address)
        chmod(d.directory, 0o755)
        try d.waitForLog("seat0: the active session is uid \(uid)'s", timeout: 10)
        let client = try Self.start(uid, d.socket, seconds: 7, keys: .every, subscribing: #","claim":{"fingers":[3]}"#)
        let clicking = try Self.start(uid, d.socket, seconds: 7, keys: .every, request: Self.click)
        try d.waitForLog("clients at the screen claim 3 fingers", timeout: 10)
        usleep(1_000_000)
        try logind.set(locked: true)
        try d.waitForLog("seat0: the active session, uid \(uid)'s, is locked", timeout: 10)
        try d.waitForLog("clients at the screen claim nothing: the session at the screen is locked", timeout: 10)
        usleep(2_000_000)
        try logind.set(locked: false)
        try d.waitForLog("seat0: the active session is uid \(uid)'s: gestures go to its clients", timeout: 10)
        let lines = try client.finish(timeout: 30).out.split(separator: "\n").map(String.init)
        let k = Self.kinds(lines.joined(separator: "\n"))
        print("locked: uid \(uid) got \(k)")
        let contexts = lines.filter { $0.contains(#""type":"context""#) }
        #expect(
            contexts == [
                #"{"type":"context","locked":false,"tablet_mode":false}"#,
                #"{"type":"context","locked":true,"tablet_mode":false}"#,
                #"{"type":"context","locked":false,"tablet_mode":false}"#,
            ], "\(lines)")
        // Keys: refused as locked only between the two contexts; gestures all along.
        let first = try #require(lines.firstIndex(of: contexts[1]))
        let last = try #require(lines.lastIndex(of: contexts[2]))
        let during = Self.kinds(lines[first..<last].joined(separator: "\n"))
        let outside = Self.kinds((lines[..<first] + lines[last...]).joined(separator: "\n"))
        #expect(during.contains("error locked") && during.contains("gesture"), "\(during)")
        #expect(!outside.contains("error locked") && outside.contains("gesture"), "\(outside)")
        #expect(!k.contains("paused"), "\(k)")
        // Clicks the same way: refused as locked only while locked.
        let clicks = try clicking.finish(timeout: 30).out.split(separator: "\n").map(String.init)
        let (from, to) = (try #require(clicks.firstIndex(of: contexts[1])), try #require(clicks.lastIndex(of: contexts[2])))
        #expect(Self.kinds(clicks[from..<to].joined(separator: "\n")).contains("error locked"), "\(clicks)")
        #expect(!Self.kinds((clicks[..<from] + clicks[to...]).joined(separator: "\n")).contains("error locked"), "\(clicks)")
        // The claim came back once unlocked.
        let log = d.log
        let nothing = try #require(log.range(of: "claim nothing: the session at the screen is locked"))
        #expect(log[nothing.upperBound...].contains("clients at the screen claim 3 fingers"), "\(log)")
        #expect(try d.stop() == 0)
    }
}
