/// Decides, frame by frame, what of a claimed touchscreen reaches its
/// clone, the device the compositor reads instead (docs/claiming.md, where
/// its state diagram is the specification: a test checks that every
/// transition met replaying the recordings is drawn there).
///
/// A touch sequence (from the first finger down to the last up) is passed
/// on as it comes, unless it is claimed:
///
/// - at the landing of the Nth finger, when N is a claimed finger count and
///   it lands within `claim.window` of the first: the touches passed on so
///   far are cancelled on the clone (`MT_TOOL_PALM` on their slots in one
///   frame, which libinput turns into a touch cancel; then the tool back to
///   finger, the slots ended and the touch keys lifted, so the next touch
///   in those slots arrives whole); nothing more of the sequence goes on;
/// - a first finger that lands in the band of a claimed edge is held back:
///   claimed (never passed on) if it moves inward past `slop`; passed on
///   from where it landed, then as it comes, if it lifts, moves otherwise,
///   a second finger lands, or `claim.edgeHold` passes;
/// - when the fingers down are a count with a claimed hold and stay within
///   `slop` of where they landed, with none lifted, for the hold's ms (at
///   least `hold.minDuration`) from the last landing: cancelled as at a
///   claimed landing. Until then every frame is passed on as it comes.
///
/// On a compositor that drops libinput's touch cancel (`ClaimSet.cancelDropped`)
/// a touch the clone got cannot be taken back from the app, so:
///
/// - fingers that land fewer than a claimed count that may still land
///   within `claim.window` are held back (`waiting`): claimed (never passed
///   on) if the count is reached in time; passed on from where they landed,
///   then as they come, when they lift (a tap), more fingers land than any
///   claimed count, or `claim.window` passes;
/// - whatever would be cancelled (a claimed hold, a resync, claiming ending,
///   a clone write that failed) is lifted instead: each touch ends where
///   the clone has it, so the app is never left with an open touch.
///
/// A frame passed on is the device's own, with its own time, when the
/// clone is in step with the device; after frames were held back or
/// cancelled it is the difference between the two (`DeviceState`), so
/// that the clone ends where the device is whatever it missed.
///
/// Written like the arbiter: each frame (or timer) is first classified
/// into one `Event`, then the state's handler decides; an impossible pair
/// goes to the log's anomalies. Its output goes to `output`, storage kept
/// from call to call: a frame passed on allocates nothing.
public struct Claimer: Sendable {
    public enum State: String, Sendable, CaseIterable {
        /// No finger down.
        case idle
        /// Frames go on as they come.
        case passing
        /// One finger in a claimed edge band, its frames kept back.
        case holding
        /// Fewer fingers than a claimed count that may still land, kept
        /// back: the compositor drops touch cancels.
        case waiting
        /// Nothing more of this sequence goes on.
        case claimed
    }

    public enum Event: String, Sendable, CaseIterable {
        /// A frame with nothing down before or after it (a key, an axis).
        case stray
        /// Fingers landed, and no claim takes them.
        case landing
        /// One finger landed in the band of a claimed edge.
        case edgeLanding = "edge-landing"
        /// Fingers landed, fewer than a claimed count that may still land
        /// within `claim.window`, and the compositor drops touch cancels.
        case earlyLanding = "early-landing"
        /// The fingers down are a claimed count, the last landing within
        /// `claim.window` of the first (or all at once).
        case claimedLanding = "claimed-landing"
        /// Fingers moved or lifted, some still down.
        case frame
        /// The finger held at an edge moved inward past `slop`.
        case inward
        /// The finger held at an edge moved past `slop`, not inward.
        case away
        /// `claim.edgeHold` passed with the finger still held.
        case edgeTimeout = "edge-timeout"
        /// `claim.window` passed with the first fingers still held back.
        case windowTimeout = "window-timeout"
        /// A claimed hold's time passed with its fingers still.
        case holdDeadline = "hold-deadline"
        /// The last finger lifted.
        case allUp = "all-up"
        /// The device dropped events (`SYN_DROPPED`): what the clone saw no longer follows.
        case resync
        /// A frame the clone does not get: the device is not grabbed, the
        /// compositor reads it itself.
        case unseen
        /// Claiming ends (a reload, the daemon stopping): the clone's touches are cancelled.
        case cancelAll = "cancel-all"
        /// Frames could not be written to the clone: its touches are cancelled once writing works again.
        case cloneLost = "clone-lost"
    }

