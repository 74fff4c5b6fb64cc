/// **Flick** (discrete, `recognized`): at the lift that ends a drag, the
/// release speed is at least `flick.minVelocity`. `direction` is one of 8
/// (45° sectors centred on each axis and diagonal), with `vx_mm_s`,
/// `vy_mm_s` and the `deceleration` hint. The release velocity follows a
/// finger that speeds up until it lifts (`VelocityEstimator`); a finger that
/// rested before lifting has none.
struct Flick: Sendable {
    var velocity: (vx: Double, vy: Double)

    /// The flick a drag's release velocity makes, if any.
    static func decide(velocity v: (vx: Double, vy: Double), t: ResolvedThresholds) -> Flick? {
        Trig.hypot(v.vx, v.vy) >= t.flickMinVelocity ? Flick(velocity: v) : nil
    }

    func event(id: UInt64, _ base: EventBase, drag: Drag, tx: Double, ty: Double, deceleration: Double) -> GestureEvent {
        var e = drag.stroke(.flick, .recognized, id: id, base, tx: tx, ty: ty, velocity: velocity)
        e.direction = GestureDirection.octant(dx: velocity.vx, dy: velocity.vy)
        e.deceleration = deceleration
        return e
    }
}
