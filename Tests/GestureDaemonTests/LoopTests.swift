import Foundation
import GestureCore
import Harness
import Logging
import Testing
import ToolSupport

@testable import GestureDaemon

/// The daemon's loop inside the test process, on a clock the test sets: a
/// subscriber on the real socket, each turn taken by hand. What comes out,
/// and the turn it comes out in, depend on nothing but the trace and the clock.
@Suite("The loop on a hand-set clock")
struct LoopTests {
    /// A daemon serving `trace` on `clock`, its socket and configuration in a scratch directory.
    static func daemon(replaying trace: String, clock: ManualClock, directory: String) throws -> Daemon {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // An empty configuration file: nothing of /etc/gestured is read.
        guard FileManager.default.createFile(atPath: directory + "/gestured.toml", contents: Data()) else {
            throw ChannelError("cannot create \(directory)/gestured.toml")
        }
        var options = Daemon.Options()
        options.configPath = directory + "/gestured.toml"
        options.socketPath = directory + "/gestured.sock"
        options.replayPath = DaemonProcess.recording(trace)
        options.waitSubscribers = 1
        options.handleSignals = false
        var logger = Logger(label: "loop-test") { _ in SwiftLogNoOpLogHandler() }
        logger.logLevel = .critical
        var daemon = try Daemon(options: options, logger: logger, clock: .manual(clock))
        try daemon.start()
        return daemon
    }

