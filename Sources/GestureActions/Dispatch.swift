import GestureCore
import GestureProtocol
import ToolSupport

/// Gesture events to bindings: which bindings act on each event, what each
/// does (`Action`), and what one gesture under way has done so far. Its
/// timer (a held-back `on-changed`) makes it a source of act's loop without
/// a descriptor. A binding with a `hold-ms` acts on the hold's event that
/// says it lasted that long still (`held_ms`): the daemon counts the time
/// and judges the stillness, with its own `slop`, as it does for the claim
/// on the same hold, so the click and the claim cannot disagree.
///
/// Whether a binding may act is decided when the gesture begins (its
/// context: the focused app, tablet mode), and the lock is checked again
/// each time it would act: once the session at the screen is known to be
/// locked, nothing runs, types or clicks but for `when = { locked = true }`
/// bindings, and a pipe program that got the gesture's start gets a
/// `cancelled` end instead of the rest.
final class Dispatch: ActSource {
    /// The most gestures followed at once (a gesture is followed from its
    /// first event to its last); beyond it the oldest is forgotten.
    static let gestureLimit = 64

    /// What one gesture under way has done so far.
    struct GestureState {
        var start: (x: Double, y: Double)
        /// The context it began in: the bindings that may act on it are
        /// decided then, for the whole gesture (but for the lock).
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
        /// What its end must say if act has to make one up.
        var kind: GestureKind = .drag
        var fingers = 1
        var device = ""
        var tracked = false
    }

    /// How often each binding may still fire (`max-per-second`), and what was skipped.
    private struct Budget {
        var bucket: RateBucket
        var skipped = 0
        var saidAt = Timestamp(microseconds: .min / 2)
    }

    private(set) var bindings: [Binding] = []
    private var settings = ContextSettings()
    /// The context now: the lock is checked against it whenever a binding would act.
    var context = Binding.Context()
    private var gestures: [Int: GestureState] = [:]
    private var budgets: [Int: Budget] = [:]
    private let log: (String) -> Void
    /// A binding refused for the lock, said once per gesture.
    private var saidLocked: Set<Int> = []

    init(log: @escaping (String) -> Void) { self.log = log }

    /// New bindings (a reload): what was under way is forgotten, and the budgets.
    func use(_ bindings: [Binding], _ settings: ContextSettings) {
        self.bindings = bindings
        self.settings = settings
        gestures.removeAll()
        budgets.removeAll()
    }

    // MARK: The loop's source

    var deadline: Timestamp {
        var due = Timestamp.never
        for g in gestures.values {
            for (i, _) in g.heldChanged { due = min(due, (g.lastChanged[i] ?? .zero) + bindings[i].changedInterval) }
        }
        return due
    }

    func prepare(_ poller: inout Poller, now: Timestamp, into news: inout [ActNews]) {}

    func serve(_ poller: Poller, now: Timestamp, into news: inout [ActNews]) {
        guard now >= deadline else { return }
        var actions: [Action] = []
        for id in Array(gestures.keys) {
            guard var g = gestures[id] else { continue }
            // `on-changed` values held back whose interval has passed.
            for (i, event) in g.heldChanged where now >= (g.lastChanged[i] ?? .zero) + bindings[i].changedInterval {
                g.heldChanged[i] = nil
                g.lastChanged[i] = now
                start(bindings[i].onChanged!, i, event, hook: "on-changed", now: now, into: &actions)
            }
            gestures[id] = g
        }
        news += actions.map(ActNews.act)
    }

    func close() {}

    // MARK: Events