    public private(set) var state = State.idle
    /// The sequence under way was claimed at a finger count the claims send
    /// to the virtual touchpad: its touches are written there until the
    /// last lifts, or claiming ends (`cancelAll`), or the device is not
    /// grabbed (`unseen`).
    public private(set) var toTouchpad = false
    /// What is claimed. A change takes effect when no finger is down: a
    /// touch sequence under way keeps the claims it began with (the
    /// clients act on it by the context it began in).
    public var claims: ClaimSet {
        get { wanted }
        set {
            wanted = newValue
            if down.isEmpty { inForce = newValue }
        }
    }

    /// What is claimed now that a client that claimed went (it closed, or
    /// its user left the screen): as `claims`, but a sequence nothing was
    /// taken of yet (`passing`, `waiting`) keeps only what is still claimed, so that
    /// what the client went with (a hold waiting for its time, a count
    /// whose last finger has yet to land) takes nothing.
    public mutating func withdraw(to newValue: ClaimSet) {
        claims = newValue
        guard !down.isEmpty, state == .passing || state == .waiting else { return }
        inForce = inForce.intersection(newValue)
        if let ms = inForce.holds[down.count], holdAt != .never {
            // Timed from the last landing, at the time still asked for.
            holdAt = max(holdAt, lastLanding + max(.milliseconds(Double(ms)), holdFloor))
        } else {
            holdAt = .never
        }
    }
    private var wanted = ClaimSet()
    /// The claims of the sequence under way.
    private var inForce = ClaimSet()
    /// Transitions (when tracing) and anomalies.
    public var log = TransitionLog()

    /// The screen's size as mounted, mm, and how the picture is turned on
    /// it now: edges are the picture's.
    public let width: Double
    public let height: Double
    public var transform = ScreenTransform.normal
    private var slop: Double
    private var edgeBand: Double
    private var window: Timestamp.Duration
    private var edgeHold: Timestamp.Duration
    /// The shortest a claimed hold lasts: the recognizer's `hold.minDuration`,
    /// so that no hold is claimed before it is a touch-and-hold.
    private var holdFloor: Timestamp.Duration

    /// The device as its frames say it is, and the clone as what was
    /// written says it is.
    public private(set) var source: DeviceState
    public private(set) var clone: DeviceState
    /// The clone is the device, but for the frame now coming. When they
    /// start apart (the device has values left from touches before it was
    /// claimed; a new clone has zeros), the first frame passed on brings
    /// the clone every value it lacks: the kernel drops a value a device
    /// already has, so the device will not repeat them.
    private var inStep: Bool
    /// The first finger of the sequence landed then.
    private var first = Timestamp.zero
    /// The finger held at an edge: its slot, where it landed, the edge.
    private var held: (slot: Int, x: Double, y: Double, edge: PanelEdge) = (0, 0, 0, .left)
    /// The frames held back while a touch waits at an edge, and the
    /// device's state before the first of them.
    private var heldFrames = EvdevFrames()
    private var heldBase: DeviceState
    /// Fingers down on the device.
    private var down = SlotSet()
    /// Where each slot's finger landed, mm on the panel (a claimed hold's
    /// fingers must stay within `slop` of it).
    private var landedAt: [(x: Double, y: Double)]
    /// A claimed hold's deadline, while the sequence may still become one.
    private var holdAt = Timestamp.never
    /// When the last finger of the sequence landed (a hold's time counts from it).
    private var lastLanding = Timestamp.zero
    /// The sequence can no longer be a claimed hold: a finger moved beyond
    /// `slop` or lifted.
    private var holdSpoiled = false

    /// What the last call gives the clone, in order.
    public private(set) var output = EvdevFrames()
    /// The clone as the last call found it: what it is if its frames are not written.
    private var cloneBefore: DeviceState
    /// Frames were lost on the way to the clone: its touches are to be
    /// cancelled at the next call (at `retryAt` at the latest, `advance`).
    private var cancelOwed = false
    private var retryAt = Timestamp.never
    /// How long a clone that could not be written is left before trying again.
    public static let retryInterval = Timestamp.Duration.milliseconds(100)

    /// `device` and `clone`: their states when the claim starts (a new
    /// clone has every slot empty and no key down).
    public init(
        width: Double, height: Double, thresholds: GestureThresholds, device: DeviceState, clone: DeviceState
    ) {
        source = device
        self.clone = clone
        cloneBefore = clone
        heldBase = device
        inStep = device == clone
        self.width = width
        self.height = height
        slop = thresholds.slop
        edgeBand = thresholds.edgeBand
        window = .milliseconds(thresholds.claimWindow)
        edgeHold = .milliseconds(thresholds.claimEdgeHold)
        holdFloor = .milliseconds(thresholds.holdMinDuration)
        landedAt = Array(repeating: (0, 0), count: TouchFrame.capacity)
    }

