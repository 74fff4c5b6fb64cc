/// The touch group: the fingers of one gesture, from the first landing to the
/// last lift, and the one machine that decides which gesture they make (as
/// libinput's gesture code does: one machine arbitrates between competing
/// gestures). Each gesture's own tracking and decision live in `Gestures/`;
/// this file holds the states, the events, and the handlers that call them.
/// Drawn in docs/state-machines.md, which is its specification: a test checks
/// that every transition met while replaying the recordings is drawn there.
struct TouchGroup: Sendable {
    /// States of the touch-group machine.
    enum State: String, Sendable, CaseIterable {
        /// No finger down.
        case idle
        /// Fingers down, nothing decided: a tap, a hold, a drag, a pinch or a rotation.
        case touching
        /// Several fingers moved, but not yet by the decision distance
        /// (`pinch.minSpanChange`): a drag, a pinch, a rotation, or at the hold
        /// deadline a hold. No longer a tap.
        case undecided
        /// Touch-and-hold has begun.
        case holding
        /// A drag has begun.
        case dragging
        /// A pinch has begun.
        case pinching
        /// A rotation has begun.
        case rotating
        /// The gesture is over or void; waiting for every finger to lift.
        case finished

        /// The state's handler tells one kind of motion from another (the
        /// others take every motion alike).
        var weighsMotion: Bool {
            switch self {
            case .touching, .undecided, .holding: true
            case .idle, .dragging, .pinching, .rotating, .finished: false
            }
        }

        /// Fingers landing in this state join the group; elsewhere they are
        /// ignored (a drag keeps its finger count; a finished group is over).
        var acceptsFingers: Bool {
            switch self {
            case .idle, .touching, .undecided, .holding, .pinching, .rotating: true
            case .dragging, .finished: false
            }
        }
    }

    /// Events of the touch-group machine: frames and timers classified.
    enum Event: String, Sendable, CaseIterable {
        case fingerDown = "finger-down"
        /// A member lifted and others remain.
        case fingerUp = "finger-up"
        /// The last member lifted.
        case lastUp = "last-up"
        /// Members moved, and their motion does not count (yet): within slop,
        /// or a tap rolling within `tap.maxRoll`.
        case still
        /// One finger moved.
        case movedOne = "moved-one"
        /// Several fingers moved, less than the decision distance.
        case movedMany = "moved-many"
        /// Several fingers moved by the decision distance, mostly together;
        /// in a pinch or rotation, by `drag.switchTravel` with span and angle steady.
        case movedTogether = "moved-together"
        /// Several fingers moved by the decision distance, mostly apart or
        /// closer; in a drag, their span changed by `pinch.switchRatio`.
        case movedApart = "moved-apart"
        /// Several fingers moved by the decision distance, mostly around their centroid.
        case movedAround = "moved-around"
        /// The settle window passed.
        case settled
        /// `hold.minDuration` passed since the first touch (or, for a touch
        /// that was creeping then, `holdRecheck` since the last look).
        case holdDeadline = "hold-deadline"
        /// A finger of the group that lifted landed again within
        /// `bounce.maxInterval` and `bounce.maxDistance` of where it lifted,
        /// while others were down: the same finger, not a new one.
        case fingerBack = "finger-back"
        /// A pinch or rotation left with one finger waited `bounce.maxInterval`
        /// and the lifted finger did not come back.
        case bounceOver = "bounce-over"
        /// A hold made only of contacts resting at the bezel, and a finger
        /// lands away from it: the hold was a hand gripping the device.
        case grip
        /// A member's touch was cancelled (palm) or the device went away.
        case cancel
    }

