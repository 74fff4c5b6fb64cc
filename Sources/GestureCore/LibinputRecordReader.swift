/// Reads `libinput record` files (YAML, format version 1): each device's
/// `evdev:` block (name, id, codes, absinfo, properties) and its `events:`,
/// lists of `[sec, usec, type, code, value]`.
///
/// YAML is parsed by libyaml: the format is real YAML, hand-edited by people
/// filing bugs, and a hand-written subset parser would break on them. It is
/// read as a stream of events (`YAMLEvents`): a device's description is
/// read whole, its events one by one straight into the trace, so that
/// reading a recording takes little more memory than the trace it makes.
public enum LibinputRecordReader {
    /// True when the text looks like a libinput recording rather than evemu.
    public static func looksLikeRecording(_ text: String) -> Bool {
        for line in text.split(separator: "\n", maxSplits: 40) {
            let l = line.trimmingPrefixSpaces()
            if l.isEmpty || l.hasPrefix("#") { continue }
            return l.hasPrefix("version:") || l.hasPrefix("ndevices:") || l.hasPrefix("libinput:") || l.hasPrefix("devices:")
        }
        return false
    }

    /// The touch devices of a recording, each with its events. Devices
    /// without position axes (keyboards, buttons) are left out.
    public static func parse(_ text: String, file: String) throws(TraceError) -> [Trace] {
        do {
            return try readDocument(YAMLEvents(text), file: file)
        } catch let e as YAMLEvents.Failure {
            throw TraceError(file: file, line: e.line, "not valid YAML: \(e.problem)")
        } catch let e as NotRecording {
            throw e.error
        } catch {
            throw TraceError(file: file, line: 0, "\(error)")
        }
    }

    /// Valid YAML that is not a recording: what is wrong, and where.
    private struct NotRecording: Error {
        var error: TraceError
    }

    private static func readDocument(_ y: YAMLEvents, file: String) throws -> [Trace] {
        func fail(_ line: Int, _ message: String) -> NotRecording {
            NotRecording(error: TraceError(file: file, line: line, message))
        }
        guard try y.next().kind == .streamStart else { throw fail(0, "empty recording") }
        let document = try y.next()
        guard document.kind == .documentStart else { throw fail(0, "empty recording") }
        let top = try y.next()
        guard top.kind == .mappingStart else { throw fail(1, "not a libinput recording: expected a YAML mapping") }
        var traces: [Trace] = []
        var sawDevices = false
        while true {
            let k = try y.next()
            if k.kind == .mappingEnd { break }
            let key = try y.node(from: k).string
            let value = try y.next()
            switch key {
            case "version":
                let v = try y.node(from: value)
                if v.int != 1 {
                    throw fail(v.line, "unsupported libinput record version \(v.string ?? "?"); this reader knows version 1")
                }
            case "devices":
                guard value.kind == .sequenceStart else { throw fail(0, "no 'devices:' list: not a libinput recording") }
                sawDevices = true
                while true {
                    let d = try y.next()
                    if d.kind == .sequenceEnd { break }
                    if let trace = try readDevice(y, from: d, file: file, fail: fail) { traces.append(trace) }
                }
            default:
                try y.skip(from: value)
            }
        }
        guard sawDevices else { throw fail(0, "no 'devices:' list: not a libinput recording") }
        if traces.isEmpty {
            throw fail(0, "no touch device in this recording (none has ABS_MT_POSITION_X/Y or ABS_X/Y)")
        }
        return traces
    }

