internal import CEvdev
internal import CLinux
package import GestureCore
package import GestureProtocol
package import Logging
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A touchscreen the daemon claims (`claim = true` in its `[[device]]`
/// section; docs/claiming.md): read here, raw, instead of through
/// libinput; its frames go to the recognizer, and through the `Claimer` to
/// a clone made with uinput, which the compositor reads instead.
///
/// The clone is made first (the compositor meets it idle); the device is
/// grabbed (`EVIOCGRAB`) only while no finger is down on it, so that the
/// compositor never keeps a touch it will not see end. Until then, and
/// after a grab fails, the compositor reads the device itself and nothing
/// is written to the clone. Closing the descriptors (at exit, a crash,
/// `kill -9`) releases the grab and destroys the clone: the kernel does
/// both.
package final class ClaimedDevice {
    package let id: GestureCore.DeviceID
    package let path: String
    package let name: String
    private let device: EvdevDevice
    private var clone: OpaquePointer?
    private var cloneFD: Int32 = -1
    /// The clone's node, once udev made it.
    package private(set) var clonePath: String?
    package private(set) var grabbed = false
    /// A grab failed for a reason waiting will not change: the daemon lets
    /// libinput read the device as any other.
    package private(set) var grabRefused = false
    private var assembler: TouchAssembler
    package private(set) var claimer: Claimer
    private let logger: Logger
    /// The events of the frame being read, up to its `SYN_REPORT`.
    private var pending: [RawEvent] = []
    private var resynchronized = false
    /// Asked to let the device go once no finger is down.
    package private(set) var releasing = false

    /// The suffix of every clone's name: the daemon never reads, claims or
    /// clones a device that has it.
    package static let cloneSuffix = " (gestured)"

    /// Opens `path`, checks it can be claimed, makes its clone and grabs it
    /// if no finger is down.
    package init(
        id: GestureCore.DeviceID, path: String, geometry: PanelGeometry, thresholds: GestureThresholds, claims: ClaimSet,
        logger: Logger
    ) throws(SetupError) {
        self.id = id
        self.path = path
        self.logger = logger
        device = try EvdevDevice(path: path)
        name = device.name
        let d = device.description
        if let why = device.notTouchscreen { throw SetupError("\(path) (\(name)) is not claimed: \(why)") }
        guard d.hasSlots else {
            throw SetupError("\(path) (\(name)) is not claimed: it does not report touches in slots (multitouch protocol B)")
        }
        guard !(d.codes[Evdev.EV_KEY] ?? []).contains(0x140) else {
            throw SetupError("\(path) (\(name)) is not claimed: it reports a pen (BTN_TOOL_PEN), and a pen is never claimed")
        }
        guard !name.hasSuffix(Self.cloneSuffix) else {
            throw SetupError("\(path) (\(name)) is not claimed: it is a clone gestured made")
        }
        // The device's own clock is CLOCK_MONOTONIC, as libinput's and as uinput expects.
        _ = libevdev_set_clock_id(device.device, CLOCK_MONOTONIC)
        // The size and calibration libinput's side found, on the device's own axes.
        var raw = geometry
        if let axes = d.positionAxes {
            (raw.minX, raw.maxX, raw.minY, raw.maxY) = (axes.x.minimum, axes.x.maximum, axes.y.minimum, axes.y.maximum)
        }
        assembler = TouchAssembler(description: d, geometry: raw, device: id, file: path)
        claimer = Claimer(
            width: geometry.screenWidth, height: geometry.screenHeight, thresholds: thresholds,
            keys: d.codes[Evdev.EV_KEY] ?? [], device: Self.state(of: device.device),
            clone: Self.state(of: device.device, fresh: true))
        claimer.claims = claims
        try makeClone()
        tryGrab()
    }

    deinit {
        if grabbed { libevdev_grab(device.device, LIBEVDEV_UNGRAB) }
        if let clone { libevdev_uinput_destroy(clone) }
    }

    /// The clone: the device's bus, ids, properties, every axis with its
    /// range and resolution, its keys, and `ABS_MT_TOOL_TYPE` (which the
    /// cancel needs); its name with `cloneSuffix`; its `phys` names the
    /// device, so that udev rules can give it the device's properties.
    private func makeClone() throws(SetupError) {
        let dev = device.device
        let hadTool = libevdev_has_event_code(dev, UInt32(EV_ABS), UInt32(ABS_MT_TOOL_TYPE)) != 0
        if !hadTool {
            var tool = input_absinfo(value: 0, minimum: 0, maximum: 2, fuzz: 0, flat: 0, resolution: 0)
            libevdev_enable_event_code(dev, UInt32(EV_ABS), UInt32(ABS_MT_TOOL_TYPE), &tool)
        }
        let phys = libevdev_get_phys(dev).map { String(cString: $0) }
        let sysname = String(path.split(separator: "/").last ?? "")
        libevdev_set_name(dev, name + Self.cloneSuffix)
        libevdev_set_phys(dev, "gestured-clone:" + sysname)
        var ui: OpaquePointer?
        let r = libevdev_uinput_create_from_device(dev, Int32(LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue), &ui)
        libevdev_set_name(dev, name)
        libevdev_set_phys(dev, phys)
        if !hadTool { libevdev_disable_event_code(dev, UInt32(EV_ABS), UInt32(ABS_MT_TOOL_TYPE)) }
        guard r == 0, let ui else {
            throw SetupError(
                "\(path) (\(name)) is not claimed: cannot make its clone through /dev/uinput: \(Errno(rawValue: -r)). The system service gets write access to it from 75-gestured-uinput.rules"
            )
        }
        clone = ui
        cloneFD = libevdev_uinput_get_fd(ui)
        clonePath = libevdev_uinput_get_devnode(ui).map { String(cString: $0) }
        logger.notice("\(name): claimed, through its clone \(clonePath ?? "(no node yet)")")
    }

    /// What libevdev knows of the device now: every slot's values, the
    /// other axes and the keys. `fresh`: what its clone has when uinput has
    /// just made it instead (slot 0 selected, every slot's values 0 and no
    /// touch, the other axes as the device's, copied with their ranges, and
    /// no key down).
    private static func state(of dev: OpaquePointer, fresh: Bool = false) -> DeviceState {
        var s = DeviceState()
        s.currentSlot = fresh ? 0 : Int32(libevdev_get_current_slot(dev))
        let slotted = (0x30...0x3d).filter { libevdev_has_event_code(dev, UInt32(EV_ABS), UInt32($0)) != 0 }
        for slot in 0..<max(0, libevdev_get_num_slots(dev)) {
            for code in slotted {
                let value = libevdev_get_slot_value(dev, UInt32(slot), UInt32(code))
                s.slots[Int32(slot), default: [:]][UInt16(code)] =
                    fresh ? (code == Int(ABS_MT_TRACKING_ID) ? -1 : 0) : value
            }
        }
        for code in 0..<0x2f where libevdev_has_event_code(dev, UInt32(EV_ABS), UInt32(code)) != 0 {
            s.axes[UInt16(code)] = libevdev_get_event_value(dev, UInt32(EV_ABS), UInt32(code))
        }
        for code in 0..<UInt32(KEY_CNT) where libevdev_has_event_code(dev, UInt32(EV_KEY), code) != 0 {
            s.keys[UInt16(code)] = fresh ? 0 : libevdev_get_event_value(dev, UInt32(EV_KEY), code)
        }
        return s
    }

    /// The device's descriptor, for the loop's set.
    package var fd: Int32 { device.fd }

    /// Grabs the device if no finger is down on it and it is not grabbed.
    private func tryGrab() {
        guard !grabbed, !grabRefused, !releasing, !fingerDown else { return }
        let r = libevdev_grab(device.device, LIBEVDEV_GRAB)
        if r == 0 {
            grabbed = true
            logger.info("\(name): grabbed; its frames reach the compositor through the clone")
        } else {
            grabRefused = true
            let why = -r == EBUSY ? "another program holds a grab on it" : "\(Errno(rawValue: -r))"
            logger.warning("\(name): cannot grab \(path) (\(why)): not claimed; it is read as any other")
        }
    }

    /// Whether a finger is down on the device, as libevdev's state says.
    private var fingerDown: Bool {
        let dev = device.device
        let slots = libevdev_get_num_slots(dev)
        if slots > 0 {
            for s in 0..<UInt32(slots) where libevdev_get_slot_value(dev, s, UInt32(ABS_MT_TRACKING_ID)) >= 0 {
                return true
            }
        }
        return libevdev_get_event_value(dev, UInt32(EV_KEY), UInt32(BTN_TOUCH)) != 0
    }

    /// Reads what the device has: each finished frame goes to the clone
    /// (as the claimer says) and its touches to `events`. False when the
    /// device has gone away.
    package func read(into events: TouchSourceEvents) -> Bool {
        var e = input_event()
        while true {
            let rc = libevdev_next_event(device.device, LIBEVDEV_READ_FLAG_NORMAL.rawValue, &e)
            if rc == LIBEVDEV_READ_STATUS_SUCCESS.rawValue {
                take(e, into: events)
            } else if rc == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                // SYN_DROPPED: libevdev gives the state's difference as events.
                resynchronized = true
                pending.removeAll()
                while libevdev_next_event(device.device, LIBEVDEV_READ_FLAG_SYNC.rawValue, &e)
                    == LIBEVDEV_READ_STATUS_SYNC.rawValue
                {
                    take(e, into: events)
                }
            } else if rc == -EAGAIN {
                return true
            } else if rc == -EINTR {
                continue
            } else {
                return false
            }
        }
    }

    private func take(_ e: input_event, into events: TouchSourceEvents) {
        let time = Timestamp(microseconds: Int64(e.time.tv_sec) * 1_000_000 + Int64(e.time.tv_usec))
        let isReport = e.type == UInt16(EV_SYN) && e.code == UInt16(SYN_REPORT)
        if e.type != UInt16(EV_SYN) || isReport { pending.append(RawEvent(e.type, e.code, e.value)) }
        let frame: TouchFrame?
        do {
            frame = try assembler.feed(EvdevEvent(time: time, type: e.type, code: e.code, value: e.value, line: 0))
        } catch {
            logger.warning("\(name): \(error)")
            frame = nil
        }
        if let frame { events.frame(frame) }
        guard isReport else { return }
        let raw = RawFrame(time: time, events: pending)
        pending.removeAll(keepingCapacity: true)
        let touches = frame ?? TouchFrame(device: id, time: time)
        if grabbed {
            write(claimer.process(raw, touches: touches, resynchronized: resynchronized))
        } else {
            claimer.observe(raw, touches: touches)
            if !claimer.anyDown { tryGrab() }
        }
        resynchronized = false
        if releasing && !claimer.anyDown { ungrab() }
    }

    /// A held-back touch's time ran out: it goes on.
    package func advance(to now: Timestamp) {
        let out = claimer.advance(to: now)
        if grabbed { write(out) }
    }

    /// When `advance` must be called (`.never`: nothing waits).
    package var deadline: Timestamp { claimer.deadline }

    /// What is claimed changed (clients came, went or subscribed again).
    package func set(claims: ClaimSet) { claimer.claims = claims }

    package func set(thresholds: GestureThresholds) { claimer.set(thresholds: thresholds) }

    /// How the picture is turned: the edges claimed are the picture's.
    package func set(transform: ScreenTransform) { claimer.transform = transform }

    /// Lets the device go back to the compositor: at once if no finger is
    /// down, else once the last lifts (a grab ended mid-touch would leave
    /// the compositor a touch that never ends). Whatever the clone has down
    /// is cancelled first. True once it is let go.
    @discardableResult
    package func release(at now: Timestamp) -> Bool {
        releasing = true
        if grabbed { write(claimer.cancelAll(at: now)) }
        if !claimer.anyDown { ungrab() }
        return !grabbed
    }

    private func ungrab() {
        if grabbed {
            libevdev_grab(device.device, LIBEVDEV_UNGRAB)
            grabbed = false
            logger.info("\(name): let go; the compositor reads it again")
        }
    }

    /// Writes frames to the clone as they are, each event with the frame's
    /// own time (uinput keeps a time that is not in the future and at most
    /// 10 s old), one `write` per frame.
    private func write(_ frames: [RawFrame]) {
        guard cloneFD >= 0 else { return }
        for f in frames {
            let t = timeval(
                tv_sec: Int(f.time.microseconds / 1_000_000), tv_usec: Int(f.time.microseconds % 1_000_000))
            var buffer = f.events.map { input_event(time: t, type: $0.type, code: $0.code, value: $0.value) }
            let n = buffer.withUnsafeMutableBytes { Glibc.write(cloneFD, $0.baseAddress, $0.count) }
            if n < 0 { logger.warning("\(name): writing to the clone failed: \(Errno.last)") }
        }
    }
}
