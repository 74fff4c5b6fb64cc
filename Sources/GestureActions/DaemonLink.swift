import GestureCore
import GestureProtocol
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What the daemon said, for the loop.
enum DaemonNews {
    /// A connection was made and believed: the loop subscribes on it.
    case connected
    /// The daemon's first `subscribed` on this connection.
    case subscribed
    /// The touchscreens served (`hello`), one added, one removed.
    case touchscreens([ScreenFollower.Touchscreen])
    case added([ScreenFollower.Touchscreen])
    case removed([ScreenFollower.Touchscreen])
    /// Whether the session at the screen is locked, whether tablet mode is on.
    case context(locked: Bool, tabletMode: Bool)
    /// What the daemon cannot make, output → why: all it knows of
    /// (`hello`), or of what the subscription asks for (each `subscribed`).
    case unavailable([String: String], hello: Bool)
    /// A gesture event, and its line as the daemon sent it (for pipes).
    case event(ReceivedEvent, line: [UInt8])
    /// The connection ended (the log says why); act connects again.
    case lost
}

/// act's connection to the daemon: whom it believes (`SocketTrust`),
/// connecting and waiting (a doubling backoff up to 5 s), sending requests
/// and reading what comes, at most `readBudget` bytes a turn. The state is
/// one enum: waiting for the next try, or connected with what that
/// connection has seen.
final class DaemonLink: ActSource {
    /// The longest line taken from the daemon (its own lines are far
    /// shorter); a longer one ends the connection.
    static let lineLimit = 64 * 1024
    /// The most bytes read from the daemon in one turn, so that signals,
    /// timeouts and commands are seen to between reads, whatever the socket holds.
    static let readBudget = 64 * 1024
    static let firstBackoff = Timestamp.Duration.milliseconds(100)
    static let lastBackoff = Timestamp.Duration.milliseconds(5000)
    /// The protocol act speaks: `held_ms` is 1.9's.
    static let protocolNeeded = [1, 9]

    private struct Connection {
        var fd: Int32
        var input = LineBuffer(limit: DaemonLink.lineLimit + DaemonLink.readBudget)
        /// The first `subscribed` came.
        var subscribed = false
        /// The subscription last sent on it.
        var sent: String?
        var slot = Poller.Slot.none
    }

    private enum State {
        /// Not connected: the next try is at `retryAt`.
        case waiting(retryAt: Timestamp)
        case connected(Connection)
    }

    let path: String
    private let trust = SocketTrust.daemon()
    private let log: (String) -> Void
    private var state = State.waiting(retryAt: .zero)
    private var backoff = DaemonLink.firstBackoff
    /// Why the daemon is not there was said (until a connection works).
    private var saidWaiting = false
    /// The last reason the socket was not believed, so that it is said once.
    private var lastRefusal: String?
    /// Lines from the daemon that were skipped, said a few times a second at most.
    private var badLines = RepeatLimiter()
    /// `paused` and `resumed`, said a few times a minute at most (a busy
    /// logind makes the daemon pause and resume its clients often).
    private var pauses = RepeatLimiter(burst: 4, window: .milliseconds(60_000))
    /// Each refusal's text, said once a minute (at most 32 texts followed).
    private var refusals: [String: RepeatLimiter] = [:]
    /// Where the socket is read into, kept from one read to the next.
    private var chunk = [UInt8](repeating: 0, count: DaemonLink.readBudget)

    init(path: String, log: @escaping (String) -> Void) {
        self.path = path
        self.log = log
    }

    var isConnected: Bool {
        if case .connected = state { return true }
        return false
    }

    var deadline: Timestamp {
        if case .waiting(let at) = state { return at }
        return .never
    }

    func prepare(_ poller: inout Poller, now: Timestamp, into news: inout [ActNews]) {
        if case .waiting(let at) = state, now >= at { connect(now: now, into: &news) }
        if case .connected(var c) = state {
            c.slot = poller.add(c.fd, Int32(POLLIN))
            state = .connected(c)
        }
    }

    func serve(_ poller: Poller, now: Timestamp, into news: inout [ActNews]) {
        guard case .connected(let c) = state, poller.readable(c.slot) || poller.hungUp(c.slot) else { return }
        receive(now: now, into: &news)
    }

    func close() {
        if case .connected(let c) = state { Glibc.close(c.fd) }
        state = .waiting(retryAt: .never)
    }

    // MARK: Connecting

    private func connect(now: Timestamp, into news: inout [ActNews]) {
        func retry() {
            state = .waiting(retryAt: now + backoff)
            backoff = min(Timestamp.Duration(microseconds: backoff.microseconds * 2), Self.lastBackoff)
        }
        // Nothing is believed from a socket someone else could have put there.
        if let problem = trust.problem(path: path), fileExists(path) {
            refuse(problem)
            return retry()
        }
        // Non-blocking: a backlog another client keeps full is a retry, never a wait.
        let fd: Int32
        switch connectToDaemon(path, nonBlocking: true) {
        case .success(let connected): fd = connected
        case .failure(let why):
            if !saidWaiting {
                log("\(why); retrying until the daemon is there")
                saidWaiting = true
            }
            return retry()
        }
        if let problem = trust.problem(peerOf: fd) {
            Glibc.close(fd)
            refuse(problem)
            return retry()
        }
        lastRefusal = nil
        state = .connected(Connection(fd: fd))
        news.append(.daemon(.connected))
    }

