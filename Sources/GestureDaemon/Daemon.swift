import CLinux
package import GestureConfiguration
import GestureCore
package import Logging
import SystemPackage
package import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon: touch sources in, gesture events out to subscribers, on one
/// thread around one loop.
///
/// Each turn (`turn`) goes forward only: wait for any descriptor or the
/// earliest deadline and read the clock once (`Poller`); read the signals;
/// read what the sources saw (`LibinputSource`, `ReplaySource`); feed their
/// frames to the recognizer (`GesturePipeline`) and its timers; hand the
/// gestures to the publisher (`Publisher`), which queues them for the
/// subscriptions; let the server (`Server`) accept, answer requests and
/// write. The sources, the recognizer, the publisher and the server know
/// nothing of each other: the turn carries what one returns to the next.
///
/// The daemon is a value: its parts are changed in place by the turn, with
/// no shared references between them.
package struct Daemon {
    package struct Options {
        package var configPath: String?
        package var socketPath: String?
        package var seat: String?
        /// Devices for libinput's path backend; empty: the udev backend on the seat.
        package var devicePaths: [String] = []
        /// Serve a trace as a virtual device instead of (or, with devices named, beside) libinput.
        package var replayPath: String?
        package var replaySize: (width: Double, height: Double)?
        package var speed = 1.0
        package var loop = false
        /// Hold the replay back until this many clients have subscribed.
        package var waitSubscribers = 0
        /// Started as root: the user to run as once serving (nil: `gestured`
        /// if there is one, else `nobody`; "root": stay, without capabilities).
        package var runAs: String?
        package var logLevel: Logger.Level?
        /// Read SIGTERM, SIGINT and SIGHUP through a signalfd (off in
        /// tests that run the daemon inside the test process).
        package var handleSignals = true
        package init() {}
    }

    package private(set) var configuration: Configuration
    private let options: Options
    private var logger: Logger
    private let clock: LoopClock
    private var access: AccessPolicy
    private let notifier = SystemdNotifier()

    // The loop and its sources.
    private let loop: Readiness
    private var signals: SignalSource?
    private var libinput: LibinputSource?
    private var replay: ReplaySource?
    /// Claimed touchscreens, read raw (docs/claiming.md), and the earliest
    /// time one of them waits for (a touch held back at an edge).
    private var claimed: [ClaimedDevice] = []
    private var claimDue = Timestamp.never
    /// Who is at the seat's screen (logind), unless `deliver = "everyone"`.
    private var seatWatcher: SeatWatcher?
    /// When the bus must be processed next, and whether its descriptor is
    /// watched for output: both change only when it is processed.
    private var seatDue = Timestamp.never
    private var seatWatchedForOutput = false
    /// The orientation each device is read in, and the accelerometer,
    /// watched while a device present says `rotation = "auto"`.
    private var orientations = Orientations()
    private var sensor: SensorWatcher?
    private var sensorDue = Timestamp.never
    private var sensorWatchedForOutput = false
    /// When the orientations are to be looked at again (a request, a
    /// device, a client gone): at the start of the next turn.
    private var reorientDue = Timestamp.never
    /// Turns of the screen, logged a few times a minute at most.
    private var orientationNotes = RepeatLimiter(burst: 6, window: .milliseconds(60_000))
    // The recognizer, the publisher, the server.
    private var pipeline = GesturePipeline(wanted: [])
    private var publisher: Publisher
    private var server: Server
    /// Whether the server had nothing to do in the last turn's end (for the loop's tests).
    var serverIsQuiet: Bool { server.isQuiet }
    /// The touchscreens served now, in the order they came.
    private var devices: [DeviceInfo] = []

    // What one turn carries from one part to the next (kept to reuse their storage).
    private let sourceEvents = TouchSourceEvents()
    private var outbound = Outbound()
    /// Devices removed this turn: they leave `devices` once their last events are published.
    private var departed: [GestureCore.DeviceID] = []
    private var requests: [SignalSource.Request] = []
    /// The loop's tokens for the sources' descriptors (the server has its own).
    static let signalsToken: Readiness.Token = 1
    static let libinputToken: Readiness.Token = 2
    static let busToken: Readiness.Token = 3
    static let sensorToken: Readiness.Token = 4
    /// A claimed touchscreen's token is this plus its device id.
    static let claimTokens: Readiness.Token = 1 << 16
    /// `WATCHDOG=1` goes to systemd this often, when it asks (`WatchdogSec=`).
    private var watchdogInterval: Timestamp.Duration?
    private var watchdogDue = Timestamp.never

    private var running = true
    /// Devices, subscribers and clients in the last STATUS= sent to systemd.
    private var lastStatus = (devices: -1, subscribers: -1, clients: -1)
    /// When the last STATUS= went, and whether the counts changed since.
    private var lastStatusTime = Timestamp(microseconds: .min / 2)
    private var statusStale = false
    /// STATUS= goes at most this often: a storm of connections is one update a second, not thousands.
    static let statusInterval = Timestamp.Duration.milliseconds(1000)

    /// Gives back the binary's pages that are the file's (start-up's, then
    /// those one-off work mapped again) and returns how many bytes, or
    /// minus an errno; nil: the daemon keeps them (the in-process tests,
    /// which `run` no daemon, set their own). See `givePagesBack`.
    var pageRelease: (() -> Int)?
    /// When the pages one-off work mapped back are given back: `pagesDelay`
    /// after the last such work, `.never` when none happened since.
    private var pagesDue = Timestamp.never
    /// Long enough that a client's connection, hello, subscription and
    /// status update (a second later at most) are all behind.
    static let pagesDelay = Timestamp.Duration.milliseconds(2000)
    /// The earliest of the chores' times: STATUS= when stale, the pages, the
    /// count of clients that came and went.
    private var choresDue = Timestamp.never

    package init(options: Options, logger: Logger, clock: LoopClock = .monotonic) throws(SetupError) {
        self.options = options
        self.logger = logger
        self.clock = clock
        do {
            configuration = try loadConfiguration(options.configPath)
        } catch {
            throw SetupError("\(error)")
        }
        if let level = options.logLevel {
            self.logger.logLevel = level
        } else {
            self.logger.logLevel = StderrLogHandler.level(named: configuration.daemon.logLevel)
        }
        access = try AccessPolicy(configuration.daemon)
        loop = try Readiness()
        publisher = Publisher(logger: self.logger)
        server = Server(access: access, settings: configuration.daemon, logger: self.logger)
    }

    /// Closes the descriptors `serve` inherited, but for the sockets systemd
    /// passes (`LISTEN_FDS`): a daemon started from a shell or a script holds
    /// nothing of theirs. Call first thing in `serve`.
    package static func closeInheritedDescriptors() {
        var keep: Int32 = 3
        if let pid = getenv("LISTEN_PID").flatMap({ Int32(String(cString: $0)) }), pid == getpid(),
            let n = getenv("LISTEN_FDS").flatMap({ Int32(String(cString: $0)) }), n > 0
        {
            keep += n
        }
        _ = clinux_close_inherited(keep)
    }

    // MARK: Start

    /// Opens everything, notifies readiness, serves until SIGTERM/SIGINT; returns the exit status.
    package mutating func run() -> Int32 {
        do {
            try start()
        } catch {
            logger.error("\(error.description)")
            notifier.notify("STATUS=failed: \(error.description)\nERRNO=1")
            libinput?.shutdown()
            server.listener?.close()
            loop.close()
            return 1
        }
        if geteuid() == 0 {
            // Opened while root, they stay usable.
            notifier.connect()
            _ = clinux_open_pagemap()
            do {
                try dropRoot()
            } catch {
                logger.error("\(error.description)")
                notifier.notify("STATUS=failed: \(error.description)\nERRNO=1")
                server.stop(clock: clock)
                libinput?.shutdown()
                loop.close()
                return 1
            }
        }
        notifier.notify("READY=1\n" + statusLine())
        logger.notice("ready: \(server.listener?.path ?? ""), \(devices.count) touchscreen(s)")
        if devices.isEmpty && libinput != nil {
            logger.notice(
                "no touchscreen yet: one plugged in is used at once. `gestured devices -v` shows what libinput saw and refused; reading /dev/input needs root, the group 'input', or the udev rule `make install` puts in place"
            )
        }
        if pageRelease == nil {
            pageRelease = {
                let n = clinux_release_executable_pages()
                return n < 0 ? -Int(Errno.last.rawValue) : n
            }
        }
        givePagesBack(after: "start-up")
        while running { turn() }
        stop()
        return 0
    }

    /// Started by hand as root: the socket is bound and the devices are
    /// open, so root is needed no more. The daemon becomes `--user`, by
    /// default the service's user, `gestured` (which the shipped udev rules
    /// let read touchscreens plugged in later), or `nobody` where there is
    /// none, and drops every capability (docs/security.md).
    private func dropRoot() throws(SetupError) {
        if options.runAs == "root" {
            if clinux_drop_capabilities(uid_t.max, gid_t.max) != 0 {
                throw SetupError("cannot drop capabilities", Errno.last)
            }
            logger.warning("started as root and staying root (--user root), without capabilities")
            return
        }
        let name: String
        let uid: uid_t
        if let wanted = options.runAs {
            guard let u = AccessPolicy.uid(named: wanted) ?? UInt32(wanted) else {
                throw SetupError("--user: no user named '\(wanted)'")
            }
            (name, uid) = (wanted, u)
        } else if let u = AccessPolicy.uid(named: "gestured") {
            (name, uid) = ("gestured", u)
        } else {
            (name, uid) = ("nobody", AccessPolicy.uid(named: "nobody") ?? 65534)
        }
        let gid = AccessPolicy.primaryGroup(of: uid) ?? uid
        if clinux_drop_capabilities(uid, gid) == 0 {
            logger.notice("started as root: now running as \(name) (uid \(uid)), every capability dropped")
            if name == "nobody" {
                logger.notice(
                    "touchscreens plugged in from now on open only if nobody may read them; the gestured user of `sudo make install` may, or pass --user root"
                )
            }
        } else {
            let why = Errno.last
            // Still root (a user namespace without that uid): at least without capabilities.
            _ = clinux_drop_capabilities(uid_t.max, gid_t.max)
            logger.warning("started as root: could not become \(name) (\(why)); running as root without capabilities")
        }
    }

    /// Unmaps the code and read-only data of the binary and of its shared
    /// libraries that are not the process's own copy: after start-up, what
    /// it ran (the argument parser, the configuration reader, libinput's
    /// device setup), about half of an idle daemon's resident memory;
    /// later, what one-off work mapped again (a client's connection and
    /// requests, a device, a reload). The pages stay in the page cache; what
    /// runs next is mapped again as it runs (docs/performance.md, "Memory").
    private mutating func givePagesBack(after what: String) {
        pagesDue = .never
        guard let pageRelease else { return }
        let released = pageRelease()
        if released < 0 {
            // Said once: what failed (/proc/self/pagemap unreadable) fails again.
            logger.info("pages kept after \(what), and from now on: \(Errno(rawValue: Int32(-released)))")
            self.pageRelease = nil
        } else {
            logger.debug("pages given back after \(what): \(released / 1024) KiB")
        }
    }

    /// Descriptors the daemon needs besides its clients: standard streams,
    /// the signalfd, the listener, libinput's epoll, udev's monitor and the
    /// touchscreens, the notify socket, the spare, configuration files.
    static let descriptorReserve = 64

    /// Makes sure `RLIMIT_NOFILE` holds `max-clients` clients and the reserve,
    /// raising the soft limit when the hard one allows; else an error naming both numbers.
    static func ensureDescriptors(for maxClients: Int) throws(SetupError) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let needed = rlim_t(maxClients + descriptorReserve)
        guard limit.rlim_cur < needed else { return }
        if limit.rlim_max >= needed {
            var raised = limit
            raised.rlim_cur = needed
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return }
        }
        throw SetupError(
            "max-clients = \(maxClients) needs \(needed) file descriptors, but RLIMIT_NOFILE allows \(limit.rlim_cur) (hard limit \(limit.rlim_max)); lower max-clients in [daemon] or raise the limit (LimitNOFILE= in the unit, ulimit -n)"
        )
    }

    /// Loads the trace to replay, binds (or takes) the socket, opens the
    /// devices and reads what the sources have already (the devices present).
    package mutating func start() throws(SetupError) {
        try Self.ensureDescriptors(for: configuration.daemon.maxClients)
        if options.handleSignals {
            let source = try SignalSource()
            signals = source
            try watch(source.fd, token: Self.signalsToken, "the signalfd")
        }
        // A signal nobody should send it is no reason to stop serving.
        for signo in [SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM] { signal(signo, SIG_IGN) }
        // A replayed trace's frames come by timer: 1 µs of slack instead of
        // 50 keeps each on time. Touchscreens' frames come by their
        // descriptor, and the timers left (hold, held-back taps) keep the
        // default, which lets the kernel batch their wake-ups
        // (docs/performance.md, "Timer slack").
        if options.replayPath != nil { _ = clinux_set_timer_slack_ns(1000) }

        var firstLibinputID = 1
        if let path = options.replayPath {
            let loaded: LoadedTrace
            do {
                guard
                    let first = try TraceLoader.load(path, desc: nil, size: options.replaySize, configuration: configuration)
                        .first
                else {
                    throw SetupError("\(path): no device in the trace")
                }
                loaded = first
            } catch let e as SetupError {
                throw e
            } catch {
                throw SetupError("\(error)")
            }
            if loaded.geometry.source == .fallback {
                logger.warning(
                    "\(path): no size known; assuming \(NumberText.fixed(loaded.geometry.screenWidth, 1)) x \(NumberText.fixed(loaded.geometry.screenHeight, 1)) mm; pass --size WxH"
                )
            }
            replay = ReplaySource(
                loaded: loaded, path: path, id: DeviceID(1), speed: options.speed, loop: options.loop, logger: logger)
            if options.waitSubscribers == 0 { replay!.start(at: clock.now) }
            firstLibinputID = 2
        }
        let listener: Listener
        if let passed = Listener.fromSystemd(warn: { [logger] in logger.warning("\($0)") }) {
            listener = passed
            logger.info("listening on \(passed.path) (socket from systemd)")
        } else {
            let named = options.socketPath ?? configuration.daemon.socket
            guard let path = named ?? Listener.defaultPath() else {
                throw SetupError("no socket path: XDG_RUNTIME_DIR is not set; pass --socket PATH or set socket in [daemon]")
            }
            listener = try Listener.bind(
                path: path, mode: configuration.daemon.socketMode, group: access.socketGroup, createDirectory: named == nil)
            logger.info("listening on \(path)")
        }
        try server.listen(listener, loop: loop)
        try watchSeat(now: clock.now)

        if options.replayPath == nil || !options.devicePaths.isEmpty {
            let backend: LibinputSource.Backend =
                options.devicePaths.isEmpty
                ? .seat(options.seat ?? configuration.daemon.seat) : .paths(options.devicePaths)
            let source = try LibinputSource(backend, configuration: configuration, firstID: firstLibinputID, logger: logger)
            libinput = source
            try watch(source.fd, token: Self.libinputToken, "libinput's descriptor")
        }
        // The devices present now: libinput has queued them as added, the replay adds its own.
        let now = clock.now
        sourceEvents.removeAll()
        replay?.read(until: now, into: sourceEvents)
        libinput?.read(into: sourceEvents)
        startClaims(now: now)
        recognize(now: now)
        publish(now: now)
        // systemd's watchdog (WatchdogSec=): a loop that stops turning is stopped, and its grabs and clones go with it.
        if let usec = getenv("WATCHDOG_USEC").flatMap({ Int64(String(cString: $0)) }), usec > 0,
            getenv("WATCHDOG_PID").flatMap({ Int32(String(cString: $0)) }).map({ $0 == getpid() }) ?? true
        {
            watchdogInterval = Timestamp.Duration(microseconds: usec / 2)
            watchdogDue = now
            scheduleChores()
        }
    }

    /// Adds a source's descriptor to the loop.
    private func watch(_ fd: Int32, token: Readiness.Token, _ what: String, output: Bool = false) throws(SetupError) {
        if let e = loop.add(fd, Readiness.input | (output ? Readiness.output : 0), token: token) {
            throw SetupError("cannot watch \(what): \(e)")
        }
    }

    // MARK: The loop

    /// One turn of the loop: wait (at most `maxWait` microseconds, when
    /// given), then follow what woke it forward, from the sources to the
    /// sockets.
    package mutating func turn(maxWait: Int64? = nil) {
        guard server.listener != nil else { return }

        // 1. Wait: every descriptor, until the earliest deadline; the clock, once.
        let deadline = min(
            pipeline.nextDeadline, replay?.nextTime ?? .never, server.deadline(), choresDue, seatDue, claimDue,
            sensorDue, reorientDue)
        let (now, failure) = loop.wait(until: deadline, clock: clock, maxWait: maxWait)
        if let failure { waitFailed(failure) }

        // First of all, the claimed touchscreens: what the compositor is to
        // see goes on to their clones before anything else is done.
        sourceEvents.removeAll()
        if !claimed.isEmpty { passThrough(now: now) }

        // 2. Signals; logind's answers about who is at the screen.
        if loop.readable(Self.signalsToken) { handleSignals(now: now) }
        var seatNews = Server.News()
        if now >= seatDue || loop.events(Self.busToken) != 0 { seatNews = followSeat(now: now) }
        if now >= sensorDue || loop.events(Self.sensorToken) != 0 { seatNews.merge(followSensor(now: now)) }

        // 3. The sources: what they saw, into the recognizer; its timers.
        if loop.readable(Self.libinputToken) {
            libinput?.read(into: sourceEvents)
            // Touchscreens are claimed as libinput adds them.
            if !sourceEvents.devices.isEmpty { startClaims(now: now) }
        }
        replay?.read(until: now, into: sourceEvents)
        var news = recognize(now: now)
        if now >= reorientDue { news.merge(reorient(now: now)) }
        pipeline.advance(to: now, into: &outbound.gestures)

        // 4. The publisher: gestures to the subscriptions' outboxes.
        let published = !outbound.isEmpty
        if published { news.merge(publish(now: now)) }

        // 5. The server: new clients, requests, writes; what each client is
        // watched for next (nothing, when nothing happened to the clients).
        news.merge(seatNews)
        news.merge(server.turn(loop: loop, devices: devices, now: now, published: published || !seatNews.isEmpty))
        if !news.isEmpty { follow(news, now: now) }

        // 6. The chores: STATUS= for systemd, pages given back.
        if now >= choresDue { doChores(now: now) }
    }

    /// What changed beyond the frames: the recognizer reports what the
    /// subscribers want; the status is stale; one-off work ran.
    @inline(never)
    private mutating func follow(_ news: Server.News, now: Timestamp) {
        if news.subscriptionsChanged {
            followSubscriptions(now: now)
            if !claimed.isEmpty {
                let claims = server.claims
                for c in claimed { c.set(claims: claims) }
            }
        }
        if news.countsChanged { statusStale = true }
        if news.answered {
            for r in server.takeOrientationRequests() {
                orientations.session(r)
                server.followClosings(true)
                reorientDue = now
            }
        }
        let closed = server.takeClosed()
        if orientations.hasSessionWord && !closed.isEmpty {
            orientations.forgetClients { !closed.contains($0) }
            reorientDue = now
        }
        oneOffWorkRan(now: now)
    }

    /// Code the frames never run was mapped back (a client's connection
    /// and requests, a device, a signal, a reload): it is given back once
    /// such work has been quiet for `pagesDelay`. One wake-up per burst of
    /// it, none while idle.
    private mutating func oneOffWorkRan(now: Timestamp) {
        if pageRelease != nil { pagesDue = now + Self.pagesDelay }
        scheduleChores()
    }

    private mutating func scheduleChores() {
        choresDue = min(
            statusStale ? lastStatusTime + Self.statusInterval : .never, pagesDue, server.activityDue, watchdogDue)
    }

    @inline(never)
    private mutating func doChores(now: Timestamp) {
        if statusStale && now >= lastStatusTime + Self.statusInterval { updateStatus(now: now) }
        if now >= pagesDue { givePagesBack(after: "one-off work") }
        if now >= server.activityDue { server.reportActivity(now: now) }
        if now >= watchdogDue, let interval = watchdogInterval {
            notifier.notify("WATCHDOG=1", wait: false)
            watchdogDue = now + interval
        }
        scheduleChores()
    }

    /// Feeds what the sources saw to the recognizer; devices that came and
    /// went are announced in order among the gestures. (Inlined into the
    /// turn.)
    @inline(__always) @discardableResult
    private mutating func recognize(now: Timestamp) -> Server.News {
        var news = Server.News()
        for e in 0..<sourceEvents.count {
            if case .frame(let index) = sourceEvents.event(at: e) {
                sourceEvents.withFrame(at: index) { pipeline.process(&$0, into: &outbound.gestures) }
            } else {
                news.merge(deviceChanged(sourceEvents.event(at: e), now: now))
            }
        }
        return news
    }

    /// A device came or went. Apart from the frames' path (`recognize`),
    /// which then needs none of its locals.
    @inline(never)
    private mutating func deviceChanged(_ event: TouchSourceEvents.Event, now: Timestamp) -> Server.News {
        switch event {
        case .frame:
            return Server.News()
        case .added(let index):
            var (info, geometry) = sourceEvents.devices[index]
            // Claimed only if reading it raw began (libinput asked for it).
            info.claimed = claimed.contains { $0.id == info.id }
            devices.removeAll { $0.id == info.id }
            devices.append(info)
            pipeline.addDevice(
                info.id, geometry: geometry,
                thresholds: configuration.thresholds(forName: info.name, vendorProduct: info.vendorProduct))
            outbound.device(ServerMessage.deviceAdded(info, time: now), info)
            reorientDue = now
        case .removed(let id):
            orientations.forget(device: id)
            reorientDue = now
            if let i = claimed.firstIndex(where: { $0.id == id }) { dropClaim(i) }
            guard let info = devices.first(where: { $0.id == id }) else { return Server.News() }
            // Its continuous gestures end cancelled, before it goes.
            pipeline.removeDevice(id, at: now, into: &outbound.gestures)
            outbound.device(ServerMessage.deviceRemoved(info, time: now), info)
            departed.append(id)
        }
        return Server.News(countsChanged: true)
    }

    @inline(never)
    private func waitFailed(_ error: Int32) { logger.error("wait: \(Errno(rawValue: error))") }

    /// Hands what the turn produced to the publisher (the turn calls it
    /// only when there is something: apart from the frames' path, which
    /// then needs none of its locals).
    @inline(never) @discardableResult
    private mutating func publish(now: Timestamp) -> Server.News {
        let overflowed = publisher.publish(outbound, devices: devices, to: &server.clients, now: now).overflowed
        outbound.removeAll()
        if !departed.isEmpty {
            devices.removeAll { departed.contains($0.id) }
            departed.removeAll()
        }
        return Server.News(subscriptionsChanged: overflowed, countsChanged: overflowed)
    }

    @inline(never)
    private mutating func handleSignals(now: Timestamp) {
        oneOffWorkRan(now: now)
        requests.removeAll(keepingCapacity: true)
        signals?.read(into: &requests)
        for r in requests {
            switch r {
            case .reload: reload(now: now)
            case .stop(let signo):
                logger.notice("stopping on signal \(signo)")
                running = false
            }
        }
    }

    // MARK: Claimed touchscreens

    /// Reads the claimed touchscreens that have something, and passes what
    /// waited at an edge long enough.
    private mutating func passThrough(now: Timestamp) {
        var gone: [Int] = []
        for (i, c) in claimed.enumerated() {
            if loop.events(Self.claimTokens + UInt64(c.id.rawValue)) != 0, !c.read(into: sourceEvents) { gone.append(i) }
            if now >= c.deadline { c.advance(to: now) }
        }
        for i in gone.reversed() {
            logger.notice("\(claimed[i].name): gone")
            dropClaim(i)
        }
        endReleasedClaims()
        claimDue = claimed.map(\.deadline).min() ?? .never
    }

    /// Claims the touchscreens libinput handed over since the last turn.
    private mutating func startClaims(now: Timestamp) {
        guard let requests = libinput?.takeClaimRequests(), !requests.isEmpty else { return }
        oneOffWorkRan(now: now)
        let claims = server.claims
        for r in requests {
            let thresholds = configuration.thresholds(forName: r.name, vendorProduct: r.vendorProduct)
            do {
                let c = try ClaimedDevice(
                    id: r.id, path: r.node, geometry: r.geometry, thresholds: thresholds, claims: claims, logger: logger)
                try watch(c.fd, token: Self.claimTokens + UInt64(r.id.rawValue), "the claimed \(r.node)")
                claimed.append(c)
                markClaimed(r.id, true)
            } catch {
                logger.warning("\(error.description); libinput reads it as any other")
                libinput?.unclaim(r.id)
            }
        }
        endReleasedClaims()
        claimDue = claimed.map(\.deadline).min() ?? .never
    }

    /// Claimed touchscreens let go since (a reload), or that could not be
    /// grabbed: libinput reads them again.
    private mutating func endReleasedClaims() {
        for i in claimed.indices.reversed()
        where (claimed[i].releasing && !claimed[i].grabbed) || claimed[i].grabRefused {
            let id = claimed[i].id
            dropClaim(i)
            libinput?.unclaim(id)
        }
    }

    /// Stops reading a claimed touchscreen; its clone goes with it.
    private mutating func dropClaim(_ i: Int) {
        loop.remove(claimed[i].fd)
        markClaimed(claimed[i].id, false)
        claimed.remove(at: i)
    }

    /// What `hello` says of a device present.
    private mutating func markClaimed(_ id: GestureCore.DeviceID, _ on: Bool) {
        if let i = devices.firstIndex(where: { $0.id == id }) { devices[i].claimed = on }
    }

    // MARK: The seat

    /// Starts asking logind who is at the screen (`deliver =
    /// "active-session"`), or stops (`everyone`); the clients follow.
    private mutating func watchSeat(now: Timestamp) throws(SetupError) {
        let wanted = configuration.daemon.deliver == "active-session"
        if let w = seatWatcher, !wanted || w.seat != configuration.daemon.seat {
            loop.remove(w.fd)
            seatWatcher = nil
            seatDue = .never
        }
        if wanted && seatWatcher == nil {
            let w = SeatWatcher(seat: configuration.daemon.seat)
            if w.fd >= 0 {
                seatWatchedForOutput = w.wantsOutput
                try watch(w.fd, token: Self.busToken, "the system bus", output: seatWatchedForOutput)
            }
            seatWatcher = w
            seatDue = w.deadline
            tellSeat(w.state)
        }
        let news = server.seatChanged(seatWatcher?.state, now: now)
        if news.subscriptionsChanged { followSubscriptions(now: now) }
    }

    /// Lets the watcher read logind's answers and write its questions; a
    /// change of who is at the screen goes to the clients.
    @inline(never)
    private mutating func followSeat(now: Timestamp) -> Server.News {
        guard let w = seatWatcher else {
            seatDue = .never
            return Server.News()
        }
        w.process()
        seatDue = w.deadline
        Self.rewatch(w, &seatWatchedForOutput, token: Self.busToken, in: loop)
        guard let state = w.takeChange() else { return Server.News() }
        tellSeat(state)
        oneOffWorkRan(now: now)
        let news = server.seatChanged(state, now: now)
        if orientations.hasSessionWord {
            // Only the active session's compositor says what is on the screen.
            let clients = server.clients
            orientations.forgetClients { serial in
                clients.contains { $0.serial == serial && $0.fd >= 0 && access.mayTurn($0.uid, seat: state) }
            }
            reorientDue = now
        }
        return news
    }

    /// Watches a bus's descriptor for output too while it has something to
    /// write, and for input only once it has written it.
    private static func rewatch<S>(
        _ w: BusWatcher<S>, _ watchedForOutput: inout Bool, token: Readiness.Token, in loop: Readiness
    ) {
        guard w.fd >= 0 && w.wantsOutput != watchedForOutput else { return }
        watchedForOutput = w.wantsOutput
        _ = loop.change(w.fd, Readiness.input | (watchedForOutput ? Readiness.output : 0), token: token)
    }

    // MARK: Orientation

    /// Starts following the accelerometer when a device present says
    /// `rotation = "auto"`, and stops (releasing the claim) when none does.
    private mutating func watchSensor(now: Timestamp) {
        let wanted = devices.contains {
            !departed.contains($0.id) && configuration.followsSensor(name: $0.name, vendorProduct: $0.vendorProduct)
        }
        if let s = sensor, !wanted {
            if s.fd >= 0 { loop.remove(s.fd) }
            s.release()
            sensor = nil
            sensorDue = .never
            orientations.sensorGone()
            logger.info("no touchscreen follows the accelerometer: released it")
        } else if wanted && sensor == nil {
            let s = SensorWatcher()
            if s.fd >= 0 {
                sensorWatchedForOutput = s.wantsOutput
                do {
                    try watch(s.fd, token: Self.sensorToken, "the system bus", output: sensorWatchedForOutput)
                } catch {
                    logger.warning("\(error.description); the configured rotation stays")
                    return
                }
            }
            sensor = s
            sensorDue = now
        }
    }

    /// Lets the accelerometer's watcher read and write; its change, if it
    /// made one, applies (at most one each `Orientations.sensorInterval`).
    @inline(never)
    private mutating func followSensor(now: Timestamp) -> Server.News {
        guard let s = sensor else {
            sensorDue = .never
            return Server.News()
        }
        s.process()
        Self.rewatch(s, &sensorWatchedForOutput, token: Self.sensorToken, in: loop)
        switch s.takeChange() {
        case .unavailable(let why):
            logger.notice("\(why): touchscreens with rotation = \"auto\" stay as they are turned now")
        case .orientation(let t):
            logger.debug("the accelerometer says \(t?.name ?? "undefined (lying flat)")")
            orientations.sensor(t, now: now)
        case .waiting, nil:
            orientations.takeSensor(now: now)
        }
        sensorDue = min(s.deadline, orientations.due)
        return reorient(now: now)
    }

    /// Applies what `orientations` says to each device whose orientation
    /// changed: the recognizer reads its next touch turned, its size is the
    /// picture's, the subscribers are told.
    @inline(never)
    private mutating func reorient(now: Timestamp) -> Server.News {
        reorientDue = .never
        watchSensor(now: now)
        var news = Server.News()
        for i in devices.indices where !departed.contains(devices[i].id) {
            let d = devices[i]
            let follows = configuration.followsSensor(name: d.name, vendorProduct: d.vendorProduct)
            let (t, source) = orientations.resolve(d.id, followsSensor: follows)
            guard t != d.orientation || source != d.orientationSource else { continue }
            let mounted = d.orientation.size(width: d.width, height: d.height)
            (devices[i].width, devices[i].height) = t.size(width: mounted.width, height: mounted.height)
            devices[i].orientation = t
            devices[i].orientationSource = source
            pipeline.setTransform(t, for: d.id)
            for c in claimed where c.id == d.id { c.set(transform: t) }
            let logger = self.logger
            orientationNotes.note(now: now, { logger.notice("\($0)") }) {
                "\(d.name): touches read turned \(t.name) (\(source.rawValue)), from the next touch"
            }
            news.merge(server.tellSubscribers(ServerMessage.orientation(devices[i], time: now), now: now))
        }
        oneOffWorkRan(now: now)
        return news
    }

    private func tellSeat(_ state: SeatWatcher.State) {
        let seat = configuration.daemon.seat
        switch state {
        case .waiting:
            break
        case .active(let uid):
            logger.notice("\(seat): the active session is uid \(uid)'s: gestures go to its clients")
        case .nobody:
            logger.notice("\(seat): no session is active: gestures go only to root, the daemon's user and any-session-users")
        case .unavailable(let why):
            logger.notice("\(seat): \(why): sessions cannot be told apart, so gestures go to every allowed client")
        }
    }

    /// The recognizer reports what the subscribers want; a replay waiting
    /// for subscribers starts when enough have come.
    private mutating func followSubscriptions(now: Timestamp) {
        let wanted = server.wanted
        if wanted.kinds != pipeline.wanted || wanted.immediateTaps != pipeline.immediateTaps
            || wanted.changes != pipeline.wantedChanges
        {
            pipeline.setWanted(wanted.kinds, immediateTaps: wanted.immediateTaps, changes: wanted.changes)
        }
        if let r = replay, !r.started, server.subscriberCount >= options.waitSubscribers {
            replay!.start(at: now)
        }
    }

    // MARK: Reload

    private mutating func reload(now: Timestamp) {
        notifier.notify("RELOADING=1\nMONOTONIC_USEC=\(now.microseconds)")
        logger.notice("reloading configuration")
        let new: Configuration
        let newAccess: AccessPolicy
        do {
            new = try loadConfiguration(options.configPath)
            newAccess = try AccessPolicy(new.daemon)
            try Self.ensureDescriptors(for: new.daemon.maxClients)
        } catch {
            // One log line per problem; STATUS= is one line (a newline would start another assignment).
            let lines = (error as? ConfigurationError)?.problems.map(\.description) ?? ["\(error)"]
            for line in lines { logger.error("configuration not reloaded, keeping the previous one: \(line)") }
            let more = lines.count > 1 ? " (and \(lines.count - 1) more in the journal)" : ""
            notifier.notify("READY=1\nSTATUS=configuration not reloaded: \(lines[0])\(more)")
            return
        }
        configuration = new
        access = newAccess
        libinput?.configuration = new
        if options.logLevel == nil { logger.logLevel = StderrLogHandler.level(named: new.daemon.logLevel) }
        for info in devices {
            pipeline.setThresholds(new.thresholds(forName: info.name, vendorProduct: info.vendorProduct), for: info.id)
        }
        for c in claimed {
            if let info = devices.first(where: { $0.id == c.id }) {
                c.set(thresholds: new.thresholds(forName: info.name, vendorProduct: info.vendorProduct))
            }
        }
        for id in libinput?.reconsiderClaims() ?? [] {
            if let i = claimed.firstIndex(where: { $0.id == id }) {
                logger.notice("\(claimed[i].name): no longer claimed; let go once no finger is down")
                claimed[i].release(at: now)
            }
        }
        endReleasedClaims()
        startClaims(now: now)
        var news = server.reload(access: newAccess, settings: new.daemon, now: now)
        do {
            try watchSeat(now: now)
        } catch {
            logger.error("\(error.description)")
        }
        news.merge(server.tellSubscribers(ServerMessage.configReloaded(files: new.sources, time: now), now: now))
        // A device's rotation = "auto" may have come or gone.
        reorientDue = now
        if news.subscriptionsChanged { followSubscriptions(now: now) }
        logger.notice("configuration reloaded from \(new.sources.isEmpty ? "defaults" : new.sources.joined(separator: ", "))")
        lastStatus = counts
        notifier.notify("READY=1\n" + statusLine())
    }

    // MARK: Status and stop

    private var counts: (devices: Int, subscribers: Int, clients: Int) {
        (devices.count, server.subscriberCount, server.clients.count)
    }

    private func statusLine() -> String {
        let c = counts
        return "STATUS=\(c.devices) touchscreen(s), \(c.subscribers) subscriber(s), \(c.clients) client(s)"
    }

    /// Tells systemd what the daemon serves, when that changed (at most
    /// once per `statusInterval`; an update the receiver had no room for is
    /// not waited on: the next change sends the counts again).
    private mutating func updateStatus(now: Timestamp) {
        statusStale = false
        let c = counts
        guard c != lastStatus else { return }
        lastStatusTime = now
        lastStatus = notifier.notify(statusLine(), wait: false) ? c : (-1, -1, -1)
    }

    /// Tells every client, lets their last lines drain (briefly), closes everything.
    package mutating func stop() {
        notifier.notify("STOPPING=1\nSTATUS=stopping")
        // The clones' touches cancelled; the grabs and clones end with their descriptors.
        for c in claimed { c.release(at: clock.now) }
        claimed.removeAll()
        sensor?.release()
        sensor = nil
        server.stop(clock: clock)
        libinput?.shutdown()
        libinput = nil
        signals?.close()
        loop.close()
        logger.notice("stopped")
    }
}

/// The version `hello` and `--version` report.
package let gesturedVersion = "0.3.0"
