/// How the fingers of a touch group moved from their reference points:
/// together (the centroid travelled), apart (the span changed) or around
/// (they turned about their centroid). The arbiter's geometry lives here.
struct GroupMotion: Sendable {
    /// Fingers taking part (down, or lifting in this frame).
    var count = 0
    /// Centroid travel, mm.
    var travel = 0.0
    /// Span (mean distance of the fingers from their centroid) at the references and now, mm.
    var spanStart = 0.0
    var spanNow = 0.0
    /// Rotation about the centroid, radians, clockwise on screen positive.
    var angle = 0.0
    /// Travel along the circle: the mean span times the rotation, mm.
    var arc = 0.0
    /// One finger: its displacement. Several: the largest of travel, span change and arc.
    var largest = 0.0
    /// False: `angle` and `arc` are bounds, not measures (see `init(_:_:below:)`).
    var isExact = true

    var spanChange: Double { abs(spanNow - spanStart) }
    /// Span now over span at the references (1 when there is no span to speak of).
    var scale: Double { spanStart > 1e-6 ? spanNow / spanStart : 1 }

    init() {}

    /// The motion of the fingers in `slots` from their reference points.
    ///
    /// With `below`, the turn (an `atan2` per finger) is measured only when
    /// it could matter. `angle` and `arc` are then a bound on it
    /// (`isExact` is false) in two cases: the travel, the span change and
    /// the bound are all below `below`, where most frames of a resting or
    /// rolling hand are (`largest` is below it too, as the exact one would
    /// be); or the bound is at most the larger of the travel and the span
    /// change, and at most half the travel when the travel is twice the
    /// span change, where most frames of fingers moving together are
    /// (`largest` is then exact). Either way every comparison of `largest`
    /// with a distance of at least `below`, and `kind(decision:)` for such
    /// a distance, come out as with the exact values; the frame by frame
    /// classification asks with its smallest distance
    /// (`TouchGroup.moved`).
    init(_ f: borrowing Fingers, _ slots: SlotSet, below limit: Double = 0) {
        guard let (rx, ry) = f.centroid(of: slots, atReferences: true),
            let (cx, cy) = f.centroid(of: slots, atReferences: false)
        else { return }
        count = slots.count
        if count == 1 {
            for s in slots { largest = f[s].displacement }
            return
        }
        let n = Double(count)
        travel = Trig.hypot(cx - rx, cy - ry)
        // Each finger from the centroid, at its reference and now: the
        // spans, and the turn about the centroid weighted by the finger's
        // distance from it (a finger near the centroid has no angle to
        // speak of); measured (`turns`) or bounded: |atan2(cross, dot)| is
        // at most |cross| / dot when dot > 0 (atan x <= x), and pi otherwise.
        func fingers(turns: Bool) -> (s0: Double, s1: Double, weight: Double, bound: Double, turn: Double) {
            var sum = (s0: 0.0, s1: 0.0, weight: 0.0, bound: 0.0, turn: 0.0)
            for s in slots {
                let (x0, y0) = (f[s].refX - rx, f[s].refY - ry)
                let (x1, y1) = (f[s].x - cx, f[s].y - cy)
                let r0 = Trig.hypot(x0, y0)
                let r1 = Trig.hypot(x1, y1)
                let w = min(r0, r1)
                let cross = x0 * y1 - y0 * x1
                let dot = x0 * x1 + y0 * y1
                sum.s0 += r0
                sum.s1 += r1
                sum.weight += w
                if turns {
                    sum.turn += w * Trig.atan2(cross, dot)  // `turn(from:to:)`'s angle
                } else {
                    sum.bound += w * (dot > 0 ? min(abs(cross) / dot, Double.pi) : Double.pi)
                }
            }
            return sum
        }
        var sum = fingers(turns: limit <= 0)
        spanStart = sum.s0 / n
        spanNow = sum.s1 / n
        let meanSpan = (spanStart + spanNow) / 2
        if limit > 0 {
            // A margin for the rounding of the bound's own arithmetic.
            let arcBound = (sum.weight > 1e-6 ? sum.bound / sum.weight : 0) * meanSpan * (1 + 1e-9)
            let along = max(travel, spanChange)
            // Below the limit every way; or above it, with a turn that can
            // be neither the largest motion nor what keeps a travel from
            // leading (`kind`'s comparisons come out as with the exact arc).
            if max(along, arcBound) < limit || (arcBound <= along && (travel < 2 * spanChange || 2 * arcBound <= travel)) {
                angle = arcBound / max(meanSpan, 1e-300)
                arc = arcBound
                largest = max(along, arcBound)
                isExact = false
                return
            }
            sum = fingers(turns: true)
        }
        angle = sum.weight > 1e-6 ? sum.turn / sum.weight : 0
        arc = abs(angle) * meanSpan
        largest = max(travel, spanChange, arc)
    }

