import Foundation
import GestureDaemon
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The umockdev harness (`.build/harness/umockdev-harness`, built by
/// `scripts/build-harness.sh`) in a private mount namespace with a tmpfs on
/// /run/udev, driven one command at a time.
public final class UmockdevSession {
    private let process: Child
    private let replies: LineChannel
    /// Scratch directory for device records, logs and the socket.
    public let directory: String
    /// Datagram socket the daemon's sd_notify messages arrive on.
    public let notify: NotifyListener

    /// Why the harness cannot run here (nil: it can).
    public static var unavailable: String? {
        let dir = BuildProducts.harnessDirectory
        if !FileManager.default.isExecutableFile(atPath: dir + "/umockdev-harness")
            || !FileManager.default.fileExists(atPath: dir + "/fstat-fix.so")
        {
            return "the umockdev harness is not built (run `make harness`, which needs libumockdev-dev)"
        }
        return nil
    }

    public init() throws {
        directory = NSTemporaryDirectory() + "gestured-e2e-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        notify = try NotifyListener(path: directory + "/notify.sock")
        let harness = BuildProducts.harnessDirectory + "/umockdev-harness"
        let fix = BuildProducts.harnessDirectory + "/fstat-fix.so"
        // A tmpfs on /run/udev (or on /run when there is no /run/udev) in a private
        // mount namespace: udev database entries written there never reach the host.
        // The harness runs under umockdev's preload library itself (as
        // umockdev-wrapper would run it) so that the uevents it sends for hotplug
        // find the testbed's sysfs.
        let script = """
            set -e
            if [ -d /run/udev ]; then mount -t tmpfs tmpfs /run/udev; else mount -t tmpfs tmpfs /run; mkdir /run/udev; fi
            LD_PRELOAD=libumockdev-preload.so.0 exec "$0" "$1"
            """
        // Without root, a user namespace gives the mount namespace its privileges.
        let user = getuid() == 0 ? [] : ["--map-root-user"]
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = notify.path
        env.removeValue(forKey: "LISTEN_FDS")
        env.removeValue(forKey: "LISTEN_PID")
        process = try Child(
            ["/usr/bin/unshare"] + user + ["--mount", "--propagation", "private", "/bin/sh", "-c", script, harness, fix],
            environment: env, stdin: .pipe, stderr: .inherit)
        replies = LineChannel(fd: process.output)
    }

    deinit {
        // The harness kills the program it started and exits; if it does not
        // within 10 s, Child kills the process group.
        try? process.write("quit\n")
        process.closeInput()
        _ = try? process.wait(timeout: 10)
        // GESTURED_KEEP_E2E=1 keeps the records, logs and socket for a look afterwards.
        if ProcessInfo.processInfo.environment["GESTURED_KEEP_E2E"] == nil {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Sends one command; returns its reply, or throws with the reply when it is an error.
    @discardableResult
    public func command(_ line: String, timeout: Double = 10) throws -> String {
        try process.write(line + "\n")
        guard let reply = try replies.readLine(timeout: timeout) else {
            throw ChannelError("the harness exited (command: \(line))")
        }
        if reply.hasPrefix("error") { throw ChannelError("harness: \(reply) (command: \(line))") }
        return reply
    }

    /// Writes a device's records and adds it to the testbed.
    public func add(_ device: EmulatedTouchscreen, uevent: Bool = false) throws {
        let base = directory + "/event\(device.number)"
        try device.umockdevRecord.write(toFile: base + ".umockdev", atomically: true, encoding: .utf8)
        try device.ioctlRecord.write(toFile: base + ".ioctl", atomically: true, encoding: .utf8)
        try command(
            "add \(base).umockdev \(base).ioctl \(device.devnode) \(device.minor) \(device.kind)"
                + (uevent ? " uevent" : ""))
    }

    /// Starts `gestured` with `arguments` inside the testbed; its output goes to `log`.
    public func startDaemon(_ arguments: [String]) throws {
        try command("start \(log) \(BuildProducts.gestured) " + arguments.joined(separator: " "))
    }

    public var log: String { directory + "/gestured.log" }
    public var socket: String { directory + "/gestured.sock" }

    public var daemonLog: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
}

/// Receives sd_notify datagrams, as systemd would.
public final class NotifyListener {
    public let path: String
    public let fd: Int32

    public init(path: String) throws {
        self.path = path
        guard let addr = UnixAddress(path) else { throw ChannelError("\(path): too long for a Unix socket") }
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        let r = addr.bind(fd)
        guard r == 0 else { throw ChannelError("bind \(path): \(String(cString: strerror(errno)))") }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The next datagram's text, waiting at most `timeout` seconds.
    public func next(timeout: Double) -> String? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(timeout * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
    }

    /// Waits for a datagram containing `field` (e.g. "READY=1"); returns every datagram seen.
    public func wait(for field: String, timeout: Double) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout * Timing.scale)
        var seen: [String] = []
        while Date() < deadline {
            guard let m = next(timeout: max(0.01, deadline.timeIntervalSinceNow)) else { continue }
            seen.append(m)
            if m.split(separator: "\n").contains(Substring(field)) { return seen }
        }
        throw ChannelError("no \(field) within \(timeout) s; got \(seen)")
    }
}