    /// The first touch.
    var start: Timestamp = .zero
    var settleDeadline: Timestamp = .never
    var holdDeadline: Timestamp = .never
    /// A pinch or rotation whose second-to-last finger lifted ends here,
    /// unless that finger bounces back first.
    var endDeadline: Timestamp = .never
    /// The gesture under way began as another kind (a drag that became a
    /// pinch, or the other way round): it is no swipe.
    var switched = false
    /// Members that landed within `grip.band` of an edge.
    var atBezel = SlotSet()
    /// A drag's spread at the members' references (`kindChange`), and the
    /// fingers it was measured over.
    var spreadStart = 0.0
    var spreadFingers = SlotSet()
    /// Until then a member that lifted while others stayed down may bounce
    /// back (`bounce.maxInterval`): before a decision, the others' motion
    /// waits for it.
    var bounceUntil: Timestamp = .zero
    /// The panel edge the first touch landed at.
    var edge: PanelEdge?
    /// The group's finger count: the most of its fingers down at once (a
    /// finger that lifts and another that lands after it make one, not two).
    var touched = 0
    /// The group's motion counts for decisions: it left the allowance for a
    /// rolling tap (see `updateMoved`), or a hold began.
    var moved = false
    /// Centroid translation since the first touch, accumulated frame to frame
    /// over the fingers down in both frames (no jump when one lands or lifts).
    var tx = 0.0, ty = 0.0
    /// Where the translation stood when the members' references were last
    /// moved (0 unless a hold began): where a drag after a hold measures from.
    var originX = 0.0, originY = 0.0

    var tap = Tap.Candidate()
    var hold = Hold()
    var drag = Drag()
    var swipe = Swipe.Path()
    var pinch = Pinch()
    var rotate = Rotate()
    /// Scale and turn of a pinch or a rotation, accumulated frame to frame.
    var transform = Transform()

    init() {}

    init(start: Timestamp, edge: PanelEdge?, t: ResolvedThresholds) {
        self.start = start
        self.edge = edge
        settleDeadline = start + t.settle
        holdDeadline = start + t.holdMinDuration
    }
}

/// The handlers: one per state, each an exhaustive switch over every event, no `default:`.
extension DeviceRecognizer {
    typealias State = TouchGroup.State
    typealias Event = TouchGroup.Event

    mutating func handle(_ event: Event, now: Timestamp) {
        let old = state
        switch state {
        case .idle: handleIdle(event, now: now)
        case .touching: handleTouching(event, now: now)
        case .undecided: handleUndecided(event, now: now)
        case .holding: handleHolding(event, now: now)
        case .dragging: handleDragging(event, now: now)
        case .pinching: handlePinching(event, now: now)
        case .rotating: handleRotating(event, now: now)
        case .finished: handleFinished(event, now: now)
        }
        log.record(machine: .touchGroup, from: old.rawValue, event: event.rawValue, to: state.rawValue, at: now)
    }

    /// `finished` → `idle` once every finger, gesture member or not, has lifted.
    mutating func allLifted(now: Timestamp) {
        state = .idle
        log.record(machine: .touchGroup, from: State.finished.rawValue, event: "all-up", to: state.rawValue, at: now)
    }

    /// Where a group goes when its gesture is over: `idle`, or `finished`
    /// while some of its fingers are down. Contacts that are not fingers of
    /// it (a grip, a palm, a finger that landed once a drag was decided)
    /// do not keep the next gesture from beginning.
    private var over: State { memberDown > 0 ? .finished : .idle }

    private mutating func handleIdle(_ event: Event, now: Timestamp) {
        switch event {
        case .fingerDown:
            state = .touching
        case .fingerUp, .lastUp, .still, .movedOne, .movedMany, .movedTogether, .movedApart, .movedAround, .settled,
            .holdDeadline, .fingerBack, .bounceOver, .grip, .cancel:
            bug(event, now: now)
        }
    }

