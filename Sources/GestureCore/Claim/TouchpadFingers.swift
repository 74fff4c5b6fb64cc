/// The touches of a claimed touchscreen's sequence as a virtual touchpad's
/// (docs/claiming.md, "The touchpad output"): what the daemon writes to
/// the touchpad it makes with uinput, so that libinput hands the
/// compositor a touchpad swipe or pinch of the same fingers.
///
/// The pad's fingers start where the screen's are, relative to their
/// centroid, around the middle of the pad, and move as they move, one
/// millimetre on the picture (the screen as it is turned now) to one on
/// the pad; a finger that would leave the pad stays `margin` inside its
/// edge (libinput takes a finger landing at the edge for a palm). The
/// screen's slots map to the pad's first free ones; fingers beyond
/// `slots` are left out.
///
/// Every frame of the touchscreen goes through `follow`, whatever is
/// claimed: the pad is told about a sequence only once it is claimed, and
/// then needs every finger already down.
public struct TouchpadFingers: Sendable {
    /// The pad's size, mm, and its units per mm (the `resolution` of its axes).
    public static let width = 240.0
    public static let height = 150.0
    public static let resolution: Int32 = 40
    public static let slots = 5
    /// How far inside the pad's edges a finger stays, mm.
    public static let margin = 12.0
    /// The axes' maxima in the pad's units.
    public static let maxX = Int32(width) * resolution
    public static let maxY = Int32(height) * resolution
    /// The largest tracking id the pad's axis allows.
    public static let maxTrackingID: Int32 = 65535
    /// The keys that say how many fingers are down, one to five.
    public static let toolKeys = [
        Evdev.BTN_TOOL_FINGER, Evdev.BTN_TOOL_DOUBLETAP, Evdev.BTN_TOOL_TRIPLETAP, Evdev.BTN_TOOL_QUADTAP,
        Evdev.BTN_TOOL_QUINTTAP,
    ]

    /// The screen's fingers down, by slot, in the picture's mm.
    private var screen = [(x: Double, y: Double)?](repeating: nil, count: TouchFrame.capacity)
    /// The pad's slot of each screen slot the pad follows.
    private var padSlot = [Int?](repeating: nil, count: TouchFrame.capacity)
    /// Where the pad's fingers are, by pad slot (units); nil: no finger.
    private var pad = [(x: Int32, y: Int32)?](repeating: nil, count: slots)
    /// The centroid the pad's fingers are placed around (picture mm).
    private var anchor = (x: 0.0, y: 0.0)
    private var nextTrackingID: Int32 = 1
    private var lastTool: UInt16?
    /// The single-touch position last written.
    private var single: (x: Int32, y: Int32)?

    /// The events of the last `follow` or `lift`, ending with `SYN_REPORT`, or empty.
    public private(set) var output: [RawEvent] = []

    public init() {
        output.reserveCapacity(64)
    }

    /// Whether the pad has a finger down.
    public var isDown: Bool { lastTool != nil }

    /// Follows one frame of the touchscreen: `frame`'s positions (panel
    /// mm) as the picture shows them (`transform` of a `width` × `height`
    /// panel). While `active`, the pad's fingers follow the screen's
    /// (every finger down at once when it becomes active); when it stops
    /// being active, every finger on the pad lifts.
    public mutating func follow(
        _ frame: TouchFrame, active: Bool, transform: ScreenTransform, width: Double, height: Double
    ) {
        output.removeAll(keepingCapacity: true)
        selected = -1
        for i in 0..<frame.count {
            let c = frame[i]
            guard c.slot < TouchFrame.capacity else { continue }
            switch c.phase {
            case .down, .move:
                screen[c.slot] = transform.apply(x: c.x, y: c.y, width: width, height: height)
            case .up, .cancel:
                screen[c.slot] = nil
            }
        }
        guard active else {
            lift()
            return
        }
        if !isDown {
            var (n, x, y) = (0.0, 0.0, 0.0)
            for case let at? in screen {
                (n, x, y) = (n + 1, x + at.x, y + at.y)
            }
            guard n > 0 else { return }
            anchor = (x / n, y / n)
        }
        // Fingers that lifted leave the pad; new ones land in the first free slots.
        for s in 0..<TouchFrame.capacity where screen[s] == nil {
            guard let p = padSlot[s] else { continue }
            slot(p)
            output.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1))
            pad[p] = nil
            padSlot[s] = nil
        }
        for s in 0..<TouchFrame.capacity {
            guard let at = screen[s] else { continue }
            let x = Self.units(Self.width / 2 + at.x - anchor.x, Self.width)
            let y = Self.units(Self.height / 2 + at.y - anchor.y, Self.height)
            if let p = padSlot[s] {
                guard let old = pad[p], old != (x, y) else { continue }
                slot(p)
                if old.x != x { output.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, x)) }
                if old.y != y { output.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, y)) }
                pad[p] = (x, y)
            } else if let p = pad.firstIndex(where: { $0 == nil }) {
                padSlot[s] = p
                slot(p)
                output.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, nextTrackingID))
                nextTrackingID = nextTrackingID == Self.maxTrackingID ? 1 : nextTrackingID + 1
                output.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, x))
                output.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, y))
                pad[p] = (x, y)
            }
        }
        finishFrame()
    }

    /// Lifts every finger on the pad (claiming ended, the device went).
    public mutating func lift() {
        output.removeAll(keepingCapacity: true)
        selected = -1
        guard isDown else { return }
        for p in 0..<Self.slots where pad[p] != nil {
            slot(p)
            output.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1))
            pad[p] = nil
        }
        for s in 0..<TouchFrame.capacity { padSlot[s] = nil }
        finishFrame()
    }

    /// The pad's slot selected last in this frame (-1: none yet), so that
    /// `ABS_MT_SLOT` is written once per slot a frame changes. Each frame
    /// selects its first slot itself: the pad is shared, and another
    /// touchscreen's fingers may have left another slot selected.
    private var selected: Int32 = -1

    private mutating func slot(_ p: Int) {
        guard selected != Int32(p) else { return }
        selected = Int32(p)
        output.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, selected))
    }

    /// The keys for the fingers now down, the single-touch position (the
    /// first finger's), and the report; nothing when nothing changed.
    private mutating func finishFrame() {
        let down = pad.lazy.filter { $0 != nil }.count
        let tool: UInt16? = down == 0 ? nil : Self.toolKeys[min(down, Self.toolKeys.count) - 1]
        if tool != lastTool {
            if let old = lastTool { output.append(RawEvent(Evdev.EV_KEY, old, 0)) }
            if let tool { output.append(RawEvent(Evdev.EV_KEY, tool, 1)) }
            if (lastTool == nil) != (tool == nil) { output.append(RawEvent(Evdev.EV_KEY, Evdev.BTN_TOUCH, tool == nil ? 0 : 1)) }
            lastTool = tool
        }
        if let first = pad.first(where: { $0 != nil }), let first {
            if single?.x != first.x { output.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_X, first.x)) }
            if single?.y != first.y { output.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_Y, first.y)) }
            single = first
        }
        if output.isEmpty { return }
        output.append(.report)
    }

    /// `mm` from the pad's left or top edge in its units, kept `margin` inside a pad `size` mm long.
    private static func units(_ mm: Double, _ size: Double) -> Int32 {
        let kept = min(max(mm.isFinite ? mm : size / 2, margin), size - margin)
        return Int32((kept * Double(resolution)).rounded())
    }
}
