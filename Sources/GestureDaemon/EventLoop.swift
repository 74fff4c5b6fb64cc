import CLinux
package import GestureCore
package import SystemPackage
package import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The loop's one wait: an epoll set holding every descriptor the daemon
/// watches (the signalfd, libinput's epoll fd, the listener, each client),
/// each added once with a token saying whose it is; a wait hands back only
/// the ready ones, then the clock is read once for the whole turn. (A poll
/// set handed every descriptor to the kernel, and had every one looked at,
/// on every turn: with a hundred subscribers a hundred sockets per frame.)
///
/// Level-triggered, as `poll` is: a descriptor left unread is ready again
/// at the next wait.
package final class Readiness {
    package typealias Token = UInt64

    /// What a descriptor is watched for, and what a wait says happened to it.
    package static let input = UInt32(CLINUX_EPOLLIN)
    package static let output = UInt32(CLINUX_EPOLLOUT)
    /// Reported whether watched for or not.
    package static let hangUp = UInt32(CLINUX_EPOLLHUP) | UInt32(CLINUX_EPOLLERR)

    /// The most descriptors one wait reports; the others are ready at the next.
    static let capacity = 64

    /// What the last wait filled, `count` of each: fixed blocks, not arrays
    /// (an array's uniqueness check and bounds on every wait and every
    /// look-up, for storage nothing else ever shares).
    private let tokens = UnsafeMutablePointer<UInt64>.allocate(capacity: Readiness.capacity)
    private let events = UnsafeMutablePointer<UInt32>.allocate(capacity: Readiness.capacity)
    /// Only the loop's thread reads and writes these, and no caller holds
    /// them across a call: no run-time exclusivity check at each wait (for
    /// the per-frame instruction budget, `daemon-cost.sh --callgrind`).
    @exclusivity(unchecked) private var fd: Int32
    @exclusivity(unchecked) private var count = 0
    /// Of the last wait, tokens below 64 found readable, one bit each (the
    /// sources' and the listener's, asked for on every turn), and the
    /// largest token found ready.
    @exclusivity(unchecked) private var readableBelow64: UInt64 = 0
    @exclusivity(unchecked) private var largestReady: Token = 0

    package init() throws(SetupError) {
        fd = clinux_epoll_create()
        guard fd >= 0 else {
            tokens.deallocate()
            events.deallocate()
            throw SetupError("cannot create an epoll set: \(Errno.last)")
        }
    }

    deinit {
        close()
        tokens.deallocate()
        events.deallocate()
    }

    /// Watches `descriptor` for `events` (EPOLLIN, EPOLLOUT; hang-ups and
    /// errors always), reported with `token`.
    package func add(_ descriptor: Int32, _ events: UInt32, token: Token) -> Errno? {
        clinux_epoll_ctl(fd, Int32(CLINUX_EPOLL_CTL_ADD), descriptor, events, token) == 0 ? nil : Errno.last
    }

    /// Watches `descriptor` for other `events` from now on.
    package func change(_ descriptor: Int32, _ events: UInt32, token: Token) -> Errno? {
        clinux_epoll_ctl(fd, Int32(CLINUX_EPOLL_CTL_MOD), descriptor, events, token) == 0 ? nil : Errno.last
    }

    /// Stops watching `descriptor` (closing it does the same).
    package func remove(_ descriptor: Int32) {
        _ = clinux_epoll_ctl(fd, Int32(CLINUX_EPOLL_CTL_DEL), descriptor, 0, 0)
    }

    /// What happened to the descriptor of `token` in the last wait (0: nothing).
    package func events(_ token: Token) -> UInt32 {
        for i in 0..<count where tokens[i] == token { return events[i] }
        return 0
    }

    package func readable(_ token: Token) -> Bool {
        token < 64 ? readableBelow64 & (1 << token) != 0 : events(token) & Self.input != 0
    }

    /// Whether the last wait found a descriptor ready whose token is `token` or above.
    package func anyReady(from token: Token) -> Bool { count > 0 && largestReady >= token }

    /// The peer hung up or the descriptor failed.
    package func hungUp(_ token: Token) -> Bool { events(token) & Self.hangUp != 0 }

    /// Waits until a descriptor is ready or `deadline` passes (`.never`: no
    /// deadline; `maxWait` microseconds at most, when given) and returns the
    /// time, read once. A signal's interruption is a turn with nothing ready;
    /// another failure is returned with the time. (Inlined into the turn.)
    @inline(__always)
    package func wait(
        until deadline: Timestamp, clock: LoopClock, maxWait: Int64? = nil
    ) -> (now: Timestamp, error: Int32?) {
        let n = clinux_epoll_wait_usec(
            fd, tokens, events, Int32(Self.capacity), clock.timeout(until: deadline, maxWait: maxWait))
        var failure: Int32?
        if n < 0 {
            failure = errno == EINTR ? nil : errno
            count = 0
        } else {
            count = Int(n)
        }
        var readable: UInt64 = 0
        var largest: Token = 0
        for i in 0..<count {
            let token = tokens[i]
            if token < 64 && events[i] & Self.input != 0 { readable |= 1 << token }
            largest = max(largest, token)
        }
        readableBelow64 = readable
        largestReady = largest
        return (clock.now, failure)
    }

    /// Closes the epoll set (once; the object's end closes it too).
    package func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
    }
}
