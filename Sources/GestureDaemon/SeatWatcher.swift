import CSystemd
package import GestureCore

#if canImport(Glibc)
    import Glibc
#endif

/// Who is at the screen: the user whose login session logind calls active
/// on the daemon's seat (`org.freedesktop.login1`, the seat's
/// `ActiveSession`, then that session's `User`), and whether that session
/// is locked (its `LockedHint`, which screen lockers set through logind),
/// followed on the system bus
/// through sd-bus, inside the daemon's loop: its descriptor is in the
/// loop's set and its timeout among the deadlines, and every call is
/// asynchronous, so a slow or absent logind never holds up a frame.
///
/// It fails closed: until logind has answered, and whenever it errs, does
/// not answer within a second, leaves the bus or answers with something
/// else than it should, the state says so (`waiting`, `unavailable`) and
/// nobody counts as at the screen. Only logind's own signals and answers
/// are taken (`BusWatcher`); however many signals ask it to, it has one
/// question under way at a time, and after a failure it asks again after a
/// second, then two, up to thirty.
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

    /// When the loop must call `process`: a call's timeout, or the next try after a failure.
    override package var deadline: Timestamp { min(busDeadline, retryAt) }

    /// Reads what the bus has; asks again when a failure's wait is over.
    override package func process(now: Timestamp) {
        process()
        if failedSinceProcess {
            failedSinceProcess = false
            retryAt = now + backoff
            backoff = min(Timestamp.Duration(microseconds: backoff.microseconds * 2), Self.lastBackoff)
        }
        if now >= retryAt {
            retryAt = .never
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
        BusMessage.send(bus, m, Self.onActiveSession, Unmanaged.passUnretained(self).toOpaque(), slot: &question.slot)
    }

    /// The question ended in `new` (a failure: `why`); asked again meanwhile, it is asked again now.
    private func answered(_ new: State) {
        if case .unavailable = new {
            failedSinceProcess = true
        } else {
            backoff = Self.firstBackoff
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

    /// The seat's or the active session's properties changed (logind said so): ask again.
    private static let onSeatChanged: sd_bus_message_handler_t = { m, userdata, _ in
        let me = watcher(userdata)
        if let m, me.fromService(m) { me.ask() }
        return 0
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
        BusMessage.send(me.bus, q, onSession, Unmanaged.passUnretained(me).toOpaque(), slot: &me.question.slot)
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

    /// The session at the screen is locked: nothing is claimed, no key is typed.
    package var isLocked: Bool {
        if case .active(_, true) = self { return true }
        return false
    }
}
