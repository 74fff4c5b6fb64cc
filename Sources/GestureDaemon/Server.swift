import CLinux
package import GestureConfiguration
package import GestureCore
package import GestureProtocol
package import Logging
import SystemPackage
package import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The clients and the protocol: accepting connections (who may, how many),
/// reading requests and answering them, writing what the publisher queued,
/// closing clients that asked for it, failed, fell behind or said nothing.
///
/// One client cannot keep the loop from the others or from the devices: in
/// one turn connections are accepted for at most `acceptTime` (every one
/// waiting, unless a flood outlasts it), and each client has at most
/// `Client.readBudget` bytes read and `requestBudget` requests answered,
/// and none while `answerBound` bytes of its answers wait unsent.
///
/// Nobody can flood the log either: clients coming and going are logged at
/// `debug`, and counted at `info` once a minute (`activity`); each kind of
/// warning a client can cause is said a few times per ten seconds, then
/// counted (`RepeatLimiter`).
package struct Server {
    /// The longest the connections waiting are accepted in one turn of the loop, µs.
    static let acceptTime = Timestamp.Duration(microseconds: 2000)
    /// Requests one client may have answered in one turn of the loop.
    static let requestBudget = 64
    /// The longest the clients' requests are answered in one turn; the
    /// client whose request ran past it goes first in the next.
    static let requestTime = Timestamp.Duration(microseconds: 2000)
    /// Where the next turn starts answering (`requestTime`).
    private var firstServed = 0
    /// While this much of its output waits unsent, a client's requests wait
    /// too: one that does not read its answers cannot make the daemon queue more.
    static let answerBound = 16 * 1024
    /// How long a closing client's last lines may take to drain.
    static let closeGrace = Timestamp.Duration.milliseconds(1000)
    /// The most chords one client may have typed in a second (a burst of as
    /// many, then as many a second).
    static let keysPerSecond = 20
    /// The most `orientation` requests one client may have taken in a
    /// second (a burst of as many, then as many a second): a compositor
    /// turns its output a few times a minute.
    static let orientationsPerSecond = 5

    /// An `orientation` request taken: the daemon applies it after the turn.
    package struct OrientationRequest: Equatable, Sendable {
        /// The client's serial: its word lasts while it is connected.
        package var client: Int
        package var devices: [GestureCore.DeviceID]
        package var transform: ScreenTransform
    }

    /// The connected clients, closed ones until the end of the turn. The
    /// publisher queues events into their outboxes.
    package var clients: [Client] = []
    /// The listening socket (nil until `listen`).
    package private(set) var listener: Listener?
    private var access: AccessPolicy
    private var settings: DaemonSettings
    /// Who is at the seat's screen (nil: nobody asks, `deliver = "everyone"`).
    private var seat: SeatState?
    /// The daemon's keyboard, made for the first client that will type.
    private var keyboard: VirtualKeyboard?
    /// Why the keyboard could not be made, and when that was tried (not again for a while).
    private var keyboardFailure: (message: String, at: Timestamp)?
    private var logger: Logger
    private var serial = 0
    private var readScratch = [UInt8](repeating: 0, count: Client.readBudget)
    /// Refused connections and accept failures, logged at most a few a second.
    private var refusals = RepeatLimiter()
    /// What clients did wrong (a line too long, not reading, a failed write), likewise.
    private var clientWarnings = RepeatLimiter()
    /// Clients that came and went since the last `activity` report, and when it is due.
    private var came = 0
    private var went = 0
    /// The devices served in this turn (for the requests that name one).
    private var devices: [DeviceInfo] = []
    /// The `orientation` requests taken since `takeOrientationRequests`.
    private var orientationRequests: [OrientationRequest] = []
    /// The serials of the clients that closed since `takeClosed`, while
    /// some orientation came from a client.
    private var closedSerials: [Int] = []
    /// Whether the daemon follows closings (`followClosings`).
    private var followsClosings = false
    package private(set) var activityDue = Timestamp.never
    /// How often the comings and goings are counted in the log.
    static let activityInterval = Timestamp.Duration.milliseconds(60_000)
    /// A descriptor kept open so that, at the process's descriptor limit, a
    /// waiting connection can still be accepted and told why it is refused.
    private var spareFD: Int32 = -1
    /// The listener is not polled until a client goes, or `pauseLength`
    /// passes: at the descriptor limit, connections wait in the kernel's
    /// backlog instead of waking the loop again and again.
    private var listenerPaused = false
    private var pausedUntil = Timestamp.never
    static let pauseLength = Timestamp.Duration.milliseconds(1000)
    /// The listener's token in the loop's set (each client has its own, `Client.token`).
    private var listenerToken: Readiness.Token?
    /// The loop's set, where the listener and the clients are watched.
    private var loop: Readiness?
    /// Whether the listener is watched now (not while paused).
    private var listenerWatched = false
    /// The earliest deadline of the clients when the turn began (`deadline`):
    /// until then no client's time to subscribe can have run out.
    private var dueAtWatch = Timestamp.never
    /// A client was closed this turn: `sweep` has one to remove.
    private var closedSome = false
    /// Set by `watch`: every client is subscribed, with nothing to write
    /// and nothing read and unanswered. Until one of their sockets or the
    /// listener is ready, or something is queued for them, the server then
    /// has nothing to do in a turn (`turn`), and no deadline.
    private var quiet = false
    /// Whether the last `watch` found every client quiet (for the loop's tests).
    var isQuiet: Bool { quiet }

    package init(access: AccessPolicy, settings: DaemonSettings, logger: Logger, seat: SeatState? = nil) {
        self.access = access
        self.settings = settings
        self.logger = logger
        self.seat = seat
    }

    /// Serves the clients of `listener` from now on, watching it and them in `loop`.
    package mutating func listen(_ listener: Listener, loop: Readiness) throws(SetupError) {
        self.listener = listener
        self.loop = loop
        listenerToken = try loop.watch(listener.fd, "the socket \(listener.path)", owner: .listener)
        listenerWatched = true
        spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    /// What the daemon must act on after a turn's work beyond the frames:
    /// one bit each, so that merging is an `or` and a turn with no news is
    /// told by one test.
    package struct News {
        private var bits: UInt8 = 0

        init(subscriptionsChanged: Bool = false, countsChanged: Bool = false) {
            self.subscriptionsChanged = subscriptionsChanged
            self.countsChanged = countsChanged
        }

        private static let subscriptions: UInt8 = 1
        private static let counts: UInt8 = 2
        private static let answer: UInt8 = 4

        private func has(_ bit: UInt8) -> Bool { bits & bit != 0 }
        private mutating func set(_ bit: UInt8, _ on: Bool) { bits = on ? bits | bit : bits & ~bit }

        /// The union of the subscriptions changed: the recognizer reports other kinds now.
        package var subscriptionsChanged: Bool {
            get { has(Self.subscriptions) }
            set { set(Self.subscriptions, newValue) }
        }
        /// Clients came or went, or subscribed: the status line changes.
        package var countsChanged: Bool {
            get { has(Self.counts) }
            set { set(Self.counts, newValue) }
        }
        /// A request was answered.
        package var answered: Bool {
            get { has(Self.answer) }
            set { set(Self.answer, newValue) }
        }

        /// Nothing happened but frames (and their gestures).
        package var isEmpty: Bool { bits == 0 }

        mutating func merge(_ other: News) { bits |= other.bits }
    }

    /// The listener's token, once it listens.
    package var listenerTokens: [Readiness.Token] { listenerToken.map { [$0] } ?? [] }

    package var subscriberCount: Int { clients.count { $0.state == .subscribed } }

    /// What the subscribers at the screen claim, together (a claim lasts
    /// while its client is connected and at the screen).
    package var claims: ClaimSet {
        var all = ClaimSet()
        for c in clients where c.state == .subscribed && c.atScreen && c.fd >= 0 { all.formUnion(c.subscription.claims) }
        return all
    }

    /// What the recognizer should report: the union of the subscriptions;
    /// whether some subscriber wants taps at their lift while another waits
    /// for double taps; the kinds whose `changed` events some subscriber
    /// wants (one whose `phases` leave out `changed` wants none).
    package var wanted: (kinds: GestureKindSet, immediateTaps: Bool, changes: GestureKindSet) {
        var union = GestureKindSet()
        var changes = GestureKindSet()
        var immediate = false
        for c in clients where c.state == .subscribed {
            union.formUnion(c.subscription.gestures)
            if c.subscription.phases?.contains(.changed) ?? true { changes.formUnion(c.subscription.gestures) }
            if c.subscription.gestures.contains(.tap) && !c.subscription.wantsDoubleTap { immediate = true }
        }
        return (union, immediate && union.contains(.doubleTap), changes)
    }

    private var subscribeTimeout: Timestamp.Duration { .milliseconds(settings.subscribeTimeout * 1000) }

    // MARK: The turn

    /// The server's part of a turn: requests and new connections
    /// (`serve`), the writes (`flush`), what to watch next (`watch`).
    /// `published` says the publisher, which queues into the clients'
    /// outboxes itself, had something this turn. Without it, with every
    /// client quiet and none of their sockets or the listener ready, there
    /// is nothing to do, and a frame's turn costs the server nothing,
    /// however many subscribers there are. (What the server queues itself,
    /// a reload's messages, ends the quiet where it is queued.)
    package mutating func turn(loop: Readiness, devices: [DeviceInfo], now: Timestamp, published: Bool) -> News {
        if now >= pausedUntil {
            // At the descriptor limit a while ago: the listener is tried again.
            listenerPaused = false
            pausedUntil = .never
            quiet = false
        }
        if !published && quiet && !loop.anyReady(.listener) && !loop.anyReady(.client) { return News() }
        var news = serve(loop: loop, devices: devices, now: now)
        news.merge(flush(now: now))
        watch(loop)
        return news
    }

    /// What each client is watched for in the next wait, where it changed
    /// this turn: input while it may send more, output while its outbox
    /// waits; the listener, unless paused.
    private mutating func watch(_ loop: Readiness) {
        if let listener, let listenerToken, listenerPaused == listenerWatched {
            listenerWatched = !listenerPaused
            loop.change(listener.fd, listenerWatched ? Readiness.input : 0, token: listenerToken)
        }
        var quiet = true
        for i in clients.indices {
            guard clients[i].fd >= 0 else {
                quiet = false
                continue
            }
            var events: UInt32 = 0
            if !clients[i].readClosed && clients[i].state != .closing && clients[i].wantsInput
                && clients[i].pending < Self.answerBound
            {
                events |= Readiness.input
            }
            if clients[i].pending > 0 { events |= Readiness.output }
            if events != clients[i].watched {
                clients[i].watched = events
                loop.change(clients[i].fd, events, token: clients[i].token)
            }
            if clients[i].state != .subscribed || clients[i].pending > 0 || clients[i].buffered > 0 { quiet = false }
        }
        self.quiet = quiet
    }

    /// The earliest time the server must act by itself: a closing client's
    /// grace ends, a connection's time to subscribe runs out; `.zero` (at
    /// once) when a request read earlier waits for its answer.
    /// (Inlined into the turn: with every client quiet, as on most turns,
    /// the answer is one test.)
    @inline(__always)
    package mutating func deadline() -> Timestamp {
        if quiet {
            dueAtWatch = .never
            return pausedUntil
        }
        return min(clientsDeadline(), pausedUntil)
    }

    private mutating func clientsDeadline() -> Timestamp {
        var due = Timestamp.never
        var answerWaits = false
        for i in clients.indices {
            switch clients[i].state {
            case .closing: due = min(due, clients[i].closeDeadline)
            case .connected: due = min(due, clients[i].subscribeDeadline)
            case .subscribed: break
            }
            if !answerWaits && clients[i].state != .closing && clients[i].buffered > 0
                && clients[i].pending < Self.answerBound && clients[i].hasLine
            {
                answerWaits = true
            }
        }
        dueAtWatch = due
        return answerWaits ? .zero : due
    }

    /// Handles what the wait found: hung-up clients, requests (for at most
    /// `requestTime`, starting where the last turn's ran out, so that every
    /// client gets its share), new connections.
    private mutating func serve(loop: Readiness, devices: [DeviceInfo], now: Timestamp) -> News {
        self.devices = devices
        var news = News()
        let count = clients.count
        let stop = monotonicNow() + Self.requestTime
        var timeUp = false
        for k in 0..<count {
            let i = (firstServed + k) % count
            guard clients[i].fd >= 0 else { continue }
            let token = clients[i].token
            let events = loop.events(token)
            // Nothing happened to it and nothing of its input waits: nothing to do.
            guard events != 0 || clients[i].buffered > 0 else { continue }
            if !timeUp {
                news.merge(serveRequests(i, readable: events & Readiness.input != 0, until: stop, now: now))
                if monotonicNow() >= stop {
                    // The rest wait for the next turn, this client first if it has more.
                    timeUp = true
                    firstServed = clients[i].buffered > 0 ? i : (i + 1) % count
                }
            }
            if loop.hungUp(token) && clients[i].state != .closing && clients[i].fd >= 0 {
                news.merge(drop(i, "disconnected"))
            }
        }
        if let listenerToken, loop.readable(listenerToken) { news.merge(accept(devices: devices, now: now)) }
        return news
    }

    /// Writes what waits in the outboxes; closes the clients whose time to
    /// subscribe ran out, and the closing ones once written (or out of time).
    private mutating func flush(now: Timestamp) -> News {
        var news = News()
        // A time to subscribe set this turn is in the future: only one known at the turn's start can have run out.
        for i in clients.indices where now >= dueAtWatch && clients[i].state == .connected && now >= clients[i].subscribeDeadline
        {
            news.merge(
                refuse(
                    i, code: "timeout",
                    message:
                        "no subscription within \(NumberText.fixed(subscribeTimeout.seconds, 1)) s of connecting (or unsubscribing)",
                    now: now))
        }
        for i in clients.indices where clients[i].fd >= 0 {
            var gone = false
            if clients[i].pending > 0, case .failed(let e) = clients[i].flush() {
                if e != .brokenPipe && e != .connectionReset {
                    let label = clients[i].label
                    clientWarnings.note(now: now, logger) { "\(label): write failed: \(e)" }
                }
                gone = true
            }
            if clients[i].state == .closing && (clients[i].pending == 0 || now >= clients[i].closeDeadline) { gone = true }
            if gone {
                shutdown(clients[i].fd, Int32(SHUT_RDWR))
                logger.debug("\(clients[i].label) closed")
                news.merge(close(i))
            }
        }
        sweep()
        return news
    }

    /// Queues the messages of the daemon itself (`config_reloaded`) for every subscriber.
    package mutating func tellSubscribers(_ line: String, now: Timestamp) -> News {
        quiet = false
        var news = News()
        for i in clients.indices where clients[i].state == .subscribed { news.merge(send(line, to: i, now: now)) }
        return news
    }

    // MARK: Requests

    /// Reads what a client sent (at most `Client.readBudget` bytes) and
    /// answers at most `requestBudget` of its requests, until `stop`.
    private mutating func serveRequests(_ i: Int, readable: Bool, until stop: Timestamp, now: Timestamp) -> News {
        var news = News()
        if readable && clients[i].wantsInput && !clients[i].readClosed {
            switch clients[i].fill(scratch: &readScratch) {
            case .read: break
            case .endOfFile:
                // Half-closed: the client may still read; it is dropped when the socket hangs up.
                clients[i].readClosed = true
            case .failed(let e):
                return drop(i, "read failed: \(e)")
            }
        }
        var answered = 0
        while answered < Self.requestBudget && clients[i].state != .closing && clients[i].pending < Self.answerBound {
            guard let line = clients[i].nextLine() else {
                if clients[i].lineTooLong { news.merge(lineTooLong(i, now: now)) }
                return news
            }
            guard line.count <= WireProtocol.maxLineLength else {
                news.merge(lineTooLong(i, now: now))
                return news
            }
            news.merge(handle(line, from: i, now: now))
            news.answered = true
            answered += 1
            if monotonicNow() >= stop { break }
        }
        return news
    }

    /// A line longer than the protocol allows, whole or still coming: told, and closed.
    private mutating func lineTooLong(_ i: Int, now: Timestamp) -> News {
        let label = clients[i].label
        clientWarnings.note(now: now, logger) { "\(label): line longer than \(WireProtocol.maxLineLength) bytes; closing" }
        return refuse(
            i, code: "line-too-long", message: "lines are at most \(WireProtocol.maxLineLength) bytes", now: now)
    }

    private mutating func handle(_ line: ArraySlice<UInt8>, from i: Int, now: Timestamp) -> News {
        var news = News()
        let request: ClientRequest
        do {
            request = try ClientRequest.parse(line)
        } catch {
            logger.debug("\(clients[i].label): \(error.code): \(error.message)")
            return send(ServerMessage.error(code: error.code, message: error.message, fatal: false), to: i, now: now)
        }
        switch request {
        case .subscribe(let sub):
            let changed =
                clients[i].state != .subscribed || clients[i].subscription.gestures != sub.gestures
                || clients[i].subscription.claims != sub.claims
            let wasSubscribed = clients[i].state == .subscribed
            news.countsChanged = !wasSubscribed
            clients[i].subscription = sub
            clients[i].state = .subscribed
            clients[i].subscribeDeadline = .never
            let reply = ServerMessage.subscribed(sub)
            logger.debug("\(clients[i].label) subscribed: \(reply)")
            news.merge(send(reply, to: i, now: now))
            if !wasSubscribed && !clients[i].atScreen {
                news.merge(send(ServerMessage.paused(seat: settings.seat, state: seat), to: i, now: now))
            }
            if sub.keys && clients[i].atScreen { _ = makeKeyboard(now: now) }
            news.subscriptionsChanged = news.subscriptionsChanged || changed
        case .unsubscribe:
            if clients[i].state == .subscribed {
                clients[i].state = .connected
                clients[i].admitted.removeAll()
                clients[i].subscribeDeadline = now + subscribeTimeout
                news.subscriptionsChanged = true
                news.countsChanged = true
            }
            news.merge(send(ServerMessage.unsubscribed, to: i, now: now))
        case .ping:
            news.merge(send(ServerMessage.pong, to: i, now: now))
        case .keys(let chord):
            news.merge(send(type(chord, for: i, now: now), to: i, now: now))
        case .orientation(let device, let transform):
            news.merge(send(orient(device, transform, for: i, now: now), to: i, now: now))
        }
        return news
    }

    /// Takes an orientation from client `i` if its user's session is the
    /// active one on the seat (or it is root or the daemon's user), it has
    /// not sent `orientationsPerSecond` this second, and `device` names a
    /// touchscreen served: the answer.
    private mutating func orient(_ device: String, _ transform: ScreenTransform, for i: Int, now: Timestamp) -> String {
        guard access.mayTurn(clients[i].uid, seat: seat) else {
            return ServerMessage.error(
                code: "not-at-screen",
                message: "orientation not taken: only a client of the session active on \(settings.seat) may turn its screen",
                fatal: false)
        }
        guard clients[i].orientations.take(now: now) else {
            return ServerMessage.error(
                code: "rate-limited",
                message: "orientation not taken: more than \(Self.orientationsPerSecond) in a second", fatal: false)
        }
        let lowered = device.lowercased()
        let matched = devices.filter { $0.name == device || $0.node == device || $0.vendorProduct == lowered }
        guard !matched.isEmpty else {
            return ServerMessage.error(
                code: "no-device",
                message: "no touchscreen '\(logSafe(String(device.prefix(80))))' is served; `gestured devices` lists them",
                fatal: false)
        }
        orientationRequests.append(
            OrientationRequest(client: clients[i].serial, devices: matched.map(\.id), transform: transform))
        logger.debug("\(clients[i].label): \(device) shows its picture turned \(transform.name)")
        return ServerMessage.oriented(transform, devices: matched.map(\.node))
    }

    /// The `orientation` requests taken since the last call, in order.
    package mutating func takeOrientationRequests() -> [OrientationRequest] {
        defer { orientationRequests.removeAll() }
        return orientationRequests
    }

    /// While `on`, the serials of closing clients are kept for `takeClosed`
    /// (the daemon forgets the orientation a client gave when it goes).
    package mutating func followClosings(_ on: Bool) {
        followsClosings = on
        if !on { closedSerials.removeAll() }
    }

    /// The serials of the clients closed since the last call.
    package mutating func takeClosed() -> [Int] {
        defer { closedSerials.removeAll() }
        return closedSerials
    }

    /// Types `chord` for client `i` if its user is at the screen and it has
    /// not typed `keysPerSecond` chords this second: the answer.
    private mutating func type(_ chord: Chord, for i: Int, now: Timestamp) -> String {
        guard clients[i].atScreen else {
            return ServerMessage.error(
                code: "not-at-screen", message: "not typed: another user's session is active on \(settings.seat)", fatal: false)
        }
        guard clients[i].keys.take(now: now) else {
            return ServerMessage.error(
                code: "rate-limited", message: "not typed: more than \(Self.keysPerSecond) chords in a second", fatal: false)
        }
        if let failure = makeKeyboard(now: now) {
            return ServerMessage.error(code: "no-keyboard", message: failure, fatal: false)
        }
        guard keyboard!.type(chord) else {
            return ServerMessage.error(code: "no-keyboard", message: "the kernel refused the keys of \(chord.text)", fatal: false)
        }
        logger.debug("\(clients[i].label) typed \(chord.text)")
        return ServerMessage.typed(chord)
    }

    /// Makes the daemon's keyboard if it has none; why it cannot, if so (tried again after 10 s).
    private mutating func makeKeyboard(now: Timestamp) -> String? {
        if keyboard != nil { return nil }
        if let f = keyboardFailure, now - f.at < .milliseconds(10_000) { return f.message }
        do {
            keyboard = try VirtualKeyboard()
            keyboardFailure = nil
            logger.info("made the keyboard that types clients' keys (gestured virtual keyboard)")
            return nil
        } catch {
            keyboardFailure = (error.message, now)
            logger.warning("\(error.message)")
            return error.message
        }
    }

    // MARK: The seat

    /// Who is at the screen changed: each client whose user came to it or
    /// left it is told (`resumed`, `paused`); one that left gets no more of
    /// the gestures under way.
    package mutating func seatChanged(_ state: SeatState?, now: Timestamp) -> News {
        seat = state
        quiet = false
        var news = News()
        for i in clients.indices where clients[i].fd >= 0 {
            let now2 = access.atScreen(clients[i].uid, seat: state)
            guard now2 != clients[i].atScreen else { continue }
            clients[i].atScreen = now2
            if !clients[i].subscription.claims.isEmpty { news.subscriptionsChanged = true }
            if !now2 { clients[i].admitted.removeAll() }
            if clients[i].state == .subscribed {
                news.merge(
                    send(now2 ? ServerMessage.resumed : ServerMessage.paused(seat: settings.seat, state: seat), to: i, now: now))
                if now2 && clients[i].subscription.keys { _ = makeKeyboard(now: now) }
            }
        }
        return news
    }

    /// Queues an answer; a client whose outbox is full is closed with `overflow`.
    private mutating func send(_ line: String, to i: Int, now: Timestamp) -> News {
        guard clients[i].state != .closing, !clients[i].enqueue(line) else { return News() }
        let (label, limit) = (clients[i].label, clients[i].outboxLimit / 1024)
        clientWarnings.note(now: now, logger) { "\(label) does not read: outbox over \(limit) KiB; closing it" }
        let wasSubscribed = clients[i].state == .subscribed
        clients[i].enqueueFinal(
            ServerMessage.error(
                code: "overflow",
                message: "you did not read fast enough; \(clients[i].outboxLimit / 1024) KiB were waiting", fatal: true),
            closeBy: now + Publisher.overflowGrace)
        return News(subscriptionsChanged: wasSubscribed, countsChanged: wasSubscribed)
    }

    // MARK: Connections

    /// Accepts waiting connections, at most `acceptBudget` a turn: one that
    /// may not subscribe, or that finds every slot (or its user's share of
    /// them) taken, is told why and closed.
    private mutating func accept(devices: [DeviceInfo], now: Timestamp) -> News {
        var news = News()
        // Closing clients keep their slots until they are gone (an overflowing
        // one may take a while): no connecting and overflowing round and round.
        guard let listener else { return news }
        var active = clients.count { $0.fd >= 0 }
        /// The hello, made once for the turn's newcomers.
        var hello: [UInt8]?
        let stop = monotonicNow() + Self.acceptTime
        for n in 0... {
            // The clock is looked at every 16 connections: each is a few microseconds.
            if n % 16 == 15 && monotonicNow() >= stop { break }
            let fd = clinux_accept(listener.fd)
            if fd < 0 {
                let e = Errno.last
                switch e {
                case .resourceTemporarilyUnavailable: return news
                case .connectionAbort: continue
                case .tooManyOpenFiles, .tooManyOpenFilesInSystem:
                    outOfDescriptors(now: now)
                    return news
                default:
                    refusals.note(now: now, logger) { "accept: \(e)" }
                    return news
                }
            }
            var pid: pid_t = 0
            var uid: uid_t = 0
            var gid: gid_t = 0
            if clinux_peer_credentials(fd, &pid, &uid, &gid) != 0 {
                Glibc.close(fd)
                continue
            }
            serial += 1
            came += 1
            if activityDue == .never { activityDue = now + Self.activityInterval }
            news.countsChanged = true
            let limit = settings.maxClients
            if active >= limit {
                // Clients that hung up since the last turn do not hold slots.
                news.merge(reapHungUp())
                active = clients.count { $0.fd >= 0 }
            }
            let share = settings.clientsPerUser
            let refusal: (code: String, message: String, log: String)?
            if !access.allows(fd: fd, uid: uid, gid: gid) {
                refusal = (
                    "forbidden", "uid \(uid) may not subscribe: not in [daemon] allow-users/allow-groups",
                    "not in [daemon] allow-users or allow-groups"
                )
            } else if active >= limit {
                refusal = ("busy", "the daemon serves \(limit) clients already", "\(limit) clients already (max-clients)")
            } else if clients.count(where: { $0.uid == uid && $0.fd >= 0 }) >= share {
                let why = "uid \(uid) has \(share) clients already (max-clients-per-user)"
                refusal = ("busy", why, why)
            } else {
                refusal = nil
            }
            // A welcome connection gets its hello at once: one that is gone
            // already (a client that connects and closes) is closed here,
            // with no more work than that.
            var unsent: ArraySlice<UInt8> = []
            if refusal == nil {
                if hello == nil {
                    hello = Array((ServerMessage.hello(devices: devices, server: "gestured \(gesturedVersion)") + "\n").utf8)
                }
                let n = hello!.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
                if n < 0 && errno != EAGAIN {
                    Glibc.close(fd)
                    went += 1
                    continue
                }
                unsent = hello![max(0, n)...]
            }
            // Watched for input from the next wait on (`watch` changes that as it goes).
            guard let loop else { return news }
            let token: Readiness.Token
            switch loop.add(fd, Readiness.input, owner: .client) {
            case .success(let t): token = t
            case .failure(let e):
                refusals.note(now: now, logger) { "cannot watch a new connection: \(e)" }
                Glibc.close(fd)
                went += 1
                continue
            }
            clients.append(
                Client(
                    fd: fd, token: token, serial: serial, pid: pid, uid: uid, gid: gid, outboxLimit: settings.clientBuffer))
            let i = clients.count - 1
            if let refusal {
                let label = clients[i].label
                refusals.note(now: now, logger) { "refused \(label): \(refusal.log)" }
                news.merge(refuse(i, code: refusal.code, message: refusal.message, now: now))
                continue
            }
            active += 1
            clients[i].atScreen = access.atScreen(uid, seat: seat)
            clients[i].subscribeDeadline = now + subscribeTimeout
            logger.debug("\(clients[i].label) connected")
            if !unsent.isEmpty { _ = unsent.withUnsafeBytes { clients[i].enqueue($0) } }
        }
        return news
    }

    /// Drops the clients whose peer has gone (a non-blocking look at every socket).
    private mutating func reapHungUp() -> News {
        var news = News()
        var set = clients.map { pollfd(fd: $0.fd, events: 0, revents: 0) }
        guard poll(&set, nfds_t(set.count), 0) > 0 else { return news }
        for (i, p) in set.enumerated()
        where clients[i].fd >= 0 && Int32(p.revents) & Int32(POLLHUP | POLLERR | POLLNVAL) != 0 {
            news.merge(drop(i, "disconnected"))
        }
        return news
    }

    /// At the process's descriptor limit (`EMFILE`): the spare descriptor
    /// makes room to accept one waiting connection and tell it; then the
    /// listener rests until a client goes.
    private mutating func outOfDescriptors(now: Timestamp) {
        let count = clients.count
        refusals.note(now: now, logger) {
            "out of file descriptors (RLIMIT_NOFILE) with \(count) clients; new connections wait until one goes (a second at most)"
        }
        if spareFD >= 0 {
            Glibc.close(spareFD)
            spareFD = -1
            let fd = listener.map { clinux_accept($0.fd) } ?? -1
            if fd >= 0 {
                let line = ServerMessage.error(
                    code: "busy", message: "the daemon is out of file descriptors; try again later", fatal: true)
                _ = (line + "\n").withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                Glibc.close(fd)
            }
            spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        }
        listenerPaused = true
        pausedUntil = now + Self.pauseLength
    }

    /// Counts in the log the clients that came and went in the last
    /// minute, if any did (the daemon calls it at `activityDue`).
    package mutating func reportActivity(now: Timestamp) {
        guard now >= activityDue else { return }
        let count = clients.count { $0.fd >= 0 }
        logger.info("in the last minute \(came) connection(s) came and \(went) went; \(count) client(s) now")
        came = 0
        went = 0
        activityDue = .never
    }

    // MARK: Closing

    /// Sends a fatal error and closes the client once it is written (or after a grace period).
    private mutating func refuse(_ i: Int, code: String, message: String, now: Timestamp) -> News {
        let wasSubscribed = clients[i].state == .subscribed
        clients[i].enqueueFinal(
            ServerMessage.error(code: code, message: message, fatal: true), closeBy: now + Self.closeGrace)
        return News(subscriptionsChanged: wasSubscribed, countsChanged: wasSubscribed)
    }

    /// Closes a client now (it hung up, or reading from it failed).
    private mutating func drop(_ i: Int, _ why: String) -> News {
        logger.debug("\(clients[i].label) \(why)")
        return close(i)
    }

    /// Closes the client's socket; it leaves `clients` at the end of the turn.
    private mutating func close(_ i: Int) -> News {
        went += 1
        let wasSubscribed = clients[i].state == .subscribed
        Glibc.close(clients[i].fd)
        if followsClosings { closedSerials.append(clients[i].serial) }
        clients[i].markClosed()
        closedSome = true
        listenerPaused = false
        pausedUntil = .never
        return News(subscriptionsChanged: wasSubscribed, countsChanged: true)
    }

    /// Removes the closed clients.
    private mutating func sweep() {
        guard closedSome else { return }
        closedSome = false
        clients.removeAll { $0.fd < 0 }
    }

    // MARK: Reload and stop

    /// New allow-lists and limits; clients no longer allowed are told and closed.
    package mutating func reload(access: AccessPolicy, settings: DaemonSettings, now: Timestamp) -> News {
        quiet = false
        self.access = access
        self.settings = settings
        var news = seatChanged(seat, now: now)
        for i in clients.indices
        where clients[i].fd >= 0 && !access.allows(fd: clients[i].fd, uid: clients[i].uid, gid: clients[i].gid) {
            news.merge(
                refuse(
                    i, code: "forbidden",
                    message: "uid \(clients[i].uid) is no longer allowed by [daemon] allow-users/allow-groups", now: now))
        }
        return news
    }

    /// Tells every client the daemon stops, lets their last lines drain
    /// (half a second at most), closes everything.
    package mutating func stop(clock: LoopClock) {
        let now = clock.now
        for i in clients.indices {
            clients[i].enqueueFinal(
                ServerMessage.goodbye(reason: "the daemon is stopping"), closeBy: now + .milliseconds(500), dropQueued: false)
        }
        while !clients.isEmpty {
            _ = flush(now: clock.now)
            guard !clients.isEmpty else { break }
            var set = clients.map { pollfd(fd: $0.fd, events: Int16(POLLOUT), revents: 0) }
            _ = poll(&set, nfds_t(set.count), 50)
        }
        if let listener, let why = listener.close() {
            logger.notice("left the socket \(listener.path) (\(why)); the next start replaces it")
        }
        listener = nil
        if spareFD >= 0 { Glibc.close(spareFD) }
        spareFD = -1
    }
}
