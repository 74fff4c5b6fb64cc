/// Shapes a person drew, and which of them a stroke is: the $P point-cloud
/// recognizer (Vatavu, Anthony and Wobbrock, "Gestures as Point Clouds: A
/// $P Recognizer for User Interface Prototypes", ICMI 2012), chosen because
/// it needs only a few examples per shape and ignores the order and
/// direction the shape was drawn in (docs/gestures.md, "Strokes", says why
/// not the others).
///
/// A path is resampled to `points` points evenly spaced along its length,
/// scaled so that the larger side of its bounding box is 1 (its proportions
/// kept) and moved so that its centroid is at the origin; for a shape that
/// `rotates`, also turned so that the line from the centroid to its first
/// point lies along +x. Two such clouds are as far apart as the weighted
/// mean distance of the greedy pairing of their points ($P's
/// `GreedyCloudMatch`, from both sides, starting every √n points): 0 for the
/// same cloud, about 0.05 for two drawings of one shape, 0.2 and more for
/// different shapes, in the shape's own size. A stroke is the nearest shape
/// whose `tolerance` its distance is within; otherwise none.
///
/// Scaled by its larger side, a thin cloud is near any other thin one: a
/// drag up and back down is near a tall B. So two things are measured
/// before the distance, in the path's own proportions: a path within
/// `lineStray` of its chord's length of its chord is a line (a drag,
/// straight or gently bowed), which matches only a shape whose examples
/// are lines; and a path less than half as thick as a shape's thinnest
/// example (the spread across its principal axis over the spread along
/// it) is not that shape. A shape whose examples all end near where they
/// began (within `closedGap` of their size) is closed, and a path whose
/// ends are farther apart than `openGap` of its size is not it: a U is
/// three quarters of a circle's cloud, but no circle.
public struct StrokeShapes: Sendable, Hashable {
    /// The points of a normalized cloud.
    public static let points = 32
    /// The distance a shape accepts unless it says otherwise.
    public static let defaultTolerance = 0.1
    /// The farthest a line's points are from its chord, relative to the
    /// chord's length (a swipe's arc strays at most `swipe.maxStray`, 0.2).
    public static let lineStray = 0.25
    /// The farthest apart a closed shape's examples end, relative to their
    /// larger side.
    public static let closedGap = 0.2
    /// The farthest apart a path's ends may be, relative to its larger
    /// side, to be a closed shape (a person's circle ends short or overdrawn
    /// by up to half its size).
    public static let openGap = 0.6

    /// One shape: its name, its examples as normalized clouds.
    public struct Shape: Sendable, Hashable {
        public var name: String
        /// Matched at any rotation (a circle); otherwise as drawn (an L is not a Γ).
        public var rotates: Bool
        /// The largest distance from the nearest example that still matches.
        public var tolerance: Double
        /// The examples, each `StrokeShapes.points` points, normalized.
        public private(set) var examples: [[SIMD2<Double>]]
        /// Every example is a line (`lineStray`): only lines match it.
        public private(set) var isLine: Bool
        /// The thinnest example's thickness: a path less than half as thick is not this shape.
        public private(set) var thickness: Double
        /// Every example ends near where it began (`closedGap`): a path
        /// whose ends are farther apart than `openGap` is not this shape.
        public private(set) var isClosed: Bool

        /// A shape from examples (mm or any unit, each at least two distinct
        /// points); nil when none of them is a path.
        public init?(
            name: String, examples raw: [[SIMD2<Double>]], rotates: Bool = false,
            tolerance: Double = StrokeShapes.defaultTolerance
        ) {
            self.name = name
            self.rotates = rotates
            self.tolerance = tolerance
            let clouds = raw.compactMap { Cloud($0, rotates: rotates) }
            guard let thinnest = clouds.map(\.thickness).min() else { return nil }
            examples = clouds.map(\.points)
            isLine = clouds.allSatisfy(\.isLine)
            thickness = thinnest
            isClosed = clouds.allSatisfy { $0.gap <= StrokeShapes.closedGap }
        }

        /// Whether a path of this form may be this shape at all.
        func admits(_ cloud: Cloud) -> Bool {
            cloud.isLine == isLine && cloud.thickness >= thickness / 2 && (!isClosed || cloud.gap <= StrokeShapes.openGap)
        }
    }

    /// A path resampled, scaled and centred, with what it is measured by
    /// before its distance: whether it is a line, its thickness, and how
    /// far apart its ends are.
    struct Cloud {
        var points: [SIMD2<Double>]
        var isLine: Bool
        var thickness: Double
        /// The distance from its first point to its last, relative to its larger side.
        var gap: Double

