import CLinux
package import GestureConfiguration
package import GestureCore
import GestureProtocol
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
    var firstServed = 0
    /// While this much of its output waits unsent, a client's requests wait
    /// too: one that does not read its answers cannot make the daemon queue more.
    static let answerBound = 16 * 1024
    /// How long a closing client's last lines may take to drain.
    static let closeGrace = Timestamp.Duration.milliseconds(1000)
    /// The most `orientation` requests one user may have taken in a second
    /// (a burst of as many, then as many a second): a compositor turns its
    /// output a few times a minute.
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
    var access: AccessPolicy
    var settings: DaemonSettings
    /// Who is at the seat's screen (nil: nobody asks, `deliver = "everyone"`).
    var seat: SeatState?
    /// The session at the screen is locked (logind's `LockedHint`).
    var locked: Bool { seat?.isLocked ?? false }
    /// A tablet-mode switch is on (`LibinputSource.tabletMode`).
    var tabletMode = false
    /// Why the virtual touchpad cannot be made (nil: it is there, or not
    /// known), and whether the pass-through ever said (`Server+Outputs`).
    var touchpadProblem: String?
    var touchpadTried = false
    /// What the start check found of /dev/uinput (nil: it opens for writing).
    var uinputProblem: String?
    /// What the gestures happen in, for the clients at the screen.
    var context: String { ServerMessage.context(locked: locked, tabletMode: tabletMode) }
    /// The keys and clicks clients ask for, and who may have them.
    var input: InputForClients
    /// Each user's `orientation` requests this second.
    var orientationRates: [uid_t: RateBucket] = [:]
    /// logind's messages wait unread (a flood of them): a `keys` or
    /// `pointer` request waits too, so that no lock or switch in them is
    /// read after the request it should have refused.
    package var seatBehind = false
    var logger: Logger
    var serial = 0
    var readScratch = [UInt8](repeating: 0, count: Client.readBudget)
    /// Refused connections and accept failures, logged at most a few a second.
    var refusals = RepeatLimiter()
    /// What clients did wrong (a line too long, not reading, a failed write), likewise.
    var clientWarnings = RepeatLimiter()
    /// Clients that came and went since the last `activity` report, and when it is due.
    var came = 0
    var went = 0
    /// The devices served in this turn (for the requests that name one).
    var devices: [DeviceInfo] = []
    /// The `orientation` requests taken since `takeOrientationRequests`.
    var orientationRequests: [OrientationRequest] = []
    /// The serials of the clients that closed since `takeClosed`, while
    /// some orientation came from a client.
    var closedSerials: [Int] = []
    /// Whether the daemon follows closings (`followClosings`).
    var followsClosings = false
    package internal(set) var activityDue = Timestamp.never
    /// How often the comings and goings are counted in the log.
    static let activityInterval = Timestamp.Duration.milliseconds(60_000)
    /// A descriptor kept open so that, at the process's descriptor limit, a
    /// waiting connection can still be accepted and told why it is refused.
    var spareFD: Int32 = -1
    /// The listener is not polled until a client goes, or `pauseLength`
    /// passes: at the descriptor limit, connections wait in the kernel's
    /// backlog instead of waking the loop again and again.
    var listenerPaused = false
    var pausedUntil = Timestamp.never
    static let pauseLength = Timestamp.Duration.milliseconds(1000)
    /// The listener's token in the loop's set (each client has its own, `Client.token`).
    var listenerToken: Readiness.Token?
    /// The loop's set, where the listener and the clients are watched.
    var loop: Readiness?
    /// Whether the listener is watched now (not while paused).
    var listenerWatched = false
    /// The earliest deadline of the clients when the turn began (`deadline`):
    /// until then no client's time to subscribe can have run out.
    var dueAtWatch = Timestamp.never
    /// A client was closed this turn: `sweep` has one to remove.
    var closedSome = false
    /// Set by `watch`: every client is subscribed, with nothing to write
    /// and nothing read and unanswered. Until one of their sockets or the
    /// listener is ready, or something is queued for them, the server then
    /// has nothing to do in a turn (`turn`), and no deadline.
    var quiet = false
    /// Whether the last `watch` found every client quiet (for the loop's tests).
    var isQuiet: Bool { quiet }

    package init(access: AccessPolicy, settings: DaemonSettings, logger: Logger, seat: SeatState? = nil) {
        self.access = access
        self.settings = settings
        self.logger = logger
        self.seat = seat
        input = InputForClients(logger: logger)
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
        var bits: UInt8 = 0

        init(subscriptionsChanged: Bool = false, countsChanged: Bool = false) {
            self.subscriptionsChanged = subscriptionsChanged
            self.countsChanged = countsChanged
        }

        private static let subscriptions: UInt8 = 1
        private static let counts: UInt8 = 2
        private static let answer: UInt8 = 4
        private static let claimant: UInt8 = 8

        func has(_ bit: UInt8) -> Bool { bits & bit != 0 }
        mutating func set(_ bit: UInt8, _ on: Bool) { bits = on ? bits | bit : bits & ~bit }

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
        /// A client that claimed touches went (closed, or its user left the
        /// screen): what it claimed ends now, as far as nothing was taken.
        package var claimantLeft: Bool {
            get { has(Self.claimant) }
            set { set(Self.claimant, newValue) }
        }

        /// Nothing happened but frames (and their gestures).
        package var isEmpty: Bool { bits == 0 }

        mutating func merge(_ other: News) { bits |= other.bits }
    }

    /// The listener's token, once it listens.
    package var listenerTokens: [Readiness.Token] { listenerToken.map { [$0] } ?? [] }

    package var subscriberCount: Int { clients.count { $0.state == .subscribed } }

    /// What the recognizer should report: the union of the subscriptions;
    /// whether some subscriber wants taps at their lift while another waits
    /// for double taps, and double taps at their second lift while another
    /// waits for triple taps; the kinds whose `changed` events some
    /// subscriber wants (one whose `phases` leave out `changed` wants none).
    package var wanted:
        (
            kinds: GestureKindSet, immediateTaps: Bool, immediateDoubleTaps: Bool, changes: GestureKindSet,
            holdMarks: Set<Int>
        )
    {
        var union = GestureKindSet()
        var changes = GestureKindSet()
        var immediate = false
        var immediateDoubles = false
        var marks = Set<Int>()
        for c in clients where c.state == .subscribed {
            union.formUnion(c.subscription.gestures)
            if c.subscription.phases?.contains(.changed) ?? true { changes.formUnion(c.subscription.gestures) }
            if c.subscription.gestures.contains(.tap) && c.subscription.maxTaps == 1 { immediate = true }
            if c.subscription.maxTaps == 2 { immediateDoubles = true }
            marks.formUnion(c.subscription.marks)
        }
        return (union, immediate && union.maxTaps > 1, immediateDoubles && union.maxTaps > 2, changes, marks)
    }

    var subscribeTimeout: Timestamp.Duration { .milliseconds(settings.subscribeTimeout * 1000) }

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
        let clicksDue = now >= input.deadline
        if !published && quiet && !clicksDue && !loop.anyReady(.listener) && !loop.anyReady(.client) { return News() }
        var news = serve(loop: loop, devices: devices, now: now)
        if clicksDue || now >= input.deadline { news.merge(advanceClicks(now: now)) }
        news.merge(flush(now: now))
        watch(loop)
        return news
    }

    /// What each client is watched for in the next wait, where it changed
    /// this turn: input while it may send more, output while its outbox
    /// waits; the listener, unless paused.
    mutating func watch(_ loop: Readiness) {
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
            if clients[i].state != .subscribed || clients[i].pending > 0 || clients[i].buffered > 0
                || clients[i].deferred != nil
            {
                quiet = false
            }
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
            return min(pausedUntil, input.deadline)
        }
        return min(clientsDeadline(), pausedUntil, input.deadline)
    }

    mutating func clientsDeadline() -> Timestamp {
        var due = Timestamp.never
        var answerWaits = false
        for i in clients.indices {
            switch clients[i].state {
            case .closing: due = min(due, clients[i].closeDeadline)
            case .connected: due = min(due, clients[i].subscribeDeadline)
            case .subscribed: break
            }
            if !answerWaits && clients[i].state != .closing
                && ((clients[i].buffered > 0 && clients[i].pending < Self.answerBound && clients[i].hasLine)
                    || (clients[i].deferred != nil && !seatBehind))
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
    mutating func serve(loop: Readiness, devices: [DeviceInfo], now: Timestamp) -> News {
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
            guard events != 0 || clients[i].buffered > 0 || clients[i].deferred != nil else { continue }
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
    mutating func flush(now: Timestamp) -> News {
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

    // MARK: The seat

    /// Who is at the screen changed: each client whose user came to it or
    /// left it is told (`resumed`, `paused`); one that left gets no more of
    /// the gestures under way.
    package mutating func seatChanged(_ state: SeatState?, now: Timestamp) -> News {
        let wasLocked = locked
        seat = state
        quiet = false
        var news = News()
        if locked != wasLocked {
            // Claims come and go with the lock; the clients at the screen are told.
            news.subscriptionsChanged = true
            for i in clients.indices where clients[i].fd >= 0 && clients[i].state == .subscribed && clients[i].atScreen {
                guard access.atScreen(clients[i].uid, seat: state) else { continue }
                news.merge(send(context, to: i, now: now))
            }
        }
        for i in clients.indices where clients[i].fd >= 0 {
            let now2 = access.atScreen(clients[i].uid, seat: state)
            guard now2 != clients[i].atScreen else { continue }
            clients[i].atScreen = now2
            if clients[i].subscription.claimsAnything {
                news.subscriptionsChanged = true
                if !now2 { news.claimantLeft = true }
            }
            if !now2 { clients[i].admitted.removeAll() }
            if clients[i].state == .subscribed {
                news.merge(
                    send(now2 ? ServerMessage.resumed : ServerMessage.paused(seat: settings.seat, state: seat), to: i, now: now))
                if now2 { news.merge(send(context, to: i, now: now)) }
                if now2 {
                    input.prepare(
                        keys: clients[i].subscription.keys, pointer: clients[i].subscription.pointer, now: now)
                }
            }
        }
        return news
    }

    /// A tablet-mode switch turned: the clients at the screen are told.
    package mutating func tabletModeChanged(_ on: Bool, now: Timestamp) -> News {
        guard on != tabletMode else { return News() }
        tabletMode = on
        quiet = false
        var news = News()
        for i in clients.indices where clients[i].fd >= 0 && clients[i].state == .subscribed && clients[i].atScreen {
            news.merge(send(context, to: i, now: now))
        }
        return news
    }

    /// Queues an answer; a client whose outbox is full is closed with `overflow`.
    mutating func send(_ line: String, to i: Int, now: Timestamp) -> News {
        guard clients[i].state != .closing, !clients[i].enqueue(line) else { return News() }
        let wasSubscribed = clients[i].state == .subscribed
        let said = clients[i].overflowed(now: now)
        clientWarnings.note(now: now, logger) { said }
        return News(subscriptionsChanged: wasSubscribed, countsChanged: wasSubscribed)
    }

    // MARK: Closing

    /// Sends a fatal error and closes the client once it is written (or after a grace period).
    mutating func refuse(_ i: Int, code: String, message: String, now: Timestamp) -> News {
        let wasSubscribed = clients[i].state == .subscribed
        clients[i].enqueueFinal(
            ServerMessage.error(code: code, message: message, fatal: true), closeBy: now + Self.closeGrace)
        return News(subscriptionsChanged: wasSubscribed, countsChanged: wasSubscribed)
    }

    /// Closes a client now (it hung up, or reading from it failed).
    mutating func drop(_ i: Int, _ why: String) -> News {
        logger.debug("\(clients[i].label) \(why)")
        return close(i)
    }

    /// Closes the client's socket; it leaves `clients` at the end of the turn.
    mutating func close(_ i: Int) -> News {
        went += 1
        let wasSubscribed = clients[i].state == .subscribed
        let claimed = wasSubscribed && clients[i].atScreen && clients[i].subscription.claimsAnything
        Glibc.close(clients[i].fd)
        input.forget(clients[i].serial)
        if followsClosings { closedSerials.append(clients[i].serial) }
        clients[i].markClosed()
        closedSome = true
        listenerPaused = false
        pausedUntil = .never
        var news = News(subscriptionsChanged: wasSubscribed, countsChanged: true)
        news.claimantLeft = claimed
        return news
    }

    /// Removes the closed clients.
    mutating func sweep() {
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
