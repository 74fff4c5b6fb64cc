import Foundation
import GestureCore
import Harness
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What an attacker with an allowed account can do to the daemon, each
/// against the real binary while a well-behaved subscriber receives a trace
/// in a loop. Each prints the subscriber's loss, the worst wait of a newcomer
/// for its `hello` and the daemon's peak resident memory (docs/security.md
/// lists them); each asserts that the subscriber loses nothing, that a
/// newcomer is greeted within a second and that memory stays under 64 MiB.
@Suite("Hostile clients", .serialized)
struct HostileTests {
    static let trace = DaemonProcess.recording("hold-then-drag.phone.evemu")

    /// A flag shared with the threads of an attack.
    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
    }

    /// A subscriber reading every event on a thread of its own.
    final class Subscriber: @unchecked Sendable {
        private let client: SocketClient
        private let lock = NSLock()
        private var received: [[String: Any]] = []
        private let stop = Flag()
        private var thread: Thread?

        init(socket: String, filters: String = "") throws {
            client = try SocketClient(path: socket)
            try client.subscribe(filters)
            let t = Thread { [self] in
                while !stop.isSet {
                    do {
                        guard let m = try client.next(timeout: 0.2) else { return }
                        lock.withLock { received.append(m) }
                    } catch {
                        continue
                    }
                }
            }
            thread = t
            t.start()
        }

        /// Stops reading; everything received.
        func finish() -> [[String: Any]] {
            stop.set()
            while thread?.isFinished == false { usleep(10_000) }
            thread = nil  // the thread's closure holds self: let both go
            return lock.withLock { received }
        }
    }

    /// Newcomers connecting every 100 ms: the worst wait for `hello`, ms, and how many got none.
    final class Prober: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var worst = 0.0
        private(set) var greeted = 0
        private(set) var failed: [String] = []
        private let stop = Flag()
        private var thread: Thread?

        init(socket: String) {
            let t = Thread { [self] in
                while !stop.isSet {
                    let start = Date()
                    var outcome: String?
                    do {
                        let c = try SocketClient(path: socket, timeout: 5)
                        let hello = try c.next(timeout: 5)
                        if hello?["type"] as? String != "hello" { outcome = "got \(String(describing: hello))" }
                    } catch {
                        outcome = "\(error)"
                    }
                    let ms = Date().timeIntervalSince(start) * 1000
                    lock.withLock {
                        worst = max(worst, ms)
                        if let outcome { failed.append(outcome) } else { greeted += 1 }
                    }
                    usleep(100_000)
                }
            }
            thread = t
            t.start()
        }

        func finish() {
            stop.set()
            while thread?.isFinished == false { usleep(10_000) }
            thread = nil  // the thread's closure holds self: let both go
        }
    }

    /// The daemon's peak resident memory so far, KiB.
    static func peak(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// (gesture, phase) of every event of one pass of the trace, as `gestured replay` gives them.
    static func cycle() throws -> [String] {
        try runGestured(["replay", trace]).out.split(separator: "\n").compactMap {
            let e = try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            return e.map { "\($0["gesture"] ?? "") \($0["phase"] ?? "")" }
        }
    }

    /// Whether `events` are whole passes of `cycle` and then the beginning of one: nothing lost.
    static func lost(_ events: [[String: Any]], cycle: [String]) -> String? {
        let got = events.filter { $0["type"] as? String == "gesture" }.map { "\($0["gesture"] ?? "") \($0["phase"] ?? "")" }
        guard got.count >= cycle.count else { return "only \(got.count) events, fewer than one pass (\(cycle.count))" }
        for (i, g) in got.enumerated() where g != cycle[i % cycle.count] {
            return "event \(i) is \(g), expected \(cycle[i % cycle.count])"
        }
        return nil
    }

    /// What an attack did to the well-behaved: printed, then asserted.
    struct Figures: CustomStringConvertible {
        var name: String
        var events: Int
        var loss: String?
        var worstHello: Double
        var greeted: Int
        var newcomerFailures: [String]
        var peakKiB: Int
        var description: String {
            "hostile \(name): subscriber got \(events) events, \(loss.map { "LOST: \($0)" } ?? "lost none"); "
                + "\(greeted) newcomers greeted, worst wait for hello \(Int(worstHello)) ms"
                + (newcomerFailures.isEmpty ? "" : ", \(newcomerFailures.count) not greeted")
                + "; peak resident memory \(peakKiB / 1024) MiB"
        }

        func check(sourceLocation: SourceLocation = #_sourceLocation) {
            print(self)
            #expect(loss == nil, "\(self)", sourceLocation: sourceLocation)
            #expect(newcomerFailures.isEmpty, "\(newcomerFailures.prefix(3))", sourceLocation: sourceLocation)
            #expect(worstHello < 1000 * Timing.scale, "\(self)", sourceLocation: sourceLocation)
            if ProcessInfo.processInfo.environment["GESTURED_SANITIZER"] == nil {
                #expect(peakKiB < 64 * 1024, "\(self)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Runs `attack` for `seconds` against a daemon serving the trace in a
    /// loop, while a subscriber reads and newcomers connect.
    static func underAttack(
        _ name: String, config: String? = nil, wrapper: [String] = [], seconds: Double = 4,
        attack: @escaping @Sendable (_ socket: String, _ stop: Flag) -> Void
    ) throws -> (figures: Figures, daemon: DaemonProcess) {
        let d = try DaemonProcess(["--replay", trace, "--loop", "--wait-subscribers", "1"], config: config, wrapper: wrapper)
        let good = try Subscriber(socket: d.socket)
        let prober = Prober(socket: d.socket)
        let stop = Flag()
        let socket = d.socket
        let attacker = Thread { attack(socket, stop) }
        attacker.start()
        usleep(UInt32(seconds * 1_000_000))
        stop.set()
        while !attacker.isFinished { usleep(10_000) }
        prober.finish()
        usleep(300_000)
        let events = good.finish()
        let figures = Figures(
            name: name, events: events.count, loss: lost(events, cycle: try cycle()), worstHello: prober.worst,
            greeted: prober.greeted, newcomerFailures: prober.failed, peakKiB: peak(d.process.pid))
        return (figures, d)
    }

    /// Sends `bytes` over and over on one connection until `stop`.
    static func flood(_ socket: String, _ bytes: [UInt8], until stop: Flag) {
        let fd = connectUnix(socket)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while !stop.isSet {
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    @Test("empty lines as fast as the socket takes them, and pings never read: nobody waits, memory stays bounded")
    func emptyLinesAndUnreadPings() throws {
        let (figures, d) = try Self.underAttack("empty lines and unread pings") { socket, stop in
            let pings = Thread {
                Self.flood(socket, Array(String(repeating: "{\"type\":\"ping\"}\n", count: 1000).utf8), until: stop)
            }
            pings.start()
            Self.flood(socket, [UInt8](repeating: 10, count: 65536), until: stop)
            while !pings.isFinished { usleep(10_000) }
        }
        figures.check()
        #expect(try d.stop() == 0)
    }

    @Test("connect and close as fast as possible under a 1,024-descriptor limit: every legitimate newcomer is served")
    func churn() throws {
        let (figures, d) = try Self.underAttack(
            "connect and close churn", wrapper: ["/usr/bin/prlimit", "--nofile=1024:1024", "--"]
        ) { socket, stop in
            let second = Thread {
                while !stop.isSet {
                    let fd = connectUnix(socket)
                    if fd >= 0 { close(fd) }
                }
            }
            second.start()
            while !stop.isSet {
                let fd = connectUnix(socket)
                if fd >= 0 { close(fd) }
            }
            while !second.isFinished { usleep(10_000) }
        }
        figures.check()
        // Forty more that stay, after the storm: every one greeted.
        var held: [SocketClient] = []
        for _ in 0..<40 { held.append(try SocketClient(path: d.socket)) }
        let greeted = try held.filter { try $0.next()?["type"] as? String == "hello" }.count
        print("hostile connect and close churn: \(greeted) of 40 newcomers that stay were greeted")
        #expect(greeted == 40)
        #expect(try d.stop() == 0)
    }

    @Test("a max-clients the descriptor limit cannot hold is refused at start, naming both numbers; a soft limit is raised")
    func descriptorLimit() throws {
        let low = try Child.run(
            ["/usr/bin/prlimit", "--nofile=100:100", "--", BuildProducts.gestured, "serve", "--socket", "/nonexistent/x.sock"],
            timeout: 20)
        #expect(low.status == 1)
        #expect(low.err.contains("max-clients = 128 needs 192 file descriptors, but RLIMIT_NOFILE allows 100"), "\(low.err)")
        #expect(low.err.split(separator: "\n").count == 1, "\(low.err)")
        let d = try DaemonProcess(["--replay", Self.trace], wrapper: ["/usr/bin/prlimit", "--nofile=100:4096", "--"])
        let limits = try String(contentsOfFile: "/proc/\(d.process.pid)/limits", encoding: .utf8)
        let line = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") } ?? ""
        #expect(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first == "192", "\(line)")
        #expect(try d.stop() == 0)
    }

    @Test(
        "one user cannot hold every slot: beyond its share it is told busy, and another user still gets in", .requires(.root))
    func perUserShare() throws {
        let d = try DaemonProcess(
            ["--replay", Self.trace, "--wait-subscribers", "99"],
            config: "[daemon]\nsocket-mode = \"0666\"\nmax-clients = 20\nmax-clients-per-user = 5\n")
        var mine: [SocketClient] = []
        for _ in 0..<5 { mine.append(try SocketClient(path: d.socket)) }
        for c in mine { #expect(try c.next()?["type"] as? String == "hello") }
        let sixth = try SocketClient(path: d.socket)
        let refused = try sixth.read(until: "error").message
        #expect(refused["code"] as? String == "busy", "\(refused)")
        #expect((refused["message"] as? String ?? "").contains("max-clients-per-user"), "\(refused)")
        // Someone else (uid 65534) is greeted.
        let other = try Child.run(
            Requirement.asRoot([
                "/usr/bin/setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--", "/usr/bin/timeout", "5",
                "/usr/bin/socat", "-T", "1", "-u", "UNIX-CONNECT:" + d.socket, "STDOUT",
            ]), timeout: 20)
        #expect(other.out.hasPrefix("{\"type\":\"hello\""), "\(other.out) \(other.err)")
        #expect(try d.stop() == 0)
    }

    @Test("a connection that never subscribes is closed after subscribe-timeout; a subscriber is not")
    func subscribeTimeout() throws {
        let d = try DaemonProcess(
            ["--replay", Self.trace, "--wait-subscribers", "99"], config: "[daemon]\nsubscribe-timeout = 0.5\n")
        let idle = try SocketClient(path: d.socket)
        let sub = try SocketClient(path: d.socket)
        try sub.subscribe()
        let start = Date()
        let e = try idle.read(until: "error", timeout: 5).message
        let waited = Date().timeIntervalSince(start)
        #expect(e["code"] as? String == "timeout" && e["fatal"] as? Bool == true, "\(e)")
        #expect(waited >= 0.3, "closed after \(waited) s")
        #expect(try idle.next(timeout: 2) == nil, "closed")
        try sub.send(#"{"type":"ping"}"#)
        _ = try sub.read(until: "pong")
        #expect(try d.stop() == 0)
    }

    @Test("two thousand refused connections log a few lines and a count, not two thousand", .requires(.root))
    func refusedFloodLog() throws {
        let d = try DaemonProcess(
            ["--replay", Self.trace, "--wait-subscribers", "99"],
            config: "[daemon]\nsocket-mode = \"0666\"\nallow-users = [4242]\n")
        let script = """
            import socket
            for _ in range(2000):
                s = socket.socket(socket.AF_UNIX); s.connect("\(d.socket)"); s.close()
            """
        let r = try Child.run(
            Requirement.asRoot([
                "/usr/bin/setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--", "/usr/bin/python3", "-c",
                script,
            ]),
            timeout: 60)
        #expect(r.status == 0, "\(r.err)")
        // The count of the rest comes once the ten-second window ends: stop and look.
        usleep(300_000)
        let refusedLines = d.log.split(separator: "\n").filter { $0.contains("refused") }.count
        print("hostile refused flood: 2000 refused connections, \(refusedLines) log lines about them")
        #expect(refusedLines <= 10, "\(d.log.suffix(2000))")
        // Still serving root.
        let c = try SocketClient(path: d.socket)
        #expect(try c.next()?["type"] as? String == "hello")
        #expect(try d.stop() == 0)
    }

    /// Waits until `pid` holds SIGHUP pending (`serve` began), for at most 10 s.
    static func waitSIGHUPBlocked(_ pid: Int32) throws {
        for _ in 0..<10_000 {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") }),
                let mask = UInt64(line.split(separator: "\t").last ?? "", radix: 16), mask & (1 << (SIGHUP - 1)) != 0
            {
                return
            }
            usleep(1000)
        }
        throw ChannelError("\(pid) never blocked SIGHUP")
    }

    @Test("SIGHUP while the daemon starts (configuration, devices, socket) is a reload once it serves, not fatal")
    func signalsWhileStarting() throws {
        for _ in 0..<5 {
            let d = try DaemonProcess(["--replay", Self.trace], waitReady: false)
            try Self.waitSIGHUPBlocked(d.process.pid)
            d.signal(SIGHUP)
            _ = try d.notify.wait(for: "READY=1", timeout: 10)
            _ = try d.notify.wait(for: "RELOADING=1", timeout: 10)
            let c = try SocketClient(path: d.socket)
            #expect(try c.next()?["type"] as? String == "hello")
            #expect(try d.stop() == 0)
        }
    }

    @Test("a subscriber that stalls, then reads, finds the overflow error at the end")
    func overflowSeenAfterStall() throws {
        let slow = DaemonProcess.recording("slow-drag-right.tablet.evemu")
        let d = try DaemonProcess(
            ["--replay", slow, "--loop", "--speed", "20", "--wait-subscribers", "1"],
            config: "[daemon]\nclient-buffer-kib = 16\n")
        let c = try SocketClient(path: d.socket)
        try c.subscribe()
        try d.waitForLog("does not read", timeout: 20)
        sleep(2)
        var last: [String: Any] = [:]
        while let m = try c.next(timeout: 5) { last = m }
        #expect(last["type"] as? String == "error" && last["code"] as? String == "overflow", "\(last)")
        #expect(try d.stop() == 0)
    }

    @Test("after the daemon stalls, a reading subscriber gets fewer changed events, not cut off, and every gesture whole")
    func burstAfterStall() throws {
        let slow = DaemonProcess.recording("slow-drag-right.tablet.evemu")
        let d = try DaemonProcess(
            ["--replay", slow, "--loop", "--speed", "20", "--wait-subscribers", "1"],
            config: "[daemon]\nclient-buffer-kib = 16\n")
        let good = try Subscriber(socket: d.socket)
        usleep(500_000)
        kill(d.process.pid, SIGSTOP)
        usleep(1_000_000)
        kill(d.process.pid, SIGCONT)
        usleep(1_500_000)
        let events = good.finish()
        #expect(!events.contains { $0["type"] as? String == "error" }, "\(events.last ?? [:])")
        #expect(!d.log.contains("does not read"), "\(d.log.suffix(1000))")
        var open: Set<Int> = []
        var complete = 0
        for e in events where e["type"] as? String == "gesture" {
            let id = e["id"] as? Int ?? -1
            switch e["phase"] as? String {
            case "began": open.insert(id)
            case "ended", "cancelled":
                #expect(open.remove(id) != nil, "\(id) ended without began")
                complete += 1
            default: break
            }
        }
        #expect(complete > 20 && open.count <= 1, "\(complete) complete, \(open.count) open")
        #expect(try d.stop() == 0)
    }

    @Test("a trace with a 27 KB line of key bits ends replay, serve and tune with a one-line error; serve leaves no socket")
    func badTraces() throws {
        let dir = NSTemporaryDirectory() + "gestured-hostile-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir + "/tap", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let header = try String(contentsOfFile: DaemonProcess.recording("tap-1f.phone.evemu"), encoding: .utf8)
        let bad = header.replacingOccurrences(
            of: "\nE:", with: "\nB: 01" + String(repeating: " ff", count: 9000) + "\nE:", options: [],
            range: header.range(of: "\nE:"))
        try bad.write(toFile: dir + "/tap/1.evemu", atomically: true, encoding: .utf8)
        for args in [
            ["replay", dir + "/tap/1.evemu"], ["tune", dir],
            ["serve", "--socket", dir + "/s.sock", "--replay", dir + "/tap/1.evemu"],
        ] {
            let r = try runGestured(args, timeout: 30)
            #expect(r.status == 1, "\(args): \(r.status)")
            let lines = r.err.split(separator: "\n")
            #expect(
                lines.count == 1 && lines[0].contains("1.evemu:") && lines[0].contains("more than 96 bytes of codes"),
                "\(args): \(r.err)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/s.sock"))
    }

    @Test("replay --svg of a huge panel or a trace with a gap of days draws a bounded picture")
    func boundedPictures() throws {
        let dir = NSTemporaryDirectory() + "gestured-hostile-svg-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var gap = try String(contentsOfFile: DaemonProcess.recording("tap-1f.phone.evemu"), encoding: .utf8)
        gap += "E: 999999.000000 0003 0039 9\nE: 999999.000000 0003 0035 100\nE: 999999.000000 0003 0036 100\n"
        gap += "E: 999999.000000 0000 0000 0\nE: 999999.100000 0003 0039 -1\nE: 999999.100000 0000 0000 0\n"
        try gap.write(toFile: dir + "/gap.evemu", atomically: true, encoding: .utf8)
        for (args, name) in [
            (["--size", "100000000x100000000", DaemonProcess.recording("tap-2f.tablet.evemu")], "huge"),
            ([dir + "/gap.evemu"], "gap"),
        ] {
            let r = try runGestured(["replay", "--format", "summary", "--svg", dir + "/\(name).svg"] + args, timeout: 60)
            #expect(r.status == 0, "\(r.err)")
            let size = (try FileManager.default.attributesOfItem(atPath: dir + "/\(name).svg")[.size] as? Int) ?? 0
            #expect(size > 0 && size < 200_000, "\(name): \(size) bytes")
        }
    }

    @Test("configuration files: a device, a FIFO and an oversized file are refused at once with a line saying why")
    func configurationFiles() throws {
        let dir = NSTemporaryDirectory() + "gestured-hostile-config-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        mkfifo(dir + "/fifo.toml", 0o600)
        try String(repeating: "# padding\n", count: 120_000).write(toFile: dir + "/big.toml", atomically: true, encoding: .utf8)
        for (path, says) in [
            ("/dev/zero", "not a regular file"), (dir + "/fifo.toml", "not a regular file"),
            (dir + "/big.toml", "more than the 1048576"),
        ] {
            let r = try runGestured(["check-config", path], timeout: 10)
            #expect(r.status == 1 && r.err.contains(path) && r.err.contains(says), "\(path): \(r.err)")
        }
    }

    @Test("check-config prints every problem of a file, one line each in line order, and exits 1")
    func everyConfigurationProblem() throws {
        let dir = NSTemporaryDirectory() + "gestured-hostile-problems-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/four.toml"
        try "[thresholds]\nslop = -1\ntap.maxDurtion = 400\n[daemon]\nmax-clients = 0\n[[device]]\nrotation = 45\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let r = try runGestured(["check-config", path], timeout: 10)
        let lines = r.err.split(separator: "\n").map(String.init)
        #expect(r.status == 1, "\(r.err)")
        #expect(
            lines.map {
                $0.replacing("gestured: ", with: "", maxReplacements: 1).split(separator: ":").prefix(2).joined(separator: ":")
            }
                == ["\(path):2", "\(path):3", "\(path):5", "\(path):6", "\(path):7"], "\(r.err)")
        #expect(lines.first?.hasPrefix("gestured: ") == true, "\(r.err)")
    }

    @Test(
        "the socket's mode and group are never set through a path someone else can swap; a directory others can write without the sticky bit is refused",
        .requires(.runningAsRoot))
    func symlinkRace() throws {
        let dir = NSTemporaryDirectory() + "gestured-hostile-race-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        chmod(dir, 0o755)
        let victim = dir + "/victim"
        try "secret".write(toFile: victim, atomically: true, encoding: .utf8)
        chmod(victim, 0o600)
        // A directory anyone may write, no sticky bit: refused outright.
        let open = dir + "/open"
        mkdir(open, 0o777)
        chmod(open, 0o777)
        let refused = try runGestured(["serve", "--socket", open + "/gestured.sock", "--replay", Self.trace], timeout: 20)
        #expect(refused.status == 1 && refused.err.contains("no sticky bit"), "\(refused.err)")
        // A directory a user owns (so can swap what is in it), a root daemon
        // binding there again and again while that user keeps replacing the
        // socket with a link to a root-owned 0600 file.
        let home = dir + "/home"
        mkdir(home, 0o755)
        chown(home, 65534, 65534)
        try "[daemon]\nsocket-group = \"65534\"\nsocket-mode = \"0660\"\n".write(
            toFile: dir + "/g.toml", atomically: true, encoding: .utf8)
        // The moment the socket appears, it is swapped for the link (a window
        // the daemon used to leave between bind and chmod/chown by path: the
        // previous daemon lost the victim to this in 192 starts here).
        let swap = """
            import os, stat
            while True:
                try:
                    if stat.S_ISSOCK(os.lstat("\(home)/gestured.sock").st_mode):
                        os.unlink("\(home)/gestured.sock"); os.symlink("\(victim)", "\(home)/gestured.sock")
                except OSError:
                    pass
            """
        let attacker = try Child([
            "/usr/bin/setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--", "/usr/bin/python3", "-c", swap,
        ])
        var served = 0
        var refusedStarts = 0
        for _ in 0..<150 {
            unlink(home + "/gestured.sock")
            let daemon = try Child([
                BuildProducts.gestured, "serve", "--config", dir + "/g.toml", "--socket", home + "/gestured.sock", "--replay",
                Self.trace, "--log-level", "error",
            ])
            // Serving once it has said READY=1 (or still running a moment later).
            for _ in 0..<3 where daemon.isRunning { usleep(10_000) }
            if !daemon.isRunning {
                refusedStarts += 1
            } else {
                daemon.signal(SIGTERM)
                _ = try daemon.wait(timeout: 10)
                served += 1
            }
        }
        attacker.signal(SIGKILL)
        _ = try? attacker.wait(timeout: 5)
        var st = stat()
        #expect(
            stat(victim, &st) == 0 && st.st_mode & 0o777 == 0o600 && st.st_gid == 0,
            "mode \(String(st.st_mode & 0o777, radix: 8)) gid \(st.st_gid)")
        print(
            "hostile symlink race: 150 starts beside a user swapping the socket for a link (\(served) served, \(refusedStarts) refused); the victim stayed 0600 root:root"
        )
        #expect(served > 0)
    }

    @Test("a member of 300 groups is let in by the last of them", .requires(.root))
    func manyGroups() throws {
        let d = try DaemonProcess(
            ["--replay", Self.trace, "--wait-subscribers", "99"],
            config: "[daemon]\nsocket-mode = \"0666\"\nallow-groups = [5299]\n")
        let groups = (5000..<5300).map(String.init).joined(separator: ",")
        let r = try Child.run(
            Requirement.asRoot([
                "/usr/bin/setpriv", "--reuid", "65534", "--regid", "65534", "--groups", groups, "--", "/usr/bin/timeout", "5",
                "/usr/bin/socat", "-T", "1", "-u", "UNIX-CONNECT:" + d.socket, "STDOUT",
            ]), timeout: 20)
        #expect(r.out.hasPrefix("{\"type\":\"hello\""), "\(r.out) \(r.err)")
        #expect(try d.stop() == 0)
    }

    @Test(
        "started by hand as root: descriptors it inherited are closed and every capability is dropped once it serves",
        .requires(.runningAsRoot))
    func rootByHand() throws {
        // Two descriptors open on a file of the test's own, so that they are
        // told apart from the daemon's own descriptors by what they point to
        // (numbers are reused: the daemon's epoll set may well be 7).
        let scratch = try ActTests.Scratch()
        let inherited = scratch.path + "/inherited"
        #expect(FileManager.default.createFile(atPath: inherited, contents: Data()))
        let d = try DaemonProcess(
            ["--replay", Self.trace],
            wrapper: ["/bin/sh", "-c", "exec 7<\"\(inherited)\" 8<\"\(inherited)\"; exec \"$0\" \"$@\""])
        let status = try String(contentsOfFile: "/proc/\(d.process.pid)/status", encoding: .utf8)
        for field in ["CapEff", "CapPrm", "CapBnd", "CapAmb", "CapInh"] {
            #expect(status.contains("\(field):\t0000000000000000"), "\(field) in \(status)")
        }
        #expect(status.contains("NoNewPrivs:\t1"))
        let fdDir = "/proc/\(d.process.pid)/fd"
        let open = try FileManager.default.contentsOfDirectory(atPath: fdDir).sorted().map {
            "\($0) → " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: fdDir + "/" + $0)) ?? "?")
        }
        #expect(open.count >= 4, "\(open)")
        #expect(!open.contains { $0.hasSuffix(" → " + inherited) }, "\(open)")
        // Still serving, and a reload still reads the configuration.
        let c = try SocketClient(path: d.socket)
        #expect(try c.next()?["type"] as? String == "hello")
        d.signal(SIGHUP)
        try d.waitForLog("configuration reloaded")
        #expect(try d.stop() == 0)
    }
}
