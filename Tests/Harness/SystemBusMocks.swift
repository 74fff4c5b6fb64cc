import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A system bus of the test's own: a `dbus-daemon` with a system-bus
/// configuration listening in a scratch directory. A daemon started with
/// `systemBus: address` talks to what the mocks on it play (python-dbusmock's
/// templates, Debian's python3-dbusmock, for the system's Python).
public final class PrivateSystemBus {
    public let directory: String
    public var address: String { "unix:path=\(directory)/bus" }
    private let bus: Child
    private var mocks: [Child] = []

    public static let requirement = Requirement(
        met: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock/templates/logind.py"),
        missing: "no dbus-daemon or python3-dbusmock: `make setup` installs them (Debian packages dbus-daemon, python3-dbusmock)")

    public init() throws {
        directory = NSTemporaryDirectory() + "gestured-bus-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
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
    }

    deinit {
        for child in mocks + [bus] {
            child.signal(SIGTERM)
            _ = try? child.wait(timeout: 10)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts `command` beside the bus, on it; its output goes to `log`.
    func start(_ command: [String], log: String) throws {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = address
        mocks.append(try Child(command, environment: env, stdout: .file(directory + "/" + log)))
    }

    /// Starts python-dbusmock's `template` (with `parameters`, JSON) on the bus; its log goes to `log`.
    @discardableResult
    func startMock(_ template: String, parameters: String? = nil, log: String) throws -> Child {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = address
        let mock = try Child(
            ["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", template]
                + (parameters.map { ["-p", $0] } ?? []),
            environment: env, stdout: .file(directory + "/" + log))
        mocks.append(mock)
        return mock
    }

    /// Runs `script` (Python, with `dbus` imported and `bus`, the system bus, at hand).
    @discardableResult
    func python(_ script: String) throws -> String {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = address
        let r = try Child.run(
            ["/usr/bin/python3", "-c", "import dbus\nbus = dbus.SystemBus()\n" + script], environment: env, timeout: 20)
        guard r.status == 0 else { throw ChannelError("system bus mock: \(r.err)") }
        return r.out
    }

    func log(_ name: String) -> String { (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? "" }
}

/// logind on a private system bus: python-dbusmock's `logind` template. A
/// daemon started with `systemBus: address` asks it who is at the screen;
/// the test adds sessions and switches the active one.
public final class LogindMock {
    public let bus: PrivateSystemBus
    public var address: String { bus.address }
    public var directory: String { bus.directory }

    /// What a test needs to run one.
    public static let requirement = PrivateSystemBus.requirement

    public convenience init() throws { try self.init(bus: PrivateSystemBus()) }

    public init(bus: PrivateSystemBus) throws {
        self.bus = bus
        try bus.startMock("logind", log: "logind.log")
        // Ready once it answers.
        for _ in 0..<200 {
            if (try? call("seat = None")) != nil { return }
            usleep(50_000)
        }
        throw ChannelError("python-dbusmock's logind did not come up: \(log)")
    }

    public var log: String { bus.log("logind.log") }

    /// Runs `body` (Python, with `login1`, the mock's main object, at hand).
    @discardableResult
    private func call(_ body: String) throws -> String {
        try bus.python(
            """
            login1 = bus.get_object('org.freedesktop.login1', '/org/freedesktop/login1')
            login1.ListSessions(dbus_interface='org.freedesktop.login1.Manager')
            \(body)
            """)
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

/// Two strangers' sessions on seat0 (`c1` of `first`, the active one; `c2`
/// of `second`) in python-dbusmock's logind, and a daemon replaying a trace
/// in a loop to a socket both may open, once it knows who is at the screen.
public struct TwoSessions {
    public let logind: LogindMock
    public let daemon: DaemonProcess
    /// Neither root nor what a daemon started as root becomes.
    public let first = Requirement.strangerUID
    public let second = Requirement.strangerUID + 1

    public init(replaying trace: String) throws {
        logind = try LogindMock()
        try logind.addSession("c2", uid: second, name: "second")
        try logind.addSession("c1", uid: first, name: "first")
        daemon = try DaemonProcess(
            ["--replay", trace, "--loop"], config: "[daemon]\nsocket-mode = \"0666\"\n", systemBus: logind.address)
        chmod(daemon.directory, 0o755)
        try daemon.waitForLog("seat0: the active session is uid \(first)'s", timeout: 10)
    }
}

/// A logind of the test's own (Tests/Harness/python/fake_logind.py) on a
/// private system bus: the seat's active session, its user and its lock,
/// and a control object that makes it answer, err or never answer,
/// switches the active session and locks it (with the signals logind
/// sends) and counts the questions it was asked.
public final class FakeLogind {
    public let bus: PrivateSystemBus
    public var address: String { bus.address }

    public static let requirement = PrivateSystemBus.requirement

    /// logind with session `session` of `uid` active.
    public init(uid: UInt32, session: String = "c1") throws {
        bus = try PrivateSystemBus()
        try bus.start(
            ["/usr/bin/python3", BuildProducts.packageRoot + "/Tests/Harness/python/fake_logind.py", "\(uid)", session],
            log: "fake-logind.log")
        for _ in 0..<200 {
            if bus.log("fake-logind.log").contains("ready") { return }
            usleep(50_000)
        }
        throw ChannelError("the fake logind did not come up: \(bus.log("fake-logind.log"))")
    }

    private func control(_ call: String) throws -> String {
        try bus.python(
            "c = bus.get_object('org.freedesktop.login1', '/control')\nprint(c.\(call), flush=True)")
    }

    /// `answer`, `error` (every question gets an error) or `stall` (no answer ever comes).
    public func set(mode: String) throws { _ = try control("SetMode('\(mode)', dbus_interface='test.Control')") }

    /// Makes session `name` of `uid` the active one, and sends logind's signal.
    public func activate(_ name: String, uid: UInt32) throws {
        _ = try control("Activate('\(name)', dbus.UInt32(\(uid)), dbus_interface='test.Control')")
    }

    /// Locks or unlocks the active session (its `LockedHint`), with logind's signal.
    public func set(locked: Bool) throws {
        _ = try control("SetLocked(\(locked ? "True" : "False"), dbus_interface='test.Control')")
    }

    /// Answers, and the signal of the next switch, come `seconds` late (a busy logind).
    public func set(delay seconds: Double) throws { _ = try control("SetDelay(\(seconds), dbus_interface='test.Control')") }

    /// `count` changes of the active session's `LockedHint` as fast as they
    /// go, each with logind's signal, the last one locking it.
    public func flip(_ count: Int) throws { _ = try control("Flip(\(count), dbus_interface='test.Control')") }

    /// How many questions it has been asked.
    public func questions() throws -> Int {
        guard let n = Int(try control("Questions(dbus_interface='test.Control')").trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw ChannelError("the fake logind did not count its questions") }
        return n
    }
}

extension PrivateSystemBus {
    /// Another client of the bus sends every other client `count` signals
    /// that look like `service`'s `PropertiesChanged` on `path`, then a
    /// `NameOwnerChanged` saying it left, as if from the bus driver
    /// (Tests/Harness/python/forge_signals.py). How many it sent.
    public func forge(service: String, path: String, interface: String, count: Int) throws -> Int {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = address
        let r = try Child.run(
            [
                "/usr/bin/python3", BuildProducts.packageRoot + "/Tests/Harness/python/forge_signals.py", service, path,
                interface, "\(count)",
            ], environment: env, timeout: 60)
        guard r.status == 0, let n = Int(r.out.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ChannelError("the forger failed: \(r.err)")
        }
        return n
    }
}

/// iio-sensor-proxy on a private system bus: python-dbusmock's
/// `iio-sensors-proxy` template, with an accelerometer whose orientation the
/// test sets, and which says who claims it.
public final class SensorProxyMock {
    public let bus: PrivateSystemBus
    private var mock: Child?

    public init(bus: PrivateSystemBus) throws {
        self.bus = bus
        try start()
    }

    /// Starts the proxy (again) and waits until it answers.
    public func start() throws {
        mock = try bus.startMock("iio-sensors-proxy", parameters: #"{"has_accelerometer": true}"#, log: "sensors.log")
        for _ in 0..<200 {
            if (try? claimants()) != nil { return }
            usleep(50_000)
        }
        throw ChannelError("python-dbusmock's iio-sensors-proxy did not come up: \(bus.log("sensors.log"))")
    }

    /// Stops the proxy: its name leaves the bus, with every claim.
    public func stop() throws {
        mock?.signal(SIGTERM)
        _ = try mock?.wait(timeout: 10)
        mock = nil
    }

    private static let proxy =
        "proxy = bus.get_object('net.hadess.SensorProxy', '/net/hadess/SensorProxy')\n"

    /// Sets `AccelerometerOrientation` (normal, left-up, bottom-up, right-up, undefined); the claimants are told.
    public func orient(_ side: String) throws {
        try bus.python(
            Self.proxy
                + "proxy.SetInternalProperty('net.hadess.SensorProxy', 'AccelerometerOrientation', '\(side)', dbus_interface='org.freedesktop.DBus.Mock')"
        )
    }

    /// How many times it was asked for the orientation (its log says each call).
    public func orientationQuestions() -> Int {
        bus.log("sensors.log").components(
            separatedBy: "Get /net/hadess/SensorProxy net.hadess.SensorProxy.AccelerometerOrientation"
        )
        .count - 1
    }

    /// How many connections claim the accelerometer now.
    public func claimants() throws -> Int {
        let out = try bus.python(
            Self.proxy
                + "print(len(proxy.GetInternalProperty('AccelerometerOwners', dbus_interface='org.freedesktop.DBus.Mock')))")
        guard let n = Int(out.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ChannelError("iio-sensors-proxy mock: not a count: \(out)")
        }
        return n
    }
}
