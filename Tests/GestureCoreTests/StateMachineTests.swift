import GestureCore
import Testing

/// The recognizers driven frame by frame, asserting on events, their times and
/// the state machines' transitions.
@Suite("State machines")
struct StateMachineTests {
    @Test("a tap waits for the double-tap window, then fires at its deadline")
    func tapConfirmedAtDeadline() {
        var h = Hand()
        h.frame(0, (0, .down, 50, 30))
        h.frame(100, (0, .up, 50, 30))
        #expect(h.events.isEmpty)
        h.advance(399.999)
        #expect(h.events.isEmpty)
        h.advance(400)
        #expect(h.summary == ["tap fingers=1"])
        #expect(h.events[0].time.microseconds == 400_000)
        #expect(h.transitions.contains("tap-sequence: idle → tap → tapped"))
        #expect(h.transitions.contains("tap-sequence: tapped → timeout → idle"))
        #expect(h.transitions.contains("touch-group: touching → last-up → idle"))
        #expect(h.anomalies.isEmpty)
    }

    @Test("without double taps wanted, a tap fires at the lift")
    func tapWithoutDelay() {
        var h = Hand(wanted: GestureKindSet([.tap, .drag]))
        h.frame(0, (0, .down, 50, 30))
        h.frame(90, (0, .up, 50, 30))
        #expect(h.summary == ["tap fingers=1"])
        #expect(h.events[0].time.microseconds == 90_000)
    }

    @Test("two quick taps on one target are a double tap and no taps")
    func doubleTap() {
        var h = Hand()
        h.frame(0, (0, .down, 50, 30))
        h.frame(100, (0, .up, 50, 30))
        h.frame(250, (0, .down, 52, 31))
        h.frame(330, (0, .up, 52, 31))
        h.finish()
        #expect(h.summary == ["double-tap fingers=1"])
        #expect(h.events[0].time.microseconds == 330_000)
        #expect(h.events[0].taps == 2)
        #expect(h.transitions.contains("tap-sequence: tapped → second-touch → tapped-or-double-tap"))
    }

    @Test("two taps too far apart, or too slow, or with other finger counts are two taps")
    func twoTaps() {
        var far = Hand()
        far.frame(0, (0, .down, 20, 30))
        far.frame(100, (0, .up, 20, 30))
        far.frame(250, (0, .down, 60, 30))
        far.frame(330, (0, .up, 60, 30))
        far.finish()
        #expect(far.summary == ["tap fingers=1", "tap fingers=1"])

        var slow = Hand()
        slow.frame(0, (0, .down, 50, 30))
        slow.frame(100, (0, .up, 50, 30))
        slow.frame(450, (0, .down, 50, 30))
        slow.frame(530, (0, .up, 50, 30))
        slow.finish()
        #expect(slow.summary == ["tap fingers=1", "tap fingers=1"])
        #expect(slow.events[0].time.microseconds == 400_000)

        var mixed = Hand()
        mixed.frame(0, (0, .down, 50, 30))
        mixed.frame(100, (0, .up, 50, 30))
        mixed.frame(250, (0, .down, 45, 30), (1, .down, 55, 30))
        mixed.frame(330, (0, .up, 45, 30), (1, .up, 55, 30))
        mixed.finish()
        #expect(mixed.summary == ["tap fingers=1", "tap fingers=2"])
    }

    @Test("a finger that bounces back within doubleTap.minInterval is one touch")
    func bounce() {
        var h = Hand()
        h.frame(0, (0, .down, 50, 30))
        h.frame(100, (0, .up, 50, 30))
        h.frame(120, (0, .down, 50.5, 30))
        h.frame(180, (0, .up, 50.5, 30))
        h.finish()
        #expect(h.summary == ["tap fingers=1"])
        #expect(h.events[0].time.microseconds == 480_000)
    }

    @Test("touch-and-hold begins at its deadline, not at the next frame, and is no tap")
    func holdAtDeadline() {
        var h = Hand()
        h.frame(0, (0, .down, 50, 30))
        h.advance(499)
        #expect(h.events.isEmpty)
        // The next frame comes late; the timer due before it fires first.
        h.frame(650, (0, .move, 50.3, 30))
        #expect(h.events.map(\.phase) == [.began, .changed])
        #expect(h.events[0].time.microseconds == 500_000)
        h.frame(700, (0, .move, 60, 30))
        h.frame(800, (0, .up, 60, 30))
        h.finish()
        #expect(h.summary == ["touch-and-hold fingers=1"])
        #expect(h.events.last?.dx == 10)
        #expect(h.transitions.contains("touch-group: touching → hold-deadline → holding"))
    }

