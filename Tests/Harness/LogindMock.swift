import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// logind on a system bus of the test's own: a `dbus-daemon` with a
/// system-bus configuration listening in a scratch directory, and
/// python-dbusmock's `logind` template on it (Debian's python3-dbusmock,
/// for the system's Python). A daemon started with `systemBus: address`
/// asks it who is at the screen; the test adds sessions and switches the
/// active one.
public final class LogindMock {
    public let directory: String
    public var address: String { "unix:path=\(directory)/bus" }
    private let bus: Child
    private let mock: Child

    /// What a test needs to run one.
    public static let requirement = Requirement(
        met: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock/templates/logind.py"),
        missing: "no dbus-daemon or python3-dbusmock: `make setup` installs them (Debian packages dbus-daemon, python3-dbusmock)")

    public init() throws {
        directory = NSTemporaryDirectory() + "gestured-logind-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o755)
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:path=\(directory)/bus</listen>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_type="method_call"/>
                <allow send_type="signal"/>
                <allow send_type="method_return"/>
                <allow send_type="error"/>
                <allow receive_type="method_call"/>
                <allow receive_type="signal"/>
                <allow receive_type="method_return"/>
                <allow receive_type="error"/>
              </policy>
            </busconfig>
            """
        try config.write(toFile: directory + "/bus.conf", atomically: true, encoding: .utf8)
        bus = try Child(["/usr/bin/dbus-daemon", "--config-file=\(directory)/bus.conf", "--nofork"], stdout: .null)
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: directory + "/bus") { usleep(10_000) }
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(directory)/bus"
        mock = try Child(
            ["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", "logind"], environment: env,
            stdout: .file(directory + "/mock.log"))
        // Ready once it answers.
        for _ in 0..<200 {
            if (try? call("seat = None")) != nil { return }
            usleep(50_000)
        }
        throw ChannelError("python-dbusmock's logind did not come up: \(log)")
    }

    deinit {
        for child in [mock, bus] {
            child.signal(SIGTERM)
            _ = try? child.wait(timeout: 10)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    public var log: String { (try? String(contentsOfFile: directory + "/mock.log", encoding: .utf8)) ?? "" }

    /// Runs `body` (Python, with `dbus` imported and `login1`, the mock's
    /// main object, at hand) against the bus.
    @discardableResult
    private func call(_ body: String) throws -> String {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(directory)/bus"
        let script = """
            import dbus
            bus = dbus.SystemBus()
            login1 = bus.get_object('org.freedesktop.login1', '/org/freedesktop/login1')
            login1.ListSessions(dbus_interface='org.freedesktop.login1.Manager')
            \(body)
            """
        let r = try Child.run(["/usr/bin/python3", "-c", script], environment: env, timeout: 20)
        guard r.status == 0 else { throw ChannelError("logind mock: \(r.err)") }
        return r.out
    }

    /// A session of `uid` on seat0 (logind's mock makes each new session the active one).
    public func addSession(_ id: String, uid: UInt32, name: String) throws {
        try call(
            "login1.AddSession('\(id)', 'seat0', dbus.UInt32(\(uid)), '\(name)', True, dbus_interface='org.freedesktop.DBus.Mock')"
        )
    }

    /// Makes session `id` the active one on seat0 (PropertiesChanged follows).
    public func activate(_ id: String) throws {
        try call(
            """
            seat = bus.get_object('org.freedesktop.login1', '/org/freedesktop/login1/seat/seat0')
            seat.Set('org.freedesktop.login1.Seat', 'ActiveSession', dbus.Struct(('\(id)', dbus.ObjectPath('/org/freedesktop/login1/session/\(id)'))), dbus_interface='org.freedesktop.DBus.Properties')
            """)
    }
}
