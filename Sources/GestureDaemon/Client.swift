import GestureCore

#if canImport(Glibc)
    package import Glibc
#endif

/// One connected client: its socket, credentials, subscription, and a bounded outbox.
///
/// Writes never block: what the socket does not take now waits in the outbox
/// and goes out when the socket is writable. A client whose outbox would
/// grow beyond the limit gets `overflow` and is closed.
package final class Client {
    package enum State: Equatable {
        /// Sent `hello`, no subscription (yet, or any more).
        case connected
        case subscribed
        /// Being closed: nothing more is queued; what is queued goes out, then the socket closes.
        case closing
    }

    package let fd: Int32
    /// Connection number, for the log.
    package let serial: Int
    package let pid: pid_t
    package let uid: uid_t
    package let gid: gid_t
    package var state: State = .connected
    package var subscription = Subscription()
    /// Continuous gestures whose start passed this client's fingers and region filters.
    var admitted: Set<UInt64> = []
    /// The client shut down its sending side; it may still read.
    var readClosed = false
    /// When a closing client is closed even if its outbox has not drained.
    var closeDeadline: Timestamp = .never

    private var input: [UInt8] = []
    private var outbox: [UInt8] = []
    private var outboxHead = 0
    let outboxLimit: Int

    init(fd: Int32, serial: Int, pid: pid_t, uid: uid_t, gid: gid_t, outboxLimit: Int) {
        self.fd = fd
        self.serial = serial
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.outboxLimit = outboxLimit
    }

    /// Bytes waiting to be written.
    package var pending: Int { outbox.count - outboxHead }

    /// What to say about this client in the log.
    var label: String { "client \(serial) (pid \(pid), uid \(uid))" }

    /// Whether `event` goes to this client: its filters, the tap timing it
    /// wants, and for a continuous gesture whether its start was admitted
    /// (recorded here, so later phases follow that decision).
    func accepts(_ event: GestureEvent, from device: DeviceInfo) -> Bool {
        guard state == .subscribed, subscription.gestures.contains(event.gesture) else { return false }
        switch event.timing {
        case .every: break
        case .immediate: if subscription.wantsDoubleTap { return false }
        case .confirmed: if !subscription.wantsDoubleTap { return false }
        }
        guard subscription.accepts(device: device) else { return false }
        switch event.phase {
        case .recognized:
            guard subscription.admits(event) else { return false }
        case .began:
            guard subscription.admits(event) else { return false }
            admitted.insert(event.id)
        case .changed:
            guard admitted.contains(event.id) else { return false }
        case .ended, .cancelled:
            guard admitted.remove(event.id) != nil else { return false }
        }
        if let phases = subscription.phases, !phases.contains(event.phase) { return false }
        return true
    }

    // MARK: Input

    enum ReadResult {
        /// Complete lines read (possibly none).
        case lines([ArraySlice<UInt8>])
        /// The client shut down its side.
        case endOfFile
        /// A line longer than the protocol allows.
        case lineTooLong
        case failed(Int32)
    }

    /// Reads what the socket has and splits it into lines.
    func readLines() -> ReadResult {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var lines: [ArraySlice<UInt8>] = []
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { break }
                return .failed(errno)
            }
            if n == 0 { return lines.isEmpty ? .endOfFile : .lines(lines) }
            var start = input.count
            input.append(contentsOf: chunk[0..<n])
            var lineStart = 0
            while let nl = input[start...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = input[lineStart..<nl]
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                lines.append(ArraySlice(line))
                lineStart = nl + 1
                start = lineStart
            }
            input.removeFirst(lineStart)
            if input.count > WireProtocol.maxLineLength { return .lineTooLong }
            if n < chunk.count { break }
        }
        return .lines(lines)
    }

    // MARK: Output

    /// Queues one line (a newline is added). Returns false, queuing nothing,
    /// when the outbox would exceed its limit.
    func enqueue(_ line: String) -> Bool {
        guard state != .closing else { return true }
        if pending + line.utf8.count + 1 > outboxLimit { return false }
        outbox.append(contentsOf: line.utf8)
        outbox.append(UInt8(ascii: "\n"))
        return true
    }

    /// Queues a last line even beyond the limit, keeping only the unsent rest
    /// of a line already begun, and marks the client closing.
    func enqueueFinal(_ line: String, closeBy deadline: Timestamp) {
        if state != .closing {
            // Keep the tail of a line the socket has partly taken, so the client never sees half a line.
            if outboxHead > 0 || pending > 0 {
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

    enum FlushResult {
        case done
        case wouldBlock
        case failed(Int32)
    }

    /// Writes as much of the outbox as the socket takes now.
    func flush() -> FlushResult {
        while outboxHead < outbox.count {
            let n = outbox.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + outboxHead, raw.count - outboxHead, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
                return .failed(errno)
            }
            outboxHead += n
        }
        outbox.removeAll(keepingCapacity: outbox.capacity <= 64 * 1024)
        outboxHead = 0
        return .done
    }
}