    /// One entry of `devices:`: its description, read whole, and its
    /// events, read one by one; nil for a device without position axes.
    private static func readDevice(
        _ y: YAMLEvents, from first: YAMLEvents.Event, file: String, fail: (Int, String) -> NotRecording
    ) throws -> Trace? {
        guard first.kind == .mappingStart else { throw fail(first.line, "device without an 'evdev:' block") }
        var evdev: YAMLNode?
        var events: [EvdevEvent] = []
        while true {
            let k = try y.next()
            if k.kind == .mappingEnd { break }
            let key = try y.node(from: k).string
            let value = try y.next()
            switch key {
            case "evdev": evdev = try y.node(from: value)
            case "events": try readEvents(y, from: value, into: &events, fail: fail)
            default: try y.skip(from: value)
            }
        }
        guard let evdev else { throw fail(first.line, "device without an 'evdev:' block") }
        var desc = DeviceDescription(name: evdev["name"]?.string ?? "unnamed device")
        if let id = evdev["id"]?.sequence {
            let v = id.map { UInt16(truncatingIfNeeded: $0.int ?? 0) }
            if v.count == 4 { (desc.bus, desc.vendor, desc.product, desc.version) = (v[0], v[1], v[2], v[3]) }
        }
        if let codes = evdev["codes"]?.mapping {
            for (k, v) in codes {
                guard let type = k.int, let list = v.sequence else {
                    throw fail(k.line, "'codes:' entries must be TYPE: [CODE, ...]")
                }
                desc.codes[UInt16(truncatingIfNeeded: type)] = Set(
                    list.compactMap { $0.int.map { UInt16(truncatingIfNeeded: $0) } })
            }
        }
        if let abs = evdev["absinfo"]?.mapping {
            for (k, v) in abs {
                guard let code = k.int, let a = v.sequence?.compactMap({ $0.int.map { Int32(truncatingIfNeeded: $0) } }),
                    a.count == 5
                else {
                    throw fail(k.line, "'absinfo:' entries must be CODE: [min, max, fuzz, flat, resolution]")
                }
                desc.absinfo[UInt16(truncatingIfNeeded: code)] = AbsInfo(
                    minimum: a[0], maximum: a[1], fuzz: a[2], flat: a[3], resolution: a[4])
            }
        }
        if let props = evdev["properties"]?.sequence {
            for p in props { if let v = p.int { desc.properties.insert(v) } }
        }
        guard desc.positionAxes != nil else { return nil }
        return Trace(file: file, device: desc, events: events)
    }

    /// `events:`: a list of frames, each `evdev: [[sec, usec, type, code,
    /// value], ...]` (or `libinput:` with --with-libinput, which carries no
    /// input and is let go by).
    private static func readEvents(
        _ y: YAMLEvents, from first: YAMLEvents.Event, into events: inout [EvdevEvent], fail: (Int, String) -> NotRecording
    ) throws {
        guard first.kind == .sequenceStart else { return try y.skip(from: first) }
        while true {
            let frame = try y.next()
            if frame.kind == .sequenceEnd { return }
            guard frame.kind == .mappingStart else {
                try y.skip(from: frame)
                continue
            }
            while true {
                let k = try y.next()
                if k.kind == .mappingEnd { break }
                let key = try y.node(from: k).string
                let value = try y.next()
                guard key == "evdev", value.kind == .sequenceStart else {
                    try y.skip(from: value)
                    continue
                }
                while true {
                    let item = try y.next()
                    if item.kind == .sequenceEnd { break }
                    let node = try y.node(from: item)
                    guard let v = node.sequence, v.count == 5, let sec = v[0].int, let usec = v[1].int, let type = v[2].int,
                        let code = v[3].int, let value = v[4].int
                    else {
                        throw fail(item.line, "an evdev event must be [sec, usec, type, code, value]")
                    }
                    guard sec >= 0, sec < 1 << 40, usec >= 0, usec < 1_000_000, (0...Int(Evdev.maxType)).contains(type),
                        (0...Int(Evdev.maxCode)).contains(code), value >= Int(Int32.min), value <= Int(Int32.max)
                    else {
                        throw fail(item.line, "event values out of range: [\(sec), \(usec), \(type), \(code), \(value)]")
                    }
                    events.append(
                        EvdevEvent(
                            time: Timestamp(seconds: Int64(sec), microseconds: Int64(usec)), type: UInt16(type),
                            code: UInt16(code), value: Int32(value), line: item.line))
                }
            }
        }
    }
}

extension Substring {
    func trimmingPrefixSpaces() -> Substring { drop(while: { $0 == " " || $0 == "\t" }) }
}
