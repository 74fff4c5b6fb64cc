/// Everything gestured recognizes on one device: the touch-group machine
/// (tap, touch-and-hold, drag, flick, swipe, pinch) and the tap sequence
/// (double tap), with their timers.
///
/// A value type driven by `process(_:)` and `advance(to:)`; it never reads a
/// clock. Per-frame work uses fixed storage only.
struct DeviceRecognizer: Sendable {
    /// States of the touch-group machine. See `docs/state-machines.md`.
    enum State: String, Sendable {
        /// No finger down.
        case idle
        /// Fingers down, none beyond slop (or the settle window still open):
        /// a tap, a hold, a drag or a pinch.
        case touching
        /// Two or more fingers, one beyond slop, but the centroid and span
        /// have not yet changed by `pinch.minSpanChange`: drag or pinch.
        case dragOrPinch = "drag-or-pinch"
        /// Touch-and-hold has begun.
        case holding
        /// A drag has begun.
        case dragging
        /// A pinch has begun.
        case pinching
        /// The gesture is over or void; waiting for every finger to lift.
        case finished
    }

    /// Events of the touch-group machine: frames and timers classified.
    enum Event: String, Sendable {
        case fingerDown = "finger-down"
        /// A member lifted and others remain.
        case fingerUp = "finger-up"
        /// The last member lifted.
        case lastUp = "last-up"
        /// Members moved, none beyond slop.
        case still
        /// One finger beyond slop.
        case movedOne = "moved-one"
        /// Several fingers, one beyond slop, centroid and span below the decision distance.
        case movedMany = "moved-many"
        /// Several fingers; the centroid moved more than twice the span change.
        case movedTogether = "moved-together"
        /// Several fingers; the span changed at least half as much as the centroid moved.
        case movedApart = "moved-apart"
        /// The settle window passed.
        case settled
        /// `hold.minDuration` passed since the first touch.
        case holdDeadline = "hold-deadline"
        /// A member's touch was cancelled (palm) or the device went away.
        case cancel
    }

    let device: DeviceID
    let name: String
    let width: Double
    let height: Double
    var t: ResolvedThresholds
    var wantDoubleTap: Bool
    /// With `wantDoubleTap`: also report each tap at its lift (`.immediate`), for
    /// subscribers that do not want double taps; held-back taps are then `.confirmed`.
    var immediateTaps = false
    /// Kinds reported; the rest are recognized and dropped.
    var wanted: GestureKindSet

    var state: State = .idle
    /// Each slot's finger and recent positions (26 KB), on the heap; see `SlotStorage`.
    private var slots = SlotStorage()
    var fingers: UnsafeMutablePointer<FingerTrack> { slots.fingers }
    var histories: UnsafeMutablePointer<VelocityHistory> { slots.histories }
    var downCount = 0
    var memberDown = 0

    // The current group.
    var groupStart: Timestamp = .zero
    var settleDeadline: Timestamp = .never
    var holdDeadline: Timestamp = .never
    var startX = 0.0, startY = 0.0
    var edge: PanelEdge?
    var touched = 0
    var tapPossible = true
    var moved = false
    var gestureID: UInt64 = 0
    var gestureFingers = 0
    /// Centroid translation since the first touch, accumulated frame by frame.
    var tx = 0.0, ty = 0.0
    /// Translation when the current continuous gesture began.
    var beganTX = 0.0, beganTY = 0.0
    /// Swipe path check: the path left the cone of right, left, down, up.
    var coneBroken: (right: Bool, left: Bool, down: Bool, up: Bool) = (false, false, false, false)
    var scale = 1.0
    var rotation = 0.0

    var taps = TapSequence()
    var log = TransitionLog()

    init(
        device: DeviceID, name: String, geometry: PanelGeometry, thresholds: GestureThresholds, wantDoubleTap: Bool,
        wanted: GestureKindSet
    ) {
        self.device = device
        self.name = name
        self.width = geometry.screenWidth
        self.height = geometry.screenHeight
        self.t = ResolvedThresholds(thresholds)
        self.wantDoubleTap = wantDoubleTap
        self.wanted = wanted
    }

    /// The earliest armed timer.
    var nextDeadline: Timestamp {
        var d = taps.deadline
        if state == .touching && settleDeadline < d { d = settleDeadline }
        if (state == .touching || state == .dragOrPinch) && holdDeadline < d { d = holdDeadline }
        return d
    }

    var hasFingersDown: Bool { downCount > 0 }

