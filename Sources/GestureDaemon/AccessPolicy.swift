package import CLinux
package import GestureConfiguration
import GestureCore
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Who may subscribe, and who receives gestures: the `[daemon]` lists
/// resolved to ids, checked against each client's `SO_PEERCRED`
/// credentials and `SO_PEERGROUPS` groups.
///
/// Empty allow-lists let anyone who can open the socket (mode 0660) in. root
/// and the daemon's own user are always let in. Of those let in, gestures go
/// to the user at the screen (`atScreen`).
package struct AccessPolicy: Sendable, Equatable {
    package var users: Set<uid_t> = []
    package var groups: Set<gid_t> = []
    package var socketGroup: gid_t?
    /// `deliver = "everyone"`: no session is asked about.
    package var deliverToEveryone = false
    /// `any-session-users`: they receive gestures whichever session is active.
    package var anySession: Set<uid_t> = []

    package init() {}

    /// Resolves the names of `settings` through NSS (numbers are taken as ids).
    package init(_ settings: DaemonSettings) throws(SetupError) {
        for u in settings.allowUsers {
            guard let uid = UInt32(u) ?? Users.uid(named: u) else {
                throw SetupError("[daemon] allow-users: no user named '\(u)'")
            }
            users.insert(uid)
        }
        for g in settings.allowGroups {
            guard let gid = UInt32(g) ?? Users.gid(named: g) else {
                throw SetupError("[daemon] allow-groups: no group named '\(g)'")
            }
            groups.insert(gid)
        }
        for u in settings.anySessionUsers {
            guard let uid = UInt32(u) ?? Users.uid(named: u) else {
                throw SetupError("[daemon] any-session-users: no user named '\(u)'")
            }
            anySession.insert(uid)
        }
        deliverToEveryone = settings.deliver == "everyone"
        if let g = settings.socketGroup, !g.isEmpty {
            guard let gid = UInt32(g) ?? Users.gid(named: g) else {
                throw SetupError("[daemon] socket-group: no group named '\(g)'")
            }
            socketGroup = gid
        }
    }

    package var isOpen: Bool { users.isEmpty && groups.isEmpty }

    /// Whether a client of `uid` receives gestures (and may type keys and
    /// take touches) while the seat is `seat` (nil: nobody watches the
    /// seat, `deliver = "everyone"`). root, the daemon's user and
    /// `any-session-users` always do; others only while logind says their
    /// session is the active one. It fails closed: while logind has not
    /// answered, has failed or is not there, nobody else does.
    package func atScreen(_ uid: uid_t, seat: SeatState?) -> Bool {
        if deliverToEveryone || uid == 0 || uid == geteuid() || anySession.contains(uid) { return true }
        return Self.active(uid, seat: seat)
    }

    /// Whether a client of `uid` may say how the screen is turned: root, the
    /// daemon's user, and the user whose session is active on the seat.
    /// Unlike `atScreen`, `any-session-users` do not make a user's word
    /// count. Where no seat is watched (`deliver = "everyone"`) every
    /// allowed client may; while the seat is not known, no other may.
    package func mayTurn(_ uid: uid_t, seat: SeatState?) -> Bool {
        if uid == 0 || uid == geteuid() { return true }
        return Self.active(uid, seat: seat)
    }

    private static func active(_ uid: uid_t, seat: SeatState?) -> Bool {
        switch seat {
        case nil: return true
        case .waiting, .nobody, .unavailable, .unconfirmed: return false
        case .active(let active, _): return uid == active
        }
    }

    /// Whether the peer of `fd` (credentials `uid`, `gid`) may subscribe.
    package func allows(fd: Int32, uid: uid_t, gid: gid_t) -> Bool {
        if isOpen || uid == 0 || uid == geteuid() || users.contains(uid) || groups.contains(gid) { return true }
        guard !groups.isEmpty else { return false }
        // 256 groups first; a member of more gets a second look with room for all.
        var list = [gid_t](repeating: 0, count: 256)
        var needed: Int32 = 0
        var n = clinux_peer_groups(fd, &list, Int32(list.count), &needed)
        if n < 0 && errno == ERANGE && needed > Int32(list.count) {
            list = [gid_t](repeating: 0, count: Int(needed))
            n = clinux_peer_groups(fd, &list, Int32(list.count), &needed)
        }
        return n > 0 && list[0..<Int(n)].contains(where: groups.contains)
    }
}
