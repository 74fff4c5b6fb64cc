import CX11
import GestureCore
import SystemPackage
import ToolSupport

/// The focus from an X11 window manager's EWMH `_NET_ACTIVE_WINDOW`, on a
/// connection of its own to the X server at `$DISPLAY` (`CX11`); the app is
/// the window's `WM_CLASS` class. The server is believed only if it runs as
/// root or as the user (`SocketTrust.xServer`, from the socket's peer: a
/// local server only). A window manager that does not name the active
/// window (or none yet) leaves the focus unknown, and act keeps listening:
/// one may start later.
final class EWMHFocus: FocusSource {
    let name = "the X11 window manager's _NET_ACTIVE_WINDOW"
    private var x: OpaquePointer?
    private(set) var focus: FocusedWindow?
    private(set) var known = false
    private var retryAt = Timestamp.zero
    private var saidLost = false
    private var saidUnsupported = false
    private var lastRefusal: String?
    private let trust = SocketTrust.xServer()

    static let retryInterval = Timestamp.Duration.milliseconds(5000)

    var fd: Int32 { x.map { cx11_focus_fd($0) } ?? -1 }

    var deadline: Timestamp {
        guard let x else { return retryAt }
        return cx11_focus_more(x) != 0 ? .zero : .never
    }

    func beforeWait(now: Timestamp, log: (String) -> Void) -> Bool {
        if let x {
            guard cx11_focus_before_wait(x) == 0 else { return lose(now: now, log: log, why: "the X11 connection failed") }
            return take(log)
        }
        guard now >= retryAt else { return false }
        retryAt = now + Self.retryInterval
        guard let connected = cx11_focus_connect() else {
            if !saidLost {
                log("cannot connect to the X server at $DISPLAY: \(Errno.last); the focused app is not known until it can")
                saidLost = true
            }
            return false
        }
        if let problem = trust.problem(peerOf: cx11_focus_fd(connected)) {
            cx11_focus_disconnect(connected)
            if problem != lastRefusal {
                lastRefusal = problem
                log("not following the focus through the X server at $DISPLAY: \(problem)")
            }
            return false
        }
        lastRefusal = nil
        x = connected
        log("following the focused window through \(saidLost ? "\(name) again" : name)")
        saidLost = false
        return take(log)
    }

    func read(now: Timestamp, log: (String) -> Void) -> Bool {
        guard let x else { return false }
        guard cx11_focus_read(x) == 0 else { return lose(now: now, log: log, why: "the X server closed the X11 connection") }
        return take(log)
    }

    /// The focused window as the window manager said it last.
    private func take(_ log: (String) -> Void) -> Bool {
        guard let x, cx11_focus_take_changed(x) != 0 else { return false }
        let before = (focus, known)
        if cx11_focus_supported(x) != 0 {
            if saidUnsupported { log("the window manager now says which window is active") }
            saidUnsupported = false
            known = true
            focus = nil
            if cx11_focus_has_window(x) != 0, let app = cx11_focus_app(x), let title = cx11_focus_title(x), app[0] != 0 {
                focus = FocusedWindow(
                    app: String(cString: app), title: String(cString: title), fullscreen: cx11_focus_fullscreen(x) != 0)
            }
        } else {
            // An X11 window manager may start, or restart, later: act keeps listening.
            if !saidUnsupported {
                log(
                    "the X11 window manager does not say which window is active (no EWMH _NET_ACTIVE_WINDOW): bindings with when.app or when.title do not act, when.not-app ones do"
                )
            }
            saidUnsupported = true
            known = false
            focus = nil
        }
        return before.0 != focus || before.1 != known
    }

    private func lose(now: Timestamp, log: (String) -> Void, why: String) -> Bool {
        close()
        retryAt = now + Self.retryInterval
        if !saidLost { log("\(why): the focused app is not known until it is back") }
        saidLost = true
        let changed = known
        known = false
        focus = nil
        return changed
    }

    func close() {
        if let x { cx11_focus_disconnect(x) }
        x = nil
    }
}
