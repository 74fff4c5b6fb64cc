import CLinux
package import GestureCore
package import GestureProtocol
import SystemPackage
package import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `gestured act`: subscribes to the daemon and carries out the bindings.
///
/// One loop, like the daemon's: the socket, a signalfd (SIGTERM and SIGINT
/// stop, SIGHUP reloads, SIGCHLD reaps), inotify on the actions files'
/// folders, the running commands' standard error, the compositor's Wayland
/// connection (`ScreenFollower`), the compositor's IPC for the focused
/// window (`FocusFollower`); deadlines for a held-back `on-changed`, a
/// command's timeout, the next reconnection to the daemon and to the
/// compositor.
package struct Actor {
    package struct Options {
        /// The actions files; empty: the default place (`ActionsFiles.defaultPaths`).
        package var files: [String] = []
        package var socketPath: String
        package var maxRunning = 8
        /// `--context`: act only watches, and says the context here, a
        /// line each time it changes: it runs nothing, claims nothing and
        /// tells the daemon nothing of the screen.
        package var watchContext: ((String) -> Void)?
        package init(socketPath: String) { self.socketPath = socketPath }
    }

    /// The most bytes read from the daemon in one turn of the loop, so that
    /// signals, timeouts and commands are seen to between reads, whatever
    /// the socket holds.
    static let readBudget = 64 * 1024
    /// The longest line taken from the daemon (its own lines are far
    /// shorter); a longer one ends the connection.
    static let lineLimit = 64 * 1024
    /// The most gestures followed at once (a gesture is followed from its
    /// first event to its last); beyond it the oldest is forgotten.
    static let gestureLimit = 64

    /// What one gesture under way has done so far.
    struct GestureState {
        var start: (x: Double, y: Double)
        /// The context it began in: the bindings that may act on it are
        /// decided then, for the whole gesture.
        var context: Binding.Context
        /// The output its touchscreen shows on (`when.output`), as known when it began.
        var output: String?
        /// Bindings whose `run`/`keys` this gesture has fired.
        var fired: Set<Int> = []
        /// Per binding: when its `on-changed` last ran, and the newest `changed` held back since.
        var lastChanged: [Int: Timestamp] = [:]
        var heldChanged: [Int: ReceivedEvent] = [:]
        /// When it was first seen, for forgetting the oldest.
        var since: Timestamp
        /// The `pipe` programs that got a line of it: they get every later
        /// one, whatever its finger count or direction by then.
        var piped: [[String]] = []
        /// What its end must say if act has to make one up (the daemon lost mid-gesture).
        var kind: GestureKind = .drag
        var fingers = 1
        var device = ""
        var tracked = false
        /// Per binding that waits for its `hold-ms`: when it acts, and the
        /// hold's latest event (where a click goes).
        var waiting: [Int: (due: Timestamp, event: ReceivedEvent)] = [:]
    }

    /// How often each binding may still fire: a bucket of `maxPerSecond`
    /// starts, refilled at that rate.
    struct Budget {
        var tokens: Double
        var at: Timestamp
        var skipped = 0
        var saidAt = Timestamp(microseconds: .min / 2)
    }

    private let options: Options
    private let log: (String) -> Void
    package private(set) var bindings: [Binding] = []
    private var runner: Runner
    /// The programs of `pipe` bindings.
    private var pipes: Pipes
    private var gestures: [Int: GestureState] = [:]
    private var budgets: [Int: Budget] = [:]
    private let trust = DaemonTrust()
    /// The last reason the socket was not believed, so that it is said once.
    private var lastRefusal: String?

    private var socket: Int32 = -1
    private var input = LineBuffer(limit: Actor.lineLimit + Actor.readBudget)
    /// Where the socket is read into, kept from one read to the next.
    private var chunk = [UInt8](repeating: 0, count: Actor.readBudget)
    private var retryAt = Timestamp(microseconds: 0)
    private var backoff = Timestamp.Duration.milliseconds(100)
    private var saidWaiting = false
    private var reloadAt = Timestamp.never
    /// What the last reload that failed said (nil: the last one worked).
    private var reloadError: String?
    private var signals: Int32 = -1
    private var inotify: Int32 = -1
    private var running = true
    private var watchedFiles: [String] = []
    /// Lines from the daemon that were skipped, said a few times a second at most.
    private var badLines = RepeatLimiter()
    /// The compositor's outputs, told to the daemon as they turn.
    private var screen = ScreenFollower()
    /// What the gestures happen in: the daemon's `context` (while the
    /// session at the screen is locked only `when = { locked = true }`
    /// bindings act; `when.tablet-mode` follows the switch) and the focused
    /// window (`focus`).
    private var context = Binding.Context()
    private var focus: FocusFollower
    /// The actions files' `[context]`.
    private var contextSettings = ContextSettings()
    /// The claims the daemon was last sent on this connection (nil: none sent yet).
    private var sentClaims: Claims?
    /// Whether the focused app was one of `leave-to-apps`, to say when that changes.
    private var leftToApp = false
    /// Whether this connection's first `subscribed` came.
    private var subscribedOnConnection = false
    /// Whether the daemon said the lock and tablet mode on this connection.
    private var daemonContextKnown = false
    /// The last line `--context` printed.
    private var saidContext = ""

    package init(options: Options, log: @escaping (String) -> Void) throws(ConfigurationError) {
        self.options = options
        self.log = log
        runner = Runner(limit: options.maxRunning, log: log)
        pipes = Pipes(log: log)
        focus = FocusFollower(source: FocusFollower.source(environment: Self.environment()))
        var loaded = ActionsFiles.Loaded()
        do {
            loaded = try ActionsFiles.load(options.files)
        } catch  where options.watchContext != nil {
            // Watching needs no bindings: what is wrong with them is said, and watching goes on.
            log("\(error)")
        }
        for message in loaded.skipped { log(message) }
        watchedFiles = loaded.files
        bindings = loaded.bindings
        if options.watchContext == nil { pipes.follow(bindings) }
        screen.settings = loaded.screen
        contextSettings = loaded.context
        if let say = options.watchContext {
            screen.settings.followRotation = false
            say(
                "the focused window: "
                    + (focus.source.map { "from \($0.name)" }
                        ?? "not known in this session (no SWAYSOCK, I3SOCK, WAYLAND_DISPLAY or DISPLAY)"))
            say("the lock and tablet mode: from the daemon at \(options.socketPath)")
            say("\(bindings.count) binding(s) from \(loaded.files.isEmpty ? "no file" : loaded.files.joined(separator: ", "))")
        } else {
            sayWhetherFocusIsKnown()
        }
    }

    static func environment() -> [String: String] {
        var env: [String: String] = [:]
        for name in ["SWAYSOCK", "I3SOCK", "WAYLAND_DISPLAY", "DISPLAY"] {
            if let v = getenv(name) { env[name] = String(cString: v) }
        }
        return env
    }

    /// Says once, if the bindings need it, that the focused app is not known here.
    private func sayWhetherFocusIsKnown() {
        guard focus.source == nil, bindings.contains(where: \.needsFocus) || !contextSettings.leaveToApps.isEmpty else {
            return
        }
        log(
            "the focused app is not known in this session (act follows it through sway's or i3's IPC, SWAYSOCK or I3SOCK, a Wayland compositor's wlr-foreign-toplevel-management, WAYLAND_DISPLAY, or an X11 window manager's _NET_ACTIVE_WINDOW, DISPLAY; this session sets none of them): bindings with when.app or when.title do not act, when.not-app ones do, and [context] leave-to-apps leaves nothing to apps"
        )
    }

    /// Serves until SIGTERM or SIGINT; the exit status.
    package mutating func run() -> Int32 {
        var wanted: [Int32] = [SIGTERM, SIGINT, SIGHUP, SIGCHLD]
        signals = clinux_signalfd(&wanted, Int32(wanted.count))
        signal(SIGPIPE, SIG_IGN)
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        watchFolders()
        contextChanged()
        let clock = LoopClock.monotonic
        var poller = Poller()
        var now = clock.now
        while running {
            poller.reset()
            if screen.beforeWait(now: now, log: log) { outputsChanged() }
            if focus.beforeWait(now: now, log: log) { contextChanged() }
            let signalSlot = poller.add(signals, Int32(POLLIN))
            let inotifySlot = poller.add(inotify, Int32(POLLIN))
            let socketSlot = poller.add(socket, Int32(POLLIN))
            let screenSlot = poller.add(screen.fd, Int32(POLLIN))
            let focusSlot = poller.add(focus.fd, Int32(POLLIN))
            for fd in runner.descriptors { _ = poller.add(fd, Int32(POLLIN)) }
            for fd in pipes.blocked { _ = poller.add(fd, Int32(POLLOUT)) }
            var deadline = min(
                runner.deadline, reloadAt, heldChangedDeadline, waitingDeadline, screen.deadline, focus.deadline,
                pipes.deadline)
            if socket < 0 { deadline = min(deadline, retryAt) }
            now = poller.wait(until: deadline, clock: clock).now
            if poller.readable(screenSlot) || poller.hungUp(screenSlot), screen.read(now: now, log: log) {
                outputsChanged()
            }
            if poller.readable(focusSlot) || poller.hungUp(focusSlot), focus.read(now: now, log: log) { contextChanged() }

            if poller.readable(signalSlot) { readSignals(now: now) }
            if poller.readable(inotifySlot) { readInotify(now: now) }
            if now >= reloadAt {
                reloadAt = .never
                reload(now: now)
            }
            if socket < 0 && now >= retryAt { connect(now: now) }
            if running && socket >= 0 && (poller.readable(socketSlot) || poller.hungUp(socketSlot)) { receive(now: now) }
            runHeldChanges(now: now)
            fireWaiting(now: now)
            for child in runner.service(now: now) { pipes.ended(child.pid, status: child.status, now: now) }
            pipes.service(now: now)
        }
        runner.stopAll()
        pipes.stopAll()
        screen.close()
        focus.close()
        if socket >= 0 { close(socket) }
        return 0
    }

    // MARK: The daemon

    private mutating func connect(now: Timestamp) {
        func retry() {
            retryAt = now + backoff
            backoff = min(Timestamp.Duration(microseconds: backoff.microseconds * 2), .milliseconds(5000))
        }
        // Nothing is believed from a socket someone else could have put there.
        if let problem = trust.problem(path: options.socketPath), fileExists(options.socketPath) {
            refuse(problem)
            return retry()
        }
        let fd: Int32
        switch connectToDaemon(options.socketPath) {
        case .success(let connected): fd = connected
        case .failure(let why):
            if !saidWaiting {
                log("\(why); retrying until the daemon is there")
                saidWaiting = true
            }
            return retry()
        }
        if let problem = trust.problem(peerOf: fd) {
            close(fd)
            refuse(problem)
            return retry()
        }
        lastRefusal = nil
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        socket = fd
        input = LineBuffer(limit: input.limit)
        gestures.removeAll()
        subscribedOnConnection = false
        let claims = currentClaims
        sentClaims = claims
        // A watcher asks for no gesture and claims nothing: the daemon's `context` is what it reads.
        send(options.watchContext == nil ? Self.subscribeLine(for: bindings, claims: claims) : Self.watchLine)
    }

    static let watchLine = #"{"type":"subscribe","gestures":[]}"# + "\n"

    /// Says once (until the socket is believed again) why it is not.
    private mutating func refuse(_ problem: String) {
        guard problem != lastRefusal else { return }
        lastRefusal = problem
        log(
            "not believing \(options.socketPath): \(problem); nothing is run for what it sends. The system daemon's socket is /run/gestured/gestured.sock; retrying"
        )
    }

    private mutating func disconnect(now: Timestamp, why: String) {
        close(socket)
        socket = -1
        log("\(why); reconnecting")
        saidWaiting = false
        backoff = .milliseconds(100)
        retryAt = now + backoff
        // Gestures under way end with the connection: their held-back
        // values go now, and the pipe programs that got their start get a
        // `cancelled` end, so that none waits for an end that cannot come.
        for id in gestures.keys.sorted() {
            flushHeld(id, now: now)
            guard let g = gestures[id], !g.piped.isEmpty else { continue }
            let line = Self.lostEnd(of: g, id: id, now: now)
            for argv in g.piped { pipes.send(line[...], gesture: id, phase: .cancelled, to: argv, now: now) }
        }
        gestures.removeAll()
        // The next connection's `context` says again.
        context.locked = false
        context.tabletMode = false
        daemonContextKnown = false
        sentClaims = nil
        contextChanged()
    }

    /// What the bindings claim together, on claimed touchscreens.
    static func claims(of bindings: [Binding]) -> ClaimSet {
        bindings.reduce(into: ClaimSet()) { $0.formUnion($1.claims) }
    }

    /// What the bindings that may act now and name no output claim on
    /// every touchscreen: nothing while an app of `leave-to-apps` has the focus.
    package static func claims(of bindings: [Binding], in context: Binding.Context, _ settings: ContextSettings) -> ClaimSet {
        if context.leftToApp(settings) { return ClaimSet() }
        return claims(of: bindings.filter { $0.whenOutputs == nil && $0.acts(in: context, settings) })
    }

    /// What act claims: on every claimed touchscreen, and beyond that on
    /// each touchscreen whose output a `when.output` binding names.
    package struct Claims: Equatable {
        package var everywhere = ClaimSet()
        /// By touchscreen node, what its output's bindings add.
        package var on: [SubscribeRequest.DeviceClaims] = []

        package var isEmpty: Bool { everywhere.isEmpty && on.isEmpty }

        /// "3 fingers on claimed touchscreens; left edge on /dev/input/event5", for the log.
        package var summary: String {
            guard !isEmpty else { return "nothing" }
            let all = everywhere.isEmpty ? [] : ["\(everywhere.summary) on claimed touchscreens"]
            return (all + on.map { "\($0.claims.summary) on \($0.devices.joined(separator: ", "))" }).joined(separator: "; ")
        }
    }

    /// What the bindings that may act now claim, on every touchscreen and
    /// on each of `screens` (its node, and the output it shows on).
    package static func claims(
        of bindings: [Binding], in context: Binding.Context, _ settings: ContextSettings,
        screens: [(node: String, output: String?)]
    ) -> Claims {
        var c = Claims(everywhere: claims(of: bindings, in: context, settings))
        let limited = bindings.filter { $0.whenOutputs != nil && $0.acts(in: context, settings) }
        guard !limited.isEmpty, !context.leftToApp(settings) else { return c }
        for s in screens {
            let extra = claims(of: limited.filter { $0.acts(onOutput: s.output) })
            var all = c.everywhere
            all.formUnion(extra)
            if all != c.everywhere { c.on.append(SubscribeRequest.DeviceClaims(devices: [s.node], claims: extra)) }
        }
        return c
    }

    private var currentClaims: Claims {
        Self.claims(
            of: bindings, in: context, contextSettings,
            screens: screen.touchscreens.map { ($0.node, screen.outputName(of: $0)) })
    }

    /// The focused window or the daemon's context changed: the claims
    /// follow, and a change of them is said and sent (touches already down
    /// keep the decision they began with: the daemon's claimer changes
    /// between touch sequences).
    private mutating func contextChanged() {
        context.focus = focus.focus
        context.focusKnown = focus.known
        if let say = options.watchContext {
            let line = contextLine(claims: currentClaims)
            if line != saidContext { say(line) }
            saidContext = line
            return
        }
        let left = context.leftToApp(contextSettings)
        if left != leftToApp {
            leftToApp = left
            log(
                left
                    ? "\(logSafe(context.focus?.app ?? "")) has the focus: its touches are left to it (leave-to-apps); claiming nothing"
                    : "the app that kept its touches lost the focus")
        }
        let claims = currentClaims
        guard socket >= 0, let sent = sentClaims, sent != claims else { return }
        sentClaims = claims
        log("claiming \(claims.isEmpty ? "nothing on claimed touchscreens" : claims.summary) now")
        send(Self.subscribeLine(for: bindings, claims: claims))
    }

    /// What `--context` prints: the focused window, the daemon's context,
    /// and what the bindings do in it.
    private func contextLine(claims: Claims) -> String {
        var parts: [String] = []
        if !context.focusKnown {
            parts.append("focused app not known")
        } else if let f = context.focus {
            parts.append(
                "app \"\(logSafe(f.app))\", title \"\(logSafe(f.title))\", \(f.fullscreen ? "fullscreen" : "not fullscreen")")
        } else {
            parts.append("no window has the focus")
        }
        if daemonContextKnown {
            parts.append(context.locked ? "locked" : "unlocked")
            parts.append("tablet mode \(context.tabletMode ? "on" : "off")")
        } else {
            parts.append("lock and tablet mode not known (not connected to the daemon)")
        }
        if context.leftToApp(contextSettings) { parts.append("touches left to the app (leave-to-apps)") }
        let acting = bindings.indices.filter { bindings[$0].acts(in: context, contextSettings) }
        var does = "\(acting.count) of \(bindings.count) binding(s) can act"
        if !acting.isEmpty && acting.count < bindings.count {
            does += " (" + acting.map { bindings[$0].origin }.joined(separator: ", ") + ")"
        }
        parts.append(does)
        parts.append("claiming \(claims.summary)")
        return parts.joined(separator: "; ")
    }

    /// The subscription, so that the daemon sends only what is bound: the
    /// bound gestures; their fingers, and edges, when every binding names
    /// them; the directions of swipes and flicks when every binding of those
    /// names them (the daemon filters directions on those only); every
    /// phase but `changed` when no binding acts on a change (`on-changed`,
    /// `phase = "changed"`, `pipe`, a hold it waits on), and then the daemon
    /// does not make them at all;
    /// and `claims` (by default what every binding claims).
    package static func subscribeLine(for bindings: [Binding], claims: Claims? = nil) -> String {
        var r = SubscribeRequest()
        r.gestures = bindings.map(\.gesture.rawValue)
        if !bindings.isEmpty, bindings.allSatisfy({ $0.fingers != nil }) { r.fingers = bindings.flatMap { $0.fingers ?? [] } }
        if !bindings.isEmpty, bindings.allSatisfy({ $0.edges != nil }) {
            r.edges = bindings.flatMap { $0.edges ?? [] }.map(\.rawValue)
        }
        let strokes = bindings.filter { $0.gesture == .swipe || $0.gesture == .flick }
        if !strokes.isEmpty, strokes.allSatisfy({ $0.directions != nil }) {
            r.directions = strokes.flatMap { $0.directions ?? [] }.map(\.rawValue)
        }
        if !bindings.contains(where: {
            $0.onChanged != nil || $0.phase == .changed || $0.pipe != nil || $0.waitsFor != nil
        }) {
            r.phases = ["began", "recognized", "ended", "cancelled"]
        }
        r.keys = bindings.contains { $0.keys != nil }
        r.pointer = bindings.contains { $0.pointer != nil }
        r.claims = claims?.everywhere ?? Self.claims(of: bindings)
        r.deviceClaims = claims?.on ?? []
        var tracks: [TrackRule] = []
        for b in bindings {
            guard let t = b.track else { continue }
            let entry = TrackRule(t, fingers: b.fingers)
            if !tracks.contains(entry) { tracks.append(entry) }
        }
        r.tracks = Array(tracks.prefix(16))
        return r.line + "\n"
    }

    /// An output came, went or turned: the daemon is told how, and the
    /// claims of `when.output` bindings follow the touchscreens' outputs.
    private mutating func outputsChanged() {
        tellOrientations()
        contextChanged()
    }

    /// The output the touchscreen of this name shows on, if known.
    private func output(of device: String) -> String? {
        screen.touchscreens.first { $0.name == device }.flatMap { screen.outputName(of: $0) }
    }

    /// Tells the daemon how the outputs of its touchscreens are turned, where it has not been told.
    private mutating func tellOrientations() {
        guard socket >= 0 else { return }
        for line in screen.requests(log: log) { send(line) }
    }

    /// Sends a request. Requests are short and rare: one that the socket
    /// cannot take whole now is the connection failing.
    private mutating func send(_ line: String) {
        guard socket >= 0 else { return }
        do {
            try writeAll(socket, line)
        } catch {
            disconnect(now: monotonicNow(), why: "cannot write to the daemon: \(error)")
        }
    }

    /// Reads what the daemon sent, at most `readBudget` bytes a turn, and
    /// handles each whole line; what is left waits for the next turn.
    private mutating func receive(now: Timestamp) {
        var budget = Self.readBudget
        while socket >= 0 && budget > 0 {
            switch input.fill(from: socket, budget: budget, scratch: &chunk) {
            case .read(0):
                return
            case .read(let n):
                budget -= n
            case .endOfFile:
                disconnect(now: now, why: "the daemon closed the connection")
                return
            case .failed(let e):
                disconnect(now: now, why: "reading from the daemon failed: \(e)")
                return
            }
            while socket >= 0, let line = input.nextLine() { handle(line: line, now: now) }
            if socket < 0 { return }
            if input.buffered > Self.lineLimit {
                disconnect(now: now, why: "the daemon sent a line longer than \(Self.lineLimit) bytes")
                return
            }
        }
    }

    private mutating func handle(line: ArraySlice<UInt8>, now: Timestamp) {
        switch ReceivedEvent.parse(line) {
        case .event(let event):
            handle(event, line: line, now: now)
        case .message(let type):
            switch type {
            case "subscribed":
                // Said once a connection; later ones answer a change of claims or a reload.
                guard !subscribedOnConnection else { break }
                subscribedOnConnection = true
                let claims = sentClaims ?? Claims(everywhere: Self.claims(of: bindings))
                let claiming = claims.isEmpty ? "" : ", claiming \(claims.summary)"
                log("connected to \(options.socketPath): \(bindings.count) binding(s)\(claiming)")
                backoff = .milliseconds(100)
                saidWaiting = false
            case "hello":
                screen.daemonConnected(ReceivedEvent.touchscreens(line))
                tellOrientations()
                contextChanged()
            case "device_added":
                for t in ReceivedEvent.touchscreens(line) { screen.added(t) }
                tellOrientations()
                contextChanged()
            case "device_removed":
                for t in ReceivedEvent.touchscreens(line) { screen.removed(node: t.node) }
                contextChanged()
            case "orientation":
                log("the daemon: \(ReceivedEvent.orientationText(line))")
            case "error":
                log("the daemon says: \(ReceivedEvent.errorText(line))")
            case "paused":
                log("the daemon sends nothing while another user's session is active on its seat")
            case "resumed":
                log("your session is active on the daemon's seat again: gestures come")
            case "context":
                let (locked, tabletMode) = ReceivedEvent.context(line)
                if locked != context.locked {
                    let some = bindings.contains { $0.whenLocked }
                    log(
                        locked
                            ? "the session at the screen is locked: "
                                + (some ? "only bindings with when = { locked = true } act" : "no binding acts")
                            : "the session at the screen is unlocked: bindings act")
                }
                if tabletMode != context.tabletMode { log("tablet mode: \(tabletMode ? "on" : "off")") }
                context.locked = locked
                context.tabletMode = tabletMode
                daemonContextKnown = true
                contextChanged()
            case "goodbye":
                disconnect(now: now, why: "the daemon is stopping")
            default:
                break
            }
        case .invalid(let why):
            badLines.note(now: now, log) {
                "skipped a line from the daemon: \(why): \(logSafe(String(decoding: line, as: UTF8.self)))"
            }
        }
    }

    // MARK: Bindings

    private mutating func handle(_ event: ReceivedEvent, line: ArraySlice<UInt8>, now: Timestamp) {
        guard options.watchContext == nil else { return }
        if gestures[event.id] == nil && gestures.count >= Self.gestureLimit,
            let oldest = gestures.min(by: { $0.value.since < $1.value.since })?.key
        {
            flushHeld(oldest, now: now)
            gestures[oldest] = nil
        }
        var g =
            gestures[event.id]
            ?? GestureState(start: (event.x, event.y), context: context, output: output(of: event.device), since: now)
        (g.kind, g.fingers, g.device) = (event.gesture, event.fingers, event.device)
        g.tracked = g.tracked || event.tracked
        holdGoesOn(&g, event)
        // A program gets each line once, however many bindings name it, and
        // every line of a gesture it got a line of. A continuous gesture's
        // direction is known at its end only: a pipe binding's `direction`
        // does not hold back the lines before it.
        var piped: [[String]] = []
        for argv in g.piped {
            piped.append(argv)
            pipes.send(line, gesture: event.id, phase: event.phase, to: argv, now: now)
        }
        for (i, b) in bindings.enumerated() where b.acts(in: g.context, contextSettings) && b.acts(onOutput: g.output) {
            if let argv = b.pipe, !piped.contains(argv),
                b.matches(event, start: g.start, direction: event.gesture.isDiscrete)
            {
                piped.append(argv)
                pipes.send(line, gesture: event.id, phase: event.phase, to: argv, now: now)
            }
            guard b.matches(event, start: g.start) else { continue }
            let once: Bool
            if let phase = b.phase {
                once = event.phase == phase
            } else {
                once = event.phase != .changed && event.phase != .cancelled
            }
            if once && !g.fired.contains(i) {
                g.fired.insert(i)
                // A daemon before 1.8 does not say how long the hold lasted:
                // its `began` comes at the default hold.minDuration.
                let held = event.duration ?? 500
                if let ms = b.waitsFor, event.phase == .began, held < Double(ms) {
                    g.waiting[i] = (now + .milliseconds(Double(ms) - held), event)
                } else {
                    fire(i, event, now: now)
                }
            }
            switch event.phase {
            case .began:
                if let c = b.onBegan { start(c, i, event, hook: "on-began", now: now) }
            case .changed:
                guard b.onChanged != nil else { break }
                if let last = g.lastChanged[i], now < last + b.changedInterval {
                    g.heldChanged[i] = event
                } else {
                    g.lastChanged[i] = now
                    g.heldChanged[i] = nil
                    start(b.onChanged!, i, event, hook: "on-changed", now: now)
                }
            case .ended, .cancelled:
                if let held = g.heldChanged.removeValue(forKey: i) {
                    start(b.onChanged!, i, held, hook: "on-changed", now: now)
                }
                if let c = b.onEnded { start(c, i, event, hook: "on-ended", now: now) }
            case .recognized:
                break
            }
        }
        if [.recognized, .ended, .cancelled].contains(event.phase) {
            gestures[event.id] = nil
        } else {
            g.piped = piped
            gestures[event.id] = g
        }
    }

    /// A hold some bindings wait on (`hold-ms`): its latest event is where
    /// they act; it no longer counts if it ends, or moves beyond `holdSlop`
    /// from where it began.
    private func holdGoesOn(_ g: inout GestureState, _ event: ReceivedEvent) {
        guard !g.waiting.isEmpty else { return }
        let moved = ((event.dx ?? 0) * (event.dx ?? 0) + (event.dy ?? 0) * (event.dy ?? 0)).squareRoot()
        if event.phase != .changed || moved > Binding.holdSlop {
            g.waiting.removeAll()
        } else {
            for i in g.waiting.keys { g.waiting[i]?.event = event }
        }
    }

    /// When the next binding waiting on a hold acts.
    private var waitingDeadline: Timestamp {
        gestures.values.reduce(Timestamp.never) { due, g in g.waiting.values.reduce(due) { min($0, $1.due) } }
    }

    /// The bindings whose hold has lasted their `hold-ms` act.
    private mutating func fireWaiting(now: Timestamp) {
        for id in Array(gestures.keys) {
            guard var g = gestures[id], !g.waiting.isEmpty else { continue }
            for (i, w) in g.waiting where now >= w.due {
                g.waiting[i] = nil
                fire(i, w.event, now: now)
            }
            gestures[id] = g
        }
    }

    /// The `cancelled` line act writes to a pipe program for a gesture
    /// whose end the daemon can no longer send (docs: README, `pipe`).
    static func lostEnd(of g: GestureState, id: Int, now: Timestamp) -> [UInt8] {
        var s = #"{"type":"gesture","gesture":"\#(g.kind.rawValue)","phase":"cancelled","id":\#(id),"#
        s += #""time_us":\#(now.microseconds),"device":"# + jsonString(g.device) + #","fingers":\#(g.fingers),"#
        if g.tracked { s += #""completed":false,"# }
        s += #""reason":"act lost the daemon"}"#
        return Array(s.utf8)
    }

    private mutating func fire(_ i: Int, _ event: ReceivedEvent, now: Timestamp) {
        let b = bindings[i]
        if let run = b.run { start(run, i, event, hook: "run", now: now) }
        // The daemon types, and only for the user at the screen (protocol 1.3).
        if let chord = b.keys, allowed(i, now: now) {
            send(#"{"type":"keys","keys":"# + jsonString(chord.text) + "}\n")
        }
        // A click, at the gesture's place in the picture: on a wlroots
        // compositor with act's own virtual pointer on the touchscreen's
        // output, else by the daemon (protocol 1.8), which clicks only for
        // the user at the screen. Never while the session is locked.
        if let button = b.pointer, allowed(i, now: now), let click = PointerClick(button, x: event.x, y: event.y) {
            if context.locked {
                log("\(b.origin): no \(button.rawValue) click while the session at the screen is locked")
            } else if !screen.click(click, onScreenOf: event.device, log: log) {
                send(click.request + "\n")
            }
        }
    }

    /// Whether `b` may fire once more now (its `max-per-second`); a firing
    /// skipped is counted, and said at most once a second.
    private mutating func allowed(_ i: Int, now: Timestamp) -> Bool {
        let b = bindings[i]
        let rate = Double(b.maxPerSecond)
        var budget = budgets[i] ?? Budget(tokens: rate, at: now)
        budget.tokens = min(rate, budget.tokens + rate * (now - budget.at).seconds)
        budget.at = now
        let ok = budget.tokens >= 1
        if ok {
            budget.tokens -= 1
        } else {
            budget.skipped += 1
            if now - budget.saidAt >= .milliseconds(1000) {
                log(
                    "\(b.origin): fired more than \(b.maxPerSecond) times in a second (max-per-second): \(budget.skipped) skipped"
                )
                budget.saidAt = now
                budget.skipped = 0
            }
        }
        budgets[i] = budget
        return ok
    }

    private mutating func start(_ argv: [String], _ i: Int, _ event: ReceivedEvent, hook: String, now: Timestamp) {
        guard allowed(i, now: now) else { return }
        let b = bindings[i]
        runner.start(
            argv, environment: event.environment + ["GESTURED_BINDING=\(b.origin)"],
            label: "\(b.origin) \(hook) (\(argv[0]))", timeout: b.timeout, now: now)
    }

    private var heldChangedDeadline: Timestamp {
        var due = Timestamp.never
        for g in gestures.values {
            for (i, _) in g.heldChanged { due = min(due, (g.lastChanged[i] ?? .zero) + bindings[i].changedInterval) }
        }
        return due
    }

    /// Runs the `on-changed` values held back whose interval has passed.
    private mutating func runHeldChanges(now: Timestamp) {
        for id in Array(gestures.keys) {
            guard var g = gestures[id], !g.heldChanged.isEmpty else { continue }
            for (i, event) in g.heldChanged where now >= (g.lastChanged[i] ?? .zero) + bindings[i].changedInterval {
                g.heldChanged[i] = nil
                g.lastChanged[i] = now
                start(bindings[i].onChanged!, i, event, hook: "on-changed", now: now)
            }
            gestures[id] = g
        }
    }

    private mutating func flushHeld(_ id: Int, now: Timestamp) {
        guard let g = gestures[id] else { return }
        for (i, event) in g.heldChanged { start(bindings[i].onChanged!, i, event, hook: "on-changed", now: now) }
    }

    // MARK: Signals and reloading

    private mutating func readSignals(now: Timestamp) {
        while true {
            let signo = clinux_signalfd_read(signals)
            guard signo > 0 else { return }
            switch signo {
            case SIGHUP: reload(now: now)
            case SIGCHLD: break  // reaped by the runner every turn
            default: running = false
            }
        }
    }

    private mutating func readInotify(now: Timestamp) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(inotify, $0.baseAddress, $0.count) }) > 0 {}
        // Editors write a file in several steps: read it once they are done.
        reloadAt = min(reloadAt, now + .milliseconds(150))
    }

    private func watchFolders() {
        guard inotify >= 0 else { return }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE)
        var folders = Set(
            watchedFiles.map { path -> String in
                guard let slash = path.lastIndex(of: "/") else { return "." }
                return slash == path.startIndex ? "/" : String(path[..<slash])
            })
        if options.files.isEmpty {
            let base = ActionsFiles.defaultFolder()
            folders.insert(base)
            folders.insert(base + "/actions.d")
        }
        for folder in folders { _ = inotify_add_watch(inotify, folder, mask) }
    }

    private mutating func reload(now: Timestamp) {
        do {
            let loaded = try ActionsFiles.load(options.files)
            reloadError = nil
            for message in loaded.skipped { log(message) }
            screen.settings = loaded.screen
            guard loaded.bindings != bindings || loaded.context != contextSettings else { return }
            bindings = loaded.bindings
            pipes.follow(bindings)
            contextSettings = loaded.context
            watchedFiles = loaded.files
            budgets.removeAll()
            watchFolders()
            log("reloaded: \(bindings.count) binding(s) from \(loaded.files.joined(separator: ", "))")
            leftToApp = context.leftToApp(contextSettings)
            if socket >= 0 && options.watchContext == nil {
                gestures.removeAll()
                let claims = currentClaims
                sentClaims = claims
                send(Self.subscribeLine(for: bindings, claims: claims))
            }
            contextChanged()
        } catch {
            // An editor's one save can touch the folder several times: the
            // same mistakes are said once.
            let said = "\(error)"
            guard said != reloadError else { return }
            reloadError = said
            log("\(said); keeping the previous bindings")
        }
    }
}

