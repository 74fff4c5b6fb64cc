import CWayland
package import GestureCore
package import GestureProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The `[screen]` table of an actions file.
package struct ScreenSettings: Equatable, Sendable {
    /// The output the touchscreens show on, when nothing else tells.
    package var output: String?
    package var followRotation = true
    package init() {}
}

/// How `gestured act` follows the compositor: it is a Wayland client of
/// the session it runs in, reads how each output is turned (the
/// `wl_output` transform, `CWayland`), and tells the daemon, for each
/// touchscreen, the transform of the output it shows on (protocol 1.4's
/// `orientation` request), once per change.
///
/// A touchscreen's output is, in order: `[screen] output`; its `WL_OUTPUT`
/// udev property (the daemon's `output`); the only output; the only
/// built-in one (eDP, LVDS, DSI). With none of these, act says so once and
/// tells nothing for it.
package struct ScreenFollower {
    /// A touchscreen as the daemon announced it.
    package struct Touchscreen: Equatable {
        package var node: String
        package var name: String
        package var output: String?

        package init(node: String, name: String, output: String?) {
            self.node = node
            self.name = name
            self.output = output
        }
    }

    package var settings = ScreenSettings()
    private var display: OpaquePointer?
    private var retryAt = Timestamp.zero
    /// The compositor was there once: its going is said, and retried.
    private var saidUnavailable = false
    package private(set) var touchscreens: [Touchscreen] = []
    /// What the daemon was told per node, on this connection.
    private var told: [String: ScreenTransform] = [:]
    /// Touchscreens whose output could not be chosen, said once each.
    private var saidUnmapped: Set<String> = []
    /// Which pointer clicks, said once: the compositor's virtual one or the daemon's.
    private var saidPointer: Bool?

    /// How long a compositor that is not there (yet, or any more) is left alone.
    static let retryInterval = Timestamp.Duration.milliseconds(5000)

    package init() {}

    /// The Wayland descriptor to wait on (-1: none).
    package var fd: Int32 { display.map { cwl_fd($0) } ?? -1 }

    /// When a connection is to be tried again.
    package var deadline: Timestamp { display == nil && settings.followRotation ? retryAt : .never }

    /// Connects when it is time; handles what was read already and sends
    /// what waits to the compositor. A turn calls it before its wait; true
    /// when an output came, went or turned (a connection made is one).
    package mutating func beforeWait(now: Timestamp, log: (String) -> Void) -> Bool {
        guard settings.followRotation else {
            disconnect()
            return false
        }
        if display == nil && now >= retryAt { connect(now: now, log: log) }
        guard let d = display else { return false }
        if cwl_before_wait(d) < 0 {
            lost(now: now, log: log)
            return false
        }
        return cwl_take_changed(d) != 0
    }

    private mutating func connect(now: Timestamp, log: (String) -> Void) {
        retryAt = now + Self.retryInterval
        guard let env = getenv("WAYLAND_DISPLAY"), env.pointee != 0 else {
            if !saidUnavailable {
                log("no WAYLAND_DISPLAY: not following how the screen is turned (the daemon keeps its own orientation)")
                saidUnavailable = true
            }
            return
        }
        guard let d = cwl_connect() else {
            if !saidUnavailable {
                log("cannot reach the compositor at \(String(cString: env)): \(errnoText()); retrying every 5 s")
                saidUnavailable = true
            }
            return
        }
        display = d
        saidUnavailable = false
        log(
            "following how the compositor turns its outputs: \(outputs.map { "\($0.name.isEmpty ? "?" : $0.name) \($0.transform.name)" }.joined(separator: ", "))"
        )
    }

    private mutating func lost(now: Timestamp, log: (String) -> Void) {
        log("the compositor closed the connection; its outputs are followed again when it is back")
        disconnect()
        retryAt = now + Self.retryInterval
    }

    /// Lets the compositor go (act stops).
    package mutating func close() { disconnect() }

    private mutating func disconnect() {
        if let d = display { cwl_disconnect(d) }
        display = nil
    }

    /// Reads what the compositor sent; true when an output changed.
    package mutating func read(now: Timestamp, log: (String) -> Void) -> Bool {
        guard let d = display else { return false }
        if cwl_read(d) < 0 {
            lost(now: now, log: log)
            return false
        }
        return cwl_take_changed(d) != 0
    }

    /// The outputs and how each is turned.
    package var outputs: [(name: String, transform: ScreenTransform)] {
        guard let d = display else { return [] }
        return (0..<cwl_output_count(d)).map {
            (String(cString: cwl_output_name(d, $0)), ScreenTransform(rawValue: Int(cwl_output_transform(d, $0))) ?? .normal)
        }
    }

    /// The name of the output a touchscreen shows on, for `when.output`:
    /// `[screen] output`, else its udev `WL_OUTPUT`, else the compositor's
    /// only output or only built-in one; nil when none of these tells.
    package func outputName(of t: Touchscreen) -> String? {
        if let name = settings.output ?? t.output { return name }
        let outputs = self.outputs
        return Self.output(for: t, in: outputs, configured: nil).map { outputs[$0].name }
    }

    /// The output a touchscreen shows on, from `outputs`; nil when it cannot be told.
    package static func output(
        for t: Touchscreen, in outputs: [(name: String, transform: ScreenTransform)], configured: String?
    ) -> Int? {
        if let name = configured ?? t.output { return outputs.firstIndex { $0.name == name } }
        if outputs.count == 1 { return 0 }
        let builtIn = outputs.indices.filter { i in ["eDP", "LVDS", "DSI"].contains { outputs[i].name.hasPrefix($0) } }
        return builtIn.count == 1 ? builtIn[0] : nil
    }

    /// Clicks with a virtual pointer of act's own on the output the
    /// touchscreen named `device` shows on (wlroots compositors'
    /// wlr-virtual-pointer: the position is that output's, whatever else
    /// the layout holds). False where the compositor offers none or the
    /// output cannot be told: the daemon's pointer clicks instead. Which
    /// one clicks is said the first time.
    package mutating func click(_ c: PointerClick, onScreenOf device: String, log: (String) -> Void) -> Bool {
        var clicked = false
        if let d = display, cwl_pointer_supported(d) != 0, let t = touchscreens.first(where: { $0.name == device }),
            let i = Self.output(for: t, in: outputs, configured: settings.output)
        {
            clicked = cwl_click(d, Int32(i), c.button.code, c.x, c.y) == 0
        }
        if saidPointer != clicked {
            saidPointer = clicked
            log(
                clicked
                    ? "clicking with the compositor's virtual pointer (wlr-virtual-pointer) on the touchscreen's output"
                    : "clicking with the daemon's pointer (the compositor offers no wlr-virtual-pointer, or the touchscreen's output is not known)"
            )
        }
        return clicked
    }

    // MARK: The daemon's side

    /// A new connection to the daemon: it has been told nothing yet.
    package mutating func daemonConnected(_ screens: [Touchscreen]) {
        touchscreens = screens
        told.removeAll()
    }

    package mutating func added(_ t: Touchscreen) {
        touchscreens.removeAll { $0.node == t.node }
        touchscreens.append(t)
    }

    package mutating func removed(node: String) {
        touchscreens.removeAll { $0.node == node }
        told[node] = nil
    }

    /// The `orientation` requests the daemon has not had yet: one per
    /// touchscreen whose output's transform changed since it was told.
    package mutating func requests(log: (String) -> Void) -> [String] {
        guard display != nil, settings.followRotation else { return [] }
        let outputs = self.outputs
        var lines: [String] = []
        for t in touchscreens {
            guard let i = Self.output(for: t, in: outputs, configured: settings.output) else {
                if saidUnmapped.insert(t.node).inserted {
                    let names = outputs.map(\.name).joined(separator: ", ")
                    log(
                        "which output shows \(t.name) (\(t.node))? outputs: \(names.isEmpty ? "none" : names); set output in [screen] of the actions file"
                    )
                }
                continue
            }
            let transform = outputs[i].transform
            guard told[t.node] != transform else { continue }
            told[t.node] = transform
            lines.append(
                #"{"type":"orientation","device":"# + jsonString(t.node) + #","transform":""# + transform.name + "\"}\n")
        }
        return lines
    }
}

private func errnoText() -> String { String(cString: strerror(errno)) }
