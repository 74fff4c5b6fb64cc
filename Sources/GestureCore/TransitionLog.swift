/// One state machine transition: `old → event → new`.
public struct Transition: Sendable, Hashable, CustomStringConvertible {
    public enum Machine: String, Sendable, Hashable {
        case touchGroup = "touch-group"
        case tapSequence = "tap-sequence"
        case claimer
    }
    public var machine: Machine
    public var from: String
    public var event: String
    public var to: String
    public var time: Timestamp
    public var description: String { "\(time) \(machine.rawValue): \(from) → \(event) → \(to)" }
}

/// Collects transitions when tracing is on, and impossible state/event pairs always.
///
/// Recording allocates, so tracing is for tests and `replay --transitions`;
/// the anomaly list stays empty unless the machines meet a pair they were
/// not written for, which is a bug.
public struct TransitionLog: Sendable {
    public var tracing = false
    public private(set) var transitions: [Transition] = []
    public private(set) var anomalies: [Transition] = []

    public init(tracing: Bool = false) { self.tracing = tracing }

    /// Records a transition when tracing (the names are made only then: a
    /// frame's handler runs this for every frame).
    mutating func record(
        machine: Transition.Machine, from: @autoclosure () -> String, event: @autoclosure () -> String,
        to: @autoclosure () -> String, at time: Timestamp
    ) {
        guard tracing else { return }
        transitions.append(Transition(machine: machine, from: from(), event: event(), to: to(), time: time))
    }

    mutating func anomaly(machine: Transition.Machine, state: String, event: String, at time: Timestamp) {
        anomalies.append(Transition(machine: machine, from: state, event: event, to: "(unhandled)", time: time))
    }

}

extension Transition.Machine {
    /// Every state of the machine, as transitions name them.
    public var states: [String] {
        switch self {
        case .touchGroup: TouchGroup.State.allCases.map(\.rawValue)
        case .tapSequence: TapSequence.State.allCases.map(\.rawValue)
        case .claimer: Claimer.State.allCases.map(\.rawValue)
        }
    }

    /// Every event of the machine, as transitions name them (`all-up`: the
    /// touch group's last finger of any kind lifted).
    public var events: [String] {
        switch self {
        case .touchGroup: TouchGroup.Event.allCases.map(\.rawValue) + ["all-up"]
        case .tapSequence: TapSequence.Event.allCases.map(\.rawValue)
        case .claimer: Claimer.Event.allCases.map(\.rawValue)
        }
    }
}