    /// What the bindings do for `event` (its line as the daemon sent it,
    /// for pipes), on a touchscreen that shows on `output`.
    func handle(_ event: ReceivedEvent, line: [UInt8], output: String?, now: Timestamp) -> [Action] {
        var actions: [Action] = []
        if gestures[event.id] == nil && gestures.count >= Self.gestureLimit,
            let oldest = gestures.min(by: { $0.value.since < $1.value.since })?.key
        {
            flushHeld(oldest, now: now, into: &actions)
            gestures[oldest] = nil
        }
        var g =
            gestures[event.id]
            ?? GestureState(start: (event.x, event.y), context: context, output: output, since: now)
        (g.kind, g.fingers, g.device) = (event.gesture, event.fingers, event.device)
        g.tracked = g.tracked || event.tracked
        // A program gets each line once, however many bindings name it, and
        // every line of a gesture it got a line of. A continuous gesture's
        // direction is known at its end only: a pipe binding's `direction`
        // does not hold back the lines before it.
        var piped: [[String]] = []
        for argv in g.piped {
            piped.append(argv)
            actions.append(.pipe(line: line, gesture: event.id, phase: event.phase, argv: argv))
        }
        for (i, b) in bindings.enumerated() where b.acts(in: g.context, settings) && b.acts(onOutput: g.output) {
            let newPipe = b.pipe.flatMap { argv in
                !piped.contains(argv) && b.matches(event, start: g.start, direction: event.gesture.isDiscrete)
                    ? argv : nil
            }
            let matches = b.matches(event, start: g.start)
            guard newPipe != nil || matches, mayActNow(i, gesture: event.id) else { continue }
            if let argv = newPipe {
                piped.append(argv)
                actions.append(.pipe(line: line, gesture: event.id, phase: event.phase, argv: argv))
            }
            guard matches else { continue }
            let once: Bool
            if let ms = b.waitsFor {
                // The hold's event that says it lasted `hold-ms` still.
                once = (event.phase == .began || event.phase == .changed) && (event.heldMs ?? -1) >= ms
            } else if let phase = b.phase {
                once = event.phase == phase
            } else {
                once = event.phase != .changed && event.phase != .cancelled
            }
            if once && !g.fired.contains(i) {
                g.fired.insert(i)
                fire(i, event, now: now, into: &actions)
            }
            switch event.phase {
            case .began:
                if let c = b.onBegan { start(c, i, event, hook: "on-began", now: now, into: &actions) }
            case .changed:
                guard b.onChanged != nil else { break }
                if let last = g.lastChanged[i], now < last + b.changedInterval {
                    g.heldChanged[i] = event
                } else {
                    g.lastChanged[i] = now
                    g.heldChanged[i] = nil
                    start(b.onChanged!, i, event, hook: "on-changed", now: now, into: &actions)
                }
            case .ended, .cancelled:
                if let held = g.heldChanged.removeValue(forKey: i) {
                    start(b.onChanged!, i, held, hook: "on-changed", now: now, into: &actions)
                }
                if let c = b.onEnded { start(c, i, event, hook: "on-ended", now: now, into: &actions) }
            case .recognized:
                break
            }
        }
        if [.recognized, .ended, .cancelled].contains(event.phase) {
            gestures[event.id] = nil
            saidLocked.remove(event.id)
        } else {
            g.piped = piped
            gestures[event.id] = g
        }
        return actions
    }

    /// act lost the daemon: the gestures under way end with the connection.
    /// Their held-back values go now, and the pipe programs that got their
    /// start get a `cancelled` end, so that none waits for an end that cannot come.
    func lost(now: Timestamp) -> [Action] {
        var actions: [Action] = []
        for id in gestures.keys.sorted() {
            flushHeld(id, now: now, into: &actions)
            guard let g = gestures[id], !g.piped.isEmpty else { continue }
            let line = Self.madeUpEnd(of: g, id: id, now: now, reason: "act lost the daemon")
            for argv in g.piped { actions.append(.pipe(line: line, gesture: id, phase: .cancelled, argv: argv)) }
        }
        gestures.removeAll()
        saidLocked.removeAll()
        return actions
    }

