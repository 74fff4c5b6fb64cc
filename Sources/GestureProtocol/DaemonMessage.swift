import FoundationEssentials

/// A line from the daemon, decoded: every field of every message of the
/// protocol (docs/protocol.md), each optional, so that one decoder serves
/// every client of the package (`gestured act` checks a gesture's fields
/// before it acts on them, `ReceivedEvent`; `gestured monitor` prints
/// them). A field of the wrong type fails the decoding (`decode` is nil),
/// and a count or an id is an integer: a fraction, or a number beyond 64
/// bits, is of the wrong type. Unknown fields are ignored.
package struct DaemonMessage: Decodable, Sendable {
    package var type: String?
    // A gesture.
    package var gesture: String?
    package var phase: String?
    package var id: Int64?
    package var time_us: Int64?
    package var device: String?
    package var fingers: Int64?
    package var taps: Int64?
    package var direction: String?
    package var edge: String?
    package var x_mm: Double?
    package var y_mm: Double?
    package var x: Double?
    package var y: Double?
    package var distance_mm: Double?
    package var dx_mm: Double?
    package var dy_mm: Double?
    package var vx_mm_s: Double?
    package var vy_mm_s: Double?
    package var scale: Double?
    package var rotation: Double?
    package var deceleration: Double?
    package var duration_ms: Double?
    package var progress: Double?
    package var completed: Bool?
    package var held_ms: Int64?
    /// A stroke's shape, of the client's own (protocol 1.11); null: none.
    package var shape: String?
    package var score: Double?
    /// A stroke's path, mm from where it landed.
    package var path_mm: [[Double]]?
    // A device (`device_added`, `device_removed`, `orientation`, each of `hello`'s).
    package var node: String?
    package var output: String?
    package var width_mm: Double?
    package var height_mm: Double?
    package var size_source: String?
    package var orientation: String?
    package var orientation_source: String?
    package var transform: String?
    package var source: String?
    // `hello`.
    package var version: [Int]?
    package var server: String?
    package var devices: [DaemonMessage]?
    /// `hello`, `subscribed`: the outputs the daemon cannot make, and why (protocol 1.13).
    package var unavailable: [String: String]?
    // `error`, `paused`, `goodbye`, `config_reloaded`, `context`.
    package var code: String?
    package var message: String?
    package var fatal: Bool?
    package var reason: String?
    package var files: [String]?
    package var locked: Bool?
    package var tablet_mode: Bool?

    package init(type: String?) { self.type = type }

    /// The message `line` holds; nil when it is no JSON object of the
    /// protocol's fields (or one has the wrong type).
    package static func decode(_ line: some Collection<UInt8>) -> DaemonMessage? {
        try? JSONDecoder().decode(DaemonMessage.self, from: Data(line))
    }
}
