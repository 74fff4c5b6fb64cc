/// Reads `evemu-record` output: `#` comments, the `N: I: P: B: A:` device
/// header, and `E: sec.usec type code value` events (type and code in hex,
/// value in decimal).
///
/// The reader takes text, not files: the caller does the I/O, so GestureCore
/// stays free of it. An events-only file gets its device from a separate
/// description (`parseDescription`) passed as `device`.
public enum EvemuReader {
    /// The most bytes of bits a `B:` type or the `P:` lines may give (evdev's
    /// largest type, keys, has 768 codes; properties 32).
    static let maxCodeBytes = 96

    /// Parses a whole evemu file. `device` supplies the description when the
    /// file has no header of its own (an `.events` file beside a `.desc`).
    public static func parse(_ text: String, file: String, device: DeviceDescription? = nil) throws(TraceError) -> Trace {
        // The text's UTF-8 bytes in place: lines and fields are index ranges
        // into them, so reading allocates only the events array.
        var text = text
        let result = text.withUTF8 { bytes in
            Result { () throws(TraceError) -> Trace in try parse(bytes: bytes, file: file, device: device) }
        }
        return try result.get()
    }

    /// A line or a field: a range of the text's bytes.
    typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>

    private static func parse(
        bytes: UnsafeBufferPointer<UInt8>, file: String, device: DeviceDescription?
    ) throws(TraceError) -> Trace {
        var desc = DeviceDescription(name: "")
        var sawHeader = false
        var events: [EvdevEvent] = []
        events.reserveCapacity(bytes.count / 28)
        var lineNumber = 0
        var bitsByType: [UInt16: [UInt8]] = [:]
        var props: [UInt8] = []
        var next = 0
        while next < bytes.count {
            let start = next
            var stop = start
            while stop < bytes.count && bytes[stop] != UInt8(ascii: "\n") { stop += 1 }
            next = stop + 1
            lineNumber += 1
            var line = bytes[start..<stop]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard let first = line.first else { continue }
            if first == UInt8(ascii: "#") {
                if let size = sizeComment(line) { desc.commentSize = size }
                continue
            }
            guard line.count >= 2, line[line.index(after: line.startIndex)] == UInt8(ascii: ":") else {
                if line.allSatisfy({ $0 == 32 || $0 == 9 }) { continue }
                throw TraceError(
                    file: file, line: lineNumber,
                    "not an evemu line (expected 'E:', 'N:', 'I:', 'P:', 'B:', 'A:' or '#'): \(preview(line))")
            }
            let rest = line.dropFirst(2)
            switch first {
            case UInt8(ascii: "E"):
                events.append(try parseEvent(rest, file: file, line: lineNumber))
            case UInt8(ascii: "N"):
                sawHeader = true
                desc.name = String(decoding: rest, as: UTF8.self).trimmingSpaces()
            case UInt8(ascii: "I"):
                sawHeader = true
                let f = fields(rest)
                guard f.count == 4, let bus = UInt16(f[0], radix: 16), let ven = UInt16(f[1], radix: 16),
                    let pro = UInt16(f[2], radix: 16), let ver = UInt16(f[3], radix: 16)
                else {
                    throw TraceError(file: file, line: lineNumber, "'I:' needs four hex numbers: bus vendor product version")
                }
                (desc.bus, desc.vendor, desc.product, desc.version) = (bus, ven, pro, ver)
            case UInt8(ascii: "P"):
                sawHeader = true
                props += try hexBytes(fields(rest), file: file, line: lineNumber)
                if props.count > Self.maxCodeBytes {
                    throw TraceError(
                        file: file, line: lineNumber,
                        "'P:' lines give more than \(Self.maxCodeBytes) bytes of properties; evdev has 32 properties")
                }
            case UInt8(ascii: "B"):
                sawHeader = true
                let f = fields(rest)
                guard let typeText = f.first, let type = UInt8(typeText, radix: 16) else {
                    throw TraceError(file: file, line: lineNumber, "'B:' needs an event type in hex, then bitmask bytes")
                }
                bitsByType[UInt16(type), default: []] += try hexBytes(Array(f.dropFirst()), file: file, line: lineNumber)
                // The kernel has at most 768 codes of a type (KEY_CNT): 96 bytes of bits.
                if bitsByType[UInt16(type), default: []].count > Self.maxCodeBytes {
                    throw TraceError(
                        file: file, line: lineNumber,
                        "'B:' lines for event type \(typeText) give more than \(Self.maxCodeBytes) bytes of codes; evdev has at most \(Self.maxCodeBytes * 8) codes of a type"
                    )
                }
            case UInt8(ascii: "A"):
                sawHeader = true
                let f = fields(rest)
                guard f.count >= 5, let code = UInt16(f[0], radix: 16), let mn = Int32(f[1]), let mx = Int32(f[2]),
                    let fuzz = Int32(f[3]), let flat = Int32(f[4])
                else {
                    throw TraceError(file: file, line: lineNumber, "'A:' needs: code (hex) min max fuzz flat [resolution]")
                }
                let res = f.count > 5 ? Int32(f[5]) ?? 0 : 0
                desc.absinfo[code] = AbsInfo(minimum: mn, maximum: mx, fuzz: fuzz, flat: flat, resolution: res)
            case UInt8(ascii: "L"), UInt8(ascii: "S"):
                continue  // LED and switch state: not needed for touch.
            default:
                throw TraceError(
                    file: file, line: lineNumber,
                    "unknown evemu line type '\(Character(Unicode.Scalar(first)))': \(preview(line))")
            }
        }
        for (i, byte) in props.enumerated() {
            for bit in 0..<8 where byte & (1 << bit) != 0 { desc.properties.insert(i * 8 + bit) }
        }
        for (type, bytes) in bitsByType {
            var set = Set<UInt16>()
            for (i, byte) in bytes.enumerated() {
                for bit in 0..<8 where byte & (1 << bit) != 0 { set.insert(UInt16(i * 8 + bit)) }
            }
            desc.codes[type] = set
        }
        let resolved: DeviceDescription
        if sawHeader {
            if desc.codes[Evdev.EV_ABS] == nil && !desc.absinfo.isEmpty { desc.codes[Evdev.EV_ABS] = Set(desc.absinfo.keys) }
            resolved = desc
        } else if let given = device {
            resolved = given
        } else {
            throw TraceError(
                file: file, line: 0,
                "no device description: this file has only events. Pass --desc FILE (an evemu description) or put NAME.desc beside it"
            )
        }
        if resolved.positionAxes == nil {
            throw TraceError(
                file: file, line: 0,
                "device '\(resolved.name)' has no position axes (ABS_MT_POSITION_X/Y or ABS_X/Y): not a touchscreen this reader understands"
            )
        }
        return Trace(file: file, device: resolved, events: events)
    }

