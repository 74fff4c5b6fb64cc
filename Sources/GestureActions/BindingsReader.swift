import GestureCore
import GestureProtocol
import TOML
package import ToolSupport

/// Reads `[[bind]]` tables from an actions file (TOML, `TOMLParser`).
///
/// ```toml
/// [[bind]]
/// gesture = "swipe"
/// fingers = 3
/// direction = "up"
/// run = ["wofi", "--show", "drun"]
/// ```
///
/// Unknown keys are errors, so that a typo never passes as "match anything".
/// Errors are the configuration's (`ConfigurationError`: "FILE:LINE: message").
package enum BindingsReader {
    static let keys = [
        "gesture", "fingers", "direction", "edge", "region", "device", "phase", "run", "keys", "on-began", "on-changed",
        "on-ended", "pipe", "changed-interval-ms", "timeout-ms", "max-per-second", "claim", "when", "track",
        "touchpad", "pointer", "hold-ms", "shape",
    ]
    /// The keys of `track`.
    static let trackKeys = ["axis", "distance-mm", "factor", "degrees", "commit"]
    /// Each `track.axis`: the way it grows unless the binding's direction
    /// says the other, the key of its distance, and that distance's default.
    static let trackAxes: [String: (grows: Track.Toward, back: Track.Toward, unit: String, fallback: Double)] = [
        "x": (.right, .left, "distance-mm", 60),
        "y": (.down, .up, "distance-mm", 60),
        "scale": (.open, .close, "factor", 2),
        "rotation": (.clockwise, .counterclockwise, "degrees", 90),
    ]
    /// The keys of `when`.
    static let whenKeys = ["locked", "tablet-mode", "app", "not-app", "title", "fullscreen", "output", "keyboard"]
    /// The tables a file may have besides its bindings.
    static let tables = ["bind", "screen", "context", "shape"]

    package static func read(_ text: String, file: String) throws(ConfigurationError) -> [Binding] {
        try read(bytes: Array(text.utf8), file: file)
    }

    /// The file as read from disk: bytes that are not UTF-8 are an error with their line.
    package static func read(bytes: [UInt8], file: String) throws(ConfigurationError) -> [Binding] {
        try readFile(bytes: bytes, file: file).bindings
    }

    /// What one actions file says: its bindings, and its `[screen]` and
    /// `[context]` tables if it has them.
    package struct File {
        package var bindings: [Binding] = []
        package var screen: ScreenSettings?
        package var context: ContextSettings?
        /// Its `[[shape]]`s (`ShapesReader`).
        package var shapes: [ShapeDefinition] = []
    }

    package static func readFile(bytes: [UInt8], file: String) throws(ConfigurationError) -> File {
        let root: TOMLTable
        do {
            root = try TOMLParser.parse(bytes: bytes)
        } catch {
            throw ConfigurationError(file: file, line: error.line, message: "not valid TOML: " + error.message)
        }
        // Every mistake of the file at once, each with its line.
        var errors: [ConfigurationError] = []
        for key in root.keys where !tables.contains(key) {
            errors.append(
                ConfigurationError(
                    file: file, line: root.line(of: key),
                    message:
                        "unknown key '\(key)'\(Suggestion.closest(to: key, among: tables).map { "; did you mean '\($0)'?" } ?? ""); bindings are [[bind]] tables, [screen] says which output is the touchscreen's, [context] which apps keep their touches and [[shape]] the shapes strokes are"
                ))
        }
        var read = File()
        do {
            read.screen = try root["screen"].map { v throws(ConfigurationError) in try screenSettings(v, root, file: file) }
        } catch {
            errors.append(error)
        }
        do {
            read.context = try root["context"].map { v throws(ConfigurationError) in try contextSettings(v, root, file: file) }
        } catch {
            errors.append(error)
        }
        if let value = root["shape"] {
            let (shapes, problems) = ShapesReader.shapes(value, root, file: file)
            read.shapes = shapes
            errors += problems
        }
        var bindings: [Binding] = []
        if let value = root["bind"] {
            if let array = value.array {
                for item in array {
                    guard let table = item.table else {
                        errors.append(
                            ConfigurationError(
                                file: file, line: root.line(of: "bind"), message: "each [[bind]] must be a table"))
                        continue
                    }
                    do {
                        let b = try binding(table, file: file)
                        // The daemon reads one track per gesture (the first that measures it).
                        if let t = b.track,
                            let other = bindings.first(where: { $0.track != nil && $0.track != t && $0.sharesGestures(with: b) })
                        {
                            errors.append(
                                ConfigurationError(
                                    file: file, line: table.line(of: "track"),
                                    message:
                                        "track: this binding and \(other.origin) track the same \(b.gesture.rawValue)s differently; a gesture has one track: give them the same track, or other fingers"
                                ))
                        }
                        bindings.append(b)
                    } catch {
                        errors.append(error)
                    }
                }
            } else {
                errors.append(
                    ConfigurationError(
                        file: file, line: root.line(of: "bind"), message: "'bind' must be an array of tables: [[bind]]"))
            }
        }
        if let all = ConfigurationError(errors) { throw all.sortedByLine }
        read.bindings = bindings
        return read
    }

    /// App names or title patterns: a string or a non-empty list of
    /// non-empty strings, each a shell pattern matched ignoring case.
    static func patterns(_ v: TOMLValue, _ key: String) -> [NamePattern]? {
        let list = v.string.map { [$0] } ?? v.array?.compactMap(\.string)
        guard let list, !list.isEmpty, list.count == (v.array?.count ?? 1),
            list.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 256 })
        else { return nil }
        return list.map(NamePattern.init)
    }

    /// `[context]`: `leave-to-apps` names the apps that keep every touch
    /// while they have the focus; `touch-cancel` whether the compositor
    /// passes touch cancels on to apps.
    static func contextSettings(_ v: TOMLValue, _ root: TOMLTable, file: String) throws(ConfigurationError) -> ContextSettings {
        guard let t = v.table else {
            throw ConfigurationError(file: file, line: root.line(of: "context"), message: "'context' must be a table: [context]")
        }
        var c = ContextSettings()
        for key in t.keys {
            switch key {
            case "leave-to-apps":
                guard let list = t[key].flatMap({ patterns($0, key) }) else {
                    throw ConfigurationError(
                        file: file, line: t.line(of: key),
                        message:
                            "leave-to-apps must be a list of apps (app_id, or WM_CLASS on X11; * and ? match any text), e.g. [\"org.kde.krita\", \"gimp*\"]"
                    )
                }
                c.leaveToApps = list
            case "touch-cancel":
                guard let name = t[key]?.string, let value = TouchCancel(rawValue: name) else {
                    throw ConfigurationError(
                        file: file, line: t.line(of: key),
                        message:
                            "touch-cancel must be \"auto\" (by the compositor act finds), \"passed-on\" (the compositor sends apps libinput's touch cancel) or \"dropped\" (it does not: claimable first touches are held back, and ended by a lift)"
                    )
                }
                c.touchCancel = value
            default:
                throw ConfigurationError(
                    file: file, line: t.line(of: key),
                    message: Suggestion.unknown("key", key, known: ["leave-to-apps", "touch-cancel"], context: " in [context]"))
            }
        }
        return c
    }

    /// `[screen]`: `output` names the compositor's output the touchscreens
    /// show on (when neither their `WL_OUTPUT` nor a single or built-in
    /// output tells); `follow-rotation = false` stops act from telling the
    /// daemon how that output is turned.
    static func screenSettings(_ v: TOMLValue, _ root: TOMLTable, file: String) throws(ConfigurationError) -> ScreenSettings {
        guard let t = v.table else {
            throw ConfigurationError(file: file, line: root.line(of: "screen"), message: "'screen' must be a table: [screen]")
        }
        var s = ScreenSettings()
        for key in t.keys {
            switch key {
            case "output":
                guard let name = t[key]?.string, !name.isEmpty, name.utf8.count <= 63 else {
                    throw ConfigurationError(
                        file: file, line: t.line(of: key), message: "output must be an output's name, e.g. \"eDP-1\"")
                }
                s.output = name
            case "follow-rotation":
                guard let on = t[key]?.bool else {
                    throw ConfigurationError(file: file, line: t.line(of: key), message: "follow-rotation must be true or false")
                }
                s.followRotation = on
            default:
                throw ConfigurationError(
                    file: file, line: t.line(of: key),
                    message: Suggestion.unknown("key", key, known: ["output", "follow-rotation"], context: " in [screen]")
                )
            }
        }
        return s
    }

    /// A binding's `track = { axis = "x", distance-mm = 60, commit = 0.5 }`:
    /// the axis must be one the gesture moves along, and the way it grows
    /// is the binding's direction on it (right, down, open, clockwise when
    /// it names none).
    static func track(
        _ v: TOMLValue, gesture: GestureKind, directions: [GestureDirection]?,
        fail: (String, String) -> ConfigurationError
    ) throws(ConfigurationError) -> Track {
        let example = "track = { axis = \"x\", distance-mm = 60, commit = 0.5 }"
        guard let table = v.table else { throw fail("track", "track must be a table: \(example)") }
        for key in table.keys where !trackKeys.contains(key) {
            throw fail("track", Suggestion.unknown("key", key, known: trackKeys, context: " in track"))
        }
        guard let axis = table["axis"]?.string, let (grows, back, unitKey, fallback) = trackAxes[axis] else {
            throw fail("track", "track.axis must be \"x\", \"y\" (drags, holds), \"scale\" (pinches) or \"rotation\": \(example)")
        }
        // The way it grows: the binding's direction on the axis, if it names one way only.
        let named = Set((directions ?? []).map(\.rawValue))
        let toward = named.contains(back.rawValue) && !named.contains(grows.rawValue) ? back : grows
        guard toward.gestures.contains(gesture) else {
            let fits = toward.gestures.map(\.rawValue).sorted().joined(separator: " or ")
            throw fail(
                "track", "a \(gesture.rawValue) does not move along track.axis = \"\(axis)\"; that axis tracks a \(fits)")
        }
        for key in ["distance-mm", "factor", "degrees"] where key != unitKey && table[key] != nil {
            throw fail("track", "track.\(key) is not for axis \"\(axis)\"; give track.\(unitKey)")
        }
        guard table[unitKey] == nil || table[unitKey]?.number != nil, table["commit"] == nil || table["commit"]?.number != nil
        else {
            throw fail("track", "track.\(unitKey) and track.commit must be numbers")
        }
        let distance = table[unitKey]?.number ?? fallback
        let commit = table["commit"]?.number ?? 0.5
        if let why = Track.problem(toward: toward, distance: distance, commit: commit) { throw fail("track", why) }
        return Track(toward: toward, distance: distance, commit: commit)!
    }

    static func binding(_ t: TOMLTable, file: String) throws(ConfigurationError) -> Binding {
        func fail(_ key: String, _ message: String) -> ConfigurationError {
            ConfigurationError(file: file, line: key.isEmpty ? t.line : t.line(of: key), message: message)
        }
        // Every mistake of the binding, each key on its own.
        var errors: [ConfigurationError] = []
        func check(_ body: () throws(ConfigurationError) -> Void) {
            do { try body() } catch { errors.append(error) }
        }
        for key in t.keys where !keys.contains(key) {
            errors.append(fail(key, Suggestion.unknown("key", key, known: keys, context: " in [[bind]]")))
        }
        var gesture = GestureKind.tap
        if let name = t["gesture"] {
            if let g = name.string, let kind = GestureKind(rawValue: g) {
                gesture = kind
            } else {
                errors.append(
                    fail("gesture", "gesture must be one of \(GestureKind.allCases.map(\.rawValue).joined(separator: ", "))"))
            }
        } else {
            errors.append(fail("", "[[bind]] without gesture = \"…\""))
        }
        var b = Binding(origin: "\(file):\(t.line)", gesture: gesture)

        /// A string or an array of strings.
        func strings(_ key: String) throws(ConfigurationError) -> [String]? {
            guard let v = t[key] else { return nil }
            if let s = v.string { return [s] }
            guard let a = v.array, !a.isEmpty else { throw fail(key, "\(key) must be a string or a non-empty array of strings") }
            var out: [String] = []
            for e in a {
                guard let s = e.string else { throw fail(key, "\(key) must be a string or a non-empty array of strings") }
                out.append(s)
            }
            return out
        }
        func command(_ key: String) throws(ConfigurationError) -> [String]? {
            guard let v = t[key] else { return nil }
            guard let a = v.array, !a.isEmpty, let list = try strings(key), list.count == a.count, !list[0].isEmpty else {
                throw fail(
                    key,
                    "\(key) must be a command as a list, e.g. [\"notify-send\", \"swiped\"] (for a shell: [\"sh\", \"-c\", \"…\"])"
                )
            }
            return list
        }
        func milliseconds(_ key: String, _ range: ClosedRange<Int>) throws(ConfigurationError) -> Timestamp.Duration? {
            guard let v = t[key] else { return nil }
            guard let ms = v.int, range.contains(ms) else {
                throw fail(key, "\(key) must be a whole number of milliseconds, \(range.lowerBound) to \(range.upperBound)")
            }
            return .milliseconds(Double(ms))
        }

        check { () throws(ConfigurationError) in
            guard let v = t["fingers"] else { return }
            let list = v.int.map { [$0] } ?? v.array?.compactMap(\.int)
            guard let list, !list.isEmpty, list.count == (v.array?.count ?? 1), list.allSatisfy({ (1...16).contains($0) }) else {
                throw fail(
                    "fingers", "fingers must be a number of fingers (1 to 16, as the protocol counts them) or a list of them")
            }
            b.fingers = list
        }
        check { () throws(ConfigurationError) in
            guard let list = try strings("direction") else { return }
            var out: [GestureDirection] = []
            for s in list {
                guard let d = GestureDirection(rawValue: s) else {
                    throw fail(
                        "direction",
                        "'\(s)' is not a direction; known: \(GestureDirection.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                out.append(d)
            }
            // A drag's or a hold's events carry no direction: there it only
            // says which way a track grows.
            if (gesture == .drag || gesture == .touchAndHold) && t["track"] == nil {
                throw fail(
                    "direction",
                    "a \(gesture.rawValue) has no direction (its events carry dx_mm and dy_mm): bind a swipe or a flick for a stroke one way, or give the \(gesture.rawValue) a track, which grows this way"
                )
            }
            b.directions = out
        }
        check { () throws(ConfigurationError) in
            guard let list = try strings("edge") else { return }
            var out: [PanelEdge] = []
            for s in list {
                guard let e = PanelEdge(rawValue: s) else {
                    throw fail("edge", "'\(s)' is not an edge; known: left, right, top, bottom")
                }
                out.append(e)
            }
            b.edges = out
        }
        check { () throws(ConfigurationError) in
            guard let v = t["region"] else { return }
            let r = v.array?.compactMap(\.number) ?? []
            guard r.count == 4, v.array?.count == 4, r.allSatisfy({ (0...1).contains($0) }), r[0] < r[2], r[1] < r[3] else {
                throw fail("region", "region must be [x0, y0, x1, y1], fractions of the panel with x0 < x1 and y0 < y1")
            }
            b.region = r
        }
        check { () throws(ConfigurationError) in
            guard let v = t["device"] else { return }
            guard let s = v.string, !s.isEmpty else { throw fail("device", "device must be a device's name (gestured devices)") }
            b.device = s
        }
        check { () throws(ConfigurationError) in
            guard let v = t["phase"] else { return }
            guard let s = v.string, let p = GesturePhase(rawValue: s) else {
                throw fail("phase", "phase must be one of \(GesturePhase.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            b.phase = p
        }
        check { () throws(ConfigurationError) in
            guard let v = t["shape"] else {
                if gesture == .stroke {
                    throw fail(
                        "",
                        "a stroke binding names its shape: shape = \"NAME\", one of the [[shape]]s (gestured stroke record NAME)")
                }
                return
            }
            guard let s = v.string, (1...ShapesReader.limits.nameBytes).contains(s.utf8.count) else {
                throw fail("shape", "shape must be the name of a [[shape]], 1 to 64 bytes")
            }
            guard gesture == .stroke else {
                throw fail("shape", "shape is the shape a stroke draws: it needs gesture = \"stroke\"")
            }
            b.shape = s
        }
        check { () throws(ConfigurationError) in b.run = try command("run") }
        check { () throws(ConfigurationError) in
            guard let v = t["keys"] else { return }
            guard let s = v.string else { throw fail("keys", "keys must be a chord such as \"alt+Left\"") }
            do throws(ChordError) {
                b.keys = try Chord(s)
            } catch {
                throw fail("keys", error.message)
            }
        }
        check { () throws(ConfigurationError) in b.onBegan = try command("on-began") }
        check { () throws(ConfigurationError) in b.onChanged = try command("on-changed") }
        check { () throws(ConfigurationError) in b.onEnded = try command("on-ended") }
        check { () throws(ConfigurationError) in b.pipe = try command("pipe") }
        check { () throws(ConfigurationError) in
            if let d = try milliseconds("changed-interval-ms", 0...60_000) { b.changedInterval = d }
        }
        check { () throws(ConfigurationError) in
            if let d = try milliseconds("timeout-ms", 1...3_600_000) { b.timeout = d }
        }
        check { () throws(ConfigurationError) in
            guard let v = t["max-per-second"] else { return }
            guard let n = v.int, (1...1000).contains(n) else {
                throw fail("max-per-second", "max-per-second must be a whole number of times, 1 to 1000")
            }
            b.maxPerSecond = n
        }
        check { () throws(ConfigurationError) in
            guard let v = t["pointer"] else { return }
            let known = PointerClick.Button.allCases.map { "\"\($0.rawValue)-click\"" }.joined(separator: ", ")
            guard let name = v.string, name.hasSuffix("-click"),
                let button = PointerClick.Button(rawValue: String(name.dropLast("-click".count)))
            else { throw fail("pointer", "pointer must be one of \(known)") }
            b.pointer = button
        }
        check { () throws(ConfigurationError) in
            guard let v = t["hold-ms"] else { return }
            guard let ms = v.int, (0...10_000).contains(ms) else {
                throw fail("hold-ms", "hold-ms must be a whole number of milliseconds, 0 to 10000")
            }
            guard gesture == .touchAndHold || gesture == .stroke else {
                throw fail(
                    "hold-ms",
                    "hold-ms is how long a touch-and-hold lasts before the binding acts, or how long a stroke's fingers rest before they draw: it needs gesture = \"touch-and-hold\" or \"stroke\""
                )
            }
            b.holdMs = ms
        }
        check { () throws(ConfigurationError) in
            guard let v = t["claim"] else { return }
            guard let c = v.bool else { throw fail("claim", "claim must be true or false") }
            b.claim = c
            if c && b.claims.isEmpty {
                throw fail(
                    "claim",
                    "claim = true needs fingers of 2 or more, or an edge: one finger anywhere would take every touch from apps")
            }
        }
        check { () throws(ConfigurationError) in
            guard let v = t["touchpad"] else { return }
            guard let on = v.bool else { throw fail("touchpad", "touchpad must be true or false") }
            guard on else { return }
            guard [.swipe, .pinch, .rotate].contains(gesture) else {
                throw fail(
                    "touchpad", "touchpad = true is for swipe, pinch and rotate: the compositor's touchpad gestures")
            }
            guard let fingers = b.fingers, !fingers.isEmpty, fingers.allSatisfy({ $0 == 3 || $0 == 4 }) else {
                throw fail(
                    "touchpad",
                    "touchpad = true needs fingers = 3 or 4 (or both): the finger counts compositors bind to touchpad swipes and pinches"
                )
            }
            guard b.claim != false else {
                throw fail("touchpad", "touchpad = true claims the touches: it cannot go with claim = false")
            }
            b.touchpad = true
        }
        check { () throws(ConfigurationError) in
            guard let v = t["track"] else { return }
            b.track = try track(v, gesture: gesture, directions: b.directions, fail: fail)
        }
        check { () throws(ConfigurationError) in
            guard let v = t["when"] else { return }
            guard let w = v.table else {
                throw fail("when", "when must be a table: when = { locked = true }")
            }
            for key in w.keys.sorted() {
                switch key {
                case "locked":
                    guard let locked = w["locked"]?.bool else { throw fail("when", "when.locked must be true or false") }
                    b.whenLocked = locked
                case "tablet-mode":
                    guard let on = w["tablet-mode"]?.bool else { throw fail("when", "when.tablet-mode must be true or false") }
                    b.whenTabletMode = on
                case "fullscreen":
                    guard let on = w["fullscreen"]?.bool else { throw fail("when", "when.fullscreen must be true or false") }
                    b.whenFullscreen = on
                case "keyboard":
                    guard let on = w["keyboard"]?.bool else {
                        throw fail("when", "when.keyboard must be true (while an on-screen keyboard is shown) or false")
                    }
                    b.whenKeyboard = on
                case "app", "not-app", "title", "output":
                    let what =
                        switch key {
                        case "title": "a window title"
                        case "output": "an output's name as the compositor names it (eDP-1, HDMI-A-1)"
                        default: "an app (app_id, or WM_CLASS on X11)"
                        }
                    guard let list = w[key].flatMap({ patterns($0, key) }) else {
                        throw fail(
                            "when",
                            "when.\(key) must be \(what) or a list of them, each a pattern where * and ? match any text, e.g. \(key) = [\"org.kde.*\"]"
                        )
                    }
                    switch key {
                    case "app": b.whenApps = list
                    case "not-app": b.whenNotApps = list
                    case "output": b.whenOutputs = list
                    default: b.whenTitles = list
                    }
                default:
                    throw fail("when", Suggestion.unknown("key", key, known: whenKeys, context: " in when"))
                }
            }
        }
        let doesSomething =
            t["run"] != nil || t["keys"] != nil || t["on-began"] != nil || t["on-changed"] != nil
            || t["on-ended"] != nil || t["pipe"] != nil || t["touchpad"]?.bool == true || t["pointer"] != nil
        if !doesSomething {
            errors.append(
                fail(
                    "",
                    "[[bind]] does nothing: give run, keys, pointer, on-began, on-changed, on-ended, pipe or touchpad = true"))
        }
        if gesture.isDiscrete && (t["on-began"] != nil || t["on-changed"] != nil || t["on-ended"] != nil) {
            errors.append(
                fail(
                    "",
                    "\(gesture.rawValue) has no phases: use run or keys (on-began, on-changed and on-ended are for drag, pinch, rotate and touch-and-hold)"
                ))
        }
        if let all = ConfigurationError(errors) { throw all.sortedByLine }
        return b
    }
}
