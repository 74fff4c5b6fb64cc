/// **Double tap** (discrete, `recognized`, `taps: 2`): a tap, then a second
/// touch starting `doubleTap.minInterval`..`maxInterval` after the first lift
/// that ends as a tap with the same finger count, its centroid within
/// `doubleTap.maxDistance` of the first's. Reported at the second lift, at the
/// first tap's point; neither tap is reported on its own.
///
/// **Triple tap** (discrete, `recognized`, `taps: 3`; only when a subscriber
/// names it): a double tap, then a third touch the same way (within
/// `maxInterval` of the second lift, the same finger count, within
/// `maxDistance` of the first tap's point). Reported at the third lift, at
/// the first tap's point; while triple taps are wanted a double tap is
/// reported once `maxInterval` has passed with no third touch.
///
/// Recognition with require-to-fail: the taps so far are held back until
/// `doubleTap.maxInterval` has passed with no next touch, or reported at
/// once when nobody wants more of them (`maxTaps`).
///
/// States and events follow libinput's tap machine: input is first classified
/// into a `TapSequence.Event`, then one handler per state switches over every
/// event. See `docs/state-machines.md`.
struct TapSequence: Sendable {
    enum State: String, Sendable, CaseIterable {
        /// No tap is pending.
        case idle
        /// Taps are pending (one, or two when triple taps are wanted): one
        /// more, or at the deadline those so far.
        case tapped
        /// Taps are pending and another touch is down: one more tap, or those so far.
        case tappedOrDoubleTap = "tapped-or-double-tap"
    }

    enum Event: String, Sendable, CaseIterable {
        /// A touch began while taps are pending, after the bounce interval.
        /// Whether it hits the same target is known at its end: a
        /// multi-finger touch's point is its centroid, known only then.
        case secondTouch = "second-touch"
        /// A touch began at the pending tap's place within the bounce interval.
        case bounceTouch = "bounce-touch"
        /// The touch ended as a tap.
        case tap
        /// The touch can no longer be a tap (moved, held, cancelled, too long).
        case notTap = "not-tap"
        /// `doubleTap.maxInterval` passed since the pending taps' last lift.
        case timeout
    }

    /// What the machine wants its owner to report. `first` is the first
    /// tap's (its point and fingers); `count` how many taps it was.
    enum Output: Sendable {
        case none
        /// The taps so far are all there will be: the interval passed, or the
        /// next touch was not a tap.
        case released(first: TapInfo, count: Int, at: Timestamp)
        /// The taps so far are all there will be (the next tap was elsewhere
        /// or of other fingers, and is now pending on its own).
        case releasedThenPending(first: TapInfo, count: Int, at: Timestamp)
        /// `count` taps, the most anyone wants: reported at `last`'s lift.
        case completed(first: TapInfo, last: TapInfo, count: Int)
        /// `count` taps so far, fewer than the most wanted: more may follow.
        case partial(first: TapInfo, count: Int, lift: Timestamp)
    }

    private(set) var state: State = .idle
    /// The first pending tap; its `lift` is the last pending tap's.
    private(set) var pending: TapInfo?
    /// How many taps are pending (0 when none).
    private(set) var count = 0
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
    /// `maxTaps` is the most taps anyone wants in a row (1 to 3).
    mutating func handle(
        _ event: Event, tap: TapInfo? = nil, now: Timestamp, maxTaps: Int, t: ResolvedThresholds,
        log: inout TransitionLog
    ) -> Output {
        let old = state
        let out: Output
        switch state {
        case .idle: out = handleIdle(event, tap: tap, now: now, maxTaps: maxTaps, t: t, log: &log)
        case .tapped: out = handleTapped(event, tap: tap, now: now, t: t, log: &log)
        case .tappedOrDoubleTap:
            out = handleTappedOrDoubleTap(event, tap: tap, now: now, maxTaps: maxTaps, t: t, log: &log)
        }
        log.record(machine: .tapSequence, from: old.rawValue, event: event.rawValue, to: state.rawValue, at: now)
        return out
    }

    private mutating func handleIdle(
        _ event: Event, tap: TapInfo?, now: Timestamp, maxTaps: Int, t: ResolvedThresholds, log: inout TransitionLog
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
            if maxTaps > 1 {
                pend(tap, t: t)
                return .none
            }
            lastImmediate = tap
            return .completed(first: tap, last: tap, count: 1)
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
            // A bounce that turned into something else: the pending taps are final.
            currentIsBounce = false
            return release(at: now)
        case .timeout:
            return release(at: now)
        }
    }

    private mutating func handleTappedOrDoubleTap(
        _ event: Event, tap: TapInfo?, now: Timestamp, maxTaps: Int, t: ResolvedThresholds, log: inout TransitionLog
    ) -> Output {
        switch event {
        case .tap:
            guard let tap, let first = pending else { return bug(event, now: now, log: &log) }
            let distance = Trig.hypot(tap.x - first.x, tap.y - first.y)
            if tap.fingers == first.fingers && distance <= t.doubleTapMaxDistance {
                let taps = count + 1
                if taps >= maxTaps {
                    state = .idle
                    pending = nil
                    count = 0
                    return .completed(first: first, last: tap, count: taps)
                }
                // Fewer than the most wanted: held back for one more.
                count = taps
                pending?.lift = tap.lift
                state = .tapped
                deadline = tap.lift + t.doubleTapMaxInterval
                return .partial(first: first, count: taps, lift: tap.lift)
            }
            // Another target or finger count: the taps so far are over; this one may start more.
            let taps = count
            pend(tap, t: t)
            return .releasedThenPending(first: first, count: taps, at: now)
        case .notTap:
            return release(at: now)
        case .secondTouch, .bounceTouch, .timeout:
            return bug(event, now: now, log: &log)
        }
    }

    private mutating func pend(_ tap: TapInfo, t: ResolvedThresholds) {
        pending = tap
        count = 1
        state = .tapped
        deadline = tap.lift + t.doubleTapMaxInterval
    }

    private mutating func release(at now: Timestamp) -> Output {
        state = .idle
        deadline = .never
        guard let first = pending else { return .none }
        let taps = count
        pending = nil
        count = 0
        return .released(first: first, count: taps, at: now)
    }

    /// Forgets everything (the device is gone: nothing more is reported for it).
    mutating func reset() {
        state = .idle
        pending = nil
        count = 0
        lastImmediate = nil
        currentIsBounce = false
        deadline = .never
    }

    private mutating func bug(_ event: Event, now: Timestamp, log: inout TransitionLog) -> Output {
        log.anomaly(machine: .tapSequence, state: state.rawValue, event: event.rawValue, at: now)
        return .none
    }
}
