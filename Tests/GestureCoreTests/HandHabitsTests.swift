import Foundation
import GestureCore
import Testing

/// Frame by frame, the rules for what hands do in everyday use
/// (docs/gestures.md, "What real hands do"): starts that creep, gestures that
/// change their kind, fingers that bounce, hands that grip the device. The
/// panel is 100 x 60 mm (`Hand`).
@Suite("Rules for everyday hands")
struct HandHabitsTests {
    // MARK: - Creeping starts

    @Test("a finger that creeps steadily from its landing, then drags, is a drag and no hold")
    func creepThenDrag() {
        var h = Hand()
        h.frame(0, (0, .down, 30, 30))
        // 1.5 mm per 400 ms, the same way, until it drags 37 mm.
        var x = 30.0
        for i in 1...70 {
            x = 30 + Double(i) * 0.0375
            h.frame(Double(i) * 10, (0, .move, x, 30))
        }
        for i in 1...40 { h.frame(700 + Double(i) * 10, (0, .move, x + Double(i) * 37 / 40, 30)) }
        h.frame(1200, (0, .move, x + 37, 30))
        h.frame(1300, (0, .up, x + 37, 30))
        h.finish()
        #expect(h.summary == ["drag fingers=1"])
        #expect(h.transitions.contains("touch-group: touching → hold-deadline → touching"))
        #expect(h.anomalies.isEmpty)
    }

    @Test("a finger that wobbles in place is still held at the deadline")
    func wobbleIsHold() {
        var h = Hand()
        h.frame(0, (0, .down, 30, 30))
        for i in 1...90 {
            let a = Double(i) * 0.35
            h.frame(Double(i) * 10, (0, .move, 30 + 0.9 * sin(a), 30 + 0.9 * cos(a)))
        }
        h.frame(910, (0, .up, 30, 30))
        h.finish()
        #expect(h.summary == ["touch-and-hold fingers=1"])
        #expect(h.events.first!.time.microseconds == 500_000)
    }

    @Test("a finger that drifts as it presses, then rests, is held (late if it crept past the deadline)")
    func driftThenRestIsHold() {
        var h = Hand()
        h.frame(0, (0, .down, 30, 30))
        // 1.8 mm over 400 ms, then still.
        for i in 1...40 { h.frame(Double(i) * 10, (0, .move, 30 + Double(i) * 0.045, 30)) }
        for i in 41...120 { h.frame(Double(i) * 10, (0, .move, 31.8, 30 + (i.isMultiple(of: 2) ? 0.05 : 0))) }
        h.frame(1210, (0, .up, 31.8, 30))
        h.finish()
        #expect(h.summary == ["touch-and-hold fingers=1"])
        let began = h.events.first!.time.microseconds
        #expect(began >= 500_000 && began <= 1_000_000, "\(began)")
    }

    @Test("two fingers that creep apart before the hold deadline, then spread, are a pinch and no hold")
    func creepApartThenPinch() {
        var h = Hand()
        h.frame(0, (0, .down, 40, 30), (1, .down, 60, 30))
        var d = 0.0
        for i in 1...65 {
            d = Double(i) * 0.04  // 2 mm further apart by 250 ms, and on
            h.frame(Double(i) * 10, (0, .move, 40 - d, 30), (1, .move, 60 + d, 30))
        }
        for i in 1...30 {
            h.frame(650 + Double(i) * 10, (0, .move, 40 - d - Double(i) * 0.5, 30), (1, .move, 60 + d + Double(i) * 0.5, 30))
        }
        h.frame(1000, (0, .up, 40 - d - 15, 30), (1, .up, 60 + d + 15, 30))
        h.finish()
        #expect(h.summary == ["pinch fingers=2 direction=open"])
        #expect(h.anomalies.isEmpty)
    }

    // MARK: - A gesture that changes its kind

    /// Two fingers 25 mm apart travel 10 mm together, then spread to 47 mm apart.
    static func panThenSpread(_ h: inout Hand) {
        h.frame(0, (0, .down, 40, 20), (1, .down, 65, 20))
        for i in 1...20 { h.frame(Double(i) * 10, (0, .move, 40, 20 + Double(i) * 0.5), (1, .move, 65, 20 + Double(i) * 0.5)) }
        for i in 1...30 {
            let s = Double(i) * 11 / 30
            h.frame(200 + Double(i) * 10, (0, .move, 40 - s, 30), (1, .move, 65 + s, 30))
        }
    }

