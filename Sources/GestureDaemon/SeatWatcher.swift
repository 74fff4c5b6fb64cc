import CSystemd

#if canImport(Glibc)
    import Glibc
#endif

/// Who is at the screen: the user whose login session logind calls active
/// on the daemon's seat (`org.freedesktop.login1`, the seat's
/// `ActiveSession`, then that session's `User`), followed on the system bus
/// through sd-bus, inside the daemon's loop: its descriptor is in the
/// loop's set and its timeout among the deadlines, and every call is
/// asynchronous, so a slow or absent logind never holds up a frame.
///
/// `$DBUS_SYSTEM_BUS_ADDRESS` points it at another bus (the tests' private
/// one, where python-dbusmock plays logind).
package final class SeatWatcher: BusWatcher<SeatState> {
    package typealias State = SeatState

    package let seat: String

    /// The signal match, the call asking for the active session and the
    /// one asking whose it is. A new question drops the pending one's slot,
    /// which cancels it: no late answer about an older session is taken.
    private var matchSlot: OpaquePointer?
    private var activeSlot: OpaquePointer?
    private var userSlot: OpaquePointer?

    private static let service = "org.freedesktop.login1"

    /// Connects to the system bus; without one the state is `unavailable`.
    package init(seat: String) {
        self.seat = seat
        super.init(.waiting, unavailable: { .unavailable($0) })
        guard bus != nil else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let match =
            "type='signal',sender='\(Self.service)',path='\(seatPath)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'"
        _ = sd_bus_add_match_async(bus, &matchSlot, match, Self.onSeatChanged, nil, me)
        askActiveSession()
    }

    deinit { close() }

    override func close() {
        for slot in [matchSlot, activeSlot, userSlot] { sd_bus_slot_unref(slot) }
        (matchSlot, activeSlot, userSlot) = (nil, nil, nil)
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

    // MARK: Calls

    private func getProperty(
        _ path: String, _ interface: String, _ property: String, _ handler: sd_bus_message_handler_t,
        slot: inout OpaquePointer?
    ) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        BusMessage.getProperty(bus, Self.service, path, interface, property, handler, me, slot: &slot)
    }

    private func askActiveSession() {
        getProperty(seatPath, "org.freedesktop.login1.Seat", "ActiveSession", Self.onActiveSession, slot: &activeSlot)
    }

    private static func watcher(_ userdata: UnsafeMutableRawPointer?) -> SeatWatcher {
        Unmanaged<SeatWatcher>.fromOpaque(userdata!).takeUnretainedValue()
    }

    /// The seat's properties changed: ask again which session is active.
    private static let onSeatChanged: sd_bus_message_handler_t = { _, userdata, _ in
        watcher(userdata).askActiveSession()
        return 0
    }

    /// `ActiveSession` is `(so)`: the session's id and object path ("/" for none).
    private static let onActiveSession: sd_bus_message_handler_t = { m, userdata, _ in
        let me = watcher(userdata)
        guard let m else { return 0 }
        if let error = BusMessage.error(of: m) {
            me.set(.unavailable("logind did not answer for \(me.seat): \(error)"))
            return 0
        }
        guard BusMessage.enter(m, UInt8(ascii: "v"), "(so)"), BusMessage.enter(m, UInt8(ascii: "r"), "so"),
            BusMessage.readString(m, UInt8(ascii: "s")) != nil,
            let path = BusMessage.readString(m, UInt8(ascii: "o"))
        else {
            me.set(.unavailable("logind's ActiveSession of \(me.seat) is not (so)"))
            return 0
        }
        if path == "/" {
            sd_bus_slot_unref(me.userSlot)
            me.userSlot = nil
            me.set(.nobody)
        } else {
            me.getProperty(path, "org.freedesktop.login1.Session", "User", onSessionUser, slot: &me.userSlot)
        }
        return 0
    }

    /// A session's `User` is `(uo)`: the uid and the user's object path.
    private static let onSessionUser: sd_bus_message_handler_t = { m, userdata, _ in
        let me = watcher(userdata)
        guard let m else { return 0 }
        if let error = BusMessage.error(of: m) {
            me.set(.unavailable("logind did not say whose the active session is: \(error)"))
            return 0
        }
        var uid: UInt32 = 0
        guard BusMessage.enter(m, UInt8(ascii: "v"), "(uo)"), BusMessage.enter(m, UInt8(ascii: "r"), "uo"),
            sd_bus_message_read_basic(m, CChar(UInt8(ascii: "u")), &uid) > 0
        else {
            me.set(.unavailable("logind's session User is not (uo)"))
            return 0
        }
        me.set(.active(uid))
        return 0
    }
}

/// Who is at the seat's screen, as logind says.
package enum SeatState: Equatable, Sendable {
    /// Asked, no answer yet.
    case waiting
    /// No system bus, or no logind on it: sessions cannot be told apart.
    case unavailable(String)
    /// This user's session is the active one.
    case active(UInt32)
    /// No session is active on the seat (a greeter may be switching).
    case nobody
}
