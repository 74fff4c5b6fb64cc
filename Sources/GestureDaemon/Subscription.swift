package import GestureCore
package import GestureProtocol

/// What one client wants: server-side filters, all optional.
///
/// `gestures`, `devices` and `phases` are checked on every event. `fingers`,
/// `region` and `edges` are checked when a gesture starts (`began` or
/// `recognized`); the later phases of a continuous gesture follow that
/// decision, so a client never gets a `changed` or `ended` without its
/// `began`. `directions` is checked on `recognized` events that carry a
/// direction (swipes and flicks): a continuous gesture's direction is known
/// only at its end, and a tap has none, so those are not filtered by it.
package struct Subscription: Equatable, Sendable {
    package var gestures: GestureKindSet = .standard
    /// Finger counts (nil: any).
    package var fingers: [Int]?
    /// Device names, nodes (`/dev/input/event5`) or `vvvv:pppp` ids (nil: any).
    package var devices: [String]? {
        didSet { devicesLowercased = devices?.map { $0.lowercased() } }
    }
    /// `devices` in lower case, made once, for matching vendor:product ids per event.
    private var devicesLowercased: [String]?
    /// Phases (nil: all).
    package var phases: GesturePhaseSet?
    /// Fractions of the panel, x0 < x1, y0 < y1 (nil: the whole panel).
    package var region: (x0: Double, y0: Double, x1: Double, y1: Double)?
    /// Directions of swipes and flicks (nil: any).
    package var directions: Set<GestureDirection>?
    /// The panel edges a gesture must start at (nil: anywhere, at an edge or not).
    package var edges: Set<PanelEdge>?
    /// The client will ask the daemon to type keys (protocol 1.3): the
    /// daemon makes its keyboard now, so that the first chord is not lost
    /// while the compositor meets a new device.
    package var keys = false
    /// The client will ask the daemon to click (protocol 1.8): the daemon
    /// makes its pointer now, for the same reason.
    package var pointer = false
    /// What the client claims on claimed touchscreens (protocol 1.3;
    /// docs/claiming.md): touch sequences of these finger counts (2 or
    /// more), and one-finger touches that start at these edges.
    package var claims = ClaimSet()
    /// Claims on some touchscreens only (protocol 1.5), each beside `claims`.
    package var deviceClaims: [DeviceClaim] = []
    /// Tracked gestures (protocol 1.6): an event of a gesture the first
    /// matching rule measures carries its progress, and its end whether it
    /// completed.
    package var tracks: [TrackRule] = []
    /// How long the client waits for still holds to last, ms (protocol
    /// 1.9, `hold_ms`): each hold's event that reaches one says so
    /// (`held_ms`).
    package var holdMarks: [Int] = []
    /// The shapes its strokes are matched against (protocol 1.11): each
    /// `stroke` it gets names the nearest within its tolerance (`shape`).
    package var shapes = StrokeShapes()

    package init() {}

    /// The times its holds are to report: its `hold_ms`, and the time of
    /// each hold it claims, so that the event comes when the claim takes
    /// the hold.
    package var marks: Set<Int> {
        var all = Set(holdMarks)
        all.formUnion(claims.holds.values)
        for c in deviceClaims { all.formUnion(c.set.holds.values) }
        return all
    }

    /// Whether some claim of it asks for the virtual touchpad.
    package var asksTouchpad: Bool { !claims.touchpad.isEmpty || deviceClaims.contains { !$0.set.touchpad.isEmpty } }

    /// Whether it claims anything anywhere.
    package var claimsAnything: Bool { !claims.isEmpty || !deviceClaims.isEmpty }

    /// What it claims on the touchscreen of this name, node and vendor:product id.
    package func claims(name: String, node: String, vendorProduct: String) -> ClaimSet {
        var all = claims
        for c in deviceClaims where c.covers(name: name, node: node, vendorProduct: vendorProduct) { all.formUnion(c.set) }
        return all
    }

    /// The `directions` and `edges` filters (protocol 1.2).
    mutating func set(directions: [String]?, edges: [String]?) throws(RequestError) {
        if let directions { self.directions = try Self.named(directions, "direction") }
        if let edges { self.edges = try Self.named(edges, "edge") }
    }

    /// The cases of `T` named in `names`; an unknown name is a bad request
    /// naming it and every known one.
    package static func named<T: RawRepresentable & CaseIterable & Hashable>(
        _ names: [String], _ what: String
    ) throws(RequestError) -> Set<T> where T.RawValue == String {
        do {
            return try GestureProtocol.named(names, what)
        } catch {
            throw RequestError(code: "bad-request", message: error.message)
        }
    }

    init(
        _ gestures: [String]?, _ fingers: [Int]?, _ devices: [String]?, _ phases: [String]?, _ region: [Double]?
    ) throws(RequestError) {
        if let gestures {
            var set = GestureKindSet()
            for kind in try Self.named(gestures, "gesture") as Set<GestureKind> { set.insert(GestureKindSet(kind)) }
            self.gestures = set
        }
        if let fingers {
            guard fingers.allSatisfy({ (1...TouchFrame.capacity).contains($0) }) else {
                throw RequestError(code: "bad-request", message: "fingers are counts from 1 to \(TouchFrame.capacity)")
            }
            self.fingers = Array(Set(fingers)).sorted()
        }
        if let devices {
            guard devices.count <= 64, devices.allSatisfy({ $0.utf8.count <= 256 }) else {
                throw RequestError(code: "bad-request", message: "at most 64 devices of at most 256 bytes each")
            }
            self.devices = devices
            devicesLowercased = devices.map { $0.lowercased() }  // didSet does not run in init
        }
        if let phases { self.phases = GesturePhaseSet(try Self.named(phases, "phase") as Set<GesturePhase>) }
        if let region {
            guard region.count == 4, region.allSatisfy({ $0 >= 0 && $0 <= 1 }), region[0] < region[2], region[1] < region[3]
            else {
                throw RequestError(
                    code: "bad-request",
                    message: "region is [x0, y0, x1, y1] with 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1 (fractions of the panel)")
            }
            self.region = (region[0], region[1], region[2], region[3])
        }
    }

    package static func == (a: Subscription, b: Subscription) -> Bool {
        a.gestures == b.gestures && a.fingers == b.fingers && a.devices == b.devices && a.phases == b.phases
            && a.directions == b.directions && a.edges == b.edges && a.keys == b.keys && a.pointer == b.pointer
            && a.claims == b.claims
            && a.deviceClaims == b.deviceClaims && a.tracks == b.tracks && a.holdMarks == b.holdMarks
            && a.shapes == b.shapes
            && a.region.map { [$0.x0, $0.y0, $0.x1, $0.y1] } == b.region.map { [$0.x0, $0.y0, $0.x1, $0.y1] }
    }

    /// The most taps in a row this client wants (1 to 3): how long its taps
    /// and double taps wait for more (`TapTiming`).
    package var maxTaps: Int { gestures.maxTaps }

    /// Whether events of `device` pass the device filter.
    package func accepts(device: borrowing DeviceInfo) -> Bool {
        guard let devices, let lowered = devicesLowercased else { return true }
        return Self.name(device.name, node: device.node, vendorProduct: device.vendorProduct, in: devices, lowered: lowered)
    }

    /// Whether `devices` (names, nodes, `vvvv:pppp` ids in any case; `lowered`
    /// the same in lower case) name this device.
    static func name(
        _ name: String, node: String, vendorProduct: String, in devices: [String], lowered: [String]
    ) -> Bool {
        devices.contains { $0 == name || $0 == node } || lowered.contains(vendorProduct)
    }

    /// Whether a gesture starting with `event` passes the fingers and region filters.
    package func admits(_ event: GestureEvent) -> Bool {
        if let fingers, !fingers.contains(event.fingers) { return false }
        if let r = region, !(event.nx >= r.x0 && event.nx <= r.x1 && event.ny >= r.y0 && event.ny <= r.y1) { return false }
        if let edges {
            guard let e = event.edge, edges.contains(e) else { return false }
        }
        if let directions, event.phase == .recognized, let d = event.direction, !directions.contains(d) { return false }
        return true
    }

    private static func json(_ set: ClaimSet, devices: [String]?) -> String {
        var s = #"{"fingers":["# + set.fingers.sorted().map(String.init).joined(separator: ",") + #"],"edges":["#
        s += PanelEdge.allCases.filter(set.edges.contains).map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]"
        if !set.touchpad.isEmpty { s += #","touchpad":["# + set.touchpad.sorted().map(String.init).joined(separator: ",") + "]" }
        // One object as asked, a list when entries with several were joined.
        let holds = set.holds.sorted { $0.key < $1.key }.map { #"{"fingers":\#($0.key),"ms":\#($0.value)}"# }
        if !holds.isEmpty { s += #","hold":"# + (holds.count == 1 ? holds[0] : "[" + holds.joined(separator: ",") + "]") }
        if let devices { s += #","devices":["# + devices.map(jsonString).joined(separator: ",") + "]" }
        return s + "}"
    }

    /// The filters as JSON fields (the `subscribed` reply), `null` for "any".
    var jsonFields: String {
        var s = #""gestures":["# + gestures.kinds.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]"
        s += #","fingers":"# + (fingers.map { "[" + $0.map(String.init).joined(separator: ",") + "]" } ?? "null")
        s += #","devices":"# + (devices.map { "[" + $0.map(jsonString).joined(separator: ",") + "]" } ?? "null")
        s += #","phases":"#
        if let phases {
            s += "[" + phases.phases.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]"
        } else {
            s += "null"
        }
        s += #","directions":"#
        if let directions {
            s +=
                "[" + GestureDirection.allCases.filter(directions.contains).map { "\"\($0.rawValue)\"" }.joined(separator: ",")
                + "]"
        } else {
            s += "null"
        }
        s += #","edges":"#
        if let edges {
            s += "[" + PanelEdge.allCases.filter(edges.contains).map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]"
        } else {
            s += "null"
        }
        s += #","keys":\#(keys)"#
        if pointer { s += #","pointer":true"# }
        s += #","claim":"#
        // One object, as asked before 1.5, unless some claims name devices.
        let parts =
            (claims.isEmpty ? [] : [Self.json(claims, devices: nil)])
            + deviceClaims.map { Self.json($0.set, devices: $0.devices) }
        if parts.isEmpty {
            s += "null"
        } else {
            s += deviceClaims.isEmpty ? parts[0] : "[" + parts.joined(separator: ",") + "]"
        }
        if !tracks.isEmpty {
            s += #","track":["# + tracks.map(\.json).joined(separator: ",") + "]"
        }
        if !holdMarks.isEmpty { s += #","hold_ms":["# + holdMarks.map(String.init).joined(separator: ",") + "]" }
        if claims.cancelDropped || deviceClaims.contains(where: \.set.cancelDropped) { s += #","cancel_dropped":true"# }
        if !shapes.isEmpty { s += #","shapes":["# + shapes.shapes.map { jsonString($0.name) }.joined(separator: ",") + "]" }
        s += #","region":"#
        if let r = region {
            s += "["
            for (i, v) in [r.x0, r.y0, r.x1, r.y1].enumerated() {
                if i > 0 { s += "," }
                GestureEvent.appendJSONNumber(v, scale: 1_000_000, to: &s)
            }
            s += "]"
        } else {
            s += "null"
        }
        return s
    }
}

extension DeviceClaim {
    func covers(name: String, node: String, vendorProduct: String) -> Bool {
        Subscription.name(name, node: node, vendorProduct: vendorProduct, in: devices, lowered: devices.map { $0.lowercased() })
    }
}

extension TrackRule {
    /// As the `subscribed` answer echoes it.
    var json: String {
        var s = #"{"toward":""# + track.toward.rawValue + #"","distance":"#
        GestureEvent.appendJSONNumber(track.distance, scale: 10_000, to: &s)
        s += #","commit":"#
        GestureEvent.appendJSONNumber(track.commit, scale: 10_000, to: &s)
        s += #","fingers":"# + (fingers.map { "[" + $0.map(String.init).joined(separator: ",") + "]" } ?? "null") + "}"
        return s
    }
}
