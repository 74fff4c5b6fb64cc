/// Reads `libinput record` files (YAML, format version 1): each device's
/// `evdev:` block (name, id, codes, absinfo, properties) and its `events:`,
/// lists of `[sec, usec, type, code, value]`.
///
/// YAML is parsed by libyaml (`YAMLDocument`): the format is real YAML,
/// hand-edited by people filing bugs, and a hand-written subset parser would
/// break on them.
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
        let document: YAMLDocument
        do {
            document = try YAMLDocument(text)
        } catch {
            throw TraceError(file: file, line: error.line, "not valid YAML: \(error.problem)")
        }
        guard let root = document.root else { throw TraceError(file: file, line: 0, "empty recording") }
        guard root.mapping != nil else {
            throw TraceError(file: file, line: 1, "not a libinput recording: expected a YAML mapping")
        }
        if let v = root["version"], v.int != 1 {
            throw TraceError(
                file: file, line: line(v), "unsupported libinput record version \(v.string ?? "?"); this reader knows version 1")
        }
        guard let devices = root["devices"]?.sequence else {
            throw TraceError(file: file, line: 0, "no 'devices:' list: not a libinput recording")
        }
        var traces: [Trace] = []
        for dev in devices {
            guard let evdev = dev["evdev"] else {
                throw TraceError(file: file, line: line(dev), "device without an 'evdev:' block")
            }
            var desc = DeviceDescription(name: evdev["name"]?.string ?? "unnamed device")
            if let id = evdev["id"]?.sequence {
                let v = id.map { UInt16(truncatingIfNeeded: $0.int ?? 0) }
                if v.count == 4 { (desc.bus, desc.vendor, desc.product, desc.version) = (v[0], v[1], v[2], v[3]) }
            }
            if let codes = evdev["codes"]?.mapping {
                for (k, v) in codes {
                    guard let type = k.int, let list = v.sequence else {
                        throw TraceError(file: file, line: line(k), "'codes:' entries must be TYPE: [CODE, ...]")
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
                        throw TraceError(
                            file: file, line: line(k), "'absinfo:' entries must be CODE: [min, max, fuzz, flat, resolution]")
                    }
                    desc.absinfo[UInt16(truncatingIfNeeded: code)] = AbsInfo(
                        minimum: a[0], maximum: a[1], fuzz: a[2], flat: a[3], resolution: a[4])
                }
            }
            if let props = evdev["properties"]?.sequence {
                for p in props { if let v = p.int { desc.properties.insert(v) } }
            }
            guard desc.positionAxes != nil else { continue }
            var events: [EvdevEvent] = []
            for frame in dev["events"]?.sequence ?? [] {
                // Entries may also be `libinput:` (with --with-libinput); only `evdev:` carries input.
                guard let list = frame["evdev"]?.sequence else { continue }
                for item in list {
                    guard let v = item.sequence, v.count == 5, let sec = v[0].int, let usec = v[1].int, let type = v[2].int,
                        let code = v[3].int, let value = v[4].int
                    else {
                        throw TraceError(file: file, line: line(item), "an evdev event must be [sec, usec, type, code, value]")
                    }
                    guard sec >= 0, sec < 1 << 40, usec >= 0, usec < 1_000_000, (0...Int(Evdev.maxType)).contains(type),
                        (0...Int(Evdev.maxCode)).contains(code), value >= Int(Int32.min), value <= Int(Int32.max)
                    else {
                        throw TraceError(
                            file: file, line: line(item),
                            "event values out of range: [\(sec), \(usec), \(type), \(code), \(value)]")
                    }
                    events.append(
                        EvdevEvent(
                            time: Timestamp(seconds: Int64(sec), microseconds: Int64(usec)), type: UInt16(type),
                            code: UInt16(code),
                            value: Int32(value), line: line(item)))
                }
            }
            traces.append(Trace(file: file, device: desc, events: events))
        }
        if traces.isEmpty {
            throw TraceError(file: file, line: 0, "no touch device in this recording (none has ABS_MT_POSITION_X/Y or ABS_X/Y)")
        }
        return traces
    }

    private static func line(_ node: YAMLNode) -> Int { node.line }
}

extension Substring {
    func trimmingPrefixSpaces() -> Substring { drop(while: { $0 == " " || $0 == "\t" }) }
}
