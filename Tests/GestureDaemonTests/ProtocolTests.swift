import Foundation
import GestureCore
import Harness
import Testing
import TraceSynth

/// The socket protocol, against the real binary serving a replayed trace
/// (`gestured serve --replay TRACE --wait-subscribers N`): the trace starts
/// once N clients have subscribed, so every client sees all of it.
@Suite("Socket protocol")
struct ProtocolTests {
    static let tap = DaemonProcess.recording("tap-1f.phone.evemu")
    static let doubleTap = DaemonProcess.recording("double-tap-1f.phone.evemu")
    static let slowDrag = DaemonProcess.recording("slow-drag-right.tablet.evemu")
    static let swipe = DaemonProcess.recording("swipe-left-1f.tablet.evemu")

    @Test("hello names the protocol, its version, the gesture kinds and the devices")
    func handshake() throws {
        let d = try DaemonProcess(["--replay", Self.tap, "--wait-subscribers", "1"])
        let c = try SocketClient(path: d.socket)
        let hello = try #require(try c.next())
        #expect(hello["type"] as? String == "hello")
        #expect(hello["protocol"] as? String == "gestured")
        #expect(hello["version"] as? [Int] == [1, 13])
        // What the protocol's document is titled with is the version the daemon speaks.
        let doc = try String(contentsOfFile: BuildProducts.packageRoot + "/docs/protocol.md", encoding: .utf8)
        let version = (hello["version"] as? [Int] ?? []).map(String.init).joined(separator: ".")
        #expect(doc.hasPrefix("# The gestured socket protocol (version \(version))\n"), "\(doc.prefix(80))")
        #expect(hello["gestures"] as? [String] == GestureKind.allCases.map(\.rawValue))
        #expect((hello["gestures"] as? [String])?.contains("rotate") == true)
        let devices = try #require(hello["devices"] as? [[String: Any]])
        #expect(devices.count == 1 && devices[0]["device"] as? String == "Synthetic Phone Touchscreen")
        #expect(devices[0]["size_source"] as? String == "resolution" && devices[0]["slots"] as? Int == 10)
        try c.send(#"{"type":"ping"}"#)
        #expect(try c.next()?["type"] as? String == "pong")
        // Nothing is sent to a client that has not subscribed.
        #expect(try c.gestures(quiet: 0.5).isEmpty)
        #expect(try d.stop() == 0)
    }

    @Test("filters: gestures, phases, fingers, devices and region are applied by the server")
    func filters() throws {
        let d = try DaemonProcess(["--replay", Self.slowDrag, "--wait-subscribers", "7"])
        let everything = try SocketClient(path: d.socket)
        let endedOnly = try SocketClient(path: d.socket)
        let twoFingers = try SocketClient(path: d.socket)
        let otherDevice = try SocketClient(path: d.socket)
        let byNode = try SocketClient(path: d.socket)
        let leftPart = try SocketClient(path: d.socket)
        let rightPart = try SocketClient(path: d.socket)
        try everything.subscribe()
        let ack = try endedOnly.subscribe(#""gestures":["drag"],"phases":["ended"]"#)
        #expect(ack["gestures"] as? [String] == ["drag"] && ack["phases"] as? [String] == ["ended"])
        try twoFingers.subscribe(#""fingers":[2]"#)
        try otherDevice.subscribe(#""devices":["Some Other Panel"]"#)
        try byNode.subscribe(#""devices":["replay:\#(Self.slowDrag)"]"#)
        // The drag begins at x = 0.42 of the panel and ends at 0.59.
        try leftPart.subscribe(#""region":[0,0,0.45,1]"#)
        try rightPart.subscribe(#""region":[0.45,0,1,1]"#)

        let all = try everything.gestures(quiet: 0.6)
        #expect(all.first?["phase"] as? String == "began" && all.last?["phase"] as? String == "ended")
        #expect(all.count > 20 && all.allSatisfy { $0["gesture"] as? String == "drag" })
        let ended = try endedOnly.gestures(quiet: 0.2)
        #expect(ended.count == 1 && ended[0]["phase"] as? String == "ended")
        #expect(ended[0]["id"] as? Int == all.last?["id"] as? Int)
        #expect(try twoFingers.gestures(quiet: 0.2).isEmpty)
        #expect(try otherDevice.gestures(quiet: 0.2).isEmpty)
        #expect(try byNode.gestures(quiet: 0.2).count == all.count)
        // A gesture is admitted where it starts, and then followed to its end.
        #expect(try leftPart.gestures(quiet: 0.2).count == all.count)
        #expect(try rightPart.gestures(quiet: 0.2).isEmpty)
        #expect(try d.stop() == 0)
    }

    @Test(
        "track (1.6): every event of a tracked drag carries its progress and the end whether it completed, the same for a client that takes only the end; others see neither"
    )
    func tracks() throws {
        let d = try DaemonProcess(["--replay", Self.slowDrag, "--wait-subscribers", "4"])
        let plain = try SocketClient(path: d.socket)
        let tracked = try SocketClient(path: d.socket)
        let endOnly = try SocketClient(path: d.socket)
        let lower = try SocketClient(path: d.socket)
        try plain.subscribe()
        // The drag travels 39.94 mm to the right and stops before it lifts: 0.45 of 88.75 mm.
        let ack = try tracked.subscribe(
            #""track":[{"toward":"open","distance":2},{"toward":"right","distance":88.75,"fingers":[1]}]"#)
        let echoed = try #require(ack["track"] as? [[String: Any]])
        #expect(echoed.count == 2 && echoed[1]["toward"] as? String == "right" && echoed[1]["commit"] as? Double == 0.5)
        try endOnly.subscribe(#""phases":["ended"],"track":{"toward":"right","distance":88.75}"#)
        try lower.subscribe(#""track":{"toward":"right","distance":88.75,"commit":0.4}"#)

        let events = try tracked.gestures(quiet: 0.6)
        let progress = events.compactMap { $0["progress"] as? Double }
        #expect(events.count > 20 && progress.count == events.count)
        #expect(
            zip(progress, progress.dropFirst()).allSatisfy { $0 <= $1 + 0.01 } && progress.allSatisfy { (0...1).contains($0) })
        #expect(abs((progress.last ?? 0) - 0.45) < 0.001, "\(progress.suffix(3))")
        #expect(events.last?["completed"] as? Bool == false && events.dropLast().allSatisfy { $0["completed"] == nil })
        let end = try endOnly.gestures(quiet: 0.2)
        #expect(end.count == 1 && end[0]["completed"] as? Bool == false && end[0]["progress"] as? Double == progress.last)
        #expect(try lower.gestures(quiet: 0.2).last?["completed"] as? Bool == true)
        #expect(try plain.gestures(quiet: 0.2).allSatisfy { $0["progress"] == nil && $0["completed"] == nil })

        // What cannot be a track is named.
        for (line, says) in [
            (#"{"type":"subscribe","track":{"toward":"sideways","distance":60}}"#, "unknown track direction 'sideways'"),
            (#"{"type":"subscribe","track":{"toward":"left","distance":0}}"#, "5 to 1000 mm"),
            (#"{"type":"subscribe","track":{"toward":"open","distance":60}}"#, "factor of the span"),
            (#"{"type":"subscribe","track":{"toward":"left","distance":60,"commit":1.5}}"#, "above 0 and below 1"),
            (#"{"type":"subscribe","track":{"toward":"left"}}"#, "\"track\" must be"),
        ] {
            try plain.send(line)
            let error = try plain.read(until: "error").message
            #expect(
                error["code"] as? String == "bad-request" && (error["message"] as? String)?.contains(says) == true, "\(error)")
        }
        #expect(try d.stop() == 0)
    }

    @Test("with no subscriber taking changes, a drag begins and ends exactly as when one does (its changes are not made)")
    func endsWithoutChanges() throws {
        // Each run's times start at its subscription: compared without them.
        // Without changes the drag is silent for its whole second.
        func played(_ filters: String) throws -> [NSDictionary] {
            let d = try DaemonProcess(["--replay", Self.slowDrag, "--wait-subscribers", "1"])
            let c = try SocketClient(path: d.socket)
            try c.subscribe(filters)
            let events = try c.gestures(quiet: 2).map {
                var e = $0
                e["time_us"] = nil
                return NSDictionary(dictionary: e)
            }
            #expect(try d.stop() == 0)
            return events
        }
        let all = try played(#""gestures":["drag"]"#)
        #expect(all.count > 20)
        let ends = try played(#""gestures":["drag"],"phases":["began","ended"]"#)
        #expect(ends.map { $0["phase"] as? String } == ["began", "ended"])
        #expect(ends == all.filter { $0["phase"] as? String != "changed" })
    }

    @Test("taps come at the lift for a subscriber without double taps, and after the interval for one with")
    func tapTimingFollowsEachSubscriber() throws {
        let d = try DaemonProcess(["--replay", Self.tap, "--wait-subscribers", "2"])
        let quick = try SocketClient(path: d.socket)
        let patient = try SocketClient(path: d.socket)
        try quick.subscribe(#""gestures":["tap"]"#)
        try patient.subscribe(#""gestures":["tap","double-tap"]"#)
        let a = try quick.gestures(quiet: 0.7)
        let b = try patient.gestures(quiet: 0.2)
        #expect(summarize(a) == ["tap fingers=1"] && summarize(b) == ["tap fingers=1"])
        let ta = try #require(a.first?["time_us"] as? Int)
        let tb = try #require(b.first?["time_us"] as? Int)
        // doubleTap.maxInterval = 300 ms: the patient subscriber's tap is confirmed 300 ms after the lift.
        #expect(tb - ta == 300_000)
        #expect(try d.stop() == 0)

        let d2 = try DaemonProcess(["--replay", Self.doubleTap, "--wait-subscribers", "2"])
        let taps = try SocketClient(path: d2.socket)
        let doubles = try SocketClient(path: d2.socket)
        try taps.subscribe(#""gestures":["tap"]"#)
        try doubles.subscribe(#""gestures":["tap","double-tap"]"#)
        #expect(summarize(try taps.gestures(quiet: 0.7)) == ["tap fingers=1", "tap fingers=1"])
        #expect(summarize(try doubles.gestures(quiet: 0.2)) == ["double-tap fingers=1"])
        #expect(try d2.stop() == 0)
    }

    @Test(
        "three quick taps to three subscribers at once: without double taps three taps, with double taps a double tap at the second lift and a tap, with triple taps one triple tap; a subscription naming no kinds gets no triple tap"
    )
    func tripleTapsFollowEachSubscriber() throws {
        let dir = NSTemporaryDirectory() + "gestured-triple-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let taps = (0..<3).map { n in
            let land = 200 + Double(n) * 240
            return TraceSynth.Stroke(land: land, lift: land + 90, x: 60, y: 80)
        }
        let trace = dir + "/three-taps.evemu"
        try Renderer(panel: .tablet).evemu(Scenario(name: "three-taps", strokes: taps, expected: []), seed: 5).write(
            toFile: trace, atomically: true, encoding: .utf8)
        let d = try DaemonProcess(["--replay", trace, "--wait-subscribers", "4"])
        let (one, two, three, any) = (
            try SocketClient(path: d.socket), try SocketClient(path: d.socket), try SocketClient(path: d.socket),
            try SocketClient(path: d.socket)
        )
        try one.subscribe(#""gestures":["tap"]"#)
        try two.subscribe(#""gestures":["tap","double-tap"]"#)
        try three.subscribe(#""gestures":["tap","double-tap","triple-tap"]"#)
        try any.subscribe("")
        let a = try one.gestures(quiet: 0.7)
        let b = try two.gestures(quiet: 0.2)
        let c = try three.gestures(quiet: 0.2)
        let e = try any.gestures(quiet: 0.2)
        #expect(summarize(a) == Array(repeating: "tap fingers=1", count: 3))
        #expect(summarize(b) == ["double-tap fingers=1", "tap fingers=1"])
        #expect(summarize(c) == ["triple-tap fingers=1"])
        #expect(summarize(e) == summarize(b))
        #expect(c.first?["taps"] as? Int == 3 && b.first?["taps"] as? Int == 2)
        // The double tap at the second lift, as for a client alone: the second tap's time, where the third begins later.
        let second = try #require(a.dropFirst().first?["time_us"] as? Int)
        #expect(b.first?["time_us"] as? Int == second)
        #expect(c.first?["time_us"] as? Int == a.last?["time_us"] as? Int)
        #expect(try d.stop() == 0)
    }

    @Test("strokes: the path for whoever names them, the nearest of its own shapes for each")
    func strokesFollowEachSubscriber() throws {
        let d = try DaemonProcess([
            "--replay", DaemonProcess.recording("curved-stroke.tablet.evemu"), "--wait-subscribers", "4",
        ])
        let (plain, arc, other, standard) = (
            try SocketClient(path: d.socket), try SocketClient(path: d.socket), try SocketClient(path: d.socket),
            try SocketClient(path: d.socket)
        )
        let z = #"{"name":"Z","examples":["0,0 30,0 0,35 30,35"]}"#
        try plain.subscribe(#""gestures":["stroke"]"#)
        try arc.subscribe(
            #""gestures":["stroke"],"shapes":[{"name":"arc","examples":["0,0 5,6 12,12 19,14 26,11 32,5 36,0"]},"# + z + "]")
        try other.subscribe(#""gestures":["stroke"],"shapes":["# + z + "]")
        try standard.subscribe("")
        let p = try plain.gestures(quiet: 0.5)
        let a = try arc.gestures(quiet: 0.2)
        let o = try other.gestures(quiet: 0.2)
        let s = try standard.gestures(quiet: 0.2)
        #expect(summarize(p) == ["stroke fingers=1"])
        let path = try #require(p.first?["path_mm"] as? [[Double]])
        #expect(path.count >= 8 && path.first == [0, 0])
        #expect(p.first?["shape"] == nil)
        #expect(a.first?["shape"] as? String == "arc")
        #expect((a.first?["score"] as? Double ?? 0) > 0.5)
        #expect(a.first?["path_mm"] as? [[Double]] == path)
        #expect(o.count == 1 && o.first?["shape"] is NSNull)
        #expect(!s.isEmpty && !s.contains { $0["gesture"] as? String == "stroke" })
        #expect(try d.stop() == 0)
    }

    @Test("shapes that cannot be matched are refused, naming what is wrong")
    func badShapes() throws {
        let d = try DaemonProcess(["--replay", Self.tap, "--loop"])
        let c = try SocketClient(path: d.socket)
        for (shapes, says) in [
            (#"[{"name":"L","examples":[]}]"#, "\"shapes\" must be"),
            (#"[{"name":"L","examples":["0,0 1;2"]}]"#, "shape \"L\": an example is"),
            (#"[{"name":"L","examples":["5,5 5,5"]}]"#, "no example is a path"),
            (#"[{"name":"L","examples":["0,0 0,9"],"tolerance":2}]"#, "tolerance above 0"),
            (#"[{"name":"L","examples":["0,0 0,9"]},{"name":"L","examples":["0,0 9,0"]}]"#, "distinct names"),
        ] {
            try c.send(#"{"type":"subscribe","gestures":["stroke"],"shapes":"# + shapes + "}")
            let e = try c.read(until: "error").message
            #expect(e["code"] as? String == "bad-request")
            #expect((e["message"] as? String ?? "").contains(says), "\(shapes): \(e)")
        }
        try c.send(#"{"type":"subscribe","gestures":["stroke"],"shapes":[{"name":"L","examples":["0,0 0,40 25,40"]}]}"#)
        let ack = try c.read(until: "subscribed").message
        #expect(ack["shapes"] as? [String] == ["L"])
        #expect(try d.stop() == 0)
    }

    @Test(
        "what the daemon cannot make (keyboard, pointer, touchpad) is said in hello, and in subscribed for what the subscription asks, with the reason its refusals give; without /dev/uinput, all three"
    )
    func unavailableOutputs() throws {
        let d = try DaemonProcess(["--replay", Self.tap, "--wait-subscribers", "1"])
        let c = try SocketClient(path: d.socket)
        let hello = try #require(try c.next())
        let said = hello["unavailable"] as? [String: String] ?? [:]
        if access("/dev/uinput", F_OK) != 0 {
            #expect(Set(said.keys) == ["keyboard", "pointer", "touchpad"], "\(hello)")
            #expect(said.values.allSatisfy { $0.contains("no /dev/uinput") && $0.contains("modprobe uinput") }, "\(said)")
        }
        try c.send(#"{"type":"subscribe","gestures":["tap"],"keys":true,"claim":{"fingers":[3],"touchpad":true}}"#)
        let (ack, _) = try c.read(until: "subscribed")
        let asked = ack["unavailable"] as? [String: String] ?? [:]
        // Only what it asks for: keys and the touchpad, not the pointer.
        #expect(asked["pointer"] == nil, "\(ack)")
        #expect(asked["touchpad"] == said["touchpad"], "\(ack)")
        // What it says of the keyboard is what a chord is then answered.
        try c.send(#"{"type":"keys","keys":"ctrl+a"}"#)
        let answer = try c.read(until: asked["keyboard"] == nil ? "typed" : "error").message
        if let why = asked["keyboard"] {
            #expect(answer["code"] as? String == "no-keyboard" && answer["message"] as? String == why, "\(answer)")
        }
        #expect(try d.stop() == 0)
    }

    @Test("a subscription can be changed and dropped")
    func subscriptionChanges() throws {
        let d = try DaemonProcess(["--replay", Self.swipe, "--loop", "--wait-subscribers", "1"])
        let c = try SocketClient(path: d.socket)
        try c.subscribe(#""gestures":["swipe"]"#)
        let first = try c.read(until: "gesture", timeout: 5).message
        #expect(first["gesture"] as? String == "swipe")
        try c.send(#"{"type":"subscribe","gestures":["drag"],"phases":["began"]}"#)
        let (ack, _) = try c.read(until: "subscribed")
        #expect(ack["gestures"] as? [String] == ["drag"])
        let next = try c.read(until: "gesture", timeout: 5).message
        #expect(next["gesture"] as? String == "drag" && next["phase"] as? String == "began")
        try c.send(#"{"type":"unsubscribe"}"#)
        _ = try c.read(until: "unsubscribed")
        // The trace loops every ~1.5 s: after unsubscribing nothing more comes.
        #expect(try c.gestures(quiet: 2.5, max: 3).isEmpty)
        #expect(try d.stop() == 0)
    }

    @Test(
        "claims on some touchscreens only (protocol 1.5): taken as sent, changed when only a device's claim changes, dropped with the client"
    )
    func deviceClaims() throws {
        let d = try DaemonProcess(["--replay", Self.swipe, "--loop", "--wait-subscribers", "1", "-v"])
        let c = try SocketClient(path: d.socket)
        try c.send(
            #"{"type":"subscribe","claim":[{"fingers":[3]},{"edges":["left"],"devices":["/dev/input/event5"]}]}"#)
        let (ack, _) = try c.read(until: "subscribed")
        #expect((ack["claim"] as? [[String: Any]])?.count == 2, "\(ack)")
        try d.waitForLog("clients at the screen claim 3 fingers; left edge on /dev/input/event5", timeout: 10)
        try c.send(
            #"{"type":"subscribe","claim":[{"fingers":[3]},{"edges":["right"],"devices":["/dev/input/event5"]}]}"#)
        _ = try c.read(until: "subscribed")
        try d.waitForLog("clients at the screen claim 3 fingers; right edge on /dev/input/event5", timeout: 10)
        try c.send(#"{"type":"subscribe","claim":{"edges":["top"],"devices":["Some Touchscreen"]}}"#)
        _ = try c.read(until: "subscribed")
        try d.waitForLog("clients at the screen claim top edge on Some Touchscreen", timeout: 10)
        try c.send(#"{"type":"unsubscribe"}"#)
        _ = try c.read(until: "unsubscribed")
        try d.waitForLog("clients at the screen claim nothing", timeout: 10)
        #expect(try d.stop() == 0)
    }

    @Test(
        "hold_ms (protocol 1.9): echoed; a replayed still hold says held_ms on the event at each time one client asks for, and at a claimed hold's time; out of range refused"
    )
    func holdMarks() throws {
        let d = try DaemonProcess(["--replay", DaemonProcess.recording("hold-1f.tablet.evemu"), "--wait-subscribers", "2"])
        let asks = try SocketClient(path: d.socket)
        try asks.send(#"{"type":"subscribe","gestures":["touch-and-hold"],"hold_ms":[800,300,800]}"#)
        let (ack, _) = try asks.read(until: "subscribed")
        #expect(ack["hold_ms"] as? [Int] == [300, 800], "\(ack)")
        // Another client claims a hold of its own time; it asks for no mark.
        let claims = try SocketClient(path: d.socket)
        try claims.send(#"{"type":"subscribe","gestures":["touch-and-hold"],"claim":{"hold":{"fingers":1,"ms":650}}}"#)
        let (other, _) = try claims.read(until: "subscribed")
        #expect(other["hold_ms"] == nil, "\(other)")
        let events = try asks.gestures(quiet: 1.5)
        let marks = events.compactMap { e in (e["held_ms"] as? Int).map { ($0, e["phase"] as? String ?? "") } }
        #expect(marks.map(\.0) == [300, 650, 800], "\(marks)")
        #expect(marks.map(\.1) == ["began", "changed", "changed"], "\(marks)")
        #expect(try claims.gestures(quiet: 0.5).compactMap { $0["held_ms"] as? Int } == [300, 650, 800])
        for bad in [#"[20000]"#, #"[1.5]"#, #"[-1]"#, "[" + Array(repeating: "1", count: 17).joined(separator: ",") + "]"] {
            try asks.send(#"{"type":"subscribe","hold_ms":"# + bad + "}")
            let e = try asks.read(until: "error").message
            #expect(
                (e["message"] as? String ?? "").contains("\"hold_ms\" must be a list of at most 16 whole numbers"), "\(bad): \(e)"
            )
        }
        #expect(try d.stop() == 0)
    }

    @Test("malformed lines get an error naming what was wrong; the connection and everyone else carry on")
    func malformedLines() throws {
        let d = try DaemonProcess(["--replay", Self.tap, "--wait-subscribers", "1"])
        let bad = try SocketClient(path: d.socket)
        _ = try bad.next()
        func error(after bytes: [UInt8]) throws -> [String: Any] {
            try bad.sendRaw(bytes + [10])
            return try bad.read(until: "error").message
        }
        let cases: [(bytes: [UInt8], code: String, says: String)] = [
            (Array("not json".utf8), "bad-json", "JSON"),
            ([0xff, 0xfe, 0x7b, 0x7d], "bad-json", "UTF-8"),
            (Array("[1,2]".utf8), "bad-request", "JSON object"),
            (Array(#"{"type":7}"#.utf8), "bad-request", "\"type\""),
            (Array(#"{"gestures":["tap"]}"#.utf8), "bad-request", "needs \"type\""),
            (Array(#"{"type":"dance"}"#.utf8), "unknown-type", "dance"),
            (Array(#"{"type":"subscribe","fingers":"two"}"#.utf8), "bad-request", "\"fingers\""),
            (Array(#"{"type":"subscribe","gestures":["wave"]}"#.utf8), "bad-request", "wave"),
            (Array(#"{"type":"subscribe","region":[0.5,0,0.2,1]}"#.utf8), "bad-request", "region"),
            (Array(#"{"type":"subscribe","phases":["done"]}"#.utf8), "bad-request", "done"),
            // Bounded before any decoding: a request of 30,000 values, or nested 30,000 deep.
            (
                Array(
                    ("{\"type\":\"subscribe\",\"fingers\":[" + Array(repeating: "1", count: 30_000).joined(separator: ",") + "]}")
                        .utf8),
                "bad-request", "at most 512 values"
            ),
            (
                Array(
                    ("{\"type\":\"subscribe\",\"x\":" + String(repeating: "[", count: 30_000)
                        + String(repeating: "]", count: 30_000) + "}").utf8),
                "bad-request", "nests at most 8 deep"
            ),
        ]
        for (bytes, code, says) in cases {
            let e = try error(after: bytes)
            #expect(e["code"] as? String == code && e["fatal"] as? Bool == false, "\(String(decoding: bytes, as: UTF8.self))")
            #expect((e["message"] as? String ?? "").contains(says), "\(e)")
        }
        // Still connected, and a good subscription after all that works.
        try bad.send(#"{"type":"subscribe"}"#)
        _ = try bad.read(until: "subscribed")
        #expect(summarize(try bad.gestures(quiet: 0.7)) == ["tap fingers=1"])

        // A line longer than 64 KiB, still coming or whole in one write: a fatal error, then the connection closes.
        for whole in [false, true] {
            let long = try SocketClient(path: d.socket)
            _ = try long.next()
            try long.sendRaw([UInt8](repeating: 0x61, count: whole ? 100_000 : 70_000) + (whole ? [10] : []))
            let e = try long.read(until: "error").message
            #expect(e["code"] as? String == "line-too-long" && e["fatal"] as? Bool == true, "whole: \(whole)")
            #expect(try long.next(timeout: 2) == nil)
        }
        #expect(try d.stop() == 0)
    }

    @Test("a client that does not read gets overflow and is closed; a reading client misses nothing")
    func overflow() throws {
        let d = try DaemonProcess(
            ["--replay", Self.slowDrag, "--loop", "--speed", "20", "--wait-subscribers", "2"],
            config: "[daemon]\nclient-buffer-kib = 16\n")
        let reader = try SocketClient(path: d.socket)
        let sleeper = try SocketClient(path: d.socket)
        try reader.subscribe()
        try sleeper.subscribe()
        try d.waitForLog("does not read", timeout: 20)
        // The reader got every event in order: ids rise, each drag's phases are whole.
        var events = try reader.gestures(quiet: 0.5, max: 3)
        events.removeAll { $0["phase"] as? String == "changed" }
        #expect(events.count > 4)
        var open: Int?
        for e in events {
            switch e["phase"] as? String {
            case "began":
                #expect(open == nil)
                open = e["id"] as? Int
            case "ended":
                #expect(open == e["id"] as? Int)
                open = nil
            default: break
            }
        }
        // The sleeper, reading at last, finds whole lines and then the overflow error.
        var last: [String: Any]?
        while let m = try sleeper.next(timeout: 2) { last = m }
        #expect(last?["type"] as? String == "error" && last?["code"] as? String == "overflow")
        #expect(try d.stop() == 0)
    }

    @Test("disconnects and half-closed clients: the daemon carries on serving")
    func disconnects() throws {
        let d = try DaemonProcess(["--replay", Self.tap, "--wait-subscribers", "2", "--log-level", "debug"])
        var gone: SocketClient? = try SocketClient(path: d.socket)
        try gone?.subscribe()
        // A client that shuts down its sending side still receives.
        let half = try SocketClient(path: d.socket)
        try half.subscribe()
        shutdown(half.fd, Int32(SHUT_WR))
        gone = nil  // closes its socket as the trace starts
        #expect(summarize(try half.gestures(quiet: 0.7)) == ["tap fingers=1"])
        try d.waitForLog("disconnected")
        #expect(d.process.isRunning)
        #expect(try d.stop() == 0)
    }
}
