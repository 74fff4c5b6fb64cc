/// **Rotate** (`began`, `changed`, `ended`, `cancelled`): two or more fingers
/// moved by `pinch.minSpanChange`, and their travel along the circle about
/// their centroid (their turn times their span) is more than their span
/// change and at least half their centroid travel (`GroupMotion`): fingers
/// turning about their centre with a steady span, as when rotating a photo
/// or a map, or one finger turning about a still one. `rotation` is in
/// radians since the fingers landed, clockwise on screen positive; `scale`
/// is carried too, as a pinch carries its rotation. It ends when fewer than
/// two fingers remain; `ended` carries `direction`: `clockwise` or
/// `counterclockwise`. GTK's GestureRotate and UIKit's rotation recognizer
/// report the same angle.
struct Rotate: Sendable {
    var id: UInt64 = 0
    var fingers = 0

    func event(_ phase: GesturePhase, _ base: EventBase, transform: Transform) -> GestureEvent {
        var e = base.event(.rotate, phase, id: id, fingers: fingers)
        e.rotation = transform.rotation
        e.scale = transform.scale
        if phase == .ended { e.direction = transform.rotation >= 0 ? .clockwise : .counterclockwise }
        return e
    }
}
