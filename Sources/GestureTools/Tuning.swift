public import GestureCore

#if canImport(Glibc)
    import Glibc
#endif

/// The tuning report of `gestured tune`: a user's own recordings, each
/// labelled with the gesture they meant, replayed; what was recognized; how
/// close each gesture came to the thresholds that decide it; and thresholds
/// that separate them better.
public enum Tuning {
    /// The gesture a recording's name or folder says was meant: the longest
    /// gesture name it starts with ("swipe-left-3.evemu", "taps/1.evemu"),
    /// "hold" standing for touch-and-hold.
    public static func intent(of name: String) -> GestureKind? {
        let n = String(name.lowercased().map { $0 == "_" ? "-" : $0 })
        let names: [(String, GestureKind)] = [
            ("touch-and-hold", .touchAndHold), ("double-tap", .doubleTap), ("doubletap", .doubleTap),
            ("hold", .touchAndHold), ("tap", .tap), ("drag", .drag), ("flick", .flick), ("swipe", .swipe),
            ("pinch", .pinch), ("rotate", .rotate), ("rotation", .rotate), ("twist", .rotate),
        ]
        return names.first { n.hasPrefix($0.0) }?.1
    }

    /// One finger from landing to lifting, in ms and mm.
    struct Track {
        var points: [(t: Double, x: Double, y: Double)]
        var down: Double { points.first!.t }
        var up: Double { points.last!.t }
        var travel: Double {
            let (x0, y0) = (points.first!.x, points.first!.y)
            return points.map { hypot($0.x - x0, $0.y - y0) }.max() ?? 0
        }
    }

    /// Fingers from the first landing until none is down.
    struct Group {
        var tracks: [Track]
        var start: Double { tracks.map(\.down).min()! }
        var end: Double { tracks.map(\.up).max()! }
    }

    /// The touch groups of a replay's frames, times in ms from the trace's start.
    static func groups(_ frames: [TouchFrame]) -> [Group] {
        guard let t0 = frames.first?.time.microseconds else { return [] }
        var open: [Int: Track] = [:]
        var current: [Track] = []
        var out: [Group] = []
        for frame in frames {
            let t = Double(frame.time.microseconds - t0) / 1000
            for c in frame.contacts {
                switch c.phase {
                case .down: open[c.slot] = Track(points: [(t, c.x, c.y)])
                case .move: open[c.slot]?.points.append((t, c.x, c.y))
                case .up, .cancel:
                    guard var track = open.removeValue(forKey: c.slot) else { continue }
                    track.points.append((t, c.x, c.y))
                    current.append(track)
                }
            }
            if open.isEmpty && !current.isEmpty {
                out.append(Group(tracks: current))
                current = []
            }
        }
        current += open.values
        if !current.isEmpty { out.append(Group(tracks: current)) }
        return out
    }

    /// The quantities the thresholds are compared with, for one performance.
    public struct Measures: Sendable {
        /// Longest single contact, ms.
        public var contact = 0.0
        /// From the first landing until a finger moved more than `slop` (or all lifted), ms.
        public var still = 0.0
        /// Farthest any finger got from where it landed, mm.
        public var travel = 0.0
        /// Farthest any finger was, when it lifted, from where it landed, mm (a rolling tap comes back).
        public var liftOffset = 0.0
        /// Farthest any finger got from where it landed within `hold.minDuration`, mm (holds).
        public var earlyTravel = 0.0
        /// Release speed, mm/s: the engine's own (a drag's end), else the farthest-travelling
        /// finger's over the last `velocity.window` before its lift.
        public var release = 0.0
        /// First landing to last lift, ms.
        public var duration = 0.0
        /// Net movement along its larger axis, mm, and its angle off that axis, degrees: the
        /// engine's own translation when a drag ended, else the fingers' mean movement.
        public var axisTravel = 0.0
        public var angle = 0.0
        /// Change of the fingers' mean distance from their centroid, mm (two or more fingers).
        public var spanChange: Double?
        /// The fingers' travel along the circle about their centroid (their turn times their span), mm.
        public var turn: Double?
        /// Double taps: last lift of the first tap to first landing of the second (ms), and the distance between them (mm).
        public var gap: Double?
        public var gapDistance: Double?
        public var fingers = 0
        /// First to last landing of a multi-finger gesture, ms.
        public var landingSpread: Double?
    }