    /// The angle from the vector (x0, y0) to (x1, y1), -π...π, clockwise
    /// on screen positive: one `atan2` of their cross and dot products
    /// (the difference of each one's own angle took two). Either vector
    /// zero: no angle, 0.
    static func turn(from x0: Double, _ y0: Double, to x1: Double, _ y1: Double) -> Double {
        Trig.atan2(x0 * y1 - y0 * x1, x0 * x1 + y0 * y1)
    }

    /// What several fingers that moved are doing.
    ///
    /// They turn when their travel along the circle dominates: it is more
    /// than their centroid travel and more than their span change (a
    /// two-finger scroll whose fingers start a little apart in time turns by
    /// a few degrees, but travels more). They pinch when the span change is
    /// at least the centroid travel and the turn (one finger held still while
    /// the other moves away pinches). They move together when the centroid
    /// travelled at least twice their span change and twice their turn.
    /// Anything in between is mixed (fingers rarely start moving at the same
    /// instant, least of all a hand that rested first): nil, decide later.
    func kind(decision distance: Double) -> Kind? {
        guard count >= 2, largest >= distance else { return nil }
        if arc > travel && arc > spanChange { return .around }
        if spanChange >= travel && spanChange >= arc { return .apart }
        if travel >= 2 * max(spanChange, arc) { return .together }
        // Still mixed at three times the decision distance: the kind that
        // leads, with a pinch once the span changed half as much as the
        // centroid travelled.
        return largest >= 3 * distance ? kindNow : nil
    }

    /// What the fingers are doing now, with no waiting: at a lift, or once
    /// the motion has gone on long enough.
    var kindNow: Kind {
        if arc > travel && arc > spanChange { return .around }
        if spanChange >= 0.5 * travel { return .apart }
        return .together
    }

    enum Kind: Sendable { case together, apart, around }
}

/// What a pinch and a rotation share: their event, built one way, with the
/// scale and turn of their `Transform`; each names its kind and how its
/// `direction` is judged at `ended`.
protocol TransformGesture: Sendable {
    static var kind: GestureKind { get }
    var id: UInt64 { get }
    var fingers: Int { get }
    static func direction(_ transform: Transform) -> GestureDirection
}

extension TransformGesture {
    func event(_ phase: GesturePhase, _ base: EventBase, transform: Transform) -> GestureEvent {
        var e = base.event(Self.kind, phase, id: id, fingers: fingers)
        e.scale = transform.scale
        e.rotation = transform.rotation
        if phase == .ended { e.direction = Self.direction(transform) }
        return e
    }
}

/// The scale and turn of a pinch or a rotation: measured from the fingers'
/// references when it begins (where they landed), then accumulated frame to
/// frame over the fingers down in both frames, so a finger landing or lifting
/// carries on from where the others are rather than jumping.
struct Transform: Sendable {
    var scale = 1.0
    /// Radians, clockwise on screen positive.
    var rotation = 0.0

    init() {}

    init(_ m: GroupMotion) {
        precondition(m.isExact, "a transform from a motion measured without its turn")
        scale = m.scale
        rotation = m.angle
    }

    mutating func add(scale factor: Double, rotation turn: Double) {
        scale *= factor
        rotation += turn
    }
}
