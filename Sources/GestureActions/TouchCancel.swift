#if canImport(Glibc)
    import Glibc
#endif

/// Whether the compositor passes libinput's touch cancel on to its apps,
/// which decides how the daemon may take a claimed gesture's touches
/// (docs/claiming.md, "When the compositor drops the cancel"): where it
/// does, the touches passed on before the claim are cancelled; where it
/// drops the cancel, the app would keep them open, so the daemon holds a
/// sequence's first touches back until no claim can take them, and lifts
/// what it must end (`ClaimSet.cancelDropped`).
///
/// `[context] touch-cancel` in an actions file says which: `auto` (by the
/// compositor act finds), `passed-on` or `dropped`.
package enum TouchCancel: String, Equatable, Sendable, CaseIterable {
    case auto
    case passedOn = "passed-on"
    case dropped

    /// The compositor act's session runs, as far as act can tell: the
    /// process serving its Wayland socket, and sway's version from its IPC.
    package struct Compositor: Equatable, Sendable {
        /// The process's name (`/proc/PID/comm`): "sway", "weston", "kwin_wayland", "gnome-shell".
        package var name: String
        /// Major and minor, where the compositor tells them (sway's `GET_VERSION`).
        package var version: (major: Int, minor: Int)?

        package init(name: String, version: (major: Int, minor: Int)? = nil) {
            self.name = name
            self.version = version
        }

        package static func == (a: Compositor, b: Compositor) -> Bool {
            a.name == b.name && a.version?.major == b.version?.major && a.version?.minor == b.version?.minor
        }

        /// "sway 1.7", "weston".
        package var description: String {
            version.map { "\(name) \($0.major).\($0.minor)" } ?? name
        }
    }

    /// What act goes by: whether the cancel is dropped, and why, for
    /// `act --context` and the log.
    package struct Decision: Equatable, Sendable {
        package var dropped: Bool
        package var why: String
        /// False while act goes by no setting and knows no compositor (yet).
        package var known = true
    }

    /// The compositors seen to drop the cancel, by name, and the first
    /// version that passes it on (nil: none known to).
    static let droppers: [String: (major: Int, minor: Int)?] = [
        // sway forwards libinput's cancel since 1.9 (sway PR #7565, on wlroots' touch cancel).
        "sway": (1, 9),
        // weston 10 logs "unknown libinput event 503" and drops it.
        "weston": nil,
        // GNOME Shell 48 (mutter 48) sends the app no wl_touch.cancel for it:
        // the touches stay open, in the app and in mutter, which then dies
        // of SIGSEGV as their touchscreen goes (watched in KernelTests).
        "gnome-shell": nil,
    ]

    /// The decision for `compositor` (nil: not known yet, or not a
    /// Wayland session act can see).
    package func decide(for compositor: Compositor?) -> Decision {
        switch self {
        case .passedOn:
            return Decision(dropped: false, why: "passed on to apps ([context] touch-cancel = \"passed-on\")")
        case .dropped:
            return Decision(
                dropped: true, why: "dropped ([context] touch-cancel = \"dropped\"): first touches held back, ended by a lift")
        case .auto:
            guard let compositor else {
                return Decision(dropped: false, why: "taken as passed on to apps (the compositor is not known)", known: false)
            }
            guard let first = Self.droppers[compositor.name] else {
                return Decision(dropped: false, why: "taken as passed on to apps by \(compositor.description)")
            }
            guard let first else {
                return Decision(
                    dropped: true, why: "dropped by \(compositor.description): first touches held back, ended by a lift")
            }
            guard let v = compositor.version else {
                return Decision(
                    dropped: true,
                    why:
                        "taken as dropped by \(compositor.name) of a version act cannot tell (it passes it on since \(first.major).\(first.minor)): first touches held back, ended by a lift"
                )
            }
            if (v.major, v.minor) >= (first.major, first.minor) {
                return Decision(dropped: false, why: "passed on to apps by \(compositor.description)")
            }
            return Decision(
                dropped: true,
                why:
                    "dropped by \(compositor.description) (it passes it on since \(first.major).\(first.minor)): first touches held back, ended by a lift"
            )
        }
    }

    /// The name of the process at the other end of a connected Unix
    /// socket, from `/proc/PID/comm`; nil when it cannot be read.
    package static func peerName(pid: Int32) -> String? {
        guard pid > 0, let f = fopen("/proc/\(pid)/comm", "r") else { return nil }
        defer { fclose(f) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), f) != nil else { return nil }
        var name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if name.hasSuffix("\n") { name.removeLast() }
        return name.isEmpty ? nil : name
    }
}
