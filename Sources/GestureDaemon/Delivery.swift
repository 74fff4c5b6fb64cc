public import GestureCore

#if canImport(Glibc)
    import Glibc
#endif

/// Publishing one gesture event: the filters of each client, one JSON
/// encoding shared by all who get it.
enum Delivery {
    static func deliver(
        _ event: GestureEvent, from device: DeviceInfo, to clients: [Client], send: (String, Client) -> Void
    ) {
        var line: String?
        for c in clients where c.accepts(event, from: device) {
            if line == nil { line = event.jsonLine }
            send(line!, c)
        }
    }
}

/// The daemon's fan-out on its own, for the benchmark package (`Benchmarks/`),
/// which sees only public declarations: `subscribers` clients on socket
/// pairs, subscribed to everything, and the daemon's own delivery code.
/// Not API; `@_spi(Benchmarks) import GestureDaemon` to use it.
@_spi(Benchmarks) public final class FanOutBench {
    private var clients: [Client] = []
    private var peers: [Int32] = []
    private let device: DeviceInfo
    private var scratch = [UInt8](repeating: 0, count: 65536)

    /// Fails (nil) when the socket pairs cannot be made (out of descriptors).
    public init?(subscribers: Int, deviceName: String) {
        device = DeviceInfo(
            id: DeviceID(1), name: deviceName, node: "/dev/input/event5", vendorProduct: "1d6b:7e57", width: 200,
            height: 100, sizeSource: .configuration, rotation: 0, slots: 10)
        for i in 0..<subscribers {
            var fds: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds) == 0 else {
                return nil
            }
            let c = Client(fd: fds[0], serial: i, pid: 0, uid: 0, gid: 0, outboxLimit: 1 << 20)
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
    /// client's outbox, then the sockets (one `send` per client). Returns how
    /// many clients got it.
    @discardableResult
    public func publish(_ event: GestureEvent) -> Int {
        var count = 0
        Delivery.deliver(event, from: device, to: clients) { line, c in
            if c.enqueue(line) { count += 1 }
        }
        for c in clients where c.pending > 0 { _ = c.flush() }
        return count
    }

    /// Reads and drops what the subscribers' ends have received (outside the measurement).
    public func drain() {
        for p in peers {
            while scratch.withUnsafeMutableBytes({ recv(p, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {}
        }
    }
}
