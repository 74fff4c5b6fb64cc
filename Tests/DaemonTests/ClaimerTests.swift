import GestureCore
import GestureDaemon
import GestureProtocol
import Testing
import TraceSynth

/// What of a claimed touchscreen reaches its clone, frame by frame
/// (`Claimer`; docs/claiming.md): the device's frames are written as a
/// kernel would send them, assembled as the daemon assembles them, and
/// what the claimer gives the clone is checked event by event.
@Suite("Claiming: what reaches the clone")
struct ClaimerTests {
    /// The tablet panel: 216 x 135 mm over 0...4095 x 0...2559.
    static let panel = SynthPanel.tablet

    /// A claimed device under test: its frames go in, the clone's come out.
    struct Bench {
        var assembler: TouchAssembler
        var claimer: Claimer
        /// Every frame written to the clone so far.
        var clone: [RawFrame] = []
        var time: Int64 = 1_000_000

        init(
            claims: ClaimSet, thresholds: GestureThresholds = .defaults, device: DeviceState = DeviceState(),
            clone: DeviceState = DeviceState()
        ) {
            let d = ClaimerTests.panel.description
            let geometry = TouchAssembler.geometry(for: d, size: nil, source: .resolution)!
            assembler = TouchAssembler(description: d, geometry: geometry, device: DeviceID(1), file: "bench")
            claimer = Claimer(
                width: geometry.screenWidth, height: geometry.screenHeight, thresholds: thresholds, keys: [Evdev.BTN_TOUCH],
                device: device, clone: clone)
            claimer.claims = claims
        }

        /// Units of the panel for a position in mm.
        static func units(_ x: Double, _ y: Double) -> (Int32, Int32) {
            (Int32((x / ClaimerTests.panel.width * 4095).rounded()), Int32((y / ClaimerTests.panel.height * 2559).rounded()))
        }

        /// One device frame, `ms` after the last: what reached the clone for it.
        @discardableResult
        mutating func frame(after ms: Int64 = 10, _ events: [RawEvent]) -> [RawFrame] {
            time += ms * 1000
            let t = Timestamp(microseconds: time)
            let all = events + [RawEvent(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)]
            var touches: TouchFrame?
            for e in all {
                if let f = try! assembler.feed(EvdevEvent(time: t, type: e.type, code: e.code, value: e.value)) { touches = f }
            }
            let out = claimer.process(
                RawFrame(time: t, events: all), touches: touches ?? TouchFrame(device: DeviceID(1), time: t))
            clone += out
            return out
        }

        mutating func advance(ms: Int64) -> [RawFrame] {
            time += ms * 1000
            let out = claimer.advance(to: Timestamp(microseconds: time))
            clone += out
            return out
        }
    }

