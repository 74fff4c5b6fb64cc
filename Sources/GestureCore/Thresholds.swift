/// Every tunable number of the recognizers, with its unit.
///
/// Defaults are those of docs/gestures.md; each one names its unit in the property
/// name's documentation. Distances are millimetres on the panel, times are
/// milliseconds in configuration and microseconds inside the engine.
public struct GestureThresholds: Hashable, Sendable {
    /// Movement allowed before a touch counts as moving, in mm. Default 2.0.
    public var slop: Double = 2.0
    /// Fingers landing within this window of the first make one gesture, in ms. Default 120.
    public var settle: Double = 120
    /// Longest contact of each finger that still counts as a tap, in ms. Default 500.
    public var tapMaxDuration: Double = 500
    /// How far a tap's contact may roll from where it landed and come back, in mm. Default 4.
    public var tapMaxRoll: Double = 4
    /// How long after the first touch a contact may roll beyond slop and still be a tap, in ms. Default 250.
    public var tapRollWindow: Double = 250
    /// Longest gap from the first tap's lift to the second touch, in ms. Default 300.
    public var doubleTapMaxInterval: Double = 300
    /// Shorter gaps are contact bounce, not a second tap, in ms. Default 40.
    public var doubleTapMinInterval: Double = 40
    /// Largest distance between the two taps of a double tap, in mm. Default 10.
    public var doubleTapMaxDistance: Double = 10
    /// Still contact that makes a touch-and-hold, in ms. Default 500.
    public var holdMinDuration: Double = 500
    /// Steady motion in one direction (a touch's trend, over the last three
    /// fifths of `holdMinDuration`) that keeps it from becoming a hold at
    /// its deadline, in mm. Default 1.
    public var holdMaxCreep: Double = 1
    /// Window of the least-squares release velocity fit, in ms. Default 100.
    public var velocityWindow: Double = 100
    /// Release speed that makes a drag a flick, in mm/s. Default 100.
    public var flickMinVelocity: Double = 100
    /// Deceleration hint carried by flicks, per ms (UIKit normal rate). Default 0.998.
    public var flickDeceleration: Double = 0.998
    /// Net travel along the swipe axis, in mm. Default 15.
    public var swipeMinDistance: Double = 15
    /// Longest swipe, touch down to lift, in ms. Default 500.
    public var swipeMaxDuration: Double = 500
    /// Largest deviation of a swipe from its axis, in degrees. Default 30.
    public var swipeMaxAngle: Double = 30
    /// How far a swipe's path may stray from the straight line between
    /// where it landed and where it lifted, as a fraction of that line's
    /// length, when its path leaves the axis's cone (an arc). Default 0.2.
    public var swipeMaxStray: Double = 0.2
    /// Shortest path of a drag that is also reported as a stroke (for the
    /// subscribers that ask for strokes), in mm. Default 30.
    public var strokeMinLength: Double = 30
    /// Centroid travel, span change or turn that decides a multi-finger gesture (drag, pinch or rotate), in mm. Default 4.
    public var pinchMinSpanChange: Double = 4
    /// Span change of a two-or-more-finger drag, as a fraction of its span,
    /// that ends it and begins a pinch (and at least twice
    /// `pinchMinSpanChange`). Default 0.35.
    public var pinchSwitchRatio: Double = 0.35
    /// Travel of a pinch's or rotation's fingers together, with span and
    /// angle steady, that ends it and begins a drag, in mm. Default 12.
    public var dragSwitchTravel: Double = 12
    /// Longest time a finger of a gesture may be up and still be the same
    /// finger when it lands again, in ms. Default 150.
    public var bounceMaxInterval: Double = 150
    /// Largest distance from where a finger lifted to where it lands again
    /// as the same finger, in mm. Default 8.
    public var bounceMaxDistance: Double = 8
    /// Contact size (touch major) from which a contact is a palm or a
    /// gripping hand, not a finger, in mm; 0 never. Default 18.
    public var palmMinSize: Double = 18
    /// A contact that landed this close to an edge and rests there while
    /// other fingers move is a gripping hand, not a finger, in mm. Default 8.
    public var gripBand: Double = 8
    /// Distance from a panel edge that tags a gesture with that edge, in mm. Default 4.
    public var edgeBand: Double = 4
    /// On a claimed touchscreen, how soon after the first finger the Nth
    /// of a claimed count must land for the touches to be claimed, in ms. Default 150.
    public var claimWindow: Double = 150
    /// On a claimed touchscreen, the longest a touch that lands in a
    /// claimed edge band is held back before it is passed on, in ms. Default 150.
    public var claimEdgeHold: Double = 150

