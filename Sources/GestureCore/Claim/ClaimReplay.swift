/// A trace through the claimer as a claimed touchscreen's frames go
/// through it: each frame of the device, what the clone gets for it, and
/// the claimer's timers fired on the trace's own clock. For `gestured
/// replay --claim` and the tests of the claimer's diagram.
public struct ClaimReplay {
    /// One device frame (or a timer, `touches` empty) and what went to the clone.
    public struct Step: Sendable {
        public var time: Timestamp
        /// The touches of the device frame; empty for a timer.
        public var touches: TouchFrame
        /// What the clone got, in order.
        public var clone: [RawFrame]
        /// The claimer's state after it.
        public var state: Claimer.State
        public var isTimer: Bool
        /// The edge a finger is held at, while it is.
        public var heldEdge: PanelEdge?
    }

    /// One touch sequence, from its first finger down to its last up, and
    /// what became of it on the clone.
    public struct Sequence: Sendable, Equatable {
        public enum Outcome: Sendable, Equatable {
            /// Every frame went on as it came.
            case passed
            /// Held back at a claimed edge for a while (µs), then passed on.
            case held(edge: PanelEdge, for: Int64)
            /// Claimed at a claimed edge: nothing of it went on.
            case claimedAtEdge(PanelEdge)
            /// A claimed count of fingers landed at once: nothing of it went on.
            case claimedAtOnce
            /// Held back while a claimed count could still land (the
            /// compositor drops touch cancels) for a while (µs), then passed on.
            case heldBack(for: Int64)
            /// A claimed count of fingers was reached while the first were
            /// held back: nothing of it went on.
            case claimedWhileHeld
            /// A claimed count of fingers was reached: the touches passed on
            /// so far were ended (cancelled, or lifted where the compositor
            /// drops cancels), nothing more went on.
            case claimed(cancelled: Int)
            /// A claimed still hold lasted its time (µs from the first
            /// touch): the touches passed on so far were ended, nothing
            /// more went on.
            case claimedHeld(cancelled: Int, after: Int64)
            /// The device dropped events: what was passed on was ended.
            case resynchronized(cancelled: Int)
        }
        public var start: Timestamp
        public var end: Timestamp
        /// The most fingers down at once.
        public var fingers: Int
        public var outcome: Outcome
        /// Frames the clone got (cancels apart), and the device's frames it did not.
        public var passed: Int
        public var withheld: Int
    }

    public var steps: [Step] = []
    public var transitions: [Transition] = []
    public var anomalies: [Transition] = []

    /// The touch sequences, in order, and what each became.
    public var sequences: [Sequence] {
        var out: [Sequence] = []
        var current: Sequence?
        var down = 0
        var heldSince: (edge: PanelEdge?, time: Timestamp)?
        var t = 0
        for step in steps {
            // The claimer's own frames name the tool (a cancel's, or a
            // lift's); of those, each ended slot is a touch taken back.
            let isClaimers = { (f: RawFrame) in
                f.events.contains { $0.type == Evdev.EV_ABS && $0.code == Evdev.ABS_MT_TOOL_TYPE }
            }
            let ended = step.clone.lazy.filter(isClaimers).reduce(0) {
                $0 + $1.events.count { $0.type == Evdev.EV_ABS && $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value == -1 }
            }
            let passedFrames = step.clone.count { !isClaimers($0) }
            if current == nil && !step.isTimer && step.touches.contacts.contains(where: { $0.phase == .down }) {
                current = Sequence(start: step.time, end: step.time, fingers: 0, outcome: .passed, passed: 0, withheld: 0)
                heldSince = nil
            }
            // The transitions of this step, in order.
            while t < transitions.count && transitions[t].time <= step.time {
                let tr = transitions[t]
                t += 1
                guard current != nil else { continue }
                switch (tr.from, tr.event, tr.to) {
                case ("idle", "edge-landing", _):
                    heldSince = (step.heldEdge ?? .left, tr.time)
                case ("idle", "early-landing", _):
                    heldSince = (nil, tr.time)
                case ("holding", "early-landing", _):
                    heldSince?.edge = nil
                case ("idle", "claimed-landing", _):
                    current!.outcome = .claimedAtOnce
                case ("holding", "claimed-landing", _), ("waiting", "claimed-landing", _):
                    current!.outcome = .claimedWhileHeld
                case ("waiting", "resync", _):
                    current!.outcome = .resynchronized(cancelled: 0)
                case ("passing", "claimed-landing", _):
                    current!.outcome = .claimed(cancelled: ended)
                case ("passing", "hold-deadline", _):
                    current!.outcome = .claimedHeld(cancelled: ended, after: (tr.time - current!.start).microseconds)
                case ("passing", "resync", _):
                    current!.outcome = .resynchronized(cancelled: ended)
                case ("holding", "inward", _):
                    current!.outcome = .claimedAtEdge(heldSince?.edge ?? .left)
                case ("holding", _, "passing"), ("holding", _, "idle"), ("waiting", _, "passing"), ("waiting", _, "idle"):
                    if let h = heldSince {
                        let held = (tr.time - h.time).microseconds
                        current!.outcome = h.edge.map { .held(edge: $0, for: held) } ?? .heldBack(for: held)
                    }
                default:
                    break
                }
            }
            guard current != nil else { continue }
            for c in step.touches.contacts {
                switch c.phase {
                case .down: down += 1
                case .up, .cancel: down = max(0, down - 1)
                case .move: break
                }
            }
            current!.fingers = max(current!.fingers, down)
            current!.passed += passedFrames
            if !step.isTimer && step.clone.isEmpty { current!.withheld += 1 }
            current!.end = step.time
            if down == 0 && !step.isTimer {
                out.append(current!)
                current = nil
            }
        }
        if let current { out.append(current) }
        return out
    }