    public mutating func set(thresholds: GestureThresholds) {
        slop = thresholds.slop
        edgeBand = thresholds.edgeBand
        window = .milliseconds(thresholds.claimWindow)
        edgeHold = .milliseconds(thresholds.claimEdgeHold)
        holdFloor = .milliseconds(thresholds.holdMinDuration)
    }

    /// When `advance` has something to do: a held-back touch's
    /// `claim.edgeHold` or `claim.window` ends, a claimed hold's time
    /// passes, or a cancel the clone is owed is tried again.
    public var deadline: Timestamp {
        let hold: Timestamp
        switch state {
        case .holding: hold = first + edgeHold
        case .waiting: hold = first + window
        case .passing: hold = holdAt
        case .idle, .claimed: hold = .never
        }
        return min(hold, cancelOwed ? retryAt : .never)
    }

    /// Whether touches the clone got are lifted rather than cancelled: the
    /// compositor reading it drops libinput's touch cancel.
    private var lifts: Bool { inForce.cancelDropped || wanted.cancelDropped }

    /// Whether any finger is down on the device now.
    public var anyDown: Bool { !down.isEmpty }

    /// The claimed edge a finger is held back at, while one is.
    public var heldEdge: PanelEdge? { state == .holding ? held.edge : nil }

    // MARK: Entry points

    /// A frame of the device, its events (without its `SYN_REPORT`) at
    /// `time`, which the assembler turned into `touches` (the contacts that
    /// changed, in mm on the panel). `resynchronized`: the frame follows a
    /// `SYN_DROPPED`. What goes to the clone is in `output`.
    public mutating func process(
        _ events: [RawEvent], at time: Timestamp, touches: TouchFrame, resynchronized: Bool = false
    ) {
        begin(at: time)
        // A hold whose time passed before this frame was claimed then.
        if state == .passing && time >= holdAt {
            handle(.holdDeadline, Frame(events: [], time: holdAt, slotBefore: source.currentSlot))
        }
        if down.isEmpty {
            inForce = wanted
            holdSpoiled = false
        }
        var landed = 0
        var firstLanding = Contact(slot: 0, phase: .down, x: 0, y: 0)
        var heldMove: Contact?
        let wasIdle = down.isEmpty
        for i in 0..<touches.count {
            let c = touches[i]
            switch c.phase {
            case .down:
                if landed == 0 { firstLanding = c }
                landed += 1
                down.insert(c.slot)
                if c.slot < landedAt.count { landedAt[c.slot] = (c.x, c.y) }
            case .up, .cancel:
                down.remove(c.slot)
                holdSpoiled = true
            case .move:
                if state == .holding && c.slot == held.slot { heldMove = c }
                if !holdSpoiled && c.slot < landedAt.count {
                    let (dx, dy) = (c.x - landedAt[c.slot].x, c.y - landedAt[c.slot].y)
                    if dx * dx + dy * dy > slop * slop { holdSpoiled = true }
                }
            }
        }
        if holdSpoiled || down.isEmpty {
            holdAt = .never
        } else if landed > 0 {
            lastLanding = time
            holdAt = inForce.holds[down.count].map { time + max(.milliseconds(Double($0)), holdFloor) } ?? .never
        }
        // Kept only where a hold may begin: the state before the frame.
        if wasIdle && landed > 0 { heldBase = source }
        let slotBefore = source.currentSlot
        source.apply(events)
        let frame = Frame(events: events, time: time, slotBefore: slotBefore)
        let event: Event
        switch state {
        case .idle:
            if landed == 0 {
                event = .stray
            } else if landed == 1 && down.count == 1, let edge = claimedEdge(firstLanding) {
                held = (firstLanding.slot, firstLanding.x, firstLanding.y, edge)
                event = .edgeLanding
            } else if inForce.claims(fingers: down.count) {
                event = .claimedLanding
            } else {
                event = mayGrow ? .earlyLanding : .landing
            }
        case .passing:
            if resynchronized {
                event = .resync
            } else if landed > 0 && inForce.claims(fingers: down.count) && time - first <= window {
                event = .claimedLanding
            } else {
                event = down.isEmpty ? .allUp : landed > 0 ? .landing : .frame
            }
        case .holding:
            if down.isEmpty {
                event = .allUp
            } else if landed > 0 && lifts && inForce.claims(fingers: down.count) && time - first <= window {
                event = .claimedLanding
            } else if landed > 0 {
                event = mayGrow && time - first <= window ? .earlyLanding : .landing
            } else if let c = heldMove {
                event = motionOfHeld(to: c)
            } else {
                event = .frame
            }
        case .waiting:
            if down.isEmpty {
                event = .allUp
            } else if resynchronized {
                event = .resync
            } else if landed > 0 && inForce.claims(fingers: down.count) && time - first <= window {
                event = .claimedLanding
            } else if landed > 0 {
                event = mayGrow && time - first <= window ? .earlyLanding : .landing
            } else {
                event = .frame
            }
        case .claimed:
            event = down.isEmpty ? .allUp : landed > 0 ? .landing : .frame
        }
        handle(event, frame)
        // A second finger ended a hold within the window of the first: the
        // sequence is a claimed count after all.
        if state == .passing && event == .landing && inForce.claims(fingers: down.count) && time - first <= window {
            handle(.claimedLanding, frame)
        }
    }

