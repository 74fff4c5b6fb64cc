#if canImport(Glibc)
    package import Glibc
#endif

/// The package's one look-up of users and groups through NSS (the
/// reentrant calls, with room for a large entry): the daemon's access
/// lists and the user it runs as, act's trust in the sockets it talks to.
package enum Users {
    /// The uid of the user `name`.
    package static func uid(named name: String) -> uid_t? {
        passwd(name: name).map(\.pw_uid)
    }

    /// The primary group of the user `uid`.
    package static func primaryGroup(of uid: uid_t) -> gid_t? {
        var pw = Glibc.passwd()
        var result: UnsafeMutablePointer<Glibc.passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        guard getpwuid_r(uid, &pw, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return pw.pw_gid
    }

    /// The gid of the group `name`.
    package static func gid(named name: String) -> gid_t? {
        var gr = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 64 * 1024)
        guard getgrnam_r(name, &gr, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return gr.gr_gid
    }

    private static func passwd(name: String) -> Glibc.passwd? {
        var pw = Glibc.passwd()
        var result: UnsafeMutablePointer<Glibc.passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        guard getpwnam_r(name, &pw, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return pw
    }
}
