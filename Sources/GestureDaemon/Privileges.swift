import CLinux
import Logging
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What a daemon started by hand does about what it inherited and what it
/// may do: the descriptors it was given, root, and its descriptor limit.
package enum Privileges {
    /// Closes the descriptors `serve` inherited, but for the sockets systemd
    /// passes (`LISTEN_FDS`): a daemon started from a shell or a script holds
    /// nothing of theirs. Call first thing in `serve`.
    package static func closeInheritedDescriptors() {
        var keep: Int32 = 3
        if let pid = getenv("LISTEN_PID").flatMap({ Int32(String(cString: $0)) }), pid == getpid(),
            let n = getenv("LISTEN_FDS").flatMap({ Int32(String(cString: $0)) }), n > 0
        {
            keep += n
        }
        _ = clinux_close_inherited(keep)
    }

    /// Started by hand as root: the socket is bound and the devices are
    /// open, so root is needed no more. The daemon becomes `runAs`, by
    /// default the service's user, `gestured` (which the shipped udev rules
    /// let read touchscreens plugged in later), or `nobody` where there is
    /// none, and drops every capability (docs/security.md). "root": it
    /// stays root, without capabilities.
    static func dropRoot(runAs: String?, logger: Logger) throws(SetupError) {
        if runAs == "root" {
            if clinux_drop_capabilities(uid_t.max, gid_t.max) != 0 {
                throw SetupError("cannot drop capabilities", Errno.last)
            }
            logger.warning("started as root and staying root (--user root), without capabilities")
            return
        }
        let name: String
        let uid: uid_t
        if let wanted = runAs {
            guard let u = Users.uid(named: wanted) ?? UInt32(wanted) else {
                throw SetupError("--user: no user named '\(wanted)'")
            }
            (name, uid) = (wanted, u)
        } else if let u = Users.uid(named: "gestured") {
            (name, uid) = ("gestured", u)
        } else {
            (name, uid) = ("nobody", Users.uid(named: "nobody") ?? 65534)
        }
        let gid = Users.primaryGroup(of: uid) ?? uid
        if clinux_drop_capabilities(uid, gid) == 0 {
            logger.notice("started as root: now running as \(name) (uid \(uid)), every capability dropped")
            if name == "nobody" {
                logger.notice(
                    "touchscreens plugged in from now on open only if nobody may read them; the gestured user of `sudo make install` may, or pass --user root"
                )
            }
        } else {
            let why = Errno.last
            // Still root (a user namespace without that uid): at least without capabilities.
            _ = clinux_drop_capabilities(uid_t.max, gid_t.max)
            logger.warning("started as root: could not become \(name) (\(why)); running as root without capabilities")
        }
    }

    /// Descriptors the daemon needs besides its clients: standard streams,
    /// the signalfd, the listener, libinput's epoll, udev's monitor and the
    /// touchscreens, the buses, the claimed touchscreens and their clones,
    /// the notify socket, the spare, configuration files.
    static let descriptorReserve = 64

    /// Makes sure `RLIMIT_NOFILE` holds `max-clients` clients and the reserve,
    /// raising the soft limit when the hard one allows; else an error naming both numbers.
    static func ensureDescriptors(for maxClients: Int) throws(SetupError) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let needed = rlim_t(maxClients + descriptorReserve)
        guard limit.rlim_cur < needed else { return }
        if limit.rlim_max >= needed {
            var raised = limit
            raised.rlim_cur = needed
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return }
        }
        throw SetupError(
            "max-clients = \(maxClients) needs \(needed) file descriptors, but RLIMIT_NOFILE allows \(limit.rlim_cur) (hard limit \(limit.rlim_max)); lower max-clients in [daemon] or raise the limit (LimitNOFILE= in the unit, ulimit -n)"
        )
    }
}
