package import GestureCore
package import GestureProtocol

/// One evdev event, as read from a device or written to a clone.
package struct RawEvent: Equatable, Sendable {
    package var type: UInt16
    package var code: UInt16
    package var value: Int32

    package init(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        self.type = type
        self.code = code
        self.value = value
    }
}

/// The events of one evdev frame, up to its `SYN_REPORT`, and the frame's time.
package struct RawFrame: Equatable, Sendable {
    package var time: Timestamp
    package var events: [RawEvent]

    package init(time: Timestamp, events: [RawEvent]) {
        self.time = time
        self.events = events
    }
}

/// Decides, frame by frame, what of a claimed touchscreen reaches its
/// clone, the device the compositor reads instead (docs/claiming.md).
///
/// A touch sequence (from the first finger down to the last up) is passed
/// on as it comes, unless it is claimed:
///
/// - at the landing of the Nth finger, when N is a claimed finger count and
///   it lands within `claim.window` of the first: the touches passed on so
///   far are cancelled on the clone (`MT_TOOL_PALM` on their slots in one
///   frame, which libinput turns into a touch cancel; then the tool back to
///   finger and the slots ended, so the next touch in those slots arrives
///   whole); nothing more of the sequence goes on;
/// - a first finger that lands in the band of a claimed edge is held back:
///   claimed (never passed on) if it moves inward past `slop`; passed on
///   from where it landed, then as it comes, if it lifts, moves otherwise,
///   a second finger lands, or `claim.edgeHold` passes.
///
/// A frame passed on is the device's own, with its own time, when the
/// clone is in step with the device; after frames were held back or
/// cancelled it is the difference between the two (`DeviceState`), so
/// that the clone ends where the device is whatever it missed.
package struct Claimer {
    package enum Phase: Equatable {
        /// No finger down.
        case idle
        /// Frames go on; the sequence's first finger landed then.
        case passing(first: Timestamp)
        /// One finger in a claimed edge band, its frames kept back.
        case holding(slot: Int, x: Double, y: Double, edge: PanelEdge, since: Timestamp)
        /// Nothing of this sequence goes on.
        case claimed
    }

    package private(set) var phase = Phase.idle
    package var claims = ClaimSet()
    /// The screen's size as mounted, mm, and how the picture is turned on
    /// it now: edges are the picture's.
    let width: Double
    let height: Double
    package var transform = ScreenTransform.normal
    var slop: Double
    var edgeBand: Double
    var window: Timestamp.Duration
    var edgeHold: Timestamp.Duration
    /// The device advertises `BTN_TOUCH`, `BTN_TOOL_FINGER` (and the like):
    /// cancelling lifts them on the clone too.
    let keysToLift: [UInt16]

    /// The device as its frames say it is, and the clone as what was
    /// written says it is.
    package private(set) var source = DeviceState()
    package private(set) var clone = DeviceState()
    /// The clone is the device, but for the frame now coming. When they
    /// start apart (the device has values left from touches before it was
    /// claimed; a new clone has zeros), the first frame passed on brings
    /// the clone every value it lacks: the kernel drops a value a device
    /// already has, so the device will not repeat them.
    private var inStep: Bool
    /// The frames held back while a touch waits at an edge, and the
    /// device's state before the first of them.
    private var held: [RawFrame] = []
    private var heldBase = DeviceState()
    /// Fingers down on the device.
    private var down: Set<Int> = []

    /// `device` and `clone`: their states when the claim starts.
    package init(
        width: Double, height: Double, thresholds: GestureThresholds, keys: Set<UInt16>,
        device: DeviceState = DeviceState(), clone: DeviceState = DeviceState()
    ) {
        source = device
        self.clone = clone
        inStep = device == clone
        self.width = width
        self.height = height
        slop = thresholds.slop
        edgeBand = thresholds.edgeBand
        window = .milliseconds(thresholds.claimWindow)
        edgeHold = .milliseconds(thresholds.claimEdgeHold)
        keysToLift = [Evdev.BTN_TOUCH, 0x145, 0x14d, 0x14e, 0x14f, 0x144].filter(keys.contains)
    }

    package mutating func set(thresholds: GestureThresholds) {
        slop = thresholds.slop
        edgeBand = thresholds.edgeBand
        window = .milliseconds(thresholds.claimWindow)
        edgeHold = .milliseconds(thresholds.claimEdgeHold)
    }

    /// When a held-back touch must be passed on (`.never`: none is).
    package var deadline: Timestamp {
        if case .holding(_, _, _, _, let since) = phase { return since + edgeHold }
        return .never
    }

    /// Whether any finger is down on the device now.
    package var anyDown: Bool { !down.isEmpty }

    /// The frames to write to the clone for `frame`, which the assembler
    /// turned into `touches` (the contacts that changed, in mm on the
    /// screen). `resynchronized`: the frame follows a `SYN_DROPPED`.
    package mutating func process(_ frame: RawFrame, touches: TouchFrame, resynchronized: Bool = false) -> [RawFrame] {
        let sourceBefore = source
        let before = source.currentSlot
        source.apply(frame.events)
        var landed: [Contact] = []
        for i in 0..<touches.count {
            let c = touches[i]
            switch c.phase {
            case .down:
                down.insert(c.slot)
                landed.append(c)
            case .up, .cancel:
                down.remove(c.slot)
            case .move:
                break
            }
        }
        var out: [RawFrame] = []
        if resynchronized, case .passing = phase {
            // What the clone saw no longer follows: end it there.
            out += cancel(at: frame.time)
            phase = down.isEmpty ? .idle : .claimed
            return out
        }
        switch phase {
        case .idle:
            guard !landed.isEmpty else {
                // A frame without a landing while nothing is down (a key, a stray axis): on it goes.
                return pass(frame, slotBefore: before)
            }
            if landed.count == 1, let edge = claimedEdge(landed[0]) {
                phase = .holding(slot: landed[0].slot, x: landed[0].x, y: landed[0].y, edge: edge, since: frame.time)
                held = [frame]
                heldBase = sourceBefore
                inStep = false
                return []
            }
            if claims.fingers.contains(down.count) {
                phase = .claimed
                inStep = false
                return []
            }
            phase = .passing(first: frame.time)
            out += pass(frame, slotBefore: before)
        case .passing(let first):
            if !landed.isEmpty && claims.fingers.contains(down.count) && frame.time - first <= window {
                out += cancel(at: frame.time)
                phase = .claimed
                inStep = false
                return out
            }
            out += pass(frame, slotBefore: before)
        case .holding(let slot, let x, let y, let edge, let since):
            if !landed.isEmpty || down.isEmpty {
                // A second finger, or a tap at the edge: what was held goes on, then this frame.
                out += release(frame, slotBefore: before)
                phase = down.isEmpty ? .idle : .passing(first: since)
                if case .passing(let first) = phase, claims.fingers.contains(down.count), frame.time - first <= window {
                    out += cancel(at: frame.time)
                    phase = .claimed
                    inStep = false
                }
                return out
            }
            if let c = (0..<touches.count).map({ touches[$0] }).first(where: { $0.slot == slot && $0.phase == .move }) {
                let (now, then) = (picture(c.x, c.y), picture(x, y))
                let (dx, dy) = (now.x - then.x, now.y - then.y)
                let inward: Double
                switch edge {
                case .left: inward = dx
                case .right: inward = -dx
                case .top: inward = dy
                case .bottom: inward = -dy
                }
                if inward > slop {
                    phase = .claimed
                    held = []
                    return []
                }
                if (dx * dx + dy * dy).squareRoot() > slop {
                    out += release(frame, slotBefore: before)
                    phase = .passing(first: since)
                    return out
                }
            }
            held.append(frame)
            return []
        case .claimed:
            break
        }
        if down.isEmpty {
            if phase == .claimed { inStep = false }
            phase = .idle
        }
        return out
    }

    /// `frame` while the device is not grabbed (the compositor reads it
    /// itself and nothing goes to the clone): the device's state and its
    /// fingers are followed, and the clone, which saw none of it, is out of
    /// step until the next frame passed on brings it the difference.
    package mutating func observe(_ frame: RawFrame, touches: TouchFrame) {
        source.apply(frame.events)
        for i in 0..<touches.count {
            switch touches[i].phase {
            case .down: down.insert(touches[i].slot)
            case .up, .cancel: down.remove(touches[i].slot)
            case .move: break
            }
        }
        held = []
        inStep = false
        phase = down.isEmpty ? .idle : .claimed
    }

    /// The deadline of a held-back touch passed: what was held goes on.
    package mutating func advance(to now: Timestamp) -> [RawFrame] {
        guard case .holding(_, _, _, _, let since) = phase, now >= since + edgeHold else { return [] }
        phase = .passing(first: since)
        return release(nil, slotBefore: source.currentSlot)
    }

    /// Cancels on the clone whatever it has down (claiming stops; the
    /// device goes back to the compositor): the frames to write.
    package mutating func cancelAll(at time: Timestamp) -> [RawFrame] {
        held = []
        let out = cancel(at: time)
        phase = down.isEmpty ? .idle : .claimed
        return out
    }

    // MARK: Frames for the clone

    /// `frame` as the clone takes it: the device's own events when the
    /// clone is in step (with the slot selected again if the clone's
    /// current slot is another), else the difference.
    private mutating func pass(_ frame: RawFrame, slotBefore: Int32) -> [RawFrame] {
        if inStep {
            var events = frame.events
            let firstSlotted = events.first { $0.type == Evdev.EV_ABS && DeviceState.isSlotted($0.code) }
            if let e = firstSlotted, e.code != Evdev.ABS_MT_SLOT, clone.currentSlot != slotBefore {
                events.insert(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, slotBefore), at: 0)
            }
            let out = RawFrame(time: frame.time, events: events)
            clone.apply(out.events)
            return [out]
        }
        let diff = clone.difference(to: source)
        inStep = true
        guard !diff.isEmpty else { return [] }
        let out = RawFrame(time: frame.time, events: diff + [RawEvent(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)])
        clone.apply(out.events)
        return [out]
    }

    /// What was held back, frame by frame (each as what takes the clone
    /// to the device's state after it, with its own time), then `frame`.
    private mutating func release(_ frame: RawFrame?, slotBefore: Int32) -> [RawFrame] {
        var out: [RawFrame] = []
        var state = heldBase
        for f in held {
            state.apply(f.events)
            let diff = clone.difference(to: state)
            guard !diff.isEmpty else { continue }
            let r = RawFrame(time: f.time, events: diff + [RawEvent(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)])
            clone.apply(r.events)
            out.append(r)
        }
        held = []
        // The clone is where the device was before `frame`.
        inStep = true
        if let frame { out += pass(frame, slotBefore: slotBefore) }
        return out
    }

    /// The frames that cancel every touch down on the clone: the palm tool
    /// on each slot in one frame (libinput's touch cancel), then each slot
    /// back to the finger tool and ended, its keys lifted.
    private mutating func cancel(at time: Timestamp) -> [RawFrame] {
        let active = clone.activeSlots
        guard !active.isEmpty else { return [] }
        var palm: [RawEvent] = []
        var end: [RawEvent] = []
        for s in active {
            palm += [
                RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, s), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, Evdev.MT_TOOL_PALM),
            ]
            end += [
                RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, s), RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, 0),
                RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1),
            ]
        }
        for k in keysToLift where clone.keys[k, default: 0] != 0 { end.append(RawEvent(Evdev.EV_KEY, k, 0)) }
        let report = RawEvent(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        let frames = [RawFrame(time: time, events: palm + [report]), RawFrame(time: time, events: end + [report])]
        for f in frames { clone.apply(f.events) }
        return frames
    }

    /// The claimed edge whose band `c` landed in, if any.
    /// A position on the panel as a position in the picture, as turned now.
    private func picture(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        transform.apply(x: x, y: y, width: width, height: height)
    }

    private func claimedEdge(_ c: Contact) -> PanelEdge? {
        guard !claims.edges.isEmpty else { return nil }
        var best: PanelEdge?
        var bestDistance = edgeBand
        let (x, y) = picture(c.x, c.y)
        let (w, h) = transform.size(width: width, height: height)
        for (edge, d) in [(PanelEdge.left, x), (.right, w - x), (.top, y), (.bottom, h - y)]
        where claims.edges.contains(edge) && d <= bestDistance {
            best = edge
            bestDistance = d
        }
        return best
    }
}

