/// One evdev event, as read from a device or written to a clone.
public struct RawEvent: Equatable, Sendable, CustomStringConvertible {
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        self.type = type
        self.code = code
        self.value = value
    }

    public static let report = RawEvent(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)

    public var description: String { "\(hex4(type)) \(hex4(code)) \(value)" }
}

/// What an evdev multitouch device holds after the events so far: each
/// slot's values, the slot selected, the other absolute axes and the keys
/// down. Two of them (a device, its clone) give the events that take one to
/// the other (`move(to:writing:)`).
///
/// Fixed storage, up to `maxSlots` slots: applying events, comparing and
/// copying a state never allocate (a claimed touchscreen's every frame
/// goes through two of them). A state knows the codes it was given or has
/// seen; a difference sets only the codes its target knows.
public struct DeviceState: Sendable, Equatable {
    /// The most slots a state holds (a claimed touchscreen has at most as many).
    public static let maxSlots = 32
    /// The per-slot axes: `ABS_MT_TOUCH_MAJOR` up to `ABS_MT_LAST`.
    static let slottedCount = Int(Evdev.ABS_MT_LAST - Evdev.ABS_MT_TOUCH_MAJOR) + 1
    static let keyWords = Evdev.keyCount / 64

    public private(set) var slotCount: Int
    public private(set) var currentSlot: Int32 = 0
    /// Which per-slot axes it knows: bit i is `ABS_MT_TOUCH_MAJOR + i`.
    private var slottedCodes: UInt16 = 0
    /// Slot s's value of axis i at `s * slottedCount + i`.
    private var slotValues = InlineArray<448, Int32>(repeating: 0)
    /// Which plain axes (`ABS_X` up to before `ABS_MT_SLOT`) it knows, and their values.
    private var axisCodes: UInt64 = 0
    private var axisValues = InlineArray<47, Int32>(repeating: 0)
    /// Which keys it knows, and which of them are down: one bit each.
    private var keyCodes = InlineArray<12, UInt64>(repeating: 0)
    private var keysDown = InlineArray<12, UInt64>(repeating: 0)

    /// A device with `slots` slots (at most `maxSlots`), every slot's
    /// tracking id -1 (no touch) and its other values 0, slot 0 selected,
    /// no axis and no key known yet.
    public init(slots: Int = 0) {
        slotCount = min(max(slots, 0), Self.maxSlots)
        for s in 0..<slotCount { slotValues[s * Self.slottedCount + Self.index(Evdev.ABS_MT_TRACKING_ID)] = -1 }
        slottedCodes = 1 << UInt16(Self.index(Evdev.ABS_MT_TRACKING_ID))
    }

    private static func index(_ code: UInt16) -> Int { Int(code - Evdev.ABS_MT_TOUCH_MAJOR) }

    // MARK: Setting and reading

    /// Sets slot `slot`'s value of the per-slot axis `code`.
    public mutating func set(slot: Int32, _ code: UInt16, _ value: Int32) {
        guard slot >= 0, Int(slot) < slotCount, code >= Evdev.ABS_MT_TOUCH_MAJOR, code <= Evdev.ABS_MT_LAST else { return }
        let i = Self.index(code)
        slottedCodes |= 1 << UInt16(i)
        slotValues[Int(slot) * Self.slottedCount + i] = value
    }

    /// Selects a slot (`ABS_MT_SLOT`).
    public mutating func select(slot: Int32) { currentSlot = slot }

    /// Sets a plain axis.
    public mutating func set(axis code: UInt16, _ value: Int32) {
        guard Int(code) < Evdev.plainAxisCount else { return }
        axisCodes |= 1 << UInt64(code)
        axisValues[Int(code)] = value
    }

    /// Sets a key up or down.
    public mutating func set(key code: UInt16, down: Bool) {
        guard Int(code) < Evdev.keyCount else { return }
        let (w, bit) = (Int(code) / 64, UInt64(1) << UInt64(code % 64))
        keyCodes[w] |= bit
        keysDown[w] = down ? keysDown[w] | bit : keysDown[w] & ~bit
    }

