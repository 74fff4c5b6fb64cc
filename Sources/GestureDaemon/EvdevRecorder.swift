internal import CEvdev
internal import CLinux
package import GestureCore
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// An evdev device node read through libevdev (`gestured record`).
package final class EvdevDevice {
    package let path: String
    let fd: Int32
    let device: OpaquePointer

    /// Whether it was opened for writing too.
    let writable: Bool

    /// Opens `path` read-only (with `forWriting`, read-write where that is
    /// allowed, else read-only) and non-blocking. Does not grab it: the
    /// compositor and the daemon keep receiving its events.
    package init(path: String, forWriting: Bool = false) throws(SetupError) {
        self.path = path
        var fd = forWriting ? open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC) : -1
        writable = fd >= 0
        if fd < 0 { fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else {
            let e = errno
            switch e {
            case EACCES, EPERM:
                throw SetupError(
                    "cannot open \(path): permission denied; reading input devices needs root or the group 'input' (sudo gestured record …)"
                )
            case ENOENT, ENODEV, ENXIO:
                throw SetupError(
                    "cannot open \(path): no such device; `gestured devices` lists the touchscreens")
            default:
                throw SetupError("cannot open \(path)", Errno(rawValue: e))
            }
        }
        var device: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &device)
        guard rc == 0, let device else {
            close(fd)
            throw SetupError("\(path) is not an evdev device", Errno(rawValue: -rc))
        }
        self.fd = fd
        self.device = device
        description = Self.describe(device)
    }

    deinit {
        libevdev_free(device)
        close(fd)
    }

    package var name: String { description.name }

    /// The device as an evemu header describes it, read when it was opened:
    /// name, ids, properties, the codes of every event type (type 0: the
    /// types, as EVIOCGBIT(0) reports them) and every absolute axis.
    package let description: DeviceDescription

    private static func describe(_ device: OpaquePointer) -> DeviceDescription {
        let name = libevdev_get_name(device).map { String(cString: $0) } ?? ""
        var d = DeviceDescription(name: name)
        d.bus = UInt16(truncatingIfNeeded: libevdev_get_id_bustype(device))
        d.vendor = UInt16(truncatingIfNeeded: libevdev_get_id_vendor(device))
        d.product = UInt16(truncatingIfNeeded: libevdev_get_id_product(device))
        d.version = UInt16(truncatingIfNeeded: libevdev_get_id_version(device))
        for p in 0..<Int(INPUT_PROP_CNT) where libevdev_has_property(device, UInt32(p)) != 0 {
            d.properties.insert(p)
        }
        var types: Set<UInt16> = []
        for type in 1..<UInt32(EV_CNT) where libevdev_has_event_type(device, type) != 0 {
            types.insert(UInt16(type))
            let top = libevdev_event_type_get_max(type)
            guard top >= 0 else { continue }
            var codes: Set<UInt16> = []
            for code in 0...UInt32(top) where libevdev_has_event_code(device, type, code) != 0 {
                codes.insert(UInt16(code))
                if type == UInt32(EV_ABS), let a = libevdev_get_abs_info(device, code)?.pointee {
                    d.absinfo[UInt16(code)] = AbsInfo(
                        minimum: a.minimum, maximum: a.maximum, fuzz: a.fuzz, flat: a.flat, resolution: a.resolution)
                }
            }
            if !codes.isEmpty { d.codes[UInt16(type)] = codes }
        }
        types.insert(Evdev.EV_SYN)
        d.codes[Evdev.EV_SYN] = types
        return d
    }

    /// Why this is not a touchscreen, or nil when it is one (`notTouchscreenReason`).
    package var notTouchscreen: String? { Self.notTouchscreenReason(description) }

    /// Why a device described so is not a touchscreen, or nil when it is
    /// one: a direct-touch device (INPUT_PROP_DIRECT) with BTN_TOUCH and
    /// absolute positions, and not a pen. The same test udev's input_id
    /// makes for ID_INPUT_TOUCHSCREEN.
    package static func notTouchscreenReason(_ d: DeviceDescription) -> String? {
        let keys = d.codes[Evdev.EV_KEY] ?? []
        if !d.hasMultitouch && !d.hasSingleTouch { return "it reports no absolute touch positions" }
        if !keys.contains(Evdev.BTN_TOUCH) { return "it has no BTN_TOUCH" }
        if !d.isDirect { return "it is not a direct-touch device (no INPUT_PROP_DIRECT: a touchpad or a tablet)" }
        if keys.contains(Evdev.BTN_TOOL_PEN) && !d.hasMultitouch { return "it is a pen (BTN_TOOL_PEN)" }
        return nil
    }
}

