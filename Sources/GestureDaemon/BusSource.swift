import BusSupport
import GestureCore

/// A bus watcher (`SeatWatcher`, `SensorWatcher`) as a source of the loop:
/// its connection's descriptor under its own token, watched for output
/// only while sd-bus has something to write, and its deadline (a call's
/// timeout, a retry).
struct BusSource<State: Equatable & Sendable> {
    private(set) var watcher: BusWatcher<State>?
    private var token: Readiness.Token?
    private var watchedForOutput = false
    private let owner: Readiness.Owner

    init(owner: Readiness.Owner) { self.owner = owner }

    var deadline: Timestamp { watcher?.deadline ?? .never }
    var tokens: [Readiness.Token] { token.map { [$0] } ?? [] }

    /// Follows `w` from now on.
    mutating func start(_ w: BusWatcher<State>, loop: Readiness) throws(SetupError) {
        if w.fd >= 0 {
            watchedForOutput = w.wantsOutput
            token = try loop.watch(w.fd, "the system bus", owner: owner, output: watchedForOutput)
        }
        watcher = w
    }

    /// Stops following the watcher and closes its connection.
    mutating func stop(loop: Readiness) {
        if let w = watcher {
            if w.fd >= 0 { loop.remove(w.fd) }
            w.close()
        }
        watcher = nil
        token = nil
    }

    /// Whether the watcher has something to do this turn: its descriptor is
    /// ready or its deadline came.
    func isDue(_ loop: Readiness, now: Timestamp) -> Bool {
        guard watcher != nil else { return false }
        return now >= deadline || (token.map { loop.events($0) != 0 } ?? false)
    }

    /// The last turn left its service's messages unread.
    var behind: Bool { watcher?.behind ?? false }

    /// The daemon is in use now (see `BusConnection.inUse`).
    func inUse(now: Timestamp) { watcher?.inUse(now: now) }

    /// Lets the watcher read and write; its new state, if it changed.
    mutating func follow(_ loop: Readiness, now: Timestamp) -> State? {
        guard let w = watcher else { return nil }
        w.process(now: now)
        if let token, w.fd >= 0, w.wantsOutput != watchedForOutput {
            watchedForOutput = w.wantsOutput
            loop.change(w.fd, Readiness.input | (watchedForOutput ? Readiness.output : 0), token: token)
        }
        return w.takeChange()
    }
}
