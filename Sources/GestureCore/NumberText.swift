/// Numbers as text, for people and for files, in one place: the command
/// line's messages, `--format text`, pictures, the tuning report and the
/// configuration `check-config` prints. (The socket's JSON has its own
/// writer, `GestureEvent.appendJSONNumber`, which appends in place and
/// allocates nothing, on the hot path.)
public enum NumberText {
    /// Exactly `digits` decimals: fixed(2, 1) is "2.0", fixed(0.35, 3) "0.350",
    /// fixed(-0.04, 1) "0.0". Not finite: "nan"; beyond 1e15, as Swift writes it.
    public static func fixed(_ v: Double, _ digits: Int) -> String {
        guard v.isFinite else { return "nan" }
        guard abs(v) < 1e15 else { return v.description }
        var p = 1.0
        for _ in 0..<digits { p *= 10 }
        let r = (abs(v) * p).rounded()
        let whole = Int64(r / p)
        let fraction = Int64(r - Double(whole) * p)
        var s = (v < 0 && r != 0 ? "-" : "") + String(whole)
        if digits > 0 {
            let f = String(fraction)
            s += "." + String(repeating: "0", count: digits - f.count) + f
        }
        return s
    }

    /// At most `digits` decimals, without trailing zeros: short(2, 2) is "2",
    /// short(0.350, 3) "0.35", short(12.34, 1) "12.3".
    public static func short(_ v: Double, _ digits: Int) -> String {
        var s = fixed(v, digits)
        guard s.contains(".") else { return s }
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s == "-0" ? "0" : s
    }

    /// Every digit the value has, a whole number without ".0": text that
    /// reads back as the same value (the configuration `check-config` prints).
    public static func exact(_ v: Double) -> String {
        if v == v.rounded() && abs(v) < 1e15 { return String(Int64(v)) }
        return v.description
    }
}