    static func down(_ slot: Int32, id: Int32, at x: Double, _ y: Double, select: Bool = true) -> [RawEvent] {
        let (ux, uy) = Bench.units(x, y)
        return (select ? [RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, slot)] : [])
            + [
                RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, id), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, ux),
                RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, uy),
            ]
    }

    static func move(_ slot: Int32, to x: Double, _ y: Double) -> [RawEvent] {
        let (ux, uy) = Bench.units(x, y)
        return [
            RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, slot), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, ux),
            RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, uy),
        ]
    }

    static func up(_ slot: Int32) -> [RawEvent] {
        [RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, slot), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)]
    }

    static let touch = RawEvent(Evdev.EV_KEY, Evdev.BTN_TOUCH, 1)
    static let release = RawEvent(Evdev.EV_KEY, Evdev.BTN_TOUCH, 0)
    static let report = RawEvent(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)

    @Test("with nothing claimed of it, a tap and a two-finger pinch reach the clone frame for frame, times included")
    func unclaimedPassesWhole() {
        var b = Bench(claims: ClaimSet(fingers: [3, 4]))
        var sent: [RawFrame] = []
        func send(_ ms: Int64, _ e: [RawEvent]) {
            b.frame(after: ms, e)
            sent.append(RawFrame(time: Timestamp(microseconds: b.time), events: e + [Self.report]))
        }
        send(10, Self.down(0, id: 1, at: 100, 60) + [Self.touch])
        send(80, Self.up(0) + [Self.release])
        send(300, Self.down(0, id: 2, at: 90, 60) + Self.down(1, id: 3, at: 120, 60) + [Self.touch])
        for i in 1...10 { send(10, Self.move(0, to: 90 - Double(i) * 2, 60) + Self.move(1, to: 120 + Double(i) * 2, 60)) }
        send(10, Self.up(0) + Self.up(1) + [Self.release])
        #expect(b.clone == sent)
    }

    @Test(
        "a device claimed after touches left values in its slots: the first touch that repeats one (which the kernel does not send again) reaches the new clone with it"
    )
    func staleValuesReachTheClone() {
        let (ux, uy) = Bench.units(100, 60)
        var device = DeviceState()
        var clone = DeviceState()
        for slot: Int32 in 0...1 {
            device.slots[slot] = [
                Evdev.ABS_MT_TRACKING_ID: -1, Evdev.ABS_MT_POSITION_X: slot == 0 ? ux : 0,
                Evdev.ABS_MT_POSITION_Y: slot == 0 ? uy : 0,
            ]
            clone.slots[slot] = [Evdev.ABS_MT_TRACKING_ID: -1, Evdev.ABS_MT_POSITION_X: 0, Evdev.ABS_MT_POSITION_Y: 0]
        }
        device.keys[Evdev.BTN_TOUCH] = 0
        clone.keys[Evdev.BTN_TOUCH] = 0
        var b = Bench(claims: ClaimSet(fingers: [3]), device: device, clone: clone)
        // A tap where the last touch on slot 0 was: the device sends no position.
        let first = b.frame([RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 7), Self.touch])
        #expect(
            first.map(\.events) == [
                [
                    RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 7), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, ux),
                    RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, uy), Self.touch, Self.report,
                ]
            ])
        // In step from then on: the device's own frames.
        let lift = Self.up(0) + [Self.release]
        #expect(b.frame(after: 60, lift).map(\.events) == [lift + [Self.report]])
        #expect(b.claimer.clone == b.claimer.source)
    }

    @Test(
        "three fingers, the third within the window: the two passed on are cancelled (palm, then ended, tool back to finger) and nothing more goes on"
    )
    func threeFingersClaimed() {
        var b = Bench(claims: ClaimSet(fingers: [3]))
        #expect(b.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch]).count == 1)
        #expect(b.frame(after: 30, Self.down(1, id: 2, at: 120, 60)).count == 1)
        let claimed = b.frame(after: 30, Self.down(2, id: 3, at: 140, 60))
        #expect(
            claimed.map(\.events) == [
                [
                    RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 0), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, 2),
                    RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 1), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, 2), Self.report,
                ],
                [
                    RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 0), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, 0),
                    RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 1),
                    RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, 0), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1),
                    RawEvent(Evdev.EV_KEY, Evdev.BTN_TOUCH, 0), Self.report,
                ],
            ])
        #expect(claimed.allSatisfy { $0.time == Timestamp(microseconds: b.time) })
        for i in 1...10 {
            #expect(
                b.frame(
                    Self.move(0, to: 100, 60 + Double(i) * 3) + Self.move(1, to: 120, 60 + Double(i) * 3)
                        + Self.move(2, to: 140, 60 + Double(i) * 3)
                ).isEmpty)
        }
        #expect(b.frame(Self.up(0) + Self.up(1) + Self.up(2) + [Self.release]).isEmpty)
        #expect(b.claimer.phase == .idle)
        // The next tap, in slot 2, where the claimed finger lifted, at the x it
        // lifted at (which the device does not send again): it arrives
        // whole, position included, with what else the clone missed (the
        // other slots' last values, untouched) before it.
        let (ux, uy) = Bench.units(140, 90)
        let tap = b.frame(
            after: 200,
            [
                RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 4), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, uy),
                Self.touch,
            ])
        #expect(tap.count == 1, "\(tap)")
        let events = tap.first?.events ?? []
        let slot2 = events.firstIndex(of: RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 2)) ?? events.count
        #expect(
            Array(events[slot2...]) == [
                RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 2), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 4),
                RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, ux), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, uy),
                RawEvent(Evdev.EV_KEY, Evdev.BTN_TOUCH, 1), Self.report,
            ], "\(tap)")
        #expect(!events[..<slot2].contains { $0.code == Evdev.ABS_MT_TRACKING_ID }, "\(tap)")
        #expect(b.claimer.clone.difference(to: b.claimer.source).isEmpty)
        // From then on, the device's own frames again.
        let lift = b.frame(after: 80, Self.up(2) + [Self.release])
        #expect(lift.map(\.events) == [Self.up(2) + [Self.release, Self.report]])
    }

    @Test("a third finger landing after the window, or a count nobody claims: everything goes on")
    func lateOrUnclaimed() {
        var b = Bench(claims: ClaimSet(fingers: [3]))
        b.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch])
        b.frame(after: 30, Self.down(1, id: 2, at: 120, 60))
        #expect(b.frame(after: 200, Self.down(2, id: 3, at: 140, 60)).count == 1)
        #expect(b.claimer.phase != .claimed)
        var four = Bench(claims: ClaimSet(fingers: [4]))
        four.frame(Self.down(0, id: 1, at: 100, 60) + Self.down(1, id: 2, at: 110, 60) + Self.down(2, id: 3, at: 120, 60))
        #expect(four.claimer.phase != .claimed && four.clone.count == 1)
    }

    @Test("fingers that all land in one frame, of a claimed count: nothing of them ever reaches the clone")
    func claimedAtOnce() {
        var b = Bench(claims: ClaimSet(fingers: [3]))
        #expect(
            b.frame(
                Self.down(0, id: 1, at: 100, 60) + Self.down(1, id: 2, at: 110, 60) + Self.down(2, id: 3, at: 120, 60)
                    + [Self.touch]
            ).isEmpty)
        #expect(b.frame(Self.move(0, to: 100, 70)).isEmpty)
        #expect(b.frame(Self.up(0) + Self.up(1) + Self.up(2) + [Self.release]).isEmpty)
        #expect(b.clone.isEmpty)
    }

    @Test(
        "a touch at a claimed edge moving inward is claimed and never delivered; one moving along it is replayed, then streamed")
    func edges() {
        var b = Bench(claims: ClaimSet(edges: [.left]))
        #expect(b.frame(Self.down(0, id: 1, at: 2, 60) + [Self.touch]).isEmpty)
        #expect(b.frame(Self.move(0, to: 2.5, 60)).isEmpty)
        #expect(b.frame(Self.move(0, to: 8, 60)).isEmpty)
        #expect(b.claimer.phase == .claimed)
        #expect(b.frame(Self.move(0, to: 40, 60)).isEmpty)
        #expect(b.frame(Self.up(0) + [Self.release]).isEmpty)
        #expect(b.clone.isEmpty)
        // Along the edge: what was held back goes on, each frame at its own time.
        let start = b.time + 100_000
        #expect(b.frame(after: 100, Self.down(0, id: 2, at: 2, 60) + [Self.touch]).isEmpty)
        let along = b.frame(Self.move(0, to: 2, 65))
        #expect(along.count == 2 && along[0].time == Timestamp(microseconds: start), "\(along)")
        #expect(along[0].events.contains(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 2)))
        #expect(b.frame(Self.move(0, to: 2, 70)).count == 1)
        // Elsewhere than at a claimed edge: no hold at all.
        #expect(b.frame(Self.up(0) + [Self.release]).count == 1)
        #expect(b.frame(after: 100, Self.down(0, id: 3, at: 213, 60) + [Self.touch]).count == 1)
    }

    @Test("a claimed edge is the picture's: with the picture turned 90, the panel's bottom is its left")
    func edgesTurn() {
        var b = Bench(claims: ClaimSet(edges: [.left]))
        b.claimer.transform = .rot90
        let bottom = ClaimerTests.panel.height - 2
        // The panel's left edge is the picture's top: passed on at once.
        #expect(b.frame(Self.down(0, id: 1, at: 2, 60) + [Self.touch]).count == 1)
        #expect(b.frame(Self.up(0) + [Self.release]).count == 1)
        // Its bottom edge is the picture's left: held, then claimed moving inward (up the panel).
        #expect(b.frame(after: 100, Self.down(0, id: 2, at: 100, bottom) + [Self.touch]).isEmpty)
        #expect(b.frame(Self.move(0, to: 100, bottom - 8)).isEmpty)
        #expect(b.claimer.phase == .claimed)
    }

    @Test("a tap in a claimed edge band arrives whole at its lift; a touch resting there goes on when claim.edgeHold ends")
    func edgeTapAndHoldBound() {
        var b = Bench(claims: ClaimSet(edges: [.bottom]))
        #expect(b.frame(Self.down(0, id: 1, at: 100, 133) + [Self.touch]).isEmpty)
        let lift = b.frame(after: 60, Self.up(0) + [Self.release])
        #expect(lift.count == 2, "\(lift)")
        #expect(lift[0].events.contains(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 1)))
        #expect(lift[1].events.contains(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)))
        #expect(b.claimer.phase == .idle)
        #expect(b.frame(after: 300, Self.down(0, id: 2, at: 100, 133) + [Self.touch]).isEmpty)
        #expect(b.claimer.deadline == Timestamp(microseconds: b.time) + .milliseconds(150))
        #expect(b.advance(ms: 100).isEmpty)
        let released = b.advance(ms: 60)
        #expect(released.count == 1 && released[0].events.contains(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 2)))
        #expect(b.frame(Self.move(0, to: 100, 120)).count == 1)
    }

    @Test("device state and its difference: slots, axes and keys, the slot selected again where it moved")
    func stateDifference() {
        var a = DeviceState()
        var c = DeviceState()
        a.apply(Self.down(0, id: 5, at: 10, 10) + Self.down(3, id: 6, at: 20, 20) + [Self.touch])
        let diff = c.difference(to: a)
        c.apply(diff)
        #expect(c == a)
        #expect(diff.first == RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 5), "slot 0 needs no selecting")
        #expect(diff.contains(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 3)))
        #expect(c.activeSlots == [0, 3])
    }
}
