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
/// remain (`bounce.maxInterval` after the lift, unless the finger bounces
/// back) or at the last lift; `ended` carries `direction`: `open` or `close`.
/// A pinch is never also a flick or swipe. A drag whose span clearly changes
/// becomes a pinch, and a pinch whose fingers then travel together becomes a
/// drag (`TouchGroup.kindChange`). Its event is built as a rotation's is
/// (`TransformGesture`).
struct Pinch: TransformGesture {
    static let kind = GestureKind.pinch
    var id: UInt64 = 0
    var fingers = 0

    static func direction(_ transform: Transform) -> GestureDirection { transform.scale >= 1 ? .open : .close }
}
