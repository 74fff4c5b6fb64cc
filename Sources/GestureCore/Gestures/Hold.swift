/// **Touch-and-hold** (`began`, `changed`, `ended`, `cancelled`): the fingers
/// stayed still for `hold.minDuration` from the first touch. `began` fires at
/// that deadline (a timer, not the next frame); every event carries
/// `duration_ms` since the first touch. One finger moving afterwards
/// is `changed` with `dx_mm`/`dy_mm` since `began` (hold-then-drag); lifting is
/// `ended`. Those touches make no tap.
///
/// More fingers may land on a hold and join it. Once two or more fingers are
/// down and they move by `pinch.minSpanChange` from where they were when the
/// last of them landed (or the hold began) together, apart or around, the
/// hold ends (`ended`) and the hand's drag, pinch or rotation begins, with
/// every finger down (a hand resting, then moving; UIKit lets a pinch begin
/// after a long press the same way). The arbiter makes that switch
/// (`TouchGroup`, state `holding`).
struct Hold: Sendable {
    var id: UInt64 = 0
    var fingers = 0
    /// The group's translation when the hold began.
    var originX = 0.0, originY = 0.0

    /// The hold's event at `now`, with its translation since `began`.
    /// `tx`, `ty`: the group's translation since its first touch.
    func event(_ phase: GesturePhase, _ base: EventBase, tx: Double, ty: Double) -> GestureEvent {
        var e = base.event(.touchAndHold, phase, id: id, fingers: fingers)
        // Every phase says how long the fingers have been down, `began` too:
        // a client that waits longer than `hold.minDuration` counts from it.
        e.duration = (base.now - base.start).milliseconds
        e.dx = tx - originX
        e.dy = ty - originY
        return e
    }
}
