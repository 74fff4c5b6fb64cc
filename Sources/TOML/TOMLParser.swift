/// A TOML 1.0 value.
package indirect enum TOMLValue: Sendable {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    /// An offset or local date-time, local date or local time, as written.
    case dateTime(String)
    case array([TOMLValue])
    case table(TOMLTable)

    package var string: String? { if case .string(let s) = self { s } else { nil } }
    package var int: Int? { if case .integer(let i) = self { i } else { nil } }
    package var double: Double? { if case .float(let d) = self { d } else { nil } }
    /// An integer or a float, as a number.
    package var number: Double? { double ?? int.map(Double.init) }
    package var bool: Bool? { if case .boolean(let b) = self { b } else { nil } }
    package var array: [TOMLValue]? { if case .array(let a) = self { a } else { nil } }
    package var table: TOMLTable? { if case .table(let t) = self { t } else { nil } }

    /// The TOML type's name, for messages.
    package var type: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .boolean: "a boolean"
        case .dateTime: "a date or time"
        case .array: "an array"
        case .table: "a table"
        }
    }
}

/// A TOML table: its keys in the order they were written, and the line each
/// was set on.
package struct TOMLTable: Sendable {
    package private(set) var keys: [String] = []
    private var values: [String: TOMLValue] = [:]
    private var lines: [String: Int] = [:]
    /// The line of the table's header (`[name]`, `[[name]]`), of its first
    /// dotted key or of its inline `{`; 0 for the document.
    package var line = 0

    package subscript(key: String) -> TOMLValue? { values[key] }

    /// The line `key` was set on (for a table: where it was opened), or 0.
    package func line(of key: String) -> Int { lines[key] ?? 0 }

    mutating func set(_ key: String, _ value: TOMLValue, line: Int) {
        if values[key] == nil { keys.append(key) }
        values[key] = value
        lines[key] = line
    }
}

/// A syntax or structure error: its line and what is wrong.
package struct TOMLError: Error, Sendable {
    package var line: Int
    package var message: String
}

/// gestured's TOML 1.0 reader: the whole language (tables, arrays of tables,
/// dotted and quoted keys, inline tables, every string, number, boolean and
/// date-time form), the rules against defining a key or table twice, and an
/// error with its line for anything else. It is hand-written because the
/// TOML library available (TOMLKit, over toml++ 3) aborted the process on
/// inputs fuzzing found, leaked every document and had undefined behaviour on
/// typed reads (docs/design.md); a configuration reload must not be able to
/// kill the daemon.
package enum TOMLParser {
    /// How deeply arrays and inline tables may nest, and how many parts a
    /// key may have: together they bound the depth of the tree, which is
    /// walked recursively.
    static let maxDepth = 64
    /// How many keys (each part of a dotted key counted) and values a
    /// document may have: a configuration has dozens, and this bounds what
    /// a file of the largest size allowed can make the reader hold (a few
    /// MiB, well under the service's memory limit) whatever its shape.
    static let maxNodes = 10_000

    package static func parse(_ text: String) throws(TOMLError) -> TOMLTable {
        try parse(bytes: Array(text.utf8))
    }

    /// A file as read: TOML is UTF-8, and a byte sequence that is not (a
    /// stray Latin-1 byte, an overlong form, an encoded surrogate) is an
    /// error with its line, not a character silently replaced.
    package static func parse(bytes: [UInt8]) throws(TOMLError) -> TOMLTable {
        if let bad = firstInvalidUTF8(bytes) {
            let line = bytes[..<bad].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            throw TOMLError(
                line: line,
                message: "not valid UTF-8 (byte 0x\(String(bytes[bad], radix: 16)) at offset \(bad)); save the file as UTF-8")
        }
        var parser = Parser(bytes: bytes)
        try parser.document()
        return parser.root.value
    }

    /// The offset of the first byte that does not belong to well-formed UTF-8, or nil.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }
}