    private mutating func handleTouching(_ event: Event, now: Timestamp) {
        switch event {
        case .fingerDown, .still, .fingerBack:
            break
        case .fingerUp:
            // A stroke quicker than the settle window lifts its first finger
            // while every finger is still on it: decide now, with all of them.
            if group.moved, let e = classifyAtLift(motion(now: now)) { decide(e, now: now) }
        case .lastUp:
            let lift = groupMotion()
            if group.moved || lift.largest > t.slop {
                // Moved, or rolled and lifted away from where it landed: a short stroke.
                notTap(now: now)
                decideAtLift(now: now)
            } else if let info = group.tap.decide(
                fingers, group: inGroup, touched: group.touched, edge: group.edge, t: t, now: now)
            {
                if wantDoubleTap && immediateTaps && !taps.touchIsBounce {
                    emit(Tap.event(info, taps: 1, id: newID(), timing: .immediate, base(now: now, x: info.x, y: info.y)))
                }
                report(taps.handle(.tap, tap: info, now: now, wantDoubleTap: wantDoubleTap, t: t, log: &log))
            } else {
                // Longer than a tap, and the hold never began (tap.maxDuration below hold.minDuration).
                notTap(now: now)
            }
            state = over
        case .movedOne, .movedMany, .movedTogether, .movedApart, .movedAround:
            notTap(now: now)
            if now - group.start >= t.settle { decide(event, now: now) }
        case .settled:
            if group.moved {
                decide(classify(motion(now: now)), now: now)
            } else if motion(now: now).largest <= t.slop {
                rebaseMembers()
            }
        case .holdDeadline:
            guard !group.moved, memberDown > 0, !dropGrips(now: now) else { break }
            if motion(now: now).largest > t.slop {
                // Rolled away and resting there past the roll window: it moved.
                group.moved = true
                notTap(now: now)
                decide(classify(motion(now: now)), now: now)
            } else if isCreeping(now: now) {
                // Moving steadily, if slowly: not still. Look again soon.
                notTap(now: now)
                group.holdDeadline = now + t.holdRecheck
            } else {
                notTap(now: now)
                beginHold(now: now)
            }
        case .bounceOver, .grip:
            bug(event, now: now)
        case .cancel:
            notTap(now: now)
            state = .finished
        }
    }

    private mutating func handleUndecided(_ event: Event, now: Timestamp) {
        switch event {
        case .fingerDown, .fingerUp, .still, .movedMany, .fingerBack:
            break
        case .lastUp:
            // Several fingers that never moved far enough to decide: no gesture.
            state = over
        case .movedOne, .movedTogether, .movedApart, .movedAround:
            decide(event, now: now)
        case .holdDeadline:
            // Several fingers that moved less than the decision distance have
            // decided nothing: they are still, as a group, and now held.
            guard memberDown > 0, !dropGrips(now: now) else { break }
            if isCreeping(now: now) {
                group.holdDeadline = now + t.holdRecheck
            } else {
                beginHold(now: now)
            }
        case .settled, .bounceOver, .grip:
            bug(event, now: now)
        case .cancel:
            state = .finished
        }
    }

    private mutating func handleHolding(_ event: Event, now: Timestamp) {
        switch event {
        case .fingerDown:
            // More fingers land on the hold: they join it, and the hand's motion
            // is measured from here.
            rebaseMembers()
            group.originX = group.tx
            group.originY = group.ty
        case .fingerUp, .fingerBack:
            break
        case .lastUp:
            emit(group.hold.event(.ended, base(.ended, now: now), tx: group.tx, ty: group.ty))
            state = over
        case .still, .movedOne, .movedMany:
            if wantsChanges(of: .touchAndHold) {
                emit(group.hold.event(.changed, base(.changed, now: now), tx: group.tx, ty: group.ty))
            }
        case .movedTogether, .movedApart, .movedAround:
            // A hand resting, then moving: the hold ends and the hand's
            // gesture begins, with every finger down.
            emit(group.hold.event(.ended, base(.ended, now: now), tx: group.tx, ty: group.ty))
            begin(event, fingers: memberDown, now: now)
        case .grip:
            // It ends; the grip is no finger of what comes next, and the
            // finger landing begins a gesture of its own.
            emit(group.hold.event(.ended, base(.ended, now: now), tx: group.tx, ty: group.ty))
            for s in inGroup & down { leaveGroup(s) }
            state = .idle
        case .settled, .holdDeadline, .bounceOver:
            bug(event, now: now)
        case .cancel:
            emit(group.hold.event(.cancelled, base(.cancelled, now: now), tx: group.tx, ty: group.ty))
            state = .finished
        }
    }

