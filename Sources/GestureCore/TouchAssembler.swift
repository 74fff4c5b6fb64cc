/// Turns a device's evdev events into `TouchFrame`s in millimetres.
///
/// Handles multitouch protocol B (slots, `ABS_MT_TRACKING_ID` -1 lifts),
/// protocol A (`SYN_MT_REPORT`, contacts matched frame to frame by tracking id
/// or by nearest position), and single-touch panels (`ABS_X/Y` + `BTN_TOUCH`).
/// What a real device can produce (time going backwards, `SYN_DROPPED`, more
/// contacts than slots) becomes a warning and a recovery; what none can (an
/// impossible slot number) is an error naming the line.
public struct TouchAssembler: Sendable {
    public enum MTProtocol: String, Sendable {
        case slots = "multitouch B"
        case protocolA = "multitouch A"
        case single = "single touch"
    }

    public let mode: MTProtocol
    public let device: DeviceID
    public let file: String
    public var geometry: PanelGeometry
    public private(set) var warnings: [TraceWarning] = []

    private struct Slot: Sendable {
        var trackingID: Int32 = -1
        var rawX: Int32 = 0
        var rawY: Int32 = 0
        /// `ABS_MT_TOUCH_MAJOR`, device units (0: not reported).
        var major: Int32 = 0
        /// Reported down to the pipeline.
        var active = false
        var moved = false
        var palm = false
        var ignored = false
        /// A new tracking id arrived while the slot's contact was down: that
        /// contact ended (at `liftX`, `liftY`) and a new one began.
        var replaced = false
        var liftX: Int32 = 0
        var liftY: Int32 = 0
    }

    private var slots: InlineArray<16, Slot> = .init(repeating: Slot())
    private let slotLimit: Int
    private var currentSlot = 0
    private var lastTime: Timestamp = .zero
    private var lastRawTime: Timestamp = .zero
    private var dropping = false
    private var warnedBackwards = 0
    private var warnedCapacity = false
    // Protocol A: the contacts of the frame being read.
    private var pendingA: [(x: Int32, y: Int32, id: Int32?)] = []
    private var partX: Int32?
    private var partY: Int32?
    private var partID: Int32?
    // Single touch.
    private var touchDown = false
    private var touchChanged = false

    public init(description: DeviceDescription, geometry: PanelGeometry, device: DeviceID, file: String) {
        self.device = device
        self.file = file
        self.geometry = geometry
        if description.hasSlots && description.hasMultitouch {
            mode = .slots
            slotLimit = description.slotCount
        } else if description.hasMultitouch {
            mode = .protocolA
            slotLimit = TouchFrame.capacity
        } else {
            mode = .single
            slotLimit = 1
        }
        pendingA.reserveCapacity(TouchFrame.capacity)
    }

    /// The physical size a description implies, in the documented order:
    /// the caller's size (command line or configuration), the axes' resolution,
    /// evemu's "Size in mm" comment, then the fallback.
    public static func geometry(
        for d: DeviceDescription, size: (width: Double, height: Double)?, source: SizeSource
    )
        -> PanelGeometry?
    {
        guard let axes = d.positionAxes else { return nil }
        if let size {
            return PanelGeometry(
                minX: axes.x.minimum, maxX: axes.x.maximum, minY: axes.y.minimum, maxY: axes.y.maximum,
                width: size.width, height: size.height, source: source)
        }
        if let g = PanelGeometry.fromResolution(
            minX: axes.x.minimum, maxX: axes.x.maximum, resX: axes.x.resolution,
            minY: axes.y.minimum, maxY: axes.y.maximum, resY: axes.y.resolution)
        {
            return g
        }
        if let c = d.commentSize, c.width > 0, c.height > 0 {
            return PanelGeometry(
                minX: axes.x.minimum, maxX: axes.x.maximum, minY: axes.y.minimum, maxY: axes.y.maximum,
                width: c.width, height: c.height, source: .resolution)
        }
        return PanelGeometry.fallback(minX: axes.x.minimum, maxX: axes.x.maximum, minY: axes.y.minimum, maxY: axes.y.maximum)
    }

    /// Feeds one event; returns a frame at `SYN_REPORT` when contacts changed.
    public mutating func feed(_ e: EvdevEvent) throws(TraceError) -> TouchFrame? {
        var time = e.time
        if e.time < lastRawTime {
            if warnedBackwards < 3 {
                warn(e.line, "time goes backwards (\(e.time) after \(lastRawTime)); using \(lastTime) until it passes that")
            } else if warnedBackwards == 3 {
                warn(e.line, "time goes backwards again; further occurrences are not reported")
            }
            warnedBackwards += 1
        }
        lastRawTime = e.time
        if time < lastTime { time = lastTime }
        lastTime = time
        if dropping {
            if e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT { dropping = false }
            return nil
        }
        switch e.type {
        case Evdev.EV_SYN:
            switch e.code {
            case Evdev.SYN_REPORT: return endFrame(time: time)
            case Evdev.SYN_MT_REPORT: endContactA()
            case Evdev.SYN_DROPPED:
                warn(e.line, "SYN_DROPPED: the kernel dropped events; skipping to the next SYN_REPORT")
                dropping = true
            default: break
            }
        case Evdev.EV_ABS:
            try abs(e)
        case Evdev.EV_KEY where e.code == Evdev.BTN_TOUCH && mode == .single:
            let down = e.value != 0
            if down != touchDown {
                touchDown = down
                touchChanged = true
            }
        default:
            break
        }
        return nil
    }

