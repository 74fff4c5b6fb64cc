import BusSupport
import CSystemd
package import GestureCore

#if canImport(Glibc)
    import Glibc
#endif

/// Who is at the screen: the user whose login session logind calls active
/// on the daemon's seat (`org.freedesktop.login1`, the seat's
/// `ActiveSession`, then that session's `User`), and whether that session
/// is locked (its `LockedHint`, which screen lockers set through logind),
/// followed on the system bus through sd-bus, inside the daemon's loop:
/// its descriptor is in the loop's set and its timeout among the
/// deadlines, and every call is asynchronous, so a slow or absent logind
/// never holds up a frame.
///
/// It fails closed: until logind has answered, and whenever it errs,
/// leaves the bus or answers with something else than it should, the state
/// says so (`waiting`, `unavailable`) and nobody counts as at the screen.
/// Only logind's own signals and answers are taken (`BusWatcher`); however
/// many signals ask it to, it has one question under way at a time, and
/// after a failure it asks again after a second, then two, up to thirty.
///
/// It does not rely on logind's signals alone, which a busy logind (or a
/// busy bus) sends late: while someone is at the screen and the daemon is
/// in use (frames, requests: `inUse`), it asks again every
/// `confirmInterval`, and a question left unanswered for `answerBound` is
/// itself the sign of a slow logind: nobody counts as at the screen
/// (`unconfirmed`) until it answers, whenever that is (a call waits up to
/// `callTimeout`). So the user who left gets nothing more than about
/// `confirmInterval` + `answerBound` after a switch, however slow logind
/// is, and the user who came is let in as soon as logind says so. A
/// signal that says the active session changed pauses everyone at once,
/// before the question it starts; one that says a session locked locks it
/// at once, and one that says it unlocked only starts a question, whose
/// answer unlocks it: a flood of `LockedHint` changes ending locked leaves
/// no moment unlocked after its first lock. An idle daemon asks nothing.
///
/// `$DBUS_SYSTEM_BUS_ADDRESS` points it at another bus (the tests' private
/// one, where python-dbusmock plays logind).
package final class SeatWatcher: BusWatcher<SeatState> {
    package typealias State = SeatState

    package let seat: String

    private var matchSlot: OpaquePointer?
    /// The active session's object path and the match on its `PropertiesChanged` (its lock).
    private var sessionPath: String?
    private var sessionMatchSlot: OpaquePointer?
    /// The question under way: the seat's active session, then its user.
    private var question = BusQuestion()
    /// After a failure: ask again at `retryAt`, waiting `backoff` the next time.
    private var failedSinceProcess = false
    private var retryAt = Timestamp.never
    private var backoff = SeatWatcher.firstBackoff
    static let firstBackoff = Timestamp.Duration.milliseconds(1000)
    static let lastBackoff = Timestamp.Duration.milliseconds(30_000)
    /// How often logind is asked again while someone is at the screen and the daemon is in use.
    static let confirmInterval = Timestamp.Duration.milliseconds(500)
    /// How long a question may wait for its answer before nobody counts as at the screen.
    static let answerBound = Timestamp.Duration.milliseconds(500)
    /// How long after its last use the daemon counts as in use.
    static let useWindow = Timestamp.Duration.milliseconds(5000)
    /// How long a call waits for logind's answer before it fails: a busy
    /// logind's answer seconds late is still taken, a hung one's question
    /// is asked again.
    static let callTimeout: UInt64 = 10_000_000
    /// The most of logind's messages read in one turn: its signals are
    /// read whole before the turn serves clients, unless a flood outlasts it.
    static let messageBudget = 4096
    /// The time of the turn (handlers read it).
    private var now = Timestamp.zero
    /// When the question under way was asked (nil: none is).
    private var askedAt: Timestamp?
    /// When logind last answered.
    private var answeredAt = Timestamp(microseconds: .min / 2)
    /// When the daemon was last in use.
    private var usedAt = Timestamp(microseconds: .min / 2)

    static let login1 = "org.freedesktop.login1"

    /// Connects to the system bus; without one the state is `unavailable`.
    package init(seat: String) {
        self.seat = seat
        super.init(service: Self.login1, .waiting, unavailable: { .unavailable($0) })
        guard bus != nil else { return }
        match(seatPath, "org.freedesktop.DBus.Properties", "PropertiesChanged", Self.onSeatChanged, slot: &matchSlot)
        follow()
    }

    deinit { close() }

    override func close() {
        question.drop()
        sd_bus_slot_unref(matchSlot)
        matchSlot = nil
        sd_bus_slot_unref(sessionMatchSlot)
        sessionMatchSlot = nil
        super.close()
    }

    /// The seat's object path (`sd_bus_path_encode` escapes what logind escapes).
    private var seatPath: String {
        var out: UnsafeMutablePointer<CChar>?
        guard sd_bus_path_encode("/org/freedesktop/login1/seat", seat, &out) >= 0, let out else {
            return "/org/freedesktop/login1/seat/" + seat
        }
        defer { free(out) }
        return String(cString: out)
    }

    /// When the loop must call `process`: a call's timeout, the next try
    /// after a failure, the bound of the question under way, the next
    /// confirmation while in use.
    override package var deadline: Timestamp {
        var due = min(busDeadline, retryAt)
        guard case .active = state else { return due }
        if let askedAt {
            due = min(due, askedAt + Self.answerBound)
        } else if answeredAt + Self.confirmInterval <= usedAt + Self.useWindow {
            due = min(due, max(answeredAt + Self.confirmInterval, usedAt))
        }
        return due
    }

    /// The daemon is in use (a frame came, a client was answered): while
    /// someone is at the screen, logind is asked again every `confirmInterval`.
    override package func inUse(now: Timestamp) { usedAt = now }

    /// Reads what the bus has; asks again when a failure's wait is over, or
    /// when a confirmation is due; nobody counts as at the screen once a
    /// question waits longer than its bound.
    override package func process(now: Timestamp) {
        self.now = now
        behind = process(budget: Self.messageBudget)
        if failedSinceProcess {
            failedSinceProcess = false
            retryAt = now + backoff
            backoff = min(Timestamp.Duration(microseconds: backoff.microseconds * 2), Self.lastBackoff)
        }
        if now >= retryAt {
            retryAt = .never
            ask()
        }
        guard case .active = state else { return }
        if let askedAt, now >= askedAt + Self.answerBound {
            set(.unconfirmed)
        } else if askedAt == nil && now >= answeredAt + Self.confirmInterval && now < usedAt + Self.useWindow {
            ask()
        }
    }

    override func serviceCame() { ask() }

    override func serviceLeft(_ how: String) {
        question.drop()
        set(.unavailable("logind (\(Self.login1)) \(how)"))
    }

    // MARK: Questions

    private func ask() {
        guard owner != nil else { return }
        if question.underWay {
            question.again = true
            return
        }
        let m = call(
            seatPath, "org.freedesktop.DBus.Properties", "Get", ["org.freedesktop.login1.Seat", "ActiveSession"])
        BusMessage.send(
            bus, m, Self.onActiveSession, Unmanaged.passUnretained(self).toOpaque(), slot: &question.slot,
            timeout: Self.callTimeout)
        if question.underWay { askedAt = now }
    }

    /// The question ended in `new` (a failure: `why`); asked again meanwhile, it is asked again now.
    private func answered(_ new: State) {
        askedAt = nil
        if case .unavailable = new {
            failedSinceProcess = true
        } else {
            backoff = Self.firstBackoff
            answeredAt = now
        }
        set(new)
        if question.answered() { ask() }
    }

    /// A reply's failure, or nil: an error, or an answer not from logind.
    private func failure(of m: OpaquePointer, _ what: String) -> String? {
        if let error = BusMessage.error(of: m) { return "logind did not say \(what): \(error)" }
        if !fromService(m) { return "an answer about \(what) came from \(BusMessage.sender(m) ?? "nobody"), not logind" }
        return nil
    }

    private static func watcher(_ userdata: UnsafeMutableRawPointer?) -> SeatWatcher {
        Unmanaged<SeatWatcher>.fromOpaque(userdata!).takeUnretainedValue()
    }

    /// Follows `PropertiesChanged` of the active session `path` (nil: none), whose `LockedHint` may change.
    private func watchSession(_ path: String?) {
        guard path != sessionPath else { return }
        sd_bus_slot_unref(sessionMatchSlot)
        sessionMatchSlot = nil
        sessionPath = path
        if let path {
            match(path, "org.freedesktop.DBus.Properties", "PropertiesChanged", Self.onSeatChanged, slot: &sessionMatchSlot)
        }
    }

    /// The seat's or the active session's properties changed (logind said
    /// so, `PropertiesChanged`: `sa{sv}as`): asked again. What the signal
    /// says of the seat's `ActiveSession` (a value, or that it changed)
    /// pauses everyone until the answer; a session's `LockedHint` becoming
    /// true locks it at once, becoming false waits for the answer.
    private static let onSeatChanged: sd_bus_message_handler_t = { m, userdata, _ in
        let me = watcher(userdata)
        guard let m, me.fromService(m) else { return 0 }
        switch SeatWatcher.changes(in: m) {
        case .activeSession(let path) where path != me.sessionPath:
            me.set(SeatState.unconfirmed)
        case .locked(true):
            if case .active(let uid, _) = me.state { me.set(SeatState.active(uid, locked: true)) }
        case .locked(false):
            // An unlock is taken from the answer to the question below, never
            // from the signal: however fast LockedHint flips, the session is
            // locked from the first lock until logind itself says otherwise.
            break
        case .activeSession, .other:
            break
        }
        me.ask()
        return 0
    }

    /// What a `PropertiesChanged` of logind's says of the properties it follows.
    private enum Change {
        /// The seat's `ActiveSession` changed: its new object path, or nil when only invalidated.
        case activeSession(String?)
        case locked(Bool)
        case other
    }

    private static func changes(in m: OpaquePointer) -> Change {
        guard BusMessage.readString(m, UInt8(ascii: "s")) != nil, BusMessage.enter(m, UInt8(ascii: "a"), "{sv}") else {
            return .other
        }
        var found = Change.other
        while BusMessage.enter(m, UInt8(ascii: "e"), "sv") {
            guard let key = BusMessage.readString(m, UInt8(ascii: "s")) else { return .other }
            switch key {
            case "ActiveSession":
                guard BusMessage.enter(m, UInt8(ascii: "v"), "(so)"), BusMessage.enter(m, UInt8(ascii: "r"), "so"),
                    BusMessage.readString(m, UInt8(ascii: "s")) != nil, let path = BusMessage.readString(m, UInt8(ascii: "o"))
                else { return .activeSession(nil) }
                found = .activeSession(path)
                _ = sd_bus_message_exit_container(m)
                _ = sd_bus_message_exit_container(m)
            case "LockedHint":
                var b: Int32 = 0
                guard BusMessage.enter(m, UInt8(ascii: "v"), "b"), sd_bus_message_read_basic(m, CChar(UInt8(ascii: "b")), &b) > 0
                else { return .other }
                found = .locked(b != 0)
                _ = sd_bus_message_exit_container(m)
            default:
                guard sd_bus_message_skip(m, "v") >= 0 else { return found }
            }
            guard sd_bus_message_exit_container(m) >= 0 else { return found }
        }
        guard sd_bus_message_exit_container(m) >= 0, BusMessage.enter(m, UInt8(ascii: "a"), "s") else { return found }
        while let name = BusMessage.readString(m, UInt8(ascii: "s")) {
            if name == "ActiveSession" { return .activeSession(nil) }
        }
        return found
    }

    /// `ActiveSession` is `(so)`: the session's id and object path ("/" for none).
    private static let onActiveSession: sd_bus_message_handler_t = { m, userdata, _ in
        let me = watcher(userdata)
        guard let m else { return 0 }
        if let why = me.failure(of: m, "the active session of \(me.seat)") {
            me.answered(.unavailable(why))
            return 0
        }
        guard BusMessage.enter(m, UInt8(ascii: "v"), "(so)"), BusMessage.enter(m, UInt8(ascii: "r"), "so"),
            BusMessage.readString(m, UInt8(ascii: "s")) != nil,
            let path = BusMessage.readString(m, UInt8(ascii: "o"))
        else {
            me.answered(.unavailable("logind's ActiveSession of \(me.seat) is not (so)"))
            return 0
        }
        if path == "/" {
            me.watchSession(nil)
            me.answered(.nobody)
            return 0
        }
        me.watchSession(path)
        // The same question goes on: whose the session is, and whether it is locked.
        sd_bus_slot_unref(me.question.slot)
        me.question.slot = nil
        let q = me.call(path, "org.freedesktop.DBus.Properties", "GetAll", ["org.freedesktop.login1.Session"])
        BusMessage.send(
            me.bus, q, onSession, Unmanaged.passUnretained(me).toOpaque(), slot: &me.question.slot,
            timeout: SeatWatcher.callTimeout)
        return 0
    }

    /// A session's properties, `a{sv}`: its `User` (`(uo)`, the uid and the
    /// user's object path) and its `LockedHint` (`b`; a logind too old to
    /// have it, before systemd 230, counts as never locked).
    private static let onSession: sd_bus_message_handler_t = { m, userdata, _ in
        let me = watcher(userdata)
        guard let m else { return 0 }
        if let why = me.failure(of: m, "whose the active session is") {
            me.answered(.unavailable(why))
            return 0
        }
        var uid: UInt32?
        var locked: Int32 = 0
        var wellFormed = BusMessage.enter(m, UInt8(ascii: "a"), "{sv}")
        while wellFormed, BusMessage.enter(m, UInt8(ascii: "e"), "sv") {
            guard let key = BusMessage.readString(m, UInt8(ascii: "s")) else {
                wellFormed = false
                break
            }
            switch key {
            case "User":
                var value: UInt32 = 0
                wellFormed =
                    BusMessage.enter(m, UInt8(ascii: "v"), "(uo)") && BusMessage.enter(m, UInt8(ascii: "r"), "uo")
                    && sd_bus_message_read_basic(m, CChar(UInt8(ascii: "u")), &value) > 0
                    && sd_bus_message_skip(m, "o") >= 0 && sd_bus_message_exit_container(m) >= 0
                    && sd_bus_message_exit_container(m) >= 0
                if wellFormed { uid = value }
            case "LockedHint":
                wellFormed =
                    BusMessage.enter(m, UInt8(ascii: "v"), "b")
                    && sd_bus_message_read_basic(m, CChar(UInt8(ascii: "b")), &locked) > 0
                    && sd_bus_message_exit_container(m) >= 0
            default:
                wellFormed = sd_bus_message_skip(m, "v") >= 0
            }
            wellFormed = wellFormed && sd_bus_message_exit_container(m) >= 0
        }
        guard wellFormed, let uid else {
            me.answered(.unavailable("logind's session properties are not a{sv} with User (uo)"))
            return 0
        }
        me.answered(.active(uid, locked: locked != 0))
        return 0
    }
}

/// Who is at the seat's screen, as logind says.
package enum SeatState: Equatable, Sendable {
    /// Asked, no answer yet.
    case waiting
    /// No system bus, no logind on it, or it failed: nobody is known to be at the screen.
    case unavailable(String)
    /// This user's session is the active one; `locked`: a screen locker says it is locked.
    case active(UInt32, locked: Bool)
    /// No session is active on the seat (a greeter may be switching).
    case nobody
    /// Someone was at the screen, but logind has not confirmed it within
    /// `SeatWatcher.answerBound`, or said the active session changed:
    /// nobody counts as at the screen until it answers.
    case unconfirmed

    /// The session at the screen is locked: nothing is claimed, no key is typed.
    package var isLocked: Bool {
        if case .active(_, true) = self { return true }
        return false
    }
}
