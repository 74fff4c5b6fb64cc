internal import TOMLKit

/// A configuration file that cannot be used: file, line, key and what to do.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String
    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}

/// Reads gestured's TOML configuration (TOMLKit, which wraps toml++).
///
/// ```toml
/// [thresholds]
/// slop = 2.5
/// tap.maxDuration = 450
///
/// [[device]]
/// match = "Wacom ISDv4 E6 Finger"   # or "056a:00e6"
/// size = "277x156"                   # mm
/// rotation = 90
/// [device.thresholds]
/// slop = 3
/// ```
///
/// Reading applies the file over an existing configuration, so drop-ins can
/// be read one after another. Unknown keys are errors: a typo must not pass
/// silently as a default.
public enum ConfigurationReader {
    static let topLevel = ["daemon", "thresholds", "device"]

    /// Text TOML does not allow and TOMLKit's toml++ 3 would abort the
    /// process on rather than report (an assertion in `parse_key`, found by
    /// fuzzing; docs/security.md): a character beyond ASCII outside strings and
    /// comments, or a table header that does not start with a key (`[=]`,
    /// `[!]`). Checked before TOMLKit sees the text; returns the line and what
    /// is wrong.
    package static func abortingInput(_ text: String) -> (line: Int, message: String)? {
        let quote = UInt8(ascii: "\"")
        let apostrophe = UInt8(ascii: "'")
        let backslash = UInt8(ascii: "\\")
        let space = UInt8(ascii: " ")
        let tab = UInt8(ascii: "\t")
        let newline = UInt8(ascii: "\n")
        let bytes = Array(text.utf8)
        var line = 1
        var comment = false
        var lineStart = true
        var header = false
        var depth = 0  // brackets and braces of values, open across lines
        // The delimiter of the string we are in (one or three quotes), empty outside one.
        var delimiter: [UInt8] = []
        var escaped = false
        func isKeyStart(_ c: UInt8) -> Bool {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), quote, apostrophe,
                UInt8(ascii: "]"):
                true
            default: false
            }
        }
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == newline {
                line += 1
                comment = false
                escaped = false
                header = false
                lineStart = true
                if delimiter.count == 1 { delimiter = [] }  // an unclosed one-line string: toml++ reports it
                i += 1
            } else if comment {
                i += 1
            } else if !delimiter.isEmpty {
                if escaped {
                    escaped = false
                } else if b == backslash && delimiter[0] == quote {
                    escaped = true
                } else if bytes[i...].starts(with: delimiter) {
                    i += delimiter.count
                    delimiter = []
                    continue
                }
                i += 1
            } else if b == space || b == tab || b == UInt8(ascii: "\r") {
                i += 1
            } else if b == UInt8(ascii: "[") && lineStart && depth == 0 {
                // A table header, [key] or [[key]], with spaces allowed before the key.
                header = true
                lineStart = false
                i += bytes[i...].starts(with: [b, b]) ? 2 : 1
                while i < bytes.count && (bytes[i] == space || bytes[i] == tab) { i += 1 }
                if i == bytes.count || !isKeyStart(bytes[i]) {
                    return (line, "a table header must start with a key: [name] or [[name]]")
                }
            } else {
                lineStart = false
                switch b {
                case UInt8(ascii: "#"):
                    comment = true
                case quote, apostrophe:
                    delimiter = bytes[i...].starts(with: [b, b, b]) ? [b, b, b] : [b]
                    i += delimiter.count
                    continue
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    if !header { depth += 1 }
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    if !header { depth = max(0, depth - 1) }
                case 0x80...:
                    return (line, "a character beyond ASCII outside a string or comment; quote such keys: \"é\"")
                default:
                    break
                }
                i += 1
            }
        }
        return nil
    }
    static let deviceKeys = ["match", "size", "rotation", "flip-x", "flip-y", "thresholds"]

    public static func read(_ text: String, file: String, into config: inout Configuration) throws(ConfigurationError) {
        if let problem = abortingInput(text) {
            throw ConfigurationError(file: file, line: problem.line, message: "not valid TOML: " + problem.message)
        }
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            throw ConfigurationError(file: file, line: e.source.begin.line, message: "not valid TOML: \(e.description)")
        } catch {
            throw ConfigurationError(file: file, line: 0, message: "not valid TOML: \(error)")
        }
        let locator = KeyLocator(text: text)
        var result = config
        for key in root.keys {
            guard topLevel.contains(key) else {
                throw ConfigurationError(
                    file: file, line: locator.line(table: "", key: key),
                    message: "unknown section or key '\(key)'; known: \(topLevel.joined(separator: ", "))")
            }
        }
        if let value = root["thresholds"] {
            guard let table = value.table else {
                throw ConfigurationError(
                    file: file, line: locator.line(table: "", key: "thresholds"),
                    message: "'thresholds' must be a table: [thresholds]")
            }
            for (name, v) in try thresholdValues(table, file: file, table: "thresholds", locator: locator) {
                let k = GestureThresholds.keys.first { $0.name == name }!
                result.thresholds[keyPath: k.keyPath] = v
            }
            let problems = result.thresholds.problems()
            if let p = problems.first {
                throw ConfigurationError(
                    file: file,
                    line: locator.line(table: "thresholds", key: p.split(separator: " ").first.map(String.init) ?? ""), message: p
                )
            }
        }
        if let value = root["daemon"] {
            guard let table = value.table else {
                throw ConfigurationError(
                    file: file, line: locator.line(table: "", key: "daemon"), message: "'daemon' must be a table: [daemon]")
            }
            try readDaemon(table, file: file, locator: locator, into: &result.daemon)
        }
        if let value = root["device"] {
            guard let array = value.array else {
                throw ConfigurationError(
                    file: file, line: locator.line(table: "", key: "device"),
                    message: "'device' must be an array of tables: [[device]]")
            }
            for (index, item) in array.enumerated() {
                let headerLine = locator.headerLine("[[device]]", occurrence: index)
                guard let table = item.table else {
                    throw ConfigurationError(file: file, line: headerLine, message: "each [[device]] must be a table")
                }
                result.devices.append(
                    try deviceSection(table, index: index, file: file, headerLine: headerLine, locator: locator))
            }
        }
        result.sources.append(file)
        config = result
    }

    private static func deviceSection(
        _ table: TOMLTable, index: Int, file: String, headerLine: Int, locator: KeyLocator
    )
        throws(ConfigurationError) -> Configuration.DeviceSection
    {
        func line(_ key: String) -> Int { locator.line(table: "[[device]]", key: key, occurrence: index) }
        for key in table.keys where !deviceKeys.contains(key) {
            throw ConfigurationError(
                file: file, line: line(key),
                message: "unknown key '\(key)' in [[device]]; known: \(deviceKeys.joined(separator: ", "))")
        }
        guard let match = table["match"]?.string, !match.isEmpty else {
            throw ConfigurationError(
                file: file, line: headerLine,
                message:
                    "[[device]] needs match = \"DEVICE NAME\" or match = \"vvvv:pppp\" (see `gestured devices` or the trace's N: line)"
            )
        }
        var section = Configuration.DeviceSection(match: match, origin: "\(file):\(headerLine)")
        if let v = table["size"] {
            guard let text = v.string, let size = parseSize(text) else {
                throw ConfigurationError(
                    file: file, line: line("size"), message: "size must be \"WIDTHxHEIGHT\" in mm, e.g. \"277x156\"")
            }
            section.size = size
        }
        if let v = table["rotation"] {
            guard let r = v.int, [0, 90, 180, 270].contains(r) else {
                throw ConfigurationError(
                    file: file, line: line("rotation"), message: "rotation must be 0, 90, 180 or 270 (degrees clockwise)")
            }
            section.rotation = r
        }
        for (key, path) in [("flip-x", \Configuration.DeviceSection.flipX), ("flip-y", \Configuration.DeviceSection.flipY)]
            as [(String, WritableKeyPath<Configuration.DeviceSection, Bool?>)]
        {
            if let v = table[key] {
                guard let b = v.bool else {
                    throw ConfigurationError(file: file, line: line(key), message: "\(key) must be true or false")
                }
                section[keyPath: path] = b
            }
        }
        if let v = table["thresholds"] {
            guard let t = v.table else {
                throw ConfigurationError(
                    file: file, line: line("thresholds"), message: "thresholds must be a table: [device.thresholds]")
            }
            section.overrides = try thresholdValues(
                t, file: file, table: "device.thresholds", locator: locator, occurrence: index)
            var check = GestureThresholds.defaults
            for (k, v) in section.overrides { check[keyPath: GestureThresholds.keys.first { $0.name == k }!.keyPath] = v }
            for p in check.problems() where section.overrides.contains(where: { p.hasPrefix($0.key) }) {
                throw ConfigurationError(file: file, line: headerLine, message: p)
            }
        }
        return section
    }

    private static func readDaemon(
        _ table: TOMLTable, file: String, locator: KeyLocator, into d: inout DaemonSettings
    ) throws(ConfigurationError) {
        func fail(_ key: String, _ message: String) -> ConfigurationError {
            ConfigurationError(file: file, line: locator.line(table: "daemon", key: key), message: message)
        }
        for key in table.keys where !DaemonSettings.keys.contains(key) {
            throw fail(key, "unknown key '\(key)' in [daemon]; known: \(DaemonSettings.keys.joined(separator: ", "))")
        }
        if let v = table["socket"] {
            guard let path = v.string, path.isEmpty || path.hasPrefix("/") else {
                throw fail("socket", "socket must be an absolute path, e.g. \"/run/gestured/gestured.sock\"")
            }
            d.socket = path.isEmpty ? nil : path
        }
        if let v = table["socket-mode"] {
            let mode: UInt32?
            if let i = v.int { mode = UInt32(exactly: i) } else { mode = v.string.flatMap { UInt32($0, radix: 8) } }
            guard let mode, mode <= 0o777 else {
                throw fail("socket-mode", "socket-mode must be octal permission bits, e.g. \"0660\" or 0o660")
            }
            d.socketMode = mode
        }
        if let v = table["socket-group"] {
            guard let g = v.string else { throw fail("socket-group", "socket-group must be a group name or \"\"") }
            d.socketGroup = g.isEmpty ? nil : g
        }
        for (key, path) in [("allow-users", \DaemonSettings.allowUsers), ("allow-groups", \DaemonSettings.allowGroups)]
            as [(String, WritableKeyPath<DaemonSettings, [String]>)]
        {
            guard let v = table[key] else { continue }
            guard let array = v.array else { throw fail(key, "\(key) must be a list of names or ids, e.g. [\"alice\", 1000]") }
            var names: [String] = []
            for item in array {
                if let s = item.string, !s.isEmpty {
                    names.append(s)
                } else if let i = item.int, i >= 0, i < Int(UInt32.max) {
                    names.append(String(i))
                } else {
                    throw fail(key, "\(key) must be a list of names or ids, e.g. [\"alice\", 1000]")
                }
            }
            d[keyPath: path] = names
        }
        if let v = table["seat"] {
            guard let seat = v.string, !seat.isEmpty else { throw fail("seat", "seat must be a udev seat name, e.g. \"seat0\"") }
            d.seat = seat
        }
        if let v = table["log-level"] {
            guard let level = v.string, DaemonSettings.logLevels.contains(level) else {
                throw fail("log-level", "log-level must be one of \(DaemonSettings.logLevels.joined(separator: ", "))")
            }
            d.logLevel = level
        }
        if let v = table["client-buffer-kib"] {
            guard let kib = v.int, (4...65536).contains(kib) else {
                throw fail("client-buffer-kib", "client-buffer-kib must be a whole number of KiB from 4 to 65536")
            }
            d.clientBuffer = kib * 1024
        }
        if let v = table["max-clients"] {
            guard let n = v.int, (1...65536).contains(n) else {
                throw fail("max-clients", "max-clients must be a whole number from 1 to 65536")
            }
            d.maxClients = n
        }
    }

    /// Flattens `tap.maxDuration = 500` and `[thresholds.tap] maxDuration = 500` alike into ("tap.maxDuration", 500).
    private static func thresholdValues(
        _ table: TOMLTable, file: String, table tableName: String, locator: KeyLocator, occurrence: Int = 0
    ) throws(ConfigurationError) -> [(key: String, value: Double)] {
        var out: [(String, Double)] = []
        func walk(_ t: TOMLTable, prefix: String) throws(ConfigurationError) {
            for key in t.keys {
                let name = prefix.isEmpty ? key : prefix + "." + key
                let value = t[key]!
                if let sub = value.table {
                    try walk(sub, prefix: name)
                    continue
                }
                let line = locator.line(table: tableName, key: key, occurrence: occurrence)
                guard let k = GestureThresholds.keys.first(where: { $0.name == name }) else {
                    let known = GestureThresholds.keys.map(\.name).joined(separator: ", ")
                    throw ConfigurationError(file: file, line: line, message: "unknown threshold '\(name)'; known: \(known)")
                }
                let number: Double
                if let d = value.double {
                    number = d
                } else if let i = value.int {
                    number = Double(i)
                } else {
                    throw ConfigurationError(
                        file: file, line: line, message: "threshold '\(name)' must be a number (\(k.unit)), not \(value.type)")
                }
                out.append((name, number))
            }
        }
        try walk(table, prefix: "")
        return out
    }
}