    /// A frame while the device is not grabbed (the compositor reads it
    /// itself and nothing goes to the clone): the device's state and its
    /// fingers are followed, and the clone, which saw none of it, is out of
    /// step until the next frame passed on brings it the difference.
    public mutating func observe(_ events: [RawEvent], at time: Timestamp, touches: TouchFrame) {
        begin(at: time)
        source.apply(events)
        for i in 0..<touches.count {
            switch touches[i].phase {
            case .down: down.insert(touches[i].slot)
            case .up, .cancel: down.remove(touches[i].slot)
            case .move: break
            }
        }
        handle(.unseen, Frame(events: [], time: time, slotBefore: source.currentSlot))
    }

    /// Time passed: a held-back touch whose `claim.edgeHold` or
    /// `claim.window` ended goes on; a claimed hold whose time passed is
    /// claimed; a cancel the clone is owed is tried again.
    public mutating func advance(to now: Timestamp) {
        begin(at: now)
        if state == .holding && now >= first + edgeHold {
            handle(.edgeTimeout, Frame(events: [], time: now, slotBefore: source.currentSlot))
        } else if state == .waiting && now >= first + window {
            handle(.windowTimeout, Frame(events: [], time: now, slotBefore: source.currentSlot))
        } else if state == .passing && now >= holdAt {
            handle(.holdDeadline, Frame(events: [], time: now, slotBefore: source.currentSlot))
        }
    }

    /// Cancels on the clone whatever it has down (claiming stops; the
    /// device goes back to the compositor).
    public mutating func cancelAll(at time: Timestamp) {
        begin(at: time)
        handle(.cancelAll, Frame(events: [], time: time, slotBefore: source.currentSlot))
    }

    /// The clone was made again (claiming turned back on): it starts empty,
    /// and takes the device's state with the next frame passed on; a
    /// sequence under way stays unclaimed until its last finger lifts.
    public mutating func newClone(_ state: DeviceState) {
        clone = state
        cloneBefore = state
        inStep = false
        cancelOwed = false
        heldFrames.removeAll()
        self.state = down.isEmpty ? .idle : .claimed
    }

    /// The writer wrote the first `count` frames of `output`, and no more
    /// (a write failed): the clone holds only those, and its touches are
    /// cancelled as soon as a write works again.
    public mutating func written(_ count: Int, at time: Timestamp) {
        guard count < output.count else { return }
        clone = cloneBefore
        for i in 0..<count { clone.apply(output[i].events) }
        cloneBefore = clone
        output.removeAll()
        handle(.cloneLost, Frame(events: [], time: time, slotBefore: source.currentSlot))
    }

    // MARK: The machine

    /// One device frame as the handlers use it.
    private struct Frame {
        var events: [RawEvent]
        var time: Timestamp
        /// The slot selected before the frame.
        var slotBefore: Int32
    }

    /// Starts a call's output; a cancel the clone is owed goes first.
    private mutating func begin(at time: Timestamp) {
        output.removeAll()
        cloneBefore = clone
        if cancelOwed {
            cancelOwed = false
            cancel(at: time)
        }
    }

