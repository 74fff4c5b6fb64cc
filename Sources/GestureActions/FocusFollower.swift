import CWayland
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
/// window has the focus. With none, the focused app is not known: act says
/// so once, and bindings that name an app do not act.
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

        var path: String {
            switch self {
            case .sway(let p), .i3(let p): p
            case .wayland: ""
            }
        }
        package var name: String {
            switch self {
            case .sway: "sway"
            case .i3: "i3"
            case .wayland: "the compositor's wlr-foreign-toplevel-management"
            }
        }
    }

    /// The source the environment names, if any.
    package static func source(environment: [String: String]) -> Source? {
        if let p = environment["SWAYSOCK"], !p.isEmpty { return .sway(p) }
        if let p = environment["I3SOCK"], !p.isEmpty { return .i3(p) }
        if let d = environment["WAYLAND_DISPLAY"], !d.isEmpty { return .wayland }
        return nil
    }

    package let source: Source?
    /// The focused window; nil while none is (an empty workspace) or while it is not known.
    package private(set) var focus: FocusedWindow?
    /// Whether `focus` is what the compositor says now.
    package private(set) var known = false

    private var socket: Int32 = -1
    /// The Wayland connection, for `.wayland`.
    private var toplevels: OpaquePointer?
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
    package var fd: Int32 { toplevels.map { cwl_focus_fd($0) } ?? socket }

    private var connected: Bool { socket >= 0 || toplevels != nil }

    /// When a connection is to be tried again.
    package var deadline: Timestamp { source != nil && !connected ? retryAt : .never }

    /// Connects when it is time. True when what is known changed (a
    /// connection lost is one).
    package mutating func beforeWait(now: Timestamp, log: (String) -> Void) -> Bool {
        if let t = toplevels {
            guard cwl_focus_before_wait(t) == 0 else {
                return lose(now: now, log: log, why: "the Wayland connection failed")
            }
            return takeToplevels(t, now: now, log: log)
        }
        guard let source, !connected, now >= retryAt else { return false }
        if source == .wayland { return connectToplevels(now: now, log: log) }
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
        if let t = toplevels {
            guard cwl_focus_read(t) == 0 else {
                return lose(now: now, log: log, why: "the compositor closed the Wayland connection")
            }
            return takeToplevels(t, now: now, log: log)
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
        if let t = toplevels { cwl_focus_disconnect(t) }
        toplevels = nil
    }

    // MARK: wlr-foreign-toplevel-management

    private mutating func connectToplevels(now: Timestamp, log: (String) -> Void) -> Bool {
        retryAt = now + Self.retryInterval
        guard let t = cwl_focus_connect() else {
            if !saidLost {
                log("cannot connect to the Wayland compositor: \(Errno.last); the focused app is not known until it can")
                saidLost = true
            }
            return false
        }
        guard cwl_focus_supported(t) != 0 else {
            cwl_focus_disconnect(t)
            // It will not offer it later: no more tries.
            retryAt = .never
            log(
                "the compositor does not tell clients which window has the focus (no wlr-foreign-toplevel-management: KWin and GNOME Shell do not): bindings with when.app or when.title do not act, when.not-app ones do"
            )
            return false
        }
        toplevels = t
        log("following the focused window through \(saidLost ? "the compositor again" : Source.wayland.name)")
        saidLost = false
        return takeToplevels(t, now: now, log: log)
    }

    /// The focused toplevel as the compositor said it last.
    private mutating func takeToplevels(_ t: OpaquePointer, now: Timestamp, log: (String) -> Void) -> Bool {
        guard cwl_focus_supported(t) != 0 else {
            return lose(now: now, log: log, why: "the compositor stopped telling which window has the focus")
        }
        guard cwl_focus_take_changed(t) != 0 else { return false }
        let before = (focus, known)
        known = true
        focus =
            cwl_focus_has_window(t) != 0 && cwl_focus_app(t)[0] != 0
            ? FocusedWindow(
                app: String(cString: cwl_focus_app(t)), title: String(cString: cwl_focus_title(t)),
                fullscreen: cwl_focus_fullscreen(t) != 0) : nil
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