/// Finds the line of a key in TOML text, for messages (TOMLKit reports lines
/// for syntax errors only).
struct KeyLocator {
    let lines: [Substring]
    init(text: String) { lines = text.split(separator: "\n", omittingEmptySubsequences: false) }

    /// 1-based line of `[[name]]` number `occurrence` (0-based), or 0.
    func headerLine(_ header: String, occurrence: Int) -> Int {
        var seen = -1
        for (i, l) in lines.enumerated() where l.trimmingPrefixSpaces().hasPrefix(header) {
            seen += 1
            if seen == occurrence { return i + 1 }
        }
        return 0
    }

    /// 1-based line where `key` (or a dotted key ending in it) is set, looking
    /// after the header of `table` ("" for the top, "[[device]]" for an array
    /// entry, "thresholds" for `[thresholds]` and its sub-tables); 0 if not found.
    func line(table: String, key: String, occurrence: Int = 0) -> Int {
        var start = 0
        if table.hasPrefix("[[") {
            start = max(0, headerLine(table, occurrence: occurrence) - 1)
        } else if !table.isEmpty {
            let parts = table.split(separator: ".")
            if parts.first == "device" {
                start = max(0, headerLine("[[device]]", occurrence: occurrence) - 1)
            } else if table == "daemon" {
                start = max(0, headerLine("[daemon]", occurrence: 0) - 1)
            }
        }
        for i in start..<lines.count {
            let l = lines[i].trimmingPrefixSpaces()
            if l.hasPrefix("#") || l.hasPrefix("[") { continue }
            guard let eq = l.firstIndex(of: "=") else { continue }
            let k = l[..<eq].trimmingSuffixSpaces()
            if k == key || k.hasSuffix("." + key) || k.hasSuffix("\"" + key + "\"") { return i + 1 }
        }
        for i in start..<lines.count where lines[i].contains("[" + (table.isEmpty ? key : table)) { return i + 1 }
        return 0
    }
}

extension Substring {
    func trimmingPrefixSpaces() -> Substring { drop(while: { $0 == " " || $0 == "\t" }) }
    func trimmingSuffixSpaces() -> Substring {
        var s = self
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
