/// **Stroke** (discrete, `recognized`, only for those who name it): at the
/// lift that ends a drag, or a hold whose finger then moved (touch, wait,
/// draw), whose path is at least `stroke.minLength` long, the path the
/// group's centroid drew from where it landed, for a client to tell which
/// shape it is (`StrokeShapes`; the daemon does it for a subscriber that
/// sent its shapes). It comes after the drag's or hold's `ended` and the
/// flick and swipe a drag may also be: a stroke is what the path looked
/// like, they are how it moved. A drag that began as another kind (a pinch
/// that became a drag) is no stroke.
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
/// landed, mm (screen terms, y down), as at most `capacity` points in order.
/// A fixed-size plain value, so that an event carrying one is still copied
/// as bytes.
public struct StrokePath: Sendable, Hashable {
    /// The most points a path keeps.
    public static let capacity = 32
    private var storage = InlineArray<32, SIMD2<Float>>(repeating: .zero)
    /// How many of `capacity` are the path's.
    public private(set) var count = 0

    public init() {}

    /// The path through `points` (mm); beyond `capacity`, evenly chosen
    /// ones of them, the first and the last always.
    public init(_ points: some Collection<SIMD2<Double>>) {
        let all = Array(points)
        guard !all.isEmpty else { return }
        let n = min(all.count, Self.capacity)
        for k in 0..<n {
            let i = n == 1 ? 0 : k * (all.count - 1) / (n - 1)
            storage[k] = SIMD2<Float>(Float(all[i].x), Float(all[i].y))
        }
        count = n
    }

    /// The path's `i`th point, mm.
    public subscript(i: Int) -> SIMD2<Double> {
        precondition(i >= 0 && i < count, "a point beyond the path")
        return SIMD2<Double>(Double(storage[i].x), Double(storage[i].y))
    }

    /// The path's points, mm.
    public var points: [SIMD2<Double>] { (0..<count).map { self[$0] } }

    /// The length of the polyline through the points, mm.
    public var length: Double {
        var total = 0.0
        for i in stride(from: 1, to: count, by: 1) {
            let d = storage[i] - storage[i - 1]
            total += Trig.hypot(Double(d.x), Double(d.y))
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
