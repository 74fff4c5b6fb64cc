/// A set of gesture kinds, as subscribers and `--gestures` choose them.
public struct GestureKindSet: OptionSet, Sendable, Hashable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ kind: GestureKind) { self.rawValue = 1 << kind.bit }
    public init(_ kinds: some Sequence<GestureKind>) {
        self.rawValue = 0
        for k in kinds { insert(GestureKindSet(k)) }
    }
    /// Every kind.
    public static let all = GestureKindSet(GestureKind.allCases)
    /// Every kind but the triple tap and the stroke: what a subscriber that
    /// names no kinds gets. A triple tap is only for one that names it,
    /// since while anyone wants one every double tap waits
    /// `doubleTap.maxInterval` for a third; a stroke, since it repeats a
    /// drag as a path of up to 32 points that only a client matching shapes reads.
    public static let standard = all.subtracting(GestureKindSet([.tripleTap, .stroke]))
    public func contains(_ kind: GestureKind) -> Bool { contains(GestureKindSet(kind)) }
    public var kinds: [GestureKind] { GestureKind.allCases.filter { contains($0) } }
    /// The most taps in a row these kinds ask for: 3 with triple taps, 2 with double taps, else 1.
    public var maxTaps: Int { contains(.tripleTap) ? 3 : contains(.doubleTap) ? 2 : 1 }
}

/// Gesture events in the order they were made: what the pipeline appends
/// to. Its storage is kept when it is emptied.
public typealias GestureEvents = ReusedList<GestureEvent>

/// Turns touch frames from any number of devices into gesture events.
///
/// The daemon and `gestured replay` feed it through the same calls, so a replay
/// test exercises exactly what runs on a device. Timers are driven by
/// `advance(to:)`; a timer due at or before a frame's time fires before that
/// frame is processed.
public struct GesturePipeline: Sendable {
    private var devices: [DeviceRecognizer] = []
    /// The earliest of the devices' deadlines (`.never`: none), asked on every turn of the daemon's loop.
    public private(set) var nextDeadline: Timestamp = .never
    /// The index `index(of:)` found last.
    private var lastIndex = 0
    private var nextID: UInt64 = 0
    /// The latest time seen, frames' and `advance`'s.
    @usableFromInline internal var lastTime: Timestamp = .zero
    /// Kinds that are reported; the rest are recognized but dropped.
    /// Without `doubleTap` (and `tripleTap`), taps are reported at the lift
    /// with no delay; without `tripleTap`, double taps at the second lift.
    public private(set) var wanted: GestureKindSet
    /// With double taps wanted: also report taps at their lift (see `setWanted`).
    public private(set) var immediateTaps = false
    /// With triple taps wanted: also report double taps at their second lift (see `setWanted`).
    public private(set) var immediateDoubleTaps = false
    /// Kinds whose `changed` events are reported; for the other kinds they
    /// are not even made (each takes a velocity fit, an event, its copies).
    public private(set) var wantedChanges: GestureKindSet
    /// How long subscribers wait for a still hold to last, ms, ascending:
    /// each hold reports each as it is reached (`GestureEvent.heldMs`).
    public private(set) var holdMarks: [Int] = []
    public init(wanted: GestureKindSet = .standard, firstID: UInt64 = 1) {
        self.wanted = wanted
        self.wantedChanges = wanted
        self.nextID = firstID &- 1
    }

    /// The id the next gesture will get.
    public var nextGestureID: UInt64 { nextID &+ 1 }

    /// Registers a device; its frames may follow. Its events name it by `id`.
    public mutating func addDevice(_ id: DeviceID, geometry: PanelGeometry, thresholds: GestureThresholds = .defaults) {
        if let i = index(of: id) { devices.remove(at: i) }
        var recognizer = DeviceRecognizer(
            device: id, geometry: geometry, thresholds: thresholds,
            maxTaps: wanted.maxTaps, wanted: wanted)
        recognizer.settings.immediateTaps = immediateTaps
        recognizer.settings.immediateDoubleTaps = immediateDoubleTaps
        recognizer.wantedChanges = wantedChanges
        recognizer.settings.holdMarks = holdMarks.map(Double.init)
        devices.append(recognizer)
        noteDeadlines()
    }