/// A table while the document is read: how it came to exist decides what may
/// still be added to it.
private final class Builder {
    enum Origin {
        /// A parent created by a header (`[a.b]` creates `a`); a header may still define it.
        case implicit
        /// Defined by its own `[header]` or `[[header]]`.
        case header
        /// Created by a dotted key (`a.b = 1` creates `a`).
        case dotted
        /// The document, or an inline table (stored as a value once read, so
        /// no header or dotted key outside it can reach it).
        case closed
    }
    enum Entry {
        case value(TOMLValue)
        case table(Builder)
        /// Made by `[[name]]`; headers after it add to its last table.
        case tables([Builder])
    }

    var origin: Origin
    var line: Int
    var keys: [String] = []
    var entries: [String: (entry: Entry, line: Int)] = [:]

    init(_ origin: Origin, line: Int) {
        self.origin = origin
        self.line = line
    }

    func put(_ key: String, _ entry: Entry, line: Int) {
        if entries[key] == nil { keys.append(key) }
        entries[key] = (entry, line)
    }

    /// A new empty table under `key`.
    func addTable(_ key: String, _ origin: Origin, line: Int) -> Builder {
        let fresh = Builder(origin, line: line)
        put(key, .table(fresh), line: line)
        return fresh
    }

    var value: TOMLTable {
        var t = TOMLTable()
        t.line = line
        for key in keys {
            let (entry, line) = entries[key]!
            switch entry {
            case .value(let v): t.set(key, v, line: line)
            case .table(let b): t.set(key, .table(b.value), line: line)
            case .tables(let bs): t.set(key, .array(bs.map { .table($0.value) }), line: line)
            }
        }
        return t
    }
}

private struct Parser {
    let bytes: [UInt8]
    var i = 0
    var line = 1
    let root = Builder(.closed, line: 0)
    /// The table key/value lines go into: the document's, or the last header's.
    var current: Builder
    /// Keys and values read so far (`TOMLParser.maxNodes`).
    var nodes = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
        current = root
        // A byte order mark at the start is not part of the text.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    }

    // MARK: Characters

    var atEnd: Bool { i >= bytes.count }
    var peek: UInt8? { i < bytes.count ? bytes[i] : nil }
    func peek(_ offset: Int) -> UInt8? { i + offset < bytes.count ? bytes[i + offset] : nil }
    func looking(at s: String) -> Bool { bytes[i...].starts(with: s.utf8) }

    func fail(_ message: String, line: Int? = nil) -> TOMLError { TOMLError(line: line ?? self.line, message: message) }

    /// Counts `n` more keys or values; past `maxNodes`, an error.
    mutating func count(_ n: Int) throws(TOMLError) {
        nodes += n
        guard nodes <= TOMLParser.maxNodes else {
            throw fail(
                "more than \(TOMLParser.maxNodes) keys and values: a configuration is far smaller; is this the right file?")
        }
    }

    /// What the character at the cursor is, for messages.
    var found: String {
        guard let c = peek else { return "the end of the file" }
        switch c {
        case 0x0A, 0x0D: return "the end of the line"
        case 0x20...0x7E: return "'\(Character(Unicode.Scalar(c)))'"
        case 0x80...: return "a character beyond ASCII outside a string or comment (quote such keys: \"é\")"
        default: return "the control character 0x" + String(c, radix: 16)
        }
    }

    mutating func skipSpaces() {
        while let c = peek, c == 0x20 || c == 0x09 { i += 1 }
    }

    /// A comment from `#` to the end of the line, if one is here.
    mutating func skipComment() throws(TOMLError) {
        guard peek == UInt8(ascii: "#") else { return }
        while let c = peek, c != 0x0A {
            if c == 0x0D && peek(1) == 0x0A { break }
            if (c < 0x20 && c != 0x09) || c == 0x7F { throw fail("a control character in a comment") }
            i += 1
        }
    }

    /// A newline (LF or CRLF) if one is here.
    mutating func newline() -> Bool {
        if peek == 0x0A {
            i += 1
        } else if peek == 0x0D && peek(1) == 0x0A {
            i += 2
        } else {
            return false
        }
        line += 1
        return true
    }

    /// Spaces, then a comment, then the end of the line or file.
    mutating func endOfLine(after what: String) throws(TOMLError) {
        skipSpaces()
        try skipComment()
        guard atEnd || newline() else { throw fail("expected the end of the line after \(what), found \(found)") }
    }

