import Foundation
import GestureCore
import Testing

/// The rules that follow what real hands do, frame by frame
/// (docs/gestures.md, "What real hands do").
@Suite("Rules for real hands")
struct RealHandRulesTests {
    /// A finger at (x, y) moving to each of `path` at 10 ms steps after landing at `start`, then lifting.
    static func touch(_ h: inout Hand, slot: Int = 0, at start: Double, x: Double, y: Double, path: [(Double, Double)]) {
        h.frame(start, (slot, .down, x, y))
        for (i, p) in path.enumerated() { h.frame(start + Double(i + 1) * 10, (slot, .move, p.0, p.1)) }
        let last = path.last ?? (x, y)
        h.frame(start + Double(path.count + 1) * 10, (slot, .up, last.0, last.1))
    }

    @Test("a tap that rolls 3 mm and comes back within slop is a tap")
    func rolledTap() {
        var h = Hand()
        Self.touch(&h, at: 0, x: 50, y: 30, path: [(51, 30), (52, 30), (53, 30), (53, 30), (52, 30), (51.2, 30)])
        h.finish()
        #expect(h.summary == ["tap fingers=1"])
        #expect(h.anomalies.isEmpty)
    }

    @Test("a short stroke that ends away from where it landed is a drag, however short in time")
    func shortDragIsNoTap() {
        var h = Hand()
        Self.touch(&h, at: 0, x: 50, y: 30, path: [(51, 30), (52, 30), (53, 30), (53.5, 30)])
        h.finish()
        #expect(h.summary == ["drag fingers=1"])
    }

    @Test("rolling beyond tap.maxRoll is motion, even when it comes back")
    func rollTooFar() {
        var h = Hand()
        Self.touch(&h, at: 0, x: 50, y: 30, path: [(52, 30), (54.5, 30), (52, 30), (50.5, 30)])
        h.finish()
        #expect(h.summary == ["drag fingers=1"])
    }

    @Test("beyond slop after tap.rollWindow is motion: a slow drag")
    func slowDragAfterRollWindow() {
        var h = Hand()
        h.frame(0, (0, .down, 50, 30))
        // 4 mm in 400 ms. The reference moves to where the finger is when the
        // settle window closes (1.2 mm on); slop is passed at 330 ms, after
        // the roll window closed at 250 ms.
        for i in 1...40 { h.frame(Double(i) * 10, (0, .move, 50 + Double(i) * 0.1, 30)) }
        let began = h.events.first { $0.phase == .began }
        #expect(began?.gesture == .drag)
        #expect(began.map { $0.time.microseconds >= 250_000 } == true)
        h.frame(480, (0, .up, 54, 30))
        h.finish()
        #expect(h.summary == ["drag fingers=1"])
    }

    @Test("a two-finger tap whose second finger rolls 2 mm after the first lifted is a two-finger tap")
    func twoFingerRolledTap() {
        var h = Hand()
        h.frame(0, (0, .down, 40, 30), (1, .down, 60, 30))
        h.frame(10, (0, .move, 40.5, 30.5))
        h.frame(20, (0, .move, 41.3, 31.2))
        h.frame(80, (1, .up, 60, 30))
        h.frame(90, (0, .move, 41.5, 31.5))
        h.frame(110, (0, .move, 40.9, 30.9))
        h.frame(120, (0, .up, 40.9, 30.9))
        h.finish()
        #expect(h.summary == ["tap fingers=2"])
    }

    @Test("a finger rests, a second lands, both move together: the hold ends and a two-finger drag begins")
    func restThenDrag() {
        var h = Hand()
        h.frame(0, (0, .down, 30, 20))
        h.advance(1500)
        #expect(h.events.map(\.phase) == [.began])
        h.frame(1500, (1, .down, 50, 20))
        for i in 1...30 { h.frame(1600 + Double(i) * 10, (0, .move, 30, 20 + Double(i)), (1, .move, 50, 20 + Double(i))) }
        h.frame(1980, (0, .up, 30, 50), (1, .up, 50, 50))
        h.finish()
        #expect(h.summary == ["touch-and-hold fingers=1", "drag fingers=2"])
        let holdEnded = h.events.first { $0.gesture == .touchAndHold && $0.phase == .ended }!
        let dragBegan = h.events.first { $0.gesture == .drag && $0.phase == .began }!
        #expect(holdEnded.time == dragBegan.time && holdEnded.id != dragBegan.id)
        // Measured from where the hand was when its last finger landed.
        let dragEnded = h.events.first { $0.gesture == .drag && $0.phase == .ended }!
        #expect(abs((dragEnded.dy ?? 0) - 30) < 0.01)
        #expect(h.transitions.contains("touch-group: holding → moved-together → dragging"))
        #expect(h.anomalies.isEmpty)
    }

    @Test("a finger rests, a second lands and moves away: the hold ends and a pinch opens")
    func restThenPinch() {
        var h = Hand()
        h.frame(0, (0, .down, 30, 20))
        h.frame(900, (1, .down, 40, 20))
        for i in 1...30 { h.frame(950 + Double(i) * 10, (1, .move, 40 + Double(i), 20)) }
        h.frame(1270, (0, .up, 30, 20), (1, .up, 70, 20))
        h.finish()
        #expect(h.summary == ["touch-and-hold fingers=1", "pinch fingers=2 direction=open"])
        #expect(h.events.last { $0.gesture == .pinch }!.scale! > 3)
    }

