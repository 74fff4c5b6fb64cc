/// Everything gestured recognizes on one device, frame by frame.
///
/// A frame goes forward only: its contacts update the fingers
/// (`process`), the fingers' motion is classified into one event of the
/// touch group's machine (`TouchGroup.swift`, the arbiter), whose handler asks
/// the gestures (`Gestures/`) what they make of it and appends their events to
/// `output`; the pipeline then hands `output` to its sink. Timers (settle,
/// hold, double tap) are events too, fired by `advance(to:)`.
///
/// A value type; it never reads a clock. Per-frame work uses fixed storage
/// only (the output keeps its capacity between frames).
struct DeviceRecognizer: Sendable {
    let device: DeviceID
    /// The picture's size in the orientation in force, mm.
    private(set) var width: Double
    private(set) var height: Double
    /// The panel's size as mounted (`PanelGeometry.screenWidth`), mm.
    let panelWidth: Double
    let panelHeight: Double
    /// How the picture is turned (`ScreenTransform`); a new one waits in
    /// `nextTransform` until no finger is down, so that a gesture keeps the
    /// orientation it began in.
    private(set) var transform = ScreenTransform.normal
    var nextTransform = ScreenTransform.normal
    var t: ResolvedThresholds
    var wantDoubleTap: Bool
    /// With `wantDoubleTap`: also report each tap at its lift (`.immediate`), for
    /// subscribers that do not want double taps; held-back taps are then `.confirmed`.
    var immediateTaps = false
    /// Kinds reported; the rest are recognized and dropped.
    var wanted: GestureKindSet
    /// Kinds whose `changed` events are made (`wantsChanges(of:)`).
    var wantedChanges: GestureKindSet

    /// The touch group's state (`TouchGroup.State`) and what it knows of the group under way.
    var state: TouchGroup.State = .idle
    var group = TouchGroup()
    var taps = TapSequence()
    var log = TransitionLog()

    /// Each slot's finger and recent path (26 KB), on the heap; see `FingerStorage`.
    private var storage = FingerStorage()
    var fingers: UnsafeMutablePointer<FingerTrack> { storage.tracks }
    var paths: UnsafeMutablePointer<SampleRing> { storage.paths }
    var downCount = 0
    var memberDown = 0
    /// The slots with a finger down, now and at the end of the previous frame.
    var down = SlotSet()
    var wasDown = SlotSet()
    /// The slots whose finger took part in the group under way: landed as
    /// one of its members since its first touch, down or lifted since.
    var inGroup = SlotSet()

    /// Events made by the last `process`, `advance` or `removeAll`, in order.
    private(set) var output = ReusedList<GestureEvent>()
    /// The last gesture id given out; the pipeline's counter, lent for one call.
    private var lastID: UInt64 = 0

    init(
        device: DeviceID, geometry: PanelGeometry, thresholds: GestureThresholds, wantDoubleTap: Bool,
        wanted: GestureKindSet
    ) {
        self.device = device
        self.width = geometry.screenWidth
        self.height = geometry.screenHeight
        self.panelWidth = geometry.screenWidth
        self.panelHeight = geometry.screenHeight
        self.t = ResolvedThresholds(thresholds)
        self.wantDoubleTap = wantDoubleTap
        self.wanted = wanted
        self.wantedChanges = wanted
    }

    /// The earliest armed timer.
    var nextDeadline: Timestamp {
        var d = taps.deadline
        if state == .touching && group.settleDeadline < d { d = group.settleDeadline }
        if (state == .touching || state == .undecided) && group.holdDeadline < d { d = group.holdDeadline }
        if (state == .pinching || state == .rotating) && group.endDeadline < d { d = group.endDeadline }
        return d
    }

    var hasFingersDown: Bool { downCount > 0 }

    // MARK: - Input