/// How a recording ended and what it holds.
package struct RecordSummary: Sendable {
    package enum End: Sendable, Equatable {
        case signal(Int32)
        case duration
        case deviceGone
    }
    package var end: End = .duration
    package var events = 0
    package var frames = 0
    /// Fingers that landed (tracking ids assigned, or BTN_TOUCH presses on single-touch panels).
    package var touches = 0
    /// Times the kernel dropped events (SYN_DROPPED) and libevdev resynchronised.
    package var drops = 0
    package var seconds = 0.0
}

/// Writes a device's events to an evemu file until a signal (SIGINT,
/// SIGTERM, SIGHUP), the duration, or the device going away. Each frame is
/// written whole as soon as its SYN_REPORT arrives, so the file is complete
/// up to the last frame whenever and however the recording stops.
package final class EvdevRecorder {
    let device: EvdevDevice
    let output: Int32
    let outputName: String
    var buffer: [UInt8] = []
    var first: Int64?
    var lastFrame: Int64 = 0
    var lastWritten: Int64 = 0
    var summary = RecordSummary()
    let hasSlots: Bool

    package init(device: EvdevDevice, output: Int32, outputName: String) {
        self.device = device
        self.output = output
        self.outputName = outputName
        hasSlots = libevdev_has_event_code(device.device, UInt32(EV_ABS), UInt32(ABS_MT_SLOT)) != 0
        buffer.reserveCapacity(1 << 14)
    }

    /// The evemu header: the device's description and where it came from.
    package func header(version: String) throws(SetupError) {
        let d = device.description
        var s = EvemuWriter.description(d)
        s += "# Recorded by gestured \(version) record from \(device.path)\n"
        s += "# Properties: " + d.properties.sorted().map(Evdev.propertyName).joined(separator: ", ") + "\n"
        buffer.append(contentsOf: s.utf8)
        try flush()
    }

    /// Records until a stop; `duration` in seconds (nil: until a signal).
    package func run(duration: Double?) throws(SetupError) -> RecordSummary {
        var signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
        let signalFD = clinux_signalfd(&signals, Int32(signals.count))
        guard signalFD >= 0 else { throw SetupError("signalfd", Errno.last) }
        defer { close(signalFD) }
        let started = monotonicNow()
        let deadline = duration.map { started + Timestamp.Duration(microseconds: Int64(max(0, $0) * 1_000_000)) }
        var poller = Poller()
        while true {
            if let deadline, monotonicNow() >= deadline {
                summary.end = .duration
                break
            }
            poller.reset()
            let deviceSlot = poller.add(device.fd, Int32(POLLIN))
            let signalSlot = poller.add(signalFD, Int32(POLLIN))
            if let e = poller.wait(until: deadline ?? .never, clock: .monotonic).error {
                throw SetupError("poll", Errno(rawValue: e))
            }
            if poller.events(signalSlot) != 0 {
                summary.end = .signal(clinux_signalfd_read(signalFD))
                // What the kernel delivered before the signal belongs in the file.
                if try !drain() { summary.end = .deviceGone }
                break
            }
            if poller.readable(deviceSlot) || poller.hungUp(deviceSlot) {
                if try !drain() {
                    summary.end = .deviceGone
                    break
                }
            }
        }
        summary.seconds = (monotonicNow() - started).seconds
        // Whatever arrived after the last SYN_REPORT is an incomplete frame: kept,
        // as the kernel sent it, with a comment saying so.
        if !buffer.isEmpty {
            buffer.append(contentsOf: "# the recording stopped before this frame's SYN_REPORT\n".utf8)
            try flush()
        }
        return summary
    }

    /// Reads every pending event; false when the device has gone away.
    private func drain() throws(SetupError) -> Bool {
        var event = input_event()
        while true {
            let rc = libevdev_next_event(device.device, LIBEVDEV_READ_FLAG_NORMAL.rawValue, &event)
            if rc == LIBEVDEV_READ_STATUS_SUCCESS.rawValue {
                try write(event)
            } else if rc == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                try resynchronise(dropped: event)
            } else if rc == -EAGAIN {
                return true
            } else if rc == -EINTR {
                continue
            } else {
                return false  // -ENODEV and the like: the device is gone.
            }
        }
    }

    /// After SYN_DROPPED: libevdev reads the device's state back and gives the
    /// difference as events. They are written as ordinary events under a
    /// comment, so a replay sees the touch state the device really had.
    private func resynchronise(dropped: input_event) throws(SetupError) {
        summary.drops += 1
        let at = time(dropped)
        buffer.append(
            contentsOf:
                "# SYN_DROPPED at \(seconds(at)) s: the kernel dropped events; libevdev's resynchronised state follows\n"
                .utf8)
        var event = input_event()
        while libevdev_next_event(device.device, LIBEVDEV_READ_FLAG_SYNC.rawValue, &event)
            == LIBEVDEV_READ_STATUS_SYNC.rawValue
        {
            try write(event, notBefore: at)
        }
    }

    private func time(_ e: input_event) -> Int64 {
        Int64(e.time.tv_sec) * 1_000_000 + Int64(e.time.tv_usec)
    }

    /// "1.234567", relative to the first event.
    private func seconds(_ t: Int64) -> String {
        let r = max(0, t - (first ?? t))
        let frac = String(r % 1_000_000)
        return "\(r / 1_000_000).\(String(repeating: "0", count: 6 - frac.count))\(frac)"
    }

    private func write(_ e: input_event, notBefore: Int64 = .min) throws(SetupError) {
        // Times never go backwards in the file, whatever the clock did.
        var t = max(time(e), notBefore, lastWritten)
        if first == nil {
            first = t
            lastFrame = t
        }
        t = max(t, first!)
        lastWritten = t
        summary.events += 1
        if e.type == UInt16(EV_ABS) && e.code == UInt16(ABS_MT_TRACKING_ID) && e.value >= 0 {
            summary.touches += 1
        } else if !hasSlots && e.type == UInt16(EV_KEY) && e.code == UInt16(BTN_TOUCH) && e.value == 1 {
            summary.touches += 1
        }
        let line = EvemuWriter.line(
            EvdevEvent(time: Timestamp(microseconds: t - first!), type: e.type, code: e.code, value: e.value))
        buffer.append(contentsOf: line.utf8.dropLast())
        if e.type == UInt16(EV_SYN) && e.code == UInt16(SYN_REPORT) {
            let gap = (t - lastFrame) / 1000
            lastFrame = t
            buffer.append(contentsOf: "\t# ------------ SYN_REPORT (+\(gap) ms) ------------\n".utf8)
            summary.frames += 1
            try flush()
        } else {
            buffer.append(contentsOf: "\t# \(Evdev.name(type: e.type, code: e.code)) \(e.value)\n".utf8)
        }
    }

    private func flush() throws(SetupError) {
        do {
            try writeAll(output, buffer)
        } catch {
            throw SetupError("cannot write \(outputName)", error)
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
