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

    /// Runs `socat` as a stranger (`Requirement.strangerUID`) against `socket`, sending `line` (if not empty); returns stdout and stderr.
    static func asNobody(_ socket: String, _ line: String) throws -> (out: String, err: String) {
        let p = try Child(
            Requirement.asRoot([
                "/usr/bin/setpriv", "--reuid=\(Requirement.strangerUID)", "--regid=\(Requirement.strangerUID)", "--clear-groups",
                "/usr/bin/socat", "-t", "2", "-",
                "UNIX-CONNECT:" + socket,
            ]),
            stdin: .pipe, stderr: .pipe)
        if !line.isEmpty { try p.write(line + "\n") }
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
        let denied = try Self.asNobody(d.socket, #"{"type":"ping"}"#)
        #expect(denied.err.contains("Permission denied"), "\(denied)")
        #expect(try d.stop() == 0)

        // An open socket, but only the test's own group may subscribe: the stranger is told and closed.
        let open = try DaemonProcess(
            ["--replay", Self.tap], config: "[daemon]\nsocket-mode = \"0666\"\nallow-groups = [\(getgid())]\n")
        chmod(open.directory, 0o755)
        // Nothing is sent: the daemon speaks first, here with the refusal (writing could race its close).
        let refused = try Self.asNobody(open.socket, "")
        #expect(refused.out.contains(#""code":"forbidden""#) && !refused.out.contains("hello"), "\(refused)")
        try open.waitForLog("refused client")
        // The test's own user is still served.
        let c = try SocketClient(path: open.socket)
        #expect(try c.next()?["type"] as? String == "hello")
        #expect(try open.stop() == 0)
    }
}

/// The shipped units, checked by systemd itself.
@Suite("systemd units", .serialized)
struct SystemdUnitTests {
    /// Runs a script of scripts/ with GESTURED_BIN set to the binary under test.
    /// As root (through `sudo -n` when the tests do not run as root) with `asRoot`.
    static func script(_ name: String, asRoot: Bool = false) throws -> (status: Int32, output: String) {
        // Bounded: timeout(1) sends a script that hangs SIGTERM, so that its
        // EXIT trap cleans up, and SIGKILL 10 s later; the test fails instead
        // of the whole run hanging. Child's own limit is the last resort.
        // The binary is named on the command line: sudo clears the environment.
        let limit = 180.0
        let command = [
            "/usr/bin/env", "GESTURED_BIN=" + BuildProducts.gestured, "/usr/bin/timeout", "-k", "10", "\(Int(limit))",
            "/bin/bash", BuildProducts.packageRoot + "/scripts/" + name,
        ]
        let p = try Child(asRoot ? Requirement.asRoot(command) : command)
        do {
            let r = try p.finish(timeout: (limit + 20) / Timing.scale)
            return (r.status, r.out)
        } catch {
            return (-1, "\(name): \(error)")
        }
    }

    @Test(
        "systemd-analyze verify passes and the security exposure is low; nothing is installed outside the scratch directory",
        .requires(.tool("/usr/bin/systemd-analyze", package: "systemd")))
    func verify() throws {
        // What install-files writes by default, which the script must not touch.
        let defaults = [
            "/usr/local/share/gestured", "/usr/local/share/man/man1/gestured.1", "/usr/local/bin/gestured",
            "/usr/local/lib/udev/rules.d/70-gestured.rules", "/usr/local/share/bash-completion/completions/gestured",
        ]
        let before = defaults.filter { FileManager.default.fileExists(atPath: $0) }
        let (status, output) = try Self.script("check-units.sh")
        #expect(
            defaults.filter { FileManager.default.fileExists(atPath: $0) } == before, "check-units.sh installed into /usr/local")
        #expect(status == 0, "\(output)")
        let score = output.split(separator: "\n").last { $0.contains("Overall exposure level") }
        let value = score.flatMap { $0.split(separator: " ").compactMap { Double($0) }.first }
        #expect(value != nil && value! <= 2.0, "\(output)")
    }

    @Test(
        "under a real systemd: systemd-run --service-type=notify, then the socket-activated service as user gestured; the socket survives restarts, kill -9 and a stopped loop the watchdog restarts",
        .requires(.root, .tool("/lib/systemd/systemd", package: "systemd")))
    func smoke() throws {
        let (status, output) = try Self.script("systemd-smoke.sh", asRoot: true)
        #expect(status == 0 && output.contains("systemd-smoke: ok"), "\(output)")
        #expect(output.contains("pinch          ended"), "systemd-run: the monitor received the replayed pinch\n\(output)")
        #expect(output.contains("srw-rw---- 1 root gesture"), "\(output)")
        #expect(output.contains("User=gestured") && output.contains("gestured gestured"), "\(output)")
        #expect(output.contains("configuration reloaded"), "\(output)")
        // The socket survives first use, a restart and a crash with its owner,
        // group and mode, and a member of `gesture` is served each time.
        for moment in ["first use", "after restart", "after kill -9"] {
            #expect(output.contains("\(moment): member got hello"), "\(output)")
            #expect(output.contains("\(moment): socket srw-rw---- root gesture drwxr-xr-x root root"), "\(output)")
        }
        #expect(output.contains("service active, restarts 1"), "\(output)")
        #expect(output.contains("a stopped loop: restarted by the watchdog, restarts 2"), "\(output)")
        #expect(output.contains("after the watchdog: member got hello"), "\(output)")
        #expect(output.contains("other got no hello") && output.contains("Permission denied"), "\(output)")
        // Thousands of connections in the journal as a handful of lines; the reload's notice among them.
        let churned = output.split(separator: "\n").first { $0.hasPrefix("churn: ") }.flatMap {
            Int($0.split(separator: " ")[1])
        }
        let lines = output.split(separator: "\n").first { $0.hasPrefix("journal: ") }.flatMap {
            Int($0.split(separator: " ")[1])
        }
        print("systemd smoke: \(churned ?? 0) connections in 3 s; \(lines ?? 0) journal lines from gestured in all")
        #expect((churned ?? 0) > 1000 && (lines ?? 1000) < 60, "\(output)")
    }
}
