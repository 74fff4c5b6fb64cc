import Foundation
public import GestureCore

/// A touchscreen for umockdev, made from a trace's device description: the
/// sysfs/udev record (`.umockdev`) and the evdev ioctl answers (`.ioctl`)
/// that libevdev 1.13 asks for when libinput opens the node.
public struct EmulatedTouchscreen: Sendable {
    public var description: DeviceDescription
    /// N in /dev/input/eventN and inputN.
    public var number: Int

    /// A keyboard instead (udev ID_INPUT_KEYBOARD): the daemon must refuse to open it.
    public var isKeyboard = false
    /// A switch instead (udev ID_INPUT_SWITCH).
    public var isSwitch = false

    public init(_ description: DeviceDescription, number: Int) {
        self.description = description
        self.number = number
    }

    /// A plain keyboard (keys A to Z and Enter, no axes).
    public static func keyboard(number: Int) -> EmulatedTouchscreen {
        var d = DeviceDescription(name: "Emulated Keyboard")
        d.bus = 0x11
        d.vendor = 1
        d.product = 1
        d.codes[Evdev.EV_KEY] = Set((16...50).map(UInt16.init) + [28])
        var k = EmulatedTouchscreen(d, number: number)
        k.isKeyboard = true
        return k
    }

    /// A tablet-mode switch (`SW_TABLET_MODE`, nothing else), off.
    public static func tabletModeSwitch(number: Int) -> EmulatedTouchscreen {
        var d = DeviceDescription(name: "Emulated Tablet Mode Switch")
        d.bus = 0x19
        d.vendor = 1
        d.product = 2
        d.codes[Evdev.EV_SW] = [Evdev.SW_TABLET_MODE]
        var s = EmulatedTouchscreen(d, number: number)
        s.isSwitch = true
        return s
    }

    /// What the test harness tells udev's database it is.
    public var kind: String { isKeyboard ? "keyboard" : isSwitch ? "switch" : "touchscreen" }

    public var minor: Int { 64 + number }
    public var devnode: String { "/dev/input/event\(number)" }
    public var syspath: String { "/sys/devices/virtual/input/input\(number)/event\(number)" }

    private var types: Set<UInt16> {
        var t = Set(description.codes.keys)
        t.insert(Evdev.EV_SYN)
        if !description.absinfo.isEmpty { t.insert(Evdev.EV_ABS) }
        return t
    }

    private func codes(_ type: UInt16) -> Set<Int> {
        var c = Set((description.codes[type] ?? []).map(Int.init))
        if type == Evdev.EV_ABS { c.formUnion(description.absinfo.keys.map(Int.init)) }
        return c
    }

    /// Bits as the kernel prints them in sysfs: hex longs, most significant first.
    static func sysfsBitmap(_ bits: Set<Int>) -> String {
        guard let top = bits.max() else { return "0" }
        var longs = [UInt64](repeating: 0, count: top / 64 + 1)
        for b in bits { longs[b / 64] |= 1 << UInt64(b % 64) }
        return longs.reversed().map { String($0, radix: 16) }.joined(separator: " ")
    }

    /// Bits as an ioctl returns them: `bytes` little-endian bytes, hex.
    static func ioctlBitmap(_ bits: Set<Int>, bytes: Int) -> String {
        var out = [UInt8](repeating: 0, count: bytes)
        for b in bits where b / 8 < bytes { out[b / 8] |= 1 << UInt8(b % 8) }
        return hex(out)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var s = ""
        for b in bytes {
            s.append(digits[Int(b >> 4)])
            s.append(digits[Int(b & 15)])
        }
        return s
    }

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
    static func le32(_ v: Int32) -> [UInt8] {
        let u = UInt32(bitPattern: v)
        return [UInt8(u & 0xff), UInt8((u >> 8) & 0xff), UInt8((u >> 16) & 0xff), UInt8(u >> 24)]
    }

    private var udevKind: String { isKeyboard ? "ID_INPUT_KEYBOARD" : isSwitch ? "ID_INPUT_SWITCH" : "ID_INPUT_TOUCHSCREEN" }

