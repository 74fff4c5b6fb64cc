import CLinux
package import GestureCore

/// `CLOCK_MONOTONIC`, the clock libinput stamps events with. Swift's
/// `ContinuousClock` reads `CLOCK_BOOTTIME` on Linux, which drifts from it
/// across suspend, so the daemon reads this one for its poll timeouts.
package enum MonotonicClock {
    package static var now: Timestamp { Timestamp(microseconds: Int64(clinux_monotonic_usec())) }
}
