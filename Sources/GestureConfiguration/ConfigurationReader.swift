import GestureCore
import TOML
public import ToolSupport

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

    static let deviceKeys = ["match", "size", "rotation", "flip-x", "flip-y", "claim", "thresholds"]

    /// Every problem of one file, reported together in line order: a file
    /// with four mistakes takes one run of check-config, not four.
    private struct Problems {
        let file: String
        var found: [ConfigurationError.Problem] = []

        mutating func add(_ line: Int, _ message: String) {
            found.append(.init(file: file, line: line, message: message))
        }

        func check() throws(ConfigurationError) {
            guard !found.isEmpty else { return }
            // Stable: problems on one line keep the order they were found in.
            let sorted = found.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }
            throw ConfigurationError(problems: sorted.map(\.element))
        }
    }

    /// Applies the file over `config`, or leaves `config` as it was and
    /// throws every problem found (a TOML syntax error ends the reading at
    /// its line: nothing after it can be read).
    public static func read(_ text: String, file: String, into config: inout Configuration) throws(ConfigurationError) {
        try read(bytes: Array(text.utf8), file: file, into: &config)
    }

    /// The file as read from disk: bytes that are not UTF-8 are an error with their line.
    public static func read(bytes: [UInt8], file: String, into config: inout Configuration) throws(ConfigurationError) {
        let root: TOMLTable
        do {
            root = try TOMLParser.parse(bytes: bytes)
        } catch {
            throw ConfigurationError(file: file, line: error.line, message: "not valid TOML: " + error.message)
        }
        var problems = Problems(file: file)
        var result = config
        for key in root.keys where !topLevel.contains(key) {
            problems.add(root.line(of: key), Suggestion.unknown("section or key", key, known: topLevel))
        }
        if let value = root["thresholds"] {
            if let table = value.table {
                let values = thresholdValues(table, problems: &problems)
                for (name, v, _) in values {
                    result.thresholds[keyPath: GestureThresholds.keys.first { $0.name == name }!.keyPath] = v
                }
                for p in result.thresholds.problems() {
                    // The line of the threshold the problem names, if this
                    // file sets it; of two a relation names, the later one's.
                    let named = values.filter { Self.names(p, $0.key) }.map(\.line).max()
                    problems.add(named ?? table.line, p)
                }
            } else {
                problems.add(root.line(of: "thresholds"), "'thresholds' must be a table: [thresholds]")
            }
        }
        if let value = root["daemon"] {
            if let table = value.table {
                readDaemon(table, problems: &problems, into: &result.daemon)
            } else {
                problems.add(root.line(of: "daemon"), "'daemon' must be a table: [daemon]")
            }
        }
        if let value = root["device"] {
            if let array = value.array {
                for item in array {
                    if let table = item.table {
                        result.devices.append(deviceSection(table, base: result.thresholds, problems: &problems))
                    } else {
                        problems.add(root.line(of: "device"), "each [[device]] must be a table")
                    }
                }
            } else {
                problems.add(root.line(of: "device"), "'device' must be an array of tables: [[device]]")
            }
        }
        try problems.check()
        result.sources.append(file)
        config = result
    }

    /// Whether problem `p` names threshold `key` (as its subject, or as the
    /// other side of a relation: "a (1) must not exceed b (2)").
    static func names(_ p: String, _ key: String) -> Bool {
        p.hasPrefix(key + " ") || p.contains(" \(key) (")
    }

    /// `base`: the thresholds read so far, which a section's own override.
    private static func deviceSection(
        _ table: TOMLTable, base: GestureThresholds, problems: inout Problems
    ) -> Configuration.DeviceSection {
        let headerLine = table.line
        func line(_ key: String) -> Int { table.line(of: key) }
        for key in table.keys where !deviceKeys.contains(key) {
            problems.add(line(key), Suggestion.unknown("key", key, known: deviceKeys, context: " in [[device]]"))
        }
        let match = table["match"]?.string ?? ""
        if match.isEmpty {
            problems.add(
                headerLine,
                "[[device]] needs match = \"DEVICE NAME\" or match = \"vvvv:pppp\" (see `gestured devices` or the trace's N: line)"
            )
        }
        var section = Configuration.DeviceSection(match: match, origin: "\(problems.file):\(headerLine)")
        if let v = table["size"] {
            if let text = v.string, let size = parseSize(text) {
                section.size = size
            } else {
                problems.add(line("size"), "size must be \"WIDTHxHEIGHT\" in mm, each 1 to 10000, e.g. \"277x156\"")
            }
        }
        if let v = table["rotation"] {
            if let r = v.int, [0, 90, 180, 270].contains(r) {
                section.rotation = r
                section.followsSensor = false
            } else if v.string == "auto" {
                section.rotation = 0
                section.followsSensor = true
            } else {
                problems.add(
                    line("rotation"),
                    "rotation must be 0, 90, 180 or 270 (degrees clockwise), or \"auto\" to follow the accelerometer")
            }
        }
        for (key, path) in [
            ("flip-x", \Configuration.DeviceSection.flipX), ("flip-y", \Configuration.DeviceSection.flipY),
            ("claim", \Configuration.DeviceSection.claim),
        ]
            as [(String, WritableKeyPath<Configuration.DeviceSection, Bool?>)]
        {
            guard let v = table[key] else { continue }
            if let b = v.bool {
                section[keyPath: path] = b
            } else {
                problems.add(line(key), "\(key) must be true or false")
            }
        }
        if let v = table["thresholds"] {
            if let t = v.table {
                section.overrides = thresholdValues(t, problems: &problems).map { ($0.key, $0.value) }
                // Over the thresholds read so far, as the device gets them.
                var check = base
                for (k, v) in section.overrides { check[keyPath: GestureThresholds.keys.first { $0.name == k }!.keyPath] = v }
                for p in check.problems() where section.overrides.contains(where: { Self.names(p, $0.key) }) {
                    problems.add(headerLine, p)
                }
            } else {
                problems.add(line("thresholds"), "thresholds must be a table: [device.thresholds]")
            }
        }
        return section
    }

    private static func readDaemon(_ table: TOMLTable, problems: inout Problems, into d: inout DaemonSettings) {
        func fail(_ key: String, _ message: String) { problems.add(table.line(of: key), message) }
        for key in table.keys where !DaemonSettings.keys.contains(key) {
            fail(key, Suggestion.unknown("key", key, known: DaemonSettings.keys, context: " in [daemon]"))
        }
        if let v = table["socket"] {
            if let path = v.string, path.isEmpty || path.hasPrefix("/") {
                d.socket = path.isEmpty ? nil : path
            } else {
                fail("socket", "socket must be an absolute path, e.g. \"/run/gestured/gestured.sock\"")
            }
        }
        if let v = table["socket-mode"] {
            let mode: UInt32?
            if let i = v.int { mode = UInt32(exactly: i) } else { mode = v.string.flatMap { UInt32($0, radix: 8) } }
            if let mode, mode <= 0o777 {
                d.socketMode = mode
            } else {
                fail("socket-mode", "socket-mode must be octal permission bits, e.g. \"0660\" or 0o660")
            }
        }
        if let v = table["socket-group"] {
            if let g = v.string {
                d.socketGroup = g
            } else {
                fail("socket-group", "socket-group must be a group name or \"\"")
            }
        }
        for (key, path) in [
            ("allow-users", \DaemonSettings.allowUsers), ("allow-groups", \DaemonSettings.allowGroups),
            ("any-session-users", \DaemonSettings.anySessionUsers),
        ]
            as [(String, WritableKeyPath<DaemonSettings, [String]>)]
        {
            guard let v = table[key] else { continue }
            let names = v.array.flatMap { array -> [String]? in
                let names = array.compactMap { item -> String? in
                    if let s = item.string, !s.isEmpty { return s }
                    if let i = item.int, i >= 0, i < Int(UInt32.max) { return String(i) }
                    return nil
                }
                return names.count == array.count ? names : nil
            }
            if let names {
                d[keyPath: path] = names
            } else {
                fail(key, "\(key) must be a list of names or ids, e.g. [\"alice\", 1000]")
            }
        }
        if let v = table["deliver"] {
            if let value = v.string, DaemonSettings.deliveries.contains(value) {
                d.deliver = value
            } else {
                fail("deliver", "deliver must be one of \(DaemonSettings.deliveries.joined(separator: ", "))")
            }
        }
        if let v = table["seat"] {
            if let seat = v.string, !seat.isEmpty {
                d.seat = seat
            } else {
                fail("seat", "seat must be a udev seat name, e.g. \"seat0\"")
            }
        }
        if let v = table["log-level"] {
            if let level = v.string, DaemonSettings.logLevels.contains(level) {
                d.logLevel = level
            } else {
                fail("log-level", "log-level must be one of \(DaemonSettings.logLevels.joined(separator: ", "))")
            }
        }
        if let v = table["client-buffer-kib"] {
            if let kib = v.int, (4...65536).contains(kib) {
                d.clientBuffer = kib * 1024
            } else {
                fail("client-buffer-kib", "client-buffer-kib must be a whole number of KiB from 4 to 65536")
            }
        }
        if let v = table["max-clients"] {
            if let n = v.int, (1...65536).contains(n) {
                d.maxClients = n
            } else {
                fail("max-clients", "max-clients must be a whole number from 1 to 65536")
            }
        }
        if let v = table["max-clients-per-user"] {
            if let n = v.int, (1...65536).contains(n) {
                d.maxClientsPerUser = n
            } else {
                fail("max-clients-per-user", "max-clients-per-user must be a whole number from 1 to 65536")
            }
        }
        if let v = table["subscribe-timeout"] {
            if let t = v.number, t >= 0.1, t <= 3600 {
                d.subscribeTimeout = t
            } else {
                fail("subscribe-timeout", "subscribe-timeout must be a number of seconds from 0.1 to 3600")
            }
        }
    }

    /// Flattens `tap.maxDuration = 500` and `[thresholds.tap] maxDuration = 500` alike into ("tap.maxDuration", 500),
    /// with the line each is set on; what is not a known threshold set to a number is a problem, and left out.
    private static func thresholdValues(
        _ table: TOMLTable, problems: inout Problems
    ) -> [(key: String, value: Double, line: Int)] {
        var out: [(String, Double, Int)] = []
        func walk(_ t: TOMLTable, prefix: String) {
            for key in t.keys {
                let name = prefix.isEmpty ? key : prefix + "." + key
                let value = t[key]!
                if let sub = value.table {
                    walk(sub, prefix: name)
                    continue
                }
                let line = t.line(of: key)
                guard let k = GestureThresholds.keys.first(where: { $0.name == name }) else {
                    problems.add(line, Suggestion.unknown("threshold", name, known: GestureThresholds.keys.map(\.name)))
                    continue
                }
                if let d = value.double {
                    out.append((name, d, line))
                } else if let i = value.int {
                    out.append((name, Double(i), line))
                } else {
                    problems.add(line, "threshold '\(name)' must be a number (\(k.unit)), not \(value.type)")
                }
            }
        }
        walk(table, prefix: "")
        return out
    }
}
