import CLinux
import GestureConfiguration
package import GestureCore
import Logging
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Who gets in: connections accepted within the turn's budget, each let
/// in or told why not; at the descriptor limit, told and rested.
extension Server {
    /// Accepts waiting connections, at most `acceptBudget` a turn: one that
    /// may not subscribe, or that finds every slot (or its user's share of
    /// them) taken, is told why and closed.
    mutating func accept(devices: [DeviceInfo], now: Timestamp) -> News {
        var news = News()
        // Closing clients keep their slots until they are gone (an overflowing
        // one may take a while): no connecting and overflowing round and round.
        guard let listener else { return news }
        var active = clients.count { $0.fd >= 0 }
        /// The hello, made once for the turn's newcomers.
        var hello: [UInt8]?
        let stop = monotonicNow() + Self.acceptTime
        for n in 0... {
            // The clock is looked at every 16 connections: each is a few microseconds.
            if n % 16 == 15 && monotonicNow() >= stop { break }
            let fd = clinux_accept(listener.fd)
            if fd < 0 {
                let e = Errno.last
                switch e {
                case .resourceTemporarilyUnavailable: return news
                case .connectionAbort: continue
                case .tooManyOpenFiles, .tooManyOpenFilesInSystem:
                    outOfDescriptors(now: now)
                    return news
                default:
                    refusals.note(now: now, logger) { "accept: \(e)" }
                    return news
                }
            }
            var pid: pid_t = 0
            var uid: uid_t = 0
            var gid: gid_t = 0
            if clinux_peer_credentials(fd, &pid, &uid, &gid) != 0 {
                Glibc.close(fd)
                continue
            }
            serial += 1
            came += 1
            if activityDue == .never { activityDue = now + Self.activityInterval }
            news.countsChanged = true
            let limit = settings.maxClients
            let share = settings.clientsPerUser
            if active >= limit || clients.count(where: { $0.uid == uid && $0.fd >= 0 }) >= share {
                // Clients that hung up since the last turn hold no slot: not
                // the whole daemon's, nor their user's. (A client connecting
                // and closing in a loop leaves connections that are gone by
                // the time this turn accepted them; the user's next newcomer
                // is not refused for them.)
                news.merge(reapHungUp())
                active = clients.count { $0.fd >= 0 }
            }
            let refusal: (code: String, message: String, log: String)?
            if !access.allows(fd: fd, uid: uid, gid: gid) {
                refusal = (
                    "forbidden", "uid \(uid) may not subscribe: not in [daemon] allow-users/allow-groups",
                    "not in [daemon] allow-users or allow-groups"
                )
            } else if active >= limit {
                refusal = ("busy", "the daemon serves \(limit) clients already", "\(limit) clients already (max-clients)")
            } else if clients.count(where: { $0.uid == uid && $0.fd >= 0 }) >= share {
                let why = "uid \(uid) has \(share) clients already (max-clients-per-user)"
                refusal = ("busy", why, why)
            } else {
                refusal = nil
            }
            // A welcome connection gets its hello at once: one that is gone
            // already (a client that connects and closes) is closed here,
            // with no more work than that.
            var unsent: ArraySlice<UInt8> = []
            if refusal == nil {
                if hello == nil {
                    hello = Array(
                        (ServerMessage.hello(
                            devices: devices, server: "gestured \(gesturedVersion)", unavailable: unavailable) + "\n")
                            .utf8)
                }
                let n = hello!.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
                if n < 0 && errno != EAGAIN {
                    Glibc.close(fd)
                    went += 1
                    continue
                }
                unsent = hello![max(0, n)...]
            }
            // Watched for input from the next wait on (`watch` changes that as it goes).
            guard let loop else { return news }
            let token: Readiness.Token
            switch loop.add(fd, Readiness.input, owner: .client) {
            case .success(let t): token = t
            case .failure(let e):
                refusals.note(now: now, logger) { "cannot watch a new connection: \(e)" }
                Glibc.close(fd)
                went += 1
                continue
            }
            clients.append(
                Client(
                    fd: fd, token: token, serial: serial, pid: pid, uid: uid, gid: gid, outboxLimit: settings.clientBuffer))
            let i = clients.count - 1
            if let refusal {
                let label = clients[i].label
                refusals.note(now: now, logger) { "refused \(label): \(refusal.log)" }
                news.merge(refuse(i, code: refusal.code, message: refusal.message, now: now))
                continue
            }
            active += 1
            clients[i].atScreen = access.atScreen(uid, seat: seat)
            clients[i].subscribeDeadline = now + subscribeTimeout
            logger.debug("\(clients[i].label) connected")
            if !unsent.isEmpty { _ = unsent.withUnsafeBytes { clients[i].enqueue($0) } }
        }
        return news
    }

    /// Drops the clients whose peer has gone (a non-blocking look at every socket).
    mutating func reapHungUp() -> News {
        var news = News()
        var set = clients.map { pollfd(fd: $0.fd, events: 0, revents: 0) }
        guard poll(&set, nfds_t(set.count), 0) > 0 else { return news }
        for (i, p) in set.enumerated()
        where clients[i].fd >= 0 && Int32(p.revents) & Int32(POLLHUP | POLLERR | POLLNVAL) != 0 {
            news.merge(drop(i, "disconnected"))
        }
        return news
    }

    /// At the process's descriptor limit (`EMFILE`): the spare descriptor
    /// makes room to accept one waiting connection and tell it; then the
    /// listener rests until a client goes.
    mutating func outOfDescriptors(now: Timestamp) {
        let count = clients.count
        refusals.note(now: now, logger) {
            "out of file descriptors (RLIMIT_NOFILE) with \(count) clients; new connections wait until one goes (a second at most)"
        }
        if spareFD >= 0 {
            Glibc.close(spareFD)
            spareFD = -1
            let fd = listener.map { clinux_accept($0.fd) } ?? -1
            if fd >= 0 {
                let line = ServerMessage.error(
                    code: "busy", message: "the daemon is out of file descriptors; try again later", fatal: true)
                _ = (line + "\n").withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                Glibc.close(fd)
            }
            spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        }
        listenerPaused = true
        pausedUntil = now + Self.pauseLength
    }

    /// Counts in the log the clients that came and went in the last
    /// minute, if any did (the daemon calls it at `activityDue`).
    package mutating func reportActivity(now: Timestamp) {
        guard now >= activityDue else { return }
        let count = clients.count { $0.fd >= 0 }
        logger.info("in the last minute \(came) connection(s) came and \(went) went; \(count) client(s) now")
        came = 0
        went = 0
        activityDue = .never
    }

}