    public init() {}

    /// The defaults docs/gestures.md lists.
    public static let defaults = GestureThresholds()
}

extension GestureThresholds {
    /// One configuration key: its name in files and docs, its unit, and where it lives.
    public struct Key: Sendable {
        public let name: String
        public let unit: String
        public let keyPath: WritableKeyPath<GestureThresholds, Double> & Sendable
        public let summary: String
    }

    /// Every threshold by the name docs/gestures.md and configuration files use.
    public static let keys: [Key] = [
        Key(name: "slop", unit: "mm", keyPath: \.slop, summary: "movement allowed before a touch counts as moving"),
        Key(
            name: "settle", unit: "ms", keyPath: \.settle,
            summary: "fingers landing within this window of the first make one gesture"),
        Key(
            name: "tap.maxDuration", unit: "ms", keyPath: \.tapMaxDuration,
            summary: "longest contact (each finger's own) that is still a tap"),
        Key(
            name: "tap.maxRoll", unit: "mm", keyPath: \.tapMaxRoll,
            summary: "how far a tap may roll from where it landed, if it comes back within slop"),
        Key(
            name: "tap.rollWindow", unit: "ms", keyPath: \.tapRollWindow,
            summary: "after this, moving beyond slop is motion, not a rolling tap"),
        Key(name: "doubleTap.maxInterval", unit: "ms", keyPath: \.doubleTapMaxInterval, summary: "first lift to second touch"),
        Key(
            name: "doubleTap.minInterval", unit: "ms", keyPath: \.doubleTapMinInterval, summary: "shorter gaps are contact bounce"
        ),
        Key(name: "doubleTap.maxDistance", unit: "mm", keyPath: \.doubleTapMaxDistance, summary: "between the two touch points"),
        Key(
            name: "hold.minDuration", unit: "ms", keyPath: \.holdMinDuration, summary: "still contact that makes a touch-and-hold"
        ),
        Key(
            name: "hold.maxCreep", unit: "mm", keyPath: \.holdMaxCreep,
            summary: "steady motion one way, over the 3/5 of hold.minDuration before the deadline, that is not still"),
        Key(
            name: "velocity.window", unit: "ms", keyPath: \.velocityWindow,
            summary: "least-squares window of the release velocity"),
        Key(
            name: "flick.minVelocity", unit: "mm/s", keyPath: \.flickMinVelocity,
            summary: "release speed that makes a drag a flick"),
        Key(name: "flick.deceleration", unit: "/ms", keyPath: \.flickDeceleration, summary: "decay hint for clients"),
        Key(name: "swipe.minDistance", unit: "mm", keyPath: \.swipeMinDistance, summary: "net travel along the swipe axis"),
        Key(name: "swipe.maxDuration", unit: "ms", keyPath: \.swipeMaxDuration, summary: "touch down to lift"),
        Key(name: "swipe.maxAngle", unit: "deg", keyPath: \.swipeMaxAngle, summary: "largest deviation from the axis"),
        Key(
            name: "swipe.maxStray", unit: "ratio", keyPath: \.swipeMaxStray,
            summary: "farthest an arc's path strays from its chord, relative to the chord"),
        Key(
            name: "stroke.minLength", unit: "mm", keyPath: \.strokeMinLength,
            summary: "shortest path of a drag that is also a stroke, for those who ask for strokes"),
        Key(
            name: "pinch.minSpanChange", unit: "mm", keyPath: \.pinchMinSpanChange,
            summary: "centroid travel, span change or turn that decides drag, pinch or rotate"),
        Key(
            name: "pinch.switchRatio", unit: "ratio", keyPath: \.pinchSwitchRatio,
            summary: "span change of a drag, relative to its span, that turns it into a pinch"),
        Key(
            name: "drag.switchTravel", unit: "mm", keyPath: \.dragSwitchTravel,
            summary: "travel together, span and angle steady, that turns a pinch or rotation into a drag"),
        Key(
            name: "bounce.maxInterval", unit: "ms", keyPath: \.bounceMaxInterval,
            summary: "a finger of a gesture up this briefly is the same finger when it lands again"),
        Key(
            name: "bounce.maxDistance", unit: "mm", keyPath: \.bounceMaxDistance,
            summary: "from where a finger lifted to where it lands again as the same finger"),
        Key(
            name: "palm.minSize", unit: "mm", keyPath: \.palmMinSize,
            summary: "touch major from which a contact is a palm, not a finger (0: never)"),
        Key(
            name: "grip.band", unit: "mm", keyPath: \.gripBand,
            summary: "a contact resting this close to an edge while others move is a grip"),
        Key(name: "edge.band", unit: "mm", keyPath: \.edgeBand, summary: "first touch this close to an edge tags the gesture"),
        Key(
            name: "claim.window", unit: "ms", keyPath: \.claimWindow,
            summary: "claimed touchscreen: the Nth finger of a claimed count lands within this of the first"),
        Key(
            name: "claim.edgeHold", unit: "ms", keyPath: \.claimEdgeHold,
            summary: "claimed touchscreen: the longest a touch in a claimed edge band is held back"),
    ]

