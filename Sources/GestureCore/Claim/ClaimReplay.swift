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
    }

    public var steps: [Step] = []
    public var transitions: [Transition] = []
    public var anomalies: [Transition] = []

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
                        state: claimer.state, isTimer: true))
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
                Step(time: e.time, touches: t, clone: claimer.output.frames, state: claimer.state, isTimer: false))
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
