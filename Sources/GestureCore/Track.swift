/// Following a continuous gesture one to one: how far along it is
/// (`progress`) and, when the fingers lift, whether it goes through
/// (`completed`), so that a drawer, a panel or a workspace can move with the
/// fingers and then snap open or fall back. docs/gestures.md, "Tracked
/// gestures", is the contract.
///
/// The progress is 0 where the fingers landed and 1 at `distance` along
/// `toward`; it goes back when they do, and is clamped to 0...1 (as a swipe
/// between two pages is).
///
/// The decision is libadwaita's and GNOME Shell's swipe tracker's for two
/// snap points, 0 and 1, read in progress units, from the release velocity
/// (a drag's own, else the progress's over the last 150 ms before the
/// lift): slower than `flingSpeed`, the gesture completes when the progress
/// reached `commit`; a fling forward completes it wherever it is; a fling
/// back carries the progress on by the velocity times `projection` (the
/// distance GNOME's deceleration of 0.998 a millisecond leaves a fling) and
/// completes only if that reaches `commit`.
/// Every client that follows the same gesture with the same track gets the
/// same answer: the daemon decides from every frame, before any is left out
/// for a slow reader.
public struct Track: Sendable, Hashable {
    /// Which way the progress grows: a direction on the screen (drags and
    /// holds), the fingers spreading or closing (pinches), or turning
    /// (rotations).
    public enum Toward: String, Sendable, Hashable, CaseIterable {
        case left, right, up, down, open, close, clockwise, counterclockwise

        /// The gestures it measures.
        public var gestures: Set<GestureKind> {
            switch self {
            case .left, .right, .up, .down: [.drag, .touchAndHold]
            case .open, .close: [.pinch]
            case .clockwise, .counterclockwise: [.rotate]
            }
        }

        /// What `distance` is measured in, for messages.
        public var unit: String {
            switch self {
            case .left, .right, .up, .down: "mm"
            case .open, .close: "times the span the fingers landed with"
            case .clockwise, .counterclockwise: "degrees"
            }
        }
    }

    public var toward: Toward
    /// Where the progress is 1: millimetres on the screen (left, right, up,
    /// down), a factor of the fingers' span (open, close: 2 is twice or half
    /// the span), degrees (clockwise, counterclockwise).
    public var distance: Double
    /// The progress a slow lift must have reached to complete.
    public var commit: Double

    /// Slower than this (progress per second), a lift is not a fling.
    public static let flingSpeed = 0.3
    /// How far a fling back carries the progress: its velocity times this, s.
    public static let projection = 0.5
    /// The motion before the lift the velocity is measured over.
    public static let velocityWindow = Timestamp.Duration.milliseconds(150)

    /// Why these numbers cannot make a track, or nil.
    public static func problem(toward: Toward, distance: Double, commit: Double) -> String? {
        switch toward {
        case .open, .close:
            guard distance.isFinite, distance > 1, distance <= 10 else {
                return "a pinch's track distance is a factor of the span from above 1 to 10, e.g. 2"
            }
        case .clockwise, .counterclockwise:
            guard distance.isFinite, distance >= 5, distance <= 360 else {
                return "a rotation's track distance is 5 to 360 degrees"
            }
        default:
            guard distance.isFinite, distance >= 5, distance <= 1000 else {
                return "a drag's track distance is 5 to 1000 mm"
            }
        }
        guard commit.isFinite, commit > 0, commit < 1 else {
            return "commit is the progress a slow lift must reach, above 0 and below 1, e.g. 0.5"
        }
        return nil
    }

    /// A track; nil where `problem` names what is wrong.
    public init?(toward: Toward, distance: Double, commit: Double = 0.5) {
        guard Self.problem(toward: toward, distance: distance, commit: commit) == nil else { return nil }
        self.toward = toward
        self.distance = distance
        self.commit = commit
    }

