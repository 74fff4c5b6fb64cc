public import GestureCore

/// A made-up touchscreen: physical size, axis range, report rate, noise.
public struct SynthPanel: Sendable {
    public var name: String
    public var width: Double
    public var height: Double
    public var maxX: Int32
    public var maxY: Int32
    /// Report the axes' resolution (units/mm); most real panels report 0.
    public var reportsResolution: Bool
    public var rateHz: Double
    /// Sensor noise, standard deviation in mm.
    public var noise: Double
    public var slots: Int = 10

    public init(
        name: String, width: Double, height: Double, maxX: Int32, maxY: Int32, reportsResolution: Bool, rateHz: Double,
        noise: Double
    ) {
        self.name = name
        self.width = width
        self.height = height
        self.maxX = maxX
        self.maxY = maxY
        self.reportsResolution = reportsResolution
        self.rateHz = rateHz
        self.noise = noise
    }

    /// The panels the bundled recordings use: a phone, a tablet, a laptop and a kiosk.
    public static let phone = SynthPanel(
        name: "Synthetic Phone Touchscreen", width: 68, height: 146, maxX: 1087, maxY: 2335, reportsResolution: true, rateHz: 240,
        noise: 0.08)
    public static let tablet = SynthPanel(
        name: "Synthetic Tablet Touchscreen", width: 216, height: 135, maxX: 4095, maxY: 2559, reportsResolution: true,
        rateHz: 60,
        noise: 0.15)
    public static let laptop = SynthPanel(
        name: "Synthetic Laptop Touchscreen", width: 294, height: 165, maxX: 2959, maxY: 1659, reportsResolution: false,
        rateHz: 120, noise: 0.12)
    public static let kiosk = SynthPanel(
        name: "Synthetic Kiosk Touchscreen", width: 476, height: 268, maxX: 32767, maxY: 32767, reportsResolution: false,
        rateHz: 90, noise: 0.2)
    public static let all = [phone, tablet, laptop, kiosk]

    /// A fingertip's touch major where a panel reports sizes, mm.
    public static let fingertip = 9.0

    /// The description, with `ABS_MT_TOUCH_MAJOR` (in position units, as the
    /// kernel's multitouch protocol has it) when `sizes`.
    public func description(reportingSize sizes: Bool) -> DeviceDescription {
        var d = description
        guard sizes else { return d }
        d.codes[Evdev.EV_ABS]?.insert(Evdev.ABS_MT_TOUCH_MAJOR)
        d.absinfo[Evdev.ABS_MT_TOUCH_MAJOR] = AbsInfo(minimum: 0, maximum: maxX + maxY)
        return d
    }

    /// A touch major of `mm` in device units.
    func majorUnits(_ mm: Double) -> Int32 { Int32((mm * Double(maxX) / width).rounded()) }

    /// The evdev description of this panel (protocol B, INPUT_PROP_DIRECT).
    public var description: DeviceDescription {
        var d = DeviceDescription(name: name)
        (d.bus, d.vendor, d.product, d.version) = (0x18, 0x1d6b, 0x7e57, 1)
        d.properties = [Evdev.INPUT_PROP_DIRECT]
        d.codes[Evdev.EV_SYN] = [0, 1, 2, 3]
        d.codes[Evdev.EV_KEY] = [Evdev.BTN_TOUCH]
        d.codes[Evdev.EV_ABS] = [
            Evdev.ABS_X, Evdev.ABS_Y, Evdev.ABS_MT_SLOT, Evdev.ABS_MT_POSITION_X, Evdev.ABS_MT_POSITION_Y,
            Evdev.ABS_MT_TRACKING_ID,
        ]
        let rx: Int32 = reportsResolution ? Int32((Double(maxX) / width).rounded()) : 0
        let ry: Int32 = reportsResolution ? Int32((Double(maxY) / height).rounded()) : 0
        d.absinfo[Evdev.ABS_X] = AbsInfo(minimum: 0, maximum: maxX, resolution: rx)
        d.absinfo[Evdev.ABS_Y] = AbsInfo(minimum: 0, maximum: maxY, resolution: ry)
        d.absinfo[Evdev.ABS_MT_SLOT] = AbsInfo(minimum: 0, maximum: Int32(slots - 1))
        d.absinfo[Evdev.ABS_MT_POSITION_X] = AbsInfo(minimum: 0, maximum: maxX, resolution: rx)
        d.absinfo[Evdev.ABS_MT_POSITION_Y] = AbsInfo(minimum: 0, maximum: maxY, resolution: ry)
        d.absinfo[Evdev.ABS_MT_TRACKING_ID] = AbsInfo(minimum: 0, maximum: 65535)
        return d
    }

    /// The size a replay must be told, when the panel does not report it.
    public var sizeNeeded: String? { reportsResolution ? nil : "\(Int(width))x\(Int(height))" }
}