    @Test("a pan that becomes a pinch: the drag ends and the pinch begins, in the same frame")
    func panThenPinch() {
        var h = Hand()
        Self.panThenSpread(&h)
        h.frame(600, (0, .up, 29, 30), (1, .up, 76, 30))
        h.finish()
        #expect(h.summary == ["drag fingers=2", "pinch fingers=2 direction=open"])
        let dragEnded = h.events.first { $0.gesture == .drag && $0.phase == .ended }!
        let pinchBegan = h.events.first { $0.gesture == .pinch && $0.phase == .began }!
        #expect(dragEnded.time == pinchBegan.time && dragEnded.id != pinchBegan.id)
        // The pinch's scale counts from where the drag began: 47 / 25 apart.
        let pinchEnded = h.events.last { $0.gesture == .pinch }!
        #expect(abs(pinchEnded.scale! - 47.0 / 25.0) < 0.02, "\(pinchEnded.scale!)")
        #expect(h.transitions.contains("touch-group: dragging → moved-apart → pinching"))
        #expect(h.anomalies.isEmpty)
    }

    @Test("a pinch whose fingers then travel together becomes a drag, once: they spread again and it stays a drag")
    func pinchThenPan() {
        var h = Hand()
        h.frame(0, (0, .down, 40, 20), (1, .down, 60, 20))
        for i in 1...20 { h.frame(Double(i) * 10, (0, .move, 40 - Double(i) * 0.5, 20), (1, .move, 60 + Double(i) * 0.5, 20)) }
        for i in 1...30 { h.frame(200 + Double(i) * 10, (0, .move, 30, 20 + Double(i)), (1, .move, 70, 20 + Double(i))) }
        for i in 1...20 {
            h.frame(500 + Double(i) * 10, (0, .move, 30 - Double(i) * 0.6, 50), (1, .move, 70 + Double(i) * 0.6, 50))
        }
        h.frame(720, (0, .up, 18, 50), (1, .up, 82, 50))
        h.finish()
        #expect(h.summary == ["pinch fingers=2 direction=open", "drag fingers=2"])
        let drag = h.events.last { $0.gesture == .drag }!
        // The drag's travel counts from the change: 30 mm down less what it took to decide.
        #expect(drag.dy! > 15 && drag.dy! < 30, "\(drag.dy!)")
        #expect(h.transitions.contains("touch-group: pinching → moved-together → dragging"))
    }

    @Test("a two-finger scroll whose fingers wander 3 mm closer and apart stays one drag")
    func wanderingScrollStaysDrag() {
        var h = Hand()
        h.frame(0, (0, .down, 40, 5), (1, .down, 60, 5))
        for i in 1...50 {
            let w = 1.5 * sin(Double(i) * 0.3)
            h.frame(Double(i) * 10, (0, .move, 40 - w, 5 + Double(i)), (1, .move, 60 + w, 5 + Double(i)))
        }
        h.frame(600, (0, .up, 40, 55), (1, .up, 60, 55))
        h.finish()
        #expect(h.summary == ["drag fingers=2"])
    }

    @Test("a drag that becomes a pinch reports no flick and no swipe for the drag")
    func switchedDragIsNoSwipe() {
        var h = Hand()
        Self.panThenSpread(&h)
        h.frame(510, (0, .up, 29, 30), (1, .up, 76, 30))
        h.finish()
        #expect(!h.summary.contains { $0.hasPrefix("swipe") || $0.hasPrefix("flick") })
    }

    // MARK: - Bouncing fingers