    /// Slot `slot`'s value of `code`, if the state knows it.
    public func value(slot: Int32, _ code: UInt16) -> Int32? {
        guard slot >= 0, Int(slot) < slotCount, code >= Evdev.ABS_MT_TOUCH_MAJOR, code <= Evdev.ABS_MT_LAST,
            slottedCodes & (1 << UInt16(Self.index(code))) != 0
        else { return nil }
        return slotValues[Int(slot) * Self.slottedCount + Self.index(code)]
    }

    /// A plain axis's value, if known.
    public func value(axis code: UInt16) -> Int32? {
        guard Int(code) < Evdev.plainAxisCount, axisCodes & (1 << UInt64(code)) != 0 else { return nil }
        return axisValues[Int(code)]
    }

    /// Whether `code` is down (a key not known is up).
    public func isDown(key code: UInt16) -> Bool {
        guard Int(code) < Evdev.keyCount else { return false }
        return keysDown[Int(code) / 64] & (1 << UInt64(code % 64)) != 0
    }

    /// Whether slot `slot` has a touch (a tracking id other than -1).
    public func isActive(slot: Int) -> Bool {
        slot >= 0 && slot < slotCount && slotValues[slot * Self.slottedCount + Self.index(Evdev.ABS_MT_TRACKING_ID)] >= 0
    }

    /// The slots with a touch, in order (tests and messages; allocates).
    public var activeSlots: [Int32] { (0..<slotCount).filter { isActive(slot: $0) }.map { Int32($0) } }

    /// Whether any slot has a touch, or `BTN_TOUCH` is down.
    public var anyTouch: Bool {
        (0..<slotCount).contains { isActive(slot: $0) } || isDown(key: Evdev.BTN_TOUCH)
    }

    // MARK: Events

    /// What `e` leaves the device holding (events other than absolute
    /// axes and keys change nothing it keeps).
    public mutating func apply(_ e: RawEvent) {
        switch e.type {
        case Evdev.EV_ABS:
            if e.code == Evdev.ABS_MT_SLOT {
                currentSlot = e.value
            } else if e.code >= Evdev.ABS_MT_TOUCH_MAJOR && e.code <= Evdev.ABS_MT_LAST {
                set(slot: currentSlot, e.code, e.value)
            } else {
                set(axis: e.code, e.value)
            }
        case Evdev.EV_KEY:
            set(key: e.code, down: e.value != 0)
        default:
            break
        }
    }

    public mutating func apply(_ events: some Sequence<RawEvent>) {
        for e in events { apply(e) }
    }