    /// Records an EV_ABS event into the slot or contact being assembled.
    private mutating func abs(_ e: EvdevEvent) throws(TraceError) {
        switch mode {
        case .slots:
            switch e.code {
            case Evdev.ABS_MT_SLOT:
                guard e.value >= 0, Int(e.value) < max(slotLimit, 1) else {
                    throw TraceError(
                        file: file, line: e.line,
                        "ABS_MT_SLOT \(e.value) is outside the device's slots 0...\(max(slotLimit, 1) - 1)")
                }
                currentSlot = Int(e.value)
            case Evdev.ABS_MT_TRACKING_ID, Evdev.ABS_MT_POSITION_X, Evdev.ABS_MT_POSITION_Y, Evdev.ABS_MT_TOOL_TYPE,
                Evdev.ABS_MT_TOUCH_MAJOR:
                guard currentSlot < TouchFrame.capacity else {
                    if !warnedCapacity {
                        warnedCapacity = true
                        warn(e.line, "more than \(TouchFrame.capacity) touches at once; the extra ones are ignored")
                    }
                    return
                }
                switch e.code {
                case Evdev.ABS_MT_TRACKING_ID:
                    let old = slots.span[currentSlot]
                    if e.value >= 0 && old.trackingID >= 0 && e.value != old.trackingID && old.active && !old.replaced {
                        slots[currentSlot].replaced = true
                        slots[currentSlot].liftX = old.rawX
                        slots[currentSlot].liftY = old.rawY
                    }
                    slots[currentSlot].trackingID = e.value
                case Evdev.ABS_MT_POSITION_X:
                    slots[currentSlot].rawX = e.value
                    slots[currentSlot].moved = true
                case Evdev.ABS_MT_POSITION_Y:
                    slots[currentSlot].rawY = e.value
                    slots[currentSlot].moved = true
                case Evdev.ABS_MT_TOUCH_MAJOR:
                    slots[currentSlot].major = e.value
                    slots[currentSlot].moved = true
                default:
                    slots[currentSlot].palm = e.value == Evdev.MT_TOOL_PALM
                }
            default:
                break
            }
        case .protocolA:
            switch e.code {
            case Evdev.ABS_MT_POSITION_X: partX = e.value
            case Evdev.ABS_MT_POSITION_Y: partY = e.value
            case Evdev.ABS_MT_TRACKING_ID: partID = e.value
            default: break
            }
        case .single:
            switch e.code {
            case Evdev.ABS_X:
                slots[0].rawX = e.value
                slots[0].moved = true
            case Evdev.ABS_Y:
                slots[0].rawY = e.value
                slots[0].moved = true
            default: break
            }
        }
    }

    private mutating func endContactA() {
        defer {
            partX = nil
            partY = nil
            partID = nil
        }
        guard let x = partX, let y = partY else { return }
        if let id = partID, id < 0 { return }
        pendingA.append((x, y, partID))
    }

    private mutating func endFrame(time: Timestamp) -> TouchFrame? {
        var frame = TouchFrame(device: device, time: time)
        switch mode {
        case .slots: slotsFrame(&frame)
        case .protocolA: protocolAFrame(&frame)
        case .single: singleFrame(&frame)
        }
        return frame.isEmpty ? nil : frame
    }

    private func mm(_ s: Slot) -> (x: Double, y: Double) { geometry.millimetres(rawX: s.rawX, rawY: s.rawY) }

    /// A slot's touch major in mm: the kernel's multitouch protocol gives it
    /// in surface units, the position axes' own, so it scales as X does
    /// (`PanelGeometry.millimetres`: a unit is the side over the axis's values).
    private func size(_ s: Slot) -> Double {
        guard s.major > 0 else { return 0 }
        return Double(s.major) * geometry.width / Double(max(1, Int64(geometry.maxX) - Int64(geometry.minX) + 1))
    }

