import Foundation
import Harness
import Testing

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

    static func available(_ tool: String) -> Bool {
        let found = ["/usr/bin/", "/bin/", "/usr/local/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + tool) }
        if !found && ProcessInfo.processInfo.environment["CI"] != nil { Issue.record("\(tool) is missing in CI") }
        return found
    }

    @Test("socat: subscribe with echo, read the swipe")
    func socat() throws {
        guard Self.available("socat") else { return }
        let d = try DaemonProcess(["--replay", Self.swipe, "--wait-subscribers", "1"])
        let out = try Self.run(
            #"echo '{"type":"subscribe","gestures":["swipe","flick"]}' | socat -t 100000 - UNIX-CONNECT:"# + d.socket,
            until: #""gesture":"swipe""#, then: { try d.stop() })
        #expect(out.contains(#""type":"hello""#) && out.contains(#""direction":"right""#))
        #expect(d.process.status == 0)
    }

    @Test("the shell example: socat and sed, one line per finished gesture")
    func shellWatch() throws {
        guard Self.available("socat") else { return }
        let d = try DaemonProcess(["--replay", Self.swipe, "--wait-subscribers", "1"])
        let out = try Self.run(
            "GESTURED_SOCKET=\(d.socket) examples/shell/gestured-watch.sh swipe,drag", until: "swipe recognized",
            then: { try d.stop() })
        #expect(out.contains("drag ended 1") && out.contains("swipe recognized 1 right"), "\(out)")
        #expect(!out.contains("began") && !out.contains("changed"), "\(out)")
        #expect(d.process.status == 0)
    }

    @Test("the Python example client")
    func python() throws {
        guard Self.available("python3") else { return }
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
}
