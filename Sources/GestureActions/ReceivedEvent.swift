import FoundationEssentials
package import GestureCore

/// A gesture event as the daemon sent it: the fields bindings match on, and
/// every field as text for the commands' environment.
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
    /// Every field but `type`, as `GESTURED_NAME=value` (`x_mm` becomes
    /// `GESTURED_X_MM`); null fields are left out.
    package var environment: [String]

    /// One JSON value of the event's object.
    private enum Scalar: Decodable {
        case text(String)
        case number(Double)
        case flag(Bool)
        case null
        case other

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() {
                self = .null
            } else if let b = try? c.decode(Bool.self) {
                self = .flag(b)
            } else if let d = try? c.decode(Double.self) {
                self = .number(d)
            } else if let s = try? c.decode(String.self) {
                self = .text(s)
            } else {
                self = .other
            }
        }

        var text: String? {
            switch self {
            case .text(let s): s
            case .number(let d): d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
            case .flag(let b): b ? "1" : "0"
            case .null, .other: nil
            }
        }
    }

    /// The event of a `gesture` line; nil for any other message or a line
    /// that is not one.
    package static func parse(_ line: some Collection<UInt8>) -> ReceivedEvent? {
        guard let object = try? JSONDecoder().decode([String: Scalar].self, from: Data(line)),
            case .text("gesture") = object["type"],
            case .text(let g) = object["gesture"], let gesture = GestureKind(rawValue: g),
            case .text(let p) = object["phase"], let phase = GesturePhase(rawValue: p),
            case .number(let id) = object["id"], case .number(let fingers) = object["fingers"]
        else { return nil }
        var event = ReceivedEvent(
            gesture: gesture, phase: phase, id: Int(id), fingers: Int(fingers), direction: nil, edge: nil, device: "",
            x: 0, y: 0, environment: [])
        if case .text(let d) = object["direction"] { event.direction = GestureDirection(rawValue: d) }
        if case .text(let e) = object["edge"] { event.edge = PanelEdge(rawValue: e) }
        if case .text(let d) = object["device"] { event.device = d }
        if case .number(let x) = object["x"] { event.x = x }
        if case .number(let y) = object["y"] { event.y = y }
        for (key, value) in object.sorted(by: { $0.key < $1.key }) where key != "type" {
            guard let text = value.text else { continue }
            let name = key.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }
            event.environment.append("GESTURED_" + String(name) + "=" + text)
        }
        return event
    }
}