    static func measure(_ group: Group, thresholds: GestureThresholds) -> Measures {
        var m = Measures()
        m.fingers = group.tracks.count
        m.contact = group.tracks.map { $0.up - $0.down }.max() ?? 0
        if group.tracks.count >= 2 { m.landingSpread = group.tracks.map(\.down).max()! - group.start }
        m.duration = group.end - group.start
        m.travel = group.tracks.map(\.travel).max() ?? 0
        m.liftOffset =
            group.tracks.map { hypot($0.points.last!.x - $0.points[0].x, $0.points.last!.y - $0.points[0].y) }.max() ?? 0
        var still = group.end
        for track in group.tracks {
            let (x0, y0) = (track.points[0].x, track.points[0].y)
            if let moved = track.points.first(where: { hypot($0.x - x0, $0.y - y0) > thresholds.slop }) {
                still = min(still, moved.t)
            }
        }
        m.still = still - group.start
        let holdEnd = group.start + thresholds.holdMinDuration
        m.earlyTravel =
            group.tracks.map { track in
                let (x0, y0) = (track.points[0].x, track.points[0].y)
                return track.points.filter { $0.t <= holdEnd }.map { hypot($0.x - x0, $0.y - y0) }.max() ?? 0
            }.max() ?? 0
        if let fastest = group.tracks.max(by: { $0.travel < $1.travel }), let last = fastest.points.last {
            let from = fastest.points.last { $0.t <= last.t - thresholds.velocityWindow } ?? fastest.points[0]
            let dt = (last.t - from.t) / 1000
            m.release = dt > 0 ? hypot(last.x - from.x, last.y - from.y) / dt : 0
        }
        let n = Double(group.tracks.count)
        let dx = group.tracks.map { $0.points.last!.x - $0.points[0].x }.reduce(0, +) / n
        let dy = group.tracks.map { $0.points.last!.y - $0.points[0].y }.reduce(0, +) / n
        m.axisTravel = max(abs(dx), abs(dy))
        m.angle = m.axisTravel > 0 ? atan2(min(abs(dx), abs(dy)), m.axisTravel) * 180 / .pi : 0
        if group.tracks.count >= 2 {
            // Span when the last finger has landed, and just before the first lifts.
            let allDown = group.tracks.map(\.down).max()!
            let firstUp = group.tracks.map(\.up).min()!
            func span(at t: Double) -> Double {
                let pts = group.tracks.map { tr in tr.points.last { $0.t <= t } ?? tr.points[0] }
                let cx = pts.map(\.x).reduce(0, +) / n
                let cy = pts.map(\.y).reduce(0, +) / n
                return pts.map { hypot($0.x - cx, $0.y - cy) }.reduce(0, +) / n
            }
            m.spanChange = abs(span(at: firstUp - 0.001) - span(at: allDown))
            // The turn, each finger's weighted by its distance from the centroid.
            func points(at t: Double) -> [(x: Double, y: Double)] {
                group.tracks.map { tr in
                    let p = tr.points.last { $0.t <= t } ?? tr.points[0]
                    return (p.x, p.y)
                }
            }
            let (a, b) = (points(at: allDown), points(at: firstUp - 0.001))
            let (ax, ay) = (a.map(\.x).reduce(0, +) / n, a.map(\.y).reduce(0, +) / n)
            let (bx, by) = (b.map(\.x).reduce(0, +) / n, b.map(\.y).reduce(0, +) / n)
            var turn = 0.0
            var weight = 0.0
            for (p, q) in zip(a, b) {
                let w = min(hypot(p.x - ax, p.y - ay), hypot(q.x - bx, q.y - by))
                var d = atan2(q.y - by, q.x - bx) - atan2(p.y - ay, p.x - ax)
                if d > .pi { d -= 2 * .pi } else if d < -.pi { d += 2 * .pi }
                turn += w * d
                weight += w
            }
            m.turn = weight > 0 ? abs(turn / weight) * (span(at: allDown) + span(at: firstUp - 0.001)) / 2 : 0
        }
        return m
    }

    /// One gesture a user performed.
    public struct Performance: Sendable {
        public var file: String
        public var intent: GestureKind
        /// What gestured recognized (finished, not cancelled) for it.
        public var recognized: Set<GestureKind>
        public var measures: Measures
        public var start: Double
        /// Where it is: "FILE at 2.1 s".
        public var origin: String { "\(file) at \(NumberText.fixed(start / 1000, 1)) s" }
        /// The thresholds that alone kept it from being another gesture
        /// (`Side.rival`): only for those is it evidence.
        public var decisive: Set<String> = []

        /// What it counts as: the intent when that was recognized with nothing
        /// that contradicts it, else the most specific gesture recognized, or nil.
        public var outcome: GestureKind? {
            let contradicts: [GestureKind: Set<GestureKind>] = [
                .drag: [.flick, .swipe, .pinch, .rotate], .tap: [.doubleTap], .touchAndHold: [.pinch, .rotate],
            ]
            if recognized.contains(intent) && recognized.isDisjoint(with: contradicts[intent] ?? []) { return intent }
            let order: [GestureKind] = [.doubleTap, .pinch, .rotate, .flick, .swipe, .touchAndHold, .drag, .tap]
            return order.first { recognized.contains($0) && $0 != intent } ?? (recognized.contains(intent) ? intent : nil)
        }
    }

