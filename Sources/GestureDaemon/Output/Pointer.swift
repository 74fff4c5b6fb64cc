import CEvdev
import GestureCore
import GestureProtocol

/// The daemon's absolute pointer, made through uinput, which clicks where
/// the clients at the screen ask (`pointer` requests, `InputForClients`):
/// `ABS_X`/`ABS_Y` and the left, right and middle buttons, not a
/// direct-touch device, so that udev tags it a mouse and libinput reports
/// absolute motion, which the compositor maps to the output (or the
/// layout) it maps the device to.
package final class VirtualPointer {
    private let device: any UinputOutput
    /// The axes' largest value: a position is a fraction of 0 ... `range`.
    static let range: Int32 = 65_535

    static let made = "the pointer that clicks for clients (gestured virtual pointer)"

    /// Writes through `device` (uinput, or in tests a pipe).
    init(_ device: any UinputOutput) { self.device = device }

    /// Makes it through uinput; the error says how the daemon gets write access to /dev/uinput.
    static func make() throws(UinputError) -> VirtualPointer {
        let made = UinputDevice.make(name: "gestured virtual pointer", phys: "gestured-pointer") { dev in
            libevdev_enable_event_type(dev, UInt32(EV_KEY))
            for b in PointerClick.Button.allCases { libevdev_enable_event_code(dev, UInt32(EV_KEY), b.code, nil) }
            libevdev_enable_event_type(dev, UInt32(EV_ABS))
            var axis = input_absinfo(value: 0, minimum: 0, maximum: Self.range, fuzz: 0, flat: 0, resolution: 0)
            libevdev_enable_event_code(dev, UInt32(EV_ABS), UInt32(ABS_X), &axis)
            libevdev_enable_event_code(dev, UInt32(EV_ABS), UInt32(ABS_Y), &axis)
        }
        switch made {
        case .success(let d): return VirtualPointer(d)
        case .failure(let e): throw UinputError(message: UinputDevice.cannotMake("its pointer", e))
        }
    }

    /// The axis value whose fraction (v − min) / (max − min + 1), as
    /// libinput computes it, is nearest `f`.
    static func value(_ f: Double) -> Int32 { min(Int32((f * Double(range + 1)).rounded()), range) }

    /// Moves to the click's position, then presses its button, each in a
    /// frame of its own; false if the kernel refused an event.
    func press(_ c: PointerClick) -> Bool {
        let moved = device.write([
            RawEvent(Evdev.EV_ABS, UInt16(ABS_X), Self.value(c.x)), RawEvent(Evdev.EV_ABS, UInt16(ABS_Y), Self.value(c.y)),
            .report,
        ])
        return moved == nil && device.write([RawEvent(Evdev.EV_KEY, UInt16(c.button.code), 1), .report]) == nil
    }

    /// Releases `button`; false if the kernel refused it.
    func release(_ button: PointerClick.Button) -> Bool {
        device.write([RawEvent(Evdev.EV_KEY, UInt16(button.code), 0), .report]) == nil
    }
}
