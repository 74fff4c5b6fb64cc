import GestureCore
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
        /// The touches of the last frame, as the daemon assembled them.
        var touches = TouchFrame(device: DeviceID(1), time: .zero)

        /// A device with the panel's slots, every one empty, and `keys` (up).
        static func state(keys: [UInt16] = [Evdev.BTN_TOUCH]) -> DeviceState {
            var s = DeviceState(slots: ClaimerTests.panel.description.slotCount)
            for k in keys { s.set(key: k, down: false) }
            return s
        }

        init(
            claims: ClaimSet, thresholds: GestureThresholds = .defaults, device: DeviceState = Bench.state(),
            clone: DeviceState = Bench.state()
        ) {
            let d = ClaimerTests.panel.description
            let geometry = TouchAssembler.geometry(for: d, size: nil, source: .resolution)!
            assembler = TouchAssembler(description: d, geometry: geometry, device: DeviceID(1), file: "bench")
            claimer = Claimer(
                width: geometry.screenWidth, height: geometry.screenHeight, thresholds: thresholds, device: device,
                clone: clone)
            claimer.claims = claims
            claimer.log.tracing = true
        }

        /// Units of the panel for a position in mm: 4,096 and 2,560 values,
        /// each the same share of the side (`PanelGeometry.millimetres`).
        static func units(_ x: Double, _ y: Double) -> (Int32, Int32) {
            (Int32((x / ClaimerTests.panel.width * 4096).rounded()), Int32((y / ClaimerTests.panel.height * 2560).rounded()))
        }

        /// One device frame, `ms` after the last: what reached the clone for it.
        @discardableResult
        mutating func frame(after ms: Int64 = 10, _ events: [RawEvent]) -> [RawFrame] {
            time += ms * 1000
            let t = Timestamp(microseconds: time)
            var touches: TouchFrame?
            for e in events + [RawEvent.report] {
                if let f = try! assembler.feed(EvdevEvent(time: t, type: e.type, code: e.code, value: e.value)) { touches = f }
            }
            self.touches = touches ?? TouchFrame(device: DeviceID(1), time: t)
            claimer.process(events, at: t, touches: self.touches)
            let out = claimer.output.frames
            clone += out
            return out
        }

        mutating func advance(ms: Int64) -> [RawFrame] {
            time += ms * 1000
            claimer.advance(to: Timestamp(microseconds: time))
            let out = claimer.output.frames
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
    static let report = RawEvent.report

    @Test(
        "without the touchpad, a claim keeps the counts some entry claims for their own sake and drops those only touchpad entries claim, however the entries were joined"
    )
    func withoutTouchpad() {
        var all = ClaimSet(touchpad: [3, 4])
        all.formUnion(ClaimSet(fingers: [4, 5], edges: [.left]))
        all.formUnion(ClaimSet(holds: [1: 800]))
        #expect(all.fingers == [3, 4, 5] && all.touchpad == [3, 4] && all.padOnly == [3])
        let without = all.withoutTouchpad
        #expect(without.fingers == [4, 5] && without.touchpad.isEmpty && without.edges == [.left])
        #expect(without.holds == [1: 800])
        #expect(!without.claims(fingers: 3) && without.claims(fingers: 4))
        // Joined the other way round, the same.
        var other = ClaimSet(fingers: [4, 5], edges: [.left])
        other.formUnion(ClaimSet(touchpad: [3, 4]))
        #expect(other.padOnly == [3] && other.withoutTouchpad.fingers == [4, 5])
        // What both of two claims take: a count one takes only for the pad
        // is, in both, only for the pad.
        let both = all.intersection(ClaimSet(touchpad: [3, 4]))
        #expect(both.fingers == [3, 4] && both.touchpad == [3, 4] && both.withoutTouchpad.fingers.isEmpty)
        #expect(ClaimSet(fingers: [3]).withoutTouchpad == ClaimSet(fingers: [3]))
    }

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
        var device = Bench.state()
        var clone = Bench.state()
        for slot: Int32 in 0...1 {
            device.set(slot: slot, Evdev.ABS_MT_POSITION_X, slot == 0 ? ux : 0)
            device.set(slot: slot, Evdev.ABS_MT_POSITION_Y, slot == 0 ? uy : 0)
            clone.set(slot: slot, Evdev.ABS_MT_POSITION_X, 0)
            clone.set(slot: slot, Evdev.ABS_MT_POSITION_Y, 0)
        }
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
        #expect(b.claimer.state == .idle)
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
        #expect(b.claimer.state != .claimed)
        var four = Bench(claims: ClaimSet(fingers: [4]))
        four.frame(Self.down(0, id: 1, at: 100, 60) + Self.down(1, id: 2, at: 110, 60) + Self.down(2, id: 3, at: 120, 60))
        #expect(four.claimer.state != .claimed && four.clone.count == 1)
    }

    @Test(
        "claims that change while fingers are down apply from the next touch sequence: one under way keeps what it began with"
    )
    func claimsChangeBetweenSequences() {
        // Withdrawn mid-sequence: the two fingers down stay claimed when a third lands.
        var b = Bench(claims: ClaimSet(fingers: [3]))
        #expect(b.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch]).count == 1)
        #expect(b.frame(after: 20, Self.down(1, id: 2, at: 120, 60)).count == 1)
        b.claimer.claims = ClaimSet()
        b.frame(after: 20, Self.down(2, id: 3, at: 140, 60))
        #expect(b.claimer.state == .claimed, "\(b.claimer.log)")
        b.frame(Self.up(0) + Self.up(1) + Self.up(2) + [Self.release])
        // The next sequence has none.
        let sent = b.clone.count
        b.frame(after: 100, Self.down(0, id: 4, at: 100, 60) + Self.down(1, id: 5, at: 110, 60) + [Self.touch])
        b.frame(after: 10, Self.down(2, id: 6, at: 120, 60))
        #expect(b.claimer.state != .claimed)
        #expect(b.clone.count == sent + 2)
        b.frame(Self.up(0) + Self.up(1) + Self.up(2) + [Self.release])
        // Given mid-sequence: a sequence that began with nothing claimed is not taken.
        b.frame(after: 100, Self.down(0, id: 7, at: 100, 60) + [Self.touch])
        b.claimer.claims = ClaimSet(fingers: [3], edges: [.left])
        b.frame(after: 10, Self.down(1, id: 8, at: 110, 60) + Self.down(2, id: 9, at: 120, 60))
        #expect(b.claimer.state != .claimed)
        b.frame(Self.up(0) + Self.up(1) + Self.up(2) + [Self.release])
        // And the one after is.
        #expect(
            b.frame(
                after: 100,
                Self.down(0, id: 10, at: 100, 60) + Self.down(1, id: 11, at: 110, 60) + Self.down(2, id: 12, at: 120, 60)
                    + [Self.touch]
            ).isEmpty)
        #expect(b.claimer.state == .claimed)
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
        #expect(b.claimer.state == .claimed)
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
        #expect(b.claimer.state == .claimed)
    }

    @Test("a tap in a claimed edge band arrives whole at its lift; a touch resting there goes on when claim.edgeHold ends")
    func edgeTapAndHoldBound() {
        var b = Bench(claims: ClaimSet(edges: [.bottom]))
        #expect(b.frame(Self.down(0, id: 1, at: 100, 133) + [Self.touch]).isEmpty)
        let lift = b.frame(after: 60, Self.up(0) + [Self.release])
        #expect(lift.count == 2, "\(lift)")
        #expect(lift[0].events.contains(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 1)))
        #expect(lift[1].events.contains(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)))
        #expect(b.claimer.state == .idle)
        #expect(b.frame(after: 300, Self.down(0, id: 2, at: 100, 133) + [Self.touch]).isEmpty)
        #expect(b.claimer.deadline == Timestamp(microseconds: b.time) + .milliseconds(150))
        #expect(b.advance(ms: 100).isEmpty)
        let released = b.advance(ms: 60)
        #expect(released.count == 1 && released[0].events.contains(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 2)))
        #expect(b.frame(Self.move(0, to: 100, 120)).count == 1)
    }

    /// The frames that cancel the touches of `slots` on the clone, as claiming writes them.
    static func cancelFrames(_ slots: [Int32]) -> [[RawEvent]] {
        [
            slots.flatMap { [RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, $0), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, 2)] }
                + [Self.report],
            slots.flatMap {
                [
                    RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, $0), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, 0),
                    RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1),
                ]
            } + [RawEvent(Evdev.EV_KEY, Evdev.BTN_TOUCH, 0), Self.report],
        ]
    }

    @Test(
        "a claimed hold: every frame goes on until its time, then the touch is cancelled at that time (by the timer, or by the next frame) and nothing more goes on"
    )
    func holdClaimed() {
        for byFrame in [false, true] {
            var b = Bench(claims: ClaimSet(holds: [1: 800]))
            let landed = b.time + 10_000
            #expect(b.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch]).count == 1)
            #expect(b.claimer.deadline == Timestamp(microseconds: landed) + .milliseconds(800))
            // Trembling within slop (2 mm) goes on as it comes.
            #expect(b.frame(after: 300, Self.move(0, to: 101.2, 60.9)).count == 1)
            #expect(b.frame(after: 300, Self.move(0, to: 100.4, 59.2)).count == 1)
            #expect(b.claimer.state == .passing)
            let cancel: [RawFrame]
            if byFrame {
                // The timer came late: the frame after the deadline finds it passed.
                cancel = b.frame(after: 250, Self.move(0, to: 100.5, 59.5))
            } else {
                #expect(b.advance(ms: 150).isEmpty)
                cancel = b.advance(ms: 50)
            }
            #expect(cancel.map(\.events) == Self.cancelFrames([0]), "\(cancel)")
            #expect(cancel.allSatisfy { $0.time == Timestamp(microseconds: landed) + .milliseconds(800) })
            #expect(b.claimer.state == .claimed)
            #expect(b.frame(Self.move(0, to: 130, 80)).isEmpty)
            #expect(b.frame(after: 100, Self.up(0) + [Self.release]).isEmpty)
            #expect(b.claimer.state == .idle && b.claimer.deadline == .never)
            #expect(b.claimer.log.anomalies.isEmpty)
        }
    }

    @Test(
        "a claimed hold is never claimed when a finger moves beyond slop, lifts, or more land, and never before hold.minDuration"
    )
    func holdNotClaimed() {
        // Moved 5 mm before its time: passed on whole, to its lift.
        var moved = Bench(claims: ClaimSet(holds: [1: 800]))
        moved.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch])
        moved.frame(after: 200, Self.move(0, to: 105, 60))
        // Back where it landed: still not a hold.
        moved.frame(after: 200, Self.move(0, to: 100, 60))
        #expect(moved.claimer.deadline == .never)
        #expect(moved.advance(ms: 1_000).isEmpty)
        #expect(moved.frame(Self.up(0) + [Self.release]).count == 1)
        #expect(moved.clone.count == 4 && moved.claimer.state == .idle)
        // A second finger: a count with no hold claimed.
        var two = Bench(claims: ClaimSet(holds: [1: 800]))
        two.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch])
        two.frame(after: 100, Self.down(1, id: 2, at: 130, 60))
        #expect(two.advance(ms: 2_000).isEmpty && two.claimer.state == .passing)
        // Two fingers, one lifts: the other is no hold.
        var lifted = Bench(claims: ClaimSet(holds: [1: 800, 2: 800]))
        lifted.frame(Self.down(0, id: 1, at: 100, 60) + Self.down(1, id: 2, at: 130, 60) + [Self.touch])
        lifted.frame(after: 100, Self.up(1))
        #expect(lifted.claimer.deadline == .never && lifted.advance(ms: 2_000).isEmpty)
        // Asked for less than hold.minDuration: claimed at hold.minDuration.
        var t = GestureThresholds.defaults
        t.holdMinDuration = 600
        var short = Bench(claims: ClaimSet(holds: [1: 300]), thresholds: t)
        short.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch])
        #expect(short.claimer.deadline == Timestamp(microseconds: short.time) + .milliseconds(600))
        // The two-finger hold is timed from the second finger's landing.
        var pair = Bench(claims: ClaimSet(holds: [2: 800]))
        pair.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch])
        pair.frame(after: 300, Self.down(1, id: 2, at: 130, 60))
        #expect(pair.claimer.deadline == Timestamp(microseconds: pair.time) + .milliseconds(800))
        #expect(pair.advance(ms: 800).map(\.events) == Self.cancelFrames([0, 1]))
    }

    @Test(
        "a claim whose client goes while nothing of the sequence is taken yet takes nothing: a hold waiting for its time, a count whose last finger has yet to land; one already taken keeps to its end; claims a client changes wait for the next sequence"
    )
    func claimEndsWithItsClient() {
        // A one-finger hold claim: its client goes 200 ms after the landing.
        var hold = Bench(claims: ClaimSet(holds: [1: 800]))
        hold.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch])
        hold.claimer.withdraw(to: ClaimSet())
        #expect(hold.claimer.deadline == .never)
        #expect(hold.advance(ms: 2_000).isEmpty, "the hold was claimed after its client went")
        #expect(hold.frame(Self.up(0) + [Self.release]).count == 1)
        #expect(hold.clone.count == 2 && hold.claimer.state == .idle)
        // Another client still asks for the hold, for longer: claimed at its time.
        var longer = Bench(claims: ClaimSet(holds: [1: 800]))
        let landed = longer.time + 10_000
        longer.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch])
        longer.claimer.withdraw(to: ClaimSet(holds: [1: 1200]))
        #expect(longer.claimer.deadline == Timestamp(microseconds: landed) + .milliseconds(1200))
        // Three fingers claimed: two are down when the claim goes; the third's landing takes nothing.
        var three = Bench(claims: ClaimSet(fingers: [3]))
        three.frame(Self.down(0, id: 1, at: 100, 60) + Self.down(1, id: 2, at: 130, 60) + [Self.touch])
        three.claimer.withdraw(to: ClaimSet())
        #expect(three.frame(after: 30, Self.down(2, id: 3, at: 160, 60)).count == 1)
        #expect(three.claimer.state == .passing)
        // Already taken: the sequence keeps to its end, and the next one follows the new claims.
        var taken = Bench(claims: ClaimSet(fingers: [3]))
        taken.frame(
            Self.down(0, id: 1, at: 100, 60) + Self.down(1, id: 2, at: 130, 60) + Self.down(2, id: 3, at: 160, 60)
                + [Self.touch])
        #expect(taken.claimer.state == .claimed)
        taken.claimer.withdraw(to: ClaimSet())
        #expect(taken.frame(after: 30, Self.move(0, to: 120, 70)).isEmpty)
        #expect(taken.claimer.state == .claimed)
        // Changed (not gone): the hold waiting keeps its time.
        var changed = Bench(claims: ClaimSet(holds: [1: 800]))
        changed.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch])
        changed.claimer.claims = ClaimSet()
        #expect(changed.advance(ms: 900).map(\.events) == Self.cancelFrames([0]))
        for slot in hold.claimer.log.anomalies { Issue.record("anomaly: \(slot)") }
    }

    @Test("device state and its difference: slots, axes and keys, the slot selected again where it moved")
    func stateDifference() {
        var a = Bench.state()
        var c = Bench.state()
        a.apply(Self.down(0, id: 5, at: 10, 10) + Self.down(3, id: 6, at: 20, 20) + [Self.touch])
        let diff = c.difference(to: a)
        c.apply(diff)
        #expect(c == a)
        #expect(diff.first == RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 5), "slot 0 needs no selecting")
        #expect(diff.contains(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 3)))
        #expect(c.activeSlots == [0, 3])
    }

    @Test(
        "five fingers, claimed as the fifth lands: the cancel lifts every touch key the clone has down, BTN_TOOL_QUINTTAP included"
    )
    func fiveFingersLeaveNoToolKeyDown() {
        let keys = Evdev.touchKeys
        var b = Bench(claims: ClaimSet(fingers: [5]), device: Bench.state(keys: keys), clone: Bench.state(keys: keys))
        let tools = [Evdev.BTN_TOOL_FINGER, Evdev.BTN_TOOL_DOUBLETAP, Evdev.BTN_TOOL_TRIPLETAP, Evdev.BTN_TOOL_QUADTAP]
        for n in 0..<4 {
            // As a panel reports it: the tool of the finger count, the last one's key up.
            var events = Self.down(Int32(n), id: Int32(n + 1), at: 60 + Double(n) * 15, 60)
            events.append(RawEvent(Evdev.EV_KEY, tools[n], 1))
            if n == 0 { events.append(Self.touch) } else { events.append(RawEvent(Evdev.EV_KEY, tools[n - 1], 0)) }
            #expect(b.frame(after: 20, events).count == 1, "finger \(n + 1) passes")
        }
        #expect(b.claimer.clone.isDown(key: Evdev.BTN_TOOL_QUADTAP) && b.claimer.clone.isDown(key: Evdev.BTN_TOUCH))
        let fifth =
            Self.down(4, id: 5, at: 120, 60) + [
                RawEvent(Evdev.EV_KEY, Evdev.BTN_TOOL_QUADTAP, 0), RawEvent(Evdev.EV_KEY, Evdev.BTN_TOOL_QUINTTAP, 1),
            ]
        let cancel = b.frame(after: 20, fifth)
        #expect(cancel.count == 2, "\(cancel)")
        #expect(b.claimer.state == .claimed)
        for k in keys { #expect(!b.claimer.clone.isDown(key: k), "\(hex4(k)) still down on the clone") }
        #expect(b.claimer.clone.activeSlots.isEmpty)
        // The lift of all five reaches nothing.
        #expect(b.frame(Self.up(0) + Self.up(1) + Self.up(2) + Self.up(3) + Self.up(4) + [Self.release]).isEmpty)
        #expect(b.claimer.log.anomalies.isEmpty)
    }

    @Test(
        "frames that could not be written: the touches the clone has are cancelled when writing works again, and the rest of the sequence is withheld"
    )
    func cloneWriteFailure() {
        var b = Bench(claims: ClaimSet(fingers: [3]))
        b.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch])
        // The second finger's frame does not reach the clone.
        let lost = b.frame(after: 20, Self.down(1, id: 2, at: 120, 60))
        #expect(lost.count == 1)
        b.claimer.written(0, at: Timestamp(microseconds: b.time))
        #expect(b.claimer.state == .claimed)
        #expect(b.claimer.clone.activeSlots == [0], "the clone has the first finger only")
        #expect(b.claimer.deadline == Timestamp(microseconds: b.time) + Claimer.retryInterval)
        // The next call cancels what the clone has: the first finger, never lifted there.
        let next = b.frame(after: 10, Self.move(0, to: 100, 65))
        #expect(next.count == 2, "\(next)")
        #expect(next.first?.events.contains(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, Evdev.MT_TOOL_PALM)) == true)
        #expect(b.claimer.clone.activeSlots.isEmpty && !b.claimer.clone.isDown(key: Evdev.BTN_TOUCH))
        // Withheld to the last lift; the next touch arrives whole.
        #expect(b.frame(Self.up(0) + Self.up(1) + [Self.release]).isEmpty)
        let tap = b.frame(after: 100, Self.down(0, id: 3, at: 80, 40) + [Self.touch])
        #expect(tap.count == 1 && tap[0].events.contains(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 3)))
        #expect(b.claimer.log.transitions.contains { $0.event == "clone-lost" })
        #expect(b.claimer.log.anomalies.isEmpty)
    }

    @Test("a clone that stays unwritable is tried again at its deadline, with no frame coming")
    func cloneRetriedByTime() {
        var b = Bench(claims: ClaimSet(fingers: [3]))
        b.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch])
        b.claimer.written(0, at: Timestamp(microseconds: b.time))
        // Nothing of the landing reached it: there is nothing to cancel.
        #expect(b.advance(ms: 100).isEmpty)
        var c = Bench(claims: ClaimSet(fingers: [3]))
        c.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch])
        c.frame(after: 10, Self.move(0, to: 100, 62))
        c.claimer.written(0, at: Timestamp(microseconds: c.time))
        #expect(c.claimer.deadline == Timestamp(microseconds: c.time) + Claimer.retryInterval)
        let retried = c.advance(ms: 100)
        #expect(retried.count == 2, "\(retried)")
        #expect(c.claimer.deadline == .never)
    }

    @Test(
        "the edge band is one rule: where the arbiter says a touch started at an edge, the claimer holds it back, on every side and in the corners"
    )
    func edgeBandIsShared() {
        let width = ClaimerTests.panel.width
        let height = ClaimerTests.panel.height
        let band = GestureThresholds.defaults.edgeBand
        var checked = 0
        for x in [0.5, band - 0.2, band + 0.3, width / 2, width - band + 0.2, width - 0.5] {
            for y in [0.5, band - 0.2, band + 0.3, height / 2, height - band + 0.2, height - 0.5] {
                let edge = PanelEdge.at(x: x, y: y, width: width, height: height, band: band)
                // The arbiter: a one-finger stroke from (x, y) toward the middle.
                var h = Hand(width: width, height: height)
                h.stroke(at: 0, x: x, y: y, dx: (width / 2 - x) / 4, dy: (height / 2 - y) / 4, duration: 200)
                h.finish()
                let said = h.events.first { $0.phase == .began || $0.phase == .recognized }?.edge
                #expect(said == edge, "arbiter at (\(x), \(y)): \(String(describing: said)), rule: \(String(describing: edge))")
                // The claimer, every edge claimed: held back exactly there.
                var b = Bench(claims: ClaimSet(edges: Set(PanelEdge.allCases)))
                let passed = b.frame(Self.down(0, id: 1, at: x, y) + [Self.touch])
                #expect(passed.isEmpty == (edge != nil), "claimer at (\(x), \(y))")
                checked += 1
            }
        }
        #expect(checked == 36)
        // In a corner both edges are as near: the later of left, right, top, bottom.
        #expect(PanelEdge.at(x: 1, y: 1, width: 100, height: 60, band: 4) == .top)
        #expect(PanelEdge.at(x: 1, y: 2, width: 100, height: 60, band: 4) == .left)
        #expect(PanelEdge.at(x: 1, y: 1, width: 100, height: 60, band: 4, among: [.left]) == .left)
        #expect(PanelEdge.at(x: 5, y: 30, width: 100, height: 60, band: 4) == nil)
    }

    @Test(
        "every transition the benches meet, the rare ones included (an edge tap, a timeout, a claimed hold, a resync, frames unseen, a cancel, a lost clone), is drawn"
    )
    func benchTransitionsAreDrawn() throws {
        var seen: [Transition] = []
        // A tap at a claimed edge; a rest there past claim.edgeHold; a move along it.
        var e = Bench(claims: ClaimSet(edges: [.left]))
        e.frame(Self.down(0, id: 1, at: 2, 60) + [Self.touch])
        e.frame(after: 40, Self.up(0) + [Self.release])
        e.frame(after: 100, Self.down(0, id: 2, at: 2, 60) + [Self.touch])
        _ = e.advance(ms: 200)
        e.frame(Self.up(0) + [Self.release])
        e.frame(after: 100, Self.down(0, id: 3, at: 2, 60) + [Self.touch])
        e.frame(Self.move(0, to: 2, 70))
        e.frame(Self.up(0) + [Self.release])
        seen += e.claimer.log.transitions
        // A resync while passing; frames unseen; a cancel of everything; a lost clone.
        var r = Bench(claims: ClaimSet(fingers: [3]))
        r.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch])
        let t = Timestamp(microseconds: r.time + 10_000)
        r.claimer.process(
            Self.move(0, to: 100, 62), at: t, touches: TouchFrame(device: DeviceID(1), time: t), resynchronized: true)
        r.frame(after: 20, Self.up(0) + [Self.release])
        r.claimer.observe(
            Self.down(0, id: 2, at: 90, 60), at: t + .milliseconds(300),
            touches: TouchFrame(
                device: DeviceID(1), time: t + .milliseconds(300), contacts: [Contact(slot: 0, phase: .down, x: 90, y: 60)]))
        r.claimer.cancelAll(at: t + .milliseconds(310))
        seen += r.claimer.log.transitions
        var w = Bench(claims: ClaimSet(fingers: [3]))
        w.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch])
        w.claimer.written(0, at: Timestamp(microseconds: w.time))
        seen += w.claimer.log.transitions
        // A claimed hold, to its time.
        var h = Bench(claims: ClaimSet(holds: [1: 800]))
        h.frame(Self.down(0, id: 1, at: 100, 60) + [Self.touch])
        _ = h.advance(ms: 900)
        h.frame(Self.up(0) + [Self.release])
        seen += h.claimer.log.transitions
        #expect(r.claimer.log.anomalies.isEmpty && e.claimer.log.anomalies.isEmpty && h.claimer.log.anomalies.isEmpty)
        let events = Set(seen.map(\.event))
        for name in [
            "edge-landing", "all-up", "edge-timeout", "away", "resync", "unseen", "cancel-all", "clone-lost", "hold-deadline",
        ] {
            #expect(events.contains(name), "\(name) not met")
        }
        let undrawn = try StateDiagrams.load().undrawn(seen)
        #expect(undrawn.isEmpty, "not drawn:\n\(undrawn.sorted().joined(separator: "\n"))")
    }
}
