/// **Drag** (`began`, `changed`, `ended`, `cancelled`): the fingers moved
/// (beyond `slop`, or for a touch that may be a rolling tap beyond
/// `tap.maxRoll` or past `tap.rollWindow`) before the hold deadline, decided
/// once the settle window has passed, or at the first lift of a quicker
/// stroke. With two or more fingers it is a drag when they move together
/// (`GroupMotion`: their centroid travelled more than twice their span change
/// and their turn). `dx_mm`/`dy_mm` are the centroid's translation since the
/// first touch (after a hold: since the hand began to move), accumulated frame
/// to frame, so fingers landing or lifting cause no jump. `changed` carries
/// the current velocity; `ended`, at the last lift, the release velocity:
/// each finger's estimate at its lift (`VelocityEstimator`), averaged.
/// `fingers` is the most fingers of the group down at once, fixed at
/// `began`; fingers landing later are not part of it. A two-or-more-finger
/// drag whose span clearly changes becomes a pinch (`TouchGroup.kindChange`).
///
/// A drag's end may also be a flick (`Flick.swift`) and a swipe (`Swipe.swift`).
struct Drag: Sendable {
    var id: UInt64 = 0
    var fingers = 0
    /// The group's translation the drag measures from.
    var originX = 0.0, originY = 0.0

    /// The drag's event: translation since its origin (`tx`, `ty`: the
    /// group's since its first touch), its length and, unless cancelled, `velocity`.
    func event(
        _ phase: GesturePhase, _ base: EventBase, tx: Double, ty: Double, velocity: (vx: Double, vy: Double)?
    ) -> GestureEvent {
        stroke(.drag, phase, id: id, base, tx: tx, ty: ty, velocity: velocity)
    }

    /// An event carrying this drag's stroke (the drag's own, a flick's or a swipe's).
    func stroke(
        _ kind: GestureKind, _ phase: GesturePhase, id: UInt64, _ base: EventBase, tx: Double, ty: Double,
        velocity v: (vx: Double, vy: Double)?
    ) -> GestureEvent {
        var e = base.event(kind, phase, id: id, fingers: fingers)
        let (dx, dy) = (tx - originX, ty - originY)
        e.dx = dx
        e.dy = dy
        if let v {
            e.distance = Trig.hypot(dx, dy)
            e.vx = v.vx
            e.vy = v.vy
        }
        return e
    }
}