/// What an evdev device holds after the events so far: each slot's values,
/// the slot selected, the other axes and the keys. Two of them (the device,
/// its clone) give the events that take one to the other.
package struct DeviceState: Equatable, Sendable {
    package var currentSlot: Int32 = 0
    /// Per slot, the value of each slotted axis (`ABS_MT_*`).
    package var slots: [Int32: [UInt16: Int32]] = [:]
    /// The axes that are not slotted.
    package var axes: [UInt16: Int32] = [:]
    package var keys: [UInt16: Int32] = [:]

    package init() {}

    /// `ABS_MT_*` codes but the slot itself: kept per slot.
    static func isSlotted(_ code: UInt16) -> Bool { code >= 0x2f && code <= 0x3d }

    package mutating func apply(_ events: [RawEvent]) {
        for e in events {
            switch e.type {
            case Evdev.EV_ABS where e.code == Evdev.ABS_MT_SLOT:
                currentSlot = e.value
            case Evdev.EV_ABS where Self.isSlotted(e.code):
                slots[currentSlot, default: [:]][e.code] = e.value
            case Evdev.EV_ABS:
                axes[e.code] = e.value
            case Evdev.EV_KEY:
                keys[e.code] = e.value
            default:
                break
            }
        }
    }

    /// The slots with a touch (a tracking id of 0 or more).
    package var activeSlots: [Int32] {
        slots.keys.sorted().filter { (slots[$0]?[Evdev.ABS_MT_TRACKING_ID] ?? -1) >= 0 }
    }

    /// The events that make this state `other` (without the `SYN_REPORT`):
    /// per slot that differs, the slot, then its tracking id, then its
    /// other values; then the other axes and the keys that differ.
    package func difference(to other: DeviceState) -> [RawEvent] {
        var out: [RawEvent] = []
        var selected = currentSlot
        for slot in Set(slots.keys).union(other.slots.keys).sorted() {
            let mine = slots[slot] ?? [:]
            let theirs = other.slots[slot] ?? [:]
            var changes: [RawEvent] = []
            if let id = theirs[Evdev.ABS_MT_TRACKING_ID], id != (mine[Evdev.ABS_MT_TRACKING_ID] ?? -1) {
                changes.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, id))
            }
            for code in theirs.keys.sorted() where code != Evdev.ABS_MT_TRACKING_ID && theirs[code] != mine[code] {
                changes.append(RawEvent(Evdev.EV_ABS, code, theirs[code]!))
            }
            guard !changes.isEmpty else { continue }
            if selected != slot {
                out.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, slot))
                selected = slot
            }
            out += changes
        }
        if selected != other.currentSlot && !out.isEmpty {
            out.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, other.currentSlot))
        }
        for code in other.axes.keys.sorted() where other.axes[code] != axes[code] {
            out.append(RawEvent(Evdev.EV_ABS, code, other.axes[code]!))
        }
        for code in other.keys.keys.sorted() where other.keys[code] != keys[code, default: 0] {
            out.append(RawEvent(Evdev.EV_KEY, code, other.keys[code]!))
        }
        return out
    }
}