    /// Parses a description file (`.desc`): a header with no events.
    public static func parseDescription(_ text: String, file: String) throws(TraceError) -> DeviceDescription {
        try parse(text, file: file).device
    }

    // MARK: - Pieces

    /// `E: 1330495944.185030 0003 0039 1`
    static func parseEvent(_ s: Bytes, file: String, line: Int) throws(TraceError) -> EvdevEvent {
        var i = s.startIndex
        let end = s.endIndex
        func skipSpaces() { while i < end, s[i] == 32 || s[i] == 9 { i = s.index(after: i) } }
        func decimal() -> (Int64, digits: Int)? {
            var v: Int64 = 0
            var n = 0
            var negative = false
            if i < end, s[i] == UInt8(ascii: "-") {
                negative = true
                i = s.index(after: i)
            }
            while i < end, s[i] >= 48, s[i] <= 57 {
                let (m, o1) = v.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(Int64(s[i] - 48))
                if o1 || o2 { return nil }
                v = a
                n += 1
                i = s.index(after: i)
            }
            return n == 0 ? nil : (negative ? -v : v, n)
        }
        func hex() -> UInt32? {
            var v: UInt32 = 0
            var n = 0
            while i < end, let d = hexDigit(s[i]) {
                if n >= 8 { return nil }
                v = v << 4 | UInt32(d)
                n += 1
                i = s.index(after: i)
            }
            return n == 0 ? nil : v
        }
        skipSpaces()
        guard let (sec, _) = decimal(), sec >= 0, i < end, s[i] == UInt8(ascii: ".") else {
            throw TraceError(file: file, line: line, "bad event time: expected 'E: SECONDS.MICROSECONDS TYPE CODE VALUE'")
        }
        i = s.index(after: i)
        guard let (usec, _) = decimal(), usec >= 0, usec < 1_000_000 else {
            throw TraceError(file: file, line: line, "bad event time: microseconds must be 0..999999")
        }
        skipSpaces()
        guard let type = hex(), type <= UInt32(Evdev.maxType) else {
            throw TraceError(file: file, line: line, "bad event type: expected a hex number up to 1f (EV_MAX)")
        }
        skipSpaces()
        guard let code = hex(), code <= UInt32(Evdev.maxCode) else {
            throw TraceError(file: file, line: line, "bad event code: expected a hex number up to 2ff")
        }
        skipSpaces()
        guard let (value, _) = decimal(), value >= Int64(Int32.min), value <= Int64(Int32.max) else {
            throw TraceError(file: file, line: line, "bad event value: expected a 32-bit decimal number")
        }
        skipSpaces()
        // evemu 2 writes a comment naming the event after it: "\t# EV_ABS / ABS_X 361".
        guard i == end || s[i] == UInt8(ascii: "#") else {
            throw TraceError(file: file, line: line, "unexpected text after the event value")
        }
        guard sec < 1 << 40 else {
            throw TraceError(file: file, line: line, "event time out of range")
        }
        return EvdevEvent(
            time: Timestamp(seconds: sec, microseconds: usec), type: UInt16(type), code: UInt16(code), value: Int32(value),
            line: line)
    }

