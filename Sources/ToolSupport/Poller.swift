import CLinux
package import GestureCore

#if canImport(Glibc)
    import Glibc
#endif

/// The wait of a loop over a few descriptors that come and go (`gestured
/// act`'s sources, `monitor`'s connections, `record`'s device): one
/// `ppoll(2)` until the earliest deadline, then the clock, read once for the
/// whole turn; a signal's interruption is a turn with nothing ready. (The
/// daemon waits on an epoll set instead: `Readiness`.)
///
/// Each source adds its descriptor and keeps the slot it was given, then asks
/// for that slot's readiness after the wait: no slot is found by position.
package struct Poller {
    /// This turn's descriptors are `set[0..<count]`; the array only grows,
    /// so a turn rewrites it in place.
    private var set: [pollfd] = []
    private var count = 0

    package init() {}

    /// Where one descriptor is in this turn's set.
    package struct Slot {
        fileprivate var index: Int
        /// A slot for nothing: never ready.
        package static let none = Slot(index: -1)
    }

    /// Starts a new turn's set (keeping its storage).
    package mutating func reset() { count = 0 }

    /// Adds `fd` (negative: skipped) waiting for `events` (POLLIN, POLLOUT).
    package mutating func add(_ fd: Int32, _ events: Int32) -> Slot {
        guard fd >= 0 else { return .none }
        let entry = pollfd(fd: fd, events: Int16(truncatingIfNeeded: events), revents: 0)
        if count < set.count { set[count] = entry } else { set.append(entry) }
        count += 1
        return Slot(index: count - 1)
    }

    /// What happened to a slot's descriptor in the last wait (0: nothing).
    package func events(_ slot: Slot) -> Int32 {
        slot.index < 0 ? 0 : Int32(set[slot.index].revents)
    }

    package func readable(_ slot: Slot) -> Bool { events(slot) & Int32(POLLIN) != 0 }

    /// The peer hung up or the descriptor failed.
    package func hungUp(_ slot: Slot) -> Bool { events(slot) & Int32(POLLHUP | POLLERR | POLLNVAL) != 0 }

    /// Waits until a descriptor is ready or `deadline` passes (`.never`: no
    /// deadline; `maxWait` microseconds at most, when given) and returns the
    /// time, read once. A signal's interruption is a turn with nothing ready;
    /// another failure is returned with the time.
    package mutating func wait(
        until deadline: Timestamp, clock: LoopClock, maxWait: Int64? = nil
    ) -> (
        now: Timestamp, error: Int32?
    ) {
        let n = clinux_poll_usec(&set, UInt(count), clock.timeout(until: deadline, maxWait: maxWait))
        var failure: Int32?
        if n < 0 {
            failure = errno == EINTR ? nil : errno
            for i in 0..<count { set[i].revents = 0 }
        }
        return (clock.now, failure)
    }
}
