/// The touch-group machine's handlers: one per state, each an exhaustive
/// switch over every event, no `default:`.
extension DeviceRecognizer {
    mutating func handle<S: GestureSink>(_ event: Event, now: Timestamp, ids: inout UInt64, sink: inout S) {
        let old = state
        switch state {
        case .idle: handleIdle(event, now: now, ids: &ids, sink: &sink)
        case .touching: handleTouching(event, now: now, ids: &ids, sink: &sink)
        case .dragOrPinch: handleDragOrPinch(event, now: now, ids: &ids, sink: &sink)
        case .holding: handleHolding(event, now: now, ids: &ids, sink: &sink)
        case .dragging: handleDragging(event, now: now, ids: &ids, sink: &sink)
        case .pinching: handlePinching(event, now: now, ids: &ids, sink: &sink)
        case .finished: handleFinished(event, now: now, ids: &ids, sink: &sink)
        }
        log.record(machine: .touchGroup, from: old.rawValue, event: event.rawValue, to: state.rawValue, at: now)
    }

    /// `finished` → `idle` once every finger, gesture member or not, has lifted.
    mutating func allLifted(now: Timestamp) {
        state = .idle
        log.record(machine: .touchGroup, from: State.finished.rawValue, event: "all-up", to: state.rawValue, at: now)
    }

    private mutating func handleIdle<S: GestureSink>(_ event: Event, now: Timestamp, ids: inout UInt64, sink: inout S) {
        switch event {
        case .fingerDown:
            state = .touching
        case .fingerUp, .lastUp, .still, .movedOne, .movedMany, .movedTogether, .movedApart, .settled, .holdDeadline, .cancel:
            bug(event, now: now)
        }
    }

    private mutating func handleTouching<S: GestureSink>(_ event: Event, now: Timestamp, ids: inout UInt64, sink: inout S) {
        switch event {
        case .fingerDown, .fingerUp, .still:
            break
        case .lastUp:
            if moved {
                notTap(now: now, ids: &ids, sink: &sink)
                decideAtLift(now: now, ids: &ids, sink: &sink)
            } else if tapPossible && allShort(now: now) {
                tapPossible = false
                let c = landingCentroid()
                let info = TapInfo(lift: now, x: c.x, y: c.y, fingers: touched, edge: edge)
                if wantDoubleTap && immediateTaps && !taps.touchIsBounce {
                    ids += 1
                    emitTap(.tap, info: info, taps: 1, id: ids, at: now, timing: .immediate, sink: &sink)
                }
                deliver(
                    taps.handle(.tap, tap: info, now: now, wantDoubleTap: wantDoubleTap, t: t, log: &log), ids: &ids, sink: &sink)
            } else {
                // Longer than a tap, and the hold never began (tap.maxDuration below hold.minDuration).
                notTap(now: now, ids: &ids, sink: &sink)
            }
            state = hasFingersDown ? .finished : .idle
        case .movedOne, .movedMany, .movedTogether, .movedApart:
            notTap(now: now, ids: &ids, sink: &sink)
            if now - groupStart >= t.settle { decide(event, now: now, ids: &ids, sink: &sink) }
        case .settled:
            if moved {
                decide(classifyMotion(now: now), now: now, ids: &ids, sink: &sink)
            } else {
                rebaseReferences(now: now)
            }
        case .holdDeadline:
            guard !moved, memberDown > 0 else { break }
            notTap(now: now, ids: &ids, sink: &sink)
            beginHold(now: now, ids: &ids, sink: &sink)
        case .cancel:
            notTap(now: now, ids: &ids, sink: &sink)
            state = .finished
        }
    }

