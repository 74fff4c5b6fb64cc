import GestureCore
import GestureProtocol
import ToolSupport

/// One of `gestured act`'s sources: the signals, the actions files, the
/// daemon link, the Wayland session, the focus, the dispatch's timers, the
/// commands and the pipe programs. Each owns its descriptors and its
/// deadline and knows what to do when they are ready; the loop (`Actor`)
/// only asks, in the same order every turn, and hands what they report
/// (`ActNews`) on to the others. Nothing reaches into a source.
protocol ActSource: AnyObject {
    /// Before the wait: what it does first (connect when it is time, send
    /// what waits); then the descriptors it waits on, added to `poller`.
    func prepare(_ poller: inout Poller, now: Timestamp, into news: inout [ActNews])
    /// When it must be served though nothing is ready (`.never`: no such time).
    var deadline: Timestamp { get }
    /// After the wait: what is ready or due, within its own budget, so
    /// that no peer keeps the loop from the others.
    func serve(_ poller: Poller, now: Timestamp, into news: inout [ActNews])
    /// act stops: let everything go.
    func close()
}

/// What a source saw in a turn, for the loop to hand on.
enum ActNews {
    /// SIGTERM or SIGINT.
    case stop
    /// SIGHUP: read the actions files now.
    case reload
    /// The actions files were read again and changed.
    case bindings(ActionsFiles.Loaded)
    case daemon(DaemonNews)
    /// The focused window changed, or whether it is known.
    case focusChanged
    /// An on-screen keyboard was shown or hidden, or whether one is known changed.
    case keyboardChanged
    /// An output came, went, was named or turned (or the compositor came or went).
    case outputsChanged
    /// A child that is no command of the runner ended (a pipe program).
    case childEnded(pid: Int32, status: Int32)
    /// A binding's timer came (a held-back `on-changed`, a hold's `hold-ms`).
    case act(Action)
}

/// What a binding does, as the dispatch decides it; the loop hands each to
/// the part that does it.
enum Action {
    /// Start a command (`run` or a hook), with `environment` added.
    case run(argv: [String], environment: [String], label: String, timeout: Timestamp.Duration)
    /// Have the daemon type a chord.
    case keys(Chord)
    /// Click where a gesture is, on the touchscreen named `device`.
    case click(PointerClick, device: String)
    /// A line for a `pipe` program.
    case pipe(line: [UInt8], gesture: Int, phase: GesturePhase, argv: [String])
}
