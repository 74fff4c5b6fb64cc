import Foundation
import GestureCore
import GestureDaemon
import Harness
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Directions that follow the screen: protocol 1.4's `orientation` request
/// from a client of the active session, and `rotation = "auto"` following
/// iio-sensor-proxy (python-dbusmock's template on a private system bus).
@Suite("Screen orientation at run time", .serialized)
struct OrientationTests {
    static let swipe = DaemonProcess.recording("fast-swipe-up-3f.laptop.evemu")
    static let device = "Synthetic Laptop Touchscreen"

    /// The directions of the next `count` swipes `c` receives, and the orientation events among them.
    static func swipes(_ c: SocketClient, _ count: Int) throws -> (directions: [String], orientations: [String]) {
        var directions: [String] = []
        var orientations: [String] = []
        while directions.count < count {
            guard let m = try c.next(timeout: 10) else { throw ChannelError("closed") }
            if m["type"] as? String == "gesture" { directions.append(m["direction"] as? String ?? "?") }
            if m["type"] as? String == "orientation" {
                orientations.append("\(m["transform"] as? String ?? "?") \(m["source"] as? String ?? "?")")
            }
        }
        return (directions, orientations)
    }

    /// Reads until an `orientation` event; its transform and source.
    static func nextOrientation(_ c: SocketClient) throws -> String {
        let m = try c.read(until: "orientation", timeout: 10).message
        return "\(m["transform"] as? String ?? "?") \(m["source"] as? String ?? "?")"
    }

