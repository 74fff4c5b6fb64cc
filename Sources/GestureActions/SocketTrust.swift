import CLinux
package import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Whose sockets `gestured act` believes. act runs the user's commands and
/// types keys on what it reads from its sockets, so it talks only to peers
/// run by the users it trusts for that socket, at a path nobody else can
/// have put there:
///
/// - every directory from `/` down to the socket's belongs to one of those
///   users (or root) and may be written by no one else, unless it has the
///   sticky bit (as /tmp has: then only an entry's owner can replace it);
/// - the socket belongs to one of those users;
/// - the process that listens on it (`SO_PEERCRED`) runs as one of them.
///
/// The last check is the kernel's word and comes after `connect`; the first
/// two keep act from even connecting to a socket someone else made.
///
/// The daemon's socket: root, the service's user (`gestured`) or the user
/// themself (`daemon`). The compositor's sockets (sway's and i3's IPC,
/// Wayland's): the user only (`compositor`); an X server may be root's too.
package struct SocketTrust: Sendable {
    /// The users whose peers act believes.
    package let trusted: Set<UInt32>
    /// Who they are, for the messages.
    let who: String

    package init(trusted: Set<UInt32>, who: String = "a user act trusts") {
        self.trusted = trusted
        self.who = who
    }

    /// The daemon's: root, the `gestured` user, and `ownUID`.
    package static func daemon(ownUID: UInt32 = geteuid(), serviceUser: String = "gestured") -> SocketTrust {
        var users: Set<UInt32> = [0, ownUID]
        if let uid = Users.uid(named: serviceUser) { users.insert(uid) }
        return SocketTrust(trusted: users, who: "root, the gestured user or you")
    }

    /// A compositor's: the user only.
    package static func compositor(ownUID: UInt32 = geteuid()) -> SocketTrust {
        SocketTrust(trusted: [ownUID], who: "you")
    }

    /// An X server's: root (a display manager starts Xorg so) or the user.
    package static func xServer(ownUID: UInt32 = geteuid()) -> SocketTrust {
        SocketTrust(trusted: [0, ownUID], who: "root or you")
    }

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
        // Every directory from the root down to the socket's; root's own
        // folders (/, /run, /tmp) are root's, whoever the peer is.
        var prefix = ""
        for part in [""] + resolved.split(separator: "/").map(String.init) {
            prefix = part.isEmpty ? "/" : (prefix == "/" ? "/" : prefix + "/") + part
            var st = stat()
            guard lstat(prefix, &st) == 0 else { return "\(prefix): \(Errno.last)" }
            guard st.st_uid == 0 || trusted.contains(st.st_uid) else {
                return "the directory \(prefix) belongs to uid \(st.st_uid), not to \(who)"
            }
            if st.st_mode & (S_IWGRP | S_IWOTH) != 0 && st.st_mode & S_ISVTX == 0 {
                return
                    "others may write the directory \(prefix) (mode 0\(String(st.st_mode & 0o7777, radix: 8))) and it has no sticky bit"
            }
        }
        var st = stat()
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        let socket = resolved == "/" ? "/" + name : resolved + "/" + name
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

    /// Connects to the socket at `path` if its place and its owner are
    /// believed, then its peer: the connected descriptor (blocking, close
    /// on exec), or why not.
    package func connect(_ path: String) -> Result<Int32, SocketRefusal> {
        if let problem = problem(path: path) { return .failure(.untrusted(problem)) }
        guard let address = UnixAddress(path) else { return .failure(.unreachable(.fileNameTooLong)) }
        let fd = clinux_unix_socket(Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return .failure(.unreachable(Errno.last)) }
        guard address.connect(fd) == 0 else {
            let e = Errno.last
            Glibc.close(fd)
            return .failure(.unreachable(e))
        }
        if let problem = problem(peerOf: fd) {
            Glibc.close(fd)
            return .failure(.untrusted(problem))
        }
        return .success(fd)
    }
}

/// Why act did not connect to a socket.
package enum SocketRefusal: Error, Equatable {
    /// Someone act does not trust could have put it there, owns it or serves it.
    case untrusted(String)
    /// Nothing answers there (yet): the error of `connect`.
    case unreachable(Errno)
}