    private mutating func handle(_ event: Event, _ frame: Frame) {
        let old = state
        switch event {
        case .unseen:
            heldFrames.removeAll()
            inStep = false
            state = down.isEmpty ? .idle : .claimed
        case .cancelAll:
            heldFrames.removeAll()
            cancel(at: frame.time)
            state = down.isEmpty ? .idle : .claimed
        case .cloneLost:
            heldFrames.removeAll()
            inStep = false
            cancelOwed = true
            retryAt = frame.time + Self.retryInterval
            state = down.isEmpty ? .idle : .claimed
        default:
            switch state {
            case .idle: idle(event, frame)
            case .passing: passing(event, frame)
            case .holding: holding(event, frame)
            case .waiting: waiting(event, frame)
            case .claimed: claimed(event, frame)
            }
        }
        if state != .claimed || event == .cancelAll || event == .unseen {
            toTouchpad = false
        } else if event == .claimedLanding {
            toTouchpad = inForce.toTouchpad(fingers: down.count)
        }
        log.record(machine: .claimer, from: old.rawValue, event: event.rawValue, to: state.rawValue, at: frame.time)
    }

    private mutating func idle(_ event: Event, _ frame: Frame) {
        switch event {
        case .stray:
            pass(frame)
        case .landing:
            first = frame.time
            state = .passing
            pass(frame)
        case .edgeLanding, .earlyLanding:
            first = frame.time
            heldFrames.removeAll()
            hold(frame)
            inStep = false
            state = event == .edgeLanding ? .holding : .waiting
        case .claimedLanding:
            first = frame.time
            inStep = false
            state = .claimed
        case .frame, .inward, .away, .edgeTimeout, .windowTimeout, .holdDeadline, .allUp, .resync, .unseen, .cancelAll,
            .cloneLost:
            unexpected(event, frame)
        }
    }

    private mutating func passing(_ event: Event, _ frame: Frame) {
        switch event {
        case .landing, .frame:
            pass(frame)
        case .allUp:
            pass(frame)
            state = .idle
        case .claimedLanding, .resync, .holdDeadline:
            cancel(at: frame.time)
            inStep = false
            holdAt = .never
            state = down.isEmpty ? .idle : .claimed
        case .stray, .edgeLanding, .earlyLanding, .inward, .away, .edgeTimeout, .windowTimeout, .unseen, .cancelAll,
            .cloneLost:
            unexpected(event, frame)
        }
    }

    private mutating func holding(_ event: Event, _ frame: Frame) {
        switch event {
        case .frame:
            hold(frame)
        case .inward, .claimedLanding:
            heldFrames.removeAll()
            state = .claimed
        case .earlyLanding:
            hold(frame)
            state = .waiting
        case .away, .landing:
            release(then: frame)
            state = .passing
        case .allUp:
            release(then: frame)
            state = .idle
        case .edgeTimeout:
            release(then: nil)
            state = .passing
        case .stray, .edgeLanding, .windowTimeout, .holdDeadline, .resync, .unseen, .cancelAll, .cloneLost:
            unexpected(event, frame)
        }
    }

    private mutating func waiting(_ event: Event, _ frame: Frame) {
        switch event {
        case .frame, .earlyLanding:
            hold(frame)
        case .claimedLanding, .resync:
            // The clone got none of it: nothing to end.
            heldFrames.removeAll()
            state = .claimed
        case .landing:
            release(then: frame)
            state = .passing
        case .allUp:
            release(then: frame)
            state = .idle
        case .windowTimeout:
            release(then: nil)
            state = .passing
        case .stray, .edgeLanding, .inward, .away, .edgeTimeout, .holdDeadline, .unseen, .cancelAll, .cloneLost:
            unexpected(event, frame)
        }
    }

    private mutating func claimed(_ event: Event, _ frame: Frame) {
        switch event {
        case .landing, .frame:
            break
        case .allUp:
            inStep = false
            state = .idle
        case .stray, .edgeLanding, .earlyLanding, .claimedLanding, .inward, .away, .edgeTimeout, .windowTimeout,
            .holdDeadline, .resync, .unseen, .cancelAll, .cloneLost:
            unexpected(event, frame)
        }
    }

    /// A pair the machine was not written for: a bug, kept in the log's
    /// anomalies. The frame goes on as the state says: nothing for a claimed
    /// sequence, kept with the others for a held one, the frame itself otherwise.
    private mutating func unexpected(_ event: Event, _ frame: Frame) {
        log.anomaly(machine: .claimer, state: state.rawValue, event: event.rawValue, at: frame.time)
        switch state {
        case .idle, .passing: pass(frame)
        case .holding, .waiting: hold(frame)
        case .claimed: break
        }
    }

