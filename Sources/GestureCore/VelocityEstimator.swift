/// A finger's recent positions (`SampleRing`), and its velocity from them.
///
/// The velocity is the slope, at the newest sample, of a second-degree
/// least-squares fit over the newest samples: at most `maxSamples` (20), none
/// older than the window (`velocity.window`, 100 ms) before the newest, and
/// none before a gap of more than `restGap` (40 ms) between two samples. With
/// two samples it is the straight line between them. This is Android's and
/// Flutter's default estimator (`lsq2`): unlike a straight-line fit it follows
/// a finger that speeds up until it lifts, as real flings do (straight lines
/// reported 40–60 % of the velocity on flings recorded on a Pixel;
/// `VelocityTests` checks the estimator against Android's and Flutter's own
/// expected values).
///
/// A parabola through a finger that decelerates to rest turns back past its
/// vertex, so its slope at the newest sample can point backwards (Android's
/// own tests keep a recording for it: a fling "in the wrong direction"). When
/// the fitted velocity points against the finger's travel over the samples it
/// used, the finger came to rest: its velocity is 0.
///
/// The newest 64 samples, in a ring kept in memory its owner provides (a
/// device's `FingerStorage`: one ring per slot, allocated once): a fit
/// reads the samples where they are, copying nothing (a struct holding
/// them would be copied whole, 1.5 KB, to be read), and adding a sample
/// never allocates.
struct SampleRing: @unchecked Sendable {
    // @unchecked: `samples` belongs to one owner, which copies it before it
    // writes to a copy it shares (`FingerStorage`, like an Array's buffer).
    static let capacity = 64
    /// The most samples one fit uses (Android's and Flutter's history size).
    static let maxSamples = 20
    /// A finger whose last reported position is older than this (µs) is at rest:
    /// evdev reports nothing while a finger is still (Android's and Flutter's 40 ms).
    /// A gap this long between two samples also ends the samples a fit uses.
    static let restGap: Int64 = 40_000

    /// One reported position.
    struct Sample {
        var t: Int64
        var x: Double
        var y: Double
    }

    let samples: UnsafeMutablePointer<Sample>
    private var head = 0  // index of the next write
    private(set) var count = 0

    /// A ring over `capacity` samples at `samples`.
    init(_ samples: UnsafeMutablePointer<Sample>) { self.samples = samples }

    /// The same samples, in a ring over `samples` (a copy of the storage).
    init(_ samples: UnsafeMutablePointer<Sample>, as other: SampleRing) {
        self.samples = samples
        head = other.head
        count = other.count
    }

    mutating func removeAll() {
        head = 0
        count = 0
    }

    mutating func add(time: Timestamp, x px: Double, y py: Double) {
        samples[head] = Sample(t: time.microseconds, x: px, y: py)
        head = (head + 1) & (Self.capacity - 1)
        if count < Self.capacity { count += 1 }
    }

    /// The finger's trend (mm/s): the slope of a straight-line
    /// least-squares fit of its positions over the samples no older than
    /// `window` before `now` (as many as the ring keeps). A finger that
    /// wobbles in place has little trend however far it strays; one that
    /// creeps has its speed. Zero with fewer than three samples.
    func trend(at now: Timestamp, window: Duration) -> (vx: Double, vy: Double) {
        var n = 0.0
        var st = 0.0
        var stt = 0.0
        var sx = 0.0
        var sy = 0.0
        var stx = 0.0
        var sty = 0.0
        var i = 0
        while i < count {
            let s = samples[(head - 1 - i) & (Self.capacity - 1)]
            i += 1
            if s.t > now.microseconds { continue }
            let t = Double(s.t - now.microseconds) / 1_000_000
            if -t > window.seconds { break }
            n += 1
            st += t
            stt += t * t
            sx += s.x
            sy += s.y
            stx += t * s.x
            sty += t * s.y
        }
        let d = n * stt - st * st
        guard n >= 3, d > 1e-12 else { return (0, 0) }
        return ((n * stx - st * sx) / d, (n * sty - st * sy) / d)
    }