    /// The progress `event` shows, not clamped; nil for a gesture this
    /// track does not measure.
    public func rawProgress(_ event: borrowing GestureEvent) -> Double? {
        guard toward.gestures.contains(event.gesture) else { return nil }
        switch toward {
        case .right: return (event.dx ?? 0) / distance
        case .left: return -(event.dx ?? 0) / distance
        case .down: return (event.dy ?? 0) / distance
        case .up: return -(event.dy ?? 0) / distance
        case .open, .close:
            let scale = event.scale ?? 1
            guard scale > 0 else { return 0 }
            let p = Trig.log(scale) / Trig.log(distance)
            return toward == .open ? p : -p
        case .clockwise: return (event.rotation ?? 0) * 180 / Double.pi / distance
        case .counterclockwise: return -(event.rotation ?? 0) * 180 / Double.pi / distance
        }
    }

    /// The release velocity `event` carries along the track (drags: the
    /// recognizer's estimate from the last frames), progress per second;
    /// nil where it carries none (pinches, rotations).
    public func releaseVelocity(_ event: borrowing GestureEvent) -> Double? {
        switch toward {
        case .right: return event.vx.map { $0 / distance }
        case .left: return event.vx.map { -$0 / distance }
        case .down: return event.vy.map { $0 / distance }
        case .up: return event.vy.map { -$0 / distance }
        default: return nil
        }
    }

    /// Whether a gesture lifted at `progress` (not clamped) moving at
    /// `velocity` (progress per second) completes.
    public func completes(progress: Double, velocity: Double) -> Bool {
        let p = min(max(progress, 0), 1)
        if abs(velocity) < Self.flingSpeed { return p >= commit }
        if velocity > 0 { return true }
        return min(max(p + velocity * Self.projection, 0), 1) >= commit
    }
}

/// What a track says of one event: its progress, and at the end whether
/// it completed.
public struct TrackReading: Sendable, Hashable {
    /// 0...1.
    public var progress: Double
    /// On `ended` and `cancelled` (always false there) only.
    public var completed: Bool?

    public init(progress: Double, completed: Bool?) {
        self.progress = progress
        self.completed = completed
    }
}

/// A track's readings of the gestures it follows, several at once (one
/// per gesture id), each with the motion of its last 150 ms.
public struct TrackFollower: Sendable {
    public let track: Track
    /// The gestures under way: id, and (time, raw progress) samples, oldest first.
    private var under: [(id: UInt64, samples: [(time: Timestamp, progress: Double)])] = []
    /// At most this many gestures are followed at once; the oldest goes first.
    static let concurrent = 16

    public init(_ track: Track) { self.track = track }

    /// The reading of `event`, or nil for a gesture the track does not
    /// measure or a discrete one. Every event of a gesture must come here,
    /// in order, for its velocity to be right.
    public mutating func read(_ event: borrowing GestureEvent) -> TrackReading? {
        guard !event.gesture.isDiscrete, let raw = track.rawProgress(event) else { return nil }
        let clamped = min(max(raw, 0), 1)
        let id = event.id
        var k = under.firstIndex { $0.id == id }
        if k == nil {
            guard event.phase == .began else { return TrackReading(progress: clamped, completed: nil) }
            if under.count >= Self.concurrent { under.removeFirst() }
            under.append((id, []))
            k = under.count - 1
        }
        let i = k!
        under[i].samples.append((event.time, raw))
        let from = event.time - Track.velocityWindow
        under[i].samples.removeAll { $0.time < from }
        switch event.phase {
        case .ended:
            let s = under[i].samples
            under.remove(at: i)
            var velocity = 0.0
            if let v = track.releaseVelocity(event) {
                velocity = v
            } else if let first = s.first, let last = s.last, last.time > first.time {
                velocity = (last.progress - first.progress) / (last.time - first.time).seconds
            }
            return TrackReading(progress: clamped, completed: track.completes(progress: raw, velocity: velocity))
        case .cancelled:
            under.remove(at: i)
            return TrackReading(progress: clamped, completed: false)
        default:
            return TrackReading(progress: clamped, completed: nil)
        }
    }
}

/// One entry of a subscription's `track` (protocol 1.6): the gestures it
/// follows (those its direction measures, of these finger counts, or any
/// when nil) and how.
public struct TrackRule: Equatable, Sendable {
    public var track: Track
    public var fingers: [Int]?

    public init(_ track: Track, fingers: [Int]?) {
        self.track = track
        self.fingers = fingers
    }

    public func measures(_ event: borrowing GestureEvent) -> Bool {
        guard track.toward.gestures.contains(event.gesture) else { return false }
        guard let fingers else { return true }
        return fingers.contains(event.fingers)
    }
}
