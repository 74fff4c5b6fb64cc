import CWayland
import CX11
import FoundationEssentials
package import GestureCore
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// How `gestured act` learns which window has the focus, so that bindings
/// and claims can follow the app in front (`when.app`, `[context]`).
///
/// Sources, the first the session offers: sway's IPC (`$SWAYSOCK`) and
/// i3's (`$I3SOCK`, on X11, where the app is the window's `WM_CLASS`
/// class), which are one protocol; else, in a Wayland session, the
/// compositor's wlr-foreign-toplevel-management (`CWayland`: phoc, labwc,
/// Wayfire, river, Hyprland, niri), whose `activated` state says which
/// window has the focus; else, in an X11 session (`$DISPLAY`), the window
/// manager's EWMH `_NET_ACTIVE_WINDOW` (`CX11`: KWin, GNOME Shell, Xfwm,
/// Openbox and the others on X11). With none, the focused app is not
/// known: act says so once, and bindings that name an app do not act.
///
/// sway's and i3's protocol: each message is "i3-ipc", its payload's length and its
/// type (32 bits each, in the machine's order), then the payload (JSON).
/// act subscribes to window and workspace events and asks for the tree of
/// containers (`GET_TREE`) at the start and after any event that can move
/// the focus; a title change of the focused window is taken from the event
/// itself.
package struct FocusFollower {
    /// Where the focus is read from.
    package enum Source: Equatable {
        case sway(String)
        case i3(String)
        /// The Wayland compositor's foreign-toplevel list (`$WAYLAND_DISPLAY`).
        case wayland
        /// The X11 window manager's `_NET_ACTIVE_WINDOW` (`$DISPLAY`).
        case x11

        var path: String {
            switch self {
            case .sway(let p), .i3(let p): p
            case .wayland, .x11: ""
            }
        }
        package var name: String {
            switch self {
            case .sway: "sway"
            case .i3: "i3"
            case .wayland: "the compositor's wlr-foreign-toplevel-management"
            case .x11: "the X11 window manager's _NET_ACTIVE_WINDOW"
            }
        }
    }

    /// The source the environment names, if any.
    package static func source(environment: [String: String]) -> Source? {
        if let p = environment["SWAYSOCK"], !p.isEmpty { return .sway(p) }
        if let p = environment["I3SOCK"], !p.isEmpty { return .i3(p) }
        if let d = environment["WAYLAND_DISPLAY"], !d.isEmpty { return .wayland }
        if let d = environment["DISPLAY"], !d.isEmpty { return .x11 }
        return nil
    }

    package let source: Source?
    /// The focused window; nil while none is (an empty workspace) or while it is not known.
    package private(set) var focus: FocusedWindow?
    /// Whether `focus` is what the compositor says now.
    package private(set) var known = false

    private var socket: Int32 = -1
    /// The connection of `.wayland` and `.x11`.
    private var desktop: Desktop?
    /// The X11 window manager was said not to name the active window.
    private var saidUnsupported = false
    private var input: [UInt8] = []
    private var retryAt = Timestamp.zero
    private var saidLost = false
    /// The focused container's id, to take its title changes.
    private var focusedID: Int?
    /// A tree was asked for and not answered; another is wanted after it.
    private var treePending = false
    private var treeAgain = false

    /// How long a compositor that is not there (yet, or any more) is left alone.
    static let retryInterval = Timestamp.Duration.milliseconds(5000)
    /// The largest message taken (a tree of many windows is a few hundred KiB).
    static let messageLimit = 16 << 20

    static let magic = Array("i3-ipc".utf8)
    enum Kind: UInt32 {
        case subscribe = 2
        case getTree = 4
        case workspaceEvent = 0x8000_0000
        case windowEvent = 0x8000_0003
        case shutdownEvent = 0x8000_0006
    }

    package init(source: Source?) { self.source = source }

    /// The descriptor to wait on (-1: none).
    package var fd: Int32 { desktop?.fd ?? socket }

    private var connected: Bool { socket >= 0 || desktop != nil }

    /// When a connection is to be tried again.
    package var deadline: Timestamp { source != nil && !connected ? retryAt : .never }

    /// Connects when it is time. True when what is known changed (a
    /// connection lost is one).
    package mutating func beforeWait(now: Timestamp, log: (String) -> Void) -> Bool {
        if let d = desktop {
            guard d.beforeWait() else { return lose(now: now, log: log, why: "the \(d.kind) connection failed") }
            return take(d, now: now, log: log)
        }
        guard let source, !connected, now >= retryAt else { return false }
        if source == .wayland || source == .x11 { return connectDesktop(source, now: now, log: log) }
        retryAt = now + Self.retryInterval
        guard let address = UnixAddress(source.path) else {
            if !saidLost {
                log("\(source.name)'s socket \(logSafe(source.path)) is not a usable path: the focused app is not known")
            }
            saidLost = true
            return false
        }
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        guard address.connect(fd) == 0 else {
            let e = Errno.last
            Glibc.close(fd)
            if !saidLost {
                log(
                    "cannot connect to \(source.name) at \(logSafe(source.path)): \(e); the focused app is not known until it can"
                )
                saidLost = true
            }
            return false
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        socket = fd
        input.removeAll(keepingCapacity: true)
        treePending = false
        treeAgain = false
        guard send(.subscribe, #"["window","workspace","shutdown"]"#) else { return lose(now: now, log: log, why: nil) }
        askForTree()
        if saidLost {
            log("following the focused window through \(source.name) again")
        } else {
            log("following the focused window through \(source.name) (\(logSafe(source.path)))")
        }
        saidLost = false
        return false
    }

    /// Reads what came. True when the focused window, its title or its
    /// fullscreen state changed, or whether it is known.
    package mutating func read(now: Timestamp, log: (String) -> Void) -> Bool {
        if let d = desktop {
            guard d.read() else { return lose(now: now, log: log, why: "\(d.peer) closed the \(d.kind) connection") }
            return take(d, now: now, log: log)
        }
        guard socket >= 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 {
                input += chunk[..<n]
                continue
            }
            if n == 0 { return lose(now: now, log: log, why: "\(source?.name ?? "the compositor") closed its socket") }
            if errno == EAGAIN || errno == EINTR { break }
            return lose(now: now, log: log, why: "reading \(source?.name ?? "the compositor")'s socket failed: \(Errno.last)")
        }
        let before = (focus, known)
        while input.count >= 14 {
            guard Array(input[0..<6]) == Self.magic else {
                return lose(now: now, log: log, why: "\(source?.name ?? "the compositor") sent something that is not its IPC")
            }
            let length = Int(Self.word(input, at: 6))
            let type = Self.word(input, at: 10)
            guard length <= Self.messageLimit else {
                return lose(now: now, log: log, why: "\(source?.name ?? "the compositor") sent a message of \(length) bytes")
            }
            guard input.count >= 14 + length else { break }
            let payload = Array(input[14..<(14 + length)])
            input.removeSubrange(0..<(14 + length))
            if !handle(type, payload) { return lose(now: now, log: log, why: "\(source?.name ?? "the compositor") is stopping") }
        }
        return before.0 != focus || before.1 != known
    }

    package mutating func close() {
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
        desktop?.disconnect()
        desktop = nil
    }

    // MARK: wlr-foreign-toplevel-management and X11

    /// A connection whose C side follows the focused window: CWayland's
    /// foreign-toplevel list, or CX11's active window.
    private enum Desktop {
        case wayland(OpaquePointer)
        case x11(OpaquePointer)

        var kind: String {
            switch self {
            case .wayland: "Wayland"
            case .x11: "X11"
            }
        }
        var peer: String {
            switch self {
            case .wayland: "the compositor"
            case .x11: "the X server"
            }
        }
        var fd: Int32 {
            switch self {
            case .wayland(let t): cwl_focus_fd(t)
            case .x11(let x): cx11_focus_fd(x)
            }
        }
        func beforeWait() -> Bool {
            switch self {
            case .wayland(let t): cwl_focus_before_wait(t) == 0
            case .x11(let x): cx11_focus_before_wait(x) == 0
            }
        }
        func read() -> Bool {
            switch self {
            case .wayland(let t): cwl_focus_read(t) == 0
            case .x11(let x): cx11_focus_read(x) == 0
            }
        }
        var supported: Bool {
            switch self {
            case .wayland(let t): cwl_focus_supported(t) != 0
            case .x11(let x): cx11_focus_supported(x) != 0
            }
        }
        func takeChanged() -> Bool {
            switch self {
            case .wayland(let t): cwl_focus_take_changed(t) != 0
            case .x11(let x): cx11_focus_take_changed(x) != 0
            }
        }
        /// The focused window; nil when none has the focus or it names no app.
        var window: FocusedWindow? {
            let (has, app, title, fullscreen) =
                switch self {
                case .wayland(let t):
                    (cwl_focus_has_window(t), cwl_focus_app(t), cwl_focus_title(t), cwl_focus_fullscreen(t))
                case .x11(let x):
                    (cx11_focus_has_window(x), cx11_focus_app(x), cx11_focus_title(x), cx11_focus_fullscreen(x))
                }
            guard has != 0, let app, let title, app[0] != 0 else { return nil }
            return FocusedWindow(app: String(cString: app), title: String(cString: title), fullscreen: fullscreen != 0)
        }
        func disconnect() {
            switch self {
            case .wayland(let t): cwl_focus_disconnect(t)
            case .x11(let x): cx11_focus_disconnect(x)
            }
        }
    }

    private mutating func connectDesktop(_ source: Source, now: Timestamp, log: (String) -> Void) -> Bool {
        retryAt = now + Self.retryInterval
        let connection: Desktop? =
            source == .x11 ? cx11_focus_connect().map(Desktop.x11) : cwl_focus_connect().map(Desktop.wayland)
        guard let d = connection else {
            if !saidLost {
                let server = source == .x11 ? "the X server at $DISPLAY" : "the Wayland compositor"
                log("cannot connect to \(server): \(Errno.last); the focused app is not known until it can")
                saidLost = true
            }
            return false
        }
        if case .wayland = d, !d.supported {
            d.disconnect()
            // It will not offer it later: no more tries.
            retryAt = .never
            log(
                "the compositor does not tell clients which window has the focus (no wlr-foreign-toplevel-management: KWin and GNOME Shell do not): bindings with when.app or when.title do not act, when.not-app ones do"
            )
            return false
        }
        desktop = d
        log("following the focused window through \(saidLost ? "\(source.name) again" : source.name)")
        saidLost = false
        return take(d, now: now, log: log)
    }

    /// The focused window as the compositor or the window manager said it last.
    private mutating func take(_ d: Desktop, now: Timestamp, log: (String) -> Void) -> Bool {
        if case .wayland = d, !d.supported {
            // The compositor sent `finished`.
            return lose(now: now, log: log, why: "the compositor stopped telling which window has the focus")
        }
        guard d.takeChanged() else { return false }
        let before = (focus, known)
        if d.supported {
            if saidUnsupported { log("the window manager now says which window is active") }
            saidUnsupported = false
            known = true
            focus = d.window
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

    // MARK: Messages

    private static func word(_ bytes: [UInt8], at i: Int) -> UInt32 {
        bytes[i..<(i + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    }

    private mutating func send(_ kind: Kind, _ payload: String) -> Bool {
        var message = Self.magic
        withUnsafeBytes(of: UInt32(payload.utf8.count)) { message += $0 }
        withUnsafeBytes(of: kind.rawValue) { message += $0 }
        message += payload.utf8
        let n = message.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return n == message.count
    }

    private mutating func askForTree() {
        if treePending {
            treeAgain = true
        } else if send(.getTree, "") {
            treePending = true
        }
    }

    /// False when the compositor is stopping.
    private mutating func handle(_ type: UInt32, _ payload: [UInt8]) -> Bool {
        switch Kind(rawValue: type) {
        case .getTree:
            treePending = false
            if let tree = try? JSONDecoder().decode(Node.self, from: Data(payload)) {
                let node = tree.focusedNode()
                focusedID = node?.id
                focus = node?.window
                known = true
            }
            if treeAgain {
                treeAgain = false
                askForTree()
            }
        case .windowEvent:
            let event = try? JSONDecoder().decode(WindowEvent.self, from: Data(payload))
            if event?.change == "title", let c = event?.container, c.id != nil, c.id == focusedID, var f = focus {
                f.title = c.name ?? ""
                focus = f
            } else if event?.change != "title" {
                askForTree()
            }
        case .workspaceEvent:
            askForTree()
        case .shutdownEvent:
            return false
        case .subscribe, nil:
            break
        }
        return true
    }

    private mutating func lose(now: Timestamp, log: (String) -> Void, why: String?) -> Bool {
        close()
        retryAt = now + Self.retryInterval
        if let why, !saidLost { log("\(why): the focused app is not known until it is back") }
        saidLost = true
        let changed = known
        known = false
        focus = nil
        focusedID = nil
        return changed
    }

    /// A container of the tree, as much of it as act reads.
    private final class Node: Decodable {
        struct Properties: Decodable { var `class`: String? }
        var id: Int?
        var type: String?
        var name: String?
        var focused: Bool?
        var app_id: String?
        var fullscreen_mode: Int?
        var window_properties: Properties?
        var nodes: [Node]?
        var floating_nodes: [Node]?

        /// The focused container under this one (itself included).
        func focusedNode() -> Node? {
            if focused == true { return self }
            for n in (nodes ?? []) + (floating_nodes ?? []) {
                if let f = n.focusedNode() { return f }
            }
            return nil
        }

        /// The window it is, if it is one (a workspace or a split is not).
        var window: FocusedWindow? {
            guard type == "con" || type == "floating_con",
                let app = app_id ?? window_properties?.class, !app.isEmpty
            else { return nil }
            return FocusedWindow(app: app, title: name ?? "", fullscreen: (fullscreen_mode ?? 0) != 0)
        }
    }

    private struct WindowEvent: Decodable {
        var change: String?
        var container: Node?
    }
}