    private mutating func handleDragging(_ event: Event, now: Timestamp) {
        switch event {
        case .fingerDown, .fingerUp, .fingerBack:
            break
        case .lastUp:
            endDrag(now: now)
            state = over
        case .movedApart:
            // The fingers' span changed by a clear margin (`kindChange`): the
            // drag ends where it got to and a pinch begins with the fingers down.
            emit(
                group.drag.event(
                    .ended, base(.ended, now: now), tx: group.tx, ty: group.ty, velocity: currentVelocity(now: now)))
            switchTo(event, now: now)
        case .still, .movedOne, .movedMany, .movedTogether, .movedAround:
            if wantsChanges(of: .drag) {
                emit(
                    group.drag.event(
                        .changed, base(.changed, now: now), tx: group.tx, ty: group.ty, velocity: currentVelocity(now: now)))
            }
        case .settled, .holdDeadline, .bounceOver, .grip:
            bug(event, now: now)
        case .cancel:
            emit(group.drag.event(.cancelled, base(.cancelled, now: now), tx: group.tx, ty: group.ty, velocity: nil))
            state = .finished
        }
    }

    private mutating func handlePinching(_ event: Event, now: Timestamp) { handleTransforming(event, now: now) }

    private mutating func handleRotating(_ event: Event, now: Timestamp) { handleTransforming(event, now: now) }

    /// A pinch and a rotation go on alike: fingers may join, and they end when
    /// fewer than two remain.
    private mutating func handleTransforming(_ event: Event, now: Timestamp) {
        switch event {
        case .fingerDown:
            break
        case .fingerUp:
            // Fewer than two remain: over, unless the finger bounces back
            // (`bounce.maxInterval`).
            if memberDown < 2 && group.endDeadline == .never { group.endDeadline = now + t.bounceMaxInterval }
        case .fingerBack:
            if memberDown >= 2 { group.endDeadline = .never }
        case .bounceOver:
            if memberDown < 2 {
                emit(transformEvent(.ended, now: now))
                state = over
            }
        case .lastUp:
            group.endDeadline = .never
            emit(transformEvent(.ended, now: now))
            state = over
        case .movedTogether:
            // The fingers travelled together with span and angle steady
            // (`kindChange`): it ends where it got to and a drag begins.
            emit(transformEvent(.ended, now: now))
            switchTo(event, now: now)
        case .still, .movedOne, .movedMany, .movedApart, .movedAround:
            if wantsChanges(of: state == .rotating ? .rotate : .pinch) { emit(transformEvent(.changed, now: now)) }
        case .settled, .holdDeadline, .grip:
            bug(event, now: now)
        case .cancel:
            group.endDeadline = .never
            emit(transformEvent(.cancelled, now: now))
            state = .finished
        }
    }

    /// The event of the pinch or rotation under way.
    private func transformEvent(_ phase: GesturePhase, now: Timestamp) -> GestureEvent {
        state == .rotating
            ? group.rotate.event(phase, base(phase, now: now), transform: group.transform)
            : group.pinch.event(phase, base(phase, now: now), transform: group.transform)
    }

    private mutating func handleFinished(_ event: Event, now: Timestamp) {
        switch event {
        case .fingerDown, .fingerUp, .lastUp, .still, .movedOne, .movedMany, .movedTogether, .movedApart, .movedAround,
            .fingerBack, .cancel:
            break
        case .settled, .holdDeadline, .bounceOver, .grip:
            bug(event, now: now)
        }
    }

    // MARK: - Classification

