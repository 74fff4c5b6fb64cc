package import BusSupport
package import GestureCore

/// A watcher of the daemon's (`SeatWatcher`, `SensorWatcher`): a system
/// bus connection (`BusConnection`) whose findings are a state the loop
/// takes when it changes.
package class BusWatcher<State: Equatable & Sendable>: BusConnection {
    package private(set) var state: State
    /// The state changed since the last `takeChange`.
    var changed = false
    /// The state that says the bus or the service failed, and why.
    private let unavailable: (String) -> State

    /// Connects to the system bus; without one the state is `unavailable`.
    init(service: String, _ initial: State, unavailable: @escaping (String) -> State) {
        state = initial
        self.unavailable = unavailable
        super.init(service: service, on: .system)
    }

    override package func failed(_ why: String) { set(unavailable(why)) }

    /// The state, if it changed since the last call.
    package func takeChange() -> State? {
        guard changed else { return nil }
        changed = false
        return state
    }

    func set(_ new: State) {
        if new != state {
            state = new
            changed = true
        }
    }

    /// When the loop must call `process(now:)` even if nothing arrives.
    package var deadline: Timestamp { busDeadline }

    /// Reads what the bus has and does what is due by `now`.
    package func process(now: Timestamp) { behind = process() }

    /// The last `process` stopped at its budget: messages wait unread.
    package internal(set) var behind = false

    /// The daemon is in use now (a frame came, a client was answered), for
    /// a watcher that asks more often then.
    package func inUse(now: Timestamp) {}
}