    private mutating func slotsFrame(_ frame: inout TouchFrame) {
        for i in 0..<min(slotLimit, TouchFrame.capacity) {
            var s = slots.span[i]
            let p = mm(s)
            if s.replaced {
                // One contact lifted and another landed in this slot (protocol B:
                // a new tracking id is a new contact, with or without a -1 between).
                s.replaced = false
                if s.active {
                    let q = geometry.millimetres(rawX: s.liftX, rawY: s.liftY)
                    frame.append(Contact(slot: i, phase: .up, x: q.x, y: q.y))
                    s.active = false
                }
            }
            if s.active && (s.trackingID < 0 || s.palm) {
                // Lifted, or turned into a palm: libinput cancels a palm touch.
                frame.append(Contact(slot: i, phase: s.palm ? .cancel : .up, x: p.x, y: p.y))
                s.active = false
                s.ignored = s.palm && s.trackingID >= 0
            } else if !s.active && s.trackingID >= 0 && !s.palm && !s.ignored {
                frame.append(Contact(slot: i, phase: .down, x: p.x, y: p.y, size: size(s)))
                s.active = true
            } else if s.active && s.moved {
                frame.append(Contact(slot: i, phase: .move, x: p.x, y: p.y, size: size(s)))
            }
            if s.trackingID < 0 { s.ignored = false }
            s.moved = false
            slots[i] = s
        }
    }

    private mutating func protocolAFrame(_ frame: inout TouchFrame) {
        endContactA()
        if pendingA.count > TouchFrame.capacity {
            if !warnedCapacity {
                warnedCapacity = true
                warn(0, "more than \(TouchFrame.capacity) touches at once; the extra ones are ignored")
            }
            pendingA.removeLast(pendingA.count - TouchFrame.capacity)
        }
        // Match each active slot to this frame's contacts: by tracking id when
        // the device sends one, else by position, the closest slot and contact
        // first. (Matching slot by slot, a lifted finger's slot would claim
        // the only contact left when it is nearer than nothing, and a finger
        // that stayed still would jump to where the lifted one was.)
        var claimed: InlineArray<16, Bool> = .init(repeating: false)
        var slotFor: InlineArray<16, Int> = .init(repeating: -1)
        var slotTaken: InlineArray<16, Bool> = .init(repeating: false)
        let useIDs = pendingA.contains { $0.id != nil }
        if useIDs {
            for s in 0..<TouchFrame.capacity where slots.span[s].active {
                for (k, c) in pendingA.enumerated() where !claimed[k] && c.id == slots.span[s].trackingID {
                    claimed[k] = true
                    slotFor[k] = s
                    break
                }
            }
        } else {
            while true {
                var best = (slot: -1, contact: -1, d: Int64.max)
                for s in 0..<TouchFrame.capacity where slots.span[s].active && !slotTaken[s] {
                    for (k, c) in pendingA.enumerated() where !claimed[k] {
                        let dx = Int64(c.x) - Int64(slots.span[s].rawX)
                        let dy = Int64(c.y) - Int64(slots.span[s].rawY)
                        let d = dx * dx + dy * dy
                        if d < best.d { best = (s, k, d) }
                    }
                }
                guard best.slot >= 0 else { break }
                claimed[best.contact] = true
                slotTaken[best.slot] = true
                slotFor[best.contact] = best.slot
            }
        }
        for s in 0..<TouchFrame.capacity where slots.span[s].active {
            var kept = false
            for k in 0..<pendingA.count where slotFor[k] == s { kept = true }
            if !kept {
                let p = mm(slots.span[s])
                frame.append(Contact(slot: s, phase: .up, x: p.x, y: p.y))
                slots[s].active = false
            }
        }
        for (k, c) in pendingA.enumerated() {
            if slotFor[k] >= 0 {
                let s = slotFor[k]
                if c.x != slots.span[s].rawX || c.y != slots.span[s].rawY {
                    slots[s].rawX = c.x
                    slots[s].rawY = c.y
                    let p = mm(slots.span[s])
                    frame.append(Contact(slot: s, phase: .move, x: p.x, y: p.y))
                }
            } else if let s = (0..<TouchFrame.capacity).first(where: { !slots.span[$0].active }) {
                slots[s] = Slot(trackingID: c.id ?? 0, rawX: c.x, rawY: c.y, active: true)
                let p = mm(slots.span[s])
                frame.append(Contact(slot: s, phase: .down, x: p.x, y: p.y))
            }
        }
        pendingA.removeAll(keepingCapacity: true)
    }

    private mutating func singleFrame(_ frame: inout TouchFrame) {
        let p = mm(slots.span[0])
        if touchChanged {
            frame.append(Contact(slot: 0, phase: touchDown ? .down : .up, x: p.x, y: p.y))
            slots[0].active = touchDown
        } else if slots.span[0].active && slots.span[0].moved {
            frame.append(Contact(slot: 0, phase: .move, x: p.x, y: p.y))
        }
        touchChanged = false
        slots[0].moved = false
    }

    /// The most warnings kept: a trace that warns at every frame (a
    /// `SYN_DROPPED` in each) says so this many times, then once that it goes on.
    static let warningLimit = 100

    private mutating func warn(_ line: Int, _ message: String) {
        if warnings.count < Self.warningLimit {
            warnings.append(TraceWarning(file: file, line: line, message: message))
        } else if warnings.count == Self.warningLimit {
            warnings.append(TraceWarning(file: file, line: line, message: "more warnings follow; they are not reported"))
        }
    }
}
