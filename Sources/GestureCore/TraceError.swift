/// A trace that cannot be read, with where and why.
public struct TraceError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// 1-based line; 0 when the problem is the file as a whole.
    public var line: Int
    public var message: String

    public init(file: String, line: Int, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `file:line: message`, the form compilers use, so editors can jump to it.
    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}

/// Something odd in a trace that a real device can produce and that was recovered from.
public struct TraceWarning: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String
    public var description: String { line > 0 ? "\(file):\(line): warning: \(message)" : "\(file): warning: \(message)" }
}

/// A trace as read from a file: the device and its events in order.
public struct Trace: Sendable {
    public var file: String
    public var device: DeviceDescription
    public var events: [EvdevEvent]

    public init(file: String, device: DeviceDescription, events: [EvdevEvent]) {
        self.file = file
        self.device = device
        self.events = events
    }
}
