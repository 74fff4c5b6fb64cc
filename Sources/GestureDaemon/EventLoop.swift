import CLinux
package import GestureCore
package import SystemPackage
package import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The loop's one wait: an epoll set holding every descriptor the daemon
/// watches (the signalfd, libinput's epoll fd, the buses, the claimed
/// touchscreens' queue, the listener, each client), each added once, when
/// it opens, under a token the wait hands out (`add`): no two descriptors
/// ever share one. A wait hands back only the ready ones, then the clock is
/// read once for the whole turn. (A poll set handed every descriptor to the
/// kernel, and had every one looked at, on every turn: with a hundred
/// subscribers a hundred sockets per frame.)
///
/// A token names its owner (`Owner`): the turn's question "did anything of
/// the server's wake it?" is one bit test.
///
/// Level-triggered, as `poll` is: a descriptor left unread is ready again
/// at the next wait.
package final class Readiness {
    /// Whose a descriptor is.
    package enum Owner: UInt8, CaseIterable, Sendable {
        case signals, libinput, seat, sensor, claimed, listener, client
    }

    /// A descriptor's name in the set: its owner and a number no other
    /// descriptor added to this set had.
    package struct Token: Hashable, Sendable, CustomStringConvertible {
        package let rawValue: UInt64
        package var owner: Owner { Owner(rawValue: UInt8(rawValue >> 56)) ?? .client }
        package var description: String { "\(owner)#\(rawValue & 0x00ff_ffff_ffff_ffff)" }
    }

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
    private var fd: Int32
    private var count = 0
    /// Of the last wait, the owners with a descriptor ready, one bit each.
    private var readyOwners: UInt32 = 0
    /// The number the next token gets.
    private var next: UInt64 = 1

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
    /// errors always), reported under the token it returns.
    package func add(_ descriptor: Int32, _ events: UInt32, owner: Owner) -> Result<Token, Errno> {
        let token = Token(rawValue: UInt64(owner.rawValue) << 56 | next)
        guard clinux_epoll_ctl(fd, Int32(CLINUX_EPOLL_CTL_ADD), descriptor, events, token.rawValue) == 0 else {
            return .failure(Errno.last)
        }
        next += 1
        return .success(token)
    }

    /// `add`, as a setup step: an error names `what`.
    package func watch(
        _ descriptor: Int32, _ what: String, owner: Owner, output: Bool = false
    ) throws(SetupError)
        -> Token
    {
        switch add(descriptor, Self.input | (output ? Self.output : 0), owner: owner) {
        case .success(let t): return t
        case .failure(let e): throw SetupError("cannot watch \(what): \(e)")
        }
    }

    /// Watches `descriptor` for other `events` from now on.
    @discardableResult
    package func change(_ descriptor: Int32, _ events: UInt32, token: Token) -> Errno? {
        clinux_epoll_ctl(fd, Int32(CLINUX_EPOLL_CTL_MOD), descriptor, events, token.rawValue) == 0 ? nil : Errno.last
    }

    /// Stops watching `descriptor` (closing it does the same).
    package func remove(_ descriptor: Int32) {
        _ = clinux_epoll_ctl(fd, Int32(CLINUX_EPOLL_CTL_DEL), descriptor, 0, 0)
    }

    /// What happened to the descriptor of `token` in the last wait (0: nothing).
    package func events(_ token: Token) -> UInt32 {
        guard readyOwners & (1 << UInt32(token.owner.rawValue)) != 0 else { return 0 }
        for i in 0..<count where tokens[i] == token.rawValue { return events[i] }
        return 0
    }

    package func readable(_ token: Token) -> Bool { events(token) & Self.input != 0 }

    /// Whether the last wait found a descriptor of `owner` ready.
    package func anyReady(_ owner: Owner) -> Bool { readyOwners & (1 << UInt32(owner.rawValue)) != 0 }

    /// The peer hung up or the descriptor failed.
    package func hungUp(_ token: Token) -> Bool { events(token) & Self.hangUp != 0 }

    /// Waits until a descriptor is ready or `deadline` passes (`.never`: no
    /// deadline; `maxWait` microseconds at most, when given) and returns the
    /// time, read once. A signal's interruption is a turn with nothing ready;
    /// another failure is returned with the time.
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
        var owners: UInt32 = 0
        for i in 0..<count { owners |= 1 << UInt32(tokens[i] >> 56) }
        readyOwners = owners
        return (clock.now, failure)
    }

    /// Closes the epoll set (once; the object's end closes it too).
    package func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
    }
}