/// Where the bindings are read from.
package enum ActionsFiles {
    /// `$XDG_CONFIG_HOME/gestured`, else `~/.config/gestured`.
    package static func defaultFolder() -> String {
        if let x = getenv("XDG_CONFIG_HOME").map({ String(cString: $0) }), !x.isEmpty { return x + "/gestured" }
        let home = getenv("HOME").map { String(cString: $0) } ?? ""
        return home + "/.config/gestured"
    }

    /// `actions.toml` of the default folder, then its `actions.d/*.toml` in name order.
    package static func defaultPaths() -> [String] {
        let base = defaultFolder()
        let main = fileExists(base + "/actions.toml") ? [base + "/actions.toml"] : []
        return main + listDirectory(base + "/actions.d", suffix: ".toml").map { base + "/actions.d/" + $0 }
    }

    /// What the actions files say together.
    package struct Loaded {
        /// The files read, in order.
        package var files: [String] = []
        /// Every binding, in the files' order.
        package var bindings: [Binding] = []
        /// Why each file left out was (`problem`).
        package var skipped: [String] = []
        /// The last file's `[screen]` and `[context]` that has one.
        package var screen = ScreenSettings()
        package var context = ContextSettings()
    }

    /// Reads `explicit` (or the default files) in order.
    package static func load(_ explicit: [String]) throws(ConfigurationError) -> Loaded {
        let candidates = explicit.isEmpty ? defaultPaths() : explicit
        var loaded = Loaded()
        for file in candidates {
            if let why = problem(file) {
                loaded.skipped.append("\(logSafe(file)): skipped: \(why)")
                continue
            }
            let bytes: [UInt8]
            do {
                bytes = try readFileBytes(file, limit: configurationFileLimit)
            } catch {
                throw ConfigurationError(file: file, line: 0, message: error.reason)
            }
            let read = try BindingsReader.readFile(bytes: bytes, file: file)
            loaded.bindings += read.bindings
            if let s = read.screen { loaded.screen = s }
            if let c = read.context { loaded.context = c }
            loaded.files.append(file)
        }
        guard !loaded.files.isEmpty else {
            throw ConfigurationError(
                file: candidates.first ?? defaultFolder() + "/actions.toml", line: 0,
                message: (loaded.skipped.isEmpty ? "" : loaded.skipped.joined(separator: "; ") + "; ")
                    + "no bindings: write this file (README, \"Binding gestures\"), or pass --config FILE")
        }
        return loaded
    }

    /// Why an actions file is not read: it runs commands as the user, so
    /// it must be a regular file that belongs to the user (or root) and
    /// that nobody else may write, in a folder nobody else may write (or
    /// with the sticky bit). nil when it is fine; a missing file is for
    /// the reader to report.
    static func problem(_ path: String, owner: uid_t = geteuid()) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        guard st.st_mode & S_IFMT == S_IFREG else {
            return st.st_mode & S_IFMT == S_IFDIR
                ? "it is a directory" : "it is not a regular file (a pipe, a device or a socket)"
        }
        guard st.st_uid == owner || st.st_uid == 0 else {
            return "it belongs to uid \(st.st_uid), not to you or root: someone else's commands would run as you"
        }
        guard st.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            return "others may write it (mode 0\(String(st.st_mode & 0o777, radix: 8))); chmod go-w it"
        }
        var folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if folder.isEmpty { folder = path.hasPrefix("/") ? "/" : "." }
        guard stat(folder, &st) == 0 else { return nil }
        if st.st_mode & (S_IWGRP | S_IWOTH) != 0 && st.st_mode & S_ISVTX == 0 {
            return "others may write its folder \(folder) (mode 0\(String(st.st_mode & 0o7777, radix: 8))) and could replace it"
        }
        return nil
    }
}
