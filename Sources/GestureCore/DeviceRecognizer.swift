/// Everything gestured recognizes on one device, frame by frame.
///
/// A frame goes forward only. The recognizer turns the frame to the
/// picture's orientation, then routes its contacts: motion first, then
/// lifts, then landings, each to the device's fingers (`Fingers`) and then
/// to the touch group's arbiter (`TouchGroup`), which classifies what the
/// fingers did into one event of its machine and asks the gestures
/// (`Gestures/`) what they make of it. Their events go to `out` (`EventOutput`), which
/// the pipeline hands to its sink. Timers (settle, hold, double tap) are
/// the arbiter's, fired by `advance(to:)`.
///
/// A value type; it never reads a clock. Per-frame work uses fixed storage
/// only (the output keeps its capacity between frames).
struct DeviceRecognizer: Sendable {
    /// The panel's size as mounted (`PanelGeometry.screenWidth`), mm.
    let panelWidth: Double
    let panelHeight: Double
    /// How the picture is turned (`ScreenTransform`); a new one waits in
    /// `nextTransform` until no finger is down, so that a gesture keeps the
    /// orientation it began in.
    private(set) var transform = ScreenTransform.normal
    var nextTransform = ScreenTransform.normal

    private var fingers = Fingers()
    private var group: TouchGroup
    private var out: EventOutput

    init(
        device: DeviceID, geometry: PanelGeometry, thresholds: GestureThresholds, maxTaps: Int,
        wanted: GestureKindSet
    ) {
        panelWidth = geometry.screenWidth
        panelHeight = geometry.screenHeight
        group = TouchGroup(
            settings: TouchGroup.Settings(
                t: ResolvedThresholds(thresholds), maxTaps: maxTaps, width: panelWidth, height: panelHeight))
        out = EventOutput(device: device, wanted: wanted)
    }

    // MARK: - Settings (the arbiter's and the output's)

    var device: DeviceID { out.device }
    /// The arbiter's settings (thresholds, taps wanted how, the picture's size).
    var settings: TouchGroup.Settings {
        get { group.settings }
        set { group.settings = newValue }
    }
    var wanted: GestureKindSet {
        get { out.wanted }
        set { out.wanted = newValue }
    }
    var wantedChanges: GestureKindSet {
        get { out.wantedChanges }
        set { out.wantedChanges = newValue }
    }
    var log: TransitionLog {
        get { out.log }
        set { out.log = newValue }
    }

    /// The earliest armed timer.
    var nextDeadline: Timestamp { group.nextDeadline }

    var hasFingersDown: Bool { fingers.downCount > 0 }

    // MARK: - Input

    /// Fires every timer due at or before `now`, in deadline order, handing
    /// the events on. `ids` is the pipeline's gesture id counter, lent for
    /// the call.
    mutating func advance(to now: Timestamp, ids: inout UInt64, into events: inout GestureEvents) {
        begin(ids: ids)
        _ = group.fire(upTo: now, &fingers, &out)
        end(ids: &ids, into: &events)
    }

    /// Processes one frame (timers due by its time must have been fired
    /// first), handing its events on; returns the next deadline.
    mutating func process(_ frame: inout TouchFrame, ids: inout UInt64, into events: inout GestureEvents) -> Timestamp {
        if nextTransform != transform && fingers.downCount == 0 {
            transform = nextTransform
            (group.settings.width, group.settings.height) = transform.size(width: panelWidth, height: panelHeight)
        }
        begin(ids: ids)
        if transform == .normal {
            route(&frame)
        } else {
            var turned = frame
            for i in 0..<turned.count {
                (turned[i].x, turned[i].y) = transform.apply(
                    x: turned[i].x, y: turned[i].y, width: panelWidth, height: panelHeight)
            }
            route(&turned)
        }
        end(ids: &ids, into: &events)
        return group.nextDeadline
    }

    /// The device is gone: continuous gestures end `cancelled`, pending taps are dropped.
    mutating func removeAll(now: Timestamp, ids: inout UInt64, into events: inout GestureEvents) {
        begin(ids: ids)
        group.deviceGone(now: now, &fingers, &out)
        for s in fingers.down { fingers.release(s, now: now) }
        end(ids: &ids, into: &events)
    }