    /// Checks each value, then the relations between values; returns a
    /// message per problem. A relation is checked only between values that
    /// are each fine: one out of range is the cause to report, not the
    /// relation it breaks.
    public func problems() -> [String] {
        var out: [String] = []
        var bad: Set<String> = []
        for key in Self.keys {
            let v = self[keyPath: key.keyPath]
            // Upper bounds keep every value convertible to microseconds and sane in mm.
            let limit: Double = key.unit == "ms" ? 3_600_000 : 100_000
            if !v.isFinite || v < 0 {
                out.append("\(key.name) must be a finite number >= 0, not \(v)")
                bad.insert(key.name)
            } else if v > limit {
                out.append("\(key.name) must be at most \(Int(limit)) \(key.unit), not \(v)")
                bad.insert(key.name)
            }
        }
        let fine = { (names: String...) in names.allSatisfy { !bad.contains($0) } }
        if flickDeceleration > 1 {
            out.append("flick.deceleration must be at most 1 (a factor per ms), not \(flickDeceleration)")
        }
        if swipeMaxAngle >= 45 {
            out.append("swipe.maxAngle must be below 45 degrees, or swipes would overlap, not \(swipeMaxAngle)")
        }
        if swipeMaxStray > 1 {
            out.append("swipe.maxStray must be at most 1 (a fraction of the stroke's length), not \(swipeMaxStray)")
        }
        if fine("doubleTap.minInterval", "doubleTap.maxInterval") && doubleTapMinInterval > doubleTapMaxInterval {
            out.append(
                "doubleTap.minInterval (\(doubleTapMinInterval)) must not exceed doubleTap.maxInterval (\(doubleTapMaxInterval))")
        }
        if fine("velocity.window") && velocityWindow <= 0 { out.append("velocity.window must be above 0") }
        if fine("tap.maxRoll", "slop") && tapMaxRoll < slop {
            out.append("tap.maxRoll (\(tapMaxRoll)) must not be below slop (\(slop))")
        }
        return out
    }
}

