import GestureCore
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// One desktop's way of telling `gestured act` which window has the focus
/// (a file each in `Focus/`). A source connects when it is time, reads
/// within a budget of its own, and says whether what it knows changed.
protocol FocusSource: AnyObject {
    /// What it is, for the log: "sway", "the compositor's wlr-foreign-toplevel-management".
    var name: String { get }
    /// Its own descriptor to wait on (-1: none now, or none of its own).
    var fd: Int32 { get }
    /// What to wait for on it (`POLLIN`, and `POLLOUT` while it has something to write).
    var events: Int32 { get }
    /// When it must be served though its descriptor is quiet: a retry, more to read.
    var deadline: Timestamp { get }
    /// Connects when it is time, handles what was read already; true when what is known changed.
    func beforeWait(now: Timestamp, log: (String) -> Void) -> Bool
    /// Reads what came, within its budget; true when what is known changed.
    func read(now: Timestamp, log: (String) -> Void) -> Bool
    /// The focused window; nil while none is (an empty workspace) or while it is not known.
    var focus: FocusedWindow? { get }
    /// Whether `focus` is what the desktop says now.
    var known: Bool { get }
    func close()
}

extension FocusSource {
    var events: Int32 { Int32(POLLIN) }
}

/// How `gestured act` learns which window has the focus, so that bindings
/// and claims can follow the app in front (`when.app`, `[context]`): it
/// chooses the first source the session offers and says what it says.
///
/// Sources, in order: sway's IPC (`$SWAYSOCK`) and i3's (`$I3SOCK`, on
/// X11, where the app is the window's `WM_CLASS` class), one protocol
/// (`SwayIPCFocus`); else, in a Wayland session, the compositor's
/// wlr-foreign-toplevel-management on act's Wayland session
/// (`ForeignToplevelFocus`: phoc, labwc, Wayfire, river, Hyprland, niri),
/// but on KWin (`$XDG_CURRENT_DESKTOP` names KDE), which does not offer it
/// to clients, a script act loads into KWin (`KWinScriptFocus`), and on
/// GNOME Shell the package's Shell extension (`GNOMEShellFocus`);
/// else, in an X11 session (`$DISPLAY`), the window manager's EWMH
/// `_NET_ACTIVE_WINDOW` (`EWMHFocus`: KWin, GNOME Shell, Xfwm, Openbox and
/// the others on X11). With none, the focused app is not known: act says
/// so once, and bindings that name an app do not act.
final class FocusFollower: ActSource {
    /// Where the focus is read from.
    package enum Kind: Equatable, Sendable {
        case sway(String)
        case i3(String)
        /// The Wayland compositor's foreign-toplevel list (`$WAYLAND_DISPLAY`).
        case wayland
        /// KWin under Wayland (`$XDG_CURRENT_DESKTOP` names KDE): a script
        /// loaded into it, written in the runtime directory.
        case kwin(runtimeDirectory: String)
        /// GNOME Shell under Wayland (`$XDG_CURRENT_DESKTOP` names GNOME,
        /// not Phosh): the package's Shell extension.
        case gnome
        /// The X11 window manager's `_NET_ACTIVE_WINDOW` (`$DISPLAY`).
        case x11
    }

    /// The source the environment names, if any.
    package static func kind(environment: [String: String]) -> Kind? {
        if let p = environment["SWAYSOCK"], !p.isEmpty { return .sway(p) }
        if let p = environment["I3SOCK"], !p.isEmpty { return .i3(p) }
        if let d = environment["WAYLAND_DISPLAY"], !d.isEmpty {
            let desktops = (environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").map { $0.lowercased() }
            if desktops.contains("kde"), let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
                return .kwin(runtimeDirectory: runtime)
            }
            // Phosh names GNOME too ("Phosh:GNOME"); phoc offers foreign toplevels.
            if desktops.contains("gnome") && !desktops.contains("phosh") { return .gnome }
            return .wayland
        }
        if let d = environment["DISPLAY"], !d.isEmpty { return .x11 }
        return nil
    }

    let kind: Kind?
    let source: (any FocusSource)?
    private let log: (String) -> Void
    private var slot = Poller.Slot.none

    init(kind: Kind?, session: WaylandSession, log: @escaping (String) -> Void) {
        self.kind = kind
        self.log = log
        switch kind {
        case .sway(let path): source = SwayIPCFocus(.sway, path: path)
        case .i3(let path): source = SwayIPCFocus(.i3, path: path)
        case .wayland: source = ForeignToplevelFocus(session)
        case .kwin(let runtime): source = KWinScriptFocus(runtimeDirectory: runtime)
        case .gnome: source = GNOMEShellFocus()
        case .x11: source = EWMHFocus()
        case nil: source = nil
        }
        if case .wayland = kind { session.wanted = true }
    }

    /// The focused window; nil while none is or while it is not known.
    var focus: FocusedWindow? { source?.focus }
    var known: Bool { source?.known ?? false }
    /// The compositor's version, where its focus source tells it (sway's IPC).
    var compositorVersion: (major: Int, minor: Int)? { (source as? SwayIPCFocus)?.version }
    /// The compositor's IPC is connected and has said neither its version nor the focus yet.
    var awaitsVersion: Bool { (source as? SwayIPCFocus).map { $0.fd >= 0 && $0.version == nil && !$0.known } ?? false }

    var deadline: Timestamp { source?.deadline ?? .never }

    func prepare(_ poller: inout Poller, now: Timestamp, into news: inout [ActNews]) {
        guard let source else { return }
        if source.beforeWait(now: now, log: log) { news.append(.focusChanged) }
        slot = poller.add(source.fd, source.events)
    }

    func serve(_ poller: Poller, now: Timestamp, into news: inout [ActNews]) {
        guard let source else { return }
        if poller.readable(slot) || poller.hungUp(slot) || now >= source.deadline {
            if source.read(now: now, log: log) { news.append(.focusChanged) }
        }
    }

    func close() { source?.close() }

    /// What `act --context` says of where the focus comes from.
    var origin: String {
        source.map { "from \($0.name)" }
            ?? "not known in this session (no SWAYSOCK, I3SOCK, WAYLAND_DISPLAY or DISPLAY)"
    }

    /// Why per-app bindings cannot act in this session, if they cannot: said once at start.
    static let unknownHere =
        "the focused app is not known in this session (act follows it through sway's or i3's IPC, SWAYSOCK or I3SOCK, a Wayland compositor's wlr-foreign-toplevel-management, WAYLAND_DISPLAY, KWin's scripting there when XDG_CURRENT_DESKTOP names KDE, or an X11 window manager's _NET_ACTIVE_WINDOW, DISPLAY; this session sets none of them): bindings with when.app or when.title do not act, when.not-app ones do, and [context] leave-to-apps leaves nothing to apps"
}
