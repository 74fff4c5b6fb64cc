public import GestureCore
package import Logging
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Takes gesture events to the subscriptions that want them: each client's
/// filters, one JSON encoding per event shared by all who get it, each
/// client's outbox. The server flushes outboxes; the publisher writes only
/// to learn whether a client that looks behind really is. It knows nothing
/// of the recognizer.
///
/// A client that falls behind gets fewer `changed` events: once half its
/// outbox waits and its socket takes no more of it (the publisher tries a
/// write first: a burst within one turn is not falling behind), `changed`
/// events are left out (the next one, or the
/// gesture's end, carries on from where they were), so that a burst (the
/// backlog after any stall) does not cut it off; other phases are always
/// queued. One whose outbox is full, and stays full after a write, gets
/// `overflow` and is closed.
package struct Publisher {
    private var logger: Logger
    /// Clients that do not read, said a few times per ten seconds at most.
    private var overflows = RepeatLimiter()
    /// One event's JSON line, encoded once per event.
    private var line: [UInt8] = []
    /// `line` with a track's reading, for a client that tracks the gesture.
    private var annotated: [UInt8] = []
    /// The last device whose events were encoded, and its name as a JSON
    /// string (escaped once, not for every event).
    private var named: (id: DeviceID, json: [UInt8])?

    package init(logger: Logger) { self.logger = logger }

    /// Queues each gesture and device message, in order, for every client
    /// that wants it: how many lines were queued, and whether a subscriber
    /// overflowed (and so left the subscribers). `devices` holds every
    /// device the gestures name.
    package mutating func publish(
        _ outbound: Outbound, devices: [DeviceInfo], to clients: inout [Client], now: Timestamp
    ) -> (queued: Int, overflowed: Bool) {
        var overflowed = false
        var queued = 0
        var m = 0
        for k in outbound.gestures.indices {
            let told = broadcastDeviceMessages(outbound.deviceMessages, before: k, from: &m, to: &clients, now: now)
            queued += told.queued
            overflowed = overflowed || told.overflowed
            let id = outbound.gestures[k].device
            guard let d = devices.firstIndex(where: { $0.id == id }) else { continue }
            let r = deliver(outbound.gestures[k], device: d, of: devices, to: &clients, now: now)
            queued += r.queued
            overflowed = overflowed || r.overflowed
        }
        let told = broadcastDeviceMessages(outbound.deviceMessages, before: .max, from: &m, to: &clients, now: now)
        queued += told.queued
        overflowed = overflowed || told.overflowed
        return (queued, overflowed)
    }

    /// Queues one gesture event of `devices[device]` for every client that
    /// wants it. The device is named by its index and read only to encode
    /// (once per event) or by a device filter: a copy of it for every event
    /// retained and released its three strings.
    private mutating func deliver(
        _ event: borrowing GestureEvent, device: Int, of devices: [DeviceInfo], to clients: inout [Client],
        now: Timestamp
    ) -> (queued: Int, overflowed: Bool) {
        var overflowed = false
        var queued = 0
        var length = -1
        for i in clients.indices {
            // A track reads every event of its gestures, sent or not.
            let reading = clients[i].tracks ? clients[i].reading(event) : nil
            guard clients[i].accepts(event, device: device, of: devices) else { continue }
            if event.phase == .changed && clients[i].fallingBehind() {
                clients[i].skippedChanges += 1
                continue
            }
            if length < 0 { length = encode(event, device: device, of: devices) }
            var n = length
            var extended = false
            if let reading {
                n = annotate(length, with: reading)
                extended = true
            } else if event.gesture == .stroke, let path = event.path, !clients[i].subscription.shapes.isEmpty {
                n = annotate(length, with: clients[i].subscription.shapes.match(path.points))
                extended = true
            }
            // A full outbox: `fallingBehind` writes what the socket takes,
            // after which the line may fit.
            if enqueue(n, annotated: extended, to: &clients[i])
                || (!clients[i].fallingBehind() && enqueue(n, annotated: extended, to: &clients[i]))
            {
                queued += 1
            } else {
                overflow(&clients[i], now: now)
                overflowed = true
            }
        }
        return (queued, overflowed)
    }

    /// Queues the first `length` bytes of `line` (or of `annotated`) in
    /// `client`'s outbox, if they fit.
    private func enqueue(_ length: Int, annotated isAnnotated: Bool, to client: inout Client) -> Bool {
        if isAnnotated {
            return annotated.withUnsafeBytes { client.enqueue(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
        }
        return line.withUnsafeBytes { client.enqueue(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
    }

    /// The event's line, the first `length` bytes of `line`, with a track's
    /// reading before its closing brace, into `annotated`; its length.
    private mutating func annotate(_ length: Int, with reading: TrackReading) -> Int {
        var tail = #","progress":"#
        GestureEvent.appendJSONNumber(reading.progress, scale: 10_000, to: &tail)
        if let completed = reading.completed { tail += #","completed":\#(completed)"# }
        return annotate(length, tail: tail)
    }

    /// The same with the shape a subscriber's stroke matched (`null`: none
    /// of its shapes), its score and distance.
    private mutating func annotate(_ length: Int, with match: StrokeShapes.Match?) -> Int {
        guard let match else { return annotate(length, tail: #","shape":null"#) }
        var tail = #","shape":"#
        GestureEvent.appendJSONString(match.name, to: &tail)
        tail += #","score":"#
        GestureEvent.appendJSONNumber(match.score, scale: 1000, to: &tail)
        tail += #","shape_distance":"#
        GestureEvent.appendJSONNumber(match.distance, scale: 10_000, to: &tail)
        return annotate(length, tail: tail)
    }

    /// `line`'s first `length` bytes with `tail` before the closing brace, into `annotated`.
    private mutating func annotate(_ length: Int, tail: String) -> Int {
        let tail = tail + "}"
        annotated.removeAll(keepingCapacity: true)
        annotated.append(contentsOf: line[0..<(length - 1)])
        annotated.append(contentsOf: tail.utf8)
        return annotated.count
    }

    /// Encodes `event` of `devices[device]` into `line`; returns its length.
    private mutating func encode(_ event: GestureEvent, device: Int, of devices: [DeviceInfo]) -> Int {
        if named?.id != devices[device].id {
            let name = devices[device].name
            named = (devices[device].id, GestureEvent.quotedJSON(name))
            let capacity = GestureEvent.jsonCapacity(deviceName: name)
            if line.count < capacity { line = [UInt8](repeating: 0, count: max(capacity, 1024)) }
        }
        return event.encodeJSON(into: &line, quotedDeviceName: named!.json)
    }

    /// Queues the device messages from `messages[next]` on that go before
    /// the gesture at `index`; `next` moves past them.
    private mutating func broadcastDeviceMessages(
        _ messages: [Outbound.DeviceMessage], before index: Int, from next: inout Int, to clients: inout [Client],
        now: Timestamp
    ) -> (queued: Int, overflowed: Bool) {
        var overflowed = false
        var queued = 0
        while next < messages.count && messages[next].before <= index {
            let r = broadcast(messages[next].line, device: messages[next].info, to: &clients, now: now)
            queued += r.queued
            overflowed = overflowed || r.overflowed
            next += 1
        }
        return (queued, overflowed)
    }

    /// Queues a line (`device_added`, `device_removed`) for the subscribers
    /// that follow `device`.
    private mutating func broadcast(
        _ text: String, device: DeviceInfo, to clients: inout [Client], now: Timestamp
    ) -> (
        queued: Int, overflowed: Bool
    ) {
        var overflowed = false
        var queued = 0
        for i in clients.indices where clients[i].state == .subscribed && clients[i].subscription.accepts(device: device) {
            if clients[i].enqueue(text) {
                queued += 1
            } else {
                overflow(&clients[i], now: now)
                overflowed = true
            }
        }
        return (queued, overflowed)
    }

    /// `overflow`, then the client closes once that is written (or after the grace).
    private mutating func overflow(_ c: inout Client, now: Timestamp) {
        let said = c.overflowed(now: now)
        overflows.note(now: now, logger) { said }
    }
}

/// What the publisher sends in one turn, in order: the recognizer's gesture
/// events (which it appends to `gestures` itself) and, between them, the
/// devices that came and went, each placed before the gesture made after it.
/// Both are kept, with their storage, from one turn to the next.
package struct Outbound: GestureSink {
    package struct DeviceMessage {
        /// It goes before `gestures[before]` (after the last gesture, when
        /// there is none at that place).
        var before: Int
        /// `device_added` or `device_removed`, for the subscribers that follow `info`.
        var line: String
        var info: DeviceInfo
    }

    package var gestures = GestureEvents()
    package private(set) var deviceMessages: [DeviceMessage] = []

    package init() {}

    package var isEmpty: Bool { gestures.isEmpty && deviceMessages.isEmpty }

    package mutating func receive(_ event: GestureEvent) { gestures.append(event) }

    /// A device came or went, after the gestures so far: `line` for the subscribers that follow it.
    package mutating func device(_ line: String, _ info: DeviceInfo) {
        deviceMessages.append(DeviceMessage(before: gestures.count, line: line, info: info))
    }

    /// Empties the list for the next turn, keeping its storage.
    package mutating func removeAll() {
        gestures.removeAll()
        if !deviceMessages.isEmpty { deviceMessages.removeAll() }
    }
}

/// The daemon's fan-out on its own, for the benchmark package (`Benchmarks/`),
/// which sees only public declarations: `subscribers` clients on socket
/// pairs, subscribed to everything, and the daemon's own publisher.
/// Not API; `@_spi(Benchmarks) import GestureDaemon` to use it.
@_spi(Benchmarks) public final class FanOutBench {
    private var clients: [Client] = []
    private var peers: [Int32] = []
    private let devices: [DeviceInfo]
    private var publisher = Publisher(logger: Logger(label: "bench"))
    private var outbound = Outbound()
    private var scratch = [UInt8](repeating: 0, count: 65536)

    /// Fails (nil) when the socket pairs cannot be made (out of descriptors).
    public init?(subscribers: Int, deviceName: String) {
        devices = [
            DeviceInfo(
                id: DeviceID(1), name: deviceName, node: "/dev/input/event5", vendorProduct: "1d6b:7e57", width: 200,
                height: 100, sizeSource: .configuration, rotation: 0, slots: 10)
        ]
        for i in 0..<subscribers {
            var fds: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds) == 0 else {
                return nil
            }
            var c = Client(
                fd: fds[0], token: Readiness.Token(rawValue: UInt64(i)), serial: i, pid: 0, uid: 0, gid: 0,
                outboxLimit: 1 << 20)
            c.state = .subscribed
            clients.append(c)
            peers.append(fds[1])
        }
    }

    deinit {
        for c in clients { close(c.fd) }
        for p in peers { close(p) }
    }

    /// Delivers `event` as the daemon does: filters, one encoding, each
    /// client's outbox, then the sockets (one `write` per client). Returns
    /// how many clients got it.
    @discardableResult
    public func publish(_ event: GestureEvent) -> Int {
        outbound.removeAll()
        outbound.receive(event)
        let count = publisher.publish(outbound, devices: devices, to: &clients, now: event.time).queued
        for i in clients.indices where clients[i].pending > 0 { _ = clients[i].flush() }
        return count
    }

    /// Reads and drops what the subscribers' ends have received (outside the measurement).
    public func drain() {
        for p in peers {
            while scratch.withUnsafeMutableBytes({ recv(p, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {}
        }
    }
}