    /// The sysfs and udev record for `umockdev_testbed_add_from_file`.
    public var umockdevRecord: String {
        let d = description
        let ev = Self.sysfsBitmap(Set(types.map(Int.init)))
        let key = Self.sysfsBitmap(codes(Evdev.EV_KEY))
        let abs = Self.sysfsBitmap(codes(Evdev.EV_ABS))
        let sw = Self.sysfsBitmap(codes(Evdev.EV_SW))
        let prop = Self.sysfsBitmap(Set(d.properties))
        let name = d.name.replacingOccurrences(of: "\\", with: "\\\\")
        let input = "/devices/virtual/input/input\(number)"
        return """
            P: \(input)/event\(number)
            N: input/event\(number)
            E: DEVNAME=/dev/input/event\(number)
            E: MAJOR=13
            E: MINOR=\(minor)
            E: SUBSYSTEM=input
            E: ID_INPUT=1
            E: \(udevKind)=1
            A: dev=13:\(minor)\\n

            P: \(input)
            E: NAME="\(name)"
            E: PRODUCT=\(String(d.bus, radix: 16))/\(String(d.vendor, radix: 16))/\(String(d.product, radix: 16))/\(String(d.version, radix: 16))
            E: PROP=\(prop)
            E: EV=\(ev)
            E: KEY=\(key)
            E: ABS=\(abs)
            E: SUBSYSTEM=input
            E: TAGS=:seat:
            E: ID_INPUT=1
            E: \(udevKind)=1
            A: capabilities/abs=\(abs)\\n
            A: capabilities/ev=\(ev)\\n
            A: capabilities/key=\(key)\\n
            A: capabilities/rel=0\\n
            A: capabilities/msc=0\\n
            A: capabilities/sw=\(sw)\\n
            A: capabilities/led=0\\n
            A: capabilities/ff=0\\n
            A: capabilities/snd=0\\n
            A: id/bustype=\(hex4(d.bus))\\n
            A: id/vendor=\(hex4(d.vendor))\\n
            A: id/product=\(hex4(d.product))\\n
            A: id/version=\(hex4(d.version))\\n
            A: name=\(name)\\n
            A: phys=\\n
            A: uniq=\\n
            A: properties=\(prop)\\n

            """
    }

    /// The evdev ioctl answers for `umockdev_testbed_load_ioctl`. Each reply
    /// has exactly the size libevdev asks for: umockdev matches the whole
    /// ioctl number, size included.
    public var ioctlRecord: String {
        let d = description
        var lines = ["@DEV \(devnode)"]
        lines.append("EVIOCGVERSION 0 " + Self.hex(Self.le32(0x010001)))
        lines.append(
            "EVIOCGID 0 " + Self.hex(Self.le16(d.bus) + Self.le16(d.vendor) + Self.le16(d.product) + Self.le16(d.version)))
        var name = Array(d.name.utf8.prefix(254))
        let nameLength = name.count + 1
        name += [UInt8](repeating: 0, count: 255 - name.count)
        lines.append("EVIOCGNAME(0) \(nameLength) " + Self.hex(name))
        lines.append("EVIOCGPHYS(0) 1 " + Self.hex([UInt8](repeating: 0, count: 255)))
        lines.append("EVIOCGUNIQ(0) 1 " + Self.hex([UInt8](repeating: 0, count: 255)))
        lines.append("EVIOCGPROP(0) 8 " + Self.ioctlBitmap(Set(d.properties), bytes: 8))
        lines.append("EVIOCGBIT(0) 8 " + Self.ioctlBitmap(Set(types.map(Int.init)), bytes: 8))
        lines.append("EVIOCGBIT(1) 96 " + Self.ioctlBitmap(codes(Evdev.EV_KEY), bytes: 96))
        for type: UInt16 in [2, 3, 4, 5, 0x11, 0x12, 0x14, 0x15] {
            let size = type == 0x15 ? 16 : 8
            lines.append("EVIOCGBIT(\(type)) \(size) " + Self.ioctlBitmap(codes(type), bytes: size))
        }
        lines.append("EVIOCGKEY(0) 96 " + Self.hex([UInt8](repeating: 0, count: 96)))
        lines.append("EVIOCGLED(0) 8 " + Self.hex([UInt8](repeating: 0, count: 8)))
        lines.append("EVIOCGSW(0) 8 " + Self.hex([UInt8](repeating: 0, count: 8)))
        for code in d.absinfo.keys.sorted() {
            let a = d.absinfo[code]!
            let value: Int32 = code == Evdev.ABS_MT_TRACKING_ID ? -1 : 0
            let bytes = [value, a.minimum, a.maximum, a.fuzz, a.flat, a.resolution].flatMap(Self.le32)
            lines.append((code == 0 ? "EVIOCGABS" : "EVIOCGABS(\(code))") + " 0 " + Self.hex(bytes))
        }
        let slots = max(1, d.slotCount)
        for code in d.absinfo.keys.sorted() where code > Evdev.ABS_MT_SLOT && code <= 0x3c {
            let fill: Int32 = code == Evdev.ABS_MT_TRACKING_ID ? -1 : 0
            let bytes = Self.le32(Int32(code)) + (0..<slots).flatMap { _ in Self.le32(fill) }
            lines.append("EVIOCGMTSLOTS(0) 0 " + Self.hex(bytes))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