    /// Copy on write: a recognizer copied (a pipeline copied) gets its own
    /// slots before either copy changes them. Called by every entry point that
    /// changes slot state (`process`, `advance`, `removeAll`).
    private mutating func ensureUniqueSlots() {
        if !isKnownUniquelyReferenced(&slots) { slots = slots.copy() }
    }

    // MARK: - Input

    /// Fires every timer due at or before `now`, in deadline order; returns the next deadline.
    @discardableResult
    mutating func advance<S: GestureSink>(to now: Timestamp, ids: inout UInt64, sink: inout S) -> Timestamp {
        ensureUniqueSlots()
        while true {
            let due = nextDeadline
            guard due <= now, due != .never else { return due }
            if due == taps.deadline {
                taps.deadline = .never
                deliver(taps.handle(.timeout, now: due, wantDoubleTap: wantDoubleTap, t: t, log: &log), ids: &ids, sink: &sink)
            } else if due == settleDeadline {
                settleDeadline = .never
                handle(.settled, now: due, ids: &ids, sink: &sink)
            } else {
                holdDeadline = .never
                handle(.holdDeadline, now: due, ids: &ids, sink: &sink)
            }
        }
    }

    /// Processes one frame (timers due by its time must have been fired first); returns the next deadline.
    @discardableResult
    mutating func process<S: GestureSink>(_ frame: TouchFrame, ids: inout UInt64, sink: inout S) -> Timestamp {
        ensureUniqueSlots()
        let now = frame.time
        // Motion first, then lifts, then landings: a frame that lifts one
        // finger and lands another in the same slot ends one touch before the
        // next begins, and decisions at a lift see the final positions.
        var anyMoved = false
        for i in 0..<frame.count where frame[i].phase == .move {
            let c = frame[i]
            guard c.slot >= 0, c.slot < TouchFrame.capacity, fingers[c.slot].isDown else { continue }
            moveFinger(c.slot, x: c.x, y: c.y, now: now)
            if fingers[c.slot].isMember { anyMoved = true }
        }
        if anyMoved {
            accumulateMotion()
            updateMoved(now: now)
            handle(classifyMotion(now: now), now: now, ids: &ids, sink: &sink)
        }
        var cancelled = false
        for i in 0..<frame.count where frame[i].phase == .cancel {
            let c = frame[i]
            guard c.slot >= 0, c.slot < TouchFrame.capacity, fingers[c.slot].isDown else { continue }
            if fingers[c.slot].isMember && !cancelled {
                cancelled = true
                handle(.cancel, now: now, ids: &ids, sink: &sink)
            }
            release(slot: c.slot, now: now)
        }
        for i in 0..<frame.count where frame[i].phase == .up {
            let c = frame[i]
            guard c.slot >= 0, c.slot < TouchFrame.capacity, fingers[c.slot].isDown else { continue }
            let v = histories[c.slot].velocity(at: now, window: t.velocityWindow)
            fingers[c.slot].releaseVX = v.vx
            fingers[c.slot].releaseVY = v.vy
            fingers[c.slot].liftedAt = now
            let member = fingers[c.slot].isMember
            release(slot: c.slot, now: now)
            if member { handle(memberDown == 0 ? .lastUp : .fingerUp, now: now, ids: &ids, sink: &sink) }
        }
        if state == .finished && downCount == 0 { allLifted(now: now) }
        for i in 0..<frame.count where frame[i].phase == .down {
            let c = frame[i]
            guard c.slot >= 0, c.slot < TouchFrame.capacity else { continue }
            if fingers[c.slot].isDown {
                // A landing on a slot that is down: its lift was lost. Take it as motion.
                moveFinger(c.slot, x: c.x, y: c.y, now: now)
                continue
            }
            land(slot: c.slot, x: c.x, y: c.y, now: now, ids: &ids, sink: &sink)
        }
        endFrame(now: now)
        return nextDeadline
    }

    /// The device is gone: continuous gestures end `cancelled`, pending taps are dropped.
    mutating func removeAll<S: GestureSink>(now: Timestamp, ids: inout UInt64, sink: inout S) {
        ensureUniqueSlots()
        if memberDown > 0 { handle(.cancel, now: now, ids: &ids, sink: &sink) }
        for s in 0..<TouchFrame.capacity where fingers[s].isDown { release(slot: s, now: now) }
        taps.reset()
        state = .idle
    }

    // MARK: - Finger bookkeeping

