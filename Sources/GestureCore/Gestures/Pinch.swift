/// **Pinch** (`began`, `changed`, `ended`, `cancelled`): two or more fingers
/// moved by `pinch.minSpanChange` (centroid travel, span change or turn), and
/// their span (mean distance from their centroid) changed at least half as
/// much as the centroid travelled and at least as much as they turned
/// (`GroupMotion`); one finger held still while the other moves is a pinch.
/// `scale` is the span now over the span where the fingers landed (above 1
/// opens, below 1 closes), measured from the landing even when the pinch is
/// decided later or at a quick stroke's lift; `rotation` (radians, clockwise
/// on screen positive) likewise. A finger landing or lifting during a pinch
/// carries both on (`Transform`). The pinch ends when fewer than two fingers
/// remain; `ended` carries `direction`: `open` or `close`. A pinch is never
/// also a drag, flick or swipe.
struct Pinch: Sendable {
    var id: UInt64 = 0
    var fingers = 0

    func event(_ phase: GesturePhase, _ base: EventBase, transform: Transform) -> GestureEvent {
        var e = base.event(.pinch, phase, id: id, fingers: fingers)
        e.scale = transform.scale
        e.rotation = transform.rotation
        if phase == .ended { e.direction = transform.scale >= 1 ? .open : .close }
        return e
    }
}
