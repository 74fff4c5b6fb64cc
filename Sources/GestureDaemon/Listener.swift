import CLinux
package import GestureConfiguration
package import Logging
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The listening Unix socket: passed by systemd (socket activation) or bound here.
package struct Listener {
    package let fd: Int32
    package let path: String
    /// Bound here (so removed at exit), not passed by systemd.
    package let ownsPath: Bool

    /// The socket systemd passed, else one bound at `named` (nil: the
    /// default path, whose directory is made when missing) with the
    /// mode of `settings` and `group`: by default the group `gesture` (of
    /// those who may subscribe) where there is one, so that a daemon
    /// started by hand is reached as the service is.
    package static func open(
        named: String?, settings: DaemonSettings, group: UInt32?, logger: Logger
    ) throws(SetupError) -> Listener {
        if let passed = Listener.fromSystemd(warn: { logger.warning("\($0)") }) { return passed }
        guard let path = named ?? Listener.defaultPath() else {
            throw SetupError("no socket path: XDG_RUNTIME_DIR is not set; pass --socket PATH or set socket in [daemon]")
        }
        var group = group
        if settings.socketGroup == nil, let gesture = Users.gid(named: "gesture"), Self.mayGive(to: gesture) {
            group = gesture
            logger.info("\(path) is given to the group gesture; socket-group in [daemon] chooses another")
        } else if settings.socketGroup == nil && geteuid() == 0 {
            logger.notice(
                "\(path) is root's alone (mode 0\(String(settings.socketMode, radix: 8))): there is no group gesture to give it to; set socket-group in [daemon], or install gestured (the package, or sudo make install), which makes the group"
            )
        }
        return try Listener.bind(path: path, mode: settings.socketMode, group: group, createDirectory: named == nil)
    }

    /// Whether this process may give a file to `gid`: root may give it to
    /// any group, others only to one of their own.
    static func mayGive(to gid: gid_t) -> Bool {
        if geteuid() == 0 || getegid() == gid { return true }
        var groups = [gid_t](repeating: 0, count: 1024)
        let n = getgroups(Int32(groups.count), &groups)
        return n > 0 && groups[0..<Int(n)].contains(gid)
    }

    /// The first listening stream socket systemd passed (`LISTEN_FDS`), if any.
    /// Takes the fds and clears the variables so children do not see them.
    package static func fromSystemd(warn: (String) -> Void) -> Listener? {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pidText = getenv("LISTEN_PID").map({ String(cString: $0) }), let pid = Int32(pidText), pid == getpid(),
            let countText = getenv("LISTEN_FDS").map({ String(cString: $0) }), let count = Int32(countText), count > 0
        else { return nil }
        var chosen: Listener?
        for fd in 3..<(3 + count) {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            var type: Int32 = 0
            var listening: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            let isStream = getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == Int32(SOCK_STREAM.rawValue)
            len = socklen_t(MemoryLayout<Int32>.size)
            let isListening = getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 && listening != 0
            if chosen == nil && isStream && isListening {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                chosen = Listener(fd: fd, path: boundPath(fd) ?? "(socket from systemd)", ownsPath: false)
            } else {
                warn("ignoring socket fd \(fd) passed by systemd: not a listening stream socket, or not the first")
                Glibc.close(fd)
            }
        }
        return chosen
    }

    /// Binds and listens at `path`. A stale socket file is replaced; a running
    /// instance, or a file that is not a socket, is an error naming what to do.
    ///
    /// The directory must belong to root or to the daemon's user, and may be
    /// written by others only with the sticky bit: anyone else who could
    /// change it could swap or move what the daemon makes there (as systemd
    /// refuses unsafe path transitions). Nothing is then done through a path
    /// at all: the directory is opened once, the socket is bound in a
    /// directory of the daemon's own made inside it (mode 0700, reached
    /// through its descriptor), its group and mode are set there, and it is
    /// renamed into place between the two descriptors, which replaces what
    /// has that name, follows no link, and lands where it was opened even if
    /// someone renamed a directory meanwhile.
    ///
    /// The directory is made only for the default path (`createDirectory`:
    /// /run/gestured when not started by gestured.socket); a path the user
    /// named must be in a directory that exists, or a typo would make one.
    package static func bind(
        path: String, mode: UInt32, group: UInt32?, createDirectory: Bool, backlog: Int32 = SOMAXCONN
    ) throws(SetupError) -> Listener {
        guard !path.hasPrefix("@"), UnixAddress(path) != nil else {
            throw SetupError("socket path must be a file path of at most 107 bytes: \(path)")
        }
        var st = stat()
        if lstat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFSOCK else {
                throw SetupError("\(path) exists and is not a socket; remove it or choose another --socket")
            }
            if let addr = UnixAddress(path), let peer = probe(addr) {
                throw SetupError(
                    "another gestured is already serving \(path)\(peer > 0 ? " (pid \(peer))" : ""); stop it or choose another --socket"
                )
            }
        }
        let name = String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        var directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if directory.isEmpty { directory = path.hasPrefix("/") ? "/" : "." }
        guard !name.isEmpty else { throw SetupError("socket path must name a file: \(path)") }
        if access(directory, F_OK) != 0 {
            guard createDirectory else {
                throw SetupError(
                    "cannot make the socket \(path): its directory \(directory) does not exist; create it first, or choose a --socket in an existing directory"
                )
            }
            // /run/gestured when not started by gestured.socket (which makes it).
            if mkdir(directory, 0o755) != 0 && errno != EEXIST {
                throw SetupError("cannot create \(directory)", Errno.last)
            }
        }
        let dirFD = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dirFD >= 0 else { throw SetupError("\(directory)", Errno.last) }
        defer { Glibc.close(dirFD) }
        guard fstat(dirFD, &st) == 0 else { throw SetupError("\(directory)", Errno.last) }
        guard st.st_uid == 0 || st.st_uid == geteuid() else {
            let owners =
                geteuid() == 0 ? "not root's, the daemon's user" : "neither root nor the daemon's user (uid \(geteuid()))"
            throw SetupError(
                "\(directory) belongs to uid \(st.st_uid), \(owners): its owner could move or swap the socket there; choose a directory of root's or the daemon's own (e.g. /run/gestured)"
            )
        }
        if st.st_mode & (S_IWGRP | S_IWOTH) != 0 && st.st_mode & S_ISVTX == 0 {
            throw SetupError(
                "\(directory) may be written by others (mode 0\(String(st.st_mode & 0o7777, radix: 8))) and has no sticky bit: anyone could replace the socket there; choose a directory only gestured's user can write (e.g. /run/gestured), or set its sticky bit"
            )
        }
        // The private directory, and the socket in it, reached through its descriptor only.
        var privateName = ""
        for _ in 0..<16 {
            let candidate = ".gestured-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            if mkdirat(dirFD, candidate, 0o700) == 0 {
                privateName = candidate
                break
            }
            guard errno == EEXIST else {
                let e = Errno.last
                if e == .permissionDenied || e == .readOnlyFileSystem {
                    throw SetupError(
                        "cannot put a socket in \(directory): \(e) for uid \(geteuid()); run the daemon as the directory's owner, or choose a --socket in a directory you may write (e.g. $XDG_RUNTIME_DIR/gestured.sock)"
                    )
                }
                throw SetupError("cannot put a socket in \(directory)", e)
            }
        }
        guard !privateName.isEmpty else { throw SetupError("cannot make a directory in \(directory)", Errno.last) }
        defer { unlinkat(dirFD, privateName, AT_REMOVEDIR) }
        let privateFD = openat(dirFD, privateName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard privateFD >= 0 else { throw SetupError("cannot open the directory made in \(directory)", Errno.last) }
        defer { Glibc.close(privateFD) }
        guard fstat(privateFD, &st) == 0, st.st_uid == geteuid(), st.st_mode & 0o777 == 0o700 else {
            throw SetupError("the directory made in \(directory) is not the daemon's own any more")
        }
        let fd = clinux_unix_socket(Int32(SOCK_STREAM.rawValue), 1)
        guard fd >= 0 else { throw SetupError("socket()", Errno.last) }
        func fail(_ what: String) -> SetupError {
            let reason = Errno.last
            Glibc.close(fd)
            unlinkat(privateFD, "s", 0)
            return SetupError(what, reason)
        }
        // Bound with the process's umask, in a directory only this user can
        // enter: nobody reaches the socket before `fchmodat` gives it its
        // mode. The path goes through the private directory's descriptor.
        guard let stagingAddr = UnixAddress("/proc/self/fd/\(privateFD)/s") else { throw fail("cannot bind \(path)") }
        let bound = stagingAddr.bind(fd)
        guard bound == 0 else { throw fail("cannot bind \(path)") }
        if let group, fchownat(privateFD, "s", uid_t.max, group, AT_SYMLINK_NOFOLLOW) != 0 {
            throw fail("cannot give \(path) to group \(group)")
        }
        guard fchmodat(privateFD, "s", mode_t(mode), 0) == 0 else { throw fail("cannot set the mode of \(path)") }
        guard listen(fd, backlog) == 0 else { throw fail("cannot listen on \(path)") }
        guard renameat(privateFD, "s", dirFD, name) == 0 else { throw fail("cannot put the socket at \(path)") }
        return Listener(fd: fd, path: path, ownsPath: true)
    }

    /// Connects to `addr`: the pid of a listening peer (0 if unknown), or nil if nobody listens.
    private static func probe(_ addr: UnixAddress) -> pid_t? {
        let fd = clinux_unix_socket(Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        let r = addr.connect(fd)
        guard r == 0 else { return nil }
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        _ = clinux_peer_credentials(fd, &pid, &uid, &gid)
        return pid
    }

    /// The path a socket is bound to, if it is a path.
    private static func boundPath(_ fd: Int32) -> String? {
        var addr = sockaddr_un()
        var len = socklen_t(MemoryLayout<sockaddr_un>.size)
        let r = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard r == 0 else { return nil }
        return withUnsafeBytes(of: addr.sun_path) { raw in
            let bytes = raw.prefix(while: { $0 != 0 })
            return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Closes the socket and removes the file if it was bound here; why it
    /// could not be removed, if so (a daemon started as root that runs as
    /// another user now may not write root's directory).
    @discardableResult
    package func close() -> String? {
        _ = Glibc.close(fd)
        guard ownsPath, unlink(path) != 0, errno != ENOENT else { return nil }
        return "\(Errno.last)"
    }

    /// The default socket path: `$RUNTIME_DIRECTORY` (systemd's RuntimeDirectory=),
    /// `/run/gestured` for root, else `$XDG_RUNTIME_DIR` (a user instance).
    package static func defaultPath() -> String? {
        if let dir = getenv("RUNTIME_DIRECTORY").map({ String(cString: $0) }), !dir.isEmpty {
            return String(dir.split(separator: ":").first ?? Substring(dir)) + "/gestured.sock"
        }
        if getuid() == 0 { return "/run/gestured/gestured.sock" }
        if let dir = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !dir.isEmpty { return dir + "/gestured.sock" }
        return nil
    }
}