    /// Decides whether the group's motion counts. A touch may roll: until
    /// `tap.rollWindow` has passed since the first touch, its fingers may move
    /// up to `tap.maxRoll` beyond slop and it is still a tap if they come back
    /// (`Tap`). The motion counts once it goes beyond `tap.maxRoll`, or beyond
    /// slop after the roll window. One finger is measured by its own
    /// displacement; several by the group's travel, span change and turn, as
    /// fingers roll as they press (2.2 mm in the Atmel two-finger recording).
    mutating func updateMoved(_ m: GroupMotion, now: Timestamp) {
        guard !group.moved, state == .touching || state == .undecided else { return }
        let d = m.largest
        if d > t.tapMaxRoll || (d > t.slop && now - group.start >= t.tapRollWindow) { group.moved = true }
    }

    /// Classifies the group's motion into an event (the geometry is in `GroupMotion`).
    func classify(_ m: GroupMotion) -> Event {
        guard group.moved else { return .still }
        if m.count <= 1 { return .movedOne }
        guard let kind = m.kind(decision: t.pinchMinSpanChange) else { return .movedMany }
        return Self.event(kind)
    }

    /// The motion event of a kind of multi-finger motion.
    static func event(_ kind: GroupMotion.Kind) -> Event {
        switch kind {
        case .together: .movedTogether
        case .apart: .movedApart
        case .around: .movedAround
        }
    }

    /// The motion event of fingers that are lifting: decided now, with no
    /// waiting for a mixed motion to clear; several fingers that moved less
    /// than the decision distance make none.
    func classifyAtLift(_ m: GroupMotion) -> Event? {
        if m.count <= 1 { return .movedOne }
        if m.largest < t.pinchMinSpanChange { return nil }
        return Self.event(m.kindNow)
    }

    /// Whether a touch that stayed within slop is creeping at its hold
    /// deadline: the trend of some member down (`SampleRing.trend`, over
    /// `holdCreepWindow`) carries it at least `hold.maxCreep` over that
    /// window. A finger that wobbles in place, or drifted as it pressed and
    /// came to rest, has no such trend and is still.
    func isCreeping(now: Timestamp) -> Bool {
        let limit = t.holdMaxCreep / t.holdCreepWindow.seconds
        for s in inGroup & down {
            let v = paths[s].trend(at: now, window: t.holdCreepWindow)
            if Trig.hypot(v.vx, v.vy) >= limit { return true }
        }
        return false
    }

    /// Whether the continuous gesture under way has clearly become another
    /// kind, measured from the members' references (where they were when it
    /// began, or when a pinch or rotation last changed its span or angle):
    /// `.movedApart` for a drag whose span changed by `pinch.switchRatio` of
    /// itself and at least twice `pinch.minSpanChange`; `.movedTogether` for
    /// a pinch or rotation whose fingers travelled `drag.switchTravel` while
    /// span and angle changed less than `pinch.minSpanChange`. `.still`
    /// otherwise, and once the group has changed its kind: the gesture goes on.
    mutating func kindChange(now: Timestamp) -> Event {
        // Once only: a hand that wavers between the two keeps the second.
        guard memberDown >= 2, !group.switched else { return .still }
        if state == .dragging {
            // Only the span counts here, taken as the fingers' spread
            // (`spread`): one square root a frame. Measured again at the
            // references when the fingers down change.
            let slots = inGroup & down
            if slots != group.spreadFingers {
                group.spreadFingers = slots
                group.spreadStart = spread(slots, atReferences: true)
            }
            let margin = max(2 * t.pinchMinSpanChange, t.pinchSwitchRatio * group.spreadStart)
            return abs(spread(slots, atReferences: false) - group.spreadStart) >= margin ? .movedApart : .still
        }
        let m = GroupMotion(fingers, inGroup & down)
        if m.spanChange >= t.pinchMinSpanChange || m.arc >= t.pinchMinSpanChange {
            // Still pinching or turning: measure any travel from here.
            rebaseMembers()
            return .still
        }
        return m.travel >= t.dragSwitchTravel ? .movedTogether : .still
    }

    /// The motion of every finger that took part, each where it is or where it
    /// lifted: how far a lifting group got from where it landed.
    func groupMotion() -> GroupMotion { GroupMotion(fingers, inGroup) }

    // MARK: - Decisions

