/// Values written as TOML that reads back as the same value.
package enum TOMLText {
    /// A basic string: quotes, backslashes and control characters escaped.
    package static func quoted(_ value: String) -> String {
        var s = "\""
        for u in value.unicodeScalars {
            switch u {
            case "\"": s += "\\\""
            case "\\": s += "\\\\"
            case "\n": s += "\\n"
            case "\t": s += "\\t"
            case "\r": s += "\\r"
            case _ where u.value < 0x20 || u.value == 0x7f:
                let hex = String(u.value, radix: 16, uppercase: true)
                s += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: s.unicodeScalars.append(u)
            }
        }
        return s + "\""
    }

    /// Text for a comment: on one line.
    package static func comment(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? " " : $0 }))
    }
}
