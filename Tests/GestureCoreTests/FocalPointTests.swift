import GestureCore
import Testing

/// Where a continuous gesture is (`x_mm`, `y_mm` of its `began`, `changed`
/// and `ended`): a finger landing or lifting in the middle of it moves it
/// no further than the fingers move.
@Suite("Focal points")
struct FocalPointTests {
    /// Every event of `trace`'s continuous gestures, in order, with how far
    /// the farthest-moving finger went between each and the one before.
    static func steps(
        _ trace: Trace, size: (width: Double, height: Double)?
    ) throws -> [(
        kind: String, jump: Double, moved: Double
    )] {
        let geometry = TouchAssembler.geometry(for: trace.device, size: size, source: .commandLine)!
        let replay = TraceReplay(geometry: geometry)
        let events = try replay.events(trace).events
        let frames = try replay.frames(trace)
        // Each slot's last known position after each frame.
        var positions: [Int: (x: Double, y: Double)] = [:]
        var snapshots: [(time: Timestamp, positions: [Int: (x: Double, y: Double)])] = []
        for f in frames {
            for c in f.contacts { positions[c.slot] = (c.x, c.y) }
            snapshots.append((f.time, positions))
        }
        func at(_ t: Timestamp) -> [Int: (x: Double, y: Double)] {
            snapshots.last { $0.time <= t }?.positions ?? [:]
        }
        let continuous: Set<GestureKind> = [.drag, .pinch, .rotate, .touchAndHold]
        var last: [UInt64: GestureEvent] = [:]
        var out: [(String, Double, Double)] = []
        for e in events where continuous.contains(e.gesture) && e.phase != .recognized {
            if let before = last[e.id] {
                let (p, q) = (at(before.time), at(e.time))
                let moved =
                    q.keys.compactMap { s -> Double? in
                        guard let a = p[s], let b = q[s] else { return nil }
                        return ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
                    }.max() ?? 0
                let jump = ((e.x - before.x) * (e.x - before.x) + (e.y - before.y) * (e.y - before.y)).squareRoot()
                out.append(("\(e.gesture.rawValue) \(e.phase.rawValue) at \(e.time)", jump, moved))
            }
            last[e.id] = e
        }
        return out
    }

    @Test(
        "through every landing and lift of every bundled recording, a drag's, pinch's, rotation's or hold's position moves no further than its farthest-moving finger"
    )
    func continuousThroughLifts() throws {
        var checked = 0
        var multi = 0
        for name in Fixtures.recordingNames() {
            let size = ExpectFile(try Fixtures.read(Fixtures.recordings + "/" + name + ".expect")).size
            let trace = try Fixtures.recording(name + ".evemu")
            for s in try Self.steps(trace, size: size.map { ($0.width, $0.height) }) {
                #expect(s.jump <= s.moved + 0.05, "\(name): \(s.kind): moved \(s.jump) mm, the fingers \(s.moved) mm")
                checked += 1
            }
            if trace.device.slotCount > 1 { multi += 1 }
        }
        #expect(checked > 1000 && multi > 20)
    }

    @Test("a pinch's last change after its first finger lifts stays where the pinch was, and its end with it")
    func pinchLift() throws {
        let trace = try Fixtures.recording("pinch-close-2f.phone.evemu")
        let geometry = TouchAssembler.geometry(for: trace.device, size: nil, source: .commandLine)!
        let events = try TraceReplay(geometry: geometry).events(trace).events.filter { $0.gesture == .pinch }
        let xs = events.map(\.x)
        let spread = (xs.max() ?? 0) - (xs.min() ?? 0)
        #expect(spread < 3, "the pinch's x went over \(spread) mm: \(xs.suffix(4))")
    }
}