    static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 97...102: c - 87
        case 65...70: c - 55
        default: nil
        }
    }

    static func hexBytes(_ f: [String], file: String, line: Int) throws(TraceError) -> [UInt8] {
        var out: [UInt8] = []
        for t in f {
            guard let b = UInt8(t, radix: 16) else { throw TraceError(file: file, line: line, "'\(t)' is not a hex byte") }
            out.append(b)
        }
        return out
    }

    static func fields(_ s: Bytes) -> [String] {
        String(decoding: s, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }

    /// `# Size in mm: 97x64`
    static func sizeComment(_ line: Bytes) -> (Double, Double)? {
        let s = String(decoding: line, as: UTF8.self)
        guard let r = s.range(of: "Size in mm:") else { return nil }
        return parseSize(String(s[r.upperBound...]))
    }

    static func preview(_ line: Bytes) -> String {
        let s = String(decoding: line.prefix(60), as: UTF8.self)
        return "'" + s + (line.count > 60 ? "…'" : "'")
    }
}

/// Parses "WxH" in mm ("277x156", "277.5x156"); nil unless both are positive.
public func parseSize(_ text: String) -> (width: Double, height: Double)? {
    let parts = text.trimmingSpaces().lowercased().split(separator: "x")
    guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]),
        PanelGeometry.physical.contains(w), PanelGeometry.physical.contains(h)
    else {
        return nil
    }
    return (w, h)
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" || f == "\n" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" || l == "\n" { s = s.dropLast() }
        return String(s)
    }

    func range(of needle: String) -> Range<String.Index>? {
        guard !needle.isEmpty, needle.count <= count else { return nil }
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(needle) { return i..<index(i, offsetBy: needle.count) }
            i = index(after: i)
        }
        return nil
    }
}