    private mutating func handleDragOrPinch<S: GestureSink>(_ event: Event, now: Timestamp, ids: inout UInt64, sink: inout S) {
        switch event {
        case .fingerDown, .fingerUp, .still, .movedMany:
            break
        case .lastUp:
            // Several fingers that never moved far enough to decide: no gesture.
            state = hasFingersDown ? .finished : .idle
        case .movedOne, .movedTogether, .movedApart:
            decide(event, now: now, ids: &ids, sink: &sink)
        case .holdDeadline:
            // Several fingers that moved less than pinch.minSpanChange have
            // decided nothing: they are still, as a group, and now held.
            guard memberDown > 0 else { break }
            beginHold(now: now, ids: &ids, sink: &sink)
        case .settled:
            bug(event, now: now)
        case .cancel:
            state = .finished
        }
    }

    private mutating func handleHolding<S: GestureSink>(_ event: Event, now: Timestamp, ids: inout UInt64, sink: inout S) {
        switch event {
        case .fingerDown, .fingerUp:
            break
        case .lastUp:
            var e = makeEvent(.touchAndHold, .ended, now: now)
            e.dx = tx - beganTX
            e.dy = ty - beganTY
            send(e, to: &sink)
            state = hasFingersDown ? .finished : .idle
        case .still, .movedOne, .movedMany, .movedTogether, .movedApart:
            var e = makeEvent(.touchAndHold, .changed, now: now)
            e.dx = tx - beganTX
            e.dy = ty - beganTY
            send(e, to: &sink)
        case .settled, .holdDeadline:
            bug(event, now: now)
        case .cancel:
            send(makeEvent(.touchAndHold, .cancelled, now: now), to: &sink)
            state = .finished
        }
    }

    private mutating func handleDragging<S: GestureSink>(_ event: Event, now: Timestamp, ids: inout UInt64, sink: inout S) {
        switch event {
        case .fingerDown, .fingerUp:
            break
        case .lastUp:
            endDrag(now: now, ids: &ids, sink: &sink)
            state = hasFingersDown ? .finished : .idle
        case .still, .movedOne, .movedMany, .movedTogether, .movedApart:
            sendDragMotion(.changed, now: now, sink: &sink)
        case .settled, .holdDeadline:
            bug(event, now: now)
        case .cancel:
            var e = makeEvent(.drag, .cancelled, now: now)
            e.dx = tx
            e.dy = ty
            send(e, to: &sink)
            state = .finished
        }
    }

    private mutating func handlePinching<S: GestureSink>(_ event: Event, now: Timestamp, ids: inout UInt64, sink: inout S) {
        switch event {
        case .fingerDown:
            break
        case .fingerUp:
            // The lifting finger still takes part in this frame; fewer than two remain: over.
            if memberDown < 2 {
                endPinch(now: now, sink: &sink)
                state = .finished
            }
        case .lastUp:
            endPinch(now: now, sink: &sink)
            state = hasFingersDown ? .finished : .idle
        case .still, .movedOne, .movedMany, .movedTogether, .movedApart:
            var e = makeEvent(.pinch, .changed, now: now)
            e.scale = scale
            e.rotation = rotation
            send(e, to: &sink)
        case .settled, .holdDeadline:
            bug(event, now: now)
        case .cancel:
            var e = makeEvent(.pinch, .cancelled, now: now)
            e.scale = scale
            e.rotation = rotation
            send(e, to: &sink)
            state = .finished
        }
    }

    private mutating func handleFinished<S: GestureSink>(_ event: Event, now: Timestamp, ids: inout UInt64, sink: inout S) {
        switch event {
        case .fingerDown, .fingerUp, .lastUp, .still, .movedOne, .movedMany, .movedTogether, .movedApart, .cancel:
            break
        case .settled, .holdDeadline:
            bug(event, now: now)
        }
    }

    // MARK: - Decisions

    /// Classifies the group's motion into an event (the geometry lives here).
    func classifyMotion(now: Timestamp) -> Event {
        guard moved else { return .still }
        let g = spreadSummary(now: now)
        if g.count <= 1 { return .movedOne }
        if max(g.centroidMove, g.spanChange) < t.pinchMinSpanChange { return .movedMany }
        return g.spanChange >= 0.5 * g.centroidMove ? .movedApart : .movedTogether
    }

