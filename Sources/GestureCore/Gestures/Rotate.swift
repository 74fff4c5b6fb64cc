/// **Rotate** (`began`, `changed`, `ended`, `cancelled`): two or more fingers
/// moved by `pinch.minSpanChange`, and their travel along the circle about
/// their centroid (their turn times their span) is more than their span
/// change and at least half their centroid travel (`GroupMotion`): fingers
/// turning about their centre with a steady span, as when rotating a photo
/// or a map, or one finger turning about a still one. `rotation` is in
/// radians since the fingers landed, clockwise on screen positive; `scale`
/// is carried too, as a pinch carries its rotation. It ends as a pinch does,
/// and like one may become a drag; `ended` carries `direction`: `clockwise`
/// or `counterclockwise`. GTK's GestureRotate and UIKit's rotation
/// recognizer report the same angle.
struct Rotate: TransformGesture {
    static let kind = GestureKind.rotate
    var id: UInt64 = 0
    var fingers = 0

    static func direction(_ transform: Transform) -> GestureDirection {
        transform.rotation >= 0 ? .clockwise : .counterclockwise
    }
}
