import Foundation

/// One finger's contact: where it lands, how it moves, when it lifts.
/// Times in ms from the scenario's start, positions in mm on the panel.
public struct Stroke: Sendable {
    /// A movement by (dx, dy) mm over `duration` ms, following a minimum-jerk
    /// profile. With `cut` below 1 the finger is still moving at the end: it
    /// follows a longer virtual movement and the contact ends `cut` of the way
    /// through its time, as a flick released in full motion.
    public struct Move: Sendable {
        public var start: Double
        public var duration: Double
        public var dx: Double
        public var dy: Double
        public var cut: Double = 1
        /// A sideways bulge (mm) at the middle of the movement: a curved stroke.
        public var bulge: Double = 0
        /// A turn (radians, clockwise on screen positive) about (`pivotX`,
        /// `pivotY`) over the movement, after its translation: a twist.
        public var turn: Double = 0
        public var pivotX: Double = 0
        public var pivotY: Double = 0

        public init(
            start: Double, duration: Double, dx: Double, dy: Double, cut: Double = 1, bulge: Double = 0, turn: Double = 0,
            pivotX: Double = 0, pivotY: Double = 0
        ) {
            (self.start, self.duration, self.dx, self.dy, self.cut) = (start, duration, dx, dy, cut)
            (self.bulge, self.turn, self.pivotX, self.pivotY) = (bulge, turn, pivotX, pivotY)
        }
    }

    public var land: Double
    public var lift: Double
    public var x: Double
    public var y: Double
    public var moves: [Move] = []
    /// Slow drift of a resting finger (mm), on top of sensor noise.
    public var drift: Double = 0.25
    /// The contact's size (touch major, mm); 0 for a fingertip. A scenario
    /// with any sized stroke is rendered with `ABS_MT_TOUCH_MAJOR`.
    public var size: Double = 0

    public init(land: Double, lift: Double, x: Double, y: Double, moves: [Move] = []) {
        self.land = land
        self.lift = lift
        self.x = x
        self.y = y
        self.moves = moves
    }

    /// Minimum-jerk position fraction at τ in 0...1.
    static func minJerk(_ tau: Double) -> Double {
        let t = min(max(tau, 0), 1)
        return t * t * t * (10 - 15 * t + 6 * t * t)
    }

    /// Position at time `t` (ms), without noise.
    public func position(at t: Double, driftPhase: Double) -> (x: Double, y: Double) {
        var px = x
        var py = y
        for m in moves where t > m.start {
            let virtual = m.duration / m.cut
            let scale = 1 / Self.minJerk(m.cut)
            let f = Self.minJerk(min(t - m.start, m.duration) / virtual) * scale
            px += m.dx * f
            py += m.dy * f
            if m.turn != 0 {
                let a = m.turn * f
                let (ox, oy) = (px - m.pivotX, py - m.pivotY)
                px = m.pivotX + ox * cos(a) - oy * sin(a)
                py = m.pivotY + ox * sin(a) + oy * cos(a)
            }
            if m.bulge != 0 {
                // Perpendicular offset, largest halfway: sin(π f).
                let len = max((m.dx * m.dx + m.dy * m.dy).squareRoot(), 1e-9)
                let b = m.bulge * sin(.pi * min(f, 1))
                px += -m.dy / len * b
                py += m.dx / len * b
            }
        }
        let w = 2 * Double.pi * (t - land) / 900
        px += drift * sin(w + driftPhase)
        py += drift * cos(0.7 * w + driftPhase)
        return (px, py)
    }
}

/// A gesture performance: strokes on a panel, and the gestures it must produce.
public struct Scenario: Sendable {
    public var name: String
    public var strokes: [Stroke]
    /// Summary lines, as `gestured replay --format summary` prints them.
    public var expected: [String]

    public init(name: String, strokes: [Stroke], expected: [String]) {
        self.name = name
        self.strokes = strokes
        self.expected = expected
    }

    /// Whether the panel must report contact sizes for this scenario.
    public var reportsSize: Bool { strokes.contains { $0.size > 0 } }
}