    /// Moves from an undecided state on a classified motion.
    private mutating func decide<S: GestureSink>(_ event: Event, now: Timestamp, ids: inout UInt64, sink: inout S) {
        switch event {
        case .movedOne, .movedTogether: beginDrag(now: now, ids: &ids, sink: &sink)
        case .movedApart: beginPinch(now: now, ids: &ids, sink: &sink)
        case .movedMany: state = .dragOrPinch
        case .fingerDown, .fingerUp, .lastUp, .still, .settled, .holdDeadline, .cancel: break
        }
    }

    /// The group lifted after moving but before anything was decided (a
    /// stroke quicker than the settle window): decide now, begin and end at
    /// once. Several fingers that never moved by `pinch.minSpanChange` stay
    /// undecided: no gesture.
    private mutating func decideAtLift<S: GestureSink>(now: Timestamp, ids: inout UInt64, sink: inout S) {
        let g = spreadSummary(now: now)
        if g.count >= 2 && max(g.centroidMove, g.spanChange) < t.pinchMinSpanChange { return }
        if g.count >= 2 && g.spanChange >= 0.5 * g.centroidMove {
            beginPinch(now: now, ids: &ids, sink: &sink)
            scale = g.spanStart > 1e-6 ? g.spanNow / g.spanStart : 1
            endPinch(now: now, sink: &sink)
        } else {
            beginDrag(now: now, ids: &ids, sink: &sink)
            endDrag(now: now, ids: &ids, sink: &sink)
        }
    }

    private mutating func beginHold<S: GestureSink>(now: Timestamp, ids: inout UInt64, sink: inout S) {
        ids += 1
        gestureID = ids
        gestureFingers = memberDown
        beganTX = tx
        beganTY = ty
        state = .holding
        var e = makeEvent(.touchAndHold, .began, now: now)
        e.dx = 0
        e.dy = 0
        send(e, to: &sink)
    }

    private mutating func beginDrag<S: GestureSink>(now: Timestamp, ids: inout UInt64, sink: inout S) {
        ids += 1
        gestureID = ids
        gestureFingers = max(1, centroidNow(now).n)
        state = .dragging
        sendDragMotion(.began, now: now, sink: &sink)
    }

    /// A drag's `began` or `changed`: translation so far and the current velocity.
    private mutating func sendDragMotion<S: GestureSink>(_ phase: GesturePhase, now: Timestamp, sink: inout S) {
        send(strokeEvent(.drag, phase, id: gestureID, now: now, velocity: currentVelocity(now: now)), to: &sink)
    }

    /// An event carrying the stroke: translation since the first touch, its length, and `velocity`.
    private func strokeEvent(
        _ kind: GestureKind, _ phase: GesturePhase, id: UInt64, now: Timestamp, velocity v: (vx: Double, vy: Double)
    ) -> GestureEvent {
        var e = makeEvent(kind, phase, id: id, now: now)
        e.dx = tx
        e.dy = ty
        e.distance = Trig.hypot(tx, ty)
        e.vx = v.vx
        e.vy = v.vy
        return e
    }

    private mutating func beginPinch<S: GestureSink>(now: Timestamp, ids: inout UInt64, sink: inout S) {
        ids += 1
        gestureID = ids
        gestureFingers = centroidNow(now).n
        scale = 1
        rotation = 0
        state = .pinching
        var e = makeEvent(.pinch, .began, now: now)
        e.scale = 1
        e.rotation = 0
        send(e, to: &sink)
    }

    private mutating func endPinch<S: GestureSink>(now: Timestamp, sink: inout S) {
        var e = makeEvent(.pinch, .ended, now: now)
        e.scale = scale
        e.rotation = rotation
        e.direction = scale >= 1 ? .open : .close
        send(e, to: &sink)
    }

