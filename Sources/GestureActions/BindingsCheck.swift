import GestureCore

#if canImport(Glibc)
    import Glibc
#endif

/// What `gestured act --check` warns of, beyond the mistakes that stop a
/// file: bindings that fire on the same gestures (every one that matches
/// runs), commands that are not there to run, and double taps made late by
/// a triple-tap binding.
package enum BindingsCheck {
    /// The warnings for `bindings`, in file order, with `searchPath` (a
    /// `$PATH`) where commands are looked for.
    package static func warnings(_ bindings: [Binding], searchPath: String) -> [String] {
        var out: [String] = []
        for (i, a) in bindings.enumerated() {
            for b in bindings[(i + 1)...] where a.overlaps(b) {
                out.append(
                    "\(b.origin): fires on the same gestures as \(a.origin) (\(a.gesture.rawValue)\(a.sharedFilters(b))): both run; give one other fingers, directions, edges, a region or a device, or keep both on purpose"
                )
            }
            for (key, command) in [
                ("run", a.run), ("on-began", a.onBegan), ("on-changed", a.onChanged), ("on-ended", a.onEnded), ("pipe", a.pipe),
            ] {
                guard let program = command?.first, let why = missing(program, searchPath: searchPath) else { continue }
                out.append("\(a.origin): \(key): \(why)")
            }
        }
        // act asks for triple taps for all its bindings: each double tap then waits for a third.
        if let triple = bindings.first(where: { $0.gesture == .tripleTap }),
            let double = bindings.first(where: { $0.gesture == .doubleTap })
        {
            out.append(
                "\(triple.origin): with a triple-tap binding, every double tap (\(double.origin) and any other) comes once doubleTap.maxInterval has passed after its second lift with no third tap; keep both on purpose, or drop one"
            )
        }
        return out
    }

    /// Why `program` cannot be run, or nil: a path that is not an
    /// executable file, or a name found in no folder of `searchPath`.
    static func missing(_ program: String, searchPath: String) -> String? {
        if program.contains("/") {
            return access(program, X_OK) == 0 ? nil : "'\(program)' is not an executable file"
        }
        let folders = searchPath.split(separator: ":").map(String.init)
        if folders.contains(where: { access($0 + "/" + program, X_OK) == 0 }) { return nil }
        return "'\(program)' is not found on PATH (\(searchPath)); under systemctl --user, PATH is the user manager's"
    }
}

extension Binding {
    /// Whether some gesture event would fire both `self` and `other`.
    func overlaps(_ other: Binding) -> Bool {
        guard gesture == other.gesture, phase == other.phase else { return false }
        func meet<T: Equatable>(_ a: [T]?, _ b: [T]?) -> Bool {
            guard let a, let b else { return true }
            return a.contains(where: b.contains)
        }
        guard meet(fingers, other.fingers), meet(directions, other.directions), meet(edges, other.edges) else { return false }
        if let d = device, let e = other.device, d != e { return false }
        if let r = region, let s = other.region, r[2] <= s[0] || s[2] <= r[0] || r[3] <= s[1] || s[3] <= r[1] { return false }
        // Contexts that never hold at once: locked or not, in tablet mode or
        // not, fullscreen or not, the keyboard shown or not.
        func apart(_ a: Bool?, _ b: Bool?) -> Bool { a != nil && b != nil && a != b }
        if whenLocked != other.whenLocked || apart(whenTabletMode, other.whenTabletMode)
            || apart(whenFullscreen, other.whenFullscreen) || apart(whenKeyboard, other.whenKeyboard)
        {
            return false
        }
        return true
    }

    /// The filters both share, for a warning (" fingers=3 direction=up").
    func sharedFilters(_ other: Binding) -> String {
        var s = ""
        if let f = fingers ?? other.fingers {
            s += " fingers=" + f.filter { other.fingers?.contains($0) ?? true }.map(String.init).joined(separator: ",")
        }
        if let d = directions ?? other.directions {
            s += " direction=" + d.filter { other.directions?.contains($0) ?? true }.map(\.rawValue).joined(separator: ",")
        }
        if let e = edges ?? other.edges {
            s += " edge=" + e.filter { other.edges?.contains($0) ?? true }.map(\.rawValue).joined(separator: ",")
        }
        return s
    }
}
