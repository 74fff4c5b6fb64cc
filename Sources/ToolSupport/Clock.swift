package import GestureCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `CLOCK_MONOTONIC`, the clock libinput stamps events with (Swift's
/// `ContinuousClock` reads `CLOCK_BOOTTIME` on Linux, which drifts from it
/// across suspend).
package func monotonicNow() -> Timestamp {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Timestamp(microseconds: Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000)
}

/// The clock a loop reads once per turn: `monotonicNow()`, or in tests a
/// clock they set by hand. A plain value, not a protocol: the loop
/// reads it twice a turn, and through an existential each read would be an
/// indirect call through a boxed value.
package struct LoopClock {
    private let manual: ManualClock?

    /// `CLOCK_MONOTONIC`.
    package static var monotonic: LoopClock { LoopClock(manual: nil) }
    /// The time `clock` is set to.
    package static func manual(_ clock: ManualClock) -> LoopClock { LoopClock(manual: clock) }

    private init(manual: ManualClock?) { self.manual = manual }

    package var now: Timestamp {
        if let manual { return manual.now }
        return monotonicNow()
    }

    /// A wait's timeout in microseconds (-1: none): until `deadline`
    /// (`.never`: none), and `maxWait` at most when given. The clock is read
    /// only when there is a deadline.
    package func timeout(until deadline: Timestamp, maxWait: Int64?) -> Int64 {
        var timeout: Int64 = -1
        if deadline != .never { timeout = max(0, (deadline - now).microseconds) }
        if let maxWait { timeout = timeout < 0 ? maxWait : min(timeout, maxWait) }
        return timeout
    }
}

/// A clock the tests set by hand: the loop sees exactly the time they choose.
package final class ManualClock {
    package var now: Timestamp
    package init(_ start: Timestamp = Timestamp(microseconds: 1_000_000)) { now = start }
}