    @Test("parsing: a transform by name; a clear error for an unknown one or a missing field")
    func parsing() throws {
        let ok = try ClientRequest.parse(
            Array(#"{"type":"orientation","device":"/dev/input/event5","transform":"flipped-90"}"#.utf8))
        #expect(ok == .orientation(device: "/dev/input/event5", transform: .flipped90))
        for (line, says) in [
            (#"{"type":"orientation","device":"x","transform":"sideways"}"#, "unknown transform 'sideways'; known: normal, 90"),
            (#"{"type":"orientation","device":"x"}"#, "\"device\" and \"transform\" must be strings"),
            (#"{"type":"orientation","device":"x","transform":90}"#, "\"device\" and \"transform\" must be strings"),
        ] {
            #expect(throws: RequestError.self) { try ClientRequest.parse(Array(line.utf8)) }
            do {
                _ = try ClientRequest.parse(Array(line.utf8))
            } catch {
                #expect(error.code == "bad-request" && error.message.contains(says), "\(error.message)")
            }
        }
    }

    @Test(
        "a client's orientation turns the next swipes; subscribers are told; errors for what cannot be taken; forgotten when the client goes"
    )
    func fromClient() throws {
        let d = try DaemonProcess(["--replay", Self.swipe, "--loop", "--wait-subscribers", "1"])
        let watcher = try SocketClient(path: d.socket)
        let hello = try #require(try watcher.next())
        let devices = try #require(hello["devices"] as? [[String: Any]])
        #expect(hello["version"] as? [Int] == [1, 13])
        #expect(devices.first?["orientation"] as? String == "normal")
        #expect(devices.first?["orientation_source"] as? String == "configuration")
        let node = try #require(devices.first?["node"] as? String)
        try watcher.send(#"{"type":"subscribe","gestures":["swipe"],"phases":["recognized"]}"#)
        _ = try watcher.read(until: "subscribed")
        #expect(try Self.swipes(watcher, 1).directions == ["up"])

        let turner = try SocketClient(path: d.socket)
        _ = try turner.next()
        try turner.send(#"{"type":"orientation","device":"\#(node)","transform":"90"}"#)
        let ack = try turner.read(until: "oriented").message
        #expect(ack["devices"] as? [String] == [node] && ack["transform"] as? String == "90")
        let event = try watcher.read(until: "orientation", timeout: 10).message
        #expect(event["transform"] as? String == "90" && event["source"] as? String == "session")
        // The picture turned: its width is the panel's height.
        #expect((event["width_mm"] as? Double).map { $0 < (event["height_mm"] as? Double ?? 0) } == true, "\(event)")
        // A swipe under way when the turn came keeps its direction; the next ones are the picture's.
        let after = try Self.swipes(watcher, 3).directions
        #expect(after.last == "right" && after.drop { $0 == "up" }.allSatisfy { $0 == "right" }, "\(after)")

        // What cannot be taken is answered with a reason, and changes nothing.
        for (line, code) in [
            (#"{"type":"orientation","device":"no such panel","transform":"180"}"#, "no-device"),
            (#"{"type":"orientation","device":"\#(node)","transform":"upside-down"}"#, "bad-request"),
        ] {
            try turner.send(line)
            let error = try turner.read(until: "error").message
            #expect(error["code"] as? String == code, "\(error)")
        }
        // A flood is cut at five a second.
        for _ in 0..<8 { try turner.send(#"{"type":"orientation","device":"\#(Self.device)","transform":"90"}"#) }
        var codes: [String] = []
        for _ in 0..<8 {
            let m = try #require(try turner.next())
            codes.append(m["type"] as? String == "error" ? m["code"] as? String ?? "?" : m["type"] as? String ?? "?")
        }
        #expect(codes.contains("rate-limited") && codes.contains("oriented"), "\(codes)")

        // The client goes: its word goes with it.
        turner.hangUp()
        #expect(try Self.nextOrientation(watcher) == "normal configuration")
        let back = try Self.swipes(watcher, 3).directions
        #expect(back.last == "up", "\(back)")
        #expect(d.log.contains("\(Self.device): touches read turned 90 (session), from the next touch"), "\(d.log)")
        #expect(try d.stop() == 0)
    }

    /// A client run as `uid` that asks for `transform` and prints what it is answered.
    static let asker = """
        import socket, sys, json
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[1])
        f = s.makefile('rw')
        hello = json.loads(f.readline())
        node = hello['devices'][0]['node']
        f.write(json.dumps({'type': 'orientation', 'device': node, 'transform': sys.argv[2]}) + '\\n')
        f.flush()
        print(f.readline().strip(), flush=True)
        """

    @Test(
        "only a client of the active session's user may turn the screen; when that session stops being active its word is forgotten",
        .requires(.root, LogindMock.requirement))
    func activeSessionOnly() throws {
        let sessions = try TwoSessions(replaying: Self.swipe)
        let (logind, d, first, second) = (sessions.logind, sessions.daemon, sessions.first, sessions.second)
        let watcher = try SocketClient(path: d.socket)
        try watcher.subscribe(#""gestures":["swipe"],"phases":["recognized"]"#)

        func ask(_ uid: UInt32, _ transform: String) throws -> String {
            let c = try Child(Requirement.asUser(uid, ["/usr/bin/python3", "-c", Self.asker, d.socket, transform]))
            return try c.finish(timeout: 30).out
        }
        let refused = try ask(second, "180")
        #expect(refused.contains(#""code":"not-at-screen""#), "\(refused)")
        // Kept open while the session switches: a client that asks and stays.
        let stays = try Child(
            Requirement.asUser(
                first, ["/usr/bin/python3", "-c", Self.asker + "\nimport time\ntime.sleep(30)\n", d.socket, "270"]))
        #expect(try Self.nextOrientation(watcher) == "270 session", "\(d.log)")
        try logind.activate("c2")
        #expect(try Self.nextOrientation(watcher) == "normal configuration")
        stays.signal(SIGTERM)
        _ = try stays.wait(timeout: 10)
        #expect(!d.log.contains("180 (session)"), "\(d.log)")
        #expect(try d.stop() == 0)
    }

    static let auto = """
        [[device]]
        match = "Synthetic Laptop Touchscreen"
        rotation = "auto"
        """

    /// iio-sensor-proxy's mock on a private system bus, a daemon replaying
    /// swipes with `rotation = "auto"`, a subscriber of recognized swipes;
    /// returned once the daemon has claimed the accelerometer (or 5 s passed).
    static func following() throws -> (sensor: SensorProxyMock, daemon: DaemonProcess, watcher: SocketClient) {
        let sensor = try SensorProxyMock(bus: PrivateSystemBus())
        let d = try DaemonProcess(["--replay", swipe, "--loop"], config: auto, systemBus: sensor.bus.address)
        let watcher = try SocketClient(path: d.socket)
        try watcher.subscribe(#""gestures":["swipe"],"phases":["recognized"]"#)
        for _ in 0..<100 where try sensor.claimants() == 0 { usleep(50_000) }
        return (sensor, d, watcher)
    }

    @Test(
        "rotation = \"auto\" follows the accelerometer: directions turn, a flood is taken a few times a second with its last word kept, the claim ends with the daemon",
        .requires(PrivateSystemBus.requirement))
    func accelerometer() throws {
        let (sensor, d, watcher) = try Self.following()
        #expect(try sensor.claimants() == 1)

        try sensor.orient("left-up")
        #expect(try Self.nextOrientation(watcher) == "90 sensor")
        let turned = try Self.swipes(watcher, 3).directions
        #expect(turned.last == "right", "\(turned)")
        // Lying flat says nothing of the screen: the orientation stays.
        try sensor.orient("undefined")
        try sensor.orient("left-up")

        let flood = Date()
        for side in Array(repeating: ["right-up", "normal"], count: 10).joined() { try sensor.orient(side) }
        try sensor.orient("bottom-up")
        let floodSeconds = Date().timeIntervalSince(flood)
        var seen: [String] = []
        let start = Date()
        while Date().timeIntervalSince(start) < 3 {
            guard let m = try? watcher.next(timeout: 0.5) else { continue }
            if m["type"] as? String == "orientation" { seen.append(m["transform"] as? String ?? "?") }
        }
        #expect(seen.last == "180", "\(seen)")
        // Twenty-one changes, of which at most one per 250 ms applies
        // (`Orientations.sensorInterval`), and the last after them: a
        // flood sent within a second gives 8 at most; a busy machine that
        // sends it more slowly lets one more through each 250 ms.
        #expect(seen.count <= max(8, Int(floodSeconds / 0.25) + 3), "\(seen) over \(floodSeconds) s")
        // Reloaded without "auto": the claim is released; with it again, taken again.
        let config = d.directory + "/gestured.toml"
        try "".write(toFile: config, atomically: true, encoding: .utf8)
        d.signal(SIGHUP)
        #expect(try Self.nextOrientation(watcher) == "normal configuration")
        for _ in 0..<100 where try sensor.claimants() != 0 { usleep(50_000) }
        #expect(try sensor.claimants() == 0)
        try Self.auto.write(toFile: config, atomically: true, encoding: .utf8)
        d.signal(SIGHUP)
        #expect(try Self.nextOrientation(watcher) == "180 sensor")
        #expect(try sensor.claimants() == 1)
        // The proxy goes (its claims with it): said, the orientation stays;
        // it comes back: claimed again and followed.
        try sensor.stop()
        try d.waitForLog("iio-sensor-proxy left the system bus", timeout: 10)
        try sensor.start()
        for _ in 0..<100 where try sensor.claimants() == 0 { usleep(50_000) }
        #expect(try sensor.claimants() == 1)
        try sensor.orient("right-up")
        #expect(try Self.nextOrientation(watcher) == "270 sensor")
        #expect(try d.stop() == 0)
        for _ in 0..<100 where try sensor.claimants() != 0 { usleep(50_000) }
        #expect(try sensor.claimants() == 0)
    }

    @Test(
        "signals forged by another client of the bus (the proxy's PropertiesChanged, the bus's NameOwnerChanged saying it left) change nothing and make the daemon ask the proxy nothing",
        .requires(PrivateSystemBus.requirement))
    func forgedSensorSignals() throws {
        let (sensor, d, watcher) = try Self.following()
        try sensor.orient("left-up")
        #expect(try Self.nextOrientation(watcher) == "90 sensor")
        let before = sensor.orientationQuestions()
        let sent = try sensor.bus.forge(
            service: "net.hadess.SensorProxy", path: "/net/hadess/SensorProxy", interface: "net.hadess.SensorProxy",
            count: 600)
        usleep(1_500_000)
        let asked = sensor.orientationQuestions() - before
        print("forged: \(sent) signals sent; the proxy was asked \(asked) more times")
        #expect(sent >= 600)
        #expect(asked == 0)
        #expect(!d.log.contains("left the system bus"), "\(d.log)")
        // Still followed.
        try sensor.orient("right-up")
        #expect(try Self.nextOrientation(watcher) == "270 sensor")
        #expect(try d.stop() == 0)
    }

    @Test("rotation = \"auto\" with no iio-sensor-proxy: said once; swipes keep the configured rotation")
    func noSensor() throws {
        let bus = try PrivateSystemBus()
        let d = try DaemonProcess(["--replay", Self.swipe, "--loop"], config: Self.auto, systemBus: bus.address)
        let watcher = try SocketClient(path: d.socket)
        try watcher.subscribe(#""gestures":["swipe"],"phases":["recognized"]"#)
        #expect(try Self.swipes(watcher, 2).directions == ["up", "up"])
        let said = "touchscreens with rotation = \"auto\" stay as they are turned now"
        try d.waitForLog(said, timeout: 10)
        #expect(d.log.components(separatedBy: said).count == 2, "\(d.log)")
        #expect(try d.stop() == 0)
    }
}
