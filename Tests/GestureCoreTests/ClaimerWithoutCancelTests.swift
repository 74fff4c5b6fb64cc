import GestureCore
import Testing
import TraceSynth

/// The claimer on a compositor that drops libinput's touch cancel
/// (`ClaimSet.cancelDropped`; docs/claiming.md, "When the compositor drops
/// the cancel"): the app must never be left with a touch that does not end,
/// so a sequence's first touches are held back while a claimed count may
/// still land, and touches the clone has are lifted, never given the palm
/// tool. Every test ends by checking the clone has no touch open.
@Suite("Claiming where the compositor drops touch cancels")
struct ClaimerWithoutCancelTests {
    typealias C = ClaimerTests

    static func bench(_ claims: ClaimSet) -> ClaimerTests.Bench {
        var c = claims
        c.cancelDropped = true
        return ClaimerTests.Bench(claims: c)
    }

    /// Whether any frame the clone got names the palm tool (a cancel).
    static func palm(_ frames: [RawFrame]) -> Bool {
        frames.contains {
            $0.events.contains(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, Evdev.MT_TOOL_PALM))
        }
    }

    /// The clone as an app sees it: each tracking id that went down and
    /// whether it came up again.
    static func openTouches(_ frames: [RawFrame], slots: Int = 10) -> [Int32] {
        var state = DeviceState(slots: slots)
        for f in frames { state.apply(f.events) }
        return state.activeSlots.map { Int32($0) }
    }

    @Test(
        "three fingers landing one by one within claim.window: the clone never hears of them, from the first landing to the last lift"
    )
    func countReachedWhileHeld() {
        var b = Self.bench(ClaimSet(fingers: [3]))
        #expect(b.frame(C.down(0, id: 1, at: 100, 60) + [C.touch]).isEmpty)
        #expect(b.claimer.state == .waiting)
        #expect(b.claimer.deadline == Timestamp(microseconds: b.time) + .milliseconds(150))
        #expect(b.frame(after: 30, C.move(0, to: 101, 61)).isEmpty)
        #expect(b.frame(after: 30, C.down(1, id: 2, at: 130, 60)).isEmpty)
        #expect(b.claimer.state == .waiting)
        #expect(b.frame(after: 40, C.down(2, id: 3, at: 160, 60)).isEmpty)
        #expect(b.claimer.state == .claimed)
        for i in 1...10 {
            #expect(
                b.frame(
                    C.move(0, to: 101, 61 - Double(i) * 3) + C.move(1, to: 130, 60 - Double(i) * 3)
                        + C.move(2, to: 160, 60 - Double(i) * 3)
                ).isEmpty)
        }
        #expect(b.frame(C.up(0) + C.up(1) + C.up(2) + [C.release]).isEmpty)
        #expect(b.clone.isEmpty && b.claimer.state == .idle && b.claimer.deadline == .never)
        #expect(b.claimer.log.anomalies.isEmpty)
    }

    @Test(
        "a tap arrives whole at its lift, each frame with its own time; a drag goes on from where it landed when claim.window ends, then as it comes"
    )
    func tapAndDragPassedLate() {
        var tap = Self.bench(ClaimSet(fingers: [3]))
        let landed = Timestamp(microseconds: tap.time + 10_000)
        #expect(tap.frame(C.down(0, id: 1, at: 100, 60) + [C.touch]).isEmpty)
        let lift = tap.frame(after: 70, C.up(0) + [C.release])
        #expect(lift.count == 2, "\(lift)")
        #expect(lift.first?.time == landed)
        #expect(lift.first?.events.contains(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 1)) == true)
        #expect(lift.last?.events.contains(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)) == true)
        #expect(Self.openTouches(tap.clone).isEmpty && tap.claimer.state == .idle)

        var drag = Self.bench(ClaimSet(fingers: [3]))
        drag.frame(C.down(0, id: 1, at: 100, 60) + [C.touch])
        for i in 1...5 { #expect(drag.frame(after: 20, C.move(0, to: 100 + Double(i) * 4, 60)).isEmpty) }
        // 100 ms after the landing: 50 ms of the window left.
        let released = drag.advance(ms: 50)
        #expect(released.count == 6, "the landing and five moves, each as it was: \(released)")
        #expect(drag.claimer.state == .passing)
        #expect(drag.frame(C.move(0, to: 124, 60)).count == 1)
        #expect(drag.frame(after: 10, C.up(0) + [C.release]).count == 1)
        #expect(Self.openTouches(drag.clone).isEmpty && !Self.palm(drag.clone))
        #expect(drag.claimer.log.anomalies.isEmpty && tap.claimer.log.anomalies.isEmpty)
    }

    @Test(
        "fingers that cannot make a claimed count go on at once: more than any claimed count together; a count with none claimed above it"
    )
    func nothingToWaitFor() {
        var four = Self.bench(ClaimSet(fingers: [3]))
        let all = (0..<4).flatMap { C.down(Int32($0), id: Int32($0 + 1), at: 80 + Double($0) * 20, 60) }
        #expect(four.frame(all + [C.touch]).count == 1)
        #expect(four.claimer.state == .passing)
        // A hold claim alone waits for nothing at the landing: the finger goes on as it comes.
        var hold = Self.bench(ClaimSet(holds: [1: 800]))
        #expect(hold.frame(C.down(0, id: 1, at: 100, 60) + [C.touch]).count == 1)
        #expect(hold.claimer.state == .passing)
        // Two fingers held for a claimed three, the window passes: both go on.
        var two = Self.bench(ClaimSet(fingers: [3]))
        two.frame(C.down(0, id: 1, at: 100, 60) + C.down(1, id: 2, at: 130, 60) + [C.touch])
        #expect(two.claimer.state == .waiting)
        #expect(two.advance(ms: 160).count == 1)
        // A third finger after the window is left to the apps, as it is anywhere.
        #expect(two.frame(C.down(2, id: 3, at: 160, 60)).count == 1)
        #expect(two.claimer.state == .passing)
        #expect(two.frame(C.up(0) + C.up(1) + C.up(2) + [C.release]).count == 1)
        #expect(Self.openTouches(two.clone).isEmpty)
    }

    @Test(
        "a claimed hold, a resync, claiming ending and a clone write that failed lift the touches where they are: one frame, no palm tool, nothing left open"
    )
    func liftsInsteadOfCancels() {
        let liftOf0 = [
            RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 0), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, 0),
            RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1), RawEvent(Evdev.EV_KEY, Evdev.BTN_TOUCH, 0), C.report,
        ]
        var hold = Self.bench(ClaimSet(holds: [1: 800]))
        hold.frame(C.down(0, id: 1, at: 100, 60) + [C.touch])
        let lifted = hold.advance(ms: 800)
        #expect(lifted.map(\.events) == [liftOf0], "\(lifted)")
        #expect(hold.claimer.state == .claimed)
        #expect(hold.frame(after: 200, C.up(0) + [C.release]).isEmpty)
        #expect(Self.openTouches(hold.clone).isEmpty && !Self.palm(hold.clone))

        var stopped = Self.bench(ClaimSet(holds: [1: 800]))
        stopped.frame(C.down(0, id: 1, at: 100, 60) + [C.touch])
        stopped.claimer.cancelAll(at: Timestamp(microseconds: stopped.time + 1000))
        stopped.clone += stopped.claimer.output.frames
        #expect(stopped.claimer.output.frames.map(\.events) == [liftOf0])

        var resync = Self.bench(ClaimSet(holds: [1: 800]))
        resync.frame(C.down(0, id: 1, at: 100, 60) + [C.touch])
        let t = Timestamp(microseconds: resync.time + 10_000)
        resync.claimer.process(
            C.move(0, to: 100, 62), at: t, touches: TouchFrame(device: DeviceID(1), time: t), resynchronized: true)
        #expect(resync.claimer.output.frames.map(\.events) == [liftOf0])

        var lost = Self.bench(ClaimSet(holds: [1: 800]))
        lost.frame(C.down(0, id: 1, at: 100, 60) + [C.touch])
        lost.frame(after: 20, C.move(0, to: 100.5, 60))
        lost.claimer.written(0, at: Timestamp(microseconds: lost.time))
        let owed = lost.frame(after: 10, C.move(0, to: 100.5, 60.5))
        #expect(owed.map(\.events) == [liftOf0], "\(owed)")
        for b in [hold, stopped, resync, lost] { #expect(b.claimer.log.anomalies.isEmpty) }
    }

    @Test(
        "at a claimed edge: a second finger within claim.window makes a claimed two of it, never passed on; a third kept for a claimed three"
    )
    func edgeThenCount() {
        var two = Self.bench(ClaimSet(fingers: [2], edges: [.left]))
        #expect(two.frame(C.down(0, id: 1, at: 2, 60) + [C.touch]).isEmpty)
        #expect(two.claimer.state == .holding)
        #expect(two.frame(after: 40, C.down(1, id: 2, at: 30, 60)).isEmpty)
        #expect(two.claimer.state == .claimed)
        #expect(two.frame(after: 10, C.up(0) + C.up(1) + [C.release]).isEmpty)
        #expect(two.clone.isEmpty)

        var three = Self.bench(ClaimSet(fingers: [3], edges: [.left]))
        three.frame(C.down(0, id: 1, at: 2, 60) + [C.touch])
        #expect(three.frame(after: 30, C.down(1, id: 2, at: 30, 60)).isEmpty)
        #expect(three.claimer.state == .waiting)
        #expect(three.frame(after: 30, C.down(2, id: 3, at: 60, 60)).isEmpty)
        #expect(three.claimer.state == .claimed && three.clone.isEmpty)
        #expect(two.claimer.log.anomalies.isEmpty && three.claimer.log.anomalies.isEmpty)
        // Every transition met here and above is drawn.
        let undrawn = try? StateDiagrams.load().undrawn(two.claimer.log.transitions + three.claimer.log.transitions)
        #expect(undrawn?.isEmpty == true, "not drawn: \(undrawn ?? [])")
    }

    @Test("a client that goes while fingers are held back for its count: they go on when the window ends, nothing claimed")
    func withdrawnWhileHeld() {
        var b = Self.bench(ClaimSet(fingers: [3]))
        b.frame(C.down(0, id: 1, at: 100, 60) + C.down(1, id: 2, at: 130, 60) + [C.touch])
        b.claimer.withdraw(to: ClaimSet())
        #expect(b.frame(after: 30, C.down(2, id: 3, at: 160, 60)).count == 2, "the held landing, then the third")
        #expect(b.claimer.state == .passing)
        #expect(b.frame(C.up(0) + C.up(1) + C.up(2) + [C.release]).count == 1)
        #expect(Self.openTouches(b.clone).isEmpty && b.claimer.log.anomalies.isEmpty)
    }
}
