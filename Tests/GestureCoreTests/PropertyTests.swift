import GestureCore
import PropertyBased
import Testing

/// One step of a random touch stream: what happens, to which slot of which
/// device, where, and how much time passes first (possibly backwards).
struct TouchStep: Sendable, CustomStringConvertible {
    enum Kind: Int, Sendable { case down, move, up, cancel, removeDevice, addDevice, wait }
    var kind: Kind
    var device: Int
    /// Mostly 0...3; now and then -1, 16 or 17, outside the frame's slots, on purpose.
    var slot: Int
    /// Where a landing is; for a move, how far the finger goes (mm), jitter included.
    var x: Double
    var y: Double
    /// Microseconds before this step; negative steps time backwards.
    var dt: Int64
    var description: String { "\(kind) d\(device) s\(slot) (\(x), \(y)) +\(dt)µs" }
}

/// Any finger count (up to four at once, with strays beyond the slots),
/// jitter, drops (steps for lifted or unknown slots), out-of-order timestamps,
/// removals and re-additions of devices. Mostly a device's fingers moving in
/// small steps at 125 Hz, so that every kind of gesture happens.
let touchSteps = zip(
    Gen.int(in: 0...19), Gen.int(in: 0...9), Gen.int(in: 0...19), Gen.double(in: 0...1), Gen.double(in: 0...1),
    Gen.int(in: 0...19)
).map { k, d, s, x, y, t -> TouchStep in
    let kind: TouchStep.Kind =
        switch k {
        case 0...11: .move
        case 12, 13: .down
        case 14, 15: .up
        case 16: .cancel
        case 17: .wait
        case 18: .removeDevice
        default: .addDevice
        }
    let slot = [0, 1, 2, 3, 0, 1, 0, 1, 0, 0, 1, 2, 0, 1, 0, 1, 2, -1, 16, 17][s]
    let dt: Int64 = [
        8000, 8000, 8000, 8000, 8000, 8000, 8000, 8000, 8000, 8000, 12000, 4000, 0, 0, -30_000, 60_000,
        150_000, 320_000, 450_000, 700_000,
    ][t]
    // Landings anywhere on (and a little off) the 300 x 200 mm panel; moves of up to 4 mm a step.
    let place = kind == .down
    return TouchStep(
        kind: kind, device: d < 8 ? 1 : 2, slot: slot, x: place ? x * 320 - 10 : (x - 0.3) * 4,
        y: place ? y * 220 - 10 : (y - 0.5) * 4, dt: dt)
}.array(of: 0...400)

/// Plays steps through a pipeline, recording everything it says and when.
struct PlayedStream {
    var events: [GestureEvent] = []
    /// For each event, whether its device was present when it was published.
    var devicePresent: [Bool] = []
    /// Every state machine transition, with `tracing`.
    var transitions: [Transition] = []

    init(
        _ steps: [TouchStep], wanted: GestureKindSet = .standard, immediateTaps: Bool = false, changes: GestureKindSet? = nil,
        tracing: Bool = false
    ) {
        let geometry = PanelGeometry(minX: 0, maxX: 3000, minY: 0, maxY: 2000, width: 300, height: 200, source: .configuration)
        var pipeline = GesturePipeline(wanted: wanted)
        pipeline.setWanted(wanted, immediateTaps: immediateTaps, changes: changes)
        var present: Set<Int> = [1, 2]
        for d in present.sorted() { pipeline.addDevice(DeviceID(d), geometry: geometry) }
        pipeline.setTracing(tracing)
        /// A device's transitions go with it: keep them (all devices', again) before it goes.
        func keepTransitions() {
            if tracing { transitions += pipeline.transitions }
        }
        var time: Int64 = 1_000_000
        var positions: [Int: (Double, Double)] = [:]
        var sink = GestureEvents()
        func record() {
            for i in sink.indices {
                events.append(sink[i])
                devicePresent.append(present.contains(sink[i].device.rawValue))
            }
            sink.removeAll()
        }
        for s in steps {
            time = max(0, time + s.dt)
            let now = Timestamp(microseconds: time)
            switch s.kind {
            case .wait:
                pipeline.advance(to: now, into: &sink)
            case .removeDevice:
                keepTransitions()
                pipeline.removeDevice(DeviceID(s.device), at: now, into: &sink)
                record()
                present.remove(s.device)
            case .addDevice:
                if !present.contains(s.device) {
                    keepTransitions()
                    pipeline.addDevice(DeviceID(s.device), geometry: geometry)
                    present.insert(s.device)
                    pipeline.setTracing(tracing)
                }
            case .down, .move, .up, .cancel:
                let phase: ContactPhase = [.down: .down, .move: .move, .up: .up, .cancel: .cancel][s.kind]!
                let key = s.device * 100 + s.slot
                var at = positions[key] ?? (150, 100)
                if s.kind == .down { at = (s.x, s.y) } else if s.kind == .move { at = (at.0 + s.x, at.1 + s.y) }
                positions[key] = at
                var frame = TouchFrame(device: DeviceID(s.device), time: now)
                frame.append(Contact(slot: s.slot, phase: phase, x: at.0, y: at.1))
                // A move of one finger often comes with its neighbours' (a multi-finger gesture).
                if s.kind == .move, s.slot == 0, let other = positions[s.device * 100 + 1] {
                    let spread = s.x > 0 ? 1.02 : 0.98
                    let moved = (other.0 + s.x * spread, other.1 + s.y)
                    positions[s.device * 100 + 1] = moved
                    frame.append(Contact(slot: 1, phase: .move, x: moved.0, y: moved.1))
                }
                pipeline.process(&frame, into: &sink)
            }
            record()
        }
        // The end: every timer fires, then every device goes, which ends what is under way.
        pipeline.finish(into: &sink)
        record()
        keepTransitions()
        for d in present.sorted() {
            pipeline.removeDevice(DeviceID(d), at: Timestamp(microseconds: time), into: &sink)
            record()
        }
    }
}

