import Foundation
import Testing

@testable import GestureCore

/// Swipes that arc (docs/gestures.md, "Swipe"): a thumb's stroke that leaves
/// steeply and then runs flat is a swipe where it went; a stroke that bulges
/// is still a drag.
@Suite("Swipes that arc")
struct SwipeArcTests {
    /// A one-finger stroke at 200 mm/s, sampled at 100 Hz, through `corners`
    /// (mm from (50, 30), in a frame whose x axis points `toward`), lifting at the last.
    static func stroke(
        _ corners: [(Double, Double)], toward: GestureDirection, thresholds: GestureThresholds = .defaults
    ) -> Hand {
        var h = Hand(thresholds: thresholds, width: 160, height: 120)
        let (ux, uy): (Double, Double) =
            switch toward {
            case .right: (1, 0)
            case .left: (-1, 0)
            case .down: (0, 1)
            default: (0, -1)
            }
        // The frame's y axis: a quarter turn from its x axis.
        func place(_ p: (Double, Double)) -> (Double, Double) { (80 + p.0 * ux - p.1 * uy, 60 + p.0 * uy + p.1 * ux) }
        var t = 100.0
        var at = (0.0, 0.0)
        h.frame(t, (0, .down, place(at).0, place(at).1))
        for c in corners {
            let length = hypot(c.0 - at.0, c.1 - at.1)
            let steps = max(1, Int((length / 2).rounded()))  // 2 mm a frame: 200 mm/s
            for i in 1...steps {
                let f = Double(i) / Double(steps)
                t += 10
                let p = place((at.0 + (c.0 - at.0) * f, at.1 + (c.1 - at.1) * f))
                h.frame(t, (0, .move, p.0, p.1))
            }
            at = c
        }
        h.frame(t + 10, (0, .up, place(at).0, place(at).1))
        h.finish()
        return h
    }

    static let directions: [GestureDirection] = [.right, .left, .down, .up]

    @Test(
        "a thumb's stroke that leaves 30–39° off its axis for 20 mm and then runs flat, its net direction 16–19° off: a swipe, in each direction",
        arguments: [(30.0, 19.0), (34, 17), (39, 16), (36, 19), (31, 16)], directions)
    func steepThenFlat(_ angles: (steep: Double, net: Double), toward: GestureDirection) throws {
        let (steep, net) = (angles.steep * .pi / 180, angles.net * .pi / 180)
        let first = (20 * cos(steep), 20 * sin(steep))
        let flat = first.1 / tan(net) - first.0
        let h = Self.stroke([first, (first.0 + flat, first.1)], toward: toward)
        let swipes = h.events.filter { $0.gesture == .swipe }
        #expect(swipes.map(\.direction) == [toward], "\(h.summary)")
        #expect(h.anomalies.isEmpty)
        // The arc rule decides it: without it (no stray allowed) the path's angle makes it a drag.
        var strict = GestureThresholds.defaults
        strict.swipeMaxStray = 0
        let s = Self.stroke([first, (first.0 + flat, first.1)], toward: toward, thresholds: strict)
        #expect(!s.events.contains { $0.gesture == .swipe }, "\(s.summary)")
    }

    @Test(
        "a stroke whose path strays from its chord by more than swipe.maxStray of its length is a drag, however its ends line up",
        arguments: [0.3, 0.35, 0.45], directions)
    func bulge(_ stray: Double, toward: GestureDirection) throws {
        // Out sideways to `stray` of a 40 mm chord at its middle, and back.
        let corners: [(Double, Double)] = [(10, 40 * stray * 0.75), (20, 40 * stray), (30, 40 * stray * 0.75), (40, 0)]
        let h = Self.stroke(corners, toward: toward)
        #expect(!h.events.contains { $0.gesture == .swipe }, "\(h.summary)")
        #expect(h.events.contains { $0.gesture == .drag && $0.phase == .ended })
        // The bound decides it: allowed to stray further, the same stroke is a swipe.
        var loose = GestureThresholds.defaults
        loose.swipeMaxStray = stray + 0.05
        let l = Self.stroke(corners, toward: toward, thresholds: loose)
        #expect(l.events.filter { $0.gesture == .swipe }.map(\.direction) == [toward], "\(l.summary)")
    }

    @Test("the path's samples stay within the step of every point, however long the stroke: 32 kept, the step doubling")
    func samples() {
        var path = Swipe.Path()
        // 400 mm along x, a 1 mm step of travel each time, with one 9 mm spike at 250 mm.
        for i in 1...400 {
            let x = Double(i)
            path.follow(tx: x, ty: i == 250 ? 9 : 0, minDistance: 15, maxSlope: tan(30 * .pi / 180))
        }
        #expect(path.sampleCount <= 32)
        // The spike is 9 mm off a 400 mm chord: 0.0225, read to within the step.
        #expect(abs(path.stray(tx: 400, ty: 0) * 400 - 9) <= path.sampleStep, "\(path.stray(tx: 400, ty: 0) * 400)")
        var straight = Swipe.Path()
        for i in 1...40 { straight.follow(tx: Double(i), ty: 0, minDistance: 15, maxSlope: 0.58) }
        #expect(straight.stray(tx: 40, ty: 0) == 0)
    }
}