    mutating func land<S: GestureSink>(slot: Int, x: Double, y: Double, now: Timestamp, ids: inout UInt64, sink: inout S) {
        let member: Bool
        switch state {
        case .idle, .touching, .dragOrPinch, .pinching: member = true
        case .holding, .dragging, .finished: member = false
        }
        fingers[slot].land(at: now, x: x, y: y, member: member)
        histories[slot].removeAll()
        histories[slot].add(time: now, x: x, y: y)
        downCount += 1
        if member {
            memberDown += 1
            touched += 1
        }
        if state == .idle { startGroup(x: x, y: y, now: now, ids: &ids, sink: &sink) }
        handle(.fingerDown, now: now, ids: &ids, sink: &sink)
    }

    mutating func moveFinger(_ slot: Int, x: Double, y: Double, now: Timestamp) {
        fingers[slot].x = x
        fingers[slot].y = y
        histories[slot].add(time: now, x: x, y: y)
        let dx = x - fingers[slot].refX
        let dy = y - fingers[slot].refY
        if !fingers[slot].movedBeyondSlop && dx * dx + dy * dy > t.slopSquared {
            fingers[slot].movedBeyondSlop = true
        }
    }

    /// At the end of the settle window, a group that has not moved measures
    /// from where its fingers are now.
    mutating func rebaseReferences(now: Timestamp) {
        for s in 0..<TouchFrame.capacity where fingers[s].isMember && fingers[s].isDown {
            fingers[s].refX = fingers[s].x
            fingers[s].refY = fingers[s].y
            fingers[s].movedBeyondSlop = false
        }
    }

    /// Sets the group's sticky `moved` flag. One finger moves when it leaves
    /// its own slop circle. Several fingers move as a group: when their
    /// centroid travels, or their span changes, beyond slop. Fingers roll as
    /// they press, so one finger of a still multi-finger touch can drift past
    /// slop on its own (2.2 mm in the Atmel two-finger recording).
    mutating func updateMoved(now: Timestamp) {
        guard !moved else { return }
        let g = spreadSummary(now: now)
        if g.count >= 2 {
            moved = max(g.centroidMove, g.spanChange) > t.slop
        } else {
            for s in 0..<TouchFrame.capacity where fingers[s].takesPart(at: now) && fingers[s].movedBeyondSlop { moved = true }
        }
    }

    mutating func release(slot: Int, now: Timestamp) {
        fingers[slot].isDown = false
        if fingers[slot].liftedAt == .never { fingers[slot].liftedAt = now }
        downCount -= 1
        if fingers[slot].isMember { memberDown -= 1 }
    }

    mutating func endFrame(now: Timestamp) {
        for s in 0..<TouchFrame.capacity {
            fingers[s].prevX = fingers[s].x
            fingers[s].prevY = fingers[s].y
            fingers[s].wasDown = fingers[s].isDown
        }
    }

