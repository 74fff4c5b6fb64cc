import FoundationEssentials
import GestureCore
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The focus from sway's IPC (`$SWAYSOCK`) or i3's (`$I3SOCK`), which are
/// one protocol: each message is "i3-ipc", its payload's length and its
/// type (32 bits each, in the machine's order), then the payload (JSON).
/// act subscribes to window and workspace events and asks for the tree of
/// containers (`GET_TREE`) at the start and after any event that can move
/// the focus; a title change of the focused window is taken from the event
/// itself. It asks for the compositor's version too (`GET_VERSION`): sway
/// passes touch cancels on to apps since 1.9 (`TouchCancel`).
///
/// The socket is believed only if it is the user's own, where nobody else
/// could have put it, and served by the user's own process
/// (`SocketTrust.compositor`). At most `readBudget` bytes are read a turn,
/// and messages are taken from the buffer without moving what follows, so
/// a peer that floods costs a bounded share of each turn.
final class SwayIPCFocus: FocusSource {
    enum Flavour {
        case sway, i3
    }

    let name: String
    let path: String
    private(set) var focus: FocusedWindow?
    private(set) var known = false
    /// The compositor's version, once it said it.
    private(set) var version: (major: Int, minor: Int)?
    private var socket: Int32 = -1
    private var input = LineBuffer(limit: SwayIPCFocus.messageLimit + SwayIPCFocus.readBudget)
    private var chunk = [UInt8](repeating: 0, count: SwayIPCFocus.readBudget)
    private var retryAt = Timestamp.zero
    /// Why the compositor is not followed was said (until it is again).
    private var saidLost = false
    private var lastRefusal: String?
    /// The focused container's id, to take its title changes.
    private var focusedID: Int?
    /// A tree was asked for and not answered; another is wanted after it.
    private var treePending = false
    private var treeAgain = false
    /// The last read stopped at its budget: more may wait.
    private var more = false
    private let trust = SocketTrust.compositor()

    /// How long a compositor that is not there (yet, or any more) is left alone.
    static let retryInterval = Timestamp.Duration.milliseconds(5000)
    /// The largest message taken (a tree of many windows is a few hundred KiB).
    static let messageLimit = 16 << 20
    /// The most bytes read in one turn of act's loop.
    static let readBudget = 64 * 1024

    static let magic = Array("i3-ipc".utf8)
    enum Kind: UInt32 {
        case subscribe = 2
        case getTree = 4
        case getVersion = 7
        case workspaceEvent = 0x8000_0000
        case windowEvent = 0x8000_0003
        case shutdownEvent = 0x8000_0006
    }

    init(_ flavour: Flavour, path: String) {
        name = flavour == .sway ? "sway" : "i3"
        self.path = path
    }

    var fd: Int32 { socket }

    var deadline: Timestamp {
        if socket < 0 { return retryAt }
        return more ? .zero : .never
    }

    func beforeWait(now: Timestamp, log: (String) -> Void) -> Bool {
        guard socket < 0, now >= retryAt else { return false }
        retryAt = now + Self.retryInterval
        let fd: Int32
        switch trust.connect(path) {
        case .success(let connected): fd = connected
        case .failure(.untrusted(let problem)):
            if problem != lastRefusal {
                lastRefusal = problem
                log(
                    "not following the focus through \(name) at \(logSafe(path)): \(problem); bindings with when.app or when.title do not act until it is the user's own"
                )
            }
            saidLost = true
            return false
        case .failure(.unreachable(let e)):
            if !saidLost {
                log("cannot connect to \(name) at \(logSafe(path)): \(e); the focused app is not known until it can")
                saidLost = true
            }
            return false
        }
        lastRefusal = nil
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        socket = fd
        input = LineBuffer(limit: input.limit)
        treePending = false
        treeAgain = false
        guard send(.subscribe, #"["window","workspace","shutdown"]"#) else { return lose(now: now, log: log, why: nil) }
        // The version first: its answer comes before the tree's, so the
        // first context known has it.
        _ = send(.getVersion, "")
        askForTree()
        log(
            saidLost
                ? "following the focused window through \(name) again"
                : "following the focused window through \(name) (\(logSafe(path)))")
        saidLost = false
        return false
    }

    func read(now: Timestamp, log: (String) -> Void) -> Bool {
        guard socket >= 0 else { return false }
        let before = (focus, known, version?.major, version?.minor)
        var budget = Self.readBudget
        more = false
        while budget > 0 {
            switch input.fill(from: socket, budget: budget, scratch: &chunk) {
            case .read(0):
                budget = 0
                continue
            case .read(let n):
                budget -= n
                if budget == 0 { more = true }
            case .endOfFile:
                return lose(now: now, log: log, why: "\(name) closed its socket")
            case .failed(let e):
                return lose(now: now, log: log, why: "reading \(name)'s socket failed: \(e)")
            }
            if let why = takeMessages() { return lose(now: now, log: log, why: why) }
            if socket < 0 { break }
        }
        return before.0 != focus || before.1 != known || before.2 != version?.major || before.3 != version?.minor
    }

    /// Handles every whole message read: nil, or why the connection ends.
    private func takeMessages() -> String? {
        while true {
            let bytes = input.unread
            guard bytes.count >= 14 else { return nil }
            guard bytes.prefix(6).elementsEqual(Self.magic) else { return "\(name) sent something that is not its IPC" }
            let length = Int(Self.word(bytes, at: bytes.startIndex + 6))
            let type = Self.word(bytes, at: bytes.startIndex + 10)
            guard length <= Self.messageLimit else { return "\(name) sent a message of \(length) bytes" }
            guard bytes.count >= 14 + length else { return nil }
            let payload = bytes[(bytes.startIndex + 14)..<(bytes.startIndex + 14 + length)]
            let goesOn = handle(type, payload)
            input.consume(14 + length)
            if !goesOn { return "\(name) is stopping" }
        }
    }

    func close() {
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
    }

    // MARK: Messages

    private static func word(_ bytes: ArraySlice<UInt8>, at i: Int) -> UInt32 {
        bytes[i..<(i + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    }

    private func send(_ kind: Kind, _ payload: String) -> Bool {
        var message = Self.magic
        withUnsafeBytes(of: UInt32(payload.utf8.count)) { message += $0 }
        withUnsafeBytes(of: kind.rawValue) { message += $0 }
        message += payload.utf8
        let n = message.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return n == message.count
    }

    private func askForTree() {
        if treePending {
            treeAgain = true
        } else if send(.getTree, "") {
            treePending = true
        }
    }

    /// False when the compositor is stopping.
    private func handle(_ type: UInt32, _ payload: ArraySlice<UInt8>) -> Bool {
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
        case .getVersion:
            if let v = try? JSONDecoder().decode(Version.self, from: Data(payload)), let major = v.major,
                let minor = v.minor
            {
                version = (major, minor)
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

    private func lose(now: Timestamp, log: (String) -> Void, why: String?) -> Bool {
        close()
        retryAt = now + Self.retryInterval
        more = false
        if let why, !saidLost { log("\(why): the focused app is not known until it is back") }
        saidLost = true
        let changed = known
        known = false
        focus = nil
        focusedID = nil
        version = nil
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

    private struct Version: Decodable {
        var major: Int?
        var minor: Int?
    }

    private struct WindowEvent: Decodable {
        var change: String?
        var container: Node?
    }
}