    /// Appends to `out` the events that make this state `other` (no
    /// `SYN_REPORT`): per slot that differs, the slot, then its tracking id,
    /// then its other values; the slot `other` has selected; then the other
    /// axes and the keys that differ. This state is `other` afterwards.
    public mutating func move(to other: DeviceState, writing out: inout EvdevFrames) {
        var selected = currentSlot
        let slots = min(slotCount, other.slotCount)
        let tracking = Self.index(Evdev.ABS_MT_TRACKING_ID)
        let wrote = out.events.count
        for s in 0..<slots {
            let base = s * Self.slottedCount
            var first = true
            func put(_ code: UInt16, _ value: Int32) {
                if first && selected != Int32(s) {
                    out.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, Int32(s)))
                    selected = Int32(s)
                }
                first = false
                out.append(RawEvent(Evdev.EV_ABS, code, value))
            }
            let theirs = other.slotValues[base + tracking]
            if theirs != slotValues[base + tracking] { put(Evdev.ABS_MT_TRACKING_ID, theirs) }
            var codes = other.slottedCodes & ~(1 << UInt16(tracking))
            while codes != 0 {
                let i = codes.trailingZeroBitCount
                codes &= codes &- 1
                let mine = slottedCodes & (1 << UInt16(i)) != 0 ? slotValues[base + i] : nil
                if other.slotValues[base + i] != mine {
                    put(Evdev.ABS_MT_TOUCH_MAJOR + UInt16(i), other.slotValues[base + i])
                }
            }
        }
        if selected != other.currentSlot && out.events.count > wrote {
            out.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, other.currentSlot))
        }
        var axes = other.axisCodes
        while axes != 0 {
            let code = axes.trailingZeroBitCount
            axes &= axes &- 1
            if axisCodes & (1 << UInt64(code)) == 0 || axisValues[code] != other.axisValues[code] {
                out.append(RawEvent(Evdev.EV_ABS, UInt16(code), other.axisValues[code]))
            }
        }
        for w in 0..<Self.keyWords {
            var keys = other.keyCodes[w]
            while keys != 0 {
                let b = keys.trailingZeroBitCount
                keys &= keys &- 1
                let bit = UInt64(1) << UInt64(b)
                let theirs = other.keysDown[w] & bit != 0
                if (keysDown[w] & bit != 0) != theirs {
                    out.append(RawEvent(Evdev.EV_KEY, UInt16(w * 64 + b), theirs ? 1 : 0))
                }
            }
        }
        self = other
    }

    /// The events that make this state `other` (tests; allocates).
    public func difference(to other: DeviceState) -> [RawEvent] {
        var copy = self
        var out = EvdevFrames()
        copy.move(to: other, writing: &out)
        return out.events
    }

    public static func == (a: DeviceState, b: DeviceState) -> Bool {
        guard a.slotCount == b.slotCount, a.currentSlot == b.currentSlot, a.slottedCodes == b.slottedCodes,
            a.axisCodes == b.axisCodes
        else { return false }
        for s in 0..<a.slotCount {
            var codes = a.slottedCodes
            while codes != 0 {
                let i = codes.trailingZeroBitCount
                codes &= codes &- 1
                if a.slotValues[s * slottedCount + i] != b.slotValues[s * slottedCount + i] { return false }
            }
        }
        var axes = a.axisCodes
        while axes != 0 {
            let code = axes.trailingZeroBitCount
            axes &= axes &- 1
            if a.axisValues[code] != b.axisValues[code] { return false }
        }
        for w in 0..<keyWords where a.keyCodes[w] != b.keyCodes[w] || a.keysDown[w] != b.keysDown[w] { return false }
        return true
    }
}

/// Evdev frames one after another: their events, each frame closed by its
/// `SYN_REPORT`, and each frame's time. Kept and emptied with its storage,
/// so that filling it again allocates nothing.
public struct EvdevFrames: Sendable {
    public private(set) var events: [RawEvent] = []
    private var ends: [Int] = []
    private var times: [Timestamp] = []

    public init() {}

    /// The closed frames.
    public var count: Int { ends.count }
    public var isEmpty: Bool { ends.isEmpty }

    /// Frame `i`'s time and its events, its `SYN_REPORT` last.
    public subscript(i: Int) -> (time: Timestamp, events: ArraySlice<RawEvent>) {
        (times[i], events[(i == 0 ? 0 : ends[i - 1])..<ends[i]])
    }

    public mutating func append(_ e: RawEvent) { events.append(e) }

    /// Whether events were appended since the last frame closed.
    public var hasOpenFrame: Bool { events.count > (ends.last ?? 0) }

    /// Closes the frame begun since the last with a `SYN_REPORT`, at `time`;
    /// with nothing begun, nothing.
    public mutating func endFrame(at time: Timestamp) {
        guard hasOpenFrame else { return }
        events.append(.report)
        ends.append(events.count)
        times.append(time)
    }

    /// Empties it, keeping the storage.
    public mutating func removeAll() {
        events.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        times.removeAll(keepingCapacity: true)
    }

    /// The frames as values (tests; allocates).
    public var frames: [RawFrame] { (0..<count).map { RawFrame(time: self[$0].time, events: Array(self[$0].events)) } }
}

/// The events of one evdev frame, up to its `SYN_REPORT`, and the frame's
/// time: a frame as tests and messages write it.
public struct RawFrame: Equatable, Sendable {
    public var time: Timestamp
    public var events: [RawEvent]

    public init(time: Timestamp, events: [RawEvent]) {
        self.time = time
        self.events = events
    }
}
