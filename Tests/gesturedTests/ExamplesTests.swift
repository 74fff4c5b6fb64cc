import Foundation
import Harness
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The copy-paste examples of docs/protocol.md, run as written.
@Suite("Documented clients")
struct ExamplesTests {
    static let swipe = DaemonProcess.recording("swipe-right-1f.tablet.evemu")

    /// Runs `command` through /bin/sh until a line of its output contains `until`, then
    /// calls `then` (which stops the daemon, so the client ends by itself); returns the output.
    static func run(_ command: String, until: String, timeout: Double = 10, then: () throws -> Void = {}) throws -> String {
        let p = try Child(["/bin/sh", "-c", command], directory: BuildProducts.packageRoot)
        let lines = LineChannel(fd: p.output)
        var text = ""
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, let line = try lines.readLine(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
            text += line + "\n"
            if line.contains(until) {
                try then()
                // The client ends when the daemon closes the connection.
                while try lines.readLine(timeout: 5) != nil {}
                try p.wait(timeout: 10)
                return text
            }
        }
        try then()
        throw ChannelError("no line with \"\(until)\" from `\(command)`:\n\(text)")
    }

    static let socatTool = Requirement.tool("/usr/bin/socat", package: "socat")

    @Test("with no daemon at the socket each client says which path it tried and exits 1; serve takes $GESTURED_SOCKET")
    func missingSocket() throws {
        let dir = NSTemporaryDirectory() + "gestured-examples-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/gestured.sock"
        var env = ProcessInfo.processInfo.environment
        env["GESTURED_SOCKET"] = path
        let clients: [[String]] = [
            ["/bin/sh", BuildProducts.packageRoot + "/examples/shell/gestured-watch.sh"],
            ["/usr/bin/python3", BuildProducts.packageRoot + "/examples/python/gestured_client.py"],
            [BuildProducts.gestured, "monitor"],
        ]
        for client in clients {
            let r = try Child.run(client, environment: env, timeout: 20)
            #expect(r.status == 1 && r.err.contains(path), "\(client.last!): \(r.status) \(r.err)")
        }
        // serve binds where the clients look.
        let serve = try Child(
            [BuildProducts.gestured, "serve", "--replay", Self.swipe, "--wait-subscribers", "1"], environment: env, stdout: .null)
        defer {
            serve.signal(SIGTERM)
            _ = try? serve.wait(timeout: 10)
        }
        let client = try SocketClient(path: path, timeout: 10)
        #expect(try client.next()?["type"] as? String == "hello")
    }

    @Test("monitor exits 1 when the daemon refuses its filters, instead of waiting for ever")
    func monitorRefused() throws {
        let d = try DaemonProcess(["--replay", Self.swipe, "--wait-subscribers", "1"])
        for filter in [["--region", "0,0,2,1"], ["--fingers", "17"]] {
            let r = try Child.run([BuildProducts.gestured, "monitor", "--socket", d.socket] + filter, timeout: 20)
            #expect(r.status == 1 && r.err.contains("refused the subscription"), "\(filter): \(r.status) \(r.err)")
        }
    }

    @Test("a mistyped command is named, with the closest ones, and exits 64; so is help for a command that does not exist")
    func mistypedCommand() throws {
        let typo = try runGestured(["moniter"])
        #expect(typo.status == 64 && typo.err.contains("no command 'moniter'; did you mean 'monitor'?"), "\(typo.err)")
        let help = try runGestured(["help", "nosuch"])
        #expect(help.status == 64 && help.err.contains("no command 'nosuch'"), "\(help.err)")
        #expect(try runGestured(["help", "act"]).status == 0)
    }

    @Test("the README's example event is what replay prints for the recording it names")
    func readmeEvent() throws {
        let readme = try String(contentsOfFile: BuildProducts.packageRoot + "/README.md", encoding: .utf8)
        let intro = "One JSON object per line (`gestured replay Recordings/swipe-right-1f.tablet.evemu`, last line):\n\n```json\n"
        let shown = try #require(readme.components(separatedBy: intro).dropFirst().first?.split(separator: "\n").first)
        let printed = try runGestured(["replay", Self.swipe]).out.split(separator: "\n").last
        #expect(printed.map(String.init) == String(shown))
    }

    @Test("socat: subscribe with echo, read the swipe", .requires(socatTool))
    func socat() throws {
        let d = try DaemonProcess(["--replay", Self.swipe, "--wait-subscribers", "1"])
        let out = try Self.run(
            #"echo '{"type":"subscribe","gestures":["swipe","flick"]}' | socat -t 100000 - UNIX-CONNECT:"# + d.socket,
            until: #""gesture":"swipe""#, then: { try d.stop() })
        #expect(out.contains(#""type":"hello""#) && out.contains(#""direction":"right""#))
        #expect(d.process.status == 0)
    }

    @Test("the shell example: socat and sed, one line per finished gesture", .requires(socatTool))
    func shellWatch() throws {
        let d = try DaemonProcess(["--replay", Self.swipe, "--wait-subscribers", "1"])
        let out = try Self.run(
            "GESTURED_SOCKET=\(d.socket) examples/shell/gestured-watch.sh swipe,drag", until: "swipe recognized",
            then: { try d.stop() })
        #expect(out.contains("drag ended 1") && out.contains("swipe recognized 1 right"), "\(out)")
        #expect(!out.contains("began") && !out.contains("changed"), "\(out)")
        #expect(d.process.status == 0)
    }

    @Test("the Python example client", .requires(.tool("/usr/bin/python3", package: "python3")))
    func python() throws {
        let d = try DaemonProcess(["--replay", Self.swipe, "--wait-subscribers", "1"])
        let out = try Self.run(
            "python3 examples/python/gestured_client.py --socket \(d.socket) swipe flick", until: "swipe recognized",
            then: { try d.stop() })
        #expect(out.contains("# gestured ") && out.contains("swipe recognized fingers=1"), "\(out)")
        #expect(d.process.status == 0)
    }

    @Test("gestured monitor --json and --latency")
    func monitor() throws {
        let d = try DaemonProcess(["--replay", Self.swipe, "--wait-subscribers", "1"])
        let out = try Self.run(
            "\(BuildProducts.gestured) monitor --socket \(d.socket) --gestures swipe --count 1 --latency", until: "latency over")
        #expect(out.contains("swipe") && out.contains("right") && out.contains("latency over 1 events: p50"), "\(out)")
        #expect(try d.stop() == 0)
    }

    @Test("make demo's script: each recording's gestures, said in words, then what to try next")
    func demo() throws {
        let dir = NSTemporaryDirectory() + "gestured-demo-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var env = ProcessInfo.processInfo.environment
        env["GESTURED_BIN"] = BuildProducts.gestured
        env["TMPDIR"] = dir
        let r = try Child.run(
            [BuildProducts.packageRoot + "/scripts/demo.sh"], environment: env, timeout: 60)
        #expect(r.status == 0, "\(r.err)")
        let sections = r.out.components(separatedBy: "\n== ").dropFirst()
        #expect(sections.count == 4, "\(r.out)")
        let expected = [
            ["double-tap", "recognized"], ["drag", "swipe"], ["pinch", "began", "ended"], ["touch-and-hold", "ended"],
        ]
        for (section, words) in zip(sections, expected) {
            #expect(words.allSatisfy(section.contains), "\(words) in \(section)")
            #expect(!section.contains("p50") && !section.contains("latency"), "\(section)")
        }
        #expect(r.out.contains("Next:") && r.out.contains("replay --svg tour.svg"), "\(r.out)")
    }
}