    /// Says once (until the socket is believed again) why it is not.
    private func refuse(_ problem: String) {
        guard problem != lastRefusal else { return }
        lastRefusal = problem
        log(
            "not believing \(path): \(problem); nothing is run for what it sends. The system daemon's socket is /run/gestured/gestured.sock; retrying"
        )
    }

    /// Ends the connection (the log says why) and tries again soon.
    private func disconnect(now: Timestamp, why: String, into news: inout [ActNews]) {
        guard case .connected(let c) = state else { return }
        Glibc.close(c.fd)
        log("\(why); reconnecting")
        saidWaiting = false
        backoff = Self.firstBackoff
        state = .waiting(retryAt: now + backoff)
        news.append(.daemon(.lost))
    }

    // MARK: Sending

    /// Sends `line` (a subscription) unless it is the one this connection
    /// has already; true when it was sent.
    @discardableResult
    func subscribe(_ line: String, now: Timestamp, into news: inout [ActNews]) -> Bool {
        guard case .connected(var c) = state, c.sent != line else { return false }
        c.sent = line
        state = .connected(c)
        send(line, now: now, into: &news)
        return true
    }

    /// Sends a request. Requests are short and rare: one that the socket
    /// cannot take whole now is the connection failing.
    func send(_ line: String, now: Timestamp, into news: inout [ActNews]) {
        guard case .connected(let c) = state else { return }
        do {
            try writeAll(c.fd, line)
        } catch {
            disconnect(now: now, why: "cannot write to the daemon: \(error)", into: &news)
        }
    }

    // MARK: Receiving

    /// Reads what the daemon sent, at most `readBudget` bytes a turn, and
    /// handles each whole line; what is left waits for the next turn.
    private func receive(now: Timestamp, into news: inout [ActNews]) {
        var budget = Self.readBudget
        while budget > 0, case .connected(var c) = state {
            let result = c.input.fill(from: c.fd, budget: budget, scratch: &chunk)
            state = .connected(c)
            switch result {
            case .read(0):
                return
            case .read(let n):
                budget -= n
            case .endOfFile:
                return disconnect(now: now, why: "the daemon closed the connection", into: &news)
            case .failed(let e):
                return disconnect(now: now, why: "reading from the daemon failed: \(e)", into: &news)
            }
            while case .connected(var c) = state, let line = c.input.nextLine() {
                let bytes = Array(line)
                state = .connected(c)
                handle(bytes, now: now, into: &news)
            }
            guard case .connected(let c) = state else { return }
            if c.input.buffered > Self.lineLimit {
                return disconnect(
                    now: now, why: "the daemon sent a line longer than \(Self.lineLimit) bytes", into: &news)
            }
        }
    }

    private func handle(_ line: [UInt8], now: Timestamp, into news: inout [ActNews]) {
        switch ReceivedEvent.parse(line) {
        case .event(let event):
            news.append(.daemon(.event(event, line: line)))
        case .message(let type):
            switch type {
            case "subscribed":
                news.append(.daemon(.unavailable(ReceivedEvent.unavailable(line), hello: false)))
                // Said once a connection; later ones answer a change of claims or a reload.
                guard case .connected(var c) = state, !c.subscribed else { break }
                c.subscribed = true
                state = .connected(c)
                backoff = Self.firstBackoff
                saidWaiting = false
                news.append(.daemon(.subscribed))
            case "hello":
                if let v = ReceivedEvent.protocolVersion(line), v.lexicographicallyPrecedes(Self.protocolNeeded) {
                    log(
                        "the daemon speaks protocol \(v.map(String.init).joined(separator: ".")), older than act's "
                            + "\(Self.protocolNeeded.map(String.init).joined(separator: ".")): bindings that wait for "
                            + "hold-ms (and pointer bindings on a touch-and-hold) do not act until the daemon is restarted "
                            + "on the installed version (systemctl restart gestured)")
                }
                news.append(.daemon(.touchscreens(ReceivedEvent.touchscreens(line))))
                news.append(.daemon(.unavailable(ReceivedEvent.unavailable(line), hello: true)))
            case "device_added":
                news.append(.daemon(.added(ReceivedEvent.touchscreens(line))))
            case "device_removed":
                news.append(.daemon(.removed(ReceivedEvent.touchscreens(line))))
            case "orientation":
                log("the daemon: \(ReceivedEvent.orientationText(line))")
            case "error":
                // The same refusal (each `keys` of a daemon with no keyboard) said once a minute.
                let text = ReceivedEvent.errorText(line)
                if refusals[text] == nil, refusals.count >= 32 { refusals.removeAll() }
                refusals[text, default: RepeatLimiter(burst: 1, window: .milliseconds(60_000))].note(now: now, log) {
                    "the daemon says: \(text)"
                }
            case "paused":
                pauses.note(now: now, log) { "the daemon sends nothing now: \(ReceivedEvent.pausedText(line))" }
            case "resumed":
                pauses.note(now: now, log) { "your session is active on the daemon's seat again: gestures come" }
            case "context":
                let (locked, tabletMode) = ReceivedEvent.context(line)
                news.append(.daemon(.context(locked: locked, tabletMode: tabletMode)))
            case "goodbye":
                disconnect(now: now, why: "the daemon is stopping", into: &news)
            default:
                break
            }
        case .invalid(let why):
            badLines.note(now: now, log) {
                "skipped a line from the daemon: \(why): \(logSafe(String(decoding: line, as: UTF8.self)))"
            }
        }
    }
}