    /// Fires every timer due at or before `now`, in deadline order; returns the next deadline.
    private mutating func advance(to now: Timestamp, ids: inout UInt64) -> Timestamp {
        begin(ids: ids)
        defer { ids = lastID }
        while true {
            let due = nextDeadline
            guard due <= now, due != .never else { return due }
            if due == taps.deadline {
                taps.deadline = .never
                report(taps.handle(.timeout, now: due, wantDoubleTap: wantDoubleTap, t: t, log: &log))
            } else if due == group.settleDeadline {
                group.settleDeadline = .never
                handle(.settled, now: due)
            } else if due == group.endDeadline {
                group.endDeadline = .never
                handle(.bounceOver, now: due)
            } else {
                group.holdDeadline = .never
                handle(.holdDeadline, now: due)
            }
        }
    }

    /// Processes one frame (timers due by its time must have been fired first); returns the next deadline.
    private mutating func process(_ frame: inout TouchFrame, ids: inout UInt64) -> Timestamp {
        begin(ids: ids)
        defer { ids = lastID }
        let now = frame.time
        // Motion first, then lifts, then landings: a frame that lifts one
        // finger and lands another in the same slot ends one touch before the
        // next begins, and decisions at a lift see the final positions.
        let contacts = frame.storage.span
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
            guard c.slot >= 0, c.slot < TouchFrame.capacity, down.contains(c.slot) else { continue }
            moveFinger(c.slot, x: c.x, y: c.y, now: now)
            guard fingers[c.slot].isMember else { continue }
            if c.size >= t.palmMinSize {
                notFinger(c.slot, now: now)
            } else {
                anyMoved = true
            }
        }
        if anyMoved {
            accumulateMotion()
            if state.weighsMotion {
                dropGrips(now: now)
                // Measured only as far as the thresholds it is compared with need.
                let m = motion(now: now, below: t.smallestDecisionDistance)
                updateMoved(m, now: now)
                // While a finger that lifted may bounce back, the others'
                // motion alone decides nothing.
                handle(now < group.bounceUntil ? .still : classify(m), now: now)
            } else if state != .finished && memberDown >= 2 {
                // A drag, pinch or rotation goes on, unless it has clearly
                // become another kind.
                handle(kindChange(now: now), now: now)
            } else if log.tracing {
                handle(classify(motion(now: now, below: t.smallestDecisionDistance)), now: now)
            } else {
                // One finger's drag, or a finished group, takes every motion
                // alike: no geometry to measure (but for a trace, which names it).
                handle(.still, now: now)
            }
        }
        if others & ContactPhase.cancel.bit != 0 {
            for i in 0..<frame.count where contacts[i].phase == .cancel {
                let c = contacts[i]
                guard c.slot >= 0, c.slot < TouchFrame.capacity, down.contains(c.slot) else { continue }
                if fingers[c.slot].isMember { notFinger(c.slot, now: now) }
                release(slot: c.slot, now: now)
            }
        }
        if others & ContactPhase.up.bit != 0 {
            for i in 0..<frame.count where contacts[i].phase == .up {
                let c = contacts[i]
                guard c.slot >= 0, c.slot < TouchFrame.capacity, down.contains(c.slot) else { continue }
                let v = paths[c.slot].velocity(at: now, window: t.velocityWindow)
                fingers[c.slot].releaseVX = v.vx
                fingers[c.slot].releaseVY = v.vy
                let member = fingers[c.slot].isMember
                release(slot: c.slot, now: now)
                guard member else { continue }
                // The fingers left may be only a hand gripping the device.
                dropGrips(now: now)
                if memberDown > 0 { group.bounceUntil = now + t.bounceMaxInterval }
                handle(memberDown == 0 ? .lastUp : .fingerUp, now: now)
            }
        }
        if state == .finished && memberDown == 0 { allLifted(now: now) }
        if others & ContactPhase.down.bit != 0 {
            for i in 0..<frame.count where contacts[i].phase == .down {
                let c = contacts[i]
                guard c.slot >= 0, c.slot < TouchFrame.capacity else { continue }
                if down.contains(c.slot) {
                    // A landing on a slot that is down: its lift was lost. Take it as motion.
                    moveFinger(c.slot, x: c.x, y: c.y, now: now)
                    continue
                }
                land(slot: c.slot, x: c.x, y: c.y, palm: c.size >= t.palmMinSize, now: now)
            }
        }
        for s in down {
            fingers[s].prevX = fingers[s].x
            fingers[s].prevY = fingers[s].y
        }
        wasDown = down
        return nextDeadline
    }

    /// The device is gone: continuous gestures end `cancelled`, pending taps are dropped.
    private mutating func removeAll(now: Timestamp, ids: inout UInt64) {
        begin(ids: ids)
        defer { ids = lastID }
        if memberDown > 0 { handle(.cancel, now: now) }
        for s in down { release(slot: s, now: now) }
        taps.reset()
        state = .idle
    }

    // MARK: - Output

    /// Starts a call: an empty output, fingers of its own, the pipeline's id counter.
    private mutating func begin(ids: UInt64) {
        output.removeAll()
        lastID = ids
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// The id of a new gesture.
    mutating func newID() -> UInt64 {
        lastID += 1
        return lastID
    }

    /// `advance(to:ids:)`, `process(_:ids:)` and `removeAll(now:ids:)`, each
    /// handing its events on: the pipeline reaches the recognizer in its
    /// array once per call.
    mutating func advance(to now: Timestamp, ids: inout UInt64, into events: inout GestureEvents) -> Timestamp {
        let deadline = advance(to: now, ids: &ids)
        drain(into: &events)
        return deadline
    }

    mutating func process(_ frame: inout TouchFrame, ids: inout UInt64, into events: inout GestureEvents) -> Timestamp {
        if nextTransform != transform && downCount == 0 {
            transform = nextTransform
            (width, height) = transform.size(width: panelWidth, height: panelHeight)
        }
        let deadline: Timestamp
        if transform == .normal {
            deadline = process(&frame, ids: &ids)
        } else {
            var turned = frame
            for i in 0..<turned.count {
                (turned[i].x, turned[i].y) = transform.apply(
                    x: turned[i].x, y: turned[i].y, width: panelWidth, height: panelHeight)
            }
            deadline = process(&turned, ids: &ids)
        }
        drain(into: &events)
        return deadline
    }

    mutating func removeAll(now: Timestamp, ids: inout UInt64, into events: inout GestureEvents) {
        removeAll(now: now, ids: &ids)
        drain(into: &events)
    }

    /// Hands the events of a call on, in order, as it returns: read through
    /// the pipeline's array afterwards, `output` would be a second access
    /// to the recognizer, or a copy of it. Inlined: most frames make none.
    @inline(__always)
    private func drain(into events: inout GestureEvents) {
        for i in output.indices { events.append(output[i]) }
    }

    /// Whether a `changed` event of `kind` is wanted: the three places that
    /// make one ask first, because making it is most of the cost of a frame
    /// of a gesture under way (a velocity fit, the event, its copies).
    func wantsChanges(of kind: GestureKind) -> Bool { wantedChanges.contains(kind) }

    /// Adds an event to the output, if its kind is wanted.
    mutating func emit(_ e: GestureEvent) {
        if wanted.contains(e.gesture) { output.append(e) }
    }

    /// What an event of the group under way shares with every other, at
    /// `now`: at the gesture's centroid, the fingers down while it goes on;
    /// once fingers are lifting (`ended`, `cancelled`, `recognized`), every
    /// finger that took part, each where it is or where it lifted.
    func base(_ phase: GesturePhase, now: Timestamp) -> EventBase {
        let c = phase == .began || phase == .changed ? centroid(now: now) : groupCentroid()
        return base(now: now, x: c.x, y: c.y)
    }

    /// What an event at (x, y) at `now` shares with every other.
    func base(now: Timestamp, x: Double, y: Double) -> EventBase {
        EventBase(device: device, width: width, height: height, edge: group.edge, start: group.start, now: now, x: x, y: y)
    }

    /// What the tap sequence decided, as events.
    mutating func report(_ out: TapSequence.Output) {
        switch out {
        case .none:
            return
        case .tap(let info, let at), .tapThenPending(let info, let at):
            let timing: TapTiming = wantDoubleTap && immediateTaps ? .confirmed : .every
            emit(Tap.event(info, taps: 1, id: newID(), timing: timing, base(now: at, x: info.x, y: info.y)))
        case .doubleTap(let first, let second):
            emit(
                Tap.event(
                    first, kind: .doubleTap, taps: 2, id: newID(), timing: .every, base(now: second.lift, x: first.x, y: first.y))
            )
        }
    }

    // MARK: - Fingers

    /// A contact lands. A palm (`palm.minSize`) is no finger: it joins no
    /// group. A finger of the group that bounced (`bouncedFinger`) goes on
    /// as the same finger.
    mutating func land(slot: Int, x: Double, y: Double, palm: Bool = false, now: Timestamp) {
        let bounced = palm ? nil : bouncedFinger(x: x, y: y, now: now)
        let old = bounced.map { fingers[$0] }
        let atBezel = min(x, y, width - x, height - y) <= t.gripBand
        if state == .holding && !palm && !atBezel && onlyGripsDown() {
            handle(.grip, now: now)
        }
        if state == .idle && !palm { startGroup(x: x, y: y, now: now) }
        fingers[slot].land(at: now, x: x, y: y, member: !palm && (state.acceptsFingers || bounced != nil))
        paths[slot].removeAll()
        paths[slot].add(time: now, x: x, y: y)
        downCount += 1
        down.insert(slot)
        guard fingers[slot].isMember else {
            inGroup.remove(slot)
            return
        }
        memberDown += 1
        if let bounced, let old {
            group.bounceUntil = .zero
            fingers[slot].continueTouch(of: old)
            inGroup.remove(bounced)
            group.atBezel.remove(bounced)
            inGroup.insert(slot)
            if old.atBezel { group.atBezel.insert(slot) }
            handle(.fingerBack, now: now)
            return
        }
        fingers[slot].atBezel = atBezel
        if atBezel { group.atBezel.insert(slot) } else { group.atBezel.remove(slot) }
        group.touched = max(group.touched, memberDown)
        inGroup.insert(slot)
        handle(.fingerDown, now: now)
    }

    /// The finger of the group under way that lifted most recently, within
    /// `bounce.maxInterval` before `now` and `bounce.maxDistance` of (x, y),
    /// while another of its fingers is down: a landing there is that finger
    /// again. None when every finger lifted (a second tap is a new touch).
    func bouncedFinger(x: Double, y: Double, now: Timestamp) -> Int? {
        guard memberDown > 0, state != .idle, state != .finished else { return nil }
        var best: Int?
        for s in inGroup.subtracting(down) {
            let f = fingers[s]
            guard now - f.liftedAt <= t.bounceMaxInterval,
                Trig.hypot(x - f.x, y - f.y) <= t.bounceMaxDistance
            else { continue }
            if best.map({ fingers[$0].liftedAt < f.liftedAt }) ?? true { best = s }
        }
        return best
    }

    /// A member down is a palm (its size, or its touch cancelled): it is no
    /// finger. Before anything is decided it leaves the group, which goes
    /// on with the others (or ends, with none left); a gesture under way
    /// with it is cancelled.
    mutating func notFinger(_ slot: Int, now: Timestamp) {
        switch state {
        case .touching, .undecided:
            leaveGroup(slot)
            if memberDown == 0 { handle(.cancel, now: now) }
        case .holding, .dragging, .pinching, .rotating:
            handle(.cancel, now: now)
            leaveGroup(slot)
        case .idle, .finished:
            leaveGroup(slot)
        }
    }

    /// A member down stops being one: it is not among the group's fingers.
    mutating func leaveGroup(_ slot: Int) {
        guard fingers[slot].isMember, down.contains(slot) else { return }
        fingers[slot].isMember = false
        memberDown -= 1
        group.touched -= 1
        inGroup.remove(slot)
        group.atBezel.remove(slot)
    }

    /// Members that landed at the bezel (`grip.band`) at least `settle`
    /// before the group's first other finger, and rest there (within slop
    /// of where they landed), are a hand gripping the device, not fingers of
    /// the gesture the others make: they leave the group, which starts
    /// again, with its edge and its timers, from its first finger left.
    /// Looked at before anything is decided: when members move, when one
    /// lifts, and at the hold deadline. Returns whether any left.
    @discardableResult
    mutating func dropGrips(now: Timestamp) -> Bool {
        guard state == .touching || state == .undecided, !(group.atBezel & down).isEmpty else { return false }
        var resting = SlotSet()
        var firstOther = Timestamp.never
        for s in inGroup {
            let f = fingers[s]
            if f.restsAtBezel(slop: t.slop) {
                resting.insert(s)
            } else if f.downTime < firstOther {
                firstOther = f.downTime
            }
        }
        guard firstOther != .never else { return false }
        var dropped = false
        for s in resting where fingers[s].downTime + t.settle <= firstOther {
            leaveGroup(s)
            dropped = true
        }
        guard dropped else { return false }
        var first = firstOther
        var firstSlot: Int?
        for s in inGroup where fingers[s].downTime <= first {
            first = fingers[s].downTime
            firstSlot = s
        }
        group.start = first
        group.settleDeadline = max(first + t.settle, now)
        group.holdDeadline = first + t.holdMinDuration
        if let s = firstSlot { group.edge = edgeAt(x: fingers[s].startX, y: fingers[s].startY) }
        return true
    }

    /// Whether every member down landed at the bezel and rests there: the
    /// hold they make may be a hand gripping the device.
    func onlyGripsDown() -> Bool {
        guard memberDown > 0 else { return false }
        for s in inGroup & down where !fingers[s].restsAtBezel(slop: t.slop) { return false }
        return true
    }

    mutating func moveFinger(_ slot: Int, x: Double, y: Double, now: Timestamp) {
        fingers[slot].x = x
        fingers[slot].y = y
        paths[slot].add(time: now, x: x, y: y)
    }

    mutating func release(slot: Int, now: Timestamp) {
        fingers[slot].isDown = false
        fingers[slot].liftedAt = now
        downCount -= 1
        down.remove(slot)
        if fingers[slot].isMember { memberDown -= 1 }
    }

    mutating func startGroup(x: Double, y: Double, now: Timestamp) {
        group = TouchGroup(start: now, edge: edgeAt(x: x, y: y), t: t)
        inGroup = SlotSet()
        if let e = taps.classifyTouch(at: now, x: x, y: y, t: t) {
            report(taps.handle(e, now: now, wantDoubleTap: wantDoubleTap, t: t, log: &log))
        }
    }

    /// Members down now measure their motion from where they are.
    mutating func rebaseMembers() {
        for s in inGroup & down { fingers[s].rebase() }
    }

    /// The nearest panel edge within `edge.band` of a point, if any.
    func edgeAt(x: Double, y: Double) -> PanelEdge? {
        var best: PanelEdge?
        var bestDistance = t.edgeBand
        func consider(_ e: PanelEdge, _ d: Double) {
            if d <= bestDistance {
                best = e
                bestDistance = d
            }
        }
        consider(.left, x)
        consider(.right, width - x)
        consider(.top, y)
        consider(.bottom, height - y)
        return best
    }

    // MARK: - Geometry of the group

    /// Adds this frame's centroid motion (over members down in both frames) to
    /// the group's translation and its swipe path, and in a pinch or a
    /// rotation the span ratio and the turn.
    mutating func accumulateMotion() {
        var n = 0.0
        var pcx = 0.0
        var pcy = 0.0
        var ccx = 0.0
        var ccy = 0.0
        // The members down in both frames.
        let moving = inGroup & down & wasDown
        for s in moving {
            pcx += fingers[s].prevX
            pcy += fingers[s].prevY
            ccx += fingers[s].x
            ccy += fingers[s].y
            n += 1
        }
        guard n > 0 else { return }
        pcx /= n
        pcy /= n
        ccx /= n
        ccy /= n
        group.tx += ccx - pcx
        group.ty += ccy - pcy
        group.swipe.follow(tx: group.tx, ty: group.ty, minDistance: t.swipeMinDistance, maxSlope: t.swipeMaxSlope)
        guard n >= 2, state == .pinching || state == .rotating else { return }
        var prevSpan = 0.0
        var curSpan = 0.0
        var turn = 0.0
        for s in moving {
            let f = fingers[s]
            prevSpan += Trig.hypot(f.prevX - pcx, f.prevY - pcy)
            curSpan += Trig.hypot(f.x - ccx, f.y - ccy)
            turn += GroupMotion.turn(from: f.prevX - pcx, f.prevY - pcy, to: f.x - ccx, f.y - ccy)
        }
        group.transform.add(scale: prevSpan > 1e-6 ? curSpan / prevSpan : 1, rotation: turn / n)
    }

    /// The fingers taking part in a decision taken now: the members down, and
    /// those lifting in this very frame.
    func takingPart(at now: Timestamp) -> SlotSet {
        var slots = inGroup & down
        for s in inGroup where fingers[s].liftedAt == now { slots.insert(s) }
        return slots
    }

    /// The motion of the fingers taking part now, from their references.
    /// With `below`, measured only as far as comparisons with distances of
    /// at least that need (`GroupMotion.init(_:_:below:)`).
    func motion(now: Timestamp, below limit: Double = 0) -> GroupMotion {
        GroupMotion(fingers, takingPart(at: now), below: limit)
    }

    /// The root-mean-square distance of the fingers in `slots` from their
    /// centroid, at their references or where they are: for two fingers
    /// their span (half their distance), for more a spread close to it, in
    /// one square root where the span takes one per finger.
    func spread(_ slots: SlotSet, atReferences: Bool) -> Double {
        var n = 0.0
        var sx = 0.0
        var sy = 0.0
        var sq = 0.0
        for s in slots {
            let (x, y) = atReferences ? (fingers[s].refX, fingers[s].refY) : (fingers[s].x, fingers[s].y)
            sx += x
            sy += y
            sq += x * x + y * y
            n += 1
        }
        guard n > 0 else { return 0 }
        let (cx, cy) = (sx / n, sy / n)
        return (max(0, sq / n - cx * cx - cy * cy)).squareRoot()
    }

    /// The mean of `value` over the fingers in `slots`; nil when there are none.
    func mean(_ slots: SlotSet, _ value: (Int) -> (Double, Double)) -> (Double, Double)? {
        var n = 0.0
        var sx = 0.0
        var sy = 0.0
        for s in slots {
            let v = value(s)
            sx += v.0
            sy += v.1
            n += 1
        }
        return n == 0 ? nil : (sx / n, sy / n)
    }

    /// Centroid of the fingers taking part now.
    func centroid(now: Timestamp) -> (x: Double, y: Double) {
        mean(takingPart(at: now)) { (fingers[$0].x, fingers[$0].y) } ?? groupCentroid()
    }

    /// Centroid of every finger that took part in the group, each where it is or where it lifted.
    func groupCentroid() -> (x: Double, y: Double) {
        mean(inGroup) { (fingers[$0].x, fingers[$0].y) } ?? (0, 0)
    }

    /// The release velocity: each member's own estimate at its lift, averaged.
    func releaseVelocity() -> (vx: Double, vy: Double) {
        mean(inGroup.subtracting(down)) { (fingers[$0].releaseVX, fingers[$0].releaseVY) } ?? (0, 0)
    }

    /// The current velocity of the members down, averaged.
    func currentVelocity(now: Timestamp) -> (vx: Double, vy: Double) {
        mean(inGroup & down) { paths[$0].velocity(at: now, window: t.velocityWindow) } ?? (0, 0)
    }
}

/// What every event of a device shares, made by the recognizer for one event:
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