    @Test("one finger held, then moved, stays a hold (hold-then-drag)")
    func oneFingerHoldThenDrag() {
        var h = Hand()
        h.frame(0, (0, .down, 30, 20))
        for i in 1...30 { h.frame(600 + Double(i) * 10, (0, .move, 30 + Double(i), 20)) }
        h.frame(920, (0, .up, 60, 20))
        h.finish()
        #expect(h.summary == ["touch-and-hold fingers=1"])
    }

    @Test("two fingers turning about their centre with a steady span rotate")
    func twist() {
        var h = Hand()
        let (cx, cy, r) = (50.0, 30.0, 15.0)
        func at(_ a: Double, _ k: Double) -> (Double, Double) { (cx + k * r * cos(a), cy + k * r * sin(a)) }
        let a0 = at(0, 1)
        let b0 = at(0, -1)
        h.frame(0, (0, .down, a0.0, a0.1), (1, .down, b0.0, b0.1))
        for i in 1...40 {
            let a = Double(i) / 40 * .pi / 3
            let p = at(a, 1)
            let q = at(a, -1)
            h.frame(Double(i) * 10, (0, .move, p.0, p.1), (1, .move, q.0, q.1))
        }
        let p = at(.pi / 3, 1)
        let q = at(.pi / 3, -1)
        h.frame(420, (0, .up, p.0, p.1), (1, .up, q.0, q.1))
        h.finish()
        #expect(h.summary == ["rotate fingers=2 direction=clockwise"])
        let ended = h.events.last!
        #expect(abs(ended.rotation! - .pi / 3) < 0.01)
        #expect(abs(ended.scale! - 1) < 0.01)
        #expect(h.events.first!.phase == .began && h.events.first!.gesture == .rotate)

        var ccw = Hand()
        ccw.frame(0, (0, .down, a0.0, a0.1), (1, .down, b0.0, b0.1))
        for i in 1...40 {
            let a = -Double(i) / 40 * .pi / 4
            let p = at(a, 1)
            let q = at(a, -1)
            ccw.frame(Double(i) * 10, (0, .move, p.0, p.1), (1, .move, q.0, q.1))
        }
        ccw.frame(420, (0, .up, 0, 0), (1, .up, 0, 0))
        ccw.finish()
        #expect(ccw.summary == ["rotate fingers=2 direction=counterclockwise"])
    }

    @Test("two fingers that start a little apart in time, then move together, drag: the decision waits while the motion is mixed")
    func mixedStartThenTogether() {
        var h = Hand()
        h.frame(0, (0, .down, 30, 20), (1, .down, 70, 20))
        h.advance(300)
        // The first finger moves 5 mm along the line between them: span and centroid change alike.
        for i in 1...5 { h.frame(300 + Double(i) * 10, (0, .move, 30 - Double(i), 20)) }
        // Then both move down together.
        for i in 1...30 { h.frame(350 + Double(i) * 10, (0, .move, 25, 20 + Double(i)), (1, .move, 70, 20 + Double(i))) }
        h.frame(720, (0, .up, 25, 50), (1, .up, 70, 50))
        h.finish()
        #expect(h.summary == ["drag fingers=2"])
        #expect(h.transitions.contains("touch-group: undecided → moved-together → dragging"))
    }

    @Test("a swipe that hooks 6 mm sideways in its first centimetre, then goes straight, is a swipe")
    func hookedSwipe() {
        var h = Hand()
        var path: [(Double, Double)] = [(21.5, 32), (23, 34), (24.5, 36)]
        for i in 1...12 { path.append((24.5 + Double(i) * 3, 36)) }
        Self.touch(&h, at: 0, x: 20, y: 30, path: path)
        h.finish()
        #expect(h.summary.contains("swipe fingers=1 direction=right"))
    }

    @Test("where a three-finger swipe ends is the centroid of its three fingers, not of the last one to lift")
    func endCentroid() {
        var h = Hand()
        h.frame(0, (0, .down, 20, 10), (1, .down, 20, 30), (2, .down, 20, 50))
        for i in 1...20 {
            let x = 20 + Double(i) * 2
            h.frame(Double(i) * 10, (0, .move, x, 10), (1, .move, x, 30), (2, .move, x, 50))
        }
        h.frame(210, (0, .up, 60, 10))
        h.frame(220, (1, .up, 60, 30))
        h.frame(230, (2, .up, 60, 50))
        h.finish()
        #expect(h.summary == ["drag fingers=3", "flick fingers=3 direction=right", "swipe fingers=3 direction=right"])
        for e in h.events where e.phase == .ended || e.phase == .recognized {
            #expect(abs(e.x - 60) < 0.01 && abs(e.y - 30) < 0.01, "\(e.gesture) \(e.phase) at \(e.x), \(e.y)")
        }
    }

    @Test("a flick that speeds up until the lift is a flick")
    func acceleratingFlick() {
        var h = Hand()
        // 8 mm in 80 ms at 125 Hz, from rest, speeding up to about 200 mm/s at the lift.
        var path: [(Double, Double)] = []
        for i in 1...10 {
            let t = Double(i) * 0.008
            path.append((20 + 1250 * t * t, 30))
        }
        h.frame(0, (0, .down, 20, 30))
        for (i, p) in path.enumerated() { h.frame(Double(i + 1) * 8, (0, .move, p.0, p.1)) }
        h.frame(88, (0, .up, path.last!.0, 30))
        h.finish()
        #expect(h.summary == ["drag fingers=1", "flick fingers=1 direction=right"])
        let flick = h.events.first { $0.gesture == .flick }!
        #expect(abs(flick.vx! - 200) < 10, "\(flick.vx!)")
    }
}
