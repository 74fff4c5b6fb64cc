/// **Stroke** (discrete, `recognized`, only for those who name it): at the
/// lift that ends a drag, or a hold whose finger then moved (touch, wait,
/// draw), whose path is at least `stroke.minLength` long, the path the
/// group's centroid drew from where it landed, for a client to tell which
/// shape it is (`StrokeShapes`; the daemon does it for a subscriber that
/// sent its shapes). It comes after the drag's or hold's `ended` and the
/// flick and swipe a drag may also be: a stroke is what the path looked
/// like, they are how it moved. A drag that began as another kind (a pinch
/// that became a drag) is no stroke. One drawn after a still hold says
/// how long the hold lasted still, as the hold's own events do (`held_ms`,
/// the longest mark it reached): a binding can ask for touch, wait, draw.
enum Stroke {
    /// The stroke of a group of `fingers` whose translation since its
    /// first touch is (`tx`, `ty`), along `path`.
    static func event(
        id: UInt64, _ base: EventBase, fingers: Int, tx: Double, ty: Double, path: StrokePath
    ) -> GestureEvent {
        var e = base.event(.stroke, .recognized, id: id, fingers: fingers)
        e.dx = tx
        e.dy = ty
        e.path = path
        return e
    }
}

/// The path of a stroke: where the group's centroid went from where it
/// landed, mm (screen terms, y down), as at most `capacity` points in order,
/// each to 0.1 mm (what the event's JSON says) within ±3.2 m. A fixed-size
/// plain value of 129 bytes, so that an event carrying one is still copied
/// as bytes.
public struct StrokePath: Sendable, Hashable {
    /// The most points a path keeps.
    public static let capacity = 32
    /// Tenths of a millimetre.
    private var storage = InlineArray<32, SIMD2<Int16>>(repeating: .zero)
    private var used: UInt8 = 0
    /// How many of `capacity` are the path's.
    public var count: Int { Int(used) }

    public init() {}

    /// The path through `points` (mm); beyond `capacity`, evenly chosen
    /// ones of them, the first and the last always.
    public init(_ points: some Collection<SIMD2<Double>>) {
        let all = Array(points)
        guard !all.isEmpty else { return }
        let n = min(all.count, Self.capacity)
        for k in 0..<n {
            let i = n == 1 ? 0 : k * (all.count - 1) / (n - 1)
            storage[k] = SIMD2(Self.tenths(all[i].x), Self.tenths(all[i].y))
        }
        used = UInt8(n)
    }

    /// `mm` in tenths, rounded, within what an `Int16` holds (0 for what is not a number).
    private static func tenths(_ mm: Double) -> Int16 {
        guard mm.isFinite else { return 0 }
        return Int16((mm * 10).rounded().clamped(to: Double(Int16.min)...Double(Int16.max)))
    }

    /// The path's `i`th point, mm.
    public subscript(i: Int) -> SIMD2<Double> {
        precondition(i >= 0 && i < count, "a point beyond the path")
        return SIMD2<Double>(Double(storage[i].x) / 10, Double(storage[i].y) / 10)
    }

    /// The path's points, mm.
    public var points: [SIMD2<Double>] { (0..<count).map { self[$0] } }

    /// The length of the polyline through the points, mm.
    public var length: Double {
        var total = 0.0
        for i in stride(from: 1, to: count, by: 1) {
            let (a, b) = (self[i - 1], self[i])
            total += Trig.hypot(b.x - a.x, b.y - a.y)
        }
        return total
    }

    public static func == (a: StrokePath, b: StrokePath) -> Bool {
        guard a.count == b.count else { return false }
        for i in 0..<a.count where a.storage[i] != b.storage[i] { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for i in 0..<count { hasher.combine(storage[i]) }
    }
}

extension Comparable {
    fileprivate func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
