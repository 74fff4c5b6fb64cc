/// The gestures of Apple's Human Interface Guidelines that gestured
/// recognizes, with rotate, and the triple tap and the stroke (only for
/// those who ask: `GestureKindSet.standard`).
public enum GestureKind: String, Sendable, Hashable, CaseIterable, Codable {
    case tap
    case doubleTap = "double-tap"
    case tripleTap = "triple-tap"
    case touchAndHold = "touch-and-hold"
    case drag
    case flick
    case swipe
    case pinch
    case rotate
    case stroke

    /// The kind's place in `allCases`: its bit in a `GestureKindSet`.
    var bit: UInt16 {
        switch self {
        case .tap: 0
        case .doubleTap: 1
        case .touchAndHold: 2
        case .drag: 3
        case .flick: 4
        case .swipe: 5
        case .pinch: 6
        case .rotate: 7
        case .tripleTap: 8
        case .stroke: 9
        }
    }

    /// The kind of `count` taps in a row (1 to 3).
    static func taps(_ count: Int) -> GestureKind {
        switch count {
        case 1: .tap
        case 2: .doubleTap
        default: .tripleTap
        }
    }

    /// The name in JSON (`rawValue`, without building a `String`).
    var jsonName: StaticString {
        switch self {
        case .tap: "tap"
        case .doubleTap: "double-tap"
        case .tripleTap: "triple-tap"
        case .touchAndHold: "touch-and-hold"
        case .drag: "drag"
        case .flick: "flick"
        case .swipe: "swipe"
        case .pinch: "pinch"
        case .rotate: "rotate"
        case .stroke: "stroke"
        }
    }

    /// Discrete gestures are reported once (`recognized`); continuous ones have phases.
    public var isDiscrete: Bool {
        switch self {
        case .tap, .doubleTap, .tripleTap, .flick, .swipe, .stroke: true
        case .touchAndHold, .drag, .pinch, .rotate: false
        }
    }
}

/// Where a gesture is in its life.
public enum GesturePhase: String, Sendable, Hashable, CaseIterable, Codable {
    case recognized, began, changed, ended, cancelled

    /// The name in JSON (`rawValue`, without building a `String`).
    var jsonName: StaticString {
        switch self {
        case .recognized: "recognized"
        case .began: "began"
        case .changed: "changed"
        case .ended: "ended"
        case .cancelled: "cancelled"
        }
    }

    /// The phase's place in `allCases`: its bit in a `GesturePhaseSet`.
    var bit: UInt8 {
        switch self {
        case .recognized: 0
        case .began: 1
        case .changed: 2
        case .ended: 3
        case .cancelled: 4
        }
    }
}

/// A set of phases, as subscribers and `--phases` choose them (a bit each:
/// checked for every event sent, where a `Set` would hash).
public struct GesturePhaseSet: OptionSet, Sendable, Hashable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ phase: GesturePhase) { self.rawValue = 1 << phase.bit }
    public init(_ phases: some Sequence<GesturePhase>) {
        self.rawValue = 0
        for p in phases { insert(GesturePhaseSet(p)) }
    }
    public static let all = GesturePhaseSet(GesturePhase.allCases)
    public func contains(_ phase: GesturePhase) -> Bool { contains(GesturePhaseSet(phase)) }
    public var phases: [GesturePhase] { GesturePhase.allCases.filter { contains($0) } }
}

/// A direction: 4-way for swipes, 8-way for flicks, open/close for pinches,
/// clockwise/counterclockwise for rotations.
public enum GestureDirection: String, Sendable, Hashable, CaseIterable, Codable {
    case up, down, left, right
    case upLeft = "up-left"
    case upRight = "up-right"
    case downLeft = "down-left"
    case downRight = "down-right"
    case open, close
    case clockwise, counterclockwise

    /// The name in JSON (`rawValue`, without building a `String`).
    var jsonName: StaticString {
        switch self {
        case .up: "up"
        case .down: "down"
        case .left: "left"
        case .right: "right"
        case .upLeft: "up-left"
        case .upRight: "up-right"
        case .downLeft: "down-left"
        case .downRight: "down-right"
        case .open: "open"
        case .close: "close"
        case .clockwise: "clockwise"
        case .counterclockwise: "counterclockwise"
        }
    }

    /// The 4-way direction of a vector in screen terms (y grows downwards).
    static func axis(dx: Double, dy: Double) -> GestureDirection { Axis(dx: dx, dy: dy).direction }

    /// One of the four directions along the panel's axes.
    enum Axis: Sendable {
        case right, left, down, up

        /// The axis a vector lies nearest (x before y when as near).
        init(dx: Double, dy: Double) {
            if abs(dx) >= abs(dy) {
                self = dx >= 0 ? .right : .left
            } else {
                self = dy >= 0 ? .down : .up
            }
        }

        var direction: GestureDirection {
            switch self {
            case .right: .right
            case .left: .left
            case .down: .down
            case .up: .up
            }
        }
    }

    /// The 8-way direction of a vector: 45-degree sectors centred on each axis and diagonal.
    static func octant(dx: Double, dy: Double) -> GestureDirection {
        // tan(22.5°): beyond this slope the minor axis counts.
        let t = 0.41421356237309503
        let ax = abs(dx)
        let ay = abs(dy)
        if ay <= ax * t { return dx >= 0 ? .right : .left }
        if ax <= ay * t { return dy >= 0 ? .down : .up }
        switch (dx >= 0, dy >= 0) {
        case (true, true): return .downRight
        case (true, false): return .upRight
        case (false, true): return .downLeft
        case (false, false): return .upLeft
        }
    }
}

/// The panel edge a gesture started at.
public enum PanelEdge: String, Sendable, Hashable, CaseIterable, Codable {
    case left, right, top, bottom