    /// Ends a drag at its last lift, then reports the flick and swipe it may also be.
    private mutating func endDrag<S: GestureSink>(now: Timestamp, ids: inout UInt64, sink: inout S) {
        let v = releaseVelocity()
        send(strokeEvent(.drag, .ended, id: gestureID, now: now, velocity: v), to: &sink)
        if Trig.hypot(v.vx, v.vy) >= t.flickMinVelocity {
            ids += 1
            var e = strokeEvent(.flick, .recognized, id: ids, now: now, velocity: v)
            e.direction = GestureDirection.octant(dx: v.vx, dy: v.vy)
            e.deceleration = t.flickDeceleration
            send(e, to: &sink)
        }
        let major = max(abs(tx), abs(ty))
        let minor = min(abs(tx), abs(ty))
        let axis = GestureDirection.axis(dx: tx, dy: ty)
        let pathOK: Bool
        switch axis {
        case .right: pathOK = !coneBroken.right
        case .left: pathOK = !coneBroken.left
        case .down: pathOK = !coneBroken.down
        default: pathOK = !coneBroken.up
        }
        if major >= t.swipeMinDistance && now - groupStart <= t.swipeMaxDuration && minor <= major * t.swipeMaxSlope && pathOK {
            ids += 1
            var e = strokeEvent(.swipe, .recognized, id: ids, now: now, velocity: v)
            e.direction = axis
            e.distance = major
            send(e, to: &sink)
        }
    }

    private mutating func notTap<S: GestureSink>(now: Timestamp, ids: inout UInt64, sink: inout S) {
        guard tapPossible else { return }
        tapPossible = false
        deliver(taps.handle(.notTap, now: now, wantDoubleTap: wantDoubleTap, t: t, log: &log), ids: &ids, sink: &sink)
    }

    // MARK: - Output

    mutating func deliver<S: GestureSink>(_ out: TapSequence.Output, ids: inout UInt64, sink: inout S) {
        switch out {
        case .none:
            return
        case .tap(let info, let at), .tapThenPending(let info, let at):
            ids += 1
            let timing: TapTiming = wantDoubleTap && immediateTaps ? .confirmed : .every
            emitTap(.tap, info: info, taps: 1, id: ids, at: at, timing: timing, sink: &sink)
        case .doubleTap(let first, let second):
            ids += 1
            emitTap(.doubleTap, info: first, taps: 2, id: ids, at: second.lift, timing: .every, sink: &sink)
        }
    }

    private func emitTap<S: GestureSink>(
        _ kind: GestureKind, info: TapInfo, taps: Int, id: UInt64, at: Timestamp, timing: TapTiming, sink: inout S
    ) {
        var e = GestureEvent(
            gesture: kind, phase: .recognized, id: id, time: at, device: device, deviceName: name, fingers: info.fingers,
            x: info.x, y: info.y, nx: info.x / width, ny: info.y / height, edge: info.edge)
        e.taps = taps
        e.timing = timing
        if wanted.contains(kind) { sink.receive(e) }
    }

    /// An event of the current continuous gesture at `now`, at the centroid of the fingers taking part.
    private func makeEvent(_ kind: GestureKind, _ phase: GesturePhase, now: Timestamp) -> GestureEvent {
        makeEvent(kind, phase, id: gestureID, now: now)
    }

    private func makeEvent(_ kind: GestureKind, _ phase: GesturePhase, id: UInt64, now: Timestamp) -> GestureEvent {
        let c = centroidNow(now)
        let x = c.n > 0 ? c.x : startX
        let y = c.n > 0 ? c.y : startY
        var e = GestureEvent(
            gesture: kind, phase: phase, id: id, time: now, device: device, deviceName: name, fingers: gestureFingers,
            x: x, y: y, nx: x / width, ny: y / height, edge: edge)
        if phase != .began && phase != .changed { e.duration = (now - groupStart).milliseconds }
        return e
    }

    private func send<S: GestureSink>(_ e: GestureEvent, to sink: inout S) {
        if wanted.contains(e.gesture) { sink.receive(e) }
    }

    private mutating func bug(_ event: Event, now: Timestamp) {
        log.anomaly(machine: .touchGroup, state: state.rawValue, event: event.rawValue, at: now)
    }
}