        /// nil for fewer than two points or a path of no length.
        init?(_ path: [SIMD2<Double>], rotates: Bool) {
            guard let even = StrokeShapes.resample(path, to: StrokeShapes.points),
                let cloud = StrokeShapes.normalized(even, rotates: rotates)
            else { return nil }
            points = cloud
            isLine = StrokeShapes.stray(even) <= StrokeShapes.lineStray
            thickness = StrokeShapes.thickness(even)
            gap = StrokeShapes.gap(even)
        }
    }

    /// The shape a stroke matched, and how far it was from its nearest example.
    public struct Match: Sendable, Hashable {
        public var name: String
        public var distance: Double
        /// 1 for a stroke on an example, 0 at the shape's tolerance.
        public var score: Double
    }

    public var shapes: [Shape]

    public init(_ shapes: [Shape] = []) { self.shapes = shapes }

    public var isEmpty: Bool { shapes.isEmpty }

    /// The nearest shape within its tolerance of `path`, if any.
    public func match(_ path: [SIMD2<Double>]) -> Match? {
        var best: Match?
        var plain: Cloud?
        var turned: Cloud?
        for shape in shapes {
            let cloud: Cloud?
            if shape.rotates {
                if turned == nil { turned = Cloud(path, rotates: true) }
                cloud = turned
            } else {
                if plain == nil { plain = Cloud(path, rotates: false) }
                cloud = plain
            }
            guard let cloud else { return nil }
            guard shape.admits(cloud) else { continue }
            var d = Double.infinity
            for example in shape.examples {
                d = min(d, Self.distance(cloud.points, example, limit: min(d, shape.tolerance, best?.distance ?? .infinity)))
            }
            if d <= shape.tolerance && d < (best?.distance ?? .infinity) {
                let score = shape.tolerance > 0 ? 1 - d / shape.tolerance : 1
                best = Match(name: shape.name, distance: d, score: score)
            }
        }
        return best
    }

    /// The distance from `path` to the nearest example of `shape`, whatever
    /// its tolerance; infinity when the path's form rules the shape out
    /// (a line, or too thin) or it is no path.
    public static func distance(_ path: [SIMD2<Double>], to shape: Shape) -> Double {
        guard let cloud = Cloud(path, rotates: shape.rotates), shape.admits(cloud) else { return .infinity }
        return shape.examples.map { distance(cloud.points, $0) }.min() ?? .infinity
    }

    // MARK: - Examples as text

