import FoundationEssentials
package import GestureCore
import GestureProtocol
import ToolSupport

/// A gesture event as the daemon sent it: the fields bindings match on, and
/// the known fields as text for the commands' environment.
///
/// Only the fields of the protocol become variables (`x_mm` becomes
/// `GESTURED_X_MM`), each once, from its checked value: numbers in range
/// (a count, an id, a time), names from their lists, the device's name
/// without control characters and at most `deviceNameLimit` bytes. A line
/// that says it is a gesture but has a field of the wrong type or out of
/// range is not an event (`Parsed.invalid`), so nothing is run for it.
package struct ReceivedEvent: Sendable {
    package var gesture: GestureKind
    package var phase: GesturePhase
    package var id: Int
    package var fingers: Int
    package var direction: GestureDirection?
    package var edge: PanelEdge?
    package var device: String
    package var x: Double
    package var y: Double
    /// `GESTURED_NAME=value` for each known field the event has (null and
    /// absent fields are left out).
    package var environment: [String]
    /// It carries `progress`: a tracked gesture's (protocol 1.6).
    package var tracked = false
    /// Time since the first touch, ms (a touch-and-hold's every event, others' ends).
    package var duration: Double?
    /// A hold's translation since `began`, mm.
    package var dx: Double?
    package var dy: Double?
    /// A hold's `held_ms` (protocol 1.9): the longest of the times asked
    /// for that it has now lasted still; a stroke's (1.12): how long its
    /// fingers rested so before they drew.
    package var heldMs: Int?
    /// A stroke's shape, one of the shapes act sent (protocol 1.11); nil: none.
    package var shape: String?

    /// The most bytes of a device's name that reach the environment.
    package static let deviceNameLimit = 256
    /// The largest finger or tap count taken: the protocol's slots.
    static let countLimit: Int64 = 16
    /// The largest magnitude a measure may have (mm, mm/s, ms, a scale).
    static let measureLimit = 1e9
    /// The longest `held_ms`: the longest time a subscriber may ask for.
    static let heldLimit: Int64 = 10_000

    /// What a line from the daemon was.
    package enum Parsed: Sendable {
        case event(ReceivedEvent)
        /// Another message (`hello`, `subscribed`, `error`, ...), with its `type`.
        case message(type: String)
        /// Not a message act can read: why.
        case invalid(String)
    }

    private struct Kind: Decodable { var type: String? }

    /// The measures that become variables, in order, with their names.
    private static func measures(_ w: DaemonMessage) -> KeyValuePairs<String, Double?> {
        [
            "X_MM": w.x_mm, "Y_MM": w.y_mm, "X": w.x, "Y": w.y, "DISTANCE_MM": w.distance_mm, "DX_MM": w.dx_mm,
            "DY_MM": w.dy_mm, "VX_MM_S": w.vx_mm_s, "VY_MM_S": w.vy_mm_s, "SCALE": w.scale, "ROTATION": w.rotation,
            "DECELERATION": w.deceleration, "DURATION_MS": w.duration_ms, "PROGRESS": w.progress, "SCORE": w.score,
        ]
    }

    /// What `line` is. Never traps, whatever the line holds.
    package static func parse(_ line: some Collection<UInt8>) -> Parsed {
        let data = Data(line)
        guard let kind = try? JSONDecoder().decode(Kind.self, from: data) else { return .invalid("not a JSON object") }
        guard let type = kind.type else { return .invalid("no \"type\"") }
        guard type == "gesture" else { return .message(type: type) }
        guard let w = DaemonMessage.decode(line) else {
            return .invalid("a gesture event with a field of the wrong type or out of range")
        }
        guard let g = w.gesture, let gesture = GestureKind(rawValue: g) else { return .invalid("an unknown gesture") }
        guard let p = w.phase, let phase = GesturePhase(rawValue: p) else { return .invalid("an unknown phase") }
        guard let id = w.id, (0...(1 << 53)).contains(id) else { return .invalid("an id out of range") }
        guard let fingers = w.fingers, (1...countLimit).contains(fingers) else { return .invalid("a finger count out of range") }
        if let t = w.time_us, t < 0 { return .invalid("a negative time") }
        if let taps = w.taps, !(1...countLimit).contains(taps) { return .invalid("a tap count out of range") }
        if let held = w.held_ms, !(0...heldLimit).contains(held) { return .invalid("held_ms out of range") }
        for (name, value) in measures(w) {
            if let v = value, !(v.isFinite && abs(v) <= measureLimit) {
                return .invalid("\(name.lowercased()) out of range")
            }
        }
        var direction: GestureDirection?
        if let d = w.direction {
            guard let known = GestureDirection(rawValue: d) else { return .invalid("an unknown direction") }
            direction = known
        }
        var edge: PanelEdge?
        if let e = w.edge {
            guard let known = PanelEdge(rawValue: e) else { return .invalid("an unknown edge") }
            edge = known
        }
        if let s = w.shape, s.isEmpty || s.utf8.count > 64 { return .invalid("a shape name of 1 to 64 bytes expected") }
        let shape = w.shape.map(Self.printable)
        let device = w.device.map(Self.printable) ?? ""
        var environment = [
            "GESTURED_GESTURE=\(gesture.rawValue)", "GESTURED_PHASE=\(phase.rawValue)", "GESTURED_ID=\(id)",
            "GESTURED_FINGERS=\(fingers)",
        ]
        if let t = w.time_us { environment.append("GESTURED_TIME_US=\(t)") }
        if w.device != nil { environment.append("GESTURED_DEVICE=\(device)") }
        if let taps = w.taps { environment.append("GESTURED_TAPS=\(taps)") }
        if let direction { environment.append("GESTURED_DIRECTION=\(direction.rawValue)") }
        if let edge { environment.append("GESTURED_EDGE=\(edge.rawValue)") }
        if let completed = w.completed { environment.append("GESTURED_COMPLETED=\(completed)") }
        if let held = w.held_ms { environment.append("GESTURED_HELD_MS=\(held)") }
        if let shape { environment.append("GESTURED_SHAPE=\(shape)") }
        for (name, value) in measures(w) {
            if let v = value { environment.append("GESTURED_\(name)=\(Self.text(v))") }
        }
        return .event(
            ReceivedEvent(
                gesture: gesture, phase: phase, id: Int(id), fingers: Int(fingers), direction: direction, edge: edge,
                device: device, x: w.x ?? 0, y: w.y ?? 0, environment: environment, tracked: w.progress != nil,
                duration: w.duration_ms, dx: w.dx_mm, dy: w.dy_mm, heldMs: w.held_ms.map { Int($0) }, shape: shape))
    }

    /// An `error` message's code and text, made safe for the log.
    package static func errorText(_ line: some Collection<UInt8>) -> String {
        let e = DaemonMessage.decode(line)
        // The daemon's messages say what to do: kept whole, within a bound.
        return logSafe((e?.code ?? "error") + ": " + (e?.message ?? ""), limit: 1000)
    }

    /// What a `hello` or `subscribed` says the daemon cannot make (its
    /// `keyboard`, `pointer`, `touchpad`), each why made safe for the log;
    /// empty when it says nothing (or is older than protocol 1.13).
    package static func unavailable(_ line: some Collection<UInt8>) -> [String: String] {
        var out: [String: String] = [:]
        for (output, why) in (DaemonMessage.decode(line)?.unavailable ?? [:]).prefix(8) {
            out[logSafe(output, limit: 32)] = logSafe(why, limit: 1000)
        }
        return out
    }

    /// Why a `paused` message says nothing comes, made safe for the log.
    package static func pausedText(_ line: some Collection<UInt8>) -> String {
        logSafe(DaemonMessage.decode(line)?.reason ?? "you are not at the screen", limit: 300)
    }

    /// A `context` message: whether the session at the screen is locked and
    /// whether a tablet-mode switch is on (absent or unreadable: no; the
    /// daemon holds claims and keys back itself while the session is locked).
    package static func context(_ line: some Collection<UInt8>) -> (locked: Bool, tabletMode: Bool) {
        let w = DaemonMessage.decode(line)
        return (w?.locked ?? false, w?.tablet_mode ?? false)
    }

    /// The touchscreens of a `hello`, or the one of a `device_added` or
    /// `device_removed`; names made printable.
    package static func touchscreens(_ line: some Collection<UInt8>) -> [ScreenFollower.Touchscreen] {
        guard let w = DaemonMessage.decode(line) else { return [] }
        return (w.devices ?? [w]).compactMap { d in
            guard let node = d.node else { return nil }
            return ScreenFollower.Touchscreen(node: node, name: printable(d.device ?? node), output: d.output)
        }
    }

    /// A `hello`'s protocol version, `[major, minor]`.
    package static func protocolVersion(_ line: some Collection<UInt8>) -> [Int]? {
        DaemonMessage.decode(line)?.version
    }

    /// An `orientation` message, for the log.
    package static func orientationText(_ line: some Collection<UInt8>) -> String {
        let w = DaemonMessage.decode(line)
        return logSafe("\(w?.device ?? "?") is read turned \(w?.transform ?? "?") (\(w?.source ?? "?"))")
    }

    /// A measure as text: whole numbers without a fraction.
    private static func text(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }

    /// `name` without control characters (each becomes `?`), cut to
    /// `deviceNameLimit` bytes at a character's boundary.
    static func printable(_ name: String) -> String {
        var out = ""
        var bytes = 0
        for c in name.unicodeScalars {
            let kept: Unicode.Scalar = c.value < 0x20 || (0x7f...0x9f).contains(c.value) ? "?" : c
            bytes += String(kept).utf8.count
            if bytes > deviceNameLimit { break }
            out.unicodeScalars.append(kept)
        }
        return out
    }
}
