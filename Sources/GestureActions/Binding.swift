package import GestureCore
package import GestureProtocol

/// One `[[bind]]` of an actions file: what a gesture event must carry, and
/// what to do then.
///
/// Every criterion left out matches anything. `run` and `keys` happen once
/// per gesture, on its first event that meets every criterion and is not a
/// `changed` or `cancelled` one: a tap or swipe when it is recognized, a
/// drag, pinch, rotation or hold when it begins, or when it ends if the
/// binding names what only the end carries (a pinch's `open`/`close`, a
/// rotation's direction). The hooks follow a continuous gesture through its
/// phases.
package struct Binding: Sendable, Equatable {
    /// Where the binding was written: "FILE:LINE".
    package var origin: String
    package var gesture: GestureKind
    package var fingers: [Int]?
    package var directions: [GestureDirection]?
    package var edges: [PanelEdge]?
    /// Fractions of the panel where the gesture started: x0, y0, x1, y1.
    package var region: [Double]?
    /// The device's name, as `gestured devices` prints it.
    package var device: String?
    /// Only on this phase (instead of the first event that matches).
    package var phase: GesturePhase?
    /// A stroke binding's shape: one of the actions files' `[[shape]]`s,
    /// which act sends the daemon; the stroke's `shape` must be it.
    package var shape: String?

    package var run: [String]?
    package var keys: Chord?
    /// `pointer = "right-click"`: a click of this button where the gesture
    /// is (act's own virtual pointer on wlroots compositors, else the
    /// daemon's: protocol 1.8).
    package var pointer: PointerClick.Button?
    /// `hold-ms`: a touch-and-hold binding acts once the hold has lasted
    /// this long with its fingers within the daemon's `slop` of where they
    /// landed, none lifting, as the daemon's `held_ms` says (nil: when it
    /// begins, at the daemon's `hold.minDuration`; a binding with
    /// `pointer`: `pointerHold`). A stroke binding matches only a stroke
    /// drawn after its fingers rested so long (touch, wait, draw).
    package var holdMs: Int?
    package var onBegan: [String]?
    package var onChanged: [String]?
    package var onEnded: [String]?
    /// A program started once and fed every event of the binding's
    /// gestures as a JSON line on its standard input (`Pipes`).
    package var pipe: [String]?
    /// Follow the gesture one to one: the daemon adds `progress` to its
    /// events and `completed` to its end (docs/gestures.md, "Tracked gestures").
    package var track: Track?
    /// `on-changed` runs at most this often; the last value always does.
    package var changedInterval: Timestamp.Duration = .milliseconds(100)
    /// A command still running after this is stopped (SIGTERM, then SIGKILL).
    package var timeout: Timestamp.Duration = .milliseconds(10_000)
    /// The most commands and chords the binding starts in a second, hooks
    /// included; more are skipped (and logged, at most once a second).
    package var maxPerSecond = 10
    /// Whether its touches are taken from the apps on a claimed touchscreen
    /// (nil: the default of `claims`).
    package var claim: Bool?
    /// `touchpad = true`: its claimed touches go on to the daemon's virtual
    /// touchpad, for the compositor's own touchpad gestures.
    package var touchpad = false
    /// `when.locked`: whether it acts while the session at the screen is
    /// locked (true: only then) or unlocked (false, the default: only then).
    package var whenLocked = false
    /// `when.tablet-mode`: only in tablet mode (true), only out of it (false), either (nil).
    package var whenTabletMode: Bool?
    /// `when.app`: only while one of these apps has the focus.
    package var whenApps: [NamePattern]?
    /// `when.not-app`: never while one of these apps has the focus.
    package var whenNotApps: [NamePattern]?
    /// `when.title`: only while the focused window's title matches one of these.
    package var whenTitles: [NamePattern]?
    /// `when.fullscreen`: only while the focused window is fullscreen (true), only while it is not (false).
    package var whenFullscreen: Bool?
    /// `when.output`: only on touchscreens that show on one of these outputs.
    package var whenOutputs: [NamePattern]?
    /// `when.keyboard`: only while an on-screen keyboard is shown (true), only while none is (false).
    package var whenKeyboard: Bool?

    /// How long a touch-and-hold that clicks waits by default, ms: Qt's
    /// own press-and-hold; a toolkit whose long press comes sooner (GTK:
    /// 500 ms) acts on it first unless `hold-ms` is shorter (docs/claiming.md).
    package static let pointerHold = 800

    /// How long the hold must last before the binding acts, ms (nil: at `began`).
    package var waitsFor: Int? {
        guard gesture == .touchAndHold else { return nil }
        return holdMs ?? (pointer != nil ? Self.pointerHold : nil)
    }

    /// How long a stroke's fingers must rest still before they draw, ms
    /// (nil: a stroke however it began).
    package var restsFor: Int? { gesture == .stroke ? holdMs : nil }

    /// The hold time the daemon is to say a still hold reached (`hold_ms`).
    package var holdMark: Int? { waitsFor ?? restsFor }

    /// What it claims on a claimed touchscreen: by default its finger
    /// counts of three or more, and its edges (one-finger touches that
    /// start there); with `claim = true` two fingers too; with `claim =
    /// false` nothing. One and two fingers are what apps use. A
    /// touch-and-hold that clicks claims its still holds instead, at their
    /// time (`hold-ms`): the app gets the touch until then. So does a
    /// stroke drawn after a hold (`hold-ms`), beside what its finger
    /// counts and edges claim: the app never sees the shape.
    package var claims: ClaimSet {
        guard claim != false else { return ClaimSet() }
        func held(_ ms: Int) -> [Int: Int] { Dictionary((fingers ?? [1]).map { ($0, ms) }, uniquingKeysWith: min) }
        if gesture == .touchAndHold, pointer != nil, let ms = waitsFor { return ClaimSet(holds: held(ms)) }
        let least = claim == true ? 2 : 3
        let counts = Set((fingers ?? []).filter { $0 >= least })
        var c = ClaimSet(fingers: touchpad ? [] : counts, touchpad: touchpad ? counts : [])
        if let edges, fingers?.contains(1) ?? true { c.edges = Set(edges) }
        if let ms = restsFor { c.holds = held(ms) }
        return c
    }

    /// Whether some gesture could be one both this binding and `other`
    /// match: the same kind, and finger counts in common (either naming none).
    package func sharesGestures(with other: Binding) -> Bool {
        guard gesture == other.gesture else { return false }
        if let shape, let theirs = other.shape, shape != theirs { return false }
        guard let fingers, let theirs = other.fingers else { return true }
        return fingers.contains { theirs.contains($0) }
    }

    /// Whether `event` meets every criterion but the phase (and, with
    /// `direction` false, but the direction).
    package func matches(_ event: ReceivedEvent, start: (x: Double, y: Double)?, direction: Bool = true) -> Bool {
        guard event.gesture == gesture else { return false }
        if let fingers, !fingers.contains(event.fingers) { return false }
        // Drags and holds have none: their `direction` is a track's way.
        if direction, let directions, gesture != .drag, gesture != .touchAndHold {
            guard let d = event.direction, directions.contains(d) else { return false }
        }
        if let edges {
            guard let e = event.edge, edges.contains(e) else { return false }
        }
        if let region {
            let p = start ?? (event.x, event.y)
            guard p.x >= region[0] && p.x < region[2] && p.y >= region[1] && p.y < region[3] else { return false }
        }
        if let device, event.device != device { return false }
        if let shape, event.shape != shape { return false }
        if let rests = restsFor, (event.heldMs ?? -1) < rests { return false }
        return true
    }

    /// Whether it acts on a touchscreen that shows on `output` (`when.output`;
    /// nil: the output is not known, where only bindings that name none act).
    package func acts(onOutput output: String?) -> Bool {
        guard let whenOutputs else { return true }
        guard let output else { return false }
        return whenOutputs.matchesAny(output)
    }

    /// What `--check` prints for it.
    package var summary: String {
        var s = gesture.rawValue
        if let shape { s += " shape=\"\(shape)\"" }
        if let fingers { s += " fingers=" + fingers.map(String.init).joined(separator: ",") }
        if let directions { s += " direction=" + directions.map(\.rawValue).joined(separator: ",") }
        if let edges { s += " edge=" + edges.map(\.rawValue).joined(separator: ",") }
        if let region { s += " region=" + region.map { String($0) }.joined(separator: ",") }
        if let device { s += " device=\"\(device)\"" }
        if let phase { s += " phase=" + phase.rawValue }
        if whenLocked { s += " when locked" }
        if let whenTabletMode { s += whenTabletMode ? " in tablet mode" : " out of tablet mode" }
        func list(_ p: [NamePattern]) -> String { p.map { "\"\($0)\"" }.joined(separator: ",") }
        if let whenApps { s += " in app=" + list(whenApps) }
        if let whenNotApps { s += " not in app=" + list(whenNotApps) }
        if let whenTitles { s += " title=" + list(whenTitles) }
        if let whenFullscreen { s += whenFullscreen ? " when fullscreen" : " when not fullscreen" }
        if let whenOutputs { s += " on output=" + list(whenOutputs) }
        if let whenKeyboard { s += whenKeyboard ? " while the keyboard is shown" : " while no keyboard is shown" }
        var does: [String] = []
        if let run { does.append("run " + run.joined(separator: " ")) }
        if let keys { does.append("keys " + keys.text) }
        if let pointer { does.append("\(pointer.rawValue) click") }
        if let ms = waitsFor {
            // A hold is one from hold.minDuration on: a shorter hold-ms acts as it begins.
            let least = Int(GestureThresholds().holdMinDuration)
            does.append(
                ms >= least
                    ? "after \(ms) ms held"
                    : "as the hold begins (hold-ms \(ms) is under hold.minDuration, \(least) ms unless the daemon's configuration says otherwise)"
            )
        }
        if let ms = restsFor { does.append("drawn after \(ms) ms held still") }
        if onBegan != nil { does.append("on-began") }
        if onChanged != nil { does.append("on-changed (at most every \(changedInterval.microseconds / 1000) ms)") }
        if onEnded != nil { does.append("on-ended") }
        if let pipe { does.append("pipe " + pipe.joined(separator: " ")) }
        if let track {
            does.append("tracked \(track.toward.rawValue) over \(NumberText.fixed(track.distance, 1)) \(track.toward.unit)")
        }
        if !claims.isEmpty { does.append("claims " + claims.summary) }
        if touchpad { does.append("to the touchpad") }
        return s + " → " + does.joined(separator: ", ")
    }
}