    @Test("a long still tap below the hold deadline is a tap; with a lower tap.maxDuration it is nothing")
    func longTapAndDeadZone() {
        var h = Hand()
        h.frame(0, (0, .down, 50, 30))
        h.frame(450, (0, .up, 50, 30))
        h.finish()
        #expect(h.summary == ["tap fingers=1"])

        var t = GestureThresholds()
        t.tapMaxDuration = 300
        var d = Hand(thresholds: t)
        d.frame(0, (0, .down, 50, 30))
        d.frame(450, (0, .up, 50, 30))
        d.finish()
        #expect(d.summary.isEmpty)
    }

    @Test("a slow drag begins once settle has passed and is neither flick nor swipe")
    func slowDrag() {
        var h = Hand()
        h.stroke(at: 0, x: 20, y: 30, dx: 40, dy: 0, duration: 1000)
        h.finish()
        #expect(h.summary == ["drag fingers=1"])
        let began = h.events.first { $0.phase == .began }!
        #expect(began.time.microseconds >= 120_000)
        #expect(h.events.filter { $0.phase == .changed }.count > 50)
        let ended = h.events.first { $0.phase == .ended }!
        #expect(abs((ended.dx ?? 0) - 40) < 0.001)
    }

    @Test("a quick stroke is a drag, a flick and a swipe; a diagonal one is no swipe")
    func flickAndSwipe() {
        var h = Hand()
        h.stroke(at: 0, x: 20, y: 30, dx: 30, dy: 0, duration: 100)
        h.finish()
        #expect(h.summary == ["drag fingers=1", "flick fingers=1 direction=right", "swipe fingers=1 direction=right"])
        let flick = h.events.first { $0.gesture == .flick }!
        #expect(abs((flick.vx ?? 0) - 300) < 1)
        #expect(flick.deceleration == 0.998)

        var d = Hand()
        d.stroke(at: 0, x: 20, y: 50, dx: 25, dy: -25, duration: 100)
        d.finish()
        #expect(d.summary == ["drag fingers=1", "flick fingers=1 direction=up-right"])
    }

    @Test("a drag whose finger rests before lifting is no flick")
    func restBeforeLift() {
        var h = Hand()
        h.stroke(at: 0, x: 20, y: 30, dx: 30, dy: 0, duration: 100, lift: false)
        h.frame(200, (0, .up, 50, 30))
        h.finish()
        #expect(h.summary == ["drag fingers=1", "swipe fingers=1 direction=right"])
    }

    @Test("fingers spreading pinch open; fingers moving together drag; a pinch is no drag")
    func pinchVersusDrag() {
        var p = Hand()
        p.frame(0, (0, .down, 45, 30), (1, .down, 55, 30))
        for i in 1...40 {
            let o = 5 + Double(i) * 0.5
            p.frame(Double(i) * 10, (0, .move, 50 - o, 30), (1, .move, 50 + o, 30))
        }
        p.frame(420, (0, .up, 25, 30), (1, .up, 75, 30))
        p.finish()
        #expect(p.summary == ["pinch fingers=2 direction=open"])
        let ended = p.events.last { $0.gesture == .pinch }!
        #expect(ended.scale! > 2)
        // Decided when the settle window closes, having moved apart before it.
        #expect(p.transitions.contains("touch-group: touching → settled → pinching"))

        var d = Hand()
        d.frame(0, (0, .down, 45, 20), (1, .down, 55, 20))
        // 24 mm in 800 ms: too slow for a swipe.
        for i in 1...80 { d.frame(Double(i) * 10, (0, .move, 45, 20 + Double(i) * 0.3), (1, .move, 55, 20 + Double(i) * 0.3)) }
        d.frame(820, (0, .up, 45, 44), (1, .up, 55, 44))
        d.finish()
        #expect(d.summary == ["drag fingers=2"])
    }