    /// A trace to analyse: its events and frames come from `TraceReplay`.
    public struct Recording {
        public var file: String
        public var intent: GestureKind
        public var trace: Trace
        public var geometry: PanelGeometry
        public init(file: String, intent: GestureKind, trace: Trace, geometry: PanelGeometry) {
            self.file = file
            self.intent = intent
            self.trace = trace
            self.geometry = geometry
        }
    }

    /// Replays `recording` with `thresholds` and splits it into performances:
    /// one per touch group, two for a double tap.
    public static func performances(
        _ recording: Recording, thresholds: GestureThresholds
    ) throws(TraceError)
        -> [Performance]
    {
        let replay = TraceReplay(geometry: recording.geometry, thresholds: thresholds)
        let events = try replay.events(recording.trace).events
        let frames = try replay.frames(recording.trace)
        var groups = groups(frames)
        let t0 = frames.first?.time.microseconds ?? 0
        var merged: [(group: Group, gap: Double?, gapDistance: Double?)] = []
        if recording.intent == .doubleTap {
            while !groups.isEmpty {
                let first = groups.removeFirst()
                guard !groups.isEmpty else {
                    merged.append((first, nil, nil))
                    break
                }
                let second = groups.removeFirst()
                let a = first.tracks.map { $0.points[0] }
                let b = second.tracks.map { $0.points[0] }
                // Between the centroids of where each tap's fingers landed.
                let ax: Double = a.map(\.x).reduce(0, +) / Double(a.count)
                let ay: Double = a.map(\.y).reduce(0, +) / Double(a.count)
                let bx: Double = b.map(\.x).reduce(0, +) / Double(b.count)
                let by: Double = b.map(\.y).reduce(0, +) / Double(b.count)
                let distance = hypot(ax - bx, ay - by)
                // Both taps' touches, with the gap between them.
                merged.append((Group(tracks: first.tracks + second.tracks), second.start - first.end, distance))
            }
        } else {
            merged = groups.map { ($0, nil, nil) }
        }
        let starts = merged.map(\.group.start)
        let (kinds, dragEnds) = attribute(events, starts: starts, t0: t0)
        // Replayed again with each threshold that separates this gesture from
        // a rival moved out of the way: where the rival then appears, that
        // threshold alone decided.
        var decisive = [Set<String>](repeating: [], count: merged.count)
        for rule in rules {
            for side in rule.below + rule.above where side.kind == recording.intent {
                guard let rival = side.rival else { continue }
                var moved = thresholds
                moved[keyPath: key(rule.key).keyPath] = rival.value
                let again = TraceReplay(geometry: recording.geometry, thresholds: moved)
                let otherwise = attribute(try again.events(recording.trace).events, starts: starts, t0: t0).kinds
                for i in merged.indices where !otherwise[i].isDisjoint(with: rival.kinds) { decisive[i].insert(rule.key) }
            }
        }
        var out: [Performance] = []
        for (i, entry) in merged.enumerated() {
            var m = measure(entry.group, thresholds: thresholds)
            m.gap = entry.gap
            m.gapDistance = entry.gapDistance
            // A drag's end carries what the engine itself measured: the release
            // velocity that decides a flick, and the translation that decides a swipe.
            if let end = dragEnds[i], let vx = end.vx, let vy = end.vy, let dx = end.dx, let dy = end.dy {
                m.release = hypot(vx, vy)
                m.axisTravel = max(abs(dx), abs(dy))
                m.angle = m.axisTravel > 0 ? atan2(min(abs(dx), abs(dy)), m.axisTravel) * 180 / .pi : 0
            }
            out.append(
                Performance(
                    file: recording.file, intent: recording.intent, recognized: kinds[i], measures: m,
                    start: entry.group.start, decisive: decisive[i]))
        }
        return out
    }

    /// What was recognized (finished) during each performance, and each one's
    /// drag end: a gesture belongs to the performance under way when its first
    /// event came (`starts`: each performance's start, ms after `t0`).
    static func attribute(
        _ events: [GestureEvent], starts: [Double], t0: Int64
    ) -> (kinds: [Set<GestureKind>], dragEnds: [GestureEvent?]) {
        var owner: [UInt64: Int] = [:]
        var kinds = [Set<GestureKind>](repeating: [], count: starts.count)
        var dragEnds = [GestureEvent?](repeating: nil, count: starts.count)
        for e in events {
            let t = Double(e.time.microseconds - t0) / 1000
            let i = owner[e.id] ?? max(0, (starts.lastIndex { $0 - 1 <= t }) ?? 0)
            owner[e.id] = i
            guard i < kinds.count else { continue }
            if e.phase == .recognized || e.phase == .ended { kinds[i].insert(e.gesture) }
            if e.gesture == .drag && e.phase == .ended { dragEnds[i] = e }
        }
        return (kinds, dragEnds)
    }
}
