package import GestureCore

/// At most `perSecond` of something a second, in a burst of as many: a
/// bucket of that many tokens, refilled at that rate. The one rate limit
/// of the package: the daemon's keys, clicks and orientations per user,
/// act's `max-per-second` per binding.
package struct RateBucket: Sendable {
    package let perSecond: Int
    private var tokens: Double
    private var at = Timestamp.zero

    package init(perSecond: Int) {
        self.perSecond = perSecond
        tokens = Double(perSecond)
    }

    /// Takes a token at `now`; false when there is none.
    package mutating func take(now: Timestamp) -> Bool {
        let rate = Double(perSecond)
        tokens = min(rate, tokens + rate * max(0, (now - at).seconds))
        at = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