    /// Turns a device's picture (`ScreenTransform`): its next touch, from
    /// the first frame with no finger down, is read in the new orientation;
    /// a gesture under way keeps the one it began in.
    public mutating func setTransform(_ transform: ScreenTransform, for id: DeviceID) {
        guard let i = index(of: id) else { return }
        devices[i].nextTransform = transform
    }

    /// The orientation a device's gestures are read in now (a new one
    /// waits for the fingers to lift).
    public func transform(of id: DeviceID) -> ScreenTransform? {
        devices.first { $0.device == id }?.transform
    }

    /// Removes a device: its continuous gestures end `cancelled`, nothing more is reported for it.
    public mutating func removeDevice(_ id: DeviceID, at time: Timestamp, into events: inout GestureEvents) {
        guard let i = index(of: id) else { return }
        let now = max(time, lastTime)
        advance(to: now, into: &events)
        devices[i].removeAll(now: now, ids: &nextID, into: &events)
        devices.remove(at: i)
        noteDeadlines()
    }

    /// Forgets what a device's fingers were doing, keeping the device: its
    /// continuous gestures end `cancelled`, and its next touch starts
    /// afresh (frames of it were lost on the way).
    public mutating func resetDevice(_ id: DeviceID, at time: Timestamp, into events: inout GestureEvents) {
        guard let i = index(of: id) else { return }
        let now = max(time, lastTime)
        advance(to: now, into: &events)
        devices[i].removeAll(now: now, ids: &nextID, into: &events)
        noteDeadlines()
    }

    /// Sets the times holds report (the union of what subscribers wait
    /// for, 0 to 10000 ms): a touch-and-hold whose fingers stay within
    /// `slop` of where they landed, none lifting, reports each as it is
    /// reached, counted from its last landing, on its `began` (the longest
    /// reached by then) or on a `changed` of its own (docs/gestures.md).
    public mutating func setHoldMarks(_ marks: some Sequence<Int>) {
        let sorted = Set(marks.filter { (0...10_000).contains($0) }).sorted()
        guard sorted != holdMarks else { return }
        holdMarks = sorted
        for i in devices.indices { devices[i].settings.holdMarks = sorted.map(Double.init) }
        noteDeadlines()
    }

    /// Changes which kinds are reported (the union of what subscribers want).
    ///
    /// With double taps among `kinds`, taps are held back until the double-tap
    /// interval has passed. `immediateTaps` asks for each tap at its lift as
    /// well, for subscribers that do not want double taps: the tap at the lift
    /// then has `timing == .immediate` and the held-back one `.confirmed`, and
    /// the daemon sends each only to the subscribers it is for. With triple
    /// taps among `kinds`, double taps are held back the same way, and
    /// `immediateDoubleTaps` asks for each at its second lift as well (and a
    /// triple tap's third tap as a tap), for subscribers that want double
    /// taps and not triple taps (`.immediateForDoubles`; the held-back
    /// double tap is `.confirmedForTriples`).
    ///
    /// `changes` (nil: all of `kinds`) are the kinds whose `changed` events
    /// are wanted: a subscriber that asks only for how gestures end (the
    /// `phases` filter) has them neither made nor sent. Every other phase
    /// is made for every kind in `kinds`, whatever `changes` says.
    public mutating func setWanted(
        _ kinds: GestureKindSet, immediateTaps: Bool = false, immediateDoubleTaps: Bool = false,
        changes: GestureKindSet? = nil
    ) {
        wanted = kinds
        self.immediateTaps = immediateTaps
        self.immediateDoubleTaps = immediateDoubleTaps
        wantedChanges = changes.map { $0.intersection(kinds) } ?? kinds
        for i in devices.indices {
            devices[i].wanted = kinds
            devices[i].wantedChanges = wantedChanges
            devices[i].settings.immediateTaps = immediateTaps
            devices[i].settings.immediateDoubleTaps = immediateDoubleTaps
            devices[i].settings.maxTaps = kinds.maxTaps
        }
        noteDeadlines()
    }

