import CLinux
package import GestureConfiguration
import GestureCore
package import Logging
import SystemPackage
package import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon: touch sources in, gesture events out to subscribers, around
/// one loop (and the claimed touchscreens' pass-through on a thread of its
/// own, `PassThrough`).
///
/// Each part of the loop is a value that owns its descriptor, the token the
/// wait gave it and its deadline: the signals (`SignalSource`), libinput
/// (`LibinputSource`), a replayed trace (`ReplaySource`), the claimed
/// touchscreens' queue (`Claims`), logind and the accelerometer
/// (`BusSource`), the listener and the clients (`Server`), the chores
/// (`Chores`). Each turn (`turn`) goes forward only: wait until a
/// descriptor is ready or the earliest of their deadlines, and read the
/// clock once; take what the sources saw; feed the frames to the recognizer
/// (`GesturePipeline`) and fire its timers; hand the gestures to the
/// publisher (`Publisher`); let the server accept, answer and write. The
/// parts know nothing of each other: the turn carries what one returns to
/// the next.
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

    package internal(set) var configuration: Configuration
    let options: Options
    var logger: Logger
    let clock: LoopClock
    var access: AccessPolicy

    // The loop and its sources.
    let loop: Readiness
    var signals: SignalSource?
    var libinput: LibinputSource?
    var replay: ReplaySource?
    var claims = ClaimedTouchscreens()
    var seat = BusSource<SeatState>(owner: .seat)
    var sensor = BusSource<SensorState>(owner: .sensor)
    var chores: Chores
    // The devices, the recognizer, the publisher, the server.
    var screens = Screens()
    var pipeline = GesturePipeline(wanted: [])
    var publisher: Publisher
    var server: Server
    /// Whether the server had nothing to do in the last turn's end (for the loop's tests).
    var serverIsQuiet: Bool { server.isQuiet }

    // What one turn carries from one part to the next (kept to reuse their storage).
    let sourceEvents = TouchSourceEvents()
    var outbound = Outbound()
    var requests: [SignalSource.Request] = []
    var running = true
    /// Seat changes logged a few times a minute at most (a logind that
    /// fails and recovers over and over is one line a while).
    var seatNotes = RepeatLimiter(burst: 10, window: .milliseconds(60_000))

    package init(options: Options, logger: Logger, clock: LoopClock = .monotonic) throws(SetupError) {
        self.options = options
        self.logger = logger
        self.clock = clock
        do {
            configuration = try loadConfiguration(options.configPath)
        } catch {
            throw SetupError("\(error)")
        }
        self.logger.logLevel = options.logLevel ?? StderrLogHandler.level(named: configuration.daemon.logLevel)
        access = try AccessPolicy(configuration.daemon)
        loop = try Readiness()
        chores = Chores(logger: self.logger)
        publisher = Publisher(logger: self.logger)
        server = Server(access: access, settings: configuration.daemon, logger: self.logger)
    }

    /// The tokens of every descriptor the daemon's own sources watch (the
    /// clients' come and go with them): each given by the wait, no two alike.
    var sourceTokens: [Readiness.Token] {
        (signals?.tokens ?? []) + (libinput?.token.map { [$0] } ?? []) + seat.tokens + sensor.tokens + claims.tokens
            + server.listenerTokens
    }

    // MARK: Start and stop

    /// Gives back the code and read-only data that loading the libraries
    /// and the runtime's start ran (`Chores.givePagesBack`'s release), for
    /// the command line to call before it parses its arguments: what the
    /// parser runs then replaces it instead of adding to it, and resident
    /// memory peaks lower (docs/cost.md, "Memory").
    package static func givePagesBackBeforeArguments() { _ = Chores.executablePages() }

    /// Opens everything, notifies readiness, serves until SIGTERM/SIGINT; returns the exit status.
    package mutating func run() -> Int32 {
        if chores.pageRelease == nil { chores.pageRelease = Chores.executablePages }
        // What reading the arguments and the configuration ran is not run
        // again: given back before start maps libinput and its libraries,
        // so that resident memory peaks at the larger of the two, not their sum.
        chores.givePagesBack(after: "reading the configuration")
        do {
            try start()
            if geteuid() == 0 {
                // Opened while root, they stay usable.
                chores.notifier.connect()
                _ = clinux_open_pagemap()
                try Privileges.dropRoot(runAs: options.runAs, logger: logger)
            }
        } catch {
            logger.error("\(error.description)")
            chores.notifier.notify("STATUS=failed: \(error.description)\nERRNO=1")
            stop(quietly: true)
            return 1
        }
        chores.ready(counts)
        logger.notice("ready: \(server.listener?.path ?? ""), \(screens.count) touchscreen(s)")
        if screens.count == 0 && libinput != nil {
            logger.notice(
                "no touchscreen yet: one plugged in is used at once. `gestured devices -v` shows what libinput saw and refused; reading /dev/input needs root, the group 'input', or the udev rule `make install` puts in place"
            )
        }
        if let uinput = UinputDevice.startCheck() {
            logger.notice("\(uinput)")
            server.uinputProblem = uinput
        }
        chores.givePagesBack(after: "start-up")
        while running { turn() }
        stop()
        return 0
    }

    /// Loads the trace to replay, binds (or takes) the socket, opens the
    /// devices and reads what the sources have already (the devices present).
    package mutating func start() throws(SetupError) {
        try Privileges.ensureDescriptors(for: configuration.daemon.maxClients)
        if options.handleSignals { signals = try SignalSource(loop: loop) }
        // A signal nobody should send it is no reason to stop serving.
        for signo in [SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM] { signal(signo, SIG_IGN) }
        var firstLibinputID = 1
        if let path = options.replayPath {
            // A replayed trace's frames come by timer: 1 µs of slack instead
            // of 50 keeps each on time (docs/performance.md, "Timer slack").
            _ = clinux_set_timer_slack_ns(1000)
            replay = try ReplaySource(
                path: path, size: options.replaySize, configuration: configuration, id: DeviceID(1), speed: options.speed,
                loop: options.loop, logger: logger)
            if options.waitSubscribers == 0 { replay!.start(at: clock.now) }
            firstLibinputID = 2
        }
        try server.listen(
            Listener.open(
                named: options.socketPath ?? configuration.daemon.socket, settings: configuration.daemon,
                group: access.socketGroup, logger: logger), loop: loop)
        try watchSeat(now: clock.now)
        // libinput's setup runs code of its own: the peak is the larger of the two steps.
        chores.givePagesBack(after: "opening the socket and the seat")
        if options.replayPath == nil || !options.devicePaths.isEmpty {
            let backend: LibinputSource.Backend =
                options.devicePaths.isEmpty
                ? .seat(options.seat ?? configuration.daemon.seat) : .paths(options.devicePaths)
            let source = try LibinputSource(backend, configuration: configuration, firstID: firstLibinputID, logger: logger)
            libinput = source
            try source.watch(in: loop)
        }
        // The devices present now: libinput has queued them as added, the replay adds its own.
        let now = clock.now
        sourceEvents.removeAll()
        replay?.read(until: now, into: sourceEvents)
        libinput?.read(into: sourceEvents)
        if let on = libinput?.takeTabletModeChange() { _ = server.tabletModeChanged(on, now: now) }
        startClaims(now: now)
        recognize(now: now)
        publish(now: now)
        // systemd's watchdog (WatchdogSec=): a loop that stops turning is stopped, and its grabs and clones go with it.
        chores.startWatchdog(now: now)
        // Said once every source has opened: a start that fails never claims to listen.
        if let listener = server.listener {
            logger.info("listening on \(listener.path)\(listener.ownsPath ? "" : " (socket from systemd)")")
        }
    }

    /// Tells every client, lets their last lines drain (briefly), closes
    /// everything; `quietly`: a start that failed, with nobody to tell.
    package mutating func stop(quietly: Bool = false) {
        if !quietly { chores.notifier.notify("STOPPING=1\nSTATUS=stopping") }
        // The clones' touches cancelled; the grabs and clones end with their descriptors.
        claims.stop()
        (sensor.watcher as? SensorWatcher)?.release()
        sensor.stop(loop: loop)
        seat.stop(loop: loop)
        server.stop(clock: clock)
        libinput?.shutdown()
        libinput = nil
        signals?.close()
        loop.close()
        if !quietly { logger.notice("stopped") }
    }

    // MARK: The loop

    /// One turn of the loop: wait (at most `maxWait` microseconds, when
    /// given), then follow what woke it forward, from the sources to the
    /// sockets.
    package mutating func turn(maxWait: Int64? = nil) {
        guard server.listener != nil else { return }

        // 1. Wait: every descriptor, until the earliest of the sources' deadlines; the clock, once.
        let deadline = min(
            pipeline.nextDeadline, replay?.nextTime ?? .never, server.deadline(), chores.deadline, seat.deadline,
            sensor.deadline, screens.reorientDue)
        let (now, failure) = loop.wait(until: deadline, clock: clock, maxWait: maxWait)
        if let failure { logger.error("wait: \(Errno(rawValue: failure))") }
        sourceEvents.removeAll()
        var news = Server.News()

        // 2. The claimed touchscreens' frames (on their clones already), signals, logind, the accelerometer.
        if claims.isReady(loop) { takeClaimed(now: now) }
        if signals?.isReady(loop) == true { handleSignals(now: now) }
        if seat.isDue(loop, now: now), let state = seat.follow(loop, now: now) { news.merge(seatChanged(state, now: now)) }
        server.seatBehind = seat.behind
        if sensor.isDue(loop, now: now) { news.merge(followSensor(now: now)) }

        // 3. The sources: what they saw, into the recognizer; its timers.
        if let libinput, libinput.isReady(loop) {
            libinput.read(into: sourceEvents)
            // Touchscreens are claimed as libinput adds them.
            if !sourceEvents.devices.isEmpty { startClaims(now: now) }
            if let on = libinput.takeTabletModeChange() { news.merge(server.tabletModeChanged(on, now: now)) }
        }
        replay?.read(until: now, into: sourceEvents)
        news.merge(recognize(now: now))
        if now >= screens.reorientDue { news.merge(reorient(now: now)) }
        pipeline.advance(to: now, into: &outbound.gestures)

        // 4. The publisher: gestures to the subscriptions' outboxes.
        let published = !outbound.isEmpty
        if published { news.merge(publish(now: now)) }

        // 5. The server: new clients, requests, writes. Frames and answers
        // are the daemon in use: logind is asked more often then.
        news.merge(server.turn(loop: loop, devices: screens.devices, now: now, published: published))
        if sourceEvents.count > 0 || news.answered { seat.inUse(now: now) }
        if !news.isEmpty { follow(news, now: now) }

        // 6. The chores: STATUS= and WATCHDOG=1 for systemd, pages given back, the clients counted.
        if now >= chores.deadline {
            chores.run(now: now, counts: counts)
            server.reportActivity(now: now)
            chores.schedule(serverDue: server.activityDue)
        }
    }

    /// Feeds what the sources saw to the recognizer; devices that came and
    /// went are announced in order among the gestures.
    @discardableResult
    mutating func recognize(now: Timestamp) -> Server.News {
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

    /// A device came or went.
    mutating func deviceChanged(_ event: TouchSourceEvents.Event, now: Timestamp) -> Server.News {
        switch event {
        case .frame:
            return Server.News()
        case .added(let index):
            var (info, geometry) = sourceEvents.devices[index]
            info.claimed = claims.reads(info.id)
            screens.add(info, now: now)
            pipeline.addDevice(info.id, geometry: geometry, thresholds: thresholds(of: info))
            outbound.device(ServerMessage.deviceAdded(info, time: now), info)
        case .removed(let id):
            claims.forget(id)
            guard let info = screens.remove(id, now: now) else { return Server.News() }
            // Its continuous gestures end cancelled, before it goes.
            pipeline.removeDevice(id, at: now, into: &outbound.gestures)
            outbound.device(ServerMessage.deviceRemoved(info, time: now), info)
        }
        return Server.News(countsChanged: true)
    }

    /// Hands what the turn produced to the publisher.
    @discardableResult
    mutating func publish(now: Timestamp) -> Server.News {
        let overflowed = publisher.publish(outbound, devices: screens.devices, to: &server.clients, now: now).overflowed
        outbound.removeAll()
        screens.publishedDepartures()
        return Server.News(subscriptionsChanged: overflowed, countsChanged: overflowed)
    }

    /// What changed beyond the frames: the recognizer reports what the
    /// subscribers want, the claims follow them; the status is stale;
    /// orientations asked for are taken; one-off work ran.
    mutating func follow(_ news: Server.News, now: Timestamp) {
        if news.subscriptionsChanged {
            followSubscriptions(now: now)
            claims.follow(server, logger: logger, claimantLeft: news.claimantLeft)
        }
        if news.countsChanged { chores.countsChanged() }
        if news.answered {
            for r in server.takeOrientationRequests() {
                screens.orientations.session(r)
                server.followClosings(true)
                screens.reorientDue = now
            }
        }
        let closed = server.takeClosed()
        if screens.orientations.hasSessionWord && !closed.isEmpty {
            screens.orientations.forgetClients { !closed.contains($0) }
            screens.reorientDue = now
        }
        chores.oneOffWorkRan(now: now, serverDue: server.activityDue)
    }

    /// The recognizer reports what the subscribers want; a replay waiting
    /// for subscribers starts when enough have come.
    mutating func followSubscriptions(now: Timestamp) {
        let wanted = server.wanted
        if wanted.kinds != pipeline.wanted || wanted.immediateTaps != pipeline.immediateTaps
            || wanted.immediateDoubleTaps != pipeline.immediateDoubleTaps || wanted.changes != pipeline.wantedChanges
        {
            pipeline.setWanted(
                wanted.kinds, immediateTaps: wanted.immediateTaps, immediateDoubleTaps: wanted.immediateDoubleTaps,
                changes: wanted.changes)
        }
        pipeline.setHoldMarks(wanted.holdMarks)
        if let r = replay, !r.started, server.subscriberCount >= options.waitSubscribers {
            replay!.start(at: now)
        }
    }

    mutating func handleSignals(now: Timestamp) {
        chores.oneOffWorkRan(now: now, serverDue: server.activityDue)
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

    var counts: Chores.Counts {
        Chores.Counts(devices: screens.count, subscribers: server.subscriberCount, clients: server.clients.count)
    }

    func thresholds(of info: DeviceInfo) -> GestureThresholds {
        configuration.thresholds(forName: info.name, vendorProduct: info.vendorProduct)
    }
}

/// The version `hello` and `--version` report.
package let gesturedVersion = "0.13.0"