    /// The session at the screen locked: the pipe programs of bindings that
    /// do not act while it is locked get a `cancelled` end of the gestures
    /// they were fed, and no more of them; what is held back or waits for
    /// them is dropped.
    func locked(now: Timestamp) -> [Action] {
        var actions: [Action] = []
        for id in gestures.keys.sorted() {
            guard var g = gestures[id] else { continue }
            g.heldChanged = g.heldChanged.filter { bindings[$0.key].whenLocked }
            let kept = Set(bindings.filter(\.whenLocked).compactMap(\.pipe))
            let line = Self.madeUpEnd(of: g, id: id, now: now, reason: "the session at the screen locked")
            for argv in g.piped where !kept.contains(argv) {
                actions.append(.pipe(line: line, gesture: id, phase: .cancelled, argv: argv))
            }
            g.piped = g.piped.filter(kept.contains)
            gestures[id] = g
        }
        return actions
    }

    /// The `cancelled` line act writes to a pipe program for a gesture
    /// whose end will not come to it (README, `pipe`).
    static func madeUpEnd(of g: GestureState, id: Int, now: Timestamp, reason: String) -> [UInt8] {
        var s = #"{"type":"gesture","gesture":"\#(g.kind.rawValue)","phase":"cancelled","id":\#(id),"#
        s += #""time_us":\#(now.microseconds),"device":"# + jsonString(g.device) + #","fingers":\#(g.fingers),"#
        if g.tracked { s += #""completed":false,"# }
        s += #""reason":"# + jsonString(reason) + "}"
        return Array(s.utf8)
    }

    // MARK: Acting

    /// Whether binding `i` may act now: not while the session at the
    /// screen is locked, unless it is for the lock screen. Said once per
    /// gesture it is kept from.
    private func mayActNow(_ i: Int, gesture id: Int) -> Bool {
        guard context.locked && !bindings[i].whenLocked else { return true }
        if saidLocked.insert(id).inserted {
            log("\(bindings[i].origin): not acting on gesture \(id): the session at the screen is locked")
        }
        return false
    }

    private func fire(_ i: Int, _ event: ReceivedEvent, now: Timestamp, into actions: inout [Action]) {
        guard mayActNow(i, gesture: event.id) else { return }
        let b = bindings[i]
        if let run = b.run { start(run, i, event, hook: "run", now: now, into: &actions) }
        // The daemon types, and only for the user at the screen (protocol 1.3).
        if let chord = b.keys, allowed(i, now: now) { actions.append(.keys(chord)) }
        // A click, at the gesture's place in the picture.
        if let button = b.pointer, allowed(i, now: now), let click = PointerClick(button, x: event.x, y: event.y) {
            actions.append(.click(click, device: event.device))
        }
    }

    private func start(
        _ argv: [String], _ i: Int, _ event: ReceivedEvent, hook: String, now: Timestamp, into actions: inout [Action]
    ) {
        guard mayActNow(i, gesture: event.id), allowed(i, now: now) else { return }
        let b = bindings[i]
        actions.append(
            .run(
                argv: argv, environment: event.environment + ["GESTURED_BINDING=\(b.origin)"],
                label: "\(b.origin) \(hook) (\(argv[0]))", timeout: b.timeout))
    }

    /// Whether binding `i` may fire once more now (its `max-per-second`);
    /// a firing skipped is counted, and said at most once a second.
    private func allowed(_ i: Int, now: Timestamp) -> Bool {
        let b = bindings[i]
        var budget = budgets[i] ?? Budget(bucket: RateBucket(perSecond: b.maxPerSecond))
        let ok = budget.bucket.take(now: now)
        if !ok {
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

    private func flushHeld(_ id: Int, now: Timestamp, into actions: inout [Action]) {
        guard let g = gestures[id] else { return }
        for (i, event) in g.heldChanged {
            start(bindings[i].onChanged!, i, event, hook: "on-changed", now: now, into: &actions)
        }
    }
}
