/// **Swipe** (discrete, `recognized`): at the lift that ends a drag, first
/// touch to last lift took at most `swipe.maxDuration`, the net travel from
/// where the fingers landed along the dominant axis is at least
/// `swipe.minDistance`, the net stroke is within `swipe.maxAngle` of that
/// axis, and so is its path, seen from one of two places: from where it
/// landed (every point at least `swipe.minDistance` away), or from where it
/// was under way (its anchor: the point where it first covered half of
/// `swipe.minDistance`; every later point at least that far again from it);
/// or else the path is an arc: nowhere farther from its chord (the straight
/// line from where it landed to where it lifted) than `swipe.maxStray` of
/// the chord's length. A stroke that hooks sideways in its first
/// millimetres and then goes straight is a swipe (seen from its anchor),
/// and so is one that arcs gently as a thumb does (seen from where it
/// landed), and a thumb's that leaves steeply and then runs flat (an arc
/// whose net direction is within the angle); one that bulges is only a
/// drag, as is a slow one; a diagonal flick is no swipe. `direction` is
/// `left`, `right`, `up` or `down` in screen terms (after rotation).
struct Swipe: Sendable {
    var direction: GestureDirection
    /// Net travel along the axis, mm.
    var distance: Double

    /// The stroke's path, followed frame by frame.
    struct Path: Sendable {
        var anchored = false
        var anchorX = 0.0, anchorY = 0.0
        /// The path left the cone of each direction, seen from the landing point and from the anchor.
        var fromLanding = Cones()
        var fromAnchor = Cones()
        /// Where the path went: a point each time it is `sampleStep` mm or
        /// more from the last one kept. When they are all taken, every other
        /// one is dropped and the step doubles, so a point of the path is
        /// never farther than the step from one kept, however long the
        /// stroke, and nothing is allocated.
        var samples = InlineArray<32, SIMD2<Double>>(repeating: .zero)
        var sampleCount = 0
        var sampleStep = 0.0

        /// Which of the four cones (right, left, down, up) a path has left.
        struct Cones: Sendable {
            var right = false, left = false, down = false, up = false

            /// Notes which cones the vector (dx, dy) lies outside of; `m` is tan(swipe.maxAngle).
            mutating func check(dx: Double, dy: Double, m: Double) {
                if !(dx > 0 && abs(dy) <= dx * m) { right = true }
                if !(dx < 0 && abs(dy) <= -dx * m) { left = true }
                if !(dy > 0 && abs(dx) <= dy * m) { down = true }
                if !(dy < 0 && abs(dx) <= -dy * m) { up = true }
            }

            func broken(_ axis: GestureDirection.Axis) -> Bool {
                switch axis {
                case .right: right
                case .left: left
                case .down: down
                case .up: up
                }
            }
        }

        /// Takes the group's translation since the first touch after a frame;
        /// `minDistance` and `maxSlope` are `swipe.minDistance` and
        /// tan(`swipe.maxAngle`): two numbers, not the thresholds, which
        /// would be copied whole for every call.
        mutating func follow(tx: Double, ty: Double, minDistance: Double, maxSlope: Double) {
            let travelled = Trig.hypot(tx, ty)
            if travelled >= minDistance { fromLanding.check(dx: tx, dy: ty, m: maxSlope) }
            sample(SIMD2(tx, ty), firstStep: minDistance / 16)
            let half = minDistance / 2
            guard anchored else {
                if travelled >= half {
                    anchored = true
                    (anchorX, anchorY) = (tx, ty)
                }
                return
            }
            let dx = tx - anchorX
            let dy = ty - anchorY
            if Trig.hypot(dx, dy) >= half { fromAnchor.check(dx: dx, dy: dy, m: maxSlope) }
        }

        private mutating func sample(_ p: SIMD2<Double>, firstStep: Double) {
            if sampleCount == 0 {
                sampleStep = firstStep
            } else {
                let d = p - samples[sampleCount - 1]
                guard Trig.hypot(d.x, d.y) >= sampleStep else { return }
            }
            if sampleCount == samples.count {
                for i in 0..<(sampleCount / 2) { samples[i] = samples[2 * i + 1] }
                sampleCount /= 2
                sampleStep *= 2
            }
            samples[sampleCount] = p
            sampleCount += 1
        }

        /// The path from the landing point through the samples to (tx, ty), as a stroke's.
        func stroke(tx: Double, ty: Double) -> StrokePath {
            var points: [SIMD2<Double>] = [.zero]
            points.reserveCapacity(sampleCount + 2)
            for i in 0..<sampleCount { points.append(samples[i]) }
            points.append(SIMD2(tx, ty))
            return StrokePath(points)
        }

        /// The farthest the path strayed from the line through the landing
        /// point and (tx, ty), relative to that line's length.
        func stray(tx: Double, ty: Double) -> Double {
            let length = Trig.hypot(tx, ty)
            guard length > 0 else { return .infinity }
            var most = 0.0
            for i in 0..<sampleCount {
                let p = samples[i]
                most = max(most, abs(p.x * ty - p.y * tx))
            }
            return most / (length * length)
        }

        /// The swipe a stroke of net translation (tx, ty) lasting `duration` makes, if any.
        func decide(tx: Double, ty: Double, duration: Duration, t: ResolvedThresholds) -> Swipe? {
            let major = max(abs(tx), abs(ty))
            let minor = min(abs(tx), abs(ty))
            let axis = GestureDirection.Axis(dx: tx, dy: ty)
            guard major >= t.swipeMinDistance, duration <= t.swipeMaxDuration, minor <= major * t.swipeMaxSlope else {
                return nil
            }
            let straight = !fromLanding.broken(axis) || !fromAnchor.broken(axis)
            guard straight || stray(tx: tx, ty: ty) <= t.swipeMaxStray else { return nil }
            return Swipe(direction: axis.direction, distance: major)
        }
    }

    func event(
        id: UInt64, _ base: EventBase, drag: Drag, tx: Double, ty: Double, velocity: (vx: Double, vy: Double)
    ) -> GestureEvent {
        var e = drag.stroke(.swipe, .recognized, id: id, base, tx: tx, ty: ty, velocity: velocity)
        e.direction = direction
        e.distance = distance
        return e
    }
}