    /// The name in JSON (`rawValue`, without building a `String`).
    var jsonName: StaticString {
        switch self {
        case .left: "left"
        case .right: "right"
        case .top: "top"
        case .bottom: "bottom"
        }
    }

    /// The edge of a `width` x `height` picture (mm) whose band `band` mm
    /// wide holds (x, y), among `edges`: the nearest, and of two as near
    /// (a corner), the later of left, right, top, bottom. The one rule for
    /// where a touch starts: the arbiter's `edge`, and the claimer's edge
    /// bands.
    public static func at(
        x: Double, y: Double, width: Double, height: Double, band: Double, among edges: Set<PanelEdge>? = nil
    ) -> PanelEdge? {
        var best: PanelEdge?
        var bestDistance = band
        func consider(_ edge: PanelEdge, _ d: Double) {
            if d <= bestDistance && (edges?.contains(edge) ?? true) {
                best = edge
                bestDistance = d
            }
        }
        consider(.left, x)
        consider(.right, width - x)
        consider(.top, y)
        consider(.bottom, height - y)
        return best
    }
}

/// One gesture event: the object of docs/gestures.md's "Events" section.
///
/// A plain value (no reference inside): the device is named by its id, and
/// its name is written where the event is (`encodeJSON(into:deviceName:)`),
/// so an event is copied as bytes on its way from the recognizer to the
/// subscribers.
public struct GestureEvent: Sendable, Hashable {
    public var gesture: GestureKind
    public var phase: GesturePhase
    /// The same for every phase of one gesture.
    public var id: UInt64
    /// Device time of the frame or timer deadline that caused the event.
    public var time: Timestamp
    public var device: DeviceID
    public var fingers: Int
    /// Centroid on the panel, mm.
    public var x: Double
    public var y: Double
    /// Centroid as 0...1 of the panel.
    public var nx: Double
    public var ny: Double
    public var edge: PanelEdge?
    public var direction: GestureDirection?
    /// Net travel: along the axis for swipes, straight-line for drags and flicks (mm).
    public var distance: Double?
    /// Translation since the first touch (drag, flick, swipe) or since `began` (hold), mm.
    public var dx: Double?
    public var dy: Double?
    /// Velocity, mm/s (drag: current estimate; ended, flick, swipe: release velocity).
    public var vx: Double?
    public var vy: Double?
    /// Pinch and rotate: current span / span where the fingers landed.
    public var scale: Double?
    /// Pinch and rotate: rotation since the fingers landed, radians, clockwise positive on screen.
    public var rotation: Double?
    /// Flick: the deceleration hint per ms.
    public var deceleration: Double?
    /// Tap and double tap: how many taps.
    public var taps: Int?
    /// Time since the gesture's first touch, ms (continuous gestures' `ended` and `cancelled`).
    public var duration: Double?
    /// Touch-and-hold: the longest of the times subscribers wait for
    /// (`hold_ms`) that the hold has now lasted still, ms; only on the
    /// `began` or `changed` that reaches it.
    public var heldMs: Int?
    /// Stroke: where the centroid went from where the group landed (`StrokePath`).
    public var path: StrokePath?
    /// Which subscribers a tap or double tap is for, when they want different
    /// numbers of taps in a row (see `GesturePipeline.setWanted`); not part of the JSON.
    package var timing: TapTiming = .every

    public init(
        gesture: GestureKind, phase: GesturePhase, id: UInt64, time: Timestamp, device: DeviceID,
        fingers: Int, x: Double, y: Double, nx: Double, ny: Double, edge: PanelEdge?
    ) {
        self.gesture = gesture
        self.phase = phase
        self.id = id
        self.time = time
        self.device = device
        self.fingers = fingers
        self.x = x
        self.y = y
        self.nx = nx
        self.ny = ny
        self.edge = edge
    }
}

/// Which subscribers an event is for, by the most taps in a row each wants
/// (`maxTaps`: 1 without double taps, 2 with them, 3 with triple taps).
package enum TapTiming: Sendable, Hashable {
    /// Everyone who wants this kind (every event but the taps below).
    case every
    /// A tap reported at its lift, for subscribers that do not want double taps.
    case immediate
    /// A tap reported once the double-tap interval passed, for subscribers that want double (or triple) taps.
    case confirmed
    /// At the lift, for subscribers that want double taps and not triple
    /// taps: a double tap at its second lift, a triple tap's third tap.
    case immediateForDoubles
    /// A double tap reported once the interval passed with no third tap, for subscribers that want triple taps.
    case confirmedForTriples

    /// Whether a subscriber that wants at most `maxTaps` taps in a row gets it.
    package func isFor(maxTaps: Int) -> Bool {
        switch self {
        case .every: true
        case .immediate: maxTaps == 1
        case .confirmed: maxTaps >= 2
        case .immediateForDoubles: maxTaps == 2
        case .confirmedForTriples: maxTaps == 3
        }
    }
}

/// Where a replay (`TraceReplay.run`) delivers events: `[GestureEvent]` is
/// one, `gestured replay`'s printer another. The pipeline itself appends to
/// a `GestureEvents`; `receive(contentsOf:)` hands those on.
public protocol GestureSink {
    mutating func receive(_ event: GestureEvent)
}

extension GestureSink {
    /// Hands on every event of `events`, in order (what the pipeline made
    /// into a `GestureEvents`, for any other sink).
    public mutating func receive(contentsOf events: GestureEvents) {
        for i in events.indices { receive(events[i]) }
    }
}

extension Array: GestureSink where Element == GestureEvent {
    public mutating func receive(_ event: GestureEvent) { append(event) }
}

extension ReusedList: GestureSink where Element == GestureEvent {
    public mutating func receive(_ event: GestureEvent) { append(event) }
}
