import CLinux
package import GestureCore
package import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon: touch sources in, gesture events out to subscribers, on one
/// thread around one `poll(2)`.
///
/// The poll set is the signalfd, the listening socket, libinput's fd and every
/// client; its timeout is the earliest of the pipeline's next deadline, the
/// replayed trace's next event and a closing client's deadline, so an idle
/// daemon sleeps until something happens.
package final class Daemon: TouchSourceDelegate {
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
        package var logLevel: Logger.Level?
        package init() {}
    }

    package struct SetupError: Error, CustomStringConvertible {
        package var description: String
    }

    package private(set) var configuration: Configuration
    private let options: Options
    private var logger: Logger
    private var access: AccessPolicy
    private var pipeline = GesturePipeline(wanted: [])
    private var devices: [DeviceID: DeviceInfo] = [:]
    private var deviceSerial = 0
    private var clients: [Client] = []
    private var clientSerial = 0
    private var listener: Listener?
    private var libinput: LibinputSource?
    private var replay: ReplaySource?
    private var signalFD: Int32 = -1
    private let notifier = SystemdNotifier()
    private var running = true
    private var lastStatus = ""
    private var lastReplayWarnings = 0

    /// How long a closing client's last lines may take to drain.
    private static let closeGrace = Timestamp.Duration.milliseconds(1000)

    package init(options: Options, logger: Logger) throws(SetupError) {
        self.options = options
        self.logger = logger
        do {
            configuration = try loadConfiguration(options.configPath)
        } catch {
            throw SetupError(description: "\(error)")
        }
        if let level = options.logLevel {
            self.logger.logLevel = level
        } else {
            self.logger.logLevel = StderrLogHandler.level(named: configuration.daemon.logLevel)
        }
        do {
            access = try AccessPolicy(configuration.daemon)
        } catch {
            throw SetupError(description: error.description)
        }
    }

    // MARK: Start

    /// Opens everything, notifies readiness, serves until SIGTERM/SIGINT; returns the exit status.
    package func run() -> Int32 {
        do {
            try start()
        } catch {
            logger.error("\(error.description)")
            notifier.notify("STATUS=failed: \(error.description)\nERRNO=1")
            shutdownSources()
            listener?.close()
            return 1
        }
        notifier.notify("READY=1\n" + statusLine())
        logger.notice("ready: \(listener!.path), \(devices.count) touchscreen(s)")
        while running { step() }
        stop()
        return 0
    }

    private func start() throws(SetupError) {
        var signals: [Int32] = [SIGTERM, SIGINT, SIGHUP]
        signalFD = clinux_signalfd(&signals, Int32(signals.count))
        guard signalFD >= 0 else { throw SetupError(description: "signalfd: \(String(cString: strerror(errno)))") }
        signal(SIGPIPE, SIG_IGN)
        // Timers (hold, held-back taps, a replay's frames) are rare and must be
        // on time; the default 50 µs of slack only batches wake-ups we do not have.
        _ = clinux_set_timer_slack_ns(1000)

        if let passed = Listener.fromSystemd(warn: { self.logger.warning("\($0)") }) {
            listener = passed
            logger.info("listening on \(passed.path) (socket from systemd)")
        } else {
            guard let path = options.socketPath ?? configuration.daemon.socket ?? Listener.defaultPath() else {
                throw SetupError(
                    description: "no socket path: XDG_RUNTIME_DIR is not set; pass --socket PATH or set socket in [daemon]")
            }
            do {
                listener = try Listener.bind(
                    path: path, mode: configuration.daemon.socketMode, group: access.socketGroup)
            } catch {
                throw SetupError(description: error.description)
            }
            logger.info("listening on \(path)")
        }

        if let path = options.replayPath {
            let loaded: LoadedTrace
            do {
                guard
                    let first = try TraceLoader.load(path, desc: nil, size: options.replaySize, configuration: configuration)
                        .first
                else {
                    throw SetupError(description: "\(path): no device in the trace")
                }
                loaded = first
            } catch let e as SetupError {
                throw e
            } catch {
                throw SetupError(description: "\(error)")
            }
            if loaded.geometry.source == .fallback {
                logger.warning(
                    "\(path): no size known; assuming \(fixed1(loaded.geometry.screenWidth)) x \(fixed1(loaded.geometry.screenHeight)) mm; pass --size WxH"
                )
            }
            let source = ReplaySource(
                loaded: loaded, path: path, id: nextDeviceID(), speed: options.speed, loop: options.loop)
            replay = source
            deviceAdded(source.info, geometry: source.geometry, thresholds: source.thresholds)
            if options.waitSubscribers == 0 { replay!.start(at: MonotonicClock.now) }
        }
        if options.replayPath == nil || !options.devicePaths.isEmpty {
            let backend: LibinputSource.Backend =
                options.devicePaths.isEmpty
                ? .seat(options.seat ?? configuration.daemon.seat) : .paths(options.devicePaths)
            do {
                libinput = try LibinputSource(backend, logger: logger, delegate: self)
            } catch {
                throw SetupError(description: error.description)
            }
            libinput!.dispatch()  // the devices present are already queued as added
        }
    }

    // MARK: The loop

    private var pollSet: [pollfd] = []
    private var polled: [Client] = []

    /// One turn of the loop: wait, then handle whatever woke us.
    package func step() {
        pollSet.removeAll(keepingCapacity: true)
        pollSet.append(pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0))
        pollSet.append(pollfd(fd: listener!.fd, events: Int16(POLLIN), revents: 0))
        let libinputFD = libinput?.fd ?? -1
        pollSet.append(pollfd(fd: libinputFD, events: Int16(POLLIN), revents: 0))
        polled.removeAll(keepingCapacity: true)
        polled.append(contentsOf: clients)
        for c in clients {
            var events: Int32 = 0
            if !c.readClosed && c.state != .closing { events |= Int32(POLLIN) }
            if c.pending > 0 { events |= Int32(POLLOUT) }
            pollSet.append(pollfd(fd: c.fd, events: Int16(events), revents: 0))
        }
        let timeout = pollTimeout(now: MonotonicClock.now)
        let n = clinux_poll_usec(&pollSet, UInt(pollSet.count), timeout)
        if n < 0 {
            if errno != EINTR { logger.error("poll: \(String(cString: strerror(errno)))") }
            return
        }
        let now = MonotonicClock.now
        if pollSet[0].revents != 0 { handleSignals() }
        if pollSet[2].revents != 0 { libinput?.dispatch() }
        runReplay(now: now)
        var sink = FanOut(daemon: self)
        pipeline.advance(to: now, into: &sink)
        if pollSet[1].revents != 0 { acceptClients() }
        // The clients polled this turn; handling one may drop it from `clients`.
        for (i, c) in polled.enumerated() {
            let revents = Int32(pollSet[i + 3].revents)
            if revents & Int32(POLLIN) != 0 { readRequests(c) }
            if revents & Int32(POLLHUP | POLLERR | POLLNVAL) != 0 && c.state != .closing && clients.contains(where: { $0 === c })
            {
                drop(c, "disconnected")
            }
        }
        flushClients(now: now)
        updateStatus()
    }

    /// Microseconds until the earliest deadline, -1 for none: the daemon
    /// sleeps until something happens and has no periodic wake-up.
    private func pollTimeout(now: Timestamp) -> Int64 {
        var due = pipeline.nextDeadline
        if let r = replay { due = min(due, r.nextTime) }
        for c in clients where c.state == .closing { due = min(due, c.closeDeadline) }
        if due == .never { return -1 }
        return max(0, (due - now).microseconds)
    }

    private func runReplay(now: Timestamp) {
        guard replay != nil else { return }
        do {
            try replay!.run(until: now) { frame($0) }
        } catch {
            logger.error("replay stopped: \(error)")
            let id = replay!.info.id
            replay = nil
            deviceRemoved(id)
            return
        }
        let warnings = replay!.warnings
        for w in warnings.dropFirst(lastReplayWarnings) { logger.warning("\(w)") }
        lastReplayWarnings = warnings.count
    }

    // MARK: Signals

    private func handleSignals() {
        while true {
            let signo = clinux_signalfd_read(signalFD)
            guard signo > 0 else { return }
            switch signo {
            case SIGHUP: reload()
            default:
                logger.notice("stopping on signal \(signo)")
                running = false
            }
        }
    }

    private func reload() {
        notifier.notify("RELOADING=1\nMONOTONIC_USEC=\(MonotonicClock.now.microseconds)")
        logger.notice("reloading configuration")
        let new: Configuration
        let newAccess: AccessPolicy
        do {
            new = try loadConfiguration(options.configPath)
            newAccess = try AccessPolicy(new.daemon)
        } catch {
            logger.error("configuration not reloaded, keeping the previous one: \(error)")
            notifier.notify("READY=1\nSTATUS=configuration not reloaded: \(error)")
            return
        }
        configuration = new
        access = newAccess
        if options.logLevel == nil { logger.logLevel = StderrLogHandler.level(named: new.daemon.logLevel) }
        for (id, info) in devices where id != replay?.info.id {
            pipeline.setThresholds(new.thresholds(forName: info.name, vendorProduct: info.vendorProduct), for: id)
        }
        for c in clients where !access.allows(fd: c.fd, uid: c.uid, gid: c.gid) {
            refuse(c, code: "forbidden", message: "uid \(c.uid) is no longer allowed by [daemon] allow-users/allow-groups")
        }
        let message = ServerMessage.configReloaded(files: new.sources, time: MonotonicClock.now)
        for c in clients where c.state == .subscribed { send(message, to: c) }
        logger.notice("configuration reloaded from \(new.sources.isEmpty ? "defaults" : new.sources.joined(separator: ", "))")
        notifier.notify("READY=1\n" + statusLine())
        lastStatus = statusLine()
    }

    // MARK: Clients

    private func acceptClients() {
        while true {
            let fd = clinux_accept(listener!.fd)
            if fd < 0 {
                if errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED {
                    logger.warning("accept: \(String(cString: strerror(errno)))")
                }
                return
            }
            var pid: pid_t = 0
            var uid: uid_t = 0
            var gid: gid_t = 0
            if clinux_peer_credentials(fd, &pid, &uid, &gid) != 0 {
                close(fd)
                continue
            }
            clientSerial += 1
            let c = Client(
                fd: fd, serial: clientSerial, pid: pid, uid: uid, gid: gid, outboxLimit: configuration.daemon.clientBuffer)
            clients.append(c)
            guard access.allows(fd: fd, uid: uid, gid: gid) else {
                logger.warning("refused \(c.label): not in [daemon] allow-users or allow-groups")
                refuse(c, code: "forbidden", message: "uid \(uid) may not subscribe: not in [daemon] allow-users/allow-groups")
                continue
            }
            guard clients.count - clients.filter({ $0.state == .closing }).count <= configuration.daemon.maxClients else {
                logger.warning("refused \(c.label): \(configuration.daemon.maxClients) clients already (max-clients)")
                refuse(c, code: "busy", message: "the daemon serves \(configuration.daemon.maxClients) clients already")
                continue
            }
            logger.info("\(c.label) connected")
            send(
                ServerMessage.hello(devices: devices.values.sorted { $0.id.rawValue < $1.id.rawValue }, server: serverName), to: c
            )
        }
    }

    private var serverName: String { "gestured \(gesturedVersion)" }

    private func readRequests(_ c: Client) {
        switch c.readLines() {
        case .lines(let lines):
            for line in lines where c.state != .closing {
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                handleRequest(line, from: c)
            }
        case .endOfFile:
            // Half-closed: the client may still read; it is dropped when the socket hangs up.
            c.readClosed = true
        case .lineTooLong:
            logger.warning("\(c.label): line longer than \(WireProtocol.maxLineLength) bytes; closing")
            refuse(c, code: "line-too-long", message: "lines are at most \(WireProtocol.maxLineLength) bytes")
        case .failed(let e):
            drop(c, "read failed: \(String(cString: strerror(e)))")
        }
    }

    private func handleRequest(_ line: ArraySlice<UInt8>, from c: Client) {
        let request: ClientRequest
        do {
            request = try ClientRequest.parse(line)
        } catch {
            logger.debug("\(c.label): \(error.code): \(error.message)")
            send(ServerMessage.error(code: error.code, message: error.message, fatal: false), to: c)
            return
        }
        switch request {
        case .subscribe(let sub):
            let changed = c.state != .subscribed || c.subscription.gestures != sub.gestures
            c.subscription = sub
            c.state = .subscribed
            send(ServerMessage.subscribed(sub), to: c)
            logger.debug("\(c.label) subscribed: \(ServerMessage.subscribed(sub))")
            if changed { updateWanted() }
            if let r = replay, !r.started, subscriberCount >= options.waitSubscribers {
                replay!.start(at: MonotonicClock.now)
            }
        case .unsubscribe:
            if c.state == .subscribed {
                c.state = .connected
                c.admitted.removeAll()
                updateWanted()
            }
            send(ServerMessage.unsubscribed, to: c)
        case .ping:
            send(ServerMessage.pong, to: c)
        }
    }

    private var subscriberCount: Int { clients.count { $0.state == .subscribed } }

    /// Recognition follows the union of what subscribers want: taps come at
    /// the lift for those who do not want double taps, and after the
    /// double-tap interval for those who do.
    private func updateWanted() {
        var union = GestureKindSet()
        var immediate = false
        for c in clients where c.state == .subscribed {
            union.formUnion(c.subscription.gestures)
            if c.subscription.gestures.contains(.tap) && !c.subscription.wantsDoubleTap { immediate = true }
        }
        if union != pipeline.wanted || immediate != pipeline.immediateTaps {
            pipeline.setWanted(union, immediateTaps: immediate && union.contains(.doubleTap))
        }
    }

    /// Queues a line for a client; one whose outbox is full gets `overflow` and is closed.
    private func send(_ line: String, to c: Client) {
        guard c.state != .closing else { return }
        if !c.enqueue(line) {
            logger.warning("\(c.label) does not read: outbox over \(c.outboxLimit / 1024) KiB; closing it")
            c.enqueueFinal(
                ServerMessage.error(
                    code: "overflow", message: "you did not read fast enough; \(c.outboxLimit / 1024) KiB were waiting",
                    fatal: true),
                closeBy: MonotonicClock.now + Self.closeGrace)
            updateWantedLater = true
        }
    }

    /// A client left the subscribers while events were being sent: recompute what is wanted once the turn is over.
    private var updateWantedLater = false

    /// Sends a fatal error and closes the client once it is written (or after a grace period).
    private func refuse(_ c: Client, code: String, message: String) {
        let wasSubscribed = c.state == .subscribed
        c.enqueueFinal(
            ServerMessage.error(code: code, message: message, fatal: true), closeBy: MonotonicClock.now + Self.closeGrace)
        if wasSubscribed { updateWantedLater = true }
    }

    private func drop(_ c: Client, _ why: String) {
        logger.info("\(c.label) \(why)")
        close(c.fd)
        let wasSubscribed = c.state == .subscribed
        clients.removeAll { $0 === c }
        if wasSubscribed { updateWanted() }
    }

    private func flushClients(now: Timestamp) {
        var i = 0
        while i < clients.count {
            let c = clients[i]
            var gone = false
            if c.pending > 0, case .failed(let e) = c.flush() {
                if e != EPIPE && e != ECONNRESET { logger.info("\(c.label): write failed: \(String(cString: strerror(e)))") }
                gone = true
            }
            if c.state == .closing && (c.pending == 0 || now >= c.closeDeadline) { gone = true }
            if gone {
                shutdown(c.fd, Int32(SHUT_RDWR))
                close(c.fd)
                clients.remove(at: i)
                logger.info("\(c.label) closed")
                updateWantedLater = true
            } else {
                i += 1
            }
        }
        if updateWantedLater {
            updateWantedLater = false
            updateWanted()
        }
    }

    // MARK: Publishing

    /// Sends a gesture event to every subscriber whose filters it passes.
    fileprivate func publish(_ event: GestureEvent) {
        guard let info = devices[event.device] else { return }
        Delivery.deliver(event, from: info, to: clients) { line, c in send(line, to: c) }
    }

    private func broadcast(_ line: String, device: DeviceInfo) {
        for c in clients where c.state == .subscribed && c.subscription.accepts(device: device) { send(line, to: c) }
    }

    // MARK: TouchSourceDelegate

    package func nextDeviceID() -> DeviceID {
        deviceSerial += 1
        return DeviceID(deviceSerial)
    }

    package func deviceAdded(_ info: DeviceInfo, geometry: PanelGeometry, thresholds: GestureThresholds) {
        devices[info.id] = info
        pipeline.addDevice(info.id, name: info.name, geometry: geometry, thresholds: thresholds)
        broadcast(ServerMessage.deviceAdded(info, time: MonotonicClock.now), device: info)
    }

    package func deviceRemoved(_ id: DeviceID) {
        guard let info = devices[id] else { return }
        var sink = FanOut(daemon: self)
        pipeline.removeDevice(id, at: MonotonicClock.now, into: &sink)
        devices.removeValue(forKey: id)
        broadcast(ServerMessage.deviceRemoved(info, time: MonotonicClock.now), device: info)
    }

    package func frame(_ frame: TouchFrame) {
        var sink = FanOut(daemon: self)
        pipeline.process(frame, into: &sink)
    }

    // MARK: Stop

    private func statusLine() -> String {
        "STATUS=\(devices.count) touchscreen(s), \(subscriberCount) subscriber(s), \(clients.count) client(s)"
    }

    private func updateStatus() {
        let s = statusLine()
        if s != lastStatus {
            lastStatus = s
            notifier.notify(s)
        }
    }

    /// Tells every client, lets their last lines drain (briefly), closes everything.
    private func stop() {
        notifier.notify("STOPPING=1\nSTATUS=stopping")
        let now = MonotonicClock.now
        for c in clients {
            c.enqueueFinal(ServerMessage.goodbye(reason: "the daemon is stopping"), closeBy: now + .milliseconds(500))
        }
        while !clients.isEmpty {
            flushClients(now: MonotonicClock.now)
            guard !clients.isEmpty else { break }
            var set = clients.map { pollfd(fd: $0.fd, events: Int16(POLLOUT), revents: 0) }
            _ = poll(&set, nfds_t(set.count), 50)
        }
        listener?.close()
        shutdownSources()
        logger.notice("stopped")
    }

    private func shutdownSources() {
        libinput?.shutdown()
        libinput = nil
    }
}

/// The pipeline's sink in the daemon: every event goes to `publish`.
private struct FanOut: GestureSink {
    unowned let daemon: Daemon
    mutating func receive(_ event: GestureEvent) { daemon.publish(event) }
}

/// The version `hello` and `--version` report.
package let gesturedVersion = "0.2.0"
