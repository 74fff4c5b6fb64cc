/// The touch group and its arbiter: the fingers of one gesture, from the
/// first landing to the last lift, and the one machine that decides which
/// gesture they make (as libinput's gesture code does: one machine
/// arbitrates between competing gestures). This type holds the machine's
/// state, what it knows of the group under way, its handlers and its
/// timers; each gesture's own tracking and decision live in `Gestures/`.
///
/// `DeviceRecognizer` routes each contact of a frame to it (`landed`,
/// `moved`, `lifted`, `notFinger`) and fires its timers (`fire(upTo:)`);
/// every entry point is given the device's fingers, which it measures and
/// marks, and the output its events go to.
///
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
        /// A hold lasted one of `holdMarks`' times from its last landing,
        /// its fingers within `slop` of where they landed and none lifted.
        case holdMark = "hold-mark"
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

    // MARK: - What it decides with

    /// What the group decides with: set from outside (the pipeline, a turn
    /// of the screen), never by a touch, and kept whole from one group to
    /// the next (`restart`). A new setting is a field here, and nothing else
    /// has to carry it over.
    struct Settings: Sendable {
        var t: ResolvedThresholds
        /// The most taps in a row anyone wants (1 to 3): taps are held back while more may come.
        var maxTaps: Int
        /// With `wantDoubleTap`: also report each tap at its lift (`.immediate`), for
        /// subscribers that do not want double taps; held-back taps are then `.confirmed`.
        var immediateTaps = false
        /// With triple taps wanted: also report each double tap at its second
        /// lift, and a triple tap's third tap at its lift
        /// (`.immediateForDoubles`), for subscribers that want double taps
        /// and not triple taps; held-back double taps are then `.confirmedForTriples`.
        var immediateDoubleTaps = false
        /// The picture's size in the orientation in force, mm: where its edges are.
        var width: Double
        var height: Double
        /// How long subscribers wait for a still hold to last (ms,
        /// ascending, each once): a hold reports each as it is reached
        /// (`held_ms`), so that every client counts the same time with the
        /// daemon's own `slop`.
        var holdMarks: [Double] = []
    }

    var settings: Settings
    var t: ResolvedThresholds { settings.t }
    var maxTaps: Int { settings.maxTaps }
    var wantDoubleTap: Bool { settings.maxTaps > 1 }
    var immediateTaps: Bool { settings.immediateTaps }
    var immediateDoubleTaps: Bool { settings.immediateDoubleTaps }
    var width: Double { settings.width }
    var height: Double { settings.height }

    // MARK: - Its state

    private(set) var state: State = .idle
    /// The taps the groups make, one after another (`DoubleTap.swift`):
    /// the sequence outlives each group.
    var taps = TapSequence()

    // MARK: - The group under way (new at its first touch: `restart`)

    /// The first touch.
    private(set) var start: Timestamp = .zero
    private var settleDeadline: Timestamp = .never
    private var holdDeadline: Timestamp = .never
    /// The hold's fingers stayed within `slop` of where they landed, none
    /// lifting: its marks (`Settings.holdMarks`) still come.
    private var holdStill = false
    /// The hold's last landing before it reached a mark: its marks count from it.
    private var lastLanding: Timestamp = .zero
    /// The longest mark the hold reported, ms (-1: none).
    private var heldUpTo = -1.0
    /// A pinch or rotation whose second-to-last finger lifted ends here,
    /// unless that finger bounces back first.
    private var endDeadline: Timestamp = .never
    /// The gesture under way began as another kind (a drag that became a
    /// pinch, or the other way round): it is no swipe.
    private var switched = false
    /// Members that landed within `grip.band` of an edge.
    private var atBezel = SlotSet()
    /// A drag's spread at the members' references (`kindChange`), and the
    /// fingers it was measured over.
    private var spreadStart = 0.0
    private var spreadFingers = SlotSet()
    /// Until then a member that lifted while others stayed down may bounce
    /// back (`bounce.maxInterval`): before a decision, the others' motion
    /// waits for it.
    private var bounceUntil: Timestamp = .zero
    /// The panel edge the first touch landed at.
    private(set) var edge: PanelEdge?
    /// The group's finger count: the most of its fingers down at once (a
    /// finger that lifts and another that lands after it make one, not two).
    private var touched = 0
    /// The group's motion counts for decisions: it left the allowance for a
    /// rolling tap (see `updateMoved`), or a hold began.
    private var moved = false
    /// Centroid translation since the first touch, accumulated frame to frame
    /// over the fingers down in both frames (no jump when one lands or lifts).
    private var tx = 0.0, ty = 0.0
    /// Where the translation stood when the members' references were last
    /// moved (0 unless a hold began): where a drag after a hold measures from.
    private var originX = 0.0, originY = 0.0
    /// Where the group's continuous gesture is (its focal point): the
    /// centroid of the fingers taking part when the first one began, then
    /// moved by the group's translation, so that a finger landing or lifting
    /// moves it no more than the fingers move. With the translation it was
    /// taken at.
    private var focal: (x: Double, y: Double, tx: Double, ty: Double)?

    private var tap = Tap.Candidate()
    private var hold = Hold()
    private var drag = Drag()
    private var swipe = Swipe.Path()
    private var pinch = Pinch()
    private var rotate = Rotate()
    /// Scale and turn of a pinch or a rotation, accumulated frame to frame.
    private var transform = Transform()

    init(settings: Settings) { self.settings = settings }

    /// A new group begins with a finger landing at (x, y): what was known of
    /// the last one goes; the settings, the machine's state and the tap
    /// sequence stay.
    private mutating func restart(at now: Timestamp, x: Double, y: Double) {
        var next = TouchGroup(settings: settings)
        next.state = state
        next.taps = taps
        next.start = now
        next.edge = edgeAt(x: x, y: y)
        next.settleDeadline = now + t.settle
        next.holdDeadline = now + t.holdMinDuration
        self = next
    }

    // MARK: - Timers

    /// The earliest armed timer, the tap sequence's included.
    var nextDeadline: Timestamp {
        var d = taps.deadline
        if state == .touching && settleDeadline < d { d = settleDeadline }
        if (state == .touching || state == .undecided) && holdDeadline < d { d = holdDeadline }
        if (state == .pinching || state == .rotating) && endDeadline < d { d = endDeadline }
        if state == .holding {
            let m = holdMarkDeadline
            if m < d { d = m }
        }
        return d
    }

    /// When the hold reaches its next mark; `.never` with none left, or once it moved or lost a finger.
    private var holdMarkDeadline: Timestamp {
        guard holdStill, let m = settings.holdMarks.first(where: { $0 > heldUpTo }) else { return .never }
        return lastLanding + .milliseconds(m)
    }

    /// The longest mark a hold has reached at `now`, counted from `lastLanding` (-1: none).
    private func markReached(at now: Timestamp) -> Double {
        settings.holdMarks.last { lastLanding + .milliseconds($0) <= now } ?? -1
    }

    /// Fires every timer due at or before `now`, in deadline order; returns the next deadline.
    mutating func fire(upTo now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput) -> Timestamp {
        while true {
            let due = nextDeadline
            guard due <= now, due != .never else { return due }
            if due == taps.deadline {
                taps.deadline = .never
                report(taps.handle(.timeout, now: due, maxTaps: maxTaps, t: t, log: &out.log), &out)
            } else if state == .holding && due == holdMarkDeadline {
                handle(.holdMark, now: due, &f, &out)
            } else if due == settleDeadline {
                settleDeadline = .never
                handle(.settled, now: due, &f, &out)
            } else if due == endDeadline {
                endDeadline = .never
                handle(.bounceOver, now: due, &f, &out)
            } else {
                holdDeadline = .never
                handle(.holdDeadline, now: due, &f, &out)
            }
        }
    }

    // MARK: - What the fingers do

    /// A contact lands in a free slot. A palm (`palm.minSize`) is no finger:
    /// it joins no group. A finger of the group that bounced
    /// (`bouncedFinger`) goes on as the same finger.
    mutating func landed(
        _ slot: Int, x: Double, y: Double, palm: Bool, now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput
    ) {
        let bounced = palm ? nil : bouncedFinger(x: x, y: y, now: now, f)
        let old = bounced.map { f[$0] }
        let landsAtBezel = min(x, y, width - x, height - y) <= t.gripBand
        if state == .holding && !palm && !landsAtBezel && f.onlyRestingAtBezel(slop: t.slop) {
            handle(.grip, now: now, &f, &out)
        }
        if state == .idle && !palm {
            restart(at: now, x: x, y: y)
            f.newGroup()
            if let e = taps.classifyTouch(at: now, x: x, y: y, t: t) {
                report(taps.handle(e, now: now, maxTaps: maxTaps, t: t, log: &out.log), &out)
            }
        }
        f.land(slot, x: x, y: y, member: !palm && (state.acceptsFingers || bounced != nil), now: now)
        guard f[slot].isMember else { return }
        if let bounced, let old {
            bounceUntil = .zero
            f.takeOver(slot, from: bounced, old)
            atBezel.remove(bounced)
            if old.atBezel { atBezel.insert(slot) }
            handle(.fingerBack, now: now, &f, &out)
            return
        }
        f[slot].atBezel = landsAtBezel
        if landsAtBezel { atBezel.insert(slot) } else { atBezel.remove(slot) }
        touched = max(touched, f.memberDown)
        handle(.fingerDown, now: now, &f, &out)
    }

    /// Members moved in this frame (their positions are in `f`).
    mutating func moved(now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput) {
        follow(f)
        if state.weighsMotion {
            dropGrips(now: now, &f)
            // Measured only as far as the thresholds it is compared with need.
            let m = f.motion(now: now, below: t.smallestDecisionDistance)
            updateMoved(m, now: now)
            // While a finger that lifted may bounce back, the others'
            // motion alone decides nothing.
            handle(now < bounceUntil ? .still : classify(m), now: now, &f, &out)
        } else if state != .finished && f.memberDown >= 2 {
            // A drag, pinch or rotation goes on, unless it has clearly
            // become another kind.
            handle(kindChange(now: now, &f), now: now, &f, &out)
        } else if out.log.tracing {
            handle(classify(f.motion(now: now, below: t.smallestDecisionDistance)), now: now, &f, &out)
        } else {
            // One finger's drag, or a finished group, takes every motion
            // alike: no geometry to measure (but for a trace, which names it).
            handle(.still, now: now, &f, &out)
        }
    }

    /// A member lifted (`f` has released it).
    mutating func lifted(now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput) {
        // The fingers left may be only a hand gripping the device.
        dropGrips(now: now, &f)
        if f.memberDown > 0 { bounceUntil = now + t.bounceMaxInterval }
        handle(f.memberDown == 0 ? .lastUp : .fingerUp, now: now, &f, &out)
    }

    /// The frame's lifts are over: a finished group whose members have all
    /// lifted is idle, whatever else is still down.
    mutating func liftsDone(now: Timestamp, _ f: Fingers, _ out: inout EventOutput) {
        guard state == .finished && f.memberDown == 0 else { return }
        state = .idle
        out.log.record(machine: .touchGroup, from: State.finished.rawValue, event: "all-up", to: state.rawValue, at: now)
    }

    /// A member down is a palm (its size, or its touch cancelled): it is no
    /// finger. Before anything is decided it leaves the group, which goes
    /// on with the others (or ends, with none left); a gesture under way
    /// with it is cancelled.
    mutating func notFinger(_ slot: Int, now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput) {
        switch state {
        case .touching, .undecided:
            leaveGroup(slot, &f)
            if f.memberDown == 0 { handle(.cancel, now: now, &f, &out) }
        case .holding, .dragging, .pinching, .rotating:
            handle(.cancel, now: now, &f, &out)
            leaveGroup(slot, &f)
        case .idle, .finished:
            leaveGroup(slot, &f)
        }
    }

    /// The device is gone: a gesture under way is cancelled, pending taps are dropped.
    mutating func deviceGone(now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput) {
        if f.memberDown > 0 { handle(.cancel, now: now, &f, &out) }
        taps.reset()
        state = .idle
    }

    /// The finger of the group under way that lifted most recently, within
    /// `bounce.maxInterval` before `now` and `bounce.maxDistance` of (x, y),
    /// while another of its fingers is down: a landing there is that finger
    /// again. None when every finger lifted (a second tap is a new touch).
    private func bouncedFinger(x: Double, y: Double, now: Timestamp, _ f: Fingers) -> Int? {
        guard f.memberDown > 0, state != .idle, state != .finished else { return nil }
        var best: Int?
        for s in f.inGroup.subtracting(f.down) {
            let lifted = f[s]
            guard now - lifted.liftedAt <= t.bounceMaxInterval,
                Trig.hypot(x - lifted.x, y - lifted.y) <= t.bounceMaxDistance
            else { continue }
            if best.map({ f[$0].liftedAt < lifted.liftedAt }) ?? true { best = s }
        }
        return best
    }

    /// A member down stops being one: it is not among the group's fingers.
    private mutating func leaveGroup(_ slot: Int, _ f: inout Fingers) {
        guard f[slot].isMember, f.down.contains(slot) else { return }
        f.leaveGroup(slot)
        touched -= 1
        atBezel.remove(slot)
    }

    /// Members that landed at the bezel (`grip.band`) at least `settle`
    /// before the group's first other finger, and rest there (within slop
    /// of where they landed), are a hand gripping the device, not fingers of
    /// the gesture the others make: they leave the group, which starts
    /// again, with its edge and its timers, from its first finger left.
    /// Looked at before anything is decided: when members move, when one
    /// lifts, and at the hold deadline. Returns whether any left.
    @discardableResult
    private mutating func dropGrips(now: Timestamp, _ f: inout Fingers) -> Bool {
        guard state == .touching || state == .undecided, !(atBezel & f.down).isEmpty else { return false }
        var resting = SlotSet()
        var firstOther = Timestamp.never
        for s in f.inGroup {
            if f[s].restsAtBezel(slop: t.slop) {
                resting.insert(s)
            } else if f[s].downTime < firstOther {
                firstOther = f[s].downTime
            }
        }
        guard firstOther != .never else { return false }
        var dropped = false
        for s in resting where f[s].downTime + t.settle <= firstOther {
            leaveGroup(s, &f)
            dropped = true
        }
        guard dropped else { return false }
        var first = firstOther
        var firstSlot: Int?
        for s in f.inGroup where f[s].downTime <= first {
            first = f[s].downTime
            firstSlot = s
        }
        start = first
        settleDeadline = max(first + t.settle, now)
        holdDeadline = first + t.holdMinDuration
        if let s = firstSlot { edge = edgeAt(x: f[s].startX, y: f[s].startY) }
        return true
    }

    /// The nearest panel edge within `edge.band` of a point, if any.
    private func edgeAt(x: Double, y: Double) -> PanelEdge? {
        PanelEdge.at(x: x, y: y, width: width, height: height, band: t.edgeBand)
    }

    /// Adds this frame's centroid motion (over members down in both frames) to
    /// the group's translation and its swipe path, and in a pinch or a
    /// rotation the span ratio and the turn.
    private mutating func follow(_ f: Fingers) {
        guard let step = f.step(turns: state == .pinching || state == .rotating) else { return }
        tx += step.dx
        ty += step.dy
        swipe.follow(tx: tx, ty: ty, minDistance: t.swipeMinDistance, maxSlope: t.swipeMaxSlope)
        if let change = step.transform { transform.add(scale: change.scale, rotation: change.turn) }
    }

    // MARK: - Events out

    /// What an event of the group under way shares with every other, at
    /// `now`: a continuous gesture's at its focal point (`focal`); a
    /// gesture recognized at the lift at the centroid of every finger that
    /// took part, each where it is or where it lifted.
    private func base(_ phase: GesturePhase, now: Timestamp, _ f: Fingers, _ out: EventOutput) -> EventBase {
        if phase != .recognized, let p = focal { return base(now: now, x: p.x + tx - p.tx, y: p.y + ty - p.ty, out) }
        let c = phase == .began || phase == .changed ? f.centroid(now: now) : f.groupCentroid()
        return base(now: now, x: c.x, y: c.y, out)
    }

    /// A continuous gesture begins: its focal point is the fingers'
    /// centroid, unless the group's first one (a gesture that changed its
    /// kind goes on from where the last one was).
    private mutating func placeFocal(now: Timestamp, _ f: Fingers) {
        guard focal == nil else { return }
        let c = f.centroid(now: now)
        focal = (c.x, c.y, tx, ty)
    }

    /// What an event at (x, y) at `now` shares with every other.
    private func base(now: Timestamp, x: Double, y: Double, _ out: EventOutput) -> EventBase {
        EventBase(device: out.device, width: width, height: height, edge: edge, start: start, now: now, x: x, y: y)
    }

    /// What the tap sequence decided, as events: `count` taps in a row are
    /// a tap, a double tap or a triple tap at the first tap's point.
    private func report(_ decided: TapSequence.Output, _ out: inout EventOutput) {
        switch decided {
        case .none:
            return
        case .released(let first, let count, let at), .releasedThenPending(let first, let count, let at):
            // Held back for more that did not come.
            let timing: TapTiming =
                count == 1
                ? (immediateTaps ? .confirmed : .every) : (immediateDoubleTaps ? .confirmedForTriples : .every)
            emitTaps(first, count, timing: timing, at: at, &out)
        case .completed(let first, let last, let count):
            emitTaps(first, count, timing: .every, at: last.lift, &out)
            if count == 3 && immediateDoubleTaps {
                // Those without triple taps had a double tap at the second lift: this is a tap of its own to them.
                emitTaps(last, 1, timing: .immediateForDoubles, at: last.lift, &out)
            }
        case .partial(let first, let count, let lift):
            if immediateDoubleTaps { emitTaps(first, count, timing: .immediateForDoubles, at: lift, &out) }
        }
    }

    private func emitTaps(_ first: TapInfo, _ count: Int, timing: TapTiming, at: Timestamp, _ out: inout EventOutput) {
        out.emit(Tap.event(first, taps: count, id: out.newID(), timing: timing, base(now: at, x: first.x, y: first.y, out)))
    }

    /// The event of the pinch or rotation under way.
    private func transformEvent(_ phase: GesturePhase, now: Timestamp, _ f: Fingers, _ out: EventOutput) -> GestureEvent {
        let b = base(phase, now: now, f, out)
        return state == .rotating
            ? rotate.event(phase, b, transform: transform) : pinch.event(phase, b, transform: transform)
    }

    private func holdEvent(_ phase: GesturePhase, now: Timestamp, _ f: Fingers, _ out: EventOutput) -> GestureEvent {
        hold.event(phase, base(phase, now: now, f, out), tx: tx, ty: ty)
    }

    private func dragEvent(
        _ phase: GesturePhase, now: Timestamp, velocity: (vx: Double, vy: Double)?, _ f: Fingers, _ out: EventOutput
    ) -> GestureEvent {
        drag.event(phase, base(phase, now: now, f, out), tx: tx, ty: ty, velocity: velocity)
    }

    // MARK: - The handlers: one per state, each an exhaustive switch over every event, no `default:`

    private mutating func handle(_ event: Event, now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput) {
        let old = state
        switch state {
        case .idle: handleIdle(event, now: now, &f, &out)
        case .touching: handleTouching(event, now: now, &f, &out)
        case .undecided: handleUndecided(event, now: now, &f, &out)
        case .holding: handleHolding(event, now: now, &f, &out)
        case .dragging: handleDragging(event, now: now, &f, &out)
        case .pinching, .rotating: handleTransforming(event, now: now, &f, &out)
        case .finished: handleFinished(event, now: now, &out)
        }
        out.log.record(machine: .touchGroup, from: old.rawValue, event: event.rawValue, to: state.rawValue, at: now)
    }

    /// Where a group goes when its gesture is over: `idle`, or `finished`
    /// while some of its fingers are down. Contacts that are not fingers of
    /// it (a grip, a palm, a finger that landed once a drag was decided)
    /// do not keep the next gesture from beginning.
    private func over(_ f: Fingers) -> State { f.memberDown > 0 ? .finished : .idle }

    private mutating func handleIdle(_ event: Event, now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput) {
        switch event {
        case .fingerDown:
            state = .touching
        case .fingerUp, .lastUp, .still, .movedOne, .movedMany, .movedTogether, .movedApart, .movedAround, .settled,
            .holdDeadline, .holdMark, .fingerBack, .bounceOver, .grip, .cancel:
            bug(event, now: now, &out)
        }
    }

    private mutating func handleTouching(_ event: Event, now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput) {
        switch event {
        case .fingerDown, .still, .fingerBack:
            break
        case .fingerUp:
            // A stroke quicker than the settle window lifts its first finger
            // while every finger is still on it: decide now, with all of them.
            if moved, let e = classifyAtLift(f.motion(now: now)) { decide(e, now: now, &f, &out) }
        case .lastUp:
            let lift = f.groupMotion()
            if moved || lift.largest > t.slop {
                // Moved, or rolled and lifted away from where it landed: a short stroke.
                notTap(now: now, &out)
                decideAtLift(now: now, &f, &out)
            } else if let info = tap.decide(f, group: f.inGroup, touched: touched, edge: edge, t: t, now: now) {
                if wantDoubleTap && immediateTaps && !taps.touchIsBounce {
                    out.emit(
                        Tap.event(info, taps: 1, id: out.newID(), timing: .immediate, base(now: now, x: info.x, y: info.y, out)))
                }
                report(taps.handle(.tap, tap: info, now: now, maxTaps: maxTaps, t: t, log: &out.log), &out)
            } else {
                // Longer than a tap, and the hold never began (tap.maxDuration below hold.minDuration).
                notTap(now: now, &out)
            }
            state = over(f)
        case .movedOne, .movedMany, .movedTogether, .movedApart, .movedAround:
            notTap(now: now, &out)
            if now - start >= t.settle { decide(event, now: now, &f, &out) }
        case .settled:
            if moved {
                decide(classify(f.motion(now: now)), now: now, &f, &out)
            } else if f.motion(now: now).largest <= t.slop {
                f.rebaseMembers()
            }
        case .holdDeadline:
            guard !moved, f.memberDown > 0, !dropGrips(now: now, &f) else { break }
            if f.motion(now: now).largest > t.slop {
                // Rolled away and resting there past the roll window: it moved.
                moved = true
                notTap(now: now, &out)
                decide(classify(f.motion(now: now)), now: now, &f, &out)
            } else if isCreeping(now: now, f) {
                // Moving steadily, if slowly: not still. Look again soon.
                notTap(now: now, &out)
                holdDeadline = now + t.holdRecheck
            } else {
                notTap(now: now, &out)
                beginHold(now: now, &f, &out)
            }
        case .bounceOver, .grip, .holdMark:
            bug(event, now: now, &out)
        case .cancel:
            notTap(now: now, &out)
            state = .finished
        }
    }

    private mutating func handleUndecided(_ event: Event, now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput) {
        switch event {
        case .fingerDown, .fingerUp, .still, .movedMany, .fingerBack:
            break
        case .lastUp:
            // Several fingers that never moved far enough to decide: no gesture.
            state = over(f)
        case .movedOne, .movedTogether, .movedApart, .movedAround:
            decide(event, now: now, &f, &out)
        case .holdDeadline:
            // Several fingers that moved less than the decision distance have
            // decided nothing: they are still, as a group, and now held.
            guard f.memberDown > 0, !dropGrips(now: now, &f) else { break }
            if isCreeping(now: now, f) {
                holdDeadline = now + t.holdRecheck
            } else {
                beginHold(now: now, &f, &out)
            }
        case .settled, .bounceOver, .grip, .holdMark:
            bug(event, now: now, &out)
        case .cancel:
            state = .finished
        }
    }

    private mutating func handleHolding(_ event: Event, now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput) {
        switch event {
        case .fingerDown:
            // More fingers land on the hold: they join it, and the hand's motion
            // is measured from here. Until the hold reached a mark, its
            // marks count from this landing (the claimer's hold time does
            // the same until it takes the hold).
            f.rebaseMembers()
            originX = tx
            originY = ty
            if heldUpTo < 0 { lastLanding = now }
        case .fingerUp, .fingerBack:
            holdStill = false
        case .lastUp:
            out.emit(holdEvent(.ended, now: now, f, out))
            emitStroke(fingers: hold.fingers, now: now, f, &out)
            state = over(f)
        case .still, .movedOne, .movedMany:
            if holdStill && !f.membersNearLanding(within: t.slop) { holdStill = false }
            if out.wantsChanges(of: .touchAndHold) { out.emit(holdEvent(.changed, now: now, f, out)) }
        case .holdMark:
            // The hold lasted a mark's time, still: a `changed` naming the
            // longest mark reached (several at once only when marks changed).
            heldUpTo = max(heldUpTo, markReached(at: now))
            var e = holdEvent(.changed, now: now, f, out)
            e.heldMs = Int(heldUpTo)
            out.emit(e)
        case .movedTogether, .movedApart, .movedAround:
            // A hand resting, then moving: the hold ends and the hand's
            // gesture begins, with every finger down.
            out.emit(holdEvent(.ended, now: now, f, out))
            begin(event, fingers: f.memberDown, now: now, &f, &out)
        case .grip:
            // It ends; the grip is no finger of what comes next, and the
            // finger landing begins a gesture of its own.
            out.emit(holdEvent(.ended, now: now, f, out))
            for s in f.inGroup & f.down { leaveGroup(s, &f) }
            state = .idle
        case .settled, .holdDeadline, .bounceOver:
            bug(event, now: now, &out)
        case .cancel:
            out.emit(holdEvent(.cancelled, now: now, f, out))
            state = .finished
        }
    }

    private mutating func handleDragging(_ event: Event, now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput) {
        switch event {
        case .fingerDown, .fingerUp, .fingerBack:
            break
        case .lastUp:
            endDrag(now: now, f, &out)
            state = over(f)
        case .movedApart:
            // The fingers' span changed by a clear margin (`kindChange`): the
            // drag ends where it got to and a pinch begins with the fingers down.
            out.emit(dragEvent(.ended, now: now, velocity: f.currentVelocity(now: now, window: t.velocityWindow), f, out))
            switchTo(event, now: now, &f, &out)
        case .still, .movedOne, .movedMany, .movedTogether, .movedAround:
            if out.wantsChanges(of: .drag) {
                out.emit(
                    dragEvent(.changed, now: now, velocity: f.currentVelocity(now: now, window: t.velocityWindow), f, out))
            }
        case .settled, .holdDeadline, .holdMark, .bounceOver, .grip:
            bug(event, now: now, &out)
        case .cancel:
            out.emit(dragEvent(.cancelled, now: now, velocity: nil, f, out))
            state = .finished
        }
    }

    /// A pinch and a rotation go on alike: fingers may join, and they end when
    /// fewer than two remain.
    private mutating func handleTransforming(
        _ event: Event, now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput
    ) {
        switch event {
        case .fingerDown:
            break
        case .fingerUp:
            // Fewer than two remain: over, unless the finger bounces back
            // (`bounce.maxInterval`).
            if f.memberDown < 2 && endDeadline == .never { endDeadline = now + t.bounceMaxInterval }
        case .fingerBack:
            if f.memberDown >= 2 { endDeadline = .never }
        case .bounceOver:
            if f.memberDown < 2 {
                out.emit(transformEvent(.ended, now: now, f, out))
                state = over(f)
            }
        case .lastUp:
            endDeadline = .never
            out.emit(transformEvent(.ended, now: now, f, out))
            state = over(f)
        case .movedTogether:
            // The fingers travelled together with span and angle steady
            // (`kindChange`): it ends where it got to and a drag begins.
            out.emit(transformEvent(.ended, now: now, f, out))
            switchTo(event, now: now, &f, &out)
        case .still, .movedOne, .movedMany, .movedApart, .movedAround:
            if out.wantsChanges(of: state == .rotating ? .rotate : .pinch) {
                out.emit(transformEvent(.changed, now: now, f, out))
            }
        case .settled, .holdDeadline, .holdMark, .grip:
            bug(event, now: now, &out)
        case .cancel:
            endDeadline = .never
            out.emit(transformEvent(.cancelled, now: now, f, out))
            state = .finished
        }
    }

    private mutating func handleFinished(_ event: Event, now: Timestamp, _ out: inout EventOutput) {
        switch event {
        case .fingerDown, .fingerUp, .lastUp, .still, .movedOne, .movedMany, .movedTogether, .movedApart, .movedAround,
            .fingerBack, .cancel:
            break
        case .settled, .holdDeadline, .holdMark, .bounceOver, .grip:
            bug(event, now: now, &out)
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
    private mutating func updateMoved(_ m: GroupMotion, now: Timestamp) {
        guard !moved, state == .touching || state == .undecided else { return }
        let d = m.largest
        if d > t.tapMaxRoll || (d > t.slop && now - start >= t.tapRollWindow) { moved = true }
    }

    /// Classifies the group's motion into an event (the geometry is in `GroupMotion`).
    private func classify(_ m: GroupMotion) -> Event {
        guard moved else { return .still }
        if m.count <= 1 { return .movedOne }
        guard let kind = m.kind(decision: t.pinchMinSpanChange) else { return .movedMany }
        return Self.event(kind)
    }

    /// The motion event of a kind of multi-finger motion.
    private static func event(_ kind: GroupMotion.Kind) -> Event {
        switch kind {
        case .together: .movedTogether
        case .apart: .movedApart
        case .around: .movedAround
        }
    }

    /// The motion event of fingers that are lifting: decided now, with no
    /// waiting for a mixed motion to clear; several fingers that moved less
    /// than the decision distance make none.
    private func classifyAtLift(_ m: GroupMotion) -> Event? {
        if m.count <= 1 { return .movedOne }
        if m.largest < t.pinchMinSpanChange { return nil }
        return Self.event(m.kindNow)
    }

    /// Whether a touch that stayed within slop is creeping at its hold
    /// deadline: the trend of some member down carries it at least
    /// `hold.maxCreep` over `holdCreepWindow`. A finger that wobbles in
    /// place, or drifted as it pressed and came to rest, has no such trend
    /// and is still.
    private func isCreeping(now: Timestamp, _ f: Fingers) -> Bool {
        f.isCreeping(now: now, window: t.holdCreepWindow, distance: t.holdMaxCreep)
    }

    /// Whether the continuous gesture under way has clearly become another
    /// kind, measured from the members' references (where they were when it
    /// began, or when a pinch or rotation last changed its span or angle):
    /// `.movedApart` for a drag whose span changed by `pinch.switchRatio` of
    /// itself and at least twice `pinch.minSpanChange`; `.movedTogether` for
    /// a pinch or rotation whose fingers travelled `drag.switchTravel` while
    /// span and angle changed less than `pinch.minSpanChange`. `.still`
    /// otherwise, and once the group has changed its kind: the gesture goes on.
    private mutating func kindChange(now: Timestamp, _ f: inout Fingers) -> Event {
        // Once only: a hand that wavers between the two keeps the second.
        guard f.memberDown >= 2, !switched else { return .still }
        let slots = f.inGroup & f.down
        if state == .dragging {
            // Only the span counts here, taken as the fingers' spread
            // (`Fingers.spread`): one square root a frame. Measured again at
            // the references when the fingers down change.
            if slots != spreadFingers {
                spreadFingers = slots
                spreadStart = f.spread(slots, atReferences: true)
            }
            let margin = max(2 * t.pinchMinSpanChange, t.pinchSwitchRatio * spreadStart)
            return abs(f.spread(slots, atReferences: false) - spreadStart) >= margin ? .movedApart : .still
        }
        // The turn is bounded first, without an `atan2`: a bound below the
        // threshold keeps the exact arc below it too.
        let limit = t.pinchMinSpanChange
        let m = GroupMotion(f, slots, below: limit)
        if m.spanChange >= limit || (m.arc >= limit && (m.isExact || GroupMotion(f, slots).arc >= limit)) {
            // Still pinching or turning: measure any travel from here.
            f.rebaseMembers()
            return .still
        }
        return m.travel >= t.dragSwitchTravel ? .movedTogether : .still
    }

    // MARK: - Decisions

    /// Moves from an undecided state on a classified motion.
    private mutating func decide(_ event: Event, now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput) {
        switch event {
        case .movedOne, .movedTogether, .movedApart, .movedAround: begin(event, fingers: touched, now: now, &f, &out)
        case .movedMany: state = .undecided
        case .fingerDown, .fingerUp, .lastUp, .still, .settled, .holdDeadline, .holdMark, .fingerBack, .bounceOver, .grip,
            .cancel:
            break
        }
    }

    /// Begins the gesture a decisive motion makes.
    private mutating func begin(
        _ event: Event, fingers n: Int, now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput
    ) {
        placeFocal(now: now, f)
        switch event {
        case .movedApart:
            transform = Transform(f.motion(now: now))
            pinch = Pinch(id: out.newID(), fingers: n)
            state = .pinching
            out.emit(transformEvent(.began, now: now, f, out))
        case .movedAround:
            transform = Transform(f.motion(now: now))
            rotate = Rotate(id: out.newID(), fingers: n)
            state = .rotating
            out.emit(transformEvent(.began, now: now, f, out))
        case .movedOne, .movedTogether, .movedMany:
            drag = Drag(id: out.newID(), fingers: max(1, n), originX: originX, originY: originY)
            state = .dragging
            out.emit(dragEvent(.began, now: now, velocity: f.currentVelocity(now: now, window: t.velocityWindow), f, out))
        case .fingerDown, .fingerUp, .lastUp, .still, .settled, .holdDeadline, .holdMark, .fingerBack, .bounceOver, .grip,
            .cancel:
            break
        }
        // A change of kind (`kindChange`) is measured from here.
        f.rebaseMembers()
    }

    /// Begins the gesture a continuous one turned into, with the fingers
    /// down: its translation counts from here, and it is no swipe.
    private mutating func switchTo(_ event: Event, now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput) {
        switched = true
        endDeadline = .never
        originX = tx
        originY = ty
        begin(event, fingers: f.memberDown, now: now, &f, &out)
    }

    /// The group lifted after moving but before anything was decided (a
    /// stroke quicker than the settle window): decide now, begin and end at
    /// once. Several fingers that never moved by the decision distance stay
    /// undecided: no gesture.
    private mutating func decideAtLift(now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput) {
        guard let kind = classifyAtLift(f.motion(now: now)) else { return }
        begin(kind, fingers: touched, now: now, &f, &out)
        if state == .dragging { endDrag(now: now, f, &out) } else { out.emit(transformEvent(.ended, now: now, f, out)) }
    }

    private mutating func beginHold(now: Timestamp, _ f: inout Fingers, _ out: inout EventOutput) {
        // From here on the hand's motion counts, measured from where it rests.
        moved = true
        f.rebaseMembers()
        originX = tx
        originY = ty
        hold = Hold(id: out.newID(), fingers: f.memberDown, originX: tx, originY: ty)
        state = .holding
        placeFocal(now: now, f)
        lastLanding = f.lastMemberLanding
        holdStill = f.membersNearLanding(within: t.slop)
        // Marks already reached are the began's: the longest of them.
        heldUpTo = holdStill ? markReached(at: now) : -1
        var e = holdEvent(.began, now: now, f, out)
        if heldUpTo >= 0 { e.heldMs = Int(heldUpTo) }
        out.emit(e)
    }

    /// Ends a drag at its last lift, then reports the flick, the swipe and
    /// the stroke it may also be.
    private func endDrag(now: Timestamp, _ f: Fingers, _ out: inout EventOutput) {
        let v = f.releaseVelocity()
        out.emit(drag.event(.ended, base(.ended, now: now, f, out), tx: tx, ty: ty, velocity: v))
        // The flick and the swipe are recognized where the fingers lifted.
        let lifted = base(.recognized, now: now, f, out)
        if let flick = Flick.decide(velocity: v, t: t) {
            out.emit(flick.event(id: out.newID(), lifted, drag: drag, tx: tx, ty: ty, deceleration: t.flickDeceleration))
        }
        if !switched, let made = swipe.decide(tx: tx, ty: ty, duration: now - start, t: t) {
            out.emit(made.event(id: out.newID(), lifted, drag: drag, tx: tx, ty: ty, velocity: v))
        }
        if !switched { emitStroke(fingers: drag.fingers, now: now, f, &out) }
    }

    /// The group's path as a stroke, at its last lift, for those who want
    /// strokes; drawn after a still hold (touch, wait, draw), with the
    /// longest mark the hold reached still (`held_ms`).
    private func emitStroke(fingers: Int, now: Timestamp, _ f: Fingers, _ out: inout EventOutput) {
        guard out.wanted.contains(.stroke) else { return }
        let path = swipe.stroke(tx: tx, ty: ty)
        guard path.length >= t.strokeMinLength else { return }
        let lifted = base(.recognized, now: now, f, out)
        var e = Stroke.event(id: out.newID(), lifted, fingers: fingers, tx: tx, ty: ty, path: path)
        if heldUpTo >= 0 { e.heldMs = Int(heldUpTo) }
        out.emit(e)
    }

    private mutating func notTap(now: Timestamp, _ out: inout EventOutput) {
        guard tap.possible else { return }
        tap.possible = false
        report(taps.handle(.notTap, now: now, maxTaps: maxTaps, t: t, log: &out.log), &out)
    }

    private func bug(_ event: Event, now: Timestamp, _ out: inout EventOutput) {
        out.log.anomaly(machine: .touchGroup, state: state.rawValue, event: event.rawValue, at: now)
    }
}