    /// Changes a device's thresholds; a gesture under way keeps its decisions so far.
    public mutating func setThresholds(_ thresholds: GestureThresholds, for id: DeviceID) {
        guard let i = index(of: id) else { return }
        devices[i].settings.t = ResolvedThresholds(thresholds)
        noteDeadlines()
    }

    /// The place of a device in `devices`: where the last one asked for
    /// was (a device's frames come in runs), or searched. (Reading a
    /// property of an element reads it in place: the recognizer, about
    /// 25 KB, is not copied.)
    private mutating func index(of id: DeviceID) -> Int? {
        if lastIndex < devices.count && devices[lastIndex].device == id { return lastIndex }
        for i in devices.indices where devices[i].device == id {
            lastIndex = i
            return i
        }
        return nil
    }

    private mutating func noteDeadlines() {
        var earliest = Timestamp.never
        for i in devices.indices {
            let d = devices[i].nextDeadline
            if d < earliest { earliest = d }
        }
        nextDeadline = earliest
    }

    /// Fires every timer due at or before `time`, across devices in deadline order.
    /// (Inlinable: on most turns of the daemon's loop no timer is due, and
    /// that is all the call finds out.)
    @inlinable public mutating func advance(to time: Timestamp, into events: inout GestureEvents) {
        if nextDeadline <= time { fireTimers(to: time, into: &events) }
        if time > lastTime && time != .never { lastTime = time }
    }

    @usableFromInline mutating func fireTimers(to time: Timestamp, into events: inout GestureEvents) {
        while true {
            var best = -1
            var due = Timestamp.never
            for i in devices.indices {
                let d = devices[i].nextDeadline
                if d < due {
                    due = d
                    best = i
                }
            }
            guard best >= 0, due <= time else { break }
            devices[best].advance(to: due, ids: &nextID, into: &events)
        }
        noteDeadlines()
    }

    /// Processes one frame, reading it where it lies (it stays as it was).
    /// Frames from an unknown device are ignored; a frame older than the
    /// last one is taken as happening at the last time, so output time never
    /// goes backwards. (The daemon passes its frames this way: a frame lent
    /// as `borrowing` is copied whole to be read, as Swift hands a struct of
    /// its size over as a value and a span of its contacts needs it in memory.)
    public mutating func process(_ frame: inout TouchFrame, into events: inout GestureEvents) {
        if frame.time < lastTime {
            var late = frame
            late.time = lastTime
            return process(&late, into: &events)
        }
        advance(to: frame.time, into: &events)
        guard let i = index(of: frame.device) else { return }
        let deadline = devices[i].process(&frame, ids: &nextID, into: &events)
        // One device (the usual case): its deadline is the earliest.
        if devices.count == 1 { nextDeadline = deadline } else { noteDeadlines() }
    }

    /// Fires every pending timer, as if time went on (the end of a trace).
    public mutating func finish(into events: inout GestureEvents) {
        while nextDeadline != .never { advance(to: nextDeadline, into: &events) }
    }

    /// Turns on recording of every state machine transition (tests, `replay --transitions`).
    public mutating func setTracing(_ on: Bool) {
        for i in devices.indices { devices[i].log.tracing = on }
    }

    /// Transitions recorded so far, all devices, and impossible state/event pairs met (bugs).
    public var transitions: [Transition] { devices.flatMap { $0.log.transitions } }
    public var anomalies: [Transition] { devices.flatMap { $0.log.anomalies } }
}