    @Test("one finger still while the other moves away is a pinch")
    func anchoredPinch() {
        var h = Hand()
        h.frame(0, (0, .down, 40, 30), (1, .down, 50, 30))
        for i in 1...40 { h.frame(Double(i) * 10, (1, .move, 50 + Double(i) * 0.75, 30)) }
        h.frame(420, (0, .up, 40, 30), (1, .up, 80, 30))
        h.finish()
        #expect(h.summary == ["pinch fingers=2 direction=open"])
    }

    @Test("a drag keeps the finger count it began with")
    func lateFingerDoesNotJoinDrag() {
        var h = Hand()
        h.stroke(at: 0, x: 20, y: 30, dx: 20, dy: 0, duration: 800, lift: false)
        h.frame(820, (1, .down, 60, 50))
        h.frame(830, (0, .move, 41, 30), (1, .move, 61, 50))
        h.frame(840, (0, .up, 41, 30))
        h.frame(850, (1, .up, 61, 50))
        h.finish()
        #expect(h.events.allSatisfy { $0.fingers == 1 })
        #expect(h.summary == ["drag fingers=1"])
        #expect(h.anomalies.isEmpty)
    }

    @Test("a cancelled touch ends its drag cancelled, with no flick or swipe")
    func cancel() {
        var h = Hand()
        h.stroke(at: 0, x: 20, y: 30, dx: 30, dy: 0, duration: 150, lift: false)
        h.frame(160, (0, .cancel, 50, 30))
        h.finish()
        #expect(h.summary == ["drag cancelled fingers=1"])
    }

    @Test("a device removed mid-gesture cancels it and reports nothing more")
    func removal() {
        var h = Hand()
        h.stroke(at: 0, x: 20, y: 30, dx: 30, dy: 0, duration: 300, lift: false)
        h.removeDevice(310)
        h.frame(320, (0, .up, 50, 30))
        h.finish()
        #expect(h.summary == ["drag cancelled fingers=1"])
        #expect(h.events.last?.phase == .cancelled)
    }

    @Test("a pending tap is dropped, not reported, when its device goes away")
    func removalDropsPendingTap() {
        var h = Hand()
        h.frame(0, (0, .down, 50, 30))
        h.frame(100, (0, .up, 50, 30))
        h.removeDevice(150)
        h.finish()
        #expect(h.events.isEmpty)
    }

    @Test("gestures at the panel's edge carry that edge")
    func edge() {
        var h = Hand()
        h.stroke(at: 0, x: 1.5, y: 30, dx: 40, dy: 0, duration: 200)
        h.finish()
        #expect(
            h.summary == [
                "drag fingers=1 edge=left", "flick fingers=1 direction=right edge=left",
                "swipe fingers=1 direction=right edge=left",
            ])
    }

    @Test("frames with time going backwards never make output time go backwards")
    func timeNeverBackwards() {
        var h = Hand()
        h.frame(100, (0, .down, 50, 30))
        h.frame(50, (0, .move, 60, 30))
        h.frame(40, (0, .up, 60, 30))
        h.finish()
        let times = h.events.map(\.time)
        #expect(times == times.sorted())
        #expect(h.anomalies.isEmpty)
    }
}

@Suite("Tap timing for mixed subscribers")
struct TapTimingTests {
    @Test("with double taps wanted and immediate taps asked: a tap at the lift and a confirmed tap after the interval")
    func mixed() throws {
        let trace = try Fixtures.recording("double-tap-1f.phone.evemu")
        var single = try Fixtures.replayEvents(trace, wanted: .standard, immediateTaps: true)
        single.removeAll { $0.gesture != .tap && $0.gesture != .doubleTap }
        // Each of the two taps at its lift for subscribers without double taps; the double tap for the others.
        #expect(single.map(\.gesture) == [.tap, .tap, .doubleTap])
        #expect(single.map(\.timing) == [.immediate, .immediate, .every])

        let tap = try Fixtures.recording("tap-1f.phone.evemu")
        let events = try Fixtures.replayEvents(tap, wanted: .standard, immediateTaps: true)
        #expect(events.map(\.timing) == [.immediate, .confirmed])
        #expect((events[1].time - events[0].time).milliseconds == 300)
        // Without immediate taps nothing changes: one tap, for everyone, after the interval.
        let plain = try Fixtures.replayEvents(tap, wanted: .standard, immediateTaps: false)
        #expect(plain.map(\.timing) == [.every] && plain[0].time == events[1].time)
    }
}
