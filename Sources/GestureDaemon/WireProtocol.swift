import FoundationEssentials
package import GestureCore
package import GestureProtocol

/// The socket protocol: JSON Lines over a stream socket (docs/protocol.md).
///
/// The server speaks first with `hello`; a client sends `subscribe` (with
/// optional filters), `unsubscribe`, `ping`, `keys` or `orientation`. Unknown fields are
/// ignored by both sides; additive changes bump the minor version, renames
/// and new meanings the major.
package enum WireProtocol {
    package static let name = "gestured"
    package static let version = (major: 1, minor: 13)
    /// The longest line a client may send, newline excluded.
    package static let maxLineLength = 64 * 1024
    /// The most values (array elements and object members) a request may
    /// hold, and how deep it may nest: far beyond any real request, and
    /// they bound what decoding one line costs (a line of 30,000 numbers
    /// would take the decoder tens of milliseconds).
    package static let maxValues = 512
    package static let maxDepth = 8

    /// Why `line` is beyond the bounds above, or nil: one pass over its
    /// bytes, strings skipped.
    static func beyondBounds(_ line: some Collection<UInt8>) -> String? {
        var values = 0
        var depth = 0
        var inString = false
        var escaped = false
        for b in line {
            if inString {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch b {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                values += 1
                if depth > maxDepth { return "a request nests at most \(maxDepth) deep" }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            case UInt8(ascii: ","):
                values += 1
                if values > maxValues { return "a request holds at most \(maxValues) values" }
            default: break
            }
        }
        return nil
    }
}

/// What a client asked for in one line.
package enum ClientRequest: Equatable, Sendable {
    case subscribe(Subscription)
    case unsubscribe
    case ping
    /// Type this chord on the daemon's keyboard (protocol 1.3).
    case keys(Chord)
    /// The compositor shows the picture of the touchscreens `device` names
    /// (a name, node or vendor:product id) turned by `transform` (protocol 1.4).
    case orientation(device: String, transform: ScreenTransform)
    /// Click the daemon's pointer (protocol 1.8).
    case pointer(PointerClick)
}

/// A line a client sent that cannot be used: what was wrong and what to send instead.
package struct RequestError: Error, Equatable, Sendable {
    /// `bad-json`, `bad-request` or `unknown-type`.
    package var code: String
    package var message: String
}

extension ClientRequest {
    private struct Wire: Decodable {
        var type: String
        var gestures: [String]?
        /// Numbers, checked to be whole counts after decoding (so that 1.5 gets a clear message).
        var fingers: [Double]?
        var devices: [String]?
        var phases: [String]?
        var region: [Double]?
        var directions: [String]?
        var edges: [String]?
        var keys: Bool?
        /// Since 1.8: the client will ask for clicks.
        var pointer: Bool?
        var claim: OneOrMany<ClaimWire>?
        var track: OneOrMany<TrackWire>?
        /// Since 1.9: how long the client waits for still holds to last.
        var hold_ms: [Double]?
        /// Since 1.11: the shapes its strokes are matched against.
        var shapes: [ShapeWire]?
        /// Since 1.13: the compositor drops touch cancels.
        var cancel_dropped: Bool?
    }

    /// A shape: its examples each a string of "x,y" points (any unit)
    /// apart by spaces, so that a few examples of 32 points stay far within
    /// `maxValues`.
    private struct ShapeWire: Decodable {
        var name: String
        var examples: [String]
        var rotates: Bool?
        var tolerance: Double?
    }

    private struct TrackWire: Decodable {
        var toward: String
        var distance: Double
        var commit: Double?
        var fingers: [Double]?
    }

    /// A field that is one object or a list of them: `claim` (a list since
    /// 1.5), `track` (since 1.6), a claim's `hold` (since 1.8).
    private struct OneOrMany<Entry: Decodable>: Decodable {
        var entries: [Entry]
        init(from decoder: any Decoder) throws {
            if let list = try? [Entry](from: decoder) {
                entries = list
            } else {
                entries = [try Entry(from: decoder)]
            }
        }
    }

    private struct ClaimWire: Decodable {
        var fingers: [Double]?
        var edges: [String]?
        /// Since 1.5: only on these touchscreens.
        var devices: [String]?
        /// Since 1.7: the claimed sequences go on to the virtual touchpad.
        var touchpad: Bool?
        /// Since 1.8: still holds of so many fingers, each claimed at its time.
        var hold: OneOrMany<HoldWire>?
    }

    private struct HoldWire: Decodable {
        var fingers: Double
        var ms: Double
    }

    /// The longest hold a claim may wait for, ms.
    static let holdLimit = 10_000.0

    /// The most entries a `claim` list may have.
    static let claimEntryLimit = 16

    private struct KeysWire: Decodable {
        var keys: String
    }

    private struct PointerWire: Decodable {
        var button: String
        var x: Double
        var y: Double
    }

    private struct OrientationWire: Decodable {
        var device: String
        var transform: String
    }

    private struct TypeOnly: Decodable {
        var type: String?
    }

    /// Parses one line (without its newline).
    package static func parse(_ line: some Collection<UInt8>) throws(RequestError) -> ClientRequest {
        if let why = WireProtocol.beyondBounds(line) { throw RequestError(code: "bad-request", message: why) }
        let data = Data(line)
        let decoder = JSONDecoder()
        let head: TypeOnly
        do {
            head = try decoder.decode(TypeOnly.self, from: data)
        } catch let DecodingError.typeMismatch(_, context) where context.codingPath.isEmpty {
            throw RequestError(code: "bad-request", message: "a request is a JSON object, e.g. {\"type\":\"subscribe\"}")
        } catch DecodingError.typeMismatch {
            throw RequestError(code: "bad-request", message: "\"type\" must be a string, e.g. \"subscribe\"")
        } catch {
            throw RequestError(
                code: "bad-json", message: "not a JSON object on one line of UTF-8; send e.g. {\"type\":\"subscribe\"}")
        }
        switch head.type {
        case "subscribe":
            let wire: Wire
            do {
                wire = try decoder.decode(Wire.self, from: data)
            } catch {
                throw RequestError(code: "bad-request", message: Self.explain(error))
            }
            var fingers: [Int]?
            if let f = wire.fingers {
                guard f.allSatisfy({ $0 == $0.rounded() && abs($0) < 1000 }) else {
                    throw RequestError(code: "bad-request", message: "\"fingers\" must be \(fieldHelp["fingers"]!)")
                }
                fingers = f.map { Int($0) }
            }
            var subscription = try Subscription(wire.gestures, fingers, wire.devices, wire.phases, wire.region)
            try subscription.set(directions: wire.directions, edges: wire.edges)
            subscription.keys = wire.keys ?? false
            subscription.pointer = wire.pointer ?? false
            if let claim = wire.claim {
                guard claim.entries.count <= Self.claimEntryLimit else {
                    throw RequestError(code: "bad-request", message: "\"claim\" has at most \(Self.claimEntryLimit) entries")
                }
                for entry in claim.entries {
                    let fingers = entry.fingers ?? []
                    guard fingers.allSatisfy({ $0 == $0.rounded() && $0 >= 2 && $0 <= Double(TouchFrame.capacity) }) else {
                        throw RequestError(
                            code: "bad-request",
                            message:
                                "\"claim\" fingers are counts from 2 to \(TouchFrame.capacity): one finger anywhere would take every touch from apps; claim an edge instead"
                        )
                    }
                    let edges: Set<PanelEdge> = try Subscription.named(entry.edges ?? [], "edge")
                    let toTouchpad = entry.touchpad ?? false
                    let padFingers = fingers.allSatisfy { $0 <= Double(TouchpadFingers.slots) }
                    guard !toTouchpad || (!fingers.isEmpty && edges.isEmpty && padFingers) else {
                        throw RequestError(
                            code: "bad-request",
                            message:
                                "a \"claim\" entry with \"touchpad\": true names finger counts from 2 to \(TouchpadFingers.slots) (the virtual touchpad's fingers) and no edges"
                        )
                    }
                    let counts = Set(fingers.map { Int($0) })
                    var holds: [Int: Int] = [:]
                    for hold in entry.hold?.entries ?? [] {
                        guard
                            hold.fingers == hold.fingers.rounded() && hold.fingers >= 1
                                && hold.fingers <= Double(TouchFrame.capacity) && hold.ms == hold.ms.rounded()
                                && hold.ms >= 0 && hold.ms <= Self.holdLimit && !toTouchpad
                                && (entry.hold?.entries.count ?? 0) <= TouchFrame.capacity
                        else {
                            throw RequestError(
                                code: "bad-request",
                                message:
                                    "a \"claim\" entry's \"hold\" is {\"fingers\": 1 to \(TouchFrame.capacity), \"ms\": 0 to \(Int(Self.holdLimit))} (a hold shorter than hold.minDuration is claimed at hold.minDuration), and not with \"touchpad\""
                            )
                        }
                        let (n, ms) = (Int(hold.fingers), Int(hold.ms))
                        holds[n] = min(holds[n] ?? ms, ms)
                    }
                    let set = ClaimSet(
                        fingers: toTouchpad ? [] : counts, edges: edges, touchpad: toTouchpad ? counts : [], holds: holds)
                    guard let devices = entry.devices else {
                        subscription.claims.formUnion(set)
                        continue
                    }
                    guard !devices.isEmpty, devices.count <= 64, devices.allSatisfy({ $0.utf8.count <= 256 }) else {
                        throw RequestError(
                            code: "bad-request",
                            message:
                                "a \"claim\" entry's devices are 1 to 64 device names, nodes or vvvv:pppp ids of at most 256 bytes each (leave devices out to claim on every touchscreen)"
                        )
                    }
                    if !set.isEmpty { subscription.deviceClaims.append(DeviceClaim(set, devices: devices)) }
                }
            }
            if wire.cancel_dropped == true {
                subscription.claims.cancelDropped = !subscription.claims.isEmpty
                for i in subscription.deviceClaims.indices { subscription.deviceClaims[i].set.cancelDropped = true }
            }
            if let track = wire.track { subscription.tracks = try Self.tracks(track.entries) }
            if let marks = wire.hold_ms {
                guard marks.count <= TouchFrame.capacity,
                    marks.allSatisfy({ $0 == $0.rounded() && $0 >= 0 && $0 <= Self.holdLimit })
                else {
                    throw RequestError(code: "bad-request", message: "\"hold_ms\" must be \(fieldHelp["hold_ms"]!)")
                }
                subscription.holdMarks = Set(marks.map { Int($0) }).sorted()
            }
            if let shapes = wire.shapes { subscription.shapes = try Self.shapes(shapes) }
            return .subscribe(subscription)
        case "unsubscribe": return .unsubscribe
        case "ping": return .ping
        case "keys":
            guard let wire = try? decoder.decode(KeysWire.self, from: data), wire.keys.utf8.count <= 128 else {
                throw RequestError(code: "bad-request", message: "\"keys\" must be \(fieldHelp["keys"]!)")
            }
            do {
                return .keys(try Chord(wire.keys))
            } catch {
                throw RequestError(code: "bad-request", message: error.message)
            }
        case "pointer":
            guard let wire = try? decoder.decode(PointerWire.self, from: data) else {
                throw RequestError(code: "bad-request", message: "\"button\", \"x\" and \"y\" must be \(fieldHelp["pointer"]!)")
            }
            guard let button = PointerClick.Button(rawValue: wire.button) else {
                throw RequestError(
                    code: "bad-request",
                    message: "unknown button '\(wire.button.prefix(40))'; known: "
                        + PointerClick.Button.allCases.map(\.rawValue).joined(separator: ", "))
            }
            guard let click = PointerClick(button, x: wire.x, y: wire.y) else {
                throw RequestError(
                    code: "bad-request", message: "\"x\" and \"y\" are fractions 0 to 1 of the picture, e.g. 0.25")
            }
            return .pointer(click)
        case "orientation":
            guard let wire = try? decoder.decode(OrientationWire.self, from: data), wire.device.utf8.count <= 256 else {
                throw RequestError(
                    code: "bad-request", message: "\"device\" and \"transform\" must be \(fieldHelp["transform"]!)")
            }
            guard let transform = ScreenTransform(name: wire.transform) else {
                throw RequestError(
                    code: "bad-request",
                    message: "unknown transform '\(wire.transform.prefix(40))'; known: "
                        + ScreenTransform.allCases.map(\.name).joined(separator: ", "))
            }
            return .orientation(device: wire.device, transform: transform)
        case nil:
            throw RequestError(
                code: "bad-request",
                message: "a request needs \"type\": subscribe, unsubscribe, ping, keys, pointer or orientation")
        case let other?:
            throw RequestError(
                code: "unknown-type",
                message:
                    "unknown request type '\(other.prefix(40))'; known: subscribe, unsubscribe, ping, keys, pointer, orientation")
        }
    }

    /// The rules of a `track` list, each checked.
    private static func tracks(_ entries: [TrackWire]) throws(RequestError) -> [TrackRule] {
        guard entries.count <= claimEntryLimit else {
            throw RequestError(code: "bad-request", message: "\"track\" has at most \(claimEntryLimit) entries")
        }
        var rules: [TrackRule] = []
        for entry in entries {
            guard let toward = Track.Toward(rawValue: entry.toward) else {
                throw RequestError(
                    code: "bad-request",
                    message: "unknown track direction '\(entry.toward.prefix(40))'; known: "
                        + Track.Toward.allCases.map(\.rawValue).joined(separator: ", "))
            }
            let commit = entry.commit ?? 0.5
            if let why = Track.problem(toward: toward, distance: entry.distance, commit: commit) {
                throw RequestError(code: "bad-request", message: "\"track\": \(why)")
            }
            var fingers: [Int]?
            if let f = entry.fingers {
                guard f.allSatisfy({ $0 == $0.rounded() && $0 >= 1 && $0 <= Double(TouchFrame.capacity) }) else {
                    throw RequestError(
                        code: "bad-request", message: "\"track\" fingers are counts from 1 to \(TouchFrame.capacity)")
                }
                fingers = Array(Set(f.map { Int($0) })).sorted()
            }
            rules.append(TrackRule(Track(toward: toward, distance: entry.distance, commit: commit)!, fingers: fingers))
        }
        return rules
    }

    /// The shapes of a subscription, each example read and normalized.
    private static func shapes(_ wires: [ShapeWire]) throws(RequestError) -> StrokeShapes {
        let limits = SubscribeRequest.Shape.limits
        let help = "\"shapes\" must be \(fieldHelp["shapes"]!)"
        guard wires.count <= limits.shapes, Set(wires.map(\.name)).count == wires.count else {
            throw RequestError(code: "bad-request", message: help)
        }
        var out = StrokeShapes()
        for wire in wires {
            guard (1...limits.nameBytes).contains(wire.name.utf8.count), (1...limits.examples).contains(wire.examples.count),
                wire.tolerance.map({ $0 > 0 && $0 <= 1 }) ?? true
            else { throw RequestError(code: "bad-request", message: help) }
            var examples: [[SIMD2<Double>]] = []
            for text in wire.examples {
                guard let points = StrokeShapes.points(text), (2...limits.points).contains(points.count) else {
                    throw RequestError(
                        code: "bad-request",
                        message:
                            "shape \(jsonString(wire.name)): an example is 2 to \(limits.points) points \"x,y\" apart by spaces, e.g. \"0,0 10,0 10,10\""
                    )
                }
                examples.append(points)
            }
            guard
                let shape = StrokeShapes.Shape(
                    name: wire.name, examples: examples, rotates: wire.rotates ?? false,
                    tolerance: wire.tolerance ?? StrokeShapes.defaultTolerance)
            else {
                throw RequestError(
                    code: "bad-request",
                    message: "shape \(jsonString(wire.name)): no example is a path (each needs two points apart)")
            }
            out.shapes.append(shape)
        }
        return out
    }

    private static let fieldHelp = [
        "gestures": "a list of gesture names, e.g. [\"tap\",\"swipe\"]",
        "fingers": "a list of finger counts, e.g. [1,2]",
        "devices": "a list of device names, nodes or vvvv:pppp ids",
        "phases": "a list of phases, e.g. [\"recognized\",\"ended\"]",
        "region": "[x0, y0, x1, y1], fractions 0..1 of the panel",
        "directions": "a list of directions, e.g. [\"up\",\"left\"]",
        "edges": "a list of panel edges, e.g. [\"left\",\"bottom\"]",
        "keys": "a key chord of at most 128 bytes, e.g. \"alt+Left\"",
        "pointer": "a button and a position, e.g. {\"button\": \"right\", \"x\": 0.25, \"y\": 0.5}",
        "claim":
            "{\"fingers\": [3, 4], \"edges\": [\"left\"]}, or a list of such objects, each with \"devices\" if it claims on some touchscreens only, \"touchpad\": true if its fingers go on to the virtual touchpad, \"hold\": {\"fingers\": 1, \"ms\": 800} for a still hold",
        "track":
            "{\"toward\": \"left\", \"distance\": 60, \"commit\": 0.5}, or a list of such objects, each with \"fingers\" if it follows some finger counts only",
        "transform": "strings, e.g. {\"device\": \"/dev/input/event5\", \"transform\": \"90\"}",
        "shapes":
            "a list of at most \(SubscribeRequest.Shape.limits.shapes) shapes of distinct names, e.g. [{\"name\": \"L\", \"examples\": [\"0,0 0,40 25,40\"], \"rotates\": false, \"tolerance\": 0.1}], each with 1 to \(SubscribeRequest.Shape.limits.examples) examples and a tolerance above 0 and at most 1",
        "cancel_dropped": "true or false: whether the compositor drops touch cancels",
        "hold_ms": "a list of at most \(TouchFrame.capacity) whole numbers of milliseconds, 0 to \(Int(holdLimit)), e.g. [800]",
    ]

    private static func explain(_ error: Error) -> String {
        let path: [any CodingKey]
        switch error {
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c): path = c.codingPath
        case DecodingError.dataCorrupted(let c): path = c.codingPath
        case DecodingError.keyNotFound(_, let c): path = c.codingPath
        default: path = []
        }
        guard let field = path.first?.stringValue, let help = fieldHelp[field] else {
            return "the request does not have the expected fields; see docs/protocol.md"
        }
        return "\"\(field)\" must be \(help)"
    }
}

