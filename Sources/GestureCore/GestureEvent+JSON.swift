extension GestureEvent {
    /// The event as one line of JSON (no newline), the schema of docs/gestures.md ("Events"):
    /// the same in `replay --format jsonl`, on the socket, and in `monitor --json`.
    /// `deviceName` is the name of the event's device.
    ///
    /// Positions are rounded to 0.01 mm, fractions of the panel to 0.0001,
    /// velocities to 0.1 mm/s, scale and rotation to 0.0001.
    ///
    /// Written byte by byte into the new string's own storage: one allocation
    /// per event, no intermediate strings (docs/performance.md).
    public func jsonLine(deviceName: String) -> String {
        String(unsafeUninitializedCapacity: Self.jsonCapacity(deviceName: deviceName)) {
            encode(into: $0, name: .text(deviceName))
        }
    }

    /// The most bytes an event writes besides its device's name: its fixed
    /// text and numbers take under 420 bytes, a stroke's path under 680
    /// (32 points of two numbers of at most 7 characters).
    static let fixedBytes = 1100

    /// The most bytes `encodeJSON` writes for a device of this name:
    /// `fixedBytes`, and a name escapes to at most 6 bytes per byte.
    public static func jsonCapacity(deviceName: String) -> Int { fixedBytes + 6 * deviceName.utf8.count }

    /// Writes the event's JSON line (no newline) at the start of `buffer`,
    /// which holds at least `jsonCapacity(deviceName:)` bytes; returns how
    /// many it wrote. The daemon encodes each event once this way, into a
    /// buffer it keeps, and copies the bytes to every subscriber's outbox.
    public func encodeJSON(into buffer: inout [UInt8], deviceName: String) -> Int {
        precondition(buffer.count >= Self.jsonCapacity(deviceName: deviceName), "a buffer too small for the event")
        return buffer.withUnsafeMutableBufferPointer { encode(into: $0, name: .text(deviceName)) }
    }

    /// The same, with the device's name given as a JSON string already
    /// (quotes and escapes written, `quotedJSON(_:)`), as the daemon keeps
    /// it; `buffer` holds at least the name and `fixedBytes`.
    package func encodeJSON(into buffer: inout [UInt8], quotedDeviceName: [UInt8]) -> Int {
        precondition(buffer.count >= Self.fixedBytes + quotedDeviceName.count, "a buffer too small for the event")
        return buffer.withUnsafeMutableBufferPointer { out in
            quotedDeviceName.withUnsafeBufferPointer { encode(into: out, name: .quoted($0)) }
        }
    }

    /// `name` as a JSON string: in quotes, with its escapes.
    package static func quotedJSON(_ name: String) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 2 + 6 * name.utf8.count) { buffer, count in
            var w = JSONWriter(buffer)
            w.string(name)
            count = w.count
        }
    }

    private enum DeviceName {
        case text(String)
        case quoted(UnsafeBufferPointer<UInt8>)
    }

    private func encode(into buffer: UnsafeMutableBufferPointer<UInt8>, name: DeviceName) -> Int {
        var w = JSONWriter(buffer)
        w.raw(#"{"type":"gesture","gesture":""#)
        w.raw(gesture.jsonName)
        w.raw(#"","phase":""#)
        w.raw(phase.jsonName)
        w.raw(#"","id":"#)
        w.integer(id)
        w.raw(#","time_us":"#)
        w.integer(time.microseconds)
        w.raw(#","device":"#)
        switch name {
        case .text(let text): w.string(text)
        case .quoted(let bytes): w.bytes(bytes)
        }
        w.raw(#","fingers":"#)
        w.integer(fingers)
        w.field(#","x_mm":"#, x, decimals: 2)
        w.field(#","y_mm":"#, y, decimals: 2)
        w.field(#","x":"#, nx, decimals: 4)
        w.field(#","y":"#, ny, decimals: 4)
        if let direction {
            w.raw(#","direction":""#)
            w.raw(direction.jsonName)
            w.raw("\"")
        }
        if let distance { w.field(#","distance_mm":"#, distance, decimals: 2) }
        if let dx { w.field(#","dx_mm":"#, dx, decimals: 2) }
        if let dy { w.field(#","dy_mm":"#, dy, decimals: 2) }
        if let vx { w.field(#","vx_mm_s":"#, vx, decimals: 1) }
        if let vy { w.field(#","vy_mm_s":"#, vy, decimals: 1) }
        if let scale { w.field(#","scale":"#, scale, decimals: 4) }
        if let rotation { w.field(#","rotation":"#, rotation, decimals: 4) }
        if let deceleration { w.field(#","deceleration":"#, deceleration, decimals: 4) }
        if let taps {
            w.raw(#","taps":"#)
            w.integer(taps)
        }
        if let duration { w.field(#","duration_ms":"#, duration, decimals: 1) }
        if let heldMs {
            w.raw(#","held_ms":"#)
            w.integer(heldMs)
        }
        if let path {
            w.raw(#","path_mm":["#)
            for i in 0..<path.count {
                let p = path[i]
                w.raw(i == 0 ? "[" : ",[")
                w.number(p.x, decimals: 1)
                w.raw(",")
                w.number(p.y, decimals: 1)
                w.raw("]")
            }
            w.raw("]")
        }
        w.raw(#","edge":"#)
        if let edge {
            w.raw("\"")
            w.raw(edge.jsonName)
            w.raw("\"}")
        } else {
            w.raw("null}")
        }
        return w.count
    }
}

extension GestureEvent {
    /// Appends `value` as a JSON string literal (quotes and escapes), as events write names.
    package static func appendJSONString(_ value: String, to s: inout String) {
        s += String(unsafeUninitializedCapacity: 2 + 6 * value.utf8.count) { buffer in
            var w = JSONWriter(buffer)
            w.string(value)
            return w.count
        }
    }

    /// Appends a finite number rounded to 1/`scale` (a power of ten), or `null`, as events write numbers.
    package static func appendJSONNumber(_ value: Double, scale: Double, to s: inout String) {
        var decimals = 0
        var p = 1.0
        while p < scale && decimals < JSONWriter.maxDecimals {
            p *= 10
            decimals += 1
        }
        s += String(unsafeUninitializedCapacity: JSONWriter.numberCapacity) { buffer in
            var w = JSONWriter(buffer)
            w.number(value, decimals: decimals)
            return w.count
        }
    }
}

/// Writes the fixed event schema as JSON into a buffer the caller sized
/// (faster and lighter than a general encoder; the schema has no nesting).
/// Through a pointer rather than by appending to an array: `JSON.encode-event`
/// and `FanOut.subscribers-1` (`make bench`) take half again as long and more
/// with an array.
///
/// Numbers are rounded to a number of decimals and written as Swift's
/// `Double.description` writes the rounded value ("12.5", "0.0", "-3.25"),
/// without formatting a `Double`.
struct JSONWriter {
    static let maxDecimals = 6

    /// 10^p for p in 0...19, every power of ten a `UInt64` holds (a switch
    /// the compiler makes a table of: a global array is initialised lazily
    /// and checked at every read).
    @inline(__always) static func powerOfTen(_ p: Int) -> UInt64 {
        switch p {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1000
        case 4: 10000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        case 9: 1_000_000_000
        case 10: 10_000_000_000
        case 11: 100_000_000_000
        case 12: 1_000_000_000_000
        case 13: 10_000_000_000_000
        case 14: 100_000_000_000_000
        case 15: 1_000_000_000_000_000
        case 16: 10_000_000_000_000_000
        case 17: 100_000_000_000_000_000
        case 18: 1_000_000_000_000_000_000
        default: 10_000_000_000_000_000_000
        }
    }
    /// The most bytes `number` writes.
    static let numberCapacity = 32

    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    private mutating func byte(_ b: UInt8) {
        buffer[count] = b
        count += 1
    }

    /// Bytes copied as they are. Most are field names of 4 to 16 bytes:
    /// two words that overlap cover them, cheaper than a loop or `memcpy`.
    private mutating func copy(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        let n = bytes.count
        let target = UnsafeMutableRawPointer(buffer.baseAddress! + count)
        let from = UnsafeRawPointer(source)
        if n >= 8 && n <= 16 {
            target.storeBytes(of: from.loadUnaligned(as: UInt64.self), as: UInt64.self)
            (target + (n - 8)).storeBytes(of: (from + (n - 8)).loadUnaligned(as: UInt64.self), as: UInt64.self)
        } else if n >= 4 && n < 8 {
            target.storeBytes(of: from.loadUnaligned(as: UInt32.self), as: UInt32.self)
            (target + (n - 4)).storeBytes(of: (from + (n - 4)).loadUnaligned(as: UInt32.self), as: UInt32.self)
        } else if n < 4 {
            for i in 0..<n { target.storeBytes(of: source[i], toByteOffset: i, as: UInt8.self) }
        } else {
            target.copyMemory(from: from, byteCount: n)
        }
        count += n
    }

    /// The schema's fixed text, which needs no escaping. (A literal given
    /// to a method that also takes `String` becomes a `String`, built and
    /// released for each call: the two have different names.)
    mutating func raw(_ s: StaticString) {
        s.withUTF8Buffer { copy($0) }
    }

    /// Bytes that are JSON already.
    mutating func bytes(_ b: UnsafeBufferPointer<UInt8>) { copy(b) }

    /// An enum value or a number Swift wrote: text that needs no escaping.
    mutating func text(_ s: String) {
        var s = s
        s.withUTF8 { copy($0) }
    }

    mutating func field(_ name: StaticString, _ value: Double, decimals: Int) {
        raw(name)
        number(value, decimals: decimals)
    }

    mutating func integer(_ v: some BinaryInteger) {
        if v < 0 { byte(UInt8(ascii: "-")) }
        digits(UInt64(v.magnitude))
    }

    /// "00" to "99": two digits at a time halves the divisions.
    private static let digitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// How many decimal digits `v` has (1 for 0): a guess from its bit
    /// length (1233 / 4096 is just under log10 2), then one comparison.
    private static func width(_ v: UInt64) -> Int {
        let guess = ((64 - v.leadingZeroBitCount) &* 1233) >> 12
        return v < powerOfTen(guess) ? max(guess, 1) : guess + 1
    }

    /// The decimal digits of `v`.
    private mutating func digits(_ v: UInt64) {
        let width = Self.width(v)
        Self.write(v, width: width, at: buffer.baseAddress! + count)
        count += width
    }

    /// `v`'s last `width` digits into `target[0..<width]`, two at a time;
    /// returns what is left of `v`, `v / 10^width`.
    @discardableResult
    private static func write(_ v: UInt64, width: Int, at target: UnsafeMutablePointer<UInt8>) -> UInt64 {
        var n = v
        var i = width
        digitPairs.withUTF8Buffer { pairs in
            while i >= 2 {
                let pair = Int(truncatingIfNeeded: n % 100) &* 2
                n /= 100
                i &-= 2
                target[i] = pairs[pair]
                target[i &+ 1] = pairs[pair &+ 1]
            }
            if i == 1 {
                target[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: n % 10)
                n /= 10
            }
        }
        return n
    }

    /// A finite number rounded to `decimals` places; `null` for NaN and infinities.
    mutating func number(_ value: Double, decimals: Int) {
        guard value.isFinite else {
            raw("null")
            return
        }
        var places = min(max(decimals, 0), Self.maxDecimals)
        let scale = Self.powerOfTen(places)
        // The value in units of the last place kept.
        let scaled = Self.rounded(value * Double(scale))
        let magnitude = abs(scaled)
        // The digits of the rounded value are what Swift writes while a
        // Double's spacing at it is under a quarter of the last decimal place
        // (below 2^50 in units of it), and the value is 0 or at least 0.0001
        // (Swift writes smaller ones as "1e-05": only with 5 places or more
        // can a rounded value be that small). Beyond that, let Swift write it.
        guard magnitude < 1_125_899_906_842_624.0,
            places <= 4 || magnitude == 0 || magnitude >= Double(Self.powerOfTen(places &- 4))
        else {
            var r = scaled / Double(scale)
            if r == 0 { r = 0 }
            text(r.description)
            return
        }
        var u = UInt64(magnitude)
        // The fraction's trailing zeros go, but one digit stays ("2.0", as Swift writes it).
        while places > 1 && u % 10 == 0 {
            u /= 10
            places &-= 1
        }
        if scaled < 0 { byte(UInt8(ascii: "-")) }
        if places == 0 {
            digits(u)
            raw(".0")
            return
        }
        // From the right: the fraction's `places` digits (leading zeros
        // kept), the point, then what is left of `u`, the whole part (a
        // zero at least). No division of `u` by a variable power of ten.
        let whole = max(Self.width(u), places &+ 1) &- places
        let start = buffer.baseAddress! + count
        let rest = Self.write(u, width: places, at: start + whole + 1)
        start[whole] = UInt8(ascii: ".")
        Self.write(rest, width: whole, at: start)
        count &+= whole &+ 1 &+ places
    }

    /// `x` rounded to the nearest integer, halves away from zero, as
    /// `rounded()` gives it, without the call to libm's `round` it makes: for
    /// |x| < 2^52 the truncated value and the fraction are exact; beyond,
    /// every double is an integer already.
    @inline(__always) static func rounded(_ x: Double) -> Double {
        guard abs(x) < 4_503_599_627_370_496.0 else { return x }
        let whole = Double(Int64(x))
        let fraction = x - whole
        if fraction >= 0.5 { return whole + 1 }
        if fraction <= -0.5 { return whole - 1 }
        // -0.4 rounds to -0.0, as `rounded()` gives it.
        return whole == 0 ? (x < 0 ? -0.0 : 0.0) : whole
    }

    /// A JSON string literal: quotes, and escapes for quotes, backslashes and control characters.
    mutating func string(_ value: String) {
        byte(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in
            // Most names need no escape: copied whole.
            var plain = true
            for b in bytes where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                plain = false
                break
            }
            if plain {
                copy(bytes)
                return
            }
            for b in bytes {
                switch b {
                case UInt8(ascii: "\""): raw(#"\""#)
                case UInt8(ascii: "\\"): raw(#"\\"#)
                case UInt8(ascii: "\n"): raw(#"\n"#)
                case UInt8(ascii: "\r"): raw(#"\r"#)
                case UInt8(ascii: "\t"): raw(#"\t"#)
                case 0..<0x20:
                    raw(#"\u00"#)
                    byte(Self.hexDigits[Int(b >> 4)])
                    byte(Self.hexDigits[Int(b & 15)])
                default: byte(b)
                }
            }
        }
        byte(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}

extension GestureEvent {
    /// One readable line, in the manner of `libinput debug-events`:
    /// time relative to `origin`, gesture, phase, id, fingers, then the details.
    public func textLine(origin: Timestamp) -> String {
        let rel = Double((time - origin).microseconds) / 1_000_000
        var s = pad(NumberText.fixed(rel, 3) + "s", 10, left: true) + "  " + pad(gesture.rawValue, 15) + pad(phase.rawValue, 11)
        s += pad("#\(id)", 6) + "\(fingers)f"
        s += "  at " + NumberText.fixed(x, 1) + "," + NumberText.fixed(y, 1) + " mm"
        if let direction { s += "  " + direction.rawValue }
        if let distance { s += "  " + NumberText.fixed(distance, 1) + " mm" }
        if let dx, let dy, gesture != .flick, gesture != .swipe {
            s += "  Δ " + NumberText.fixed(dx, 1) + "," + NumberText.fixed(dy, 1)
        }
        if let vx, let vy {
            // A release velocity of zero: the fingers had stopped before they lifted.
            if vx == 0, vy == 0, phase == .recognized || phase == .ended {
                s += "  lifted at rest"
            } else {
                s += "  v " + NumberText.fixed(vx, 0) + "," + NumberText.fixed(vy, 0) + " mm/s"
            }
        }
        if let scale { s += "  scale " + NumberText.fixed(scale, 3) }
        if let rotation { s += "  rot " + NumberText.fixed(rotation * 180 / .pi, 1) + "°" }
        if let edge { s += "  edge " + edge.rawValue }
        if let heldMs { s += "  held \(heldMs) ms" }
        if let path { s += "  path of \(path.count) points, " + NumberText.fixed(path.length, 1) + " mm" }
        return s
    }

    /// "gesture fingers=N [direction=D] [edge=E]": what a recording's
    /// `.expect` file lists, one line per discrete gesture or ended continuous one.
    public var summary: String? {
        switch phase {
        case .recognized, .ended, .cancelled: break
        case .began, .changed: return nil
        }
        var s = gesture.rawValue
        if phase == .cancelled { s += " cancelled" }
        s += " fingers=\(fingers)"
        if let direction { s += " direction=\(direction.rawValue)" }
        if let edge { s += " edge=\(edge.rawValue)" }
        return s
    }
}

func pad(_ s: String, _ n: Int, left: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, n - s.count))
    return left ? fill + s : s + fill
}
