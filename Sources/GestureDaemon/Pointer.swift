import CEvdev
import GestureCore
package import GestureProtocol
import Logging
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's absolute pointer, made through uinput, which clicks where
/// the clients at the screen ask (`pointer` requests): `ABS_X`/`ABS_Y` and
/// the left, right and middle buttons, not a direct-touch device, so that
/// udev tags it a mouse and libinput reports absolute motion, which the
/// compositor maps to the output (or the layout) it maps the device to.
package final class VirtualPointer: UinputMade {
    private let device: UinputDevice
    /// The axes' largest value: a position is a fraction of 0 ... `range`.
    static let range: Int32 = 65_535

    package static let made = "the pointer that clicks for clients (gestured virtual pointer)"

    package init() throws(UinputError) {
        device = try UinputDevice(name: "gestured virtual pointer", what: "pointer") { dev in
            libevdev_enable_event_type(dev, UInt32(EV_KEY))
            for b in PointerClick.Button.allCases { libevdev_enable_event_code(dev, UInt32(EV_KEY), b.code, nil) }
            libevdev_enable_event_type(dev, UInt32(EV_ABS))
            var axis = input_absinfo(value: 0, minimum: 0, maximum: Self.range, fuzz: 0, flat: 0, resolution: 0)
            libevdev_enable_event_code(dev, UInt32(EV_ABS), UInt32(ABS_X), &axis)
            libevdev_enable_event_code(dev, UInt32(EV_ABS), UInt32(ABS_Y), &axis)
        }
    }

    /// The axis value whose fraction (v − min) / (max − min + 1), as
    /// libinput computes it, is nearest `f`.
    static func value(_ f: Double) -> Int32 { min(Int32((f * Double(range + 1)).rounded()), range) }

    /// Moves to the click's position, then presses and releases its button,
    /// each in a frame of its own; false if the kernel refused an event.
    @discardableResult
    package func click(_ c: PointerClick) -> Bool {
        let (abs, key, syn) = (UInt32(EV_ABS), UInt32(EV_KEY), UInt32(EV_SYN))
        let report = (syn, UInt32(SYN_REPORT), Int32(0))
        let events: [(UInt32, UInt32, Int32)] = [
            (abs, UInt32(ABS_X), Self.value(c.x)), (abs, UInt32(ABS_Y), Self.value(c.y)), report,
            (key, c.button.code, 1), report, (key, c.button.code, 0), report,
        ]
        return events.allSatisfy { device.write($0.0, $0.1, $0.2) }
    }
}

/// The clicks the clients at the screen ask for (`pointer`), made on the
/// daemon's pointer, which is made for the first client that will click.
struct Clicker {
    private var pointer: OnDemand<VirtualPointer>

    init(logger: Logger) { pointer = OnDemand(logger: logger) }

    /// Makes the pointer if there is none; why it cannot, if so.
    @discardableResult
    mutating func prepare(now: Timestamp) -> String? { pointer.prepare(now: now) }

    /// Clicks for `client` if its user is at the screen (else `why` says
    /// who is) and its `bucket` has a click left this second: the answer.
    mutating func click(
        _ c: PointerClick, for client: String, atScreen: Bool, why: String, bucket: inout RateBucket, now: Timestamp
    ) -> String {
        if let refused = pointer.refusal(
            atScreen: atScreen, why: why, bucket: &bucket, now: now, done: "clicked", units: "clicks", noDevice: "no-pointer")
        {
            return refused
        }
        guard pointer.device!.click(c) else {
            return ServerMessage.error(
                code: "no-pointer", message: "the kernel refused the \(c.button.rawValue) click", fatal: false)
        }
        pointer.logger.debug("\(client) clicked \(c.button.rawValue) at \(c.x), \(c.y)")
        return ServerMessage.clicked(c)
    }
}
