package import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `gestured serve` started for a test, with its own scratch directory,
/// socket and sd_notify listener; stopped with SIGTERM.
package final class DaemonProcess {
    package let process = Process()
    package let directory: String
    package let notify: NotifyListener
    package var socket: String { directory + "/gestured.sock" }
    private let logPath: String

    /// Starts `gestured serve --socket DIR/gestured.sock ARGS` and waits for READY=1.
    /// `config` is written to DIR/gestured.toml and passed with --config.
    package init(_ arguments: [String], config: String? = nil, wrapper: [String] = [], waitReady: Bool = true) throws {
        directory = NSTemporaryDirectory() + "gestured-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        notify = try NotifyListener(path: directory + "/notify.sock")
        logPath = directory + "/gestured.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        var args = ["serve", "--socket", directory + "/gestured.sock"] + arguments
        if let config {
            try config.write(toFile: directory + "/gestured.toml", atomically: true, encoding: .utf8)
            args += ["--config", directory + "/gestured.toml"]
        }
        if wrapper.isEmpty {
            process.executableURL = URL(fileURLWithPath: BuildProducts.gestured)
            process.arguments = args
        } else {
            process.executableURL = URL(fileURLWithPath: wrapper[0])
            process.arguments = Array(wrapper.dropFirst()) + [BuildProducts.gestured] + args
        }
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = notify.path
        for k in ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "JOURNAL_STREAM"] { env.removeValue(forKey: k) }
        process.environment = env
        let log = FileHandle(forWritingAtPath: logPath)!
        process.standardError = log
        process.standardOutput = log
        try process.run()
        if waitReady { _ = try notify.wait(for: "READY=1", timeout: 10) }
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    package func signal(_ signo: Int32) { kill(process.processIdentifier, signo) }

    /// SIGTERM, then the exit status.
    @discardableResult
    package func stop() -> Int32 {
        if process.isRunning { signal(SIGTERM) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    package var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Waits until the log contains `text`.
    package func waitForLog(_ text: String, timeout: Double = 5) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if log.contains(text) { return }
            usleep(20_000)
        }
        throw ChannelError("the log never said \"\(text)\":\n\(log)")
    }

    /// A recording of the repository's Recordings/.
    package static func recording(_ name: String) -> String { BuildProducts.packageRoot + "/Recordings/" + name }
}

/// What a `gestured` command printed and how it ended.
package struct CommandResult {
    package var status: Int32
    package var out: String
    package var err: String
}

/// Runs the `gestured` under test with `arguments` to the end; stdout and
/// stderr go through files, so neither can block the other.
package func runGestured(_ arguments: [String]) throws -> CommandResult {
    let base = NSTemporaryDirectory() + "gestured-run-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    guard FileManager.default.createFile(atPath: base + ".out", contents: nil),
        FileManager.default.createFile(atPath: base + ".err", contents: nil)
    else { throw ChannelError("cannot create \(base).out/.err") }
    defer {
        try? FileManager.default.removeItem(atPath: base + ".out")
        try? FileManager.default.removeItem(atPath: base + ".err")
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: BuildProducts.gestured)
    p.arguments = arguments
    p.standardOutput = FileHandle(forWritingAtPath: base + ".out")
    p.standardError = FileHandle(forWritingAtPath: base + ".err")
    try p.run()
    p.waitUntilExit()
    return CommandResult(
        status: p.terminationStatus, out: try String(contentsOfFile: base + ".out", encoding: .utf8),
        err: try String(contentsOfFile: base + ".err", encoding: .utf8))
}
