package import CLinux
import GestureCore

#if canImport(Glibc)
    import Glibc
#endif

/// Who may subscribe: the `[daemon]` allow-lists resolved to ids, checked
/// against each client's `SO_PEERCRED` credentials and `SO_PEERGROUPS` groups.
///
/// Empty lists let anyone who can open the socket (mode 0660) in. root and
/// the daemon's own user are always let in.
package struct AccessPolicy: Sendable, Equatable {
    package var users: Set<uid_t> = []
    package var groups: Set<gid_t> = []
    package var socketGroup: gid_t?

    package init() {}

    /// Resolves the names of `settings` through NSS (numbers are taken as ids).
    package init(_ settings: DaemonSettings) throws(SetupError) {
        for u in settings.allowUsers {
            guard let uid = UInt32(u) ?? Self.uid(named: u) else {
                throw SetupError("[daemon] allow-users: no user named '\(u)'")
            }
            users.insert(uid)
        }
        for g in settings.allowGroups {
            guard let gid = UInt32(g) ?? Self.gid(named: g) else {
                throw SetupError("[daemon] allow-groups: no group named '\(g)'")
            }
            groups.insert(gid)
        }
        if let g = settings.socketGroup {
            guard let gid = UInt32(g) ?? Self.gid(named: g) else {
                throw SetupError("[daemon] socket-group: no group named '\(g)'")
            }
            socketGroup = gid
        }
    }

    package var isOpen: Bool { users.isEmpty && groups.isEmpty }

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

    static func uid(named name: String) -> uid_t? {
        var pw = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        guard getpwnam_r(name, &pw, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return pw.pw_uid
    }

    static func gid(named name: String) -> gid_t? {
        var gr = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 64 * 1024)
        guard getgrnam_r(name, &gr, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return gr.gr_gid
    }
}