    /// Moves from an undecided state on a classified motion.
    private mutating func decide(_ event: Event, now: Timestamp) {
        switch event {
        case .movedOne, .movedTogether, .movedApart, .movedAround: begin(event, fingers: group.touched, now: now)
        case .movedMany: state = .undecided
        case .fingerDown, .fingerUp, .lastUp, .still, .settled, .holdDeadline, .fingerBack, .bounceOver, .grip, .cancel: break
        }
    }

    /// Begins the gesture a decisive motion makes.
    private mutating func begin(_ event: Event, fingers n: Int, now: Timestamp) {
        switch event {
        case .movedApart:
            group.transform = Transform(motion(now: now))
            group.pinch = Pinch(id: newID(), fingers: n)
            state = .pinching
            emit(transformEvent(.began, now: now))
        case .movedAround:
            group.transform = Transform(motion(now: now))
            group.rotate = Rotate(id: newID(), fingers: n)
            state = .rotating
            emit(transformEvent(.began, now: now))
        case .movedOne, .movedTogether, .movedMany:
            group.drag = Drag(id: newID(), fingers: max(1, n), originX: group.originX, originY: group.originY)
            state = .dragging
            emit(
                group.drag.event(.began, base(.began, now: now), tx: group.tx, ty: group.ty, velocity: currentVelocity(now: now)))
        case .fingerDown, .fingerUp, .lastUp, .still, .settled, .holdDeadline, .fingerBack, .bounceOver, .grip, .cancel:
            break
        }
        // A change of kind (`kindChange`) is measured from here.
        rebaseMembers()
    }

    /// Begins the gesture a continuous one turned into, with the fingers
    /// down: its translation counts from here, and it is no swipe.
    private mutating func switchTo(_ event: Event, now: Timestamp) {
        group.switched = true
        group.endDeadline = .never
        group.originX = group.tx
        group.originY = group.ty
        begin(event, fingers: memberDown, now: now)
    }

    /// The group lifted after moving but before anything was decided (a
    /// stroke quicker than the settle window): decide now, begin and end at
    /// once. Several fingers that never moved by the decision distance stay
    /// undecided: no gesture.
    private mutating func decideAtLift(now: Timestamp) {
        guard let kind = classifyAtLift(motion(now: now)) else { return }
        begin(kind, fingers: group.touched, now: now)
        if state == .dragging { endDrag(now: now) } else { emit(transformEvent(.ended, now: now)) }
    }

    private mutating func beginHold(now: Timestamp) {
        // From here on the hand's motion counts, measured from where it rests.
        group.moved = true
        rebaseMembers()
        group.originX = group.tx
        group.originY = group.ty
        group.hold = Hold(id: newID(), fingers: memberDown, originX: group.tx, originY: group.ty)
        state = .holding
        emit(group.hold.event(.began, base(.began, now: now), tx: group.tx, ty: group.ty))
    }

    /// Ends a drag at its last lift, then reports the flick and the swipe it may also be.
    private mutating func endDrag(now: Timestamp) {
        let v = releaseVelocity()
        let b = base(.ended, now: now)
        emit(group.drag.event(.ended, b, tx: group.tx, ty: group.ty, velocity: v))
        if let flick = Flick.decide(velocity: v, t: t) {
            emit(flick.event(id: newID(), b, drag: group.drag, tx: group.tx, ty: group.ty, deceleration: t.flickDeceleration))
        }
        if !group.switched, let swipe = group.swipe.decide(tx: group.tx, ty: group.ty, duration: now - group.start, t: t) {
            emit(swipe.event(id: newID(), b, drag: group.drag, tx: group.tx, ty: group.ty, velocity: v))
        }
    }

    private mutating func notTap(now: Timestamp) {
        guard group.tap.possible else { return }
        group.tap.possible = false
        report(taps.handle(.notTap, now: now, wantDoubleTap: wantDoubleTap, t: t, log: &log))
    }

    private mutating func bug(_ event: Event, now: Timestamp) {
        log.anomaly(machine: .touchGroup, state: state.rawValue, event: event.rawValue, at: now)
    }
}
