package import GestureCore
import GestureProtocol

/// The `[screen]` table of an actions file.
package struct ScreenSettings: Equatable, Sendable {
    /// The output the touchscreens show on, when nothing else tells.
    package var output: String?
    package var followRotation = true
    package init() {}
}

/// How `gestured act` follows the compositor's rotation: from the outputs
/// of its Wayland session (`WaylandSession`: each output's `wl_output`
/// transform) it tells the daemon, for each touchscreen, the transform of
/// the output it shows on (protocol 1.4's `orientation` request), once per
/// change.
///
/// A touchscreen's output is, in order: `[screen] output`; its `WL_OUTPUT`
/// udev property (the daemon's `output`); the only output; the only
/// built-in one (eDP, LVDS, DSI). With none of these, act says so once and
/// tells nothing for it.
package struct ScreenFollower {
    /// A touchscreen as the daemon announced it.
    package struct Touchscreen: Equatable, Sendable {
        package var node: String
        package var name: String
        package var output: String?

        package init(node: String, name: String, output: String?) {
            self.node = node
            self.name = name
            self.output = output
        }
    }

    package typealias Outputs = [(name: String, transform: ScreenTransform)]

    package var settings = ScreenSettings()
    package private(set) var touchscreens: [Touchscreen] = []
    /// What the daemon was told per node, on this connection.
    private var told: [String: ScreenTransform] = [:]
    /// Touchscreens whose output could not be chosen, said once each.
    private var saidUnmapped: Set<String> = []

    package init() {}

    /// The name of the output a touchscreen shows on, for `when.output`:
    /// `[screen] output`, else its udev `WL_OUTPUT`, else the compositor's
    /// only output or only built-in one; nil when none of these tells.
    package func outputName(of t: Touchscreen, in outputs: Outputs) -> String? {
        if let name = settings.output ?? t.output { return name }
        return Self.output(for: t, in: outputs, configured: nil).map { outputs[$0].name }
    }

    /// The output the touchscreen named `device` shows on, if known.
    func outputName(ofDevice device: String, in outputs: Outputs) -> String? {
        touchscreens.first { $0.name == device }.flatMap { outputName(of: $0, in: outputs) }
    }

    /// The index in `outputs` of the output the touchscreen named `device` shows on.
    func outputIndex(ofDevice device: String, in outputs: Outputs) -> Int? {
        touchscreens.first { $0.name == device }.flatMap { Self.output(for: $0, in: outputs, configured: settings.output) }
    }

    /// The output a touchscreen shows on, from `outputs`; nil when it cannot be told.
    package static func output(for t: Touchscreen, in outputs: Outputs, configured: String?) -> Int? {
        if let name = configured ?? t.output { return outputs.firstIndex { $0.name == name } }
        if outputs.count == 1 { return 0 }
        let builtIn = outputs.indices.filter { i in ["eDP", "LVDS", "DSI"].contains { outputs[i].name.hasPrefix($0) } }
        return builtIn.count == 1 ? builtIn[0] : nil
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
    /// touchscreen whose output's transform changed since it was told
    /// (none while the compositor is not known, `outputs` empty).
    package mutating func requests(_ outputs: Outputs, log: (String) -> Void) -> [String] {
        guard settings.followRotation, !outputs.isEmpty else { return [] }
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

    /// The compositor went: what it turned is told again when it is back.
    package mutating func compositorLost() { told.removeAll() }
}