    mutating func startGroup<S: GestureSink>(x: Double, y: Double, now: Timestamp, ids: inout UInt64, sink: inout S) {
        groupStart = now
        settleDeadline = now + t.settle
        holdDeadline = now + t.holdMinDuration
        startX = x
        startY = y
        edge = edgeAt(x: x, y: y)
        touched = 1
        tapPossible = true
        moved = false
        gestureID = 0
        gestureFingers = 0
        tx = 0
        ty = 0
        beganTX = 0
        beganTY = 0
        coneBroken = (false, false, false, false)
        scale = 1
        rotation = 0
        if let e = taps.classifyTouch(at: now, x: x, y: y, t: t) {
            deliver(taps.handle(e, now: now, wantDoubleTap: wantDoubleTap, t: t, log: &log), ids: &ids, sink: &sink)
        }
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

    /// Adds this frame's centroid motion (over members down in both frames)
    /// to the translation, and for pinches the span ratio and rotation.
    mutating func accumulateMotion() {
        var n = 0.0
        var pcx = 0.0
        var pcy = 0.0
        var ccx = 0.0
        var ccy = 0.0
        for s in 0..<TouchFrame.capacity where fingers[s].isMember && fingers[s].isDown && fingers[s].wasDown {
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
        tx += ccx - pcx
        ty += ccy - pcy
        updateCones()
        guard n >= 2, state == .pinching else { return }
        var prevSpan = 0.0
        var curSpan = 0.0
        var turn = 0.0
        for s in 0..<TouchFrame.capacity where fingers[s].isMember && fingers[s].isDown && fingers[s].wasDown {
            let f = fingers[s]
            prevSpan += Trig.hypot(f.prevX - pcx, f.prevY - pcy)
            curSpan += Trig.hypot(f.x - ccx, f.y - ccy)
            var d = Trig.atan2(f.y - ccy, f.x - ccx) - Trig.atan2(f.prevY - pcy, f.prevX - pcx)
            if d > .pi { d -= 2 * .pi } else if d < -.pi { d += 2 * .pi }
            turn += d
        }
        if prevSpan > 1e-6 { scale *= curSpan / prevSpan }
        rotation += turn / n
    }

    mutating func updateCones() {
        let dist = Trig.hypot(tx, ty)
        guard dist >= t.swipeMinDistance / 2 else { return }
        let m = t.swipeMaxSlope
        if !(tx > 0 && abs(ty) <= tx * m) { coneBroken.right = true }
        if !(tx < 0 && abs(ty) <= -tx * m) { coneBroken.left = true }
        if !(ty > 0 && abs(tx) <= ty * m) { coneBroken.down = true }
        if !(ty < 0 && abs(tx) <= -ty * m) { coneBroken.up = true }
    }

    /// Centroid displacement and span change since landing, over the fingers taking part now.
    func spreadSummary(
        now: Timestamp
    ) -> (count: Int, centroidMove: Double, spanChange: Double, spanStart: Double, spanNow: Double) {
        var n = 0.0
        var sx = 0.0
        var sy = 0.0
        var cx = 0.0
        var cy = 0.0
        for s in 0..<TouchFrame.capacity where fingers[s].takesPart(at: now) {
            sx += fingers[s].refX
            sy += fingers[s].refY
            cx += fingers[s].x
            cy += fingers[s].y
            n += 1
        }
        guard n > 0 else { return (0, 0, 0, 0, 0) }
        sx /= n
        sy /= n
        cx /= n
        cy /= n
        var s0 = 0.0
        var s1 = 0.0
        for s in 0..<TouchFrame.capacity where fingers[s].takesPart(at: now) {
            s0 += Trig.hypot(fingers[s].refX - sx, fingers[s].refY - sy)
            s1 += Trig.hypot(fingers[s].x - cx, fingers[s].y - cy)
        }
        s0 /= n
        s1 /= n
        return (Int(n), Trig.hypot(cx - sx, cy - sy), abs(s1 - s0), s0, s1)
    }

    func centroidNow(_ now: Timestamp) -> (x: Double, y: Double, n: Int) {
        var n = 0
        var cx = 0.0
        var cy = 0.0
        for s in 0..<TouchFrame.capacity where fingers[s].takesPart(at: now) {
            cx += fingers[s].x
            cy += fingers[s].y
            n += 1
        }
        return n == 0 ? (0, 0, 0) : (cx / Double(n), cy / Double(n), n)
    }

    func landingCentroid() -> (x: Double, y: Double) {
        var n = 0.0
        var cx = 0.0
        var cy = 0.0
        for s in 0..<TouchFrame.capacity where fingers[s].isMember && fingers[s].downTime >= groupStart {
            cx += fingers[s].startX
            cy += fingers[s].startY
            n += 1
        }
        return n == 0 ? (startX, startY) : (cx / n, cy / n)
    }

    /// Every member's contact was short enough for a tap.
    func allShort(now: Timestamp) -> Bool {
        for s in 0..<TouchFrame.capacity where fingers[s].isMember && fingers[s].downTime >= groupStart {
            let end = fingers[s].isDown ? now : fingers[s].liftedAt
            if end - fingers[s].downTime > t.tapMaxDuration { return false }
        }
        return true
    }

    /// The release velocity: each member's own fit at its lift, averaged.
    func releaseVelocity() -> (vx: Double, vy: Double) {
        var n = 0.0
        var vx = 0.0
        var vy = 0.0
        for s in 0..<TouchFrame.capacity
        where fingers[s].isMember && fingers[s].downTime >= groupStart && !fingers[s].isDown {
            vx += fingers[s].releaseVX
            vy += fingers[s].releaseVY
            n += 1
        }
        return n == 0 ? (0, 0) : (vx / n, vy / n)
    }

    /// The current velocity of the members down, averaged.
    func currentVelocity(now: Timestamp) -> (vx: Double, vy: Double) {
        var n = 0.0
        var vx = 0.0
        var vy = 0.0
        for s in 0..<TouchFrame.capacity where fingers[s].isMember && fingers[s].isDown {
            let v = histories[s].velocity(at: now, window: t.velocityWindow)
            vx += v.vx
            vy += v.vy
            n += 1
        }
        return n == 0 ? (0, 0) : (vx / n, vy / n)
    }
}