    /// A frame's contacts, each to the fingers and then to the arbiter.
    /// Motion first, then lifts, then landings: a frame that lifts one
    /// finger and lands another in the same slot ends one touch before the
    /// next begins, and decisions at a lift see the final positions.
    private mutating func route(_ frame: inout TouchFrame) {
        let now = frame.time
        let contacts = frame.storage.span
        // Read once: `group` is lent to the arbiter below.
        let palmMinSize = group.t.palmMinSize
        let velocityWindow = group.t.velocityWindow
        // One pass moves the fingers and notes which other phases the frame
        // has: most frames only move, and need no other pass.
        var anyMoved = false
        var others: UInt8 = 0
        for i in 0..<frame.count {
            let c = contacts[i]
            guard c.phase == .move else {
                others |= c.phase.bit
                continue
            }
            guard c.slot >= 0, c.slot < TouchFrame.capacity, fingers.down.contains(c.slot) else { continue }
            fingers.move(c.slot, x: c.x, y: c.y, now: now)
            guard fingers[c.slot].isMember else { continue }
            if c.size >= palmMinSize {
                group.notFinger(c.slot, now: now, &fingers, &out)
            } else {
                anyMoved = true
            }
        }
        if anyMoved { group.moved(now: now, &fingers, &out) }
        if others & ContactPhase.cancel.bit != 0 {
            for i in 0..<frame.count where contacts[i].phase == .cancel {
                let c = contacts[i]
                guard c.slot >= 0, c.slot < TouchFrame.capacity, fingers.down.contains(c.slot) else { continue }
                if fingers[c.slot].isMember { group.notFinger(c.slot, now: now, &fingers, &out) }
                fingers.release(c.slot, now: now)
            }
        }
        if others & ContactPhase.up.bit != 0 {
            for i in 0..<frame.count where contacts[i].phase == .up {
                let c = contacts[i]
                guard c.slot >= 0, c.slot < TouchFrame.capacity, fingers.down.contains(c.slot) else { continue }
                let v = fingers[path: c.slot].velocity(at: now, window: velocityWindow)
                fingers[c.slot].releaseVX = v.vx
                fingers[c.slot].releaseVY = v.vy
                fingers.release(c.slot, now: now)
                if fingers[c.slot].isMember { group.lifted(now: now, &fingers, &out) }
            }
        }
        group.liftsDone(now: now, fingers, &out)
        if others & ContactPhase.down.bit != 0 {
            for i in 0..<frame.count where contacts[i].phase == .down {
                let c = contacts[i]
                guard c.slot >= 0, c.slot < TouchFrame.capacity else { continue }
                if fingers.down.contains(c.slot) {
                    // A landing on a slot that is down: its lift was lost. Take it as motion.
                    fingers.move(c.slot, x: c.x, y: c.y, now: now)
                    continue
                }
                group.landed(c.slot, x: c.x, y: c.y, palm: c.size >= palmMinSize, now: now, &fingers, &out)
            }
        }
        fingers.endFrame()
    }

    // MARK: - Output

    /// Starts a call: an empty output, fingers of its own, the pipeline's id counter.
    private mutating func begin(ids: UInt64) {
        out.begin(ids: ids)
        fingers.makeUnique()
    }

    /// Ends a call: the id counter back to the pipeline, the events handed
    /// on in order (read through the pipeline's array afterwards, `out`
    /// would be a second access to the recognizer, or a copy of it).
    private func end(ids: inout UInt64, into events: inout GestureEvents) {
        ids = out.lastID
        for i in out.events.indices { events.append(out.events[i]) }
    }
}

/// Where a device's events go during one call into its recognizer: the
/// kinds wanted, the gesture ids, the transitions traced.
struct EventOutput: Sendable {
    let device: DeviceID
    /// Kinds reported; the rest are recognized and dropped.
    var wanted: GestureKindSet
    /// Kinds whose `changed` events are made (`wantsChanges(of:)`).
    var wantedChanges: GestureKindSet
    var log = TransitionLog()
    /// Events of the call, in order.
    private(set) var events = ReusedList<GestureEvent>()
    /// The last gesture id given out; the pipeline's counter, lent for one call.
    private(set) var lastID: UInt64 = 0

    init(device: DeviceID, wanted: GestureKindSet) {
        self.device = device
        self.wanted = wanted
        self.wantedChanges = wanted
    }

    mutating func begin(ids: UInt64) {
        events.removeAll()
        lastID = ids
    }

    /// The id of a new gesture.
    mutating func newID() -> UInt64 {
        lastID += 1
        return lastID
    }

    /// Whether a `changed` event of `kind` is wanted: the places that make
    /// one ask first, because making it is most of the cost of a frame of a
    /// gesture under way (a velocity fit, the event, its copies).
    func wantsChanges(of kind: GestureKind) -> Bool { wantedChanges.contains(kind) }

    /// Adds an event, if its kind is wanted.
    mutating func emit(_ e: GestureEvent) {
        if wanted.contains(e.gesture) { events.append(e) }
    }
}

/// What every event of a device shares, made by the arbiter for one event:
/// the device, the time, the place, the group's edge and first touch. Each
/// gesture adds its own fields (`Gestures/`).
struct EventBase {
    var device: DeviceID
    var width: Double
    var height: Double
    var edge: PanelEdge?
    /// The group's first touch (`duration_ms`).
    var start: Timestamp
    var now: Timestamp
    var x: Double
    var y: Double

    func event(_ kind: GestureKind, _ phase: GesturePhase, id: UInt64, fingers: Int) -> GestureEvent {
        var e = GestureEvent(
            gesture: kind, phase: phase, id: id, time: now, device: device, fingers: fingers, x: x, y: y,
            nx: x / width, ny: y / height, edge: edge)
        if phase != .began && phase != .changed { e.duration = (now - start).milliseconds }
        return e
    }
}
