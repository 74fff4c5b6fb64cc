import Foundation
import Harness
import Testing

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
            "/etc/polkit-1/rules.d/50-gestured-sensor.rules", "/usr/share/libinput/50-gestured-touchpad.quirks",
        ]
        let before = defaults.filter { FileManager.default.fileExists(atPath: $0) }
        let (status, output) = try Self.script("check-units.sh")
        #expect(
            defaults.filter { FileManager.default.fileExists(atPath: $0) } == before,
            "check-units.sh installed outside its scratch directory")
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
