import CLinux
import GestureCore
import Logging
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What the daemon does by the clock, not for a frame: tell systemd what it
/// serves (`STATUS=`, at most once per `statusInterval`) and that it lives
/// (`WATCHDOG=1`, at half the unit's `WatchdogSec=`), and give back the
/// pages one-off work mapped. Its one deadline is the earliest of theirs;
/// an idle daemon with none due never wakes for them.
struct Chores {
    let notifier = SystemdNotifier()
    private var logger: Logger

    /// `WATCHDOG=1` goes to systemd this often, when it asks (`WatchdogSec=`).
    private var watchdogInterval: Timestamp.Duration?
    private var watchdogDue = Timestamp.never

    /// Devices, subscribers and clients in the last STATUS= sent to systemd.
    private var lastStatus = Counts(devices: -1, subscribers: -1, clients: -1)
    /// When the last STATUS= went, and whether the counts changed since.
    private var lastStatusTime = Timestamp(microseconds: .min / 2)
    private var statusStale = false
    /// STATUS= goes at most this often: a storm of connections is one update a second, not thousands.
    static let statusInterval = Timestamp.Duration.milliseconds(1000)

    /// Gives back the pages of the binary and its libraries that are the
    /// files' (start-up's, then those one-off work mapped again) and
    /// returns how many bytes, or minus an errno; nil: the daemon keeps
    /// them (the in-process tests, which `run` no daemon, set none).
    var pageRelease: (() -> Int)?
    /// When the pages one-off work mapped back are given back: `pagesDelay`
    /// after the last such work, `.never` when none happened since.
    private var pagesDue = Timestamp.never
    /// Long enough that a client's connection, hello, subscription and
    /// status update (a second later at most) are all behind.
    static let pagesDelay = Timestamp.Duration.milliseconds(2000)

    /// The earliest of the chores' times, besides the server's own (its
    /// count of clients that came and went).
    private(set) var deadline = Timestamp.never

    struct Counts: Equatable {
        var devices: Int
        var subscribers: Int
        var clients: Int

        var statusLine: String {
            "STATUS=\(devices) touchscreen(s), \(subscribers) subscriber(s), \(clients) client(s)"
        }
    }

    init(logger: Logger) { self.logger = logger }

    /// Follows systemd's watchdog from `now`, if the unit asks for one.
    mutating func startWatchdog(now: Timestamp) {
        guard let usec = getenv("WATCHDOG_USEC").flatMap({ Int64(String(cString: $0)) }), usec > 0,
            getenv("WATCHDOG_PID").flatMap({ Int32(String(cString: $0)) }).map({ $0 == getpid() }) ?? true
        else { return }
        watchdogInterval = Timestamp.Duration(microseconds: usec / 2)
        watchdogDue = now
        schedule(serverDue: .never)
    }

    /// The counts changed: STATUS= goes at the next chance.
    mutating func countsChanged() { statusStale = true }

    /// Code the frames never run was mapped back (a client's connection
    /// and requests, a device, a signal, a reload): it is given back once
    /// such work has been quiet for `pagesDelay`. One wake-up per burst of
    /// it, none while idle.
    mutating func oneOffWorkRan(now: Timestamp, serverDue: Timestamp) {
        if pageRelease != nil { pagesDue = now + Self.pagesDelay }
        schedule(serverDue: serverDue)
    }

    mutating func schedule(serverDue: Timestamp) {
        deadline = min(
            statusStale ? lastStatusTime + Self.statusInterval : .never, pagesDue, serverDue, watchdogDue)
    }

    /// Does what is due by `now`.
    mutating func run(now: Timestamp, counts: Counts) {
        if statusStale && now >= lastStatusTime + Self.statusInterval { updateStatus(now: now, counts: counts) }
        if now >= pagesDue { givePagesBack(after: "one-off work") }
        if now >= watchdogDue, let interval = watchdogInterval {
            notifier.notify("WATCHDOG=1", wait: false)
            watchdogDue = now + interval
        }
    }

    /// Tells systemd what the daemon serves, when that changed (an update
    /// the receiver had no room for is not waited on: the next change sends
    /// the counts again).
    private mutating func updateStatus(now: Timestamp, counts: Counts) {
        statusStale = false
        guard counts != lastStatus else { return }
        lastStatusTime = now
        lastStatus = notifier.notify(counts.statusLine, wait: false) ? counts : Counts(devices: -1, subscribers: -1, clients: -1)
    }

    /// `READY=1` with the counts (at start, and after a reload).
    mutating func ready(_ counts: Counts) {
        lastStatus = counts
        notifier.notify("READY=1\n" + counts.statusLine)
    }

    /// Unmaps the code and read-only data of the binary and of its shared
    /// libraries that are not the process's own copy: during start-up,
    /// what each step ran before the next (the configuration reader; the
    /// socket's and the seat's setup; libinput's device setup), about half
    /// of an idle daemon's resident memory; later, what one-off work mapped
    /// again (a client's connection and requests, a device, a reload). The
    /// pages stay in the page cache; what runs next is mapped again as it
    /// runs (docs/cost.md, "Memory").
    mutating func givePagesBack(after what: String) {
        pagesDue = .never
        guard let pageRelease else { return }
        let released = pageRelease()
        if released < 0 {
            // Said once: what failed (/proc/self/pagemap unreadable) fails again.
            logger.info("pages kept after \(what), and from now on: \(Errno(rawValue: Int32(-released)))")
            self.pageRelease = nil
        } else {
            logger.debug("pages given back after \(what): \(released / 1024) KiB")
        }
    }

    /// The release the daemon uses once it serves (`clinux_release_executable_pages`).
    static let executablePages: @Sendable () -> Int = {
        let n = clinux_release_executable_pages()
        return n < 0 ? -Int(Errno.last.rawValue) : n
    }
}
