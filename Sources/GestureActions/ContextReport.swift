import ToolSupport

/// What `gestured act --context` prints, a line each time it changes: the
/// focused window, the daemon's context, and what the bindings do in it.
enum ContextReport {
    static func line(
        _ context: Binding.Context, daemonContextKnown: Bool, bindings: [Binding], _ settings: ContextSettings,
        claims: ClaimPlan, cannot: [String] = [], touchCancel: TouchCancel.Decision? = nil
    ) -> String {
        var parts: [String] = []
        if !context.focusKnown {
            parts.append("focused app not known")
        } else if let f = context.focus {
            parts.append(
                "app \"\(logSafe(f.app))\", title \"\(logSafe(f.title))\", \(f.fullscreen ? "fullscreen" : "not fullscreen")")
        } else {
            parts.append("no window has the focus")
        }
        parts.append(
            !context.keyboardKnown
                ? "on-screen keyboard not known" : "on-screen keyboard \(context.keyboardShown ? "shown" : "hidden")")
        if daemonContextKnown {
            parts.append(context.locked ? "locked" : "unlocked")
            parts.append("tablet mode \(context.tabletMode ? "on" : "off")")
        } else {
            parts.append("lock and tablet mode not known (not connected to the daemon)")
        }
        if context.leftToApp(settings) { parts.append("touches left to the app (leave-to-apps)") }
        let acting = bindings.indices.filter { bindings[$0].acts(in: context, settings) }
        var does = "\(acting.count) of \(bindings.count) binding(s) can act"
        if !acting.isEmpty && acting.count < bindings.count {
            does += " (" + acting.map { bindings[$0].origin }.joined(separator: ", ") + ")"
        }
        parts.append(does)
        if !cannot.isEmpty {
            parts.append(
                "the daemon cannot make its \(cannot.joined(separator: ", ")) (act's log and the daemon's say why, and how to grant it)"
            )
        }
        // The daemon claims nothing while the session is locked: the lock
        // screen gets every touch, whatever the plan asks.
        parts.append(
            daemonContextKnown && context.locked
                ? "claiming nothing (the daemon leaves every touch to the lock screen)" : "claiming \(claims.summary)")
        if let touchCancel, touchCancel.known, !claims.isEmpty { parts.append("touch cancels \(touchCancel.why)") }
        return parts.joined(separator: "; ")
    }
}
