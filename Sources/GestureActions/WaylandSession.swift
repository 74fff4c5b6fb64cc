import CLinux
import CWayland
import GestureCore
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// act's one connection to the Wayland compositor of its session
/// (`CWayland`): one display, one registry binding every global act uses.
/// The outputs and how they are turned (`ScreenFollower` reads them), the
/// focused window (`ForeignToplevelFocus`), and act's own pointer
/// (`CompositorPointer`) all come from it.
///
/// It connects while something needs it (`wanted`) and `$WAYLAND_DISPLAY`
/// names a compositor, and only to a socket of the user's own
/// (`SocketTrust.compositor`); it tries again every `retryInterval` while
/// the compositor is not there. Each turn reads once, at most libwayland's
/// buffer: a compositor that floods cannot keep the loop from the rest.
final class WaylandSession: ActSource {
    /// How long a compositor that is not there (yet, or any more) is left alone.
    static let retryInterval = Timestamp.Duration.milliseconds(5000)

    private(set) var session: OpaquePointer?
    /// The name of the compositor's process (`/proc/PID/comm` of the
    /// socket's peer), from the last connection.
    private(set) var peerName: String?
    /// Whether anything needs the compositor now (a part of act sets it).
    var wanted = false
    private let display: String?
    private let trust = SocketTrust.compositor()
    private let log: (String) -> Void
    private var retryAt = Timestamp.zero
    private var slot = Poller.Slot.none
    /// Why the compositor cannot be reached was said (until it can be).
    private var saidUnreachable: String?

    /// `display`: `$WAYLAND_DISPLAY` (nil or empty: not a Wayland session).
    init(display: String?, log: @escaping (String) -> Void) {
        self.display = display.flatMap { $0.isEmpty ? nil : $0 }
        self.log = log
    }

    /// Whether the session is a Wayland one at all.
    var isWayland: Bool { display != nil }
    var isConnected: Bool { session != nil }

    var deadline: Timestamp { session == nil && wanted && display != nil ? retryAt : .never }

    func prepare(_ poller: inout Poller, now: Timestamp, into news: inout [ActNews]) {
        if !wanted {
            if session != nil { disconnect(into: &news) }
            return
        }
        if session == nil && display != nil && now >= retryAt { connect(now: now, into: &news) }
        guard let s = session else { return }
        if cwl_before_wait(s) < 0 {
            lost(now: now, into: &news)
            return
        }
        take(cwl_take_changes(s), into: &news)
        slot = poller.add(cwl_fd(s), Int32(POLLIN))
    }

    func serve(_ poller: Poller, now: Timestamp, into news: inout [ActNews]) {
        guard let s = session, poller.readable(slot) || poller.hungUp(slot) else { return }
        if cwl_read(s) < 0 {
            lost(now: now, into: &news)
            return
        }
        take(cwl_take_changes(s), into: &news)
    }

    func close() {
        if let s = session { cwl_disconnect(s) }
        session = nil
    }

    /// The compositor's socket: `$WAYLAND_DISPLAY` itself when it is a
    /// path, else that name in `$XDG_RUNTIME_DIR` (as libwayland finds it).
    var socketPath: String? {
        guard let display else { return nil }
        if display.hasPrefix("/") { return display }
        guard let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty else { return nil }
        return runtime + "/" + display
    }

    private func connect(now: Timestamp, into news: inout [ActNews]) {
        retryAt = now + Self.retryInterval
        guard let path = socketPath else {
            sayOnce("no XDG_RUNTIME_DIR, so the compositor's socket \(display ?? "") is not found")
            return
        }
        let fd: Int32
        switch trust.connect(path) {
        case .success(let connected): fd = connected
        case .failure(.untrusted(let problem)):
            sayOnce("not talking to the compositor at \(logSafe(path)): \(problem); retrying every 5 s")
            return
        case .failure(.unreachable(let e)):
            sayOnce("cannot reach the compositor at \(logSafe(path)): \(e); retrying every 5 s")
            return
        }
        var (pid, uid, gid): (pid_t, uid_t, gid_t) = (0, 0, 0)
        peerName = clinux_peer_credentials(fd, &pid, &uid, &gid) == 0 ? TouchCancel.peerName(pid: pid) : nil
        guard let s = cwl_connect_fd(fd) else {
            sayOnce("cannot talk to the compositor at \(logSafe(path)): \(Errno.last); retrying every 5 s")
            return
        }
        session = s
        saidUnreachable = nil
        take(cwl_take_changes(s), into: &news)
    }

    private func sayOnce(_ message: String) {
        guard message != saidUnreachable else { return }
        saidUnreachable = message
        log(message)
    }

    private func lost(now: Timestamp, into news: inout [ActNews]) {
        log("the compositor closed the connection; act follows it again when it is back")
        disconnect(into: &news)
        retryAt = now + Self.retryInterval
    }

    private func disconnect(into news: inout [ActNews]) {
        if let s = session { cwl_disconnect(s) }
        session = nil
        news.append(.outputsChanged)
        news.append(.focusChanged)
    }

    private func take(_ changes: Int32, into news: inout [ActNews]) {
        if changes & Int32(CWL_OUTPUTS) != 0 { news.append(.outputsChanged) }
        if changes & Int32(CWL_FOCUS) != 0 { news.append(.focusChanged) }
    }

    // MARK: What it knows

    /// The outputs and how each is turned (none while not connected).
    var outputs: [(name: String, transform: ScreenTransform)] {
        guard let s = session else { return [] }
        return (0..<cwl_output_count(s)).map {
            (String(cString: cwl_output_name(s, $0)), ScreenTransform(rawValue: Int(cwl_output_transform(s, $0))) ?? .normal)
        }
    }
}