    /// An example's points from its text: "x,y" pairs apart by spaces, as
    /// the protocol and shape files write them; nil when the text is not
    /// that, or a number is not finite or beyond 100,000.
    public static func points(_ text: String) -> [SIMD2<Double>]? {
        var out: [SIMD2<Double>] = []
        for pair in text.split(separator: " ", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]),
                abs(x) <= 100_000, abs(y) <= 100_000
            else { return nil }
            out.append(SIMD2(x, y))
        }
        return out
    }

    /// The text of an example's points, to 0.1 (`points(_:)` reads it).
    public static func text(_ points: [SIMD2<Double>]) -> String {
        var s = ""
        for (i, p) in points.enumerated() {
            if i > 0 { s += " " }
            GestureEvent.appendJSONNumber(p.x, scale: 10, to: &s)
            s += ","
            GestureEvent.appendJSONNumber(p.y, scale: 10, to: &s)
        }
        return s
    }

    // MARK: - The form of a path

    /// The farthest point of `even` from the line through its first and
    /// last points, relative to that line's length (infinity for a closed path).
    static func stray(_ even: [SIMD2<Double>]) -> Double {
        let chord = even[even.count - 1] - even[0]
        let span = length(chord)
        guard span > 0 else { return .infinity }
        var most = 0.0
        for p in even {
            let v = p - even[0]
            most = max(most, abs(v.x * chord.y - v.y * chord.x))
        }
        return most / (span * span)
    }

    /// The distance between the first and last points of `even`, relative
    /// to the larger side of its bounding box: 0 for a closed path, 1 to √2
    /// for a straight one.
    static func gap(_ even: [SIMD2<Double>]) -> Double {
        let size = extent(even)
        return size > 0 ? length(even[even.count - 1] - even[0]) / size : 0
    }

    /// The larger side of the bounding box of `points` (at least one).
    static func extent(_ points: [SIMD2<Double>]) -> Double {
        var low = points[0]
        var high = points[0]
        for p in points {
            low = pointwiseMin(low, p)
            high = pointwiseMax(high, p)
        }
        return max(high.x - low.x, high.y - low.y)
    }

    /// The spread of `even` across its principal axis over its spread
    /// along it (the square root of its covariance's eigenvalues' ratio):
    /// 0 for a line, 1 for a circle.
    static func thickness(_ even: [SIMD2<Double>]) -> Double {
        var mean = SIMD2<Double>.zero
        for p in even { mean += p }
        mean /= Double(even.count)
        var (xx, yy, xy) = (0.0, 0.0, 0.0)
        for p in even {
            let d = p - mean
            xx += d.x * d.x
            yy += d.y * d.y
            xy += d.x * d.y
        }
        let half = (xx + yy) / 2
        let root = max(half * half - (xx * yy - xy * xy), 0).squareRoot()
        let (major, minor) = (half + root, max(half - root, 0))
        return major > 0 ? (minor / major).squareRoot() : 0
    }

    // MARK: - $P

    /// `path` resampled, scaled and centred (and turned, if `rotates`); nil
    /// for fewer than two points or a path of no length.
    public static func cloud(_ path: [SIMD2<Double>], rotates: Bool) -> [SIMD2<Double>]? {
        Cloud(path, rotates: rotates)?.points
    }

    /// Evenly resampled points scaled so that the larger side of their
    /// bounding box is 1 and centred (and turned, if `rotates`); nil when
    /// they all lie at one place.
    static func normalized(_ even: [SIMD2<Double>], rotates: Bool) -> [SIMD2<Double>]? {
        var cloud = even
        let size = extent(cloud)
        guard size > 0 else { return nil }
        var centroid = SIMD2<Double>.zero
        for p in cloud { centroid += p }
        centroid /= Double(cloud.count)
        for i in cloud.indices { cloud[i] = (cloud[i] - centroid) / size }
        if rotates {
            let angle = Trig.atan2(cloud[0].y, cloud[0].x)
            let (c, s) = (Trig.cos(-angle), Trig.sin(-angle))
            for i in cloud.indices {
                let p = cloud[i]
                cloud[i] = SIMD2(p.x * c - p.y * s, p.x * s + p.y * c)
            }
        }
        return cloud
    }

    /// `n` points evenly spaced along the polyline through `path`, its first
    /// and last included; nil for fewer than two points or no length.
    static func resample(_ path: [SIMD2<Double>], to n: Int) -> [SIMD2<Double>]? {
        guard path.count >= 2, n >= 2 else { return nil }
        var total = 0.0
        for i in 1..<path.count { total += length(path[i] - path[i - 1]) }
        guard total > 0 else { return nil }
        let step = total / Double(n - 1)
        var out = [path[0]]
        out.reserveCapacity(n)
        var carried = 0.0
        var previous = path[0]
        var i = 1
        while i < path.count && out.count < n {
            let segment = length(path[i] - previous)
            if carried + segment >= step && segment > 0 {
                let t = (step - carried) / segment
                let q = previous + (path[i] - previous) * t
                out.append(q)
                previous = q
                carried = 0
            } else {
                carried += segment
                previous = path[i]
                i += 1
            }
        }
        // Rounding can leave the last point out.
        while out.count < n { out.append(path[path.count - 1]) }
        return out
    }

    /// $P's distance between two normalized clouds of the same size: the
    /// least, over starting points every √n and both directions, of the
    /// weighted greedy pairing; divided by the weights' sum, so that it is
    /// a mean distance in the shape's size. A pairing is abandoned as soon
    /// as it reaches `limit` (the best so far, or a tolerance), and when
    /// every one was the result is infinity: a match costs little more than
    /// its first few pairs for every example that is far.
    public static func distance(_ a: [SIMD2<Double>], _ b: [SIMD2<Double>], limit: Double = .infinity) -> Double {
        guard a.count == b.count, !a.isEmpty, a.count <= 64 else { return .infinity }
        let n = a.count
        let step = max(1, Int(Double(n).squareRoot()))
        let weights = Double(n + 1) / 2
        let bound = limit * weights
        var best = Double.infinity
        for start in stride(from: 0, to: n, by: step) {
            best = min(best, greedy(a, b, start: start, bound: min(best, bound)))
            best = min(best, greedy(b, a, start: start, bound: min(best, bound)))
        }
        return best / weights
    }

    /// Pairs each point of `a`, from `start` on, with the nearest point of
    /// `b` not yet paired; the earlier pairs weigh more (1, then less by
    /// 1/n); infinity once the sum reaches `bound`. At most 64 points: the
    /// points paired are the bits of one word.
    private static func greedy(_ a: [SIMD2<Double>], _ b: [SIMD2<Double>], start: Int, bound: Double) -> Double {
        let n = a.count
        var paired: UInt64 = 0
        var sum = 0.0
        var i = start
        var k = 0
        repeat {
            var nearest = 0
            var least = Double.infinity
            for j in 0..<n where paired & (1 << UInt64(j)) == 0 {
                let d = a[i] - b[j]
                let squared = d.x * d.x + d.y * d.y
                if squared < least {
                    least = squared
                    nearest = j
                }
            }
            paired |= 1 << UInt64(nearest)
            sum += (1 - Double(k) / Double(n)) * least.squareRoot()
            if sum >= bound { return .infinity }
            i = (i + 1) % n
            k += 1
        } while i != start
        return sum
    }

    private static func length(_ v: SIMD2<Double>) -> Double { Trig.hypot(v.x, v.y) }
}