    /// Replays `trace`, a multitouch device with slots, on a panel of
    /// `geometry` with `claims`; nil when the device has no slots (it would
    /// not be claimed).
    public static func run(
        _ trace: Trace, geometry: PanelGeometry, thresholds: GestureThresholds = .defaults, claims: ClaimSet,
        transform: ScreenTransform = .normal
    ) throws(TraceError) -> ClaimReplay? {
        guard trace.device.hasSlots, trace.device.slotCount <= DeviceState.maxSlots else { return nil }
        var assembler = TouchAssembler(description: trace.device, geometry: geometry, device: DeviceID(1), file: trace.file)
        let fresh = DeviceState(description: trace.device)
        var claimer = Claimer(
            width: geometry.screenWidth, height: geometry.screenHeight, thresholds: thresholds, device: fresh, clone: fresh)
        claimer.claims = claims
        claimer.transform = transform
        claimer.log.tracing = true
        var replay = ClaimReplay()
        var pending: [RawEvent] = []
        var touches: TouchFrame?
        var resynchronized = false
        func fire(upTo time: Timestamp) {
            while claimer.deadline <= time && claimer.deadline != .never {
                let at = claimer.deadline
                claimer.advance(to: at)
                replay.steps.append(
                    Step(
                        time: at, touches: TouchFrame(device: DeviceID(1), time: at), clone: claimer.output.frames,
                        state: claimer.state, isTimer: true, heldEdge: claimer.heldEdge))
            }
        }
        for e in trace.events {
            if e.type == Evdev.EV_SYN && e.code == Evdev.SYN_DROPPED {
                resynchronized = true
                pending.removeAll()
                continue
            }
            if e.type != Evdev.EV_SYN { pending.append(RawEvent(e.type, e.code, e.value)) }
            if let f = try assembler.feed(e) { touches = f }
            guard e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT else { continue }
            fire(upTo: e.time)
            let t = touches ?? TouchFrame(device: DeviceID(1), time: e.time)
            claimer.process(pending, at: e.time, touches: t, resynchronized: resynchronized)
            replay.steps.append(
                Step(
                    time: e.time, touches: t, clone: claimer.output.frames, state: claimer.state, isTimer: false,
                    heldEdge: claimer.heldEdge))
            pending.removeAll()
            touches = nil
            resynchronized = false
        }
        fire(upTo: .never - .milliseconds(1))
        replay.transitions = claimer.log.transitions
        replay.anomalies = claimer.log.anomalies
        return replay
    }
}

extension DeviceState {
    /// A device as `description` says it is, at rest: its slots empty, its
    /// axes at their minimum, its keys up (also what a new clone of it holds).
    public init(description d: DeviceDescription) {
        self.init(slots: d.slotCount)
        for code in (d.codes[Evdev.EV_ABS] ?? []) where !Evdev.isSlotted(code) {
            set(axis: code, d.absinfo[code]?.minimum ?? 0)
        }
        for code in (d.codes[Evdev.EV_ABS] ?? []) where code >= Evdev.ABS_MT_TOUCH_MAJOR && code <= Evdev.ABS_MT_LAST {
            for s in 0..<Int32(slotCount) { set(slot: s, code, code == Evdev.ABS_MT_TRACKING_ID ? -1 : 0) }
        }
        for code in (d.codes[Evdev.EV_KEY] ?? []) { set(key: code, down: false) }
    }
}
