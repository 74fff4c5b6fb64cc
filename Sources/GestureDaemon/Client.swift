import GestureCore
import GestureProtocol
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// One connected client: its socket, credentials, subscription, what it sent
/// and has not been answered, and a bounded outbox.
///
/// A value kept in the server's array and changed in place. Nothing here
/// blocks: what the socket does not take now waits in the outbox and goes
/// out when the socket is writable.
package struct Client {
    package enum State: Equatable {
        /// Sent `hello`, no subscription (yet, or any more).
        case connected
        case subscribed
        /// Being closed: nothing more is queued; what is queued goes out, then the socket closes.
        case closing
    }

    /// The socket; -1 once closed (the client leaves the server's list at the end of the turn).
    package private(set) var fd: Int32
    /// Its socket's token in the loop's set.
    package let token: Readiness.Token
    /// Connection number, for the log.
    package let serial: Int
    // Swift's own integers (pid_t, uid_t, gid_t are these), so that the
    // type does not hang on which C module declared them first.
    package let pid: Int32
    package let uid: UInt32
    package let gid: UInt32
    package var state: State = .connected
    package var subscription = Subscription() {
        didSet {
            if subscription.tracks != oldValue.tracks { followers = subscription.tracks.map { TrackFollower($0.track) } }
        }
    }
    /// One for each of the subscription's track rules, each following the
    /// gestures it measures from every event (the ones left out for a slow
    /// reader included).
    private var followers: [TrackFollower] = []
    /// Ids of the continuous gestures whose start passed this client's
    /// fingers and region filters (a few at most: those under way).
    var admitted: [UInt64] = []
    /// The client shut down its sending side; it may still read.
    var readClosed = false
    /// When a closing client is closed even if its outbox has not drained.
    var closeDeadline: Timestamp = .never
    /// When a client that has not subscribed (or unsubscribed) is closed.
    var subscribeDeadline: Timestamp = .never
    /// `changed` events left out because the client fell behind.
    var skippedChanges = 0
    /// What the loop watches its socket for (EPOLLIN, EPOLLOUT): input from the start.
    var watched = Readiness.input
    /// A `keys` or `pointer` request read while logind's messages waited
    /// unread (`Server.seatBehind`): answered once they are read.
    var deferred: ClientRequest?
    /// Its user is at the screen (`AccessPolicy.atScreen`): it receives
    /// gestures and may type keys. Otherwise it was told `paused`.
    var atScreen = true

    private var outbox: [UInt8] = []
    private var outboxHead = 0
    let outboxLimit: Int

    init(fd: Int32, token: Readiness.Token, serial: Int, pid: pid_t, uid: uid_t, gid: gid_t, outboxLimit: Int) {
        self.fd = fd
        self.token = token
        self.serial = serial
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.outboxLimit = outboxLimit
    }

    /// Bytes waiting to be written.
    package var pending: Int { outbox.count - outboxHead }

    /// Its socket was closed.
    mutating func markClosed() {
        fd = -1
        state = .closing
    }

    /// Whether the subscription tracks any gesture.
    var tracks: Bool { !followers.isEmpty }

    /// What the first track rule that measures `event` reads of it.
    mutating func reading(_ event: borrowing GestureEvent) -> TrackReading? {
        for k in subscription.tracks.indices where subscription.tracks[k].measures(event) {
            return followers[k].read(event)
        }
        return nil
    }

    /// What to say about this client in the log.
    var label: String { "client \(serial) (pid \(pid), uid \(uid))" }

    /// Whether `event` goes to this client: its filters, the tap timing it
    /// wants, and for a continuous gesture whether its start was admitted
    /// (recorded here, so later phases follow that decision). The event's
    /// device is `devices[device]`, read only by a device filter: a copy of
    /// it for every event retained and released its strings.
    mutating func accepts(_ event: borrowing GestureEvent, device: Int, of devices: [DeviceInfo]) -> Bool {
        guard state == .subscribed, atScreen, subscription.gestures.contains(event.gesture) else { return false }
        guard event.timing.isFor(maxTaps: subscription.maxTaps) else { return false }
        guard subscription.devices == nil || subscription.accepts(device: devices[device]) else { return false }
        switch event.phase {
        case .recognized:
            guard subscription.admits(event) else { return false }
        case .began:
            guard subscription.admits(event) else { return false }
            admitted.append(event.id)
        case .changed:
            guard admitted.contains(event.id) else { return false }
        case .ended, .cancelled:
            guard let i = admitted.firstIndex(of: event.id) else { return false }
            admitted.remove(at: i)
        }
        if let phases = subscription.phases, !phases.contains(event.phase) { return false }
        return true
    }

    // MARK: Input

    /// Bytes read and not yet taken as lines: at most one line of the
    /// longest length, and a turn's reading.
    private var input = LineBuffer(limit: WireProtocol.maxLineLength + Client.readBudget)

    /// Unread input waiting here, complete lines or not: kept here as the
    /// buffer changes, because the server asks it of every client on every
    /// turn, and asking `input` from the server copies the whole client.
    private(set) var buffered = 0

    /// The most bytes read from one client in one turn of the loop.
    static let readBudget = 64 * 1024

    /// Reads at most `readBudget` bytes the socket has now, through `scratch`;
    /// nothing while the buffer is full (the kernel's buffer then holds the
    /// rest, and pushes back on the sender).
    mutating func fill(scratch: inout [UInt8]) -> LineBuffer.FillResult {
        defer { buffered = input.buffered }
        return input.fill(from: fd, budget: Client.readBudget, scratch: &scratch)
    }

    /// The next complete line (`LineBuffer.nextLine`). Valid until the next `fill`.
    mutating func nextLine() -> ArraySlice<UInt8>? {
        defer { buffered = input.buffered }
        return input.nextLine()
    }

    /// A complete line waits.
    var hasLine: Bool { input.hasLine }

    /// Room for more input.
    var wantsInput: Bool { buffered < input.limit }

    /// After `nextLine` returned nil: the line being received is already
    /// longer than the protocol allows.
    var lineTooLong: Bool { buffered > WireProtocol.maxLineLength }

    // MARK: Output

    /// Queues one line (a newline is added). Returns false, queuing nothing,
    /// when the outbox would exceed its limit.
    mutating func enqueue(_ line: String) -> Bool {
        var line = line
        return line.withUTF8 { enqueue(UnsafeRawBufferPointer($0)) }
    }

    /// Queues one line given as bytes, without its newline.
    mutating func enqueue(_ line: UnsafeRawBufferPointer) -> Bool {
        guard state != .closing else { return true }
        if pending + line.count + 1 > outboxLimit { return false }
        outbox.append(contentsOf: line)
        outbox.append(UInt8(ascii: "\n"))
        return true
    }

    /// Whether more than half the outbox waits after writing what the socket
    /// takes now: the client is not reading as fast as events come. (A burst
    /// queued within one turn is not falling behind until the socket says so;
    /// a failed write is left for the server's flush to report.)
    mutating func fallingBehind() -> Bool {
        guard pending > outboxLimit / 2 else { return false }
        _ = flush()
        return pending > outboxLimit / 2
    }

    /// Queues a last line even beyond the limit and marks the client closing.
    /// With `dropQueued` (the outbox overflowed) only the unsent rest of a
    /// line already begun is kept before it; otherwise every queued line is
    /// (a daemon stopping says goodbye after what it already had to say).
    mutating func enqueueFinal(_ line: String, closeBy deadline: Timestamp, dropQueued: Bool = true) {
        if state != .closing {
            // Keep the tail of a line the socket has partly taken, so the client never sees half a line.
            if dropQueued && (outboxHead > 0 || pending > 0) {
                let unsent = outbox[outboxHead...]
                let firstNewline = unsent.firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? outbox.count
                let startedPartial = outboxHead > 0 && outbox[outboxHead - 1] != UInt8(ascii: "\n")
                outbox = startedPartial ? Array(outbox[outboxHead..<firstNewline]) : []
                outboxHead = 0
            }
            outbox.append(contentsOf: line.utf8)
            outbox.append(UInt8(ascii: "\n"))
        }
        state = .closing
        closeDeadline = min(closeDeadline, deadline)
    }

    /// How long a client whose outbox overflowed has to read up to its
    /// `overflow` error: one that stalled for a while and reads again still
    /// learns why it was cut off. It keeps its slot meanwhile.
    static let overflowGrace = Timestamp.Duration.milliseconds(10_000)

    /// Its outbox is full and stays full after a write: it is told
    /// `overflow` (after the unsent rest of a line begun) and closed once
    /// that is written, or after `overflowGrace`. What to log of it.
    mutating func overflowed(now: Timestamp) -> String {
        enqueueFinal(
            ServerMessage.error(
                code: "overflow", message: "you did not read fast enough; \(outboxLimit / 1024) KiB were waiting", fatal: true),
            closeBy: now + Self.overflowGrace)
        return "\(label) does not read: outbox over \(outboxLimit / 1024) KiB; closing it"
    }

    enum FlushResult {
        case done
        case wouldBlock
        case failed(Errno)
    }

    /// Writes as much of the outbox as the socket takes now (one `write(2)`
    /// when it takes everything).
    mutating func flush() -> FlushResult {
        while outboxHead < outbox.count {
            let n: Int
            do {
                n = try outbox.withUnsafeBytes {
                    try FileDescriptor(rawValue: fd).write(UnsafeRawBufferPointer(rebasing: $0[outboxHead...]))
                }
            } catch Errno.resourceTemporarilyUnavailable {
                return .wouldBlock
            } catch {
                return .failed(error as? Errno ?? .ioError)
            }
            outboxHead += n
        }
        outbox.removeAll(keepingCapacity: outbox.capacity <= 64 * 1024)
        outboxHead = 0
        return .done
    }
}
