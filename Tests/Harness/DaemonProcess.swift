import Foundation
import GestureCore

#if canImport(Glibc)
    import Glibc
#endif

/// A `gestured serve` started for a test, with its own scratch directory,
/// socket and sd_notify listener; stopped with SIGTERM.
public final class DaemonProcess {
    public let process: Child
    public let directory: String
    public let notify: NotifyListener
    /// DIR/gestured.sock, unless the test named another.
    public let socket: String
    private let logPath: String

    /// Starts `gestured serve --socket DIR/gestured.sock ARGS` (or `socketPath`) and waits for READY=1.
    /// `config` is written to DIR/gestured.toml and passed with --config.
    /// The daemon asks no system bus but `systemBus` (a test's own, where
    /// `LogindMock` plays logind): never the machine's logind, so that who
    /// is logged in here changes nothing.
    public init(
        _ arguments: [String], config: String? = nil, wrapper: [String] = [], waitReady: Bool = true, systemBus: String? = nil,
        socketPath: String? = nil
    ) throws {
        directory = NSTemporaryDirectory() + "gestured-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        socket = socketPath ?? directory + "/gestured.sock"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        notify = try NotifyListener(path: directory + "/notify.sock")
        logPath = directory + "/gestured.log"
        var args = ["serve", "--socket", socket] + arguments
        if let config {
            try config.write(toFile: directory + "/gestured.toml", atomically: true, encoding: .utf8)
            args += ["--config", directory + "/gestured.toml"]
        }
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = notify.path
        for k in ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "JOURNAL_STREAM"] { env.removeValue(forKey: k) }
        env["DBUS_SYSTEM_BUS_ADDRESS"] = systemBus ?? "unix:path=\(directory)/no-system-bus"
        // A wrapper such as sudo resets the environment: what the daemon
        // must see is given to it again after the wrapper.
        let kept =
            wrapper.isEmpty ? [] : ["/usr/bin/env"] + ["NOTIFY_SOCKET", "DBUS_SYSTEM_BUS_ADDRESS"].map { "\($0)=\(env[$0]!)" }
        process = try Child(wrapper + kept + [BuildProducts.gestured] + args, environment: env, stdout: .file(logPath))
        if waitReady { _ = try notify.wait(for: "READY=1", timeout: 10) }
    }

    /// SIGTERM, then SIGKILL to what is left after 10 s.
    deinit {
        process.signal(SIGTERM)
        _ = try? process.wait(timeout: 10)
        try? FileManager.default.removeItem(atPath: directory)
    }

    public func signal(_ signo: Int32) { process.signal(signo) }

    /// SIGTERM, then the exit status; throws (having killed it) when it has not exited within 20 s.
    @discardableResult
    public func stop() throws -> Int32 {
        signal(SIGTERM)
        return try process.wait(timeout: 20)
    }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Waits until the log contains `text`.
    public func waitForLog(_ text: String, timeout: Double = 5) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if log.contains(text) { return }
            usleep(20_000)
        }
        throw ChannelError("the log never said \"\(text)\":\n\(log)")
    }

    /// A recording of the repository's Recordings/.
    public static func recording(_ name: String) -> String { BuildProducts.packageRoot + "/Recordings/" + name }

    /// An evemu file's lines, and the indices of those that end a frame
    /// (`SYN_REPORT`), for tests that cut or splice a recording.
    public static func evemuLines(_ path: String) throws -> (lines: [Substring], reports: [Int]) {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        return (lines, lines.indices.filter { lines[$0].hasPrefix("E: ") && lines[$0].hasSuffix(" 0000 0000 0") })
    }

    /// The summaries a recording's `.expect` lists (comments and blank lines left out).
    public static func expected(_ name: String) throws -> [String] {
        let path = recording(name.replacingOccurrences(of: ".evemu", with: ".expect"))
        return ExpectFile(try String(contentsOfFile: path, encoding: .utf8)).gestures
    }
}

/// What a `gestured` command printed and how it ended.
public struct CommandResult {
    public var status: Int32
    public var out: String
    public var err: String
}

/// Runs the `gestured` under test with `arguments` to the end (at most
/// `timeout` seconds, times `Timing.scale`).
public func runGestured(_ arguments: [String], timeout: Double = 120) throws -> CommandResult {
    let r = try Child.run([BuildProducts.gestured] + arguments, timeout: timeout)
    return CommandResult(status: r.status, out: r.out, err: r.err)
}
