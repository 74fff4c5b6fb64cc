import CInput
import CLinux
package import GestureConfiguration
package import GestureCore
package import Logging
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Touchscreens through libinput: the udev backend on a seat (with hotplug),
/// or the path backend for devices named on the command line.
///
/// `read(into:)` returns what happened since the last call (devices added
/// and removed, finished frames); it calls nobody back.
///
/// libinput opens devices through `open_restricted`, which opens touchscreens
/// (udev `ID_INPUT_TOUCHSCREEN=1`) and tablet-mode switches that have no
/// keys (`SW_TABLET_MODE`, udev `ID_INPUT_SWITCH=1` without `ID_INPUT_KEY`)
/// and refuses every other node, so no keyboard event can ever reach the
/// daemon. Whether some switch says the machine is in tablet mode is
/// `tabletMode`.
package final class LibinputSource {
    // The state `read(into:)` uses on every call (about once per frame) is
    // read without Swift's run-time exclusivity checks: only this class's
    // own methods touch it, on the loop's one thread, and none of them
    // calls out while it holds it. Kept for the per-frame instruction
    // budget (`Performance/scripts/daemon-cost.sh --callgrind`).
    @exclusivity(unchecked) private var li: OpaquePointer?
    private var udev: OpaquePointer?
    package let logger: Logger
    /// The `[[device]]` sections (size, rotation, mirroring) for devices
    /// added from now on; the daemon sets a new one when it reloads.
    package var configuration: Configuration

    /// Per-device state, by index; libinput's user data for a device is its
    /// index + 1. A removed device keeps its place, without a handle (indexes
    /// do not move). What a frame needs (`building`) is kept apart from what
    /// it does not (`infos`: names and paths).
    @exclusivity(unchecked) private var handles: [OpaquePointer?] = []
    @exclusivity(unchecked) private var infos: [DeviceInfo] = []
    /// Each device's frame being built, in memory this source owns and
    /// reaches by pointer: an array's uniqueness check and bounds on each of
    /// a frame's touch events cost more than the rest of handling it.
    @exclusivity(unchecked) private var building = PointerList<FrameInProgress>()
    /// The device of the last touch event and its index (libinput's user data).
    @exclusivity(unchecked) private var lastHandle: OpaquePointer?
    @exclusivity(unchecked) private var lastIndex = 0
    @exclusivity(unchecked) private var nextID: Int
    /// Touchscreens to claim (`claim = true`), not yet taken by the daemon;
    /// and the indexes of those libinput reads no more for that.
    private var claimRequests: [ClaimRequest] = []
    private var claimedIndexes: Set<Int> = []
    /// The clones' nodes `open_restricted` refused: libinput's complaint
    /// that it could not open one is no warning.
    fileprivate var clonesLeft: Set<String> = []
    /// The tablet-mode switches present (libinput's handles) and whether each is on.
    private var switches: [(handle: OpaquePointer, name: String, on: Bool)] = []
    /// Some switch says the machine is in tablet mode (its keyboard folded away or detached).
    package private(set) var tabletMode = false
    /// `tabletMode` changed since `takeTabletModeChange()` was last asked.
    private var tabletModeChanged = false
    /// Whether `libinput_event_get_touch_event` hands back the event it is
    /// given: asked of the first touch event, nil until then. It is a checked
    /// cast in libinput (the touch event begins with its base event); once
    /// it is seen to be one, a touch event whose type `read` has just
    /// switched on is passed to the touch accessors as it is, without a
    /// second check of its type (a call and a variadic check in libinput
    /// per event). Were it ever another pointer, it is called for every
    /// event, as the API says.
    @exclusivity(unchecked) private var touchIsEvent: Bool?

    /// A device's frame, from libinput's first touch event of it until its
    /// TOUCH_FRAME, which hands it on whatever read brings it (libinput
    /// queues a frame's events together, so it is one read).
    private struct FrameInProgress {
        var frame: TouchFrame
        /// The panel's size in screen orientation, mm: libinput gives positions as fractions of it.
        var width: Double
        var height: Double
        /// Each slot's last position, for its lift (a lift carries no position).
        var last: InlineArray<16, (x: Double, y: Double)> = .init(repeating: (0, 0))
        /// A touch beyond `TouchFrame.capacity` slots was ignored (said once).
        var ignoredSlot = false
    }

    package enum Backend {
        case seat(String)
        case paths([String])
    }

    /// Devices get ids from `firstID` on.
    package init(_ backend: Backend, configuration: Configuration, firstID: Int = 1, logger: Logger) throws(SetupError) {
        self.logger = logger
        self.configuration = configuration
        nextID = firstID
        guard let udev = udev_new() else { throw SetupError("udev_new() failed: is /sys mounted?") }
        self.udev = udev
        let user = Unmanaged.passUnretained(self).toOpaque()
        switch backend {
        case .seat(let seat):
            li = libinput_udev_create_context(libinputInterface, user, udev)
            guard let li else { throw SetupError("cannot create a libinput context") }
            clinux_libinput_set_log(li, libinputLog, logger.logLevel <= .debug ? 10 : 20)
            guard libinput_udev_assign_seat(li, seat) == 0 else {
                throw SetupError("libinput cannot use seat '\(seat)' (is udev running and /run/udev readable?)")
            }
        case .paths(let paths):
            li = libinput_path_create_context(libinputInterface, user)
            guard let li else { throw SetupError("cannot create a libinput context") }
            clinux_libinput_set_log(li, libinputLog, logger.logLevel <= .debug ? 10 : 20)
            for path in paths {
                try Self.checkNode(path)
                guard libinput_path_add_device(li, path) != nil else {
                    throw SetupError("cannot use \(path): libinput refused it (not a touchscreen?); see `gestured devices`")
                }
            }
        }
    }

    deinit { shutdown() }

    /// Says plainly why a device named on the command line cannot be opened,
    /// before libinput, which only says "invalid path".
    static func checkNode(_ path: String) throws(SetupError) {
        var st = stat()
        guard stat(path, &st) == 0 else {
            let e = Errno.last
            throw SetupError(
                e == .noSuchFileOrDirectory
                    ? "cannot use \(path): no such device (unplugged, or another number?); `gestured devices` lists the touchscreens"
                    : "cannot use \(path): \(e)")
        }
        guard (st.st_mode & S_IFMT) == S_IFCHR else {
            throw SetupError("cannot use \(path): not a device node; touchscreens are /dev/input/eventN (`gestured devices`)")
        }
        guard access(path, R_OK) == 0 else {
            throw SetupError("cannot use \(path): not readable by this user (reading /dev/input needs root or the group 'input')")
        }
    }

    /// The touchscreens on `backend` as the daemon would see them (`gestured
    /// devices`, `gestured record`): opened, read once and closed.
    package static func touchscreens(
        _ backend: Backend, configuration: Configuration, logger: Logger
    ) throws(SetupError)
        -> [DeviceInfo]
    {
        let source = try LibinputSource(backend, configuration: configuration, logger: logger)
        defer { source.shutdown() }
        // The devices present are queued as added as soon as libinput opens them.
        let events = TouchSourceEvents()
        source.read(into: events)
        return events.devices.map(\.info)
    }

    /// libinput's epoll fd: readable when events wait.
    package var fd: Int32 { li.map { libinput_get_fd($0) } ?? -1 }

    /// Its descriptor's token in the loop's set, once watched.
    package private(set) var token: Readiness.Token?

    /// Watches its descriptor in `loop` from now on.
    package func watch(in loop: Readiness) throws(SetupError) {
        token = try loop.watch(fd, "libinput's descriptor", owner: .libinput)
    }

    /// Whether the last wait found its descriptor readable.
    package func isReady(_ loop: Readiness) -> Bool { token.map { loop.readable($0) } ?? false }

    /// Releases every device and the context.
    package func shutdown() {
        if let li {
            for case let handle? in handles { libinput_device_unref(handle) }
            for s in switches { libinput_device_unref(s.handle) }
            switches.removeAll()
            handles.removeAll()
            infos.removeAll()
            building.removeAll()
            libinput_unref(li)
        }
        li = nil
        if let udev { udev_unref(udev) }
        udev = nil
    }

    // MARK: open_restricted

    /// Opens `path` only if udev says it is a touchscreen or a tablet-mode switch without keys; -errno otherwise.
    fileprivate func openRestricted(_ path: String, flags: Int32) -> Int32 {
        var st = stat()
        guard stat(path, &st) == 0 else { return -errno }
        guard (st.st_mode & S_IFMT) == S_IFCHR else {
            logger.notice("refused \(path): not a character device")
            return -EACCES
        }
        guard let dev = udev_device_new_from_devnum(udev, CChar(UInt8(ascii: "c")), st.st_rdev) else {
            let e = Errno.last
            return -outOfDescriptors(path, e, or: "udev knows nothing of it (\(e))", EACCES)
        }
        defer { udev_device_unref(dev) }
        // A clone a claimed touchscreen's frames go through (this daemon's
        // or another's) is for the compositor: reading it too would see
        // every gesture twice.
        let deviceName = udev_device_get_parent(dev).flatMap { udev_device_get_sysattr_value($0, "name") }.map {
            String(cString: $0)
        }
        if deviceName?.hasSuffix(ClaimedDevice.cloneSuffix) == true {
            if clonesLeft.insert(path).inserted {
                logger.debug("left \(path) (\(deviceName!)) alone: a clone of a claimed touchscreen, for the compositor")
            }
            return -EACCES
        }
        let touchscreen = udev_device_get_property_value(dev, "ID_INPUT_TOUCHSCREEN").map { String(cString: $0) }
        guard touchscreen == "1" || Self.isTabletModeSwitch(dev) else {
            let name = udev_device_get_parent(dev).flatMap { udev_device_get_sysattr_value($0, "name") }.map {
                String(cString: $0)
            }
            logger.info(
                "refused \(path)\(name.map { " (\($0))" } ?? ""): not a touchscreen (udev ID_INPUT_TOUCHSCREEN is not 1) nor a tablet-mode switch without keys"
            )
            return -EACCES
        }
        // Read-only, whatever libinput asks: the daemon writes nothing to a
        // touchscreen or a switch, and its user may only read them (74-gestured.rules).
        let fd = open(path, (flags & ~O_ACCMODE) | O_RDONLY | O_CLOEXEC)
        if fd >= 0 { return fd }
        let e = Errno.last
        return -outOfDescriptors(path, e, or: nil, e.rawValue)
    }

    /// A switch with `SW_TABLET_MODE` and no keys: udev says `ID_INPUT_SWITCH`
    /// and neither `ID_INPUT_KEY` nor `ID_INPUT_KEYBOARD`, the input
    /// device's key bits are all clear (a device that reports keys beside
    /// the switch, as some laptops' button devices do, is never opened),
    /// and its switch bits have `SW_TABLET_MODE`.
    private static func isTabletModeSwitch(_ dev: OpaquePointer) -> Bool {
        func property(_ name: String) -> String? { udev_device_get_property_value(dev, name).map { String(cString: $0) } }
        guard property("ID_INPUT_SWITCH") == "1", property("ID_INPUT_KEY") != "1", property("ID_INPUT_KEYBOARD") != "1",
            let parent = udev_device_get_parent(dev)
        else { return false }
        // Hex longs, most significant first, as the kernel prints them.
        func bits(_ name: String) -> [UInt64]? {
            udev_device_get_sysattr_value(parent, name).map {
                String(cString: $0).split(whereSeparator: \.isWhitespace).map { UInt64($0, radix: 16) ?? .max }
            }
        }
        guard let keys = bits("capabilities/key"), keys.allSatisfy({ $0 == 0 }), let sw = bits("capabilities/sw") else {
            return false
        }
        return (sw.last ?? 0) & (1 << Evdev.SW_TABLET_MODE) != 0
    }

    /// The errno to give libinput for `path` after `e`: at the process's
    /// descriptor limit it is said as such (a touchscreen plugged in then
    /// is not used: the log says what to do); otherwise `why` is logged,
    /// if given, and `otherwise` returned.
    private func outOfDescriptors(_ path: String, _ e: Errno, or why: String?, _ otherwise: Int32) -> Int32 {
        if e == .tooManyOpenFiles || e == .tooManyOpenFilesInSystem {
            logger.error(
                "cannot open \(path): out of file descriptors (\(e)); it is not used. Lower max-clients in [daemon] or raise LimitNOFILE=, then plug it in again or restart gestured"
            )
            return e.rawValue
        }
        if let why { logger.notice("refused \(path): \(why)") }
        return otherwise
    }

    // MARK: Events

    /// Reads what libinput has queued and appends what happened: devices
    /// added and removed, and each finished frame.
    package func read(into events: TouchSourceEvents) {
        guard let li else { return }
        if libinput_dispatch(li) != 0 { dispatchFailed(Errno.last) }
        while let event = libinput_get_event(li) {
            let type = libinput_event_get_type(event)
            switch type {
            case LIBINPUT_EVENT_TOUCH_DOWN, LIBINPUT_EVENT_TOUCH_MOTION, LIBINPUT_EVENT_TOUCH_UP, LIBINPUT_EVENT_TOUCH_CANCEL:
                if let d = device(of: event), let touch = touchEvent(event),
                    !Self.touch(type, touch, into: d), !d.pointee.ignoredSlot
                {
                    d.pointee.ignoredSlot = true
                    slotIgnored(d.pointee.frame.device)
                }
            case LIBINPUT_EVENT_TOUCH_FRAME:
                // A frame whose only touches were ignored (beyond the slots) is empty: nothing happened.
                if let d = device(of: event), !d.pointee.frame.isEmpty {
                    events.frame(taking: &d.pointee.frame)
                }
            case LIBINPUT_EVENT_SWITCH_TOGGLE:
                switchToggled(event)
            case LIBINPUT_EVENT_DEVICE_ADDED:
                deviceAdded(event, into: events)
            case LIBINPUT_EVENT_DEVICE_REMOVED:
                deviceRemoved(event, into: events)
            default:
                break
            }
            libinput_event_destroy(event)
        }
    }

    private func deviceAdded(_ event: OpaquePointer, into events: TouchSourceEvents) {
        let handle = libinput_event_get_device(event)!
        if libinput_device_switch_has_switch(handle, LIBINPUT_SWITCH_TABLET_MODE) == 1 {
            let name = String(cString: libinput_device_get_name(handle))
            switches.append((libinput_device_ref(handle), name, false))
            logger.notice("tablet-mode switch: \(name) (/dev/input/\(String(cString: libinput_device_get_sysname(handle))))")
            return
        }
        if let (info, geometry) = added(handle, index: building.count) {
            building.append(
                FrameInProgress(
                    frame: TouchFrame(device: info.id, time: .zero), width: info.width, height: info.height))
            events.added(info, geometry)
        }
    }

    private func deviceRemoved(_ event: OpaquePointer, into events: TouchSourceEvents) {
        if let i = switches.firstIndex(where: { $0.handle == libinput_event_get_device(event) }) {
            logger.notice("tablet-mode switch removed: \(switches[i].name)")
            libinput_device_unref(switches[i].handle)
            switches.remove(at: i)
            followSwitches()
            return
        }
        if let i = Self.index(of: libinput_event_get_device(event)), i < handles.count, let handle = handles[i] {
            logger.notice("removed \(infos[i].name) (\(infos[i].node))")
            events.removed(infos[i].id)
            libinput_device_unref(handle)
            handles[i] = nil
            if lastHandle == handle { lastHandle = nil }
            // libinput sends nothing of it after this: a frame it had begun is dropped.
            building.pointer(to: i).pointee.frame.removeAll()
        }
    }

    /// A switch turned: libinput says so at once, and at a switch's
    /// arrival when it is already on.
    private func switchToggled(_ event: OpaquePointer) {
        guard let e = libinput_event_get_switch_event(event),
            libinput_event_switch_get_switch(e) == LIBINPUT_SWITCH_TABLET_MODE,
            let i = switches.firstIndex(where: { $0.handle == libinput_event_get_device(event) })
        else { return }
        switches[i].on = libinput_event_switch_get_switch_state(e) == LIBINPUT_SWITCH_STATE_ON
        followSwitches()
    }

    private func followSwitches() {
        let on = switches.contains { $0.on }
        guard on != tabletMode else { return }
        tabletMode = on
        tabletModeChanged = true
        logger.notice(on ? "tablet mode: on" : "tablet mode: off")
    }

    /// The tablet mode, if it changed since the last call.
    package func takeTabletModeChange() -> Bool? {
        guard tabletModeChanged else { return nil }
        tabletModeChanged = false
        return tabletMode
    }

    private func dispatchFailed(_ e: Errno) { logger.warning("libinput_dispatch failed: \(e)") }

    private func slotIgnored(_ id: GestureCore.DeviceID) {
        let name = infos.first { $0.id == id }?.name ?? "\(id)"
        logger.warning("\(name): touches beyond the first \(TouchFrame.capacity) slots are ignored")
    }

    /// The touch event that is `event`, whose type is a touch type.
    @inline(__always)
    private func touchEvent(_ event: OpaquePointer) -> OpaquePointer? {
        if touchIsEvent == true { return event }
        return askedTouchEvent(event)
    }

    private func askedTouchEvent(_ event: OpaquePointer) -> OpaquePointer? {
        let touch = libinput_event_get_touch_event(event)
        if touchIsEvent == nil, let touch { touchIsEvent = touch == event }
        return touch
    }

    /// A device's index in `handles`, `infos` and `building`, from libinput's user data.
    private static func index(of handle: OpaquePointer?) -> Int? {
        guard let handle, let p = libinput_device_get_user_data(handle) else { return nil }
        return Int(bitPattern: p) - 1
    }

    /// The frame in progress of the device of a touch event (nil: not one of ours).
    private func device(of event: OpaquePointer) -> UnsafeMutablePointer<FrameInProgress>? {
        let handle = libinput_event_get_device(event)
        // A device's events come in runs: its index is asked of libinput once per run.
        if handle != lastHandle || lastIndex >= building.count {
            guard let i = Self.index(of: handle), i >= 0, i < building.count else { return nil }
            lastHandle = handle
            lastIndex = i
        }
        return building.pointer(to: lastIndex)
    }

    /// One touch event into the device's frame (its TOUCH_FRAME hands it on).
    /// False: a touch in a slot beyond `TouchFrame.capacity`, ignored.
    private static func touch(
        _ type: libinput_event_type, _ touch: OpaquePointer, into d: UnsafeMutablePointer<FrameInProgress>
    ) -> Bool {
        // The frame's time is its first event's: every event of a frame,
        // its TOUCH_FRAME too, has the frame's time (one accessor call per
        // frame, and none for the TOUCH_FRAME).
        if d.pointee.frame.isEmpty {
            d.pointee.frame.time = Timestamp(microseconds: Int64(bitPattern: libinput_event_touch_get_time_usec(touch)))
        }
        let raw = libinput_event_touch_get_slot(touch)
        let slot = raw < 0 ? 0 : Int(raw)
        guard slot < TouchFrame.capacity else { return false }
        switch type {
        case LIBINPUT_EVENT_TOUCH_DOWN, LIBINPUT_EVENT_TOUCH_MOTION:
            // Transformed coordinates are after libinput's calibration matrix (rotation), 0..1 of the screen.
            let scale: UInt32 = 1_000_000
            let x = libinput_event_touch_get_x_transformed(touch, scale) / Double(scale) * d.pointee.width
            let y = libinput_event_touch_get_y_transformed(touch, scale) / Double(scale) * d.pointee.height
            d.pointee.last[slot] = (x, y)
            d.pointee.frame.append(Contact(slot: slot, phase: type == LIBINPUT_EVENT_TOUCH_DOWN ? .down : .move, x: x, y: y))
        case LIBINPUT_EVENT_TOUCH_UP:
            let p = d.pointee.last[slot]
            d.pointee.frame.append(Contact(slot: slot, phase: .up, x: p.x, y: p.y))
        default:  // cancel
            let p = d.pointee.last[slot]
            d.pointee.frame.append(Contact(slot: slot, phase: .cancel, x: p.x, y: p.y))
        }
        return true
    }

    // MARK: Devices

    /// A touchscreen libinput added, with its size and rotation from the
    /// configuration, the device or the display; nil for other devices.
    private func added(_ handle: OpaquePointer, index: Int) -> (DeviceInfo, geometry: PanelGeometry)? {
        guard libinput_device_has_capability(handle, LIBINPUT_DEVICE_CAP_TOUCH) != 0 else { return nil }
        let id = DeviceID(nextID)
        nextID += 1
        let name = String(cString: libinput_device_get_name(handle))
        let node = "/dev/input/" + String(cString: libinput_device_get_sysname(handle))
        let vp =
            hex4(UInt16(truncatingIfNeeded: libinput_device_get_id_vendor(handle))) + ":"
            + hex4(UInt16(truncatingIfNeeded: libinput_device_get_id_product(handle)))
        let sections = configuration.sections(forName: name, vendorProduct: vp)
        // Rotation and mirroring through libinput's calibration matrix, so "left" is left on a rotated panel.
        var rotation = 0
        if libinput_device_config_calibration_has_matrix(handle) != 0 {
            let r = sections.compactMap(\.rotation).last
            let fx = sections.compactMap(\.flipX).last
            let fy = sections.compactMap(\.flipY).last
            if r != nil || fx != nil || fy != nil {
                let m = Calibration.matrix(rotation: r ?? 0, flipX: fx ?? false, flipY: fy ?? false)
                if libinput_device_config_calibration_set_matrix(handle, m) != LIBINPUT_CONFIG_STATUS_SUCCESS {
                    logger.warning("\(name): libinput refused the calibration matrix for rotation \(r ?? 0)")
                }
                rotation = r ?? 0
            } else {
                var m = [Float](repeating: 0, count: 6)
                libinput_device_config_calibration_get_matrix(handle, &m)
                rotation = Calibration.rotation(of: m)
            }
        }

        // Physical size: configuration, the device's resolution, the display's EDID, the fallback.
        var width = 0.0
        var height = 0.0
        var source = SizeSource.fallback
        if let size = sections.compactMap(\.size).last {
            (width, height, source) = (size.width, size.height, .configuration)
        } else if libinput_device_get_size(handle, &width, &height) == 0, PanelGeometry.physical.contains(width),
            PanelGeometry.physical.contains(height)
        {
            source = .resolution
        } else {
            switch DisplaySize.find() {
            case .success(let display):
                (width, height, source) = (display.width, display.height, .display)
                logger.info("\(name): size from the \(display.connector) display's EDID")
            case .failure(let why):
                let fallback = PanelGeometry.fallback(minX: 0, maxX: 16, minY: 0, maxY: 9)
                (width, height) = (fallback.width, fallback.height)
                logger.warning(
                    "\(name): no size known (no resolution; \(why)); assuming \(NumberText.fixed(width, 1)) x \(NumberText.fixed(height, 1)) mm. Set size = \"WxH\" in a [[device]] section of /etc/gestured/gestured.toml"
                )
            }
        }
        var geometry = PanelGeometry(minX: 0, maxX: 1, minY: 0, maxY: 1, width: width, height: height, source: source)
        geometry.rotation = rotation
        var info = DeviceInfo(
            id: id, name: DeviceInfo.boundedName(name), node: node, vendorProduct: vp, width: geometry.screenWidth,
            height: geometry.screenHeight,
            sizeSource: source, rotation: rotation, slots: Int(max(0, libinput_device_touch_get_touch_count(handle))))
        if let output = libinput_device_get_output_name(handle) { info.output = DeviceInfo.boundedName(String(cString: output)) }
        libinput_device_ref(handle)
        libinput_device_set_user_data(handle, UnsafeMutableRawPointer(bitPattern: index + 1))
        logger.notice("added \(info.summary)")
        handles.append(handle)
        infos.append(info)
        if configuration.claims(name: name, vendorProduct: vp) {
            var raw = geometry
            raw.flipX = sections.compactMap(\.flipX).last ?? false
            raw.flipY = sections.compactMap(\.flipY).last ?? false
            claim(index, geometry: raw)
        }
        return (infos[index], geometry)
    }

    // MARK: Claiming

    /// A touchscreen whose `[[device]]` says `claim = true`: the daemon
    /// reads it raw (`ClaimedDevice`); libinput's events of it are off.
    package struct ClaimRequest {
        package var id: GestureCore.DeviceID
        package var node: String
        package var name: String
        package var vendorProduct: String
        /// Its size and calibration, for raw positions (the axes' ranges
        /// are the device's own).
        package var geometry: PanelGeometry
    }

    /// The touchscreens to claim that came since the last call.
    package func takeClaimRequests() -> [ClaimRequest] {
        defer { claimRequests.removeAll() }
        return claimRequests
    }

    private func claim(_ index: Int, geometry: PanelGeometry) {
        guard let handle = handles[index], !claimedIndexes.contains(index) else { return }
        // libinput closes the device while its events are off, and keeps it for its removal.
        guard
            libinput_device_config_send_events_set_mode(handle, LIBINPUT_CONFIG_SEND_EVENTS_DISABLED.rawValue)
                == LIBINPUT_CONFIG_STATUS_SUCCESS
        else {
            logger.warning("\(infos[index].name): libinput would not let it go; not claimed")
            return
        }
        claimedIndexes.insert(index)
        infos[index].claimed = true
        let info = infos[index]
        claimRequests.append(
            ClaimRequest(id: info.id, node: info.node, name: info.name, vendorProduct: info.vendorProduct, geometry: geometry))
    }

    /// Gives a claimed touchscreen back to libinput (its claim ended, or
    /// could not start).
    package func unclaim(_ id: GestureCore.DeviceID) {
        guard let index = infos.firstIndex(where: { $0.id == id }), claimedIndexes.contains(index),
            let handle = handles[index]
        else { return }
        claimedIndexes.remove(index)
        infos[index].claimed = false
        _ = libinput_device_config_send_events_set_mode(handle, LIBINPUT_CONFIG_SEND_EVENTS_ENABLED.rawValue)
    }

    /// After a reload: the touchscreens present that are to be claimed now,
    /// as requests (taken with `takeClaimRequests`). One claimed before is
    /// the daemon's to read raw from then on, claimed or not.
    package func reconsiderClaims() {
        for (index, handle) in handles.enumerated() {
            guard let handle, !claimedIndexes.contains(index) else { continue }
            let info = infos[index]
            guard configuration.claims(name: String(cString: libinput_device_get_name(handle)), vendorProduct: info.vendorProduct)
            else { continue }
            let sections = configuration.sections(forName: info.name, vendorProduct: info.vendorProduct)
            var g = PanelGeometry(
                minX: 0, maxX: 1, minY: 0, maxY: 1,
                width: info.rotation % 180 == 0 ? info.width : info.height,
                height: info.rotation % 180 == 0 ? info.height : info.width, source: info.sizeSource)
            g.rotation = info.rotation
            g.flipX = sections.compactMap(\.flipX).last ?? false
            g.flipY = sections.compactMap(\.flipY).last ?? false
            claim(index, geometry: g)
        }
    }
}

