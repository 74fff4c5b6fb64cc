import CWayland
import GestureCore

/// The focus from the compositor's wlr-foreign-toplevel-management, on act's
/// one Wayland session (`WaylandSession`, which reads it and says when it
/// changes): the window whose state has `activated` has the focus. It has
/// no descriptor of its own; it says when the session comes and goes, and
/// when the compositor does not offer the protocol (GNOME Shell does not;
/// KWin does not to clients, and has `KWinScriptFocus`).
final class ForeignToplevelFocus: FocusSource {
    let name = "the compositor's wlr-foreign-toplevel-management"
    private let session: WaylandSession
    /// What was said of the session last: connected, and whether it tells.
    private var said: (connected: Bool, supported: Bool)?

    init(_ session: WaylandSession) { self.session = session }

    var fd: Int32 { -1 }
    var deadline: Timestamp { .never }

    var known: Bool {
        guard let s = session.session else { return false }
        return cwl_focus_supported(s) != 0
    }

    var focus: FocusedWindow? {
        guard let s = session.session, cwl_focus_supported(s) != 0, cwl_focus_has_window(s) != 0 else { return nil }
        let app = String(cString: cwl_focus_app(s))
        guard !app.isEmpty else { return nil }
        return FocusedWindow(
            app: app, title: String(cString: cwl_focus_title(s)), fullscreen: cwl_focus_fullscreen(s) != 0)
    }

    func beforeWait(now: Timestamp, log: (String) -> Void) -> Bool {
        sayWhatChanged(log)
        return false
    }

    func read(now: Timestamp, log: (String) -> Void) -> Bool { false }

    /// Says once what the session's coming, going or stopping means for the focus.
    private func sayWhatChanged(_ log: (String) -> Void) {
        let now = (connected: session.isConnected, supported: known)
        // Nothing to say before the first connection, nor while nothing changes.
        guard let before = said else {
            if now.connected { say(now, after: nil, log) }
            return
        }
        if before != now { say(now, after: before, log) }
    }

    private func say(
        _ now: (connected: Bool, supported: Bool), after before: (connected: Bool, supported: Bool)?, _ log: (String) -> Void
    ) {
        said = now
        switch (now.connected, now.supported) {
        case (true, true):
            log("following the focused window through \(name)\(before?.connected == false ? " again" : "")")
        case (true, false):
            log(
                before?.supported == true
                    ? "the compositor stopped telling which window has the focus: the focused app is not known"
                    : "the compositor does not tell clients which window has the focus (no wlr-foreign-toplevel-management: GNOME Shell does not; on KWin act follows the focus through a script when XDG_CURRENT_DESKTOP names KDE): bindings with when.app or when.title do not act, when.not-app ones do"
            )
        case (false, _):
            log("the Wayland connection failed: the focused app is not known until it is back")
        }
    }

    func close() {}
}
