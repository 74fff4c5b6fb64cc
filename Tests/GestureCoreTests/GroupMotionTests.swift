import PropertyBased
import Testing

@testable import GestureCore

/// Fingers of a group: where each was measured from and where it is now.
struct FingerSpread: Sendable, CustomStringConvertible {
    var refs: [(x: Double, y: Double)]
    var nows: [(x: Double, y: Double)]
    var description: String { "refs \(refs) now \(nows)" }
}

/// Two to four fingers, 5 to 60 mm apart, that moved by up to a few mm,
/// turned about their centroid (a little, or anywhere up to half a turn),
/// spread, or moved together by up to 20 mm, as a resting or rolling
/// hand's frames do and a decisive motion's.
let fingerSpreads = zip(
    Gen.int(in: 2...4), Gen.double(in: 0...1).array(of: 8...8), Gen.double(in: 0...1).array(of: 8...8),
    Gen.int(in: 0...4), Gen.double(in: -1...1), Gen.double(in: 0...1)
).map { n, a, b, kind, turn, size -> FingerSpread in
    var refs: [(x: Double, y: Double)] = []
    var nows: [(x: Double, y: Double)] = []
    let spread = 5 + size * 55
    for i in 0..<n { refs.append((100 + a[2 * i] * spread, 100 + a[2 * i + 1] * spread)) }
    let cx = refs.map(\.x).reduce(0, +) / Double(n)
    let cy = refs.map(\.y).reduce(0, +) / Double(n)
    // Small jitter for every kind; then a turn, a spread or a shift.
    let jitter = [0.3, 1.5, 4, 12, 2][kind]
    let angle = kind == 3 ? turn * Double.pi : turn * 0.2
    let scale = 1 + turn * 0.15 * Double(kind % 2)
    // Kind 4 moves together: a shift of up to 20 mm, a little turn and jitter.
    let (sx, sy) = kind == 4 ? (20 * size * Trig.cos(7 * turn), 20 * size * Trig.sin(7 * turn)) : (0, 0)
    for i in 0..<n {
        let (dx, dy) = (refs[i].x - cx, refs[i].y - cy)
        let (c, s) = (Trig.cos(angle), Trig.sin(angle))
        nows.append(
            (
                cx + sx + scale * (dx * c - dy * s) + (b[2 * i] - 0.5) * jitter,
                cy + sy + scale * (dx * s + dy * c) + (b[2 * i + 1] - 0.5) * jitter
            ))
    }
    return FingerSpread(refs: refs, nows: nows)
}

@Suite("The group's motion")
struct GroupMotionTests {
    /// The motion of `spread`'s fingers, measured in full or below `limit`.
    func measure(_ spread: FingerSpread, below limit: Double = 0) -> GroupMotion {
        var fingers = Fingers()
        var slots = SlotSet()
        for i in spread.refs.indices {
            fingers.land(i, x: spread.refs[i].x, y: spread.refs[i].y, member: true, now: .zero)
            fingers.move(i, x: spread.nows[i].x, y: spread.nows[i].y, now: .zero)
            slots.insert(i)
        }
        return limit > 0 ? GroupMotion(fingers, slots, below: limit) : GroupMotion(fingers, slots)
    }

    @Test(
        "measured without its turn, a motion compares with every distance from the limit up, and is classified with it, as the full measure is"
    )
    func boundedTurn() async {
        await propertyCheck(count: 2000, input: zip(fingerSpreads, Gen.int(in: 0...3))) { spread, l in
            let limit = [0.5, 2, 4, 10][l]
            let exact = measure(spread)
            let bounded = measure(spread, below: limit)
            #expect(exact.isExact)
            #expect(bounded.count == exact.count && bounded.travel == exact.travel)
            #expect(bounded.spanStart == exact.spanStart && bounded.spanNow == exact.spanNow)
            if bounded.isExact {
                #expect(bounded.angle == exact.angle && bounded.arc == exact.arc && bounded.largest == exact.largest)
            } else {
                // `largest > d`, `>= d` and `<= d`, and the kind asked with d,
                // come out the same for every d at or above the limit.
                #expect(bounded.arc >= exact.arc)
                #expect(bounded.largest >= exact.largest)
                let measured = [exact.largest, bounded.largest].filter { $0 >= limit }
                let distances = [1, 1.5, 2, 3, 5, 10].map { $0 * limit } + measured
                for d in distances {
                    #expect((bounded.largest > d) == (exact.largest > d), "largest > \(d)")
                    #expect((bounded.largest >= d) == (exact.largest >= d), "largest >= \(d)")
                    #expect((bounded.largest <= d) == (exact.largest <= d), "largest <= \(d)")
                    #expect(bounded.kind(decision: d) == exact.kind(decision: d), "kind at \(d) mm")
                }
            }
        }
    }

    @Test("the turn is left out for a hand at rest or moving together, and measured once it turns")
    func boundUsed() {
        // Three fingers 20 mm apart that rolled 0.3 mm: no turn to measure.
        let still = FingerSpread(refs: [(0, 0), (20, 0), (10, 17)], nows: [(0.3, 0), (20, 0.2), (10, 17.1)])
        #expect(!measure(still, below: 2).isExact)
        // Turned by 20 degrees about their centroid: measured, and the same as in full.
        let (c, s) = (Trig.cos(0.35), Trig.sin(0.35))
        let cx = 10.0
        let cy = 17.0 / 3
        let turned = FingerSpread(
            refs: still.refs,
            nows: still.refs.map { (cx + ($0.x - cx) * c - ($0.y - cy) * s, cy + ($0.x - cx) * s + ($0.y - cy) * c) })
        let bounded = measure(turned, below: 2)
        #expect(bounded.isExact)
        #expect(bounded.angle == measure(turned).angle)
        #expect(abs(bounded.angle - 0.35) < 1e-9)
        // Moved 8 mm together, rolling a little: the turn is left out, the largest motion is exact.
        let together = FingerSpread(refs: still.refs, nows: still.refs.map { ($0.x + 8 + 0.2 * $0.y / 17, $0.y + 0.1) })
        let moving = measure(together, below: 2)
        #expect(!moving.isExact)
        #expect(moving.largest == measure(together).largest && moving.largest > 2)
        #expect(moving.kind(decision: 4) == .together)
    }
}