/// libinput's open/close callbacks; the user data is the `LibinputSource`.
nonisolated(unsafe) private let libinputInterface: UnsafeMutablePointer<libinput_interface> = {
    let p = UnsafeMutablePointer<libinput_interface>.allocate(capacity: 1)
    p.initialize(
        to: libinput_interface(
            open_restricted: { path, flags, user in
                guard let path, let user else { return -EINVAL }
                let source = Unmanaged<LibinputSource>.fromOpaque(user).takeUnretainedValue()
                return source.openRestricted(String(cString: path), flags: flags)
            },
            close_restricted: { fd, _ in _ = close(fd) }
        ))
    return p
}()

/// libinput's log messages into the daemon's log (debug for libinput's info, warning for its errors).
private let libinputLog: clinux_log_callback = { user, priority, message in
    guard let user, let message else { return }
    let source = Unmanaged<LibinputSource>.fromOpaque(user).takeUnretainedValue()
    let text = "libinput: " + String(cString: message)
    if !source.clonesLeft.isEmpty, source.clonesLeft.contains(where: { text.contains("'\($0)'") }) {
        source.logger.debug("\(text)")
        return
    }
    switch priority {
    case 30...: source.logger.warning("\(text)")
    case 20..<30: source.logger.info("\(text)")
    default: source.logger.debug("\(text)")
    }
}

