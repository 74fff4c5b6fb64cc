extension GestureEvent {
    /// The event as one line of JSON (no newline), the schema of `GESTURES.md`:
    /// the same in `replay --format jsonl`, on the socket, and in `monitor --json`.
    ///
    /// Positions are rounded to 0.01 mm, fractions of the panel to 0.0001,
    /// velocities to 0.1 mm/s, scale and rotation to 0.0001.
    public var jsonLine: String {
        var s = ""
        s.reserveCapacity(360)
        s += #"{"type":"gesture","gesture":""#
        s += gesture.rawValue
        s += #"","phase":""#
        s += phase.rawValue
        s += #"","id":"#
        s += String(id)
        s += #","time_us":"#
        s += String(time.microseconds)
        s += #","device":"#
        JSON.appendString(deviceName, to: &s)
        s += #","fingers":"#
        s += String(fingers)
        JSON.field("x_mm", x, 100, &s)
        JSON.field("y_mm", y, 100, &s)
        JSON.field("x", nx, 10_000, &s)
        JSON.field("y", ny, 10_000, &s)
        if let direction {
            s += #","direction":""#
            s += direction.rawValue
            s += "\""
        }
        if let distance { JSON.field("distance_mm", distance, 100, &s) }
        if let dx { JSON.field("dx_mm", dx, 100, &s) }
        if let dy { JSON.field("dy_mm", dy, 100, &s) }
        if let vx { JSON.field("vx_mm_s", vx, 10, &s) }
        if let vy { JSON.field("vy_mm_s", vy, 10, &s) }
        if let scale { JSON.field("scale", scale, 10_000, &s) }
        if let rotation { JSON.field("rotation", rotation, 10_000, &s) }
        if let deceleration { JSON.field("deceleration", deceleration, 10_000, &s) }
        if let taps {
            s += #","taps":"#
            s += String(taps)
        }
        if let duration { JSON.field("duration_ms", duration, 10, &s) }
        s += #","edge":"#
        if let edge {
            s += "\""
            s += edge.rawValue
            s += "\""
        } else {
            s += "null"
        }
        s += "}"
        return s
    }
}

extension GestureEvent {
    /// Appends `value` as a JSON string literal (quotes and escapes), as events write names.
    package static func appendJSONString(_ value: String, to s: inout String) { JSON.appendString(value, to: &s) }

    /// Appends a finite number rounded to 1/`scale`, or `null`, as events write numbers.
    package static func appendJSONNumber(_ value: Double, scale: Double, to s: inout String) {
        JSON.appendNumber(value, scale: scale, to: &s)
    }
}

/// Minimal JSON writing for the fixed event schema (faster and lighter than a
/// general encoder; the schema has no nesting).
enum JSON {
    static func field(_ name: String, _ value: Double, _ scale: Double, _ s: inout String) {
        s += ",\""
        s += name
        s += "\":"
        appendNumber(value, scale: scale, to: &s)
    }

    /// A finite number rounded to 1/scale; `null` for NaN and infinities.
    static func appendNumber(_ value: Double, scale: Double, to s: inout String) {
        guard value.isFinite else {
            s += "null"
            return
        }
        var r = (value * scale).rounded() / scale
        if r == 0 { r = 0 }  // no "-0.0"
        s += r.description
    }

    static func appendString(_ value: String, to s: inout String) {
        s += "\""
        for u in value.unicodeScalars {
            switch u {
            case "\"": s += "\\\""
            case "\\": s += "\\\\"
            case "\n": s += "\\n"
            case "\r": s += "\\r"
            case "\t": s += "\\t"
            default:
                if u.value < 0x20 {
                    let h = String(u.value, radix: 16)
                    s += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    s.unicodeScalars.append(u)
                }
            }
        }
        s += "\""
    }
}

extension GestureEvent {
    /// One readable line, in the manner of `libinput debug-events`:
    /// time relative to `origin`, gesture, phase, id, fingers, then the details.
    public func textLine(origin: Timestamp) -> String {
        let rel = Double((time - origin).microseconds) / 1_000_000
        var s = pad(fixed(rel, 3) + "s", 10, left: true) + "  " + pad(gesture.rawValue, 15) + pad(phase.rawValue, 11)
        s += pad("#\(id)", 6) + "\(fingers)f"
        s += "  at " + fixed(x, 1) + "," + fixed(y, 1) + " mm"
        if let direction { s += "  " + direction.rawValue }
        if let distance { s += "  " + fixed(distance, 1) + " mm" }
        if let dx, let dy, gesture != .flick, gesture != .swipe { s += "  Δ " + fixed(dx, 1) + "," + fixed(dy, 1) }
        if let vx, let vy { s += "  v " + fixed(vx, 0) + "," + fixed(vy, 0) + " mm/s" }
        if let scale { s += "  scale " + fixed(scale, 3) }
        if let rotation { s += "  rot " + fixed(rotation * 180 / .pi, 1) + "°" }
        if let edge { s += "  edge " + edge.rawValue }
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

func fixed(_ v: Double, _ digits: Int) -> String {
    guard v.isFinite else { return "nan" }
    guard abs(v) < 1e15 else { return v.description }
    var p = 1.0
    for _ in 0..<digits { p *= 10 }
    let r = (abs(v) * p).rounded()
    let whole = Int64(r / p)
    let frac = Int64(r - Double(whole) * p)
    var s = (v < 0 && r != 0 ? "-" : "") + String(whole)
    if digits > 0 {
        let f = String(frac)
        s += "." + String(repeating: "0", count: digits - f.count) + f
    }
    return s
}

func pad(_ s: String, _ n: Int, left: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, n - s.count))
    return left ? fill + s : s + fill
}
