import GestureCore
import Testing

/// Tracked gestures (docs/gestures.md, "Tracked gestures"): the progress
/// and the commit decision a track reads from the bundled recordings.
@Suite("Tracked gestures")
struct TrackTests {
    /// The readings of every event of `kind` in a bundled recording.
    static func readings(_ name: String, _ kind: GestureKind, _ track: Track) throws -> [(GestureEvent, TrackReading)] {
        let events = try Fixtures.replayEvents(Fixtures.recording(name), wanted: .standard, immediateTaps: false)
        var follower = TrackFollower(track)
        return events.filter { $0.gesture == kind }.compactMap { e in follower.read(e).map { (e, $0) } }
    }

    /// The drag's travel toward `toward` when it ended, mm.
    static func finalTravel(_ name: String, along keyPath: KeyPath<GestureEvent, Double?>) throws -> Double {
        let events = try Fixtures.replayEvents(Fixtures.recording(name), wanted: .standard, immediateTaps: false)
        let end = try #require(events.last { $0.gesture == .drag && $0.phase == .ended })
        return try #require(end[keyPath: keyPath])
    }

    @Test("a slow drag's progress rises with the finger, stays within 0...1, and a slow lift short of commit falls back")
    func slowLiftFallsBack() throws {
        let travel = try Self.finalTravel("slow-drag-right.tablet.evemu", along: \.dx)
        let track = try #require(Track(toward: .right, distance: travel / 0.45))
        let r = try Self.readings("slow-drag-right.tablet.evemu", .drag, track)
        let progress = r.map(\.1.progress)
        #expect(progress.allSatisfy { (0...1).contains($0) })
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0 <= $1 + 0.01 }, "\(progress)")
        let end = try #require(r.last)
        #expect(end.0.phase == .ended && abs(end.1.progress - 0.45) < 0.001)
        #expect(end.1.completed == false, "released at 0.45, slower than a fling")
        #expect(r.dropLast().allSatisfy { $0.1.completed == nil }, "only the end decides")
        // The same lift with a lower commit goes through.
        let lower = try #require(Track(toward: .right, distance: travel / 0.45, commit: 0.4))
        #expect(try Self.readings("slow-drag-right.tablet.evemu", .drag, lower).last?.1.completed == true)
    }

    @Test("a fling forward completes where it was released (0.35); measured the other way it never started")
    func flingCompletes() throws {
        let travel = try Self.finalTravel("flick-right.tablet.evemu", along: \.dx)
        let track = try #require(Track(toward: .right, distance: travel / 0.35))
        let end = try #require(try Self.readings("flick-right.tablet.evemu", .drag, track).last)
        #expect(abs(end.1.progress - 0.35) < 0.001 && end.1.completed == true)
        let left = try #require(Track(toward: .left, distance: travel / 0.35))
        let back = try #require(try Self.readings("flick-right.tablet.evemu", .drag, left).last)
        #expect(back.1.progress == 0 && back.1.completed == false)
    }

    @Test("an edge drag past the distance is clamped at 1 and completes")
    func clamped() throws {
        let track = try #require(Track(toward: .right, distance: 20))
        let r = try Self.readings("edge-swipe-left.laptop.evemu", .drag, track)
        #expect(r.contains { $0.1.progress == 1 } && r.allSatisfy { $0.1.progress <= 1 })
        #expect(r.last?.1.completed == true)
    }

    @Test("a fling back carries the progress on: from 0.8 it falls back, from 0.99 slowly back it stays")
    func flingBack() throws {
        let track = try #require(Track(toward: .right, distance: 100))
        func run(_ positions: [(ms: Int64, dx: Double)]) -> TrackReading? {
            var f = TrackFollower(track)
            var last: TrackReading?
            for (k, p) in positions.enumerated() {
                var e = GestureEvent(
                    gesture: .drag, phase: k == 0 ? .began : k == positions.count - 1 ? .ended : .changed, id: 7,
                    time: Timestamp(microseconds: p.ms * 1000), device: DeviceID(1), fingers: 1, x: 0, y: 0, nx: 0, ny: 0,
                    edge: nil)
                e.dx = p.dx
                last = f.read(e)
            }
            return last
        }
        // Out to 90 mm, then back to 80 mm in 100 ms: a fling of -1/s carries 0.8 on to 0.3.
        let fast = run([(0, 0), (500, 60), (900, 90), (950, 85), (1000, 80)])
        #expect(fast?.progress == 0.8 && fast?.completed == false)
        // Back at 0.1/s, slower than a fling: 0.79 is past commit.
        let slow = run([(0, 0), (500, 60), (900, 80), (1000, 79)])
        #expect(slow?.completed == true)
    }

    @Test("pinches and rotations track the same way: open and clockwise complete, measured against them nothing moves")
    func pinchAndRotation() throws {
        let open = try #require(Track(toward: .open, distance: 2))
        let r = try Self.readings("pinch-open-2f.kiosk.evemu", .pinch, open)
        #expect(r.count > 3 && r.last?.1.completed == true && r.last?.1.progress == 1)
        let close = try #require(Track(toward: .close, distance: 2))
        #expect(try Self.readings("pinch-open-2f.kiosk.evemu", .pinch, close).allSatisfy { $0.1.progress == 0 })
        let closing = try Self.readings("pinch-close-2f.phone.evemu", .pinch, close)
        #expect(closing.count > 3 && closing.last?.1.completed == true)

        let clockwise = try #require(Track(toward: .clockwise, distance: 45))
        let turn = try Self.readings("twist-clockwise.kiosk.evemu", .rotate, clockwise)
        #expect(turn.count > 3 && turn.last?.1.completed == true)
        let counter = try #require(Track(toward: .counterclockwise, distance: 45))
        #expect(try Self.readings("twist-clockwise.kiosk.evemu", .rotate, counter).last?.1.completed == false)
        // A drag is not what a pinch track measures.
        #expect(try Self.readings("slow-drag-right.tablet.evemu", .drag, open).isEmpty)
    }

    @Test("a cancelled gesture never completes; a track that cannot be is named")
    func cancelledAndProblems() throws {
        let track = try #require(Track(toward: .right, distance: 10))
        var f = TrackFollower(track)
        var e = GestureEvent(
            gesture: .drag, phase: .began, id: 1, time: Timestamp(microseconds: 0), device: DeviceID(1), fingers: 1, x: 0,
            y: 0, nx: 0, ny: 0, edge: nil)
        e.dx = 2
        #expect(f.read(e)?.progress == 0.2)
        e.phase = .cancelled
        e.dx = 20
        #expect(f.read(e) == TrackReading(progress: 1, completed: false))
        #expect(Track.problem(toward: .right, distance: 0, commit: 0.5) != nil)
        #expect(Track.problem(toward: .open, distance: 1, commit: 0.5) != nil)
        #expect(Track.problem(toward: .clockwise, distance: 90, commit: 1) != nil)
        #expect(Track.problem(toward: .up, distance: .nan, commit: 0.5) != nil)
        #expect(Track(toward: .down, distance: 60) != nil)
    }
}
