import CLinux
import GestureCore
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// act's signals, read from a signalfd: SIGTERM and SIGINT stop it, SIGHUP
/// reads the actions files again; SIGCHLD only wakes the loop (the runner
/// reaps every turn). Served first in a turn, so a stop is seen whatever
/// the peers send.
final class Signals: ActSource {
    private var fd: Int32
    private var slot = Poller.Slot.none

    init() {
        var wanted: [Int32] = [SIGTERM, SIGINT, SIGHUP, SIGCHLD]
        fd = clinux_signalfd(&wanted, Int32(wanted.count))
        signal(SIGPIPE, SIG_IGN)
    }

    var deadline: Timestamp { .never }

    func prepare(_ poller: inout Poller, now: Timestamp, into news: inout [ActNews]) {
        slot = poller.add(fd, Int32(POLLIN))
    }

    func serve(_ poller: Poller, now: Timestamp, into news: inout [ActNews]) {
        guard poller.readable(slot) else { return }
        while true {
            let signo = clinux_signalfd_read(fd)
            guard signo > 0 else { return }
            switch signo {
            case SIGHUP: news.append(.reload)
            case SIGCHLD: break
            default: news.append(.stop)
            }
        }
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
