import GestureCore
import GestureProtocol
import SystemPackage
package import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `gestured act`: subscribes to the daemon and carries out the bindings.
///
/// The wiring of one loop, like the daemon's: each source (the signals,
/// the actions files, the daemon link, the Wayland session, the focus, the
/// on-screen keyboard, the dispatch's timers, the commands, the pipe
/// programs; `ActSource`) owns its descriptors and deadline, and a turn
/// asks each in order what it waits on, waits, then lets each serve what
/// is ready. What they report (`ActNews`) goes forward here: a gesture
/// event to the dispatch, which says what its bindings do (`Action`);
/// that to the runner, the pipes, the daemon (keys, clicks) or act's own
/// pointer; a change of context to the claim plan, which the link sends.
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

    private let options: Options
    private let log: (String) -> Void
    private let signals = Signals()
    private let files: ActionsWatcher
    private let link: DaemonLink
    private let wayland: WaylandSession
    private let focus: FocusFollower
    private let keyboard: KeyboardFollower
    private let dispatch: Dispatch
    private let runner: Runner
    private let pipes: Pipes
    /// Every source, in the order a turn asks them.
    private let sources: [any ActSource]

    /// What the actions files say now.
    private var loaded: ActionsFiles.Loaded
    /// What the gestures happen in: the daemon's `context` (while the
    /// session at the screen is locked only `when = { locked = true }`
    /// bindings act; `when.tablet-mode` follows the switch) and the focused window.
    private var context = Binding.Context()
    /// Whether the daemon said the lock and tablet mode on this connection.
    private var daemonContextKnown = false
    /// The touchscreens, and what the daemon was told of their outputs' turns.
    private var screen = ScreenFollower()
    private var pointer = CompositorPointer()
    /// The claims sent on this connection.
    private var claims = ClaimPlan()
    /// What act last said of the compositor and touch cancels.
    private var saidTouchCancel: TouchCancel.Decision?
    /// Whether the focused app was one of `leave-to-apps`, to say when that changes.
    private var leftToApp = false
    /// The outputs' turns were said for this connection to the compositor.
    private var saidOutputs = false
    /// What the daemon said it cannot make: all it knows of (`hello`), and
    /// of what act's subscription asks for (`subscribed`, fresher for those).
    private var daemonCannot = (hello: [String: String](), subscribed: [String: String]())
    /// What act said of it, output → why, to say each change once.
    private var saidCannot: [String: String] = [:]
    /// The last line `--context` printed.
    private var saidContext = ""
    private var running = true

    package init(options: Options, log: @escaping (String) -> Void) throws(ConfigurationError) {
        self.options = options
        self.log = log
        var loaded = ActionsFiles.Loaded()
        do {
            loaded = try ActionsFiles.load(options.files)
        } catch  where options.watchContext != nil {
            // Watching needs no bindings: what is wrong with them is said, and watching goes on.
            log("\(error)")
        }
        for message in loaded.skipped { log(message) }
        if options.watchContext != nil { loaded.screen.followRotation = false }
        self.loaded = loaded
        let environment = Self.environment()
        files = ActionsWatcher(explicit: options.files, loaded: loaded, log: log)
        link = DaemonLink(path: options.socketPath, log: log)
        wayland = WaylandSession(display: environment["WAYLAND_DISPLAY"], log: log)
        focus = FocusFollower(kind: FocusFollower.kind(environment: environment), session: wayland, log: log)
        keyboard = KeyboardFollower(log: log)
        dispatch = Dispatch(log: log)
        runner = Runner(limit: options.maxRunning, log: log)
        pipes = Pipes(log: log)
        sources = [signals, files, link, wayland, focus, keyboard, dispatch, runner, pipes]
        screen.settings = loaded.screen
        use(loaded)
        if let say = options.watchContext {
            say("the focused window: \(focus.origin)")
            say("the on-screen keyboard: from \(KeyboardFollower.origin)")
            say("the lock and tablet mode: from the daemon at \(options.socketPath)")
            say(
                "\(loaded.bindings.count) binding(s) from \(loaded.files.isEmpty ? "no file" : loaded.files.joined(separator: ", "))"
            )
        } else {
            if focus.source == nil, loaded.bindings.contains(where: \.needsFocus) || !loaded.context.leaveToApps.isEmpty {
                log(FocusFollower.unknownHere)
            }
            if loaded.screen.followRotation && !wayland.isWayland {
                log("no WAYLAND_DISPLAY: not following how the screen is turned (the daemon keeps its own orientation)")
            }
        }
    }

    static func environment() -> [String: String] {
        var env: [String: String] = [:]
        for name in ["SWAYSOCK", "I3SOCK", "WAYLAND_DISPLAY", "DISPLAY", "XDG_CURRENT_DESKTOP", "XDG_RUNTIME_DIR"] {
            if let v = getenv(name) { env[name] = String(cString: v) }
        }
        return env
    }

    /// The bindings the dispatch and the pipes follow, and what needs the compositor.
    private mutating func use(_ l: ActionsFiles.Loaded) {
        dispatch.use(l.bindings, l.context)
        if options.watchContext == nil { pipes.follow(l.bindings) }
        // The compositor's name tells whether it passes touch cancels on (`TouchCancel`).
        let claims = l.bindings.contains { !$0.claims.isEmpty }
        wayland.wanted = l.screen.followRotation || focus.kind == .wayland || wantsPointer || claims
        // A binding that clicks, read again while the compositor is there: its pointer now, not at its first click.
        pointer.prepare(wayland, wanted: wantsPointer)
        keyboard.wanted = options.watchContext != nil || l.bindings.contains { $0.whenKeyboard != nil }
    }

    private var wantsPointer: Bool { options.watchContext == nil && loaded.bindings.contains { $0.pointer != nil } }

    /// Serves until SIGTERM or SIGINT; the exit status.
    package mutating func run() -> Int32 {
        let clock = LoopClock.monotonic
        var poller = Poller()
        var news: [ActNews] = []
        var now = clock.now
        contextChanged(now: now, into: &news)
        while running {
            poller.reset()
            for s in sources { s.prepare(&poller, now: now, into: &news) }
            follow(&news, now: now)
            let deadline = sources.reduce(Timestamp.never) { min($0, $1.deadline) }
            now = poller.wait(until: deadline, clock: clock).now
            for s in sources { s.serve(poller, now: now, into: &news) }
            follow(&news, now: now)
        }
        for s in sources.reversed() { s.close() }
        return 0
    }

    // MARK: What the sources said

    /// Hands each piece of news on, in order, and what that gives after it.
    private mutating func follow(_ news: inout [ActNews], now: Timestamp) {
        var i = 0
        while i < news.count {
            let n = news[i]
            i += 1
            switch n {
            case .stop: running = false
            case .reload: files.reload(into: &news)
            case .bindings(let l): reloaded(l, now: now, into: &news)
            case .daemon(let d): daemon(d, now: now, into: &news)
            case .focusChanged, .keyboardChanged: contextChanged(now: now, into: &news)
            case .outputsChanged: outputsChanged(now: now, into: &news)
            case .childEnded(let pid, let status): pipes.ended(pid, status: status, now: now)
            case .act(let a): perform(a, now: now, into: &news)
            }
        }
        news.removeAll(keepingCapacity: true)
    }

    private mutating func daemon(_ d: DaemonNews, now: Timestamp, into news: inout [ActNews]) {
        switch d {
        case .connected:
            claims = currentClaims
            link.subscribe(subscription, now: now, into: &news)
        case .subscribed:
            let claiming = claims.isEmpty ? "" : ", claiming \(claims.summary)"
            log("connected to \(options.socketPath): \(loaded.bindings.count) binding(s)\(claiming)")
        case .touchscreens(let t):
            screen.daemonConnected(t)
            tellOrientations(now: now, into: &news)
            contextChanged(now: now, into: &news)
        case .added(let t):
            for s in t { screen.added(s) }
            tellOrientations(now: now, into: &news)
            contextChanged(now: now, into: &news)
        case .removed(let t):
            for s in t { screen.removed(node: s.node) }
            contextChanged(now: now, into: &news)
        case .context(let locked, let tabletMode):
            if locked != context.locked {
                let some = loaded.bindings.contains { $0.whenLocked }
                log(
                    locked
                        ? "the session at the screen is locked: "
                            + (some ? "only bindings with when = { locked = true } act" : "no binding acts")
                        : "the session at the screen is unlocked: bindings act")
            }
            if tabletMode != context.tabletMode { log("tablet mode: \(tabletMode ? "on" : "off")") }
            let locking = locked && !context.locked
            context.locked = locked
            context.tabletMode = tabletMode
            daemonContextKnown = true
            contextChanged(now: now, into: &news)
            if locking { for a in dispatch.locked(now: now) { perform(a, now: now, into: &news) } }
        case .event(let event, let line):
            guard options.watchContext == nil else { return }
            let output = screen.outputName(ofDevice: event.device, in: wayland.outputs)
            for a in dispatch.handle(event, line: line, output: output, now: now) { perform(a, now: now, into: &news) }
        case .unavailable(let cannot, let hello):
            if hello { daemonCannot = (cannot, [:]) } else { daemonCannot.subscribed = cannot }
            sayUndeliverable()
            contextChanged(now: now, into: &news)
        case .lost:
            for a in dispatch.lost(now: now) { perform(a, now: now, into: &news) }
            // The next connection's `context` says again.
            context.locked = false
            context.tabletMode = false
            daemonContextKnown = false
            contextChanged(now: now, into: &news)
        }
    }

    /// Carries out what a binding does.
    private mutating func perform(_ action: Action, now: Timestamp, into news: inout [ActNews]) {
        switch action {
        case .run(let argv, let environment, let label, let timeout):
            runner.start(argv, environment: environment, label: label, timeout: timeout, now: now)
        case .keys(let chord):
            // The daemon types, and only for the user at the screen (protocol 1.3).
            link.send(#"{"type":"keys","keys":"# + jsonString(chord.text) + "}\n", now: now, into: &news)
        case .click(let click, let device):
            // On a wlroots compositor with act's own pointer on the
            // touchscreen's output, else by the daemon (protocol 1.8).
            let output = screen.outputIndex(ofDevice: device, in: wayland.outputs)
            if !pointer.click(click, onOutput: output, wayland, log: log) {
                link.send(click.request + "\n", now: now, into: &news)
            }
        case .pipe(let line, let gesture, let phase, let argv):
            pipes.send(line, gesture: gesture, phase: phase, to: argv, now: now)
        }
    }

    /// The actions files changed: the new bindings from now on.
    private mutating func reloaded(_ l: ActionsFiles.Loaded, now: Timestamp, into news: inout [ActNews]) {
        let changed = l.bindings != loaded.bindings || l.context != loaded.context
        loaded = l
        if options.watchContext != nil { loaded.screen.followRotation = false }
        screen.settings = loaded.screen
        use(loaded)
        guard changed else { return }
        log("reloaded: \(loaded.bindings.count) binding(s) from \(loaded.files.joined(separator: ", "))")
        leftToApp = context.leftToApp(loaded.context)
        if options.watchContext == nil {
            claims = currentClaims
            link.subscribe(subscription, now: now, into: &news)
        }
        contextChanged(now: now, into: &news)
    }

    // MARK: The context and the claims

    /// What act subscribes to on a connection.
    private var subscription: String {
        options.watchContext == nil
            ? Subscription.line(for: loaded.bindings, claims: claims, shapes: loaded.shapes) : Subscription.watchLine
    }

    private var currentClaims: ClaimPlan {
        let outputs = wayland.outputs
        return ClaimPlan(
            loaded.bindings, in: context, loaded.context,
            screens: screen.touchscreens.map { ($0.node, screen.outputName(of: $0, in: outputs)) },
            clicks: cannot("pointer") == nil || pointer.available(wayland), cancelDropped: touchCancel.dropped)
    }

    /// The compositor of the session, as far as act can tell: sway's
    /// version from its IPC, the name of the process serving the Wayland
    /// socket. On sway, nothing while its IPC is connected and has not
    /// answered yet, so that no guess is sent meanwhile.
    private var compositor: TouchCancel.Compositor? {
        if case .sway = focus.kind {
            if let v = focus.compositorVersion { return TouchCancel.Compositor(name: "sway", version: v) }
            guard !focus.awaitsVersion else { return nil }
        }
        guard wayland.isConnected, let name = wayland.peerName else { return nil }
        return TouchCancel.Compositor(name: name, version: name == "sway" ? focus.compositorVersion : nil)
    }

    /// Whether the compositor drops touch cancels, and why act thinks so.
    private var touchCancel: TouchCancel.Decision { loaded.context.touchCancel.decide(for: compositor) }

    // MARK: What cannot be delivered

    /// Why the daemon cannot make `output` (`keyboard`, `pointer`,
    /// `touchpad`), as it last said: its `subscribed` for what act's
    /// subscription asks for, its `hello` for the rest; nil: it can, or did not say.
    private func cannot(_ output: String) -> String? {
        let asked: Bool
        switch output {
        case "keyboard": asked = options.watchContext == nil && loaded.bindings.contains { $0.keys != nil }
        case "pointer": asked = wantsPointer
        default: asked = options.watchContext == nil && !claims.everywhere.touchpad.isEmpty
        }
        return asked ? daemonCannot.subscribed[output] : daemonCannot.hello[output]
    }

    /// What the bindings lose for an output the daemon cannot make: said
    /// when it changes, with the daemon's why (which says how to grant it).
    /// Nothing of that output is claimed meanwhile (`currentClaims`; the
    /// daemon leaves a touchpad claim's sequences to the apps itself).
    private mutating func sayUndeliverable() {
        guard options.watchContext == nil else { return }
        let now = undeliverable
        for output in ["keyboard", "pointer", "touchpad"] {
            let n = now.first { $0.output == output }
            guard n?.why != saidCannot[output] else { continue }
            if let n {
                log("the daemon cannot make its \(output): \(n.why); \(n.loss)")
            } else {
                log("the daemon has its \(output) now")
            }
            saidCannot[output] = n?.why
        }
    }

    /// The outputs some binding needs that cannot be had, the daemon's why,
    /// and what the bindings lose for it.
    private var undeliverable: [(output: String, why: String, loss: String)] {
        let b = loaded.bindings
        let needs: [(output: String, bound: Bool, loss: String)] = [
            ("keyboard", b.contains { $0.keys != nil }, "bindings with keys type nothing"),
            (
                "pointer", b.contains { $0.pointer != nil } && !pointer.available(wayland),
                "the compositor offers act no pointer of its own either (wlr-virtual-pointer): the gestures bound to a click are not claimed, and the app keeps its long press or tap"
            ),
            (
                "touchpad", b.contains { $0.touchpad },
                "the gestures of touchpad = true bindings are not claimed, and reach the apps whole"
            ),
        ]
        return needs.compactMap { n in n.bound ? cannot(n.output).map { (n.output, $0, n.loss) } : nil }
    }

    /// The focused window or the daemon's context changed: the claims
    /// follow, and a change of them is said and sent (touches already down
    /// keep the decision they began with: the daemon's claimer changes
    /// between touch sequences).
    private mutating func contextChanged(now: Timestamp, into news: inout [ActNews]) {
        context.focus = focus.focus
        context.focusKnown = focus.known
        context.keyboardShown = keyboard.shown
        context.keyboardKnown = keyboard.known
        dispatch.context = context
        if let say = options.watchContext {
            let line = ContextReport.line(
                context, daemonContextKnown: daemonContextKnown, bindings: loaded.bindings, loaded.context,
                claims: currentClaims, cannot: undeliverable.map(\.output), touchCancel: touchCancel)
            if line != saidContext { say(line) }
            saidContext = line
            return
        }
        let left = context.leftToApp(loaded.context)
        if left != leftToApp {
            leftToApp = left
            log(
                left
                    ? "\(logSafe(context.focus?.app ?? "")) has the focus: its touches are left to it (leave-to-apps); claiming nothing"
                    : "the app that kept its touches lost the focus")
        }
        let plan = currentClaims
        let cancel = touchCancel
        if !plan.isEmpty && cancel.known && cancel != saidTouchCancel {
            log("touch cancels: \(cancel.why)")
            saidTouchCancel = cancel
        }
        guard link.isConnected, plan != claims else { return }
        claims = plan
        log("claiming \(plan.isEmpty ? "nothing on claimed touchscreens" : plan.summary) now")
        link.subscribe(subscription, now: now, into: &news)
    }

    /// An output came, went or turned: the daemon is told how, act's
    /// pointers follow the outputs, and the claims of `when.output`
    /// bindings follow the touchscreens' outputs.
    private mutating func outputsChanged(now: Timestamp, into news: inout [ActNews]) {
        if wayland.isConnected {
            if loaded.screen.followRotation && !saidOutputs {
                let outputs = wayland.outputs.map { "\($0.name.isEmpty ? "?" : $0.name) \($0.transform.name)" }
                log("following how the compositor turns its outputs: \(outputs.joined(separator: ", "))")
                saidOutputs = true
            }
            pointer.prepare(wayland, wanted: wantsPointer)
        } else {
            saidOutputs = false
            screen.compositorLost()
        }
        sayUndeliverable()
        tellOrientations(now: now, into: &news)
        contextChanged(now: now, into: &news)
    }

    /// Tells the daemon how the outputs of its touchscreens are turned, where it has not been told.
    private mutating func tellOrientations(now: Timestamp, into news: inout [ActNews]) {
        guard link.isConnected else { return }
        for line in screen.requests(wayland.outputs, log: log) { link.send(line, now: now, into: &news) }
    }
}
