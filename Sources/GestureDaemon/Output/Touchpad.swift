internal import CEvdev
import CLinux
package import GestureCore
package import Logging
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The virtual touchpad claimed sequences are written to (a claim's
/// `touchpad`; docs/claiming.md, "The touchpad output"): made with uinput
/// the first time a claim asks for it (after a failure, again at the next
/// need `remakeInterval` later; meanwhile `ClaimedDevice` leaves the
/// touchpad entries' sequences unclaimed), kept until the daemon ends (the
/// compositor's libinput must have it before the first swipe comes), and
/// shared by the claimed touchscreens, one sequence at a time: a second
/// touchscreen's claimed sequence goes on to the pad only once the first
/// has lifted from it.
///
/// A write that fails leaves the pad's fingers as the kernel last took
/// them, which the compositor would take for a gesture that never ends:
/// the sequence on the pad is then over (`write` says so, and its device
/// sends it nothing more), and every slot of the pad is lifted as soon as
/// writing works again, tried at once with the next write or
/// `retryInterval` later. The warnings are a few a minute.
///
/// Owned by the pass-through's thread alone.
package final class TouchpadOutput {
    /// The pad's name; a udev rule (`76-gestured-touchpad.rules`) matches
    /// it to tag the pad `ID_INPUT_TOUCHPAD_INTEGRATION=external`, so that
    /// libinput neither pairs it with a keyboard (disable-while-typing)
    /// nor suspends it in tablet mode. It ends with the clones' suffix, so
    /// the daemon never reads it.
    package static let name = "Virtual touchpad" + ClaimedDevice.cloneSuffix
    /// How soon a lift owed is tried again.
    static let retryInterval = Timestamp.Duration.milliseconds(100)

    private let make: () throws(SetupError) -> any UinputOutput
    private let logger: Logger
    private var device: (any UinputOutput)?
    /// Why it could not be made, and when that was tried: tried again at
    /// the next need `remakeInterval` later, since the udev rule that
    /// gives the daemon /dev/uinput may come later.
    private var failure: (message: String, at: Timestamp)?
    private let remakeInterval: Timestamp.Duration
    /// `problem` changed since `takeChange` last looked.
    private var changed = false
    /// The touchscreen whose sequence is on the pad.
    private var owner: GestureCore.DeviceID?
    private var buffer: [input_event] = []
    /// A write failed: every slot is to be lifted, once writing works.
    private var liftOwed = false
    private var retryAt = Timestamp.never
    private var warnings = RepeatLimiter(burst: 3, window: .milliseconds(60_000))

    /// How long after a failed making the pad is tried again, at the next need.
    package static let remakeInterval = Timestamp.Duration.milliseconds(10_000)

    package init(
        logger: Logger, remakeInterval: Timestamp.Duration = TouchpadOutput.remakeInterval,
        make: @escaping () throws(SetupError) -> any UinputOutput = TouchpadOutput.makeUinput
    ) {
        self.logger = logger
        self.make = make
        self.remakeInterval = remakeInterval
        buffer.reserveCapacity(64)
    }

    /// Makes the pad if it is not made yet (after a failure, once
    /// `remakeInterval` has passed); whether it is there.
    @discardableResult
    package func prepare(now: Timestamp) -> Bool {
        if device != nil { return true }
        if let f = failure, now - f.at < remakeInterval { return false }
        do {
            let d = try make()
            device = d
            // Said once made, so that the loop knows it is there.
            changed = true
            failure = nil
            logger.notice("made the virtual touchpad \(d.path ?? "(no node yet)") for claims that ask for it")
            return true
        } catch {
            if failure == nil {
                changed = true
                logger.warning(
                    "\(error); sequences claimed for the touchpad are left to the apps until it can be made (tried again at a claim change or a new touch sequence, \(Int(remakeInterval.seconds)) s on at the soonest)"
                )
            }
            failure = ("\(error)", now)
            return false
        }
    }

    /// Why the pad cannot be made (nil: it is there, or not tried yet);
    /// `takeChange` says when this changed or the pad was first made.
    package var problem: String? { device == nil ? failure?.message : nil }

    /// Whether `problem` changed since the last call.
    package func takeChange() -> Bool {
        defer { changed = false }
        return changed
    }

    /// Whether `id` may write now: the pad is there, no lift is owed and no
    /// other touchscreen's sequence is on it.
    package func available(to id: GestureCore.DeviceID) -> Bool {
        device != nil && !liftOwed && (owner == nil || owner == id)
    }

    /// When a lift owed is tried again (`.never`: none is owed).
    package var deadline: Timestamp { retryAt }

    /// Time passed: a lift owed is tried again.
    package func advance(to now: Timestamp) {
        guard liftOwed, now >= retryAt else { return }
        liftEverything(at: now)
    }

    /// Writes one frame of `id`'s (`events`, ending with its report; none:
    /// nothing to write); `down` says whether a finger of it is still on
    /// the pad. False when the write failed: the sequence on the pad is
    /// over, and `id` must send it nothing more of it.
    @discardableResult
    package func write(_ events: [RawEvent], at time: Timestamp, from id: GestureCore.DeviceID, down: Bool) -> Bool {
        guard let device, !events.isEmpty, owner == nil || owner == id else { return true }
        if liftOwed {
            liftEverything(at: time)
            return false
        }
        owner = down ? id : nil
        if let e = write(events, at: time, to: device) {
            owner = nil
            liftOwed = true
            retryAt = time + Self.retryInterval
            warnings.note(now: time, logger) {
                "writing to the virtual touchpad failed (\(e)); its fingers are lifted once writing works again"
            }
            return false
        }
        return true
    }

    /// Lifts every slot of the pad, and every key (the owed lift).
    private func liftEverything(at time: Timestamp) {
        guard let device else { return }
        var events: [RawEvent] = []
        for slot in 0..<Int32(TouchpadFingers.slots) {
            events.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, slot))
            events.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1))
        }
        for key in TouchpadFingers.toolKeys + [Evdev.BTN_TOUCH] { events.append(RawEvent(Evdev.EV_KEY, key, 0)) }
        events.append(.report)
        if let e = write(events, at: time, to: device) {
            retryAt = time + Self.retryInterval
            warnings.note(now: time, logger) { "writing to the virtual touchpad still fails (\(e)); trying again" }
            return
        }
        liftOwed = false
        retryAt = .never
        logger.notice("writing to the virtual touchpad works again; its fingers were lifted")
    }

    private func write(_ events: [RawEvent], at time: Timestamp, to device: any UinputOutput) -> Errno? {
        let t = timeval(tv_sec: Int(time.microseconds / 1_000_000), tv_usec: Int(time.microseconds % 1_000_000))
        buffer.removeAll(keepingCapacity: true)
        for e in events { buffer.append(input_event(time: t, type: e.type, code: e.code, value: e.value)) }
        return buffer.withUnsafeBufferPointer { device.write($0) }
    }

    /// Makes the pad with uinput: a touchpad as libinput knows one (no
    /// `INPUT_PROP_DIRECT`; `BTN_LEFT` and `BTN_RIGHT`, so not a clickpad,
    /// with no button areas or thumb detection), `TouchpadFingers.slots`
    /// slots, its axes `TouchpadFingers.width` × `height` mm.
    package static func makeUinput() throws(SetupError) -> any UinputOutput {
        guard let dev = libevdev_new() else { throw SetupError("cannot make the virtual touchpad: out of memory") }
        defer { libevdev_free(dev) }
        libevdev_set_name(dev, name)
        libevdev_set_id_bustype(dev, Int32(BUS_VIRTUAL))
        libevdev_set_id_vendor(dev, 0x0001)
        libevdev_set_id_product(dev, 0x0001)
        libevdev_enable_property(dev, UInt32(INPUT_PROP_POINTER))
        libevdev_enable_event_type(dev, UInt32(EV_KEY))
        for key in [
            BTN_LEFT, BTN_RIGHT, BTN_TOUCH, BTN_TOOL_FINGER, BTN_TOOL_DOUBLETAP, BTN_TOOL_TRIPLETAP, BTN_TOOL_QUADTAP,
            BTN_TOOL_QUINTTAP,
        ] {
            libevdev_enable_event_code(dev, UInt32(EV_KEY), UInt32(key), nil)
        }
        libevdev_enable_event_type(dev, UInt32(EV_ABS))
        let r = TouchpadFingers.resolution
        let axes: [(Int32, Int32, Int32)] = [
            (ABS_X, TouchpadFingers.maxX, r), (ABS_Y, TouchpadFingers.maxY, r),
            (ABS_MT_POSITION_X, TouchpadFingers.maxX, r), (ABS_MT_POSITION_Y, TouchpadFingers.maxY, r),
            (ABS_MT_SLOT, Int32(TouchpadFingers.slots - 1), 0), (ABS_MT_TRACKING_ID, TouchpadFingers.maxTrackingID, 0),
        ]
        for (code, maximum, resolution) in axes {
            var info = input_absinfo(value: 0, minimum: 0, maximum: maximum, fuzz: 0, flat: 0, resolution: resolution)
            libevdev_enable_event_code(dev, UInt32(EV_ABS), UInt32(code), &info)
        }
        switch UinputDevice.make(from: dev, phys: "gestured-touchpad") {
        case .success(let pad): return pad
        case .failure(let e): throw SetupError(UinputDevice.cannotMake("the virtual touchpad", e))
        }
    }
}