    /// Every line the client has received by now, without waiting.
    static func received(_ client: SocketClient) throws -> [[String: Any]] {
        var out: [[String: Any]] = []
        while let line = client.lines.lineIfReady() {
            guard let m = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw ChannelError("not a JSON object: \(line)")
            }
            out.append(m)
        }
        return out
    }

    /// A directory of the test's own under the temporary directory (made by `daemon`).
    static func scratchDirectory() -> String {
        NSTemporaryDirectory() + "gestured-loop-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// A daemon serving `trace` on a clock the test sets, its socket in a
    /// scratch directory, handed to `body`; then stopped, the directory removed.
    static func withDaemon(
        replaying trace: String, _ body: (inout Daemon, ManualClock, String) throws -> Void
    ) throws {
        let directory = scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = ManualClock()
        var daemon = try daemon(replaying: trace, clock: clock, directory: directory)
        defer { daemon.stop() }
        try body(&daemon, clock, directory)
    }

    /// Turns of 10 ms until the clock reaches `time`.
    static func step(_ daemon: inout Daemon, _ clock: ManualClock, to time: Timestamp) {
        while clock.now < time {
            clock.now = clock.now + .milliseconds(10)
            daemon.turn(maxWait: 0)
        }
    }

    @Test(
        "each gesture comes out in the turn the clock reaches its time, never earlier: frames, held-back taps, holds",
        arguments: ["hold-1f.tablet.evemu", "tap-1f.phone.evemu", "double-tap-1f.phone.evemu", "swipe-left-1f.tablet.evemu"])
    func gesturesOnTime(trace: String) throws {
        try Self.withDaemon(replaying: trace) { daemon, clock, directory in

            let client = try SocketClient(path: directory + "/gestured.sock")
            daemon.turn(maxWait: 0)  // accepts: hello
            #expect(try client.next(timeout: 1)?["type"] as? String == "hello")
            try client.send(#"{"type":"subscribe"}"#)
            daemon.turn(maxWait: 0)  // subscribes; the replay starts now
            #expect(try client.next(timeout: 1)?["type"] as? String == "subscribed")
            let start = clock.now

            // One millisecond a turn, for the trace and a second after it.
            let step = Timestamp.Duration.milliseconds(1)
            var events: [[String: Any]] = []
            var lateness: [Int64] = []
            while clock.now < start + .milliseconds(12_000) {
                clock.now = clock.now + step
                daemon.turn(maxWait: 0)
                for m in try Self.received(client) where m["type"] as? String == "gesture" {
                    let time = (m["time_us"] as? Int).map(Int64.init) ?? .min
                    events.append(m)
                    lateness.append(clock.now.microseconds - time)
                }
            }
            #expect(summarize(events) == (try DaemonProcess.expected(trace)))
            #expect(!events.isEmpty)
            // Never before its time, and within the turn that reached it.
            #expect(lateness.allSatisfy { $0 >= 0 && $0 < step.microseconds }, "lateness µs: \(lateness)")
        }
    }

    @Test(
        "every descriptor the loop waits on has a token of its own, handed out by the wait: the sources', the listener's and each client's"
    )
    func distinctTokens() throws {
        try Self.withDaemon(replaying: "tap-1f.phone.evemu") { daemon, clock, directory in
            let clients = try (0..<3).map { _ in try SocketClient(path: directory + "/gestured.sock") }
            clock.now = clock.now + .milliseconds(1)
            daemon.turn(maxWait: 0)
            for c in clients { #expect(try c.next(timeout: 1)?["type"] as? String == "hello") }
            let sources = daemon.sourceTokens
            let all = sources + daemon.server.clients.map(\.token)
            #expect(sources.contains { $0.owner == .listener })
            #expect(daemon.server.clients.count == 3)
            #expect(Set(all).count == all.count, "\(all)")
            #expect(daemon.server.clients.allSatisfy { $0.token.owner == .client })
        }
    }

    @Test(
        "the wait never hands out a token twice: one descriptor of every owner, and one closed and opened again, each get their own"
    )
    func tokensNeverRepeat() throws {
        let loop = try Readiness()
        var tokens: [Readiness.Token] = []
        var fds: [Int32] = []
        var writers: [Int32] = []
        for owner in Readiness.Owner.allCases {
            var p: [Int32] = [0, 0]
            _ = pipe(&p)
            let fd = p[0]
            fds.append(fd)
            writers.append(p[1])
            tokens.append(try loop.watch(fd, "an eventfd", owner: owner))
        }
        // The same descriptor number again after a close.
        close(fds[0])
        loop.remove(fds[0])
        var p: [Int32] = [0, 0]
        _ = pipe(&p)
        let again = p[0]
        close(writers[0])
        writers[0] = p[1]
        tokens.append(try loop.watch(again, "an eventfd", owner: .client))
        fds[0] = again
        #expect(Set(tokens).count == tokens.count, "\(tokens)")
        #expect(zip(tokens, Readiness.Owner.allCases).allSatisfy { $0.owner == $1 })
        // A ready one is found by its token, and by its owner.
        var one: UInt8 = 1
        _ = write(writers[3], &one, 1)
        _ = loop.wait(until: .never, clock: .monotonic, maxWait: 0)
        #expect(loop.readable(tokens[3]) && loop.anyReady(tokens[3].owner))
        #expect(!loop.readable(tokens[2]) && !loop.anyReady(tokens[2].owner))
        for fd in fds + writers { close(fd) }
    }

    @Test(
        "turns that change nothing for quiet clients skip the server, yet a request, a new client and an event are each handled in their turn"
    )
    func quietTurns() throws {
        try Self.withDaemon(replaying: "swipe-left-1f.tablet.evemu") { daemon, clock, directory in
            func step(_ n: Int = 1) {
                for _ in 0..<n {
                    clock.now = clock.now + .milliseconds(1)
                    daemon.turn(maxWait: 0)
                }
            }
            let client = try SocketClient(path: directory + "/gestured.sock")
            step()
            #expect(try client.next(timeout: 1)?["type"] as? String == "hello")
            #expect(!daemon.serverIsQuiet)  // connected, not subscribed: it has 10 s to
            // Only how gestures end: the stroke's frames publish nothing.
            try client.send(#"{"type":"subscribe","phases":["recognized","ended"]}"#)
            step()
            #expect(try client.next(timeout: 1)?["type"] as? String == "subscribed")
            #expect(try client.next(timeout: 1)?["type"] as? String == "context")
            step(5)
            #expect(daemon.serverIsQuiet)

            try client.send(#"{"type":"ping"}"#)
            step()
            #expect(try client.next(timeout: 1)?["type"] as? String == "pong")
            step()
            #expect(daemon.serverIsQuiet)

            let second = try SocketClient(path: directory + "/gestured.sock")
            step()
            #expect(try second.next(timeout: 1)?["type"] as? String == "hello")
            #expect(!daemon.serverIsQuiet)
            try second.send(#"{"type":"subscribe","gestures":["swipe"]}"#)
            step()
            #expect(try second.next(timeout: 1)?["type"] as? String == "subscribed")
            step()
            #expect(daemon.serverIsQuiet)

            // The rest of the trace: the swipe comes out when recognized.
            step(3000)
            // The stroke is a drag until its lift makes it a swipe.
            for (c, expected) in [(client, ["drag ended", "swipe recognized"]), (second, ["swipe recognized"])] {
                let events = try Self.received(c).filter { $0["type"] as? String == "gesture" }
                #expect(events.map { "\($0["gesture"] ?? "") \($0["phase"] ?? "")" } == expected, "\(events)")
            }
            #expect(daemon.serverIsQuiet)
        }
    }

    @Test("a client that never subscribes is told so in the turn its 10 s run out, and nothing comes before")
    func subscribeDeadline() throws {
        try Self.withDaemon(replaying: "tap-1f.phone.evemu") { daemon, clock, directory in
            let client = try SocketClient(path: directory + "/gestured.sock")
            daemon.turn(maxWait: 0)
            #expect(try client.next(timeout: 1)?["type"] as? String == "hello")
            let connected = clock.now
            // Without a subscriber the replay waits, and the client has 10 s to subscribe.
            while clock.now < connected + .milliseconds(9_990) {
                clock.now = clock.now + .milliseconds(10)
                daemon.turn(maxWait: 0)
            }
            let early = try Self.received(client)
            #expect(early.isEmpty, "\(early)")
            clock.now = connected + .milliseconds(10_000)
            daemon.turn(maxWait: 0)
            let told = try Self.received(client)
            #expect(told.count == 1 && told.first?["code"] as? String == "timeout", "\(told)")
        }
    }

    @Test(
        "what a client's work mapped back is given back 2 s after the last of it, once; frames and quiet turns never ask for it"
    )
    func pagesGivenBack() throws {
        try Self.withDaemon(replaying: "swipe-left-1f.tablet.evemu") { daemon, clock, directory in
            // Counted, not done: the test process's own pages stay.
            nonisolated(unsafe) var releases: [Timestamp] = []
            daemon.chores.pageRelease = {
                releases.append(clock.now)
                return 0
            }
            func step(to time: Timestamp) { Self.step(&daemon, clock, to: time) }
            let client = try SocketClient(path: directory + "/gestured.sock")
            clock.now = clock.now + .milliseconds(10)
            daemon.turn(maxWait: 0)
            #expect(try client.next(timeout: 1)?["type"] as? String == "hello")
            try client.send(#"{"type":"subscribe"}"#)
            clock.now = clock.now + .milliseconds(10)
            daemon.turn(maxWait: 0)
            #expect(try client.next(timeout: 1)?["type"] as? String == "subscribed")
            let subscribed = clock.now

            // The replay's frames run meanwhile; they do not put it off.
            step(to: subscribed + .milliseconds(1990))
            #expect(releases.isEmpty)
            step(to: subscribed + .milliseconds(2000))
            #expect(releases == [subscribed + .milliseconds(2000)])
            // The rest of the trace and ten quiet seconds: nothing more.
            step(to: subscribed + .milliseconds(12_000))
            #expect(releases.count == 1)
            let gestures = try Self.received(client).filter { $0["type"] as? String == "gesture" }
            #expect(!gestures.isEmpty)

            // A request is one-off work too.
            try client.send(#"{"type":"ping"}"#)
            step(to: clock.now + .milliseconds(10))
            let pinged = clock.now
            #expect(try client.next(timeout: 1)?["type"] as? String == "pong")
            step(to: pinged + .milliseconds(3000))
            #expect(releases.count == 2 && releases.last == pinged + .milliseconds(2000), "\(releases)")
        }
    }

    @Test("a release of pages that fails is tried once, not after every client's work")
    func pagesKeptAfterFailure() throws {
        try Self.withDaemon(replaying: "tap-1f.phone.evemu") { daemon, clock, directory in
            nonisolated(unsafe) var tries = 0
            daemon.chores.pageRelease = {
                tries += 1
                return -Int(EACCES)  // /proc/self/pagemap refused
            }
            func step(by ms: Double) { Self.step(&daemon, clock, to: clock.now + .milliseconds(ms)) }
            let client = try SocketClient(path: directory + "/gestured.sock")
            step(by: 10)
            #expect(try client.next(timeout: 1)?["type"] as? String == "hello")
            step(by: 3000)
            #expect(tries == 1)
            try client.send(#"{"type":"ping"}"#)
            step(by: 10)
            #expect(try client.next(timeout: 1)?["type"] as? String == "pong")
            step(by: 3000)
            #expect(tries == 1)
            #expect(daemon.chores.pageRelease == nil)
        }
    }
}