    /// The velocity (mm/s) at the newest sample no later than `now`.
    ///
    /// Zero when the finger is at rest (its newest sample is more than
    /// `restGap` before `now`) or has fewer than two samples to fit.
    func velocity(at now: Timestamp, window: Duration) -> (vx: Double, vy: Double) {
        let ring = samples
        // The newest sample not after `now` anchors the fit (t = 0 there).
        var i = 0
        while i < count && ring[(head - 1 - i) & (Self.capacity - 1)].t > now.microseconds { i += 1 }
        guard i < count else { return (0, 0) }
        let anchor = ring[(head - 1 - i) & (Self.capacity - 1)].t
        guard now.microseconds - anchor <= Self.restGap else { return (0, 0) }
        // Sums of t^k (k = 0...4) and of x t^k, y t^k (k = 0...2), t in
        // milliseconds relative to the anchor.
        var s0 = 0.0
        var s1 = 0.0
        var s2 = 0.0
        var s3 = 0.0
        var s4 = 0.0
        var sx0 = 0.0
        var sx1 = 0.0
        var sx2 = 0.0
        var sy0 = 0.0
        var sy1 = 0.0
        var sy2 = 0.0
        var newer = anchor
        var n = 0
        // The newest and oldest positions used: the finger's travel over the fit.
        let newestX = ring[(head - 1 - i) & (Self.capacity - 1)].x
        let newestY = ring[(head - 1 - i) & (Self.capacity - 1)].y
        var oldestX = newestX
        var oldestY = newestY
        while i < count && n < Self.maxSamples {
            let sample = ring[(head - 1 - i) & (Self.capacity - 1)]
            let tk = sample.t
            if anchor - tk > window.microseconds || newer - tk > Self.restGap { break }
            let s = Double(tk - anchor) / 1000
            let s2k = s * s
            s0 += 1
            s1 += s
            s2 += s2k
            s3 += s2k * s
            s4 += s2k * s2k
            sx0 += sample.x
            sx1 += sample.x * s
            sx2 += sample.x * s2k
            sy0 += sample.y
            sy1 += sample.y * s
            sy2 += sample.y * s2k
            (oldestX, oldestY) = (sample.x, sample.y)
            newer = tk
            n += 1
            i += 1
        }
        guard n >= 2 else { return (0, 0) }
        /// A fitted velocity pointing against the travel: the finger came to rest.
        func settled(_ v: (Double, Double)) -> (vx: Double, vy: Double) {
            v.0 * (newestX - oldestX) + v.1 * (newestY - oldestY) < 0 ? (0, 0) : v
        }
        if n >= 3 {
            // Normal equations of x = b0 + b1 t + b2 t²; b1 by Cramer's rule.
            let det = s0 * (s2 * s4 - s3 * s3) - s1 * (s1 * s4 - s3 * s2) + s2 * (s1 * s3 - s2 * s2)
            // Samples too close in time for a parabola leave det near 0 against its diagonal.
            if det.isFinite && det > 1e-9 * s0 * s2 * s4 {
                func slope(_ a0: Double, _ a1: Double, _ a2: Double) -> Double {
                    1000 * (s0 * (a1 * s4 - s3 * a2) - a0 * (s1 * s4 - s3 * s2) + s2 * (s1 * a2 - a1 * s2)) / det
                }
                let vx = slope(sx0, sx1, sx2)
                let vy = slope(sy0, sy1, sy2)
                if vx.isFinite && vy.isFinite { return settled((vx, vy)) }
            }
        }
        // Two samples, or samples a parabola cannot be fitted through: a straight line.
        let den = s0 * s2 - s1 * s1
        guard den > 1e-9 * s0 * s2 else { return (0, 0) }
        return (1000 * (s0 * sx1 - s1 * sx0) / den, 1000 * (s0 * sy1 - s1 * sy0) / den)
    }
}

/// A finger's velocity estimator with storage of its own, for tests and
/// tools: the recognizer keeps its fingers' samples in `FingerStorage`.
package final class VelocityEstimator {
    private let storage = UnsafeMutablePointer<SampleRing.Sample>.allocate(capacity: SampleRing.capacity)
    private var ring: SampleRing

    package init() { ring = SampleRing(storage) }
    deinit { storage.deallocate() }

    package func add(time: Timestamp, x: Double, y: Double) { ring.add(time: time, x: x, y: y) }
    package func removeAll() { ring.removeAll() }
    package func velocity(at now: Timestamp, window: Duration) -> (vx: Double, vy: Double) {
        ring.velocity(at: now, window: window)
    }
}
