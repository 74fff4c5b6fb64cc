package import CLinux
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Who `gestured act` believes. act runs the user's commands and types
/// keys on what it reads from its socket, so it talks only to a daemon run
/// by root, by the service's user (`gestured`) or by the user themself, at
/// a path nobody else can have put there:
///
/// - every directory from `/` down to the socket's belongs to one of those
///   users and may be written by no one else, unless it has the sticky bit
///   (as /tmp has: then only an entry's owner can replace it);
/// - the socket belongs to one of those users;
/// - the process that listens on it (`SO_PEERCRED`: with socket activation,
///   systemd, which is root) runs as one of them.
///
/// The last check is the kernel's word and comes after `connect`; the first
/// two keep act from even connecting to a socket someone else made.
package struct DaemonTrust: Sendable {
    /// The users whose daemon act believes.
    package let trusted: Set<uid_t>

    package init(ownUID: uid_t = geteuid(), serviceUser: String = "gestured") {
        var users: Set<uid_t> = [0, ownUID]
        if let uid = Self.uid(named: serviceUser) { users.insert(uid) }
        trusted = users
    }

    package init(trusted: Set<uid_t>) { self.trusted = trusted }

    private var who: String { "root, the gestured user or you" }

    /// Why the socket at `path` may not be believed; nil when it may.
    package func problem(path: String) -> String? {
        guard path.hasPrefix("/") else { return "\(path) is not an absolute path" }
        var directory = String(path[..<path.lastIndex(of: "/")!])
        if directory.isEmpty { directory = "/" }
        guard let real = realpath(directory, nil) else {
            return "\(directory): \(Errno.last)"
        }
        let resolved = String(cString: real)
        free(real)
        // Every directory from the root down to the socket's.
        var prefix = ""
        for part in [""] + resolved.split(separator: "/").map(String.init) {
            prefix = part.isEmpty ? "/" : (prefix == "/" ? "/" : prefix + "/") + part
            var st = stat()
            guard lstat(prefix, &st) == 0 else { return "\(prefix): \(Errno.last)" }
            guard trusted.contains(st.st_uid) else {
                return "the directory \(prefix) belongs to uid \(st.st_uid), not to \(who)"
            }
            if st.st_mode & (S_IWGRP | S_IWOTH) != 0 && st.st_mode & S_ISVTX == 0 {
                return
                    "others may write the directory \(prefix) (mode 0\(String(st.st_mode & 0o7777, radix: 8))) and it has no sticky bit"
            }
        }
        var st = stat()
        let socket = resolved == "/" ? "/" + path.split(separator: "/").last! : resolved + "/" + path.split(separator: "/").last!
        guard lstat(socket, &st) == 0 else { return "\(path): \(Errno.last)" }
        guard st.st_mode & S_IFMT == S_IFSOCK else { return "\(path) is not a socket" }
        guard trusted.contains(st.st_uid) else { return "\(path) belongs to uid \(st.st_uid), not to \(who)" }
        return nil
    }

    /// Why the process listening at the other end of `fd` may not be believed; nil when it may.
    package func problem(peerOf fd: Int32) -> String? {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        guard clinux_peer_credentials(fd, &pid, &uid, &gid) == 0 else { return "no peer credentials: \(Errno.last)" }
        guard trusted.contains(uid) else { return "it is served by uid \(uid) (pid \(pid)), not by \(who)" }
        return nil
    }

    static func uid(named name: String) -> uid_t? {
        var pw = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        guard getpwnam_r(name, &pw, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return pw.pw_uid
    }
}
