/// Writes traces in the evemu format `EvemuReader` reads: a description
/// header, then one `E:` line per event.
public enum EvemuWriter {
    /// The `N: I: P: B: A:` header of a description.
    public static func description(_ d: DeviceDescription) -> String {
        var s = "# EVEMU 1.3\n# Input device name: \"\(d.name)\"\n"
        s += "N: \(d.name)\n"
        s += "I: \(hex4(d.bus)) \(hex4(d.vendor)) \(hex4(d.product)) \(hex4(d.version))\n"
        var props = [UInt8](repeating: 0, count: 8)
        for p in d.properties where p < 64 { props[p / 8] |= 1 << UInt8(p % 8) }
        s += "P: " + props.map(hex2).joined(separator: " ") + "\n"
        for type in d.codes.keys.sorted() {
            let codes = d.codes[type]!
            let maxCode = Int(codes.max() ?? 0)
            var bytes = [UInt8](repeating: 0, count: max(8, (maxCode / 64 + 1) * 8))
            for c in codes { bytes[Int(c) / 8] |= 1 << UInt8(c % 8) }
            for chunk in stride(from: 0, to: bytes.count, by: 8) {
                s += "B: " + hex2(UInt8(type)) + " " + bytes[chunk..<chunk + 8].map(hex2).joined(separator: " ") + "\n"
            }
        }
        for code in d.absinfo.keys.sorted() {
            let a = d.absinfo[code]!
            s += "A: \(hex2(UInt8(truncatingIfNeeded: code))) \(a.minimum) \(a.maximum) \(a.fuzz) \(a.flat) \(a.resolution)\n"
        }
        return s
    }

    /// One `E:` line.
    public static func line(_ e: EvdevEvent) -> String {
        let sec = e.time.microseconds / 1_000_000
        let usec = e.time.microseconds % 1_000_000
        let u = String(usec)
        return "E: \(sec).\(String(repeating: "0", count: 6 - u.count))\(u) \(hex4(e.type)) \(hex4(e.code)) \(e.value)\n"
    }

    /// A whole trace: header and events.
    public static func trace(_ d: DeviceDescription, events: [EvdevEvent]) -> String {
        var s = description(d)
        for e in events { s += line(e) }
        return s
    }
}

func hex2(_ v: UInt8) -> String {
    let s = String(v, radix: 16)
    return s.count == 1 ? "0" + s : s
}