/// libinput calibration matrices for a panel's rotation and mirroring.
package enum Calibration {
    /// The matrix (row-major, 2x3, on 0..1 coordinates) that mirrors, then
    /// rotates clockwise: the same mapping `PanelGeometry` applies in replay.
    package static func matrix(rotation: Int, flipX: Bool, flipY: Bool) -> [Float] {
        // Mirror: u' = 1 - u and/or v' = 1 - v.
        let f: [Float] = [flipX ? -1 : 1, 0, flipX ? 1 : 0, 0, flipY ? -1 : 1, flipY ? 1 : 0]
        let r: [Float]
        switch rotation {
        case 90: r = [0, -1, 1, 1, 0, 0]
        case 180: r = [-1, 0, 1, 0, -1, 1]
        case 270: r = [0, 1, 0, -1, 0, 1]
        default: r = [1, 0, 0, 0, 1, 0]
        }
        // r · f, both as 3x3 with a last row 0 0 1.
        return [
            r[0] * f[0] + r[1] * f[3], r[0] * f[1] + r[1] * f[4], r[0] * f[2] + r[1] * f[5] + r[2],
            r[3] * f[0] + r[4] * f[3], r[3] * f[1] + r[4] * f[4], r[3] * f[2] + r[4] * f[5] + r[5],
        ]
    }

    /// The clockwise rotation a matrix makes, to the nearest quarter turn
    /// (a device's default matrix may come from udev's LIBINPUT_CALIBRATION_MATRIX).
    package static func rotation(of m: [Float]) -> Int {
        if abs(m[0]) >= abs(m[1]) { return m[0] >= 0 ? 0 : 180 }
        return m[1] < 0 ? 90 : 270
    }
}
