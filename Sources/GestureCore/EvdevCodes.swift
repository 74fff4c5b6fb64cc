/// The evdev event types and codes gestured reads and writes, by their
/// kernel names (linux/input-event-codes.h): the one table every part of the
/// package names a code from. Their names as text, for the recorder's
/// comments, come from libevdev in GestureDaemon (`Evdev.name`).
public enum Evdev {
    public static let EV_SYN: UInt16 = 0x00
    public static let EV_KEY: UInt16 = 0x01
    public static let EV_REL: UInt16 = 0x02
    public static let EV_ABS: UInt16 = 0x03
    public static let EV_MSC: UInt16 = 0x04
    public static let EV_SW: UInt16 = 0x05

    public static let SYN_REPORT: UInt16 = 0
    public static let SYN_MT_REPORT: UInt16 = 2
    public static let SYN_DROPPED: UInt16 = 3

    public static let BTN_LEFT: UInt16 = 0x110
    public static let BTN_RIGHT: UInt16 = 0x111
    public static let BTN_MIDDLE: UInt16 = 0x112
    public static let BTN_TOOL_PEN: UInt16 = 0x140
    public static let BTN_TOOL_FINGER: UInt16 = 0x145
    public static let BTN_TOOL_QUINTTAP: UInt16 = 0x148
    public static let BTN_TOUCH: UInt16 = 0x14a
    public static let BTN_TOOL_DOUBLETAP: UInt16 = 0x14d
    public static let BTN_TOOL_TRIPLETAP: UInt16 = 0x14e
    public static let BTN_TOOL_QUADTAP: UInt16 = 0x14f

    /// The keys a touch holds down on a multitouch device: `BTN_TOUCH` and
    /// the tool of each finger count (one to five), lifted when a touch is
    /// cancelled.
    public static let touchKeys: [UInt16] = [
        BTN_TOUCH, BTN_TOOL_FINGER, BTN_TOOL_DOUBLETAP, BTN_TOOL_TRIPLETAP, BTN_TOOL_QUADTAP, BTN_TOOL_QUINTTAP,
    ]

    public static let ABS_X: UInt16 = 0x00
    public static let ABS_Y: UInt16 = 0x01
    public static let ABS_MT_SLOT: UInt16 = 0x2f
    public static let ABS_MT_TOUCH_MAJOR: UInt16 = 0x30
    public static let ABS_MT_POSITION_X: UInt16 = 0x35
    public static let ABS_MT_POSITION_Y: UInt16 = 0x36
    public static let ABS_MT_TOOL_TYPE: UInt16 = 0x37
    public static let ABS_MT_TRACKING_ID: UInt16 = 0x39
    /// The last of the per-slot axes (`ABS_MT_TOOL_Y`): the slotted ones
    /// run from `ABS_MT_TOUCH_MAJOR` to it.
    public static let ABS_MT_LAST: UInt16 = 0x3d

    public static let SW_TABLET_MODE: UInt16 = 0x01

    public static let INPUT_PROP_POINTER = 0
    public static let INPUT_PROP_DIRECT = 1
    public static let INPUT_PROP_BUTTONPAD = 2

    public static let MT_TOOL_FINGER: Int32 = 0
    public static let MT_TOOL_PALM: Int32 = 2

    /// The largest type and code numbers evdev defines (EV_MAX, KEY_MAX).
    public static let maxType: UInt16 = 0x1f
    public static let maxCode: UInt16 = 0x2ff
    /// How many key codes there are (KEY_CNT).
    public static let keyCount = 0x300
    /// The absolute axes that are not per slot: `ABS_X` up to `ABS_MT_SLOT`.
    public static let plainAxisCount = 0x2f

    /// Whether `code` (of `EV_ABS`) is one of a slot's values, or the slot selector.
    public static func isSlotted(_ code: UInt16) -> Bool { code >= ABS_MT_SLOT && code <= ABS_MT_LAST }
}

/// One evdev event of a trace, with the line it came from.
public struct EvdevEvent: Sendable, Hashable {
    public var time: Timestamp
    public var type: UInt16
    public var code: UInt16
    public var value: Int32
    /// 1-based line in the trace file (0 when not from a file).
    public var line: Int

    public init(time: Timestamp, type: UInt16, code: UInt16, value: Int32, line: Int = 0) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
        self.line = line
    }
}

/// One absolute axis of a device (`struct input_absinfo`).
public struct AbsInfo: Sendable, Hashable {
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32 = 0
    public var flat: Int32 = 0
    /// Units per mm; 0 when the device does not say.
    public var resolution: Int32 = 0

    public init(minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }
}

/// A device as a trace describes it: what evemu's `N: I: P: B: A:` lines and
/// libinput record's `evdev:` block carry.
public struct DeviceDescription: Sendable, Hashable {
    public var name: String
    public var bus: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0
    /// Input properties (INPUT_PROP_*) set on the device.
    public var properties: Set<Int> = []
    /// Event codes per type the device can send.
    public var codes: [UInt16: Set<UInt16>] = [:]
    public var absinfo: [UInt16: AbsInfo] = [:]
    /// "Size in mm: WxH" from an evemu header comment, if present.
    public var commentSize: (width: Double, height: Double)? {
        get { commentWidth.map { ($0, commentHeight ?? 0) } }
        set {
            commentWidth = newValue?.width
            commentHeight = newValue?.height
        }
    }
    private var commentWidth: Double?
    private var commentHeight: Double?

    public init(name: String) { self.name = name }

    /// "vvvv:pppp", lower-case hex, as configuration matches it.
    public var vendorProduct: String { hex4(vendor) + ":" + hex4(product) }

    public var isDirect: Bool { properties.contains(Evdev.INPUT_PROP_DIRECT) }
    public var hasSlots: Bool { absinfo[Evdev.ABS_MT_SLOT] != nil }
    public var hasMultitouch: Bool { absinfo[Evdev.ABS_MT_POSITION_X] != nil && absinfo[Evdev.ABS_MT_POSITION_Y] != nil }
    public var hasSingleTouch: Bool { absinfo[Evdev.ABS_X] != nil && absinfo[Evdev.ABS_Y] != nil }

    /// Number of slots (protocol B), from ABS_MT_SLOT's maximum.
    public var slotCount: Int {
        guard let s = absinfo[Evdev.ABS_MT_SLOT] else { return 0 }
        return Int(s.maximum) + 1
    }

    /// The axes positions come from.
    public var positionAxes: (x: AbsInfo, y: AbsInfo)? {
        if let x = absinfo[Evdev.ABS_MT_POSITION_X], let y = absinfo[Evdev.ABS_MT_POSITION_Y] { return (x, y) }
        if let x = absinfo[Evdev.ABS_X], let y = absinfo[Evdev.ABS_Y] { return (x, y) }
        return nil
    }
}

/// Four lower-case hex digits, as evemu, udev and vendor:product ids write them.
package func hex4(_ v: UInt16) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: max(0, 4 - s.count)) + s
}
