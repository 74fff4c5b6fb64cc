import Foundation
import Harness
import Testing

/// What systemd sees of the daemon: sd_notify messages, socket activation,
/// signals; and who may use the socket.
@Suite("systemd integration and access")
struct SystemdTests {
    static let tap = DaemonProcess.recording("tap-1f.phone.evemu")

    @Test("READY=1 with STATUS; SIGHUP: RELOADING=1 with MONOTONIC_USEC, then READY=1; SIGTERM: STOPPING=1 and goodbye")
    func notifications() throws {
        let d = try DaemonProcess(
            ["--replay", Self.tap, "--wait-subscribers", "9"], config: "[thresholds]\nslop = 2.5\n", waitReady: false)
        let ready = try d.notify.wait(for: "READY=1", timeout: 10)
        #expect(ready.last?.contains("STATUS=1 touchscreen(s), 0 subscriber(s), 0 client(s)") == true, "\(ready)")
        let c = try SocketClient(path: d.socket)
        try c.subscribe()
        let status = try d.notify.wait(for: "STATUS=1 touchscreen(s), 1 subscriber(s), 1 client(s)", timeout: 5)
        #expect(!status.isEmpty)

        d.signal(SIGHUP)
        let reloading = try d.notify.wait(for: "RELOADING=1", timeout: 5)
        let fields = reloading.last!.split(separator: "\n")
        let usec = fields.first { $0.hasPrefix("MONOTONIC_USEC=") }.flatMap { Int($0.dropFirst(15)) }
        #expect(usec != nil && usec! > 0)
        _ = try d.notify.wait(for: "READY=1", timeout: 5)
        let reloaded = try c.read(until: "config_reloaded").message
        #expect((reloaded["files"] as? [String])?.first?.hasSuffix("gestured.toml") == true)

        // A broken file on SIGHUP: the old configuration stays, the log says why.
        try "[thresholds]\nslop = \"wide\"\n".write(toFile: d.directory + "/gestured.toml", atomically: true, encoding: .utf8)
        d.signal(SIGHUP)
        let kept = try d.notify.wait(for: "READY=1", timeout: 5)
        #expect(kept.last?.contains("STATUS=configuration not reloaded") == true, "\(kept)")
        try d.waitForLog("keeping the previous one")
        #expect(d.log.contains("gestured.toml:2: threshold 'slop' must be a number"), "\(d.log)")
        try c.send(#"{"type":"ping"}"#)
        _ = try c.read(until: "pong")

        // A file TOMLKit's toml++ aborted the process on (found by fuzzing): an error like any other.
        try "[thresholds]\nslop = 2\n[=]\n".write(toFile: d.directory + "/gestured.toml", atomically: true, encoding: .utf8)
        d.signal(SIGHUP)
        _ = try d.notify.wait(for: "READY=1", timeout: 5)
        try d.waitForLog("gestured.toml:3: not valid TOML: a table header must start with a key")
        try c.send(#"{"type":"ping"}"#)
        _ = try c.read(until: "pong")

        d.signal(SIGTERM)
        _ = try d.notify.wait(for: "STOPPING=1", timeout: 5)
        let bye = try c.read(until: "goodbye").message
        #expect(bye["reason"] as? String == "the daemon is stopping")
        #expect(try c.next(timeout: 2) == nil)
        #expect(try d.process.wait(timeout: 10) == 0)
        if Requirement.isRoot {
            // Started as root, it runs as another user by now, who may not write the test's directory.
            #expect(d.log.contains("left the socket \(d.socket) (Permission denied); the next start replaces it"), "\(d.log)")
        } else {
            #expect(!FileManager.default.fileExists(atPath: d.socket), "the socket file is removed at exit")
        }
    }

    static let activate = "/usr/bin/systemd-socket-activate"

    @Test(
        "socket activation: the daemon serves on the socket systemd-socket-activate passes",
        .requires(.tool(activate, package: "systemd")))
    func socketActivation() throws {
        let dir = NSTemporaryDirectory() + "gestured-activate-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/activated.sock"
        // systemd-socket-activate listens, then starts gestured on the first connection with LISTEN_FDS=1.
        let d = try DaemonProcess(
            ["--replay", Self.tap, "--wait-subscribers", "1"], wrapper: [Self.activate, "-l", path, "-E", "NOTIFY_SOCKET"],
            waitReady: false)
        let c = try SocketClient(path: path)
        try c.subscribe()
        #expect(summarize(try c.gestures(quiet: 0.7)) == ["tap fingers=1"])
        _ = try d.notify.wait(for: "READY=1", timeout: 5)
        #expect(d.log.contains("(socket from systemd)"), "\(d.log)")
        // Its own --socket path was not bound: the passed socket was used.
        #expect(!FileManager.default.fileExists(atPath: d.socket))
    }

    @Test("a second instance on the same socket is refused; a stale socket file is replaced")
    func socketAlreadyTaken() throws {
        let first = try DaemonProcess(["--replay", Self.tap])
        let second = try runGestured(["serve", "--replay", Self.tap, "--socket", first.socket], timeout: 20)
        #expect(second.status == 1)
        #expect(
            second.err.contains("another gestured is already serving \(first.socket) (pid \(first.process.pid))"),
            "\(second.err)")
        // The first one still serves.
        let c = try SocketClient(path: first.socket)
        #expect(try c.next()?["type"] as? String == "hello")

        // Killed without cleaning up: its socket file stays, and the next start replaces it.
        first.signal(SIGKILL)
        try first.process.wait(timeout: 10)
        #expect(FileManager.default.fileExists(atPath: first.socket))
        let third = try Child([BuildProducts.gestured, "serve", "--replay", Self.tap, "--socket", first.socket], stdout: .null)
        let again = try SocketClient(path: first.socket)
        #expect(try again.next()?["type"] as? String == "hello")
        third.signal(SIGTERM)
        #expect(try third.wait(timeout: 10) == 0)
    }

    /// Runs `socat` as a stranger (`Requirement.strangerUID`) against `socket`, sending nothing; returns stdout and stderr.
    /// Nothing is written to it: socat exits as soon as its connection fails or closes, and a write could race that exit.
    static func asNobody(_ socket: String) throws -> (out: String, err: String) {
        let p = try Child(
            Requirement.asRoot([
                "/usr/bin/setpriv", "--reuid=\(Requirement.strangerUID)", "--regid=\(Requirement.strangerUID)", "--clear-groups",
                "/usr/bin/socat", "-t", "2", "-",
                "UNIX-CONNECT:" + socket,
            ]),
            stdin: .pipe, stderr: .pipe)
        p.closeInput()
        let r = try p.finish(timeout: 20)
        return (r.out, r.err)
    }

    @Test(
        "the socket is 0660 and the peer-credential allow-list is enforced",
        .requires(.root, .tool("/usr/bin/socat", package: "socat")))
    func accessControl() throws {
        // The directory must be reachable by nobody for the test (the socket's own mode is what is checked).
        let d = try DaemonProcess(["--replay", Self.tap])
        chmod(d.directory, 0o755)
        var st = stat()
        stat(d.socket, &st)
        #expect(st.st_mode & 0o777 == 0o660)
        let denied = try Self.asNobody(d.socket)
        #expect(denied.err.contains("Permission denied"), "\(denied)")
        #expect(try d.stop() == 0)

        // An open socket, but only the test's own group may subscribe: the stranger is told and closed.
        let open = try DaemonProcess(
            ["--replay", Self.tap], config: "[daemon]\nsocket-mode = \"0666\"\nallow-groups = [\(getgid())]\n")
        chmod(open.directory, 0o755)
        // The daemon speaks first, here with the refusal.
        let refused = try Self.asNobody(open.socket)
        #expect(refused.out.contains(#""code":"forbidden""#) && !refused.out.contains("hello"), "\(refused)")
        try open.waitForLog("refused client")
        // The test's own user is still served.
        let c = try SocketClient(path: open.socket)
        #expect(try c.next()?["type"] as? String == "hello")
        #expect(try open.stop() == 0)
    }
}