    /// Whether more fingers than are down may still make a claimed count.
    private var mayGrow: Bool { lifts && inForce.claims(moreThan: down.count) }

    /// What the held finger's motion to `c` is: inward or away past slop,
    /// else nothing yet.
    private func motionOfHeld(to c: Contact) -> Event {
        let (now, then) = (picture(c.x, c.y), picture(held.x, held.y))
        let (dx, dy) = (now.x - then.x, now.y - then.y)
        let inward: Double
        switch held.edge {
        case .left: inward = dx
        case .right: inward = -dx
        case .top: inward = dy
        case .bottom: inward = -dy
        }
        if inward > slop { return .inward }
        return (dx * dx + dy * dy).squareRoot() > slop ? .away : .frame
    }

    /// A position on the panel as a position in the picture, as turned now.
    private func picture(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        transform.apply(x: x, y: y, width: width, height: height)
    }

    /// The claimed edge whose band `c` landed in, if any.
    private func claimedEdge(_ c: Contact) -> PanelEdge? {
        guard !inForce.edges.isEmpty else { return nil }
        let (x, y) = picture(c.x, c.y)
        let (w, h) = transform.size(width: width, height: height)
        return PanelEdge.at(x: x, y: y, width: w, height: h, band: edgeBand, among: inForce.edges)
    }

    // MARK: Frames for the clone

    /// The frame as the clone takes it: the device's own events when the
    /// clone is in step (with the slot selected again if the clone's
    /// current slot is another), else the difference.
    private mutating func pass(_ frame: Frame) {
        guard inStep else {
            clone.move(to: source, writing: &output)
            output.endFrame(at: frame.time)
            inStep = true
            return
        }
        var slotChecked = false
        for e in frame.events {
            if !slotChecked && e.type == Evdev.EV_ABS && Evdev.isSlotted(e.code) {
                // The frame's first slotted event goes to the slot the device had selected.
                slotChecked = true
                if e.code != Evdev.ABS_MT_SLOT && clone.currentSlot != frame.slotBefore {
                    output.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, frame.slotBefore))
                    clone.select(slot: frame.slotBefore)
                }
            }
            output.append(e)
            clone.apply(e)
        }
        output.endFrame(at: frame.time)
    }

    /// Keeps a frame back.
    private mutating func hold(_ frame: Frame) {
        for e in frame.events { heldFrames.append(e) }
        heldFrames.endFrame(at: frame.time)
    }

    /// What was held back, frame by frame (each as what takes the clone
    /// to the device's state after it, with its own time), then `frame`.
    private mutating func release(then frame: Frame?) {
        var state = heldBase
        for i in 0..<heldFrames.count {
            let f = heldFrames[i]
            state.apply(f.events)
            clone.move(to: state, writing: &output)
            output.endFrame(at: f.time)
        }
        heldFrames.removeAll()
        // The clone is where the device was before `frame`.
        inStep = true
        if let frame { pass(frame) }
    }

    /// The frames that cancel every touch down on the clone: the palm tool
    /// on each slot in one frame (libinput's touch cancel), then each slot
    /// back to the finger tool and ended, its touch keys lifted. Where the
    /// compositor drops the cancel, only the second frame: the touches lift
    /// where they are (the finger tool is written again though it is
    /// already set, which the kernel drops: every frame that ends touches
    /// this way names the tool, and a replay tells it from a lift of the
    /// device's own).
    private mutating func cancel(at time: Timestamp) {
        guard (0..<clone.slotCount).contains(where: { clone.isActive(slot: $0) }) else { return }
        var frames = 1
        if !lifts {
            for s in 0..<clone.slotCount where clone.isActive(slot: s) {
                output.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, Int32(s)))
                output.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, Evdev.MT_TOOL_PALM))
            }
            output.endFrame(at: time)
            frames = 2
        }
        for s in 0..<clone.slotCount where clone.isActive(slot: s) {
            output.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, Int32(s)))
            output.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, Evdev.MT_TOOL_FINGER))
            output.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1))
        }
        for k in Evdev.touchKeys where clone.isDown(key: k) { output.append(RawEvent(Evdev.EV_KEY, k, 0)) }
        output.endFrame(at: time)
        // The clone's state follows the frames.
        let end = output.count
        for i in (end - frames)..<end { clone.apply(output[i].events) }
    }
}
