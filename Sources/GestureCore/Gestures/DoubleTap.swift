/// **Double tap** (discrete, `recognized`, `taps: 2`): a tap, then a second
/// touch starting `doubleTap.minInterval`..`maxInterval` after the first lift
/// that ends as a tap with the same finger count, its centroid within
/// `doubleTap.maxDistance` of the first's. Reported at the second lift, at the
/// first tap's point; neither tap is reported on its own.
///
/// Double-tap recognition with require-to-fail: a tap is held back until
/// `doubleTap.maxInterval` has passed with no second touch, or reported at
/// once when nobody wants double taps.
///
/// States and events follow libinput's tap machine: input is first classified
/// into a `TapSequence.Event`, then one handler per state switches over every
/// event. See `docs/state-machines.md`.
struct TapSequence: Sendable {
    enum State: String, Sendable, CaseIterable {
        /// No tap is pending.
        case idle
        /// One tap is pending: a double tap or, at the deadline, a tap.
        case tapped
        /// One tap is pending and a second touch is down near it: tap or double tap.
        case tappedOrDoubleTap = "tapped-or-double-tap"
    }

    enum Event: String, Sendable, CaseIterable {
        /// A touch began while a tap is pending, after the bounce interval.
        /// Whether it hits the same target is known at its end: a
        /// multi-finger touch's point is its centroid, known only then.
        case secondTouch = "second-touch"
        /// A touch began at the pending tap's place within the bounce interval.
        case bounceTouch = "bounce-touch"
        /// The touch ended as a tap.
        case tap
        /// The touch can no longer be a tap (moved, held, cancelled, too long).
        case notTap = "not-tap"
        /// `doubleTap.maxInterval` passed since the pending tap's lift.
        case timeout
    }

    /// What the machine wants its owner to report.
    enum Output: Sendable {
        case none
        case tap(TapInfo, at: Timestamp)
        case doubleTap(first: TapInfo, second: TapInfo)
        case tapThenPending(TapInfo, at: Timestamp)
    }

    private(set) var state: State = .idle
    private(set) var pending: TapInfo?
    /// The current touch started as a bounce of the pending or last tap.
    private var currentIsBounce = false
    /// The last tap reported at once (no double taps wanted), for bounce suppression.
    private var lastImmediate: TapInfo?

    /// The touch under way began as a bounce of the pending or last tap.
    var touchIsBounce: Bool { currentIsBounce }

    /// When `timeout` is due.
    var deadline: Timestamp = .never

    /// Classifies a touch that begins at `time`, `(x, y)`.
    func classifyTouch(at time: Timestamp, x: Double, y: Double, t: ResolvedThresholds) -> Event? {
        guard let ref = pending ?? lastImmediate else { return nil }
        let gap = time - ref.lift
        let d = Trig.hypot(x - ref.x, y - ref.y)
        if gap < t.doubleTapMinInterval && d <= t.doubleTapMaxDistance { return .bounceTouch }
        return pending == nil ? nil : .secondTouch
    }

    /// Feeds one event; `tap` carries the finished tap for `.tap`.
    mutating func handle(
        _ event: Event, tap: TapInfo? = nil, now: Timestamp, wantDoubleTap: Bool, t: ResolvedThresholds,
        log: inout TransitionLog
    ) -> Output {
        let old = state
        let out: Output
        switch state {
        case .idle: out = handleIdle(event, tap: tap, now: now, wantDoubleTap: wantDoubleTap, t: t, log: &log)
        case .tapped: out = handleTapped(event, tap: tap, now: now, t: t, log: &log)
        case .tappedOrDoubleTap:
            out = handleTappedOrDoubleTap(event, tap: tap, now: now, wantDoubleTap: wantDoubleTap, t: t, log: &log)
        }
        log.record(machine: .tapSequence, from: old.rawValue, event: event.rawValue, to: state.rawValue, at: now)
        return out
    }

    private mutating func handleIdle(
        _ event: Event, tap: TapInfo?, now: Timestamp, wantDoubleTap: Bool, t: ResolvedThresholds, log: inout TransitionLog
    ) -> Output {
        switch event {
        case .bounceTouch:
            currentIsBounce = true
            return .none
        case .secondTouch, .notTap:
            currentIsBounce = false
            return .none
        case .tap:
            guard let tap else { return bug(event, now: now, log: &log) }
            if currentIsBounce {
                // The same finger landing again at once: one touch, already reported.
                currentIsBounce = false
                lastImmediate?.lift = tap.lift
                return .none
            }
            if wantDoubleTap {
                pend(tap, t: t)
                return .none
            }
            lastImmediate = tap
            return .tap(tap, at: now)
        case .timeout:
            return bug(event, now: now, log: &log)
        }
    }

    private mutating func handleTapped(
        _ event: Event, tap: TapInfo?, now: Timestamp, t: ResolvedThresholds, log: inout TransitionLog
    )
        -> Output
    {
        switch event {
        case .bounceTouch:
            // Contact bounce: the pending tap goes on; this touch may extend it.
            currentIsBounce = true
            return .none
        case .secondTouch:
            currentIsBounce = false
            state = .tappedOrDoubleTap
            deadline = .never
            return .none
        case .tap:
            guard let tap, currentIsBounce else { return bug(event, now: now, log: &log) }
            currentIsBounce = false
            pending?.lift = tap.lift
            deadline = tap.lift + t.doubleTapMaxInterval
            return .none
        case .notTap:
            // A bounce that turned into something else: the pending tap is final.
            currentIsBounce = false
            return release(at: now)
        case .timeout:
            return release(at: now)
        }
    }

    private mutating func handleTappedOrDoubleTap(
        _ event: Event, tap: TapInfo?, now: Timestamp, wantDoubleTap: Bool, t: ResolvedThresholds, log: inout TransitionLog
    ) -> Output {
        switch event {
        case .tap:
            guard let tap, let first = pending else { return bug(event, now: now, log: &log) }
            let distance = Trig.hypot(tap.x - first.x, tap.y - first.y)
            if tap.fingers == first.fingers && distance <= t.doubleTapMaxDistance {
                state = .idle
                pending = nil
                return .doubleTap(first: first, second: tap)
            }
            // Another target or finger count: two taps; the second may start a new pair.
            pend(tap, t: t)
            return .tapThenPending(first, at: now)
        case .notTap:
            return release(at: now)
        case .secondTouch, .bounceTouch, .timeout:
            return bug(event, now: now, log: &log)
        }
    }

    private mutating func pend(_ tap: TapInfo, t: ResolvedThresholds) {
        pending = tap
        state = .tapped
        deadline = tap.lift + t.doubleTapMaxInterval
    }

    private mutating func release(at now: Timestamp) -> Output {
        state = .idle
        deadline = .never
        guard let first = pending else { return .none }
        pending = nil
        return .tap(first, at: now)
    }

    /// Forgets everything (the device is gone: nothing more is reported for it).
    mutating func reset() {
        state = .idle
        pending = nil
        lastImmediate = nil
        currentIsBounce = false
        deadline = .never
    }

    private mutating func bug(_ event: Event, now: Timestamp, log: inout TransitionLog) -> Output {
        log.anomaly(machine: .tapSequence, state: state.rawValue, event: event.rawValue, at: now)
        return .none
    }
}