/// Thresholds converted to the engine's units (µs, mm, radians), computed once per device.
struct ResolvedThresholds: Sendable {
    var slop: Double
    var slopSquared: Double
    var settle: Duration
    var tapMaxDuration: Duration
    var tapMaxRoll: Double
    var tapRollWindow: Duration
    var doubleTapMaxInterval: Duration
    var doubleTapMinInterval: Duration
    var doubleTapMaxDistance: Double
    var holdMinDuration: Duration
    var holdMaxCreep: Double
    /// How soon a hold deadline that met a creeping touch looks again.
    var holdRecheck: Duration
    /// The time a touch's trend is measured over at its hold deadline:
    /// three fifths of `hold.minDuration`.
    var holdCreepWindow: Duration
    var velocityWindow: Duration
    var flickMinVelocity: Double
    var flickDeceleration: Double
    var swipeMinDistance: Double
    var swipeMaxDuration: Duration
    /// tan(swipe.maxAngle): the largest |minor| / |major| ratio of a swipe.
    var swipeMaxSlope: Double
    var swipeMaxStray: Double
    var strokeMinLength: Double
    var pinchMinSpanChange: Double
    var edgeBand: Double
    var pinchSwitchRatio: Double
    var dragSwitchTravel: Double
    var bounceMaxInterval: Duration
    var bounceMaxDistance: Double
    /// `palm.minSize`, or infinity when it is 0 (no contact is a palm by size).
    var palmMinSize: Double
    var gripBand: Double
    /// The smallest distance a frame's motion is compared with as it comes
    /// (slop, the roll allowance, the decision distance): below it, the
    /// turn of several fingers need not be measured (`GroupMotion`).
    var smallestDecisionDistance: Double

    init(_ t: GestureThresholds) {
        slop = t.slop
        slopSquared = t.slop * t.slop
        settle = .milliseconds(t.settle)
        tapMaxDuration = .milliseconds(t.tapMaxDuration)
        tapMaxRoll = t.tapMaxRoll
        tapRollWindow = .milliseconds(t.tapRollWindow)
        doubleTapMaxInterval = .milliseconds(t.doubleTapMaxInterval)
        doubleTapMinInterval = .milliseconds(t.doubleTapMinInterval)
        doubleTapMaxDistance = t.doubleTapMaxDistance
        holdMinDuration = .milliseconds(t.holdMinDuration)
        holdMaxCreep = t.holdMaxCreep
        holdRecheck = .milliseconds(max(t.holdMinDuration / 5, 1))
        holdCreepWindow = .milliseconds(max(t.holdMinDuration * 0.6, 10))
        velocityWindow = .milliseconds(t.velocityWindow)
        flickMinVelocity = t.flickMinVelocity
        flickDeceleration = t.flickDeceleration
        swipeMinDistance = t.swipeMinDistance
        swipeMaxDuration = .milliseconds(t.swipeMaxDuration)
        swipeMaxSlope = Self.tangent(degrees: t.swipeMaxAngle)
        swipeMaxStray = t.swipeMaxStray
        strokeMinLength = t.strokeMinLength
        pinchMinSpanChange = t.pinchMinSpanChange
        edgeBand = t.edgeBand
        pinchSwitchRatio = t.pinchSwitchRatio
        dragSwitchTravel = t.dragSwitchTravel
        bounceMaxInterval = .milliseconds(t.bounceMaxInterval)
        bounceMaxDistance = t.bounceMaxDistance
        palmMinSize = t.palmMinSize > 0 ? t.palmMinSize : .infinity
        gripBand = t.gripBand
        smallestDecisionDistance = min(t.slop, t.tapMaxRoll, t.pinchMinSpanChange)
    }

    /// tan() of an angle below 90 degrees, as sin/cos from libm (`Trig`).
    static func tangent(degrees: Double) -> Double {
        let r = degrees * .pi / 180
        return Trig.sin(r) / Trig.cos(r)
    }
}
