/// A configuration file that cannot be used: file, line, key and what to do.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String
    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }

    /// `line` 0: the file as a whole.
    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }
}

/// Reads gestured's TOML configuration (`TOMLParser`, in this module).
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

    static let deviceKeys = ["match", "size", "rotation", "flip-x", "flip-y", "thresholds"]

    public static func read(_ text: String, file: String, into config: inout Configuration) throws(ConfigurationError) {
        let root: TOMLTable
        do {
            root = try TOMLParser.parse(text)
        } catch {
            throw ConfigurationError(file: file, line: error.line, message: "not valid TOML: " + error.message)
        }
        var result = config
        for key in root.keys {
            guard topLevel.contains(key) else {
                throw ConfigurationError(
                    file: file, line: root.line(of: key),
                    message: "unknown section or key '\(key)'; known: \(topLevel.joined(separator: ", "))")
            }
        }
        if let value = root["thresholds"] {
            guard let table = value.table else {
                throw ConfigurationError(
                    file: file, line: root.line(of: "thresholds"), message: "'thresholds' must be a table: [thresholds]")
            }
            let values = try thresholdValues(table, file: file)
            for (name, v, _) in values {
                let k = GestureThresholds.keys.first { $0.name == name }!
                result.thresholds[keyPath: k.keyPath] = v
            }
            if let p = result.thresholds.problems().first {
                // The line of the threshold the problem names, if this file sets it.
                let named = values.first { p.hasPrefix($0.key + " ") }
                throw ConfigurationError(file: file, line: named?.line ?? table.line, message: p)
            }
        }
        if let value = root["daemon"] {
            guard let table = value.table else {
                throw ConfigurationError(file: file, line: root.line(of: "daemon"), message: "'daemon' must be a table: [daemon]")
            }
            try readDaemon(table, file: file, into: &result.daemon)
        }
        if let value = root["device"] {
            guard let array = value.array else {
                throw ConfigurationError(
                    file: file, line: root.line(of: "device"), message: "'device' must be an array of tables: [[device]]")
            }
            for item in array {
                guard let table = item.table else {
                    throw ConfigurationError(
                        file: file, line: root.line(of: "device"), message: "each [[device]] must be a table")
                }
                result.devices.append(try deviceSection(table, file: file))
            }
        }
        result.sources.append(file)
        config = result
    }

    private static func deviceSection(_ table: TOMLTable, file: String) throws(ConfigurationError) -> Configuration.DeviceSection
    {
        let headerLine = table.line
        func line(_ key: String) -> Int { table.line(of: key) }
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
            section.overrides = try thresholdValues(t, file: file).map { ($0.key, $0.value) }
            var check = GestureThresholds.defaults
            for (k, v) in section.overrides { check[keyPath: GestureThresholds.keys.first { $0.name == k }!.keyPath] = v }
            for p in check.problems() where section.overrides.contains(where: { p.hasPrefix($0.key) }) {
                throw ConfigurationError(file: file, line: headerLine, message: p)
            }
        }
        return section
    }

    private static func readDaemon(_ table: TOMLTable, file: String, into d: inout DaemonSettings) throws(ConfigurationError) {
        func fail(_ key: String, _ message: String) -> ConfigurationError {
            ConfigurationError(file: file, line: table.line(of: key), message: message)
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
        if let v = table["max-clients-per-user"] {
            guard let n = v.int, (1...65536).contains(n) else {
                throw fail("max-clients-per-user", "max-clients-per-user must be a whole number from 1 to 65536")
            }
            d.maxClientsPerUser = n
        }
        if let v = table["subscribe-timeout"] {
            guard let t = v.number, t >= 0.1, t <= 3600 else {
                throw fail("subscribe-timeout", "subscribe-timeout must be a number of seconds from 0.1 to 3600")
            }
            d.subscribeTimeout = t
        }
    }

    /// Flattens `tap.maxDuration = 500` and `[thresholds.tap] maxDuration = 500` alike into ("tap.maxDuration", 500),
    /// with the line each is set on.
    private static func thresholdValues(
        _ table: TOMLTable, file: String
    ) throws(ConfigurationError) -> [(key: String, value: Double, line: Int)] {
        var out: [(String, Double, Int)] = []
        func walk(_ t: TOMLTable, prefix: String) throws(ConfigurationError) {
            for key in t.keys {
                let name = prefix.isEmpty ? key : prefix + "." + key
                let value = t[key]!
                if let sub = value.table {
                    try walk(sub, prefix: name)
                    continue
                }
                let line = t.line(of: key)
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
                out.append((name, number, line))
            }
        }
        try walk(table, prefix: "")
        return out
    }
}
