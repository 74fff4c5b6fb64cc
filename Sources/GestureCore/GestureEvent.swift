/// The gestures of Apple's Human Interface Guidelines that gestured recognizes.
public enum GestureKind: String, Sendable, Hashable, CaseIterable, Codable {
    case tap
    case doubleTap = "double-tap"
    case touchAndHold = "touch-and-hold"
    case drag
    case flick
    case swipe
    case pinch
    case rotate

    /// Discrete gestures are reported once (`recognized`); continuous ones have phases.
    public var isDiscrete: Bool {
        switch self {
        case .tap, .doubleTap, .flick, .swipe: true
        case .touchAndHold, .drag, .pinch, .rotate: false
        }
    }
}

/// Where a gesture is in its life.
public enum GesturePhase: String, Sendable, Hashable, CaseIterable, Codable {
    case recognized, began, changed, ended, cancelled
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

    /// The 4-way direction of a vector in screen terms (y grows downwards).
    static func axis(dx: Double, dy: Double) -> GestureDirection {
        if abs(dx) >= abs(dy) { return dx >= 0 ? .right : .left }
        return dy >= 0 ? .down : .up
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
}

/// One gesture event: the object of docs/gestures.md's "Events" section.
public struct GestureEvent: Sendable, Hashable {
    public var gesture: GestureKind
    public var phase: GesturePhase
    /// The same for every phase of one gesture.
    public var id: UInt64
    /// Device time of the frame or timer deadline that caused the event.
    public var time: Timestamp
    public var device: DeviceID
    public var deviceName: String
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
    /// Which subscribers a tap is for when some want double taps and some do not
    /// (see `GesturePipeline.setWanted(_:immediateTaps:)`); not part of the JSON.
    package var timing: TapTiming = .every

    public init(
        gesture: GestureKind, phase: GesturePhase, id: UInt64, time: Timestamp, device: DeviceID,
        deviceName: String, fingers: Int, x: Double, y: Double, nx: Double, ny: Double, edge: PanelEdge?
    ) {
        self.gesture = gesture
        self.phase = phase
        self.id = id
        self.time = time
        self.device = device
        self.deviceName = deviceName
        self.fingers = fingers
        self.x = x
        self.y = y
        self.nx = nx
        self.ny = ny
        self.edge = edge
    }
}

/// Which subscribers an event is for.
package enum TapTiming: Sendable, Hashable {
    /// Everyone who wants this kind (every event but the two kinds of tap below).
    case every
    /// A tap reported at its lift, for subscribers that do not want double taps.
    case immediate
    /// A tap reported once the double-tap interval passed, for subscribers that want double taps.
    case confirmed
}

/// Where the pipeline delivers events. `[GestureEvent]` is one; the daemon's
/// fan-out and replay's printer are others.
public protocol GestureSink {
    mutating func receive(_ event: GestureEvent)
}

extension Array: GestureSink where Element == GestureEvent {
    public mutating func receive(_ event: GestureEvent) { append(event) }
}