    @Test("a finger of a pinch that lifts for 40 ms and lands 3 mm away is the same finger: one pinch of two")
    func bounceInPinch() {
        var h = Hand()
        h.frame(0, (0, .down, 40, 30), (1, .down, 60, 30))
        for i in 1...20 { h.frame(Double(i) * 10, (0, .move, 40 - Double(i) * 0.5, 30), (1, .move, 60 + Double(i) * 0.5, 30)) }
        h.frame(210, (1, .up, 70, 30))
        h.frame(250, (2, .down, 72, 31))
        for i in 1...20 {
            h.frame(250 + Double(i) * 10, (0, .move, 30 - Double(i) * 0.5, 30), (2, .move, 72 + Double(i) * 0.5, 31))
        }
        h.frame(460, (0, .up, 20, 30), (2, .up, 82, 31))
        h.finish()
        #expect(h.summary == ["pinch fingers=2 direction=open"])
        #expect(h.transitions.contains("touch-group: pinching → finger-back → pinching"))
        // Scale from 20 to 62 mm apart; the jump of the bounce is no motion.
        let ended = h.events.last!
        #expect(abs(ended.scale! - 60.0 / 20.0) < 0.1, "\(ended.scale!)")
        #expect(h.anomalies.isEmpty)
    }

    @Test("two fingers where one bounces before they swipe are a two-finger swipe, not three")
    func bounceBeforeSwipe() {
        var h = Hand()
        h.frame(0, (0, .down, 40, 50), (1, .down, 60, 50))
        h.frame(40, (1, .up, 60, 50))
        h.frame(60, (2, .down, 61, 49))
        for i in 1...20 { h.frame(60 + Double(i) * 10, (0, .move, 40, 50 - Double(i) * 2), (2, .move, 61, 49 - Double(i) * 2)) }
        h.frame(270, (0, .up, 40, 10), (2, .up, 61, 9))
        h.finish()
        #expect(h.summary == ["drag fingers=2", "flick fingers=2 direction=up", "swipe fingers=2 direction=up"])
    }

    @Test(
        "a finger landing far from where one lifted, or too late, is another finger, but the count is the most down at once"
    )
    func farOrLateIsAnotherFinger() {
        for (landing, x) in [(60.0, 75.0), (200.0, 60.0)] {
            var h = Hand()
            h.frame(0, (0, .down, 40, 50), (1, .down, 60, 50))
            h.frame(40, (1, .up, 60, 50))
            h.frame(landing, (2, .down, x, 50))
            for i in 1...20 {
                h.frame(landing + Double(i) * 10, (0, .move, 40, 50 - Double(i) * 2), (2, .move, x, 50 - Double(i) * 2))
            }
            h.frame(landing + 210, (0, .up, 40, 10), (2, .up, x, 10))
            h.finish()
            #expect(h.summary.first == "drag fingers=2", "landing at \(landing) ms, x \(x)")
            #expect(!h.transitions.contains { $0.contains("finger-back") }, "landing at \(landing) ms, x \(x)")
        }
    }

    @Test("a pinch left with one finger ends bounce.maxInterval after the lift when the finger does not come back")
    func pinchEndsAfterBounceWindow() {
        var h = Hand()
        h.frame(0, (0, .down, 40, 30), (1, .down, 60, 30))
        for i in 1...20 { h.frame(Double(i) * 10, (0, .move, 40 - Double(i) * 0.5, 30), (1, .move, 60 + Double(i) * 0.5, 30)) }
        h.frame(210, (1, .up, 70, 30))
        h.advance(1000)
        let ended = h.events.last!
        #expect(ended.gesture == .pinch && ended.phase == .ended)
        #expect(ended.time.microseconds == 360_000)
        h.frame(1100, (0, .up, 30, 30))
        h.finish()
        #expect(h.summary == ["pinch fingers=2 direction=open"])
    }

    @Test("a double tap, where every finger lifts between the taps, is still a double tap")
    func doubleTapIsNoBounce() {
        var h = Hand()
        h.frame(0, (0, .down, 40, 30), (1, .down, 60, 30))
        h.frame(80, (0, .up, 40, 30), (1, .up, 60, 30))
        h.frame(150, (0, .down, 41, 30), (1, .down, 61, 30))
        h.frame(230, (0, .up, 41, 30), (1, .up, 61, 30))
        h.finish()
        #expect(h.summary == ["double-tap fingers=2"])
    }

    // MARK: - Gripping hands

