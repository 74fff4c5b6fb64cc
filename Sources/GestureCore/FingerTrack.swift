/// What the recognizer knows about one slot's finger.
struct FingerTrack: Sendable {
    var isDown = false
    /// Part of the current gesture (false: landed too late, or after the gesture ended).
    var isMember = false
    /// Lifted in the frame being processed (still counted for decisions made at that lift).
    var liftedAt: Timestamp = .never
    var downTime: Timestamp = .zero
    /// Where the finger landed (tap positions).
    var startX = 0.0, startY = 0.0
    /// Where slop and the drag-or-pinch decision measure from: the landing
    /// point, moved to the finger's position when the settle window closes
    /// on a group that has not moved (a pressing finger flattens and its
    /// reported point drifts in its first ~100 ms).
    var refX = 0.0, refY = 0.0
    var x = 0.0, y = 0.0
    /// Position at the end of the previous frame (for per-frame translation).
    var prevX = 0.0, prevY = 0.0
    /// Was down at the end of the previous frame.
    var wasDown = false
    var movedBeyondSlop = false
    /// Release velocity (mm/s), set at the lift.
    var releaseVX = 0.0, releaseVY = 0.0

    mutating func land(at time: Timestamp, x px: Double, y py: Double, member: Bool) {
        isDown = true
        isMember = member
        liftedAt = .never
        downTime = time
        startX = px
        startY = py
        refX = px
        refY = py
        x = px
        y = py
        prevX = px
        prevY = py
        wasDown = false
        movedBeyondSlop = false
        releaseVX = 0
        releaseVY = 0
    }

    /// Counts for a decision taken now: down, or lifting in this very frame.
    func takesPart(at now: Timestamp) -> Bool { isMember && (isDown || liftedAt == now) }
}
