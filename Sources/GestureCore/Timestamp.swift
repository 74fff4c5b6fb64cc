/// A device timestamp in microseconds (evdev / libinput event time).
///
/// Recognizers never read a clock: every notion of "now" arrives as a
/// `Timestamp` carried by a frame or an `advance(to:)` call.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Microseconds since the device's epoch (for evdev, `CLOCK_MONOTONIC` or the recording's clock).
    public var microseconds: Int64

    @inlinable public init(microseconds: Int64) { self.microseconds = microseconds }

    /// Builds a timestamp from an evdev `sec.usec` pair.
    public init(seconds: Int64, microseconds usec: Int64) {
        self.microseconds = seconds * 1_000_000 + usec
    }

    // Computed, not stored: a stored static is a lazily initialised global,
    // checked (`swift_once`) at every use, several times per frame.
    @inlinable public static var zero: Timestamp { Timestamp(microseconds: 0) }
    /// Later than any real timestamp: the deadline of an unarmed timer.
    @inlinable public static var never: Timestamp { Timestamp(microseconds: .max) }

    @inlinable public static func < (a: Timestamp, b: Timestamp) -> Bool { a.microseconds < b.microseconds }
    @inlinable public static func == (a: Timestamp, b: Timestamp) -> Bool { a.microseconds == b.microseconds }
    @inlinable public static func + (a: Timestamp, d: Duration) -> Timestamp {
        let (sum, overflow) = a.microseconds.addingReportingOverflow(d.microseconds)
        return Timestamp(microseconds: overflow ? .max : sum)
    }
    @inlinable public static func - (a: Timestamp, b: Timestamp) -> Duration {
        Duration(microseconds: a.microseconds &- b.microseconds)
    }
    @inlinable public static func - (a: Timestamp, d: Duration) -> Timestamp {
        Timestamp(microseconds: a.microseconds &- d.microseconds)
    }

    /// Seconds as a floating point number (for velocities and display).
    public var seconds: Double { Double(microseconds) / 1_000_000 }

    public var description: String {
        let s = microseconds / 1_000_000
        let us = abs(microseconds % 1_000_000)
        let pad = String(repeating: "0", count: 6 - String(us).count)
        return "\(s).\(pad)\(us)"
    }
}

extension Timestamp {
    /// A span of device time in microseconds.
    public struct Duration: Hashable, Comparable, Sendable, CustomStringConvertible {
        public var microseconds: Int64
        @inlinable public init(microseconds: Int64) { self.microseconds = microseconds }
        public static func milliseconds(_ ms: Double) -> Duration {
            Duration(microseconds: Int64((ms * 1000).rounded()))
        }
        public var milliseconds: Double { Double(microseconds) / 1000 }
        public var seconds: Double { Double(microseconds) / 1_000_000 }
        @inlinable public static func < (a: Duration, b: Duration) -> Bool { a.microseconds < b.microseconds }
        public var description: String { "\(milliseconds) ms" }
    }
}

public typealias Duration = Timestamp.Duration