/// Server messages other than gesture events, one JSON object per line.
package enum ServerMessage {
    package static func hello(devices: [DeviceInfo], server: String, unavailable: [Unavailable] = []) -> String {
        var s = #"{"type":"hello","protocol":""# + WireProtocol.name + #"","version":["#
        s += "\(WireProtocol.version.major),\(WireProtocol.version.minor)],"
        s += #""gestures":["# + GestureKind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "],"
        s += #""phases":["# + GesturePhase.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "],"
        s += #""server":"# + jsonString(server) + ","
        s += unavailableField(unavailable)
        s += #""devices":["# + devices.map(\.jsonObject).joined(separator: ",") + "]}"
        return s
    }

    /// An output the daemon cannot make, and why, with what grants it (protocol 1.13).
    package struct Unavailable: Equatable, Sendable {
        package enum Output: String, Sendable {
            case keyboard, pointer, touchpad
        }
        package var output: Output
        package var why: String
    }

    /// `"unavailable":{"touchpad":"…"},` (nothing when every output can be made).
    private static func unavailableField(_ list: [Unavailable]) -> String {
        guard !list.isEmpty else { return "" }
        return #""unavailable":{"# + list.map { jsonString($0.output.rawValue) + ":" + jsonString($0.why) }.joined(separator: ",")
            + "},"
    }

    package static func subscribed(_ sub: Subscription, unavailable: [Unavailable] = []) -> String {
        #"{"type":"subscribed","# + unavailableField(unavailable) + sub.jsonFields + "}"
    }

    package static let unsubscribed = #"{"type":"unsubscribed"}"#
    package static let pong = #"{"type":"pong"}"#

    package static func typed(_ chord: Chord) -> String { #"{"type":"typed","keys":"# + jsonString(chord.text) + "}" }

    /// The pointer clicked as asked (protocol 1.8).
    package static func clicked(_ c: PointerClick) -> String {
        #"{"type":"clicked","# + c.jsonFields + "}"
    }

    /// The client's user is not at the screen: no gestures come until `resumed`.
    package static func paused(seat: String, state: SeatState?) -> String {
        #"{"type":"paused","reason":"# + jsonString(pausedReason(seat: seat, state: state)) + "}"
    }

    /// Why a client is not at the screen of `seat`.
    package static func pausedReason(seat: String, state: SeatState?) -> String {
        switch state {
        case .unavailable, .waiting: "nobody is known to be at the screen of \(seat): logind has not said"
        case .nobody: "no session is active on \(seat)"
        case .unconfirmed: "logind has not confirmed who is at the screen of \(seat) (a session switch, or a slow logind)"
        case .active, nil: "another user's session is active on \(seat)"
        }
    }

    package static let resumed = #"{"type":"resumed"}"#

    /// What the client's gestures happen in: whether the session at the
    /// screen is locked, whether a tablet-mode switch is on.
    package static func context(locked: Bool, tabletMode: Bool) -> String {
        #"{"type":"context","locked":\#(locked),"tablet_mode":\#(tabletMode)}"#
    }

    package static func deviceAdded(_ d: DeviceInfo, time: Timestamp) -> String {
        var object = d.jsonObject
        object.removeFirst()
        return #"{"type":"device_added","time_us":\#(time.microseconds),"# + object
    }

    package static func deviceRemoved(_ d: DeviceInfo, time: Timestamp) -> String {
        #"{"type":"device_removed","time_us":\#(time.microseconds),"device":"# + jsonString(d.name) + #","node":"#
            + jsonString(d.node) + "}"
    }

    /// The orientation in force for a device changed: its next touch is read in it.
    package static func orientation(_ d: DeviceInfo, time: Timestamp) -> String {
        #"{"type":"orientation","time_us":\#(time.microseconds),"device":"# + jsonString(d.name) + #","node":"#
            + jsonString(d.node) + #","transform":"# + jsonString(d.orientation.name) + #","source":"#
            + jsonString(d.orientationSource.rawValue) + #","width_mm":"# + number(d.width) + #","height_mm":"#
            + number(d.height) + "}"
    }

    /// The answer to an `orientation` request: the devices it applies to.
    package static func oriented(_ transform: ScreenTransform, devices: [String]) -> String {
        #"{"type":"oriented","transform":"# + jsonString(transform.name) + #","devices":["#
            + devices.map(jsonString).joined(separator: ",") + "]}"
    }

    private static func number(_ v: Double) -> String {
        var s = ""
        GestureEvent.appendJSONNumber(v, scale: 10, to: &s)
        return s
    }

    package static func configReloaded(files: [String], time: Timestamp) -> String {
        #"{"type":"config_reloaded","time_us":\#(time.microseconds),"files":["#
            + files.map(jsonString).joined(separator: ",") + "]}"
    }

    /// `fatal`: the server closes the connection after this message.
    package static func error(code: String, message: String, fatal: Bool) -> String {
        #"{"type":"error","code":"# + jsonString(code) + #","message":"# + jsonString(message) + #","fatal":\#(fatal)}"#
    }

    package static func goodbye(reason: String) -> String {
        #"{"type":"goodbye","reason":"# + jsonString(reason) + "}"
    }
}

/// The request parser for the fuzz targets (`Fuzz/`), which see only public
/// declarations. Not API; `@_spi(Fuzzing) import GestureDaemon` to use it.
@_spi(Fuzzing) public enum RequestParser {
    /// Parses one line as the daemon does; true when it is a valid request.
    /// Whatever the bytes, it returns (an error is an answer, not a crash).
    public static func accepts(_ line: [UInt8]) -> Bool {
        (try? ClientRequest.parse(line)) != nil
    }
}
