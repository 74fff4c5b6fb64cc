/// A finger's recent positions, for the least-squares velocity fit.
///
/// Fixed storage of the last 64 samples (enough for a 100 ms window at 500 Hz);
/// adding a sample never allocates.
struct VelocityHistory: Sendable {
    static let capacity = 64
    /// A finger whose last reported position is older than this is at rest:
    /// evdev reports nothing while a finger is still (Android: 40 ms).
    static let restGap = Duration(microseconds: 40_000)

    private var t: InlineArray<64, Int64> = .init(repeating: 0)
    private var x: InlineArray<64, Double> = .init(repeating: 0)
    private var y: InlineArray<64, Double> = .init(repeating: 0)
    private var head = 0  // index of the next write
    private(set) var count = 0

    mutating func removeAll() {
        head = 0
        count = 0
    }

    mutating func add(time: Timestamp, x px: Double, y py: Double) {
        t[head] = time.microseconds
        x[head] = px
        y[head] = py
        head = (head + 1) & (Self.capacity - 1)
        if count < Self.capacity { count += 1 }
    }

    /// The time of the newest sample, if any.
    var lastTime: Timestamp? {
        count == 0 ? nil : Timestamp(microseconds: t.span[(head - 1) & (Self.capacity - 1)])
    }

    /// Least-squares slope (mm/s) of the samples within `window` before `now`.
    ///
    /// Zero when the finger is at rest (no sample within `restGap` of `now`)
    /// or when fewer than two samples fall in the window.
    /// Samples are read through `span`: an `InlineArray` subscript read here
    /// copied the whole array.
    func velocity(at now: Timestamp, window: Duration) -> (vx: Double, vy: Double) {
        guard let last = lastTime, now - last <= Self.restGap else { return (0, 0) }
        let start = now.microseconds - window.microseconds
        let ts = t.span
        let xs = x.span
        let ys = y.span
        // Two passes over at most 64 samples: means, then the slope.
        var n = 0.0
        var st = 0.0
        var sx = 0.0
        var sy = 0.0
        var i = 0
        while i < count {
            let k = (head - 1 - i) & (Self.capacity - 1)
            if ts[k] < start { break }
            if ts[k] <= now.microseconds {
                // Seconds relative to `now` keep the numbers small and exact enough.
                st += Double(ts[k] - now.microseconds) / 1_000_000
                sx += xs[k]
                sy += ys[k]
                n += 1
            }
            i += 1
        }
        guard n >= 2 else { return (0, 0) }
        let mt = st / n
        let mx = sx / n
        let my = sy / n
        var stt = 0.0
        var stx = 0.0
        var sty = 0.0
        i = 0
        while i < count {
            let k = (head - 1 - i) & (Self.capacity - 1)
            if ts[k] < start { break }
            if ts[k] <= now.microseconds {
                let dt = Double(ts[k] - now.microseconds) / 1_000_000 - mt
                stt += dt * dt
                stx += dt * (xs[k] - mx)
                sty += dt * (ys[k] - my)
            }
            i += 1
        }
        guard stt > 0 else { return (0, 0) }
        return (stx / stt, sty / stt)
    }
}
