import CEvdev
internal import CLinux
package import GestureCore
package import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What a claimed touchscreen reads from: its evdev node through libevdev
/// (`EvdevClaimedInput`), or in tests a stand-in that reads events from a
/// pipe. The daemon's side of claiming (`ClaimedDevice`) sees only this.
package protocol ClaimedInput: AnyObject {
    /// The descriptor the pass-through's wait watches.
    var fd: Int32 { get }
    var description: DeviceDescription { get }
    /// The next event, if one waits: a plain one, one of the state's
    /// difference after the kernel dropped events (`SYN_DROPPED`), nothing
    /// yet, or the device went away.
    func next() -> ClaimedRead
    /// Takes the device from every other reader (`EVIOCGRAB`); why not, if it cannot.
    func grab() -> Errno?
    func ungrab()
    /// The device's state now (every slot, the axes, the keys down), or
    /// with `fresh` what a clone of it holds when uinput has just made it.
    func state(fresh: Bool) -> DeviceState
    /// Makes the kernel's state of the device `state` again (while it is
    /// grabbed, only the grabber reads what this writes): what its other
    /// readers last read before the grab, so that they read its next touch
    /// right once it is let go. Why not, if it cannot.
    func restore(_ state: DeviceState) -> Errno?
}

package enum ClaimedRead {
    case event(RawEvent, time: Timestamp)
    /// The kernel dropped events (`SYN_DROPPED`): the frame under way is
    /// lost, and what follows (`resynchronizing`) is the difference
    /// between what was read and the device's state.
    case dropped
    /// Part of the difference libevdev gives after `SYN_DROPPED`.
    case resynchronizing(RawEvent, time: Timestamp)
    case empty
    case gone
}

/// A touchscreen's evdev node, read through libevdev.
package final class EvdevClaimedInput: ClaimedInput {
    let device: EvdevDevice
    /// After `SYN_DROPPED`: libevdev's difference is being read.
    private var syncing = false

    package init(path: String) throws(SetupError) {
        device = try EvdevDevice(path: path, forWriting: true)
        // The device's own clock is CLOCK_MONOTONIC, as libinput's and as uinput expects.
        _ = libevdev_set_clock_id(device.device, CLOCK_MONOTONIC)
    }

    package var fd: Int32 { device.fd }
    package var description: DeviceDescription { device.description }
    package var name: String { device.name }

    package func next() -> ClaimedRead {
        var e = input_event()
        while true {
            let rc = libevdev_next_event(
                device.device, (syncing ? LIBEVDEV_READ_FLAG_SYNC : LIBEVDEV_READ_FLAG_NORMAL).rawValue, &e)
            let event = RawEvent(e.type, e.code, e.value)
            let time = Timestamp(microseconds: Int64(e.time.tv_sec) * 1_000_000 + Int64(e.time.tv_usec))
            if syncing {
                if rc == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue) { return .resynchronizing(event, time: time) }
                syncing = false
                continue
            }
            switch rc {
            case Int32(LIBEVDEV_READ_STATUS_SUCCESS.rawValue):
                return .event(event, time: time)
            case Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue):
                // SYN_DROPPED: libevdev gives the state's difference as events, read with the sync flag.
                syncing = true
                return .dropped
            case -EAGAIN:
                return .empty
            case -EINTR:
                continue
            default:
                return .gone
            }
        }
    }

    package func grab() -> Errno? {
        let r = libevdev_grab(device.device, LIBEVDEV_GRAB)
        return r == 0 ? nil : Errno(rawValue: -r)
    }

    package func ungrab() { libevdev_grab(device.device, LIBEVDEV_UNGRAB) }

    /// Writes to the device's node (the kernel takes what a reader writes
    /// as the device's own events: `input_inject_event`, which a grab sends
    /// to the grabber alone) the events that make its state `target`: each
    /// value that differs, by way of a value far from it first where the
    /// axis smooths small changes (`fuzz`); and last, a value of the slot
    /// `target` had selected changed and changed back, so that the kernel,
    /// which names a slot only when a value in it changes, has that slot
    /// selected for its other readers' next event.
    package func restore(_ target: DeviceState) -> Errno? {
        guard device.writable else { return .badFileDescriptor }
        let dev = device.device
        var now = state(fresh: false)
        // The slot the kernel last named to its readers, before `move`
        // makes `now` the target.
        var flushed = now.currentSlot
        var selected = flushed
        var frames = EvdevFrames()
        now.move(to: target, writing: &frames)
        var events: [RawEvent] = []
        func put(_ e: RawEvent) {
            guard e.type == Evdev.EV_ABS, e.code != Evdev.ABS_MT_SLOT else {
                if e.type == Evdev.EV_ABS { selected = e.value }
                events.append(e)
                return
            }
            let fuzz = libevdev_get_abs_fuzz(dev, UInt32(e.code))
            if fuzz > 0 && e.code != Evdev.ABS_MT_TRACKING_ID {
                let step = 4 * fuzz + 1
                let far = e.value + step <= libevdev_get_abs_maximum(dev, UInt32(e.code)) ? e.value + step : e.value - step
                events.append(RawEvent(e.type, e.code, far))
            }
            events.append(e)
            if e.code >= Evdev.ABS_MT_TOUCH_MAJOR { flushed = selected }
        }
        for e in frames.events { put(e) }
        if flushed != target.currentSlot, let x = target.value(slot: target.currentSlot, Evdev.ABS_MT_POSITION_X) {
            let away = x < libevdev_get_abs_maximum(dev, UInt32(ABS_MT_POSITION_X)) ? x + 1 : x - 1
            if selected != target.currentSlot { events.append(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, target.currentSlot)) }
            for v in [away, x] { put(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, v)) }
        }
        guard !events.isEmpty else { return nil }
        events.append(.report)
        let written = events.map { input_event(time: timeval(), type: $0.type, code: $0.code, value: $0.value) }
        do {
            _ = try written.withUnsafeBytes { try FileDescriptor(rawValue: device.fd).write($0) }
            return nil
        } catch {
            return error as? Errno ?? .ioError
        }
    }

    package func state(fresh: Bool) -> DeviceState {
        let dev = device.device
        var s = DeviceState(slots: Int(max(0, libevdev_get_num_slots(dev))))
        if !fresh { s.select(slot: Int32(libevdev_get_current_slot(dev))) }
        let slotted = (Evdev.ABS_MT_TOUCH_MAJOR...Evdev.ABS_MT_LAST).filter {
            libevdev_has_event_code(dev, UInt32(EV_ABS), UInt32($0)) != 0
        }
        for slot in 0..<Int32(s.slotCount) {
            for code in slotted {
                let value = libevdev_get_slot_value(dev, UInt32(slot), UInt32(code))
                s.set(slot: slot, code, fresh ? (code == Evdev.ABS_MT_TRACKING_ID ? -1 : 0) : value)
            }
        }
        for code in 0..<UInt16(Evdev.plainAxisCount) where libevdev_has_event_code(dev, UInt32(EV_ABS), UInt32(code)) != 0 {
            s.set(axis: code, libevdev_get_event_value(dev, UInt32(EV_ABS), UInt32(code)))
        }
        for code in 0..<UInt16(Evdev.keyCount) where libevdev_has_event_code(dev, UInt32(EV_KEY), UInt32(code)) != 0 {
            s.set(key: code, down: !fresh && libevdev_get_event_value(dev, UInt32(EV_KEY), UInt32(code)) != 0)
        }
        return s
    }
}