    /// Spaces, comments and newlines, as arrays allow between values.
    mutating func skipBlank() throws(TOMLError) {
        while true {
            skipSpaces()
            try skipComment()
            if !newline() { return }
        }
    }

    // MARK: Document

    mutating func document() throws(TOMLError) {
        while true {
            skipSpaces()
            try skipComment()
            if atEnd { return }
            if newline() { continue }
            if peek == UInt8(ascii: "[") {
                try header()
            } else {
                try keyValue(into: current, depth: 0)
                try endOfLine(after: "a value")
            }
        }
    }

    mutating func header() throws(TOMLError) {
        let headerLine = line
        let array = peek(1) == UInt8(ascii: "[")
        i += array ? 2 : 1
        skipSpaces()
        guard let first = peek, Self.isBare(first) || first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") else {
            throw fail("a table header must start with a key: [name] or [[name]], found \(found)")
        }
        let path = try key()
        skipSpaces()
        let close = array ? "]]" : "]"
        guard looking(at: close) else {
            throw fail("expected '\(close)' to close the table header, found \(found)")
        }
        i += close.utf8.count
        try endOfLine(after: "a table header")

        var table = root
        for part in path.dropLast() {
            table = try descend(table, into: part, line: headerLine)
        }
        // Structure errors are reported on the header's line, now behind the cursor.
        let name = path.last!
        let shown = path.joined(separator: ".")
        if array {
            let fresh = Builder(.header, line: headerLine)
            // Moved out of the table and back, so that the array is not also
            // held there while it grows (a copy per [[device]]: quadratic).
            guard let (entry, line) = table.entries.removeValue(forKey: name) else {
                table.put(name, .tables([fresh]), line: headerLine)
                current = fresh
                return
            }
            guard case .tables(var list) = consume entry else {
                throw fail(
                    "[[\(shown)]]: '\(shown)' is already defined as something other than an array of tables", line: headerLine)
            }
            list.append(fresh)
            table.entries[name] = (.tables(list), line)
            current = fresh
        } else {
            switch table.entries[name]?.entry {
            case nil:
                current = table.addTable(name, .header, line: headerLine)
            case .table(let existing) where existing.origin == .implicit:
                existing.origin = .header
                existing.line = headerLine
                table.entries[name]!.line = headerLine
                current = existing
            default:
                throw fail("[\(shown)]: the table '\(shown)' is already defined", line: headerLine)
            }
        }
    }

    /// The table `key` of `table` on the way to a header, created if missing.
    mutating func descend(_ table: Builder, into key: String, line: Int) throws(TOMLError) -> Builder {
        switch table.entries[key]?.entry {
        case nil:
            return table.addTable(key, .implicit, line: line)
        case .table(let t):
            return t
        case .tables(let list):
            return list.last!
        default:
            throw fail("'\(key)' is already defined as a value or inline table; a header cannot add to it", line: line)
        }
    }

    /// `key = value`, into `table`; `depth` is how deep in arrays and inline tables it is.
    mutating func keyValue(into table: Builder, depth: Int) throws(TOMLError) {
        let keyLine = line
        let path = try key()
        skipSpaces()
        guard peek == UInt8(ascii: "=") else {
            throw fail("expected '=' after the key '\(path.joined(separator: "."))', found \(found)")
        }
        i += 1
        skipSpaces()
        // Each part of a dotted key is a level of the tree too.
        let v = try value(depth: depth + path.count - 1)
        var target = table
        for part in path.dropLast() {
            switch target.entries[part]?.entry {
            case nil:
                target = target.addTable(part, .dotted, line: keyLine)
            case .table(let t) where t.origin == .dotted:
                target = t
            default:
                throw fail(
                    "'\(path.joined(separator: "."))': '\(part)' is already defined elsewhere; a dotted key cannot add to it")
            }
        }
        let name = path.last!
        guard target.entries[name] == nil else {
            throw fail("the key '\(path.joined(separator: "."))' is already defined")
        }
        target.put(name, .value(v), line: keyLine)
    }

    // MARK: Keys

    /// A key: simple keys joined by dots, with spaces allowed around the dots.
    mutating func key() throws(TOMLError) -> [String] {
        var parts = [try simpleKey()]
        while true {
            let mark = i
            skipSpaces()
            guard peek == UInt8(ascii: ".") else {
                i = mark
                try count(parts.count)
                return parts
            }
            i += 1
            skipSpaces()
            guard parts.count < TOMLParser.maxDepth else { throw fail("a key of more than \(TOMLParser.maxDepth) parts") }
            parts.append(try simpleKey())
        }
    }

    mutating func simpleKey() throws(TOMLError) -> String {
        switch peek {
        case UInt8(ascii: "\""):
            if looking(at: "\"\"\"") { throw fail("a key cannot be a multi-line string") }
            return try basicString()
        case UInt8(ascii: "'"):
            if looking(at: "'''") { throw fail("a key cannot be a multi-line string") }
            return try literalString()
        default:
            let start = i
            while let c = peek, Self.isBare(c) { i += 1 }
            guard i > start else {
                throw fail("expected a key (letters, digits, '_', '-', or a quoted string), found \(found)")
            }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }
    }

    static func isBare(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    // MARK: Values

    mutating func value(depth: Int) throws(TOMLError) -> TOMLValue {
        guard depth < TOMLParser.maxDepth else {
            throw fail("arrays and inline tables nested more than \(TOMLParser.maxDepth) deep")
        }
        try count(1)
        switch peek {
        case UInt8(ascii: "\""):
            return .string(looking(at: "\"\"\"") ? try multilineString(UInt8(ascii: "\"")) : try basicString())
        case UInt8(ascii: "'"):
            return .string(looking(at: "'''") ? try multilineString(UInt8(ascii: "'")) : try literalString())
        case UInt8(ascii: "["):
            return try arrayValue(depth: depth)
        case UInt8(ascii: "{"):
            return try inlineTable(depth: depth)
        case nil, 0x0A, 0x0D, UInt8(ascii: "#"):
            throw fail("expected a value, found \(found)")
        default:
            return try scalar()
        }
    }

    mutating func arrayValue(depth: Int) throws(TOMLError) -> TOMLValue {
        i += 1
        var items: [TOMLValue] = []
        while true {
            try skipBlank()
            if peek == UInt8(ascii: "]") {
                i += 1
                return .array(items)
            }
            items.append(try value(depth: depth + 1))
            try skipBlank()
            if peek == UInt8(ascii: ",") {
                i += 1
            } else if peek != UInt8(ascii: "]") {
                throw fail("expected ',' or ']' in an array, found \(found)")
            }
        }
    }

    mutating func inlineTable(depth: Int) throws(TOMLError) -> TOMLValue {
        let table = Builder(.closed, line: line)
        i += 1
        skipSpaces()
        if peek == UInt8(ascii: "}") {
            i += 1
            return .table(table.value)
        }
        while true {
            skipSpaces()
            try keyValue(into: table, depth: depth + 1)
            skipSpaces()
            if peek == UInt8(ascii: "}") {
                i += 1
                return .table(table.value)
            }
            guard peek == UInt8(ascii: ",") else {
                throw fail("expected ',' or '}' in an inline table (which must stay on one line), found \(found)")
            }
            i += 1
        }
    }

    /// A number, boolean or date-time: one word, plus the time after a date and a space.
    mutating func scalar() throws(TOMLError) -> TOMLValue {
        let start = i
        func word(_ c: UInt8) -> Bool {
            Self.isBare(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: ".") || c == UInt8(ascii: ":")
        }
        while let c = peek, word(c) { i += 1 }
        // "1979-05-27 07:32:00": a date, a space, then a time.
        if i - start == 10, peek == 0x20, let a = peek(1), let b = peek(2), peek(3) == UInt8(ascii: ":"),
            Self.isDigit(a) && Self.isDigit(b), bytes[start + 4] == UInt8(ascii: "-")
        {
            i += 1
            while let c = peek, word(c) { i += 1 }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        guard !text.isEmpty else { throw fail("expected a value, found \(found)") }
        switch text {
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        case "inf", "+inf": return .float(.infinity)
        case "-inf": return .float(-.infinity)
        case "nan", "+nan", "-nan": return .float(.nan)
        default: break
        }
        if let integer = Self.integer(text) {
            guard let v = integer else { throw fail("the integer \(text) does not fit in 64 bits") }
            return .integer(v)
        }
        if let v = Self.float(text) { return .float(v) }
        if Self.isDateTime(text) { return .dateTime(text) }
        throw fail("'\(text)' is not a TOML value (strings are quoted; numbers, true, false and dates are not)")
    }

    static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    /// Digits with single underscores between them; `radix` picks which digits.
    static func digits(_ s: Substring, radix: Int = 10) -> Bool {
        guard let first = s.first, let last = s.last, first != "_", last != "_" else { return false }
        var underscore = false
        for c in s {
            if c == "_" {
                if underscore { return false }
                underscore = true
                continue
            }
            underscore = false
            guard c.isASCII, c.hexDigitValue.map({ $0 < radix }) == true else { return false }
        }
        return true
    }

    /// nil: not an integer; .some(nil): an integer that does not fit in `Int`.
    static func integer(_ text: String) -> Int?? {
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where text.hasPrefix(prefix) {
            let body = text.dropFirst(2)
            guard digits(body, radix: radix) else { return nil }
            return .some(Int(body.filter { $0 != "_" }, radix: radix))
        }
        var body = Substring(text)
        if body.first == "+" || body.first == "-" { body = body.dropFirst() }
        guard digits(body), body == "0" || body.first != "0" else { return nil }
        return .some(Int(text.filter { $0 != "_" }))
    }

    static func float(_ text: String) -> Double? {
        var body = Substring(text)
        if body.first == "+" || body.first == "-" { body = body.dropFirst() }
        let exponentAt = body.firstIndex { $0 == "e" || $0 == "E" }
        let mantissa = body[..<(exponentAt ?? body.endIndex)]
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, digits(parts[0]), parts[0] == "0" || parts[0].first != "0" else { return nil }
        if parts.count == 2 { guard digits(parts[1]) else { return nil } }
        if let e = exponentAt {
            var exponent = body[body.index(after: e)...]
            if exponent.first == "+" || exponent.first == "-" { exponent = exponent.dropFirst() }
            guard digits(exponent) else { return nil }
        } else if parts.count == 1 {
            return nil  // an integer
        }
        return Double(text.filter { $0 != "_" })
    }

    /// RFC 3339 as TOML has it: a date, a time, or both with an optional offset.
    static func isDateTime(_ text: String) -> Bool {
        let b = Array(text.utf8)
        func number(_ at: Int, _ count: Int, max: Int) -> Bool {
            guard at + count <= b.count, b[at..<at + count].allSatisfy(isDigit) else { return false }
            let v = b[at..<at + count].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            return v <= max
        }
        func value(_ at: Int, _ count: Int) -> Int {
            b[at..<at + count].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        /// A calendar date: months 1 to 12, and days up to the month's own
        /// length (February 29 only in leap years).
        func date(_ at: Int) -> Bool {
            guard
                number(at, 4, max: 9999) && b[at + 4] == UInt8(ascii: "-") && number(at + 5, 2, max: 12)
                    && b[at + 7] == UInt8(ascii: "-") && number(at + 8, 2, max: 31)
            else { return false }
            let (year, month, day) = (value(at, 4), value(at + 5, 2), value(at + 8, 2))
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            return month >= 1 && day >= 1 && day <= days[month - 1]
        }
        /// A time from `at`; returns where it ends, or nil.
        func time(_ at: Int) -> Int? {
            guard number(at, 2, max: 23), at + 8 <= b.count, b[at + 2] == UInt8(ascii: ":"), number(at + 3, 2, max: 59),
                b[at + 5] == UInt8(ascii: ":"), number(at + 6, 2, max: 60)
            else { return nil }
            var end = at + 8
            if end < b.count && b[end] == UInt8(ascii: ".") {
                end += 1
                let digitsStart = end
                while end < b.count && isDigit(b[end]) { end += 1 }
                if end == digitsStart { return nil }
            }
            return end
        }
        if b.count >= 10 && b[4] == UInt8(ascii: "-") {
            guard date(0) else { return false }
            if b.count == 10 { return true }
            guard b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == 0x20, let end = time(11) else {
                return false
            }
            if end == b.count { return true }
            if end + 1 == b.count && (b[end] == UInt8(ascii: "Z") || b[end] == UInt8(ascii: "z")) { return true }
            return end + 6 == b.count && (b[end] == UInt8(ascii: "+") || b[end] == UInt8(ascii: "-"))
                && number(end + 1, 2, max: 23) && b[end + 3] == UInt8(ascii: ":") && number(end + 4, 2, max: 59)
        }
        return time(0) == b.count
    }

    // MARK: Strings

    /// A character a string may hold as it is: not a control character but tab.
    func checkStringByte(_ c: UInt8) throws(TOMLError) {
        if (c < 0x20 && c != 0x09) || c == 0x7F {
            throw fail("a control character (0x\(String(c, radix: 16))) in a string; write it as an escape such as \\u0001")
        }
    }

    mutating func basicString() throws(TOMLError) -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard let c = peek, c != 0x0A else { throw fail("a string without its closing '\"'") }
            i += 1
            if c == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
            if c == UInt8(ascii: "\\") {
                try escape(into: &out)
            } else {
                try checkStringByte(c)
                out.append(c)
            }
        }
    }

    /// A multi-line string: `"""` (basic, with escapes) or `'''` (literal).
    mutating func multilineString(_ quote: UInt8) throws(TOMLError) -> String {
        let delimiter = String(repeating: Character(Unicode.Scalar(quote)), count: 3)
        let basic = quote == UInt8(ascii: "\"")
        i += 3
        _ = newline()  // a newline right after the opening quotes is not part of the string
        var out: [UInt8] = []
        while true {
            guard let c = peek else { throw fail("a multi-line string without its closing \(delimiter)") }
            if looking(at: delimiter) {
                // Up to two quotes may end the content just before the closing three.
                var quotes = 3
                while peek(quotes) == quote && quotes < 5 { quotes += 1 }
                out += Array(repeating: quote, count: quotes - 3)
                i += quotes
                return String(decoding: out, as: UTF8.self)
            }
            if newline() {
                out.append(0x0A)
                continue
            }
            i += 1
            if basic && c == UInt8(ascii: "\\") {
                // A backslash ending a line drops it and the blank that follows.
                let mark = i
                skipSpaces()
                if peek == 0x0A || (peek == 0x0D && peek(1) == 0x0A) {
                    while true {
                        skipSpaces()
                        if !newline() { break }
                    }
                    continue
                }
                i = mark
                try escape(into: &out)
            } else {
                try checkStringByte(c)
                out.append(c)
            }
        }
    }

    mutating func literalString() throws(TOMLError) -> String {
        i += 1
        let start = i
        while true {
            guard let c = peek, c != 0x0A else { throw fail("a string without its closing \"'\"") }
            if c == UInt8(ascii: "'") {
                i += 1
                return String(decoding: bytes[start..<i - 1], as: UTF8.self)
            }
            try checkStringByte(c)
            i += 1
        }
    }

    /// The escape after a backslash.
    mutating func escape(into out: inout [UInt8]) throws(TOMLError) {
        guard let c = peek else { throw fail("a string ends in a backslash") }
        i += 1
        switch c {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "\""): out.append(c)
        case UInt8(ascii: "\\"): out.append(c)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let count = c == UInt8(ascii: "u") ? 4 : 8
            guard i + count <= bytes.count,
                let code = UInt32(String(decoding: bytes[i..<i + count], as: UTF8.self), radix: 16),
                bytes[i..<i + count].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
                let scalar = Unicode.Scalar(code)
            else {
                throw fail("\\\(Character(Unicode.Scalar(c))) needs \(count) hex digits naming a Unicode scalar value")
            }
            i += count
            out += Array(String(Character(scalar)).utf8)
        default:
            throw fail(
                "an unknown escape '\\\(Character(Unicode.Scalar(c)))' in a string (known: \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)"
            )
        }
    }
}