    @Test("a contact the size of a palm is no finger: with a two-finger swipe it is a two-finger swipe")
    func palmBySize() {
        var h = Hand()
        h.sized(0, (5, .down, 90, 55, 25))
        h.sized(300, (0, .down, 40, 50, 8), (1, .down, 60, 50, 8))
        for i in 1...20 {
            h.sized(300 + Double(i) * 10, (0, .move, 40, 50 - Double(i) * 2, 8), (1, .move, 60, 50 - Double(i) * 2, 8))
        }
        h.sized(510, (0, .up, 40, 10, 8), (1, .up, 60, 10, 8))
        h.sized(900, (5, .up, 90, 55, 25))
        h.finish()
        #expect(h.summary == ["drag fingers=2", "flick fingers=2 direction=up", "swipe fingers=2 direction=up"])
    }

    @Test("a contact that grows to a palm before anything is decided leaves the group; the others go on")
    func growsIntoPalm() {
        var h = Hand()
        h.sized(0, (0, .down, 40, 50, 8), (1, .down, 60, 50, 8), (2, .down, 80, 50, 9))
        h.sized(30, (2, .move, 80, 50, 24))
        for i in 1...20 {
            h.sized(30 + Double(i) * 10, (0, .move, 40, 50 - Double(i) * 2, 8), (1, .move, 60, 50 - Double(i) * 2, 8))
        }
        h.sized(240, (0, .up, 40, 10, 8), (1, .up, 60, 10, 8), (2, .up, 80, 50, 24))
        h.finish()
        #expect(h.summary.first == "drag fingers=2")
    }

    @Test("a thumb resting at the bezel before two fingers swipe is no finger of the swipe, and gives it no edge")
    func bezelGrip() {
        var h = Hand()
        h.frame(0, (5, .down, 2, 57))
        h.frame(300, (0, .down, 40, 50), (1, .down, 60, 50))
        for i in 1...20 { h.frame(300 + Double(i) * 10, (0, .move, 40, 50 - Double(i) * 2), (1, .move, 60, 50 - Double(i) * 2)) }
        h.frame(510, (0, .up, 40, 10), (1, .up, 60, 10))
        h.frame(700, (5, .up, 2, 57))
        h.finish()
        #expect(h.summary == ["drag fingers=2", "flick fingers=2 direction=up", "swipe fingers=2 direction=up"])
        #expect(h.events.allSatisfy { $0.edge == nil })
    }

    @Test("a tap while a thumb rests at the bezel is a one-finger tap")
    func tapWhileGripping() {
        var h = Hand()
        h.frame(0, (5, .down, 2, 57))
        h.frame(300, (0, .down, 50, 30))
        h.frame(380, (0, .up, 50, 30))
        h.frame(1500, (5, .up, 2, 57))
        h.finish()
        #expect(h.summary == ["tap fingers=1"])
    }

    @Test("a thumb resting at the bezel past the hold deadline, then a finger scrolls: the hold ends, the scroll is a drag")
    func gripHoldThenScroll() {
        var h = Hand()
        h.frame(0, (5, .down, 2, 57))
        h.frame(1000, (0, .down, 50, 10))
        for i in 1...60 { h.frame(1000 + Double(i) * 10, (0, .move, 50, 10 + Double(i) / 2)) }
        h.frame(1700, (0, .up, 50, 40))
        h.frame(1900, (5, .up, 2, 57))
        h.finish()
        #expect(h.summary == ["touch-and-hold fingers=1 edge=left", "drag fingers=1"])
        #expect(h.transitions.contains("touch-group: holding → grip → idle"))
        #expect(h.anomalies.isEmpty)
    }

    @Test("two fingers that land together, one at the bezel and still, the other moving away, still pinch")
    func anchoredPinchAtBezel() {
        var h = Hand()
        h.frame(0, (0, .down, 3, 30), (1, .down, 20, 30))
        for i in 1...30 { h.frame(Double(i) * 10, (1, .move, 20 + Double(i), 30)) }
        h.frame(320, (0, .up, 3, 30), (1, .up, 50, 30))
        h.finish()
        #expect(h.summary == ["pinch fingers=2 direction=open edge=left"])
    }
}
