/// **Tap** (discrete, `recognized`): every finger lifted within
/// `tap.maxDuration` of its own landing, and the touch did not move: at the
/// last lift the group is within `slop` of where it landed, and on the way it
/// never went beyond `tap.maxRoll`, nor beyond `slop` once `tap.rollWindow`
/// had passed (a pressing finger rolls 2–3 mm and back; the arbiter's
/// `updateMoved` keeps that from counting as motion). `fingers` is every
/// finger that took part; the point is the centroid of their landing points.
///
/// Double taps, and when a tap is reported, are the tap sequence's (`DoubleTap.swift`).
enum Tap {
    /// A group that may still be a tap.
    struct Candidate: Sendable {
        /// False once the group can no longer be a tap (it moved, was held,
        /// cancelled); the tap sequence was told (`not-tap`).
        var possible = true

        /// The tap the group's last lift makes, or nil when a finger stayed
        /// down too long. Called when the arbiter found the group still at the
        /// lift; `fingers` are the device's, `group` the slots that took part.
        func decide(
            _ fingers: Fingers, group: SlotSet, touched: Int, edge: PanelEdge?, t: ResolvedThresholds, now: Timestamp
        ) -> TapInfo? {
            guard possible else { return nil }
            for s in group {
                let f = fingers[s]
                if (f.isDown ? now : f.liftedAt) - f.downTime > t.tapMaxDuration { return nil }
            }
            guard let (x, y) = fingers.mean(group, { (fingers[$0].startX, fingers[$0].startY) }) else { return nil }
            return TapInfo(lift: now, x: x, y: y, fingers: touched, edge: edge)
        }
    }

    /// The event of `taps` taps in a row (a tap, double tap or triple tap), at the point of `base`.
    static func event(_ info: TapInfo, taps: Int, id: UInt64, timing: TapTiming, _ base: EventBase) -> GestureEvent {
        var e = base.event(.taps(taps), .recognized, id: id, fingers: info.fingers)
        e.edge = info.edge
        e.duration = nil
        e.taps = taps
        e.timing = timing
        return e
    }
}

/// A finished tap, as the touch group hands it to the tap sequence.
struct TapInfo: Sendable {
    /// The last finger's lift.
    var lift: Timestamp
    /// Centroid of the fingers' landing points, mm.
    var x: Double
    var y: Double
    var fingers: Int
    var edge: PanelEdge?
}