@Suite("Properties of the pipeline under random touch streams")
struct PropertyTests {
    @Test("every began is followed by exactly one ended or cancelled, and nothing of a gesture comes outside them")
    func lifecycles() async {
        await propertyCheck(count: 300, input: touchSteps) { steps in
            let played = PlayedStream(steps)
            var open: Set<UInt64> = []
            var closed: Set<UInt64> = []
            for e in played.events {
                switch e.phase {
                case .began:
                    #expect(!open.contains(e.id) && !closed.contains(e.id), "began twice: \(e.id)")
                    open.insert(e.id)
                case .changed:
                    #expect(open.contains(e.id), "changed outside began..end: \(e.id)")
                case .ended, .cancelled:
                    #expect(open.remove(e.id) != nil, "\(e.phase) without began: \(e.id)")
                    closed.insert(e.id)
                case .recognized:
                    #expect(!e.gesture.isDiscrete || !open.contains(e.id))
                }
                #expect(e.gesture.isDiscrete == (e.phase == .recognized), "\(e.gesture) \(e.phase)")
            }
            #expect(open.isEmpty, "never ended: \(open)")
        }
    }

    @Test("gesture ids are unique: one id per gesture, never reused")
    func uniqueIDs() async {
        await propertyCheck(count: 300, input: touchSteps) { steps in
            let played = PlayedStream(steps)
            var owner: [UInt64: (GestureKind, DeviceID)] = [:]
            var recognized: Set<UInt64> = []
            for e in played.events {
                if let o = owner[e.id] {
                    #expect(o.0 == e.gesture && o.1 == e.device, "id \(e.id) reused")
                } else {
                    owner[e.id] = (e.gesture, e.device)
                }
                if e.phase == .recognized {
                    #expect(recognized.insert(e.id).inserted, "recognized id \(e.id) twice")
                }
            }
        }
    }

    @Test("output time never goes backwards, even when input time does")
    func monotonicTime() async {
        await propertyCheck(count: 300, input: touchSteps) { steps in
            let played = PlayedStream(steps)
            for (a, b) in zip(played.events, played.events.dropFirst()) {
                #expect(a.time <= b.time, "\(a.time) then \(b.time)")
            }
        }
    }

    @Test("no event for a device after its removal, until it is added again")
    func nothingAfterRemoval() async {
        await propertyCheck(count: 300, input: touchSteps) { steps in
            let played = PlayedStream(steps)
            #expect(played.devicePresent.allSatisfy { $0 })
        }
    }

    @Test("the same input always gives the same output (also with taps at the lift)")
    func deterministic() async {
        await propertyCheck(count: 200, input: touchSteps) { steps in
            #expect(PlayedStream(steps).events == PlayedStream(steps).events)
            let a = PlayedStream(steps, immediateTaps: true).events
            #expect(a == PlayedStream(steps, immediateTaps: true).events)
        }
    }

    @Test("changes left out (no subscriber wants them) are all that is left out: every other event is the same")
    func changesLeftOut() async {
        await propertyCheck(count: 200, input: touchSteps) { steps in
            let all = PlayedStream(steps).events
            for changes in [GestureKindSet(), GestureKindSet(.drag), GestureKindSet([.pinch, .rotate, .touchAndHold])] {
                let expected = all.filter { $0.phase != .changed || changes.contains($0.gesture) }
                #expect(PlayedStream(steps, changes: changes).events == expected, "changes of \(changes.kinds) only")
            }
        }
    }

    @Test("a drag whose changes nobody wants still begins and ends as before")
    func dragWithoutChanges() {
        func play(changes: GestureKindSet?) -> [GestureEvent] {
            var hand = Hand()
            hand.pipeline.setWanted(.standard, changes: changes)
            hand.stroke(at: 0, x: 20, y: 30, dx: 40, dy: 0, duration: 800)
            hand.finish()
            return hand.events
        }
        let all = play(changes: nil)
        #expect(all.count { $0.gesture == .drag && $0.phase == .changed } >= 10)
        let without = play(changes: [])
        #expect(without == all.filter { $0.phase != .changed })
        #expect(without.map(\.phase) == [.began, .ended])
    }

    @Test("every transition of a random stream is drawn in docs/state-machines.md")
    func transitionsDrawn() async throws {
        let diagrams = try StateDiagrams.load()
        await propertyCheck(count: 200, input: touchSteps) { steps in
            let undrawn = diagrams.undrawn(PlayedStream(steps, tracing: true).transitions)
            #expect(undrawn.isEmpty, "not drawn:\n\(undrawn.sorted().joined(separator: "\n"))")
        }
    }
}
