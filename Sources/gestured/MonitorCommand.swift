import ArgumentParser
import CLinux
import FoundationEssentials
import GestureCore
import GestureProtocol
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

struct MonitorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Subscribe to a running gestured and print what it publishes (the reference client).",
        discussion: """
            Connects to --socket, else $GESTURED_SOCKET, else $XDG_RUNTIME_DIR/gestured.sock if it \
            exists, else /run/gestured/gestured.sock. The filter options become the subscription's \
            server-side filters (protocol.md in gestured's documentation, /usr/local/share/doc/gestured when installed from source). Ends on Ctrl-C, after --count gestures, or when \
            the daemon closes the connection; with --latency it then prints delivery latency \
            statistics: receipt time minus each event's time_us, both on CLOCK_MONOTONIC, for \
            all events and for those a timer publishes (touch-and-hold began; taps held back \
            for the double-tap interval), whose lateness after their deadline that is.
            --connections N opens N subscriptions with the same filters (a load test: events \
            are printed from the first, latency is gathered from all).
            """
    )

    @Option(help: ArgumentHelp("The daemon's socket.", valueName: "PATH"))
    var socket: String?

    @Option(
        help: ArgumentHelp("Only these gestures (comma-separated), e.g. tap,swipe.", valueName: "LIST"),
        completion: .list(gestureNames))
    var gestures: String?

    @Option(help: ArgumentHelp("Only gestures with these finger counts, e.g. 1,2.", valueName: "LIST"))
    var fingers: String?

    @Option(
        name: .customLong("devices"),
        help: ArgumentHelp("Only these devices: names, nodes or vvvv:pppp, comma-separated.", valueName: "LIST"))
    var devices: String?

    @Option(help: ArgumentHelp("Only these phases, e.g. recognized,ended.", valueName: "LIST"), completion: .list(phaseNames))
    var phases: String?

    @Option(help: ArgumentHelp("Only gestures starting in this part of the panel (fractions 0..1).", valueName: "X0,Y0,X1,Y1"))
    var region: String?

    @Flag(help: "Print the JSON lines as received.")
    var json = false

    @Flag(help: "Print delivery latency statistics (p50, p90, p99, max) at the end (to stderr with --json).")
    var latency = false

    @Flag(name: .shortAndLong, help: "Print nothing per event (with --latency: only the statistics).")
    var quiet = false

    @Option(help: ArgumentHelp("Stop after this many gesture events (on each connection).", valueName: "N"))
    var count: Int?

    @Option(help: ArgumentHelp("Subscribe this many times at once (load and latency tests).", valueName: "N"))
    var connections = 1

    func validate() throws {
        _ = try subscribeLine()
        if let count, count < 1 { throw ValidationError("--count must be 1 or more") }
        guard (1...1000).contains(connections) else { throw ValidationError("--connections must be 1 to 1000") }
    }

    /// The subscribe request for the options given.
    func subscribeLine() throws -> String {
        var request = SubscribeRequest()
        if let g = optionList(gestures) {
            _ = try namedOption(gestures, "--gestures", "gesture") as Set<GestureKind>?
            request.gestures = g
        }
        if let f = optionList(fingers) {
            let counts = f.compactMap(Int.init)
            guard counts.count == f.count else { throw ValidationError("--fingers: a comma-separated list of counts, e.g. 1,2") }
            request.fingers = counts
        }
        request.devices = optionList(devices)
        if let p = optionList(phases) {
            _ = try namedOption(phases, "--phases", "phase") as Set<GesturePhase>?
            request.phases = p
        }
        if let r = optionList(region) {
            let v = r.compactMap(Double.init)
            guard v.count == 4 else { throw ValidationError("--region: four numbers X0,Y0,X1,Y1 from 0 to 1") }
            request.region = v
        }
        return request.line
    }

    /// One subscription: its socket, what has arrived, and how many gestures.
    private struct Connection {
        var fd: Int32
        var reader: LineReader
        var gestures = 0
        /// The subscribe request was sent; the daemon accepted it.
        var subscribed = false
        var accepted = false
        var open = true
    }

    func run() throws {
        let path = socket ?? clientSocketPath()
        var conns: [Connection] = []
        defer { for c in conns { close(c.fd) } }
        for _ in 0..<connections {
            let fd = try connectTo(path)
            conns.append(Connection(fd: fd, reader: LineReader(fd: fd)))
        }
        var signals: [Int32] = [SIGINT, SIGTERM]
        let sfd = clinux_signalfd(&signals, Int32(signals.count))
        var out = OutputBuffer()
        var latencies: [Int64] = []
        var timerLatencies: [Int64] = []
        // Taps come after the double-tap interval, by a timer, when double taps are subscribed too.
        let heldTaps = optionList(gestures).map { $0.contains(GestureKind.doubleTap.rawValue) } ?? true
        var origin: Timestamp?
        var exitStatus: Int32 = 0
        var saidGoodbye = false
        var refusedSubscription = false
        var received: [(connection: Int, time: Int64)] = []
        var poller = Poller()
        var slots: [Poller.Slot] = []
        loop: while conns.contains(where: \.open) {
            poller.reset()
            slots = conns.map { poller.add($0.open ? $0.fd : -1, Int32(POLLIN)) }
            let signalSlot = poller.add(sfd, Int32(POLLIN))
            out.flush()
            if poller.wait(until: .never, clock: .monotonic).error != nil { break }
            if poller.events(signalSlot) != 0 { break }
            // Receive from every ready socket first, each stamped on arrival;
            // split and decode after, so that work does not delay later stamps.
            received.removeAll(keepingCapacity: true)
            for i in conns.indices where poller.events(slots[i]) != 0 {
                guard conns[i].reader.receive() else {
                    if i == 0 && !saidGoodbye { printError("gestured monitor: the daemon closed the connection") }
                    conns[i].open = false
                    continue
                }
                received.append((i, monotonicNow().microseconds))
            }
            for (i, time) in received {
                let lines = conns[i].reader.takeLines()
                for line in lines {
                    // --count N: nothing after the Nth gesture, even from the same read.
                    if let count, conns[i].gestures >= count { break }
                    // Gesture lines the monitor does not print need only a few
                    // fields; decoding each in full would make a 100-connection
                    // run measure this program instead of the daemon.
                    let printing = i == 0 && !quiet
                    let message = printing ? DaemonMessage.decode(line) : DaemonMessage.quick(line)
                    if message.type == "hello" && !conns[i].subscribed {
                        conns[i].subscribed = true
                        do {
                            try writeAll(conns[i].fd, try subscribeLine() + "\n")
                        } catch let error as Errno {
                            printError("gestured monitor: write failed: \(error)")
                            throw ExitCode(1)
                        }
                    }
                    if message.type == "gesture" {
                        conns[i].gestures += 1
                        if let t = message.time_us {
                            latencies.append(time - t)
                            let byTimer =
                                (message.gesture == GestureKind.touchAndHold.rawValue && message.phase == "began")
                                || (message.gesture == GestureKind.tap.rawValue && heldTaps)
                            if byTimer { timerLatencies.append(time - t) }
                        }
                    }
                    if message.type == "subscribed" { conns[i].accepted = true }
                    if message.type == "error" && message.fatal == true { exitStatus = 1 }
                    // The daemon refused the filters: nothing will come, so say so and end.
                    let refused = message.type == "error" && conns[i].subscribed && !conns[i].accepted
                    if refused { refusedSubscription = true }
                    if i == 0 {
                        if message.type == "goodbye" { saidGoodbye = true }
                        if message.type == "error" {
                            printError("gestured monitor: \(message.code ?? "error"): \(message.message ?? "")")
                        }
                        if refused {
                            printError("gestured monitor: the daemon refused the subscription; check the filter options")
                        }
                        if !quiet {
                            if json {
                                out.write(line + "\n")
                            } else if let text = message.readable(origin: &origin) {
                                out.write(text + "\n")
                            }
                        }
                    }
                }
                if let count, conns[i].gestures >= count { conns[i].open = false }
            }
            if refusedSubscription {
                exitStatus = 1
                break loop
            }
            if let count, conns.allSatisfy({ $0.gestures >= count }) { break loop }
        }
        out.flush()
        if latency {
            printLatency(latencies, label: "latency")
            if !timerLatencies.isEmpty { printLatency(timerLatencies, label: "timer events (lateness after the deadline)") }
        }
        if exitStatus != 0 { throw ExitCode(exitStatus) }
    }

    private func printLatency(_ values: [Int64], label: String) {
        // With --json, stdout is the JSON stream (for jq and the like): the statistics go to stderr.
        var out = OutputBuffer(fd: json ? 2 : 1)
        guard !values.isEmpty else {
            out.write("\(label): no gesture events received\n")
            out.flush()
            return
        }
        let sorted = values.sorted()
        func pct(_ p: Double) -> String {
            let i = min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)
            return ms(sorted[max(0, i)])
        }
        func ms(_ us: Int64) -> String { String(Double(us) / 1000) + " ms" }
        let over = connections > 1 ? "\(sorted.count) deliveries on \(connections) connections" : "\(sorted.count) events"
        out.write(
            "\(label) over \(over): p50 \(pct(0.5))  p90 \(pct(0.9))  p99 \(pct(0.99))  max \(ms(sorted.last!))  min \(ms(sorted.first!))\n"
        )
        out.flush()
    }
}

/// Connects a blocking stream socket to `path`, with a message saying what to do when that fails.
func connectTo(_ path: String) throws -> Int32 {
    switch connectToDaemon(path) {
    case .success(let fd): return fd
    case .failure(let why):
        printError("gestured monitor: \(why)")
        throw ExitCode(1)
    }
}

/// Lines from the daemon's socket (`LineBuffer`), for the commands that
/// read it until it ends.
struct LineReader {
    let fd: Int32
    /// Far longer than any line the daemon sends.
    private var buffer = LineBuffer(limit: 1 << 20)
    /// Reused for every read: a new 64 KB buffer per read costs more than the read.
    private var chunk = [UInt8](repeating: 0, count: 65536)

    init(fd: Int32) { self.fd = fd }

    /// The complete lines available now; nil at end of stream.
    mutating func read() -> [String]? {
        receive() ? takeLines() : nil
    }

    /// Takes what the socket has; false at end of stream, on an error, or
    /// when a line outgrows the buffer.
    mutating func receive() -> Bool {
        switch buffer.fill(from: fd, budget: chunk.count, scratch: &chunk) {
        case .read(let n): n > 0 || buffer.wantsInput
        case .endOfFile, .failed: false
        }
    }

    /// The complete lines received so far.
    mutating func takeLines() -> [String] {
        var lines: [String] = []
        while let line = buffer.nextText() { lines.append(line) }
        return lines
    }
}

/// What the monitor prints of the daemon's messages (the one decoder of
/// the package's clients, `DaemonMessage`).
extension DaemonMessage {
    /// A device of `hello` or `device_added`: name, node, size and the orientation in force.
    var deviceText: String {
        let size = width_mm.flatMap { w in height_mm.map { "\(w) x \($0) mm" } } ?? "size unknown"
        return "\(device ?? "?") \(node ?? "") \(size) (\(size_source ?? "?")), orientation \(orientation ?? "normal")"
            + " (\(orientation_source ?? "configuration"))"
    }

    static func decode(_ line: String) -> DaemonMessage { decode(Array(line.utf8)) ?? DaemonMessage(type: nil) }

    /// A gesture line's type, gesture, phase and time, read from the daemon's
    /// own fixed layout without a decoder; anything else is decoded in full.
    static func quick(_ line: String) -> DaemonMessage {
        guard line.hasPrefix(#"{"type":"gesture","#) else { return decode(line) }
        let bytes = Array(line.utf8)
        var m = DaemonMessage(type: "gesture")
        m.gesture = value(of: "gesture", in: bytes)
        m.phase = value(of: "phase", in: bytes)
        m.time_us = value(of: "time_us", in: bytes).flatMap { Int64($0) }
        return m
    }

    /// The text of a top-level string or number field (no escapes: the daemon's names and numbers).
    private static func value(of field: String, in bytes: [UInt8]) -> String? {
        let key = Array("\"\(field)\":".utf8)
        guard bytes.count > key.count else { return nil }
        for start in 0...(bytes.count - key.count) where bytes[start] == key[0] {
            guard bytes[start..<start + key.count].elementsEqual(key) else { continue }
            var i = start + key.count
            let quoted = i < bytes.count && bytes[i] == UInt8(ascii: "\"")
            if quoted { i += 1 }
            var end = i
            while end < bytes.count {
                let b = bytes[end]
                if quoted ? b == UInt8(ascii: "\"") : (b == UInt8(ascii: ",") || b == UInt8(ascii: "}")) { break }
                end += 1
            }
            return String(decoding: bytes[i..<end], as: UTF8.self)
        }
        return nil
    }

    /// One readable line, or nil for messages not worth a line.
    func readable(origin: inout Timestamp?) -> String? {
        switch type {
        case "gesture":
            guard let g = gesture.flatMap(GestureKind.init), let p = phase.flatMap(GesturePhase.init), let time_us else {
                return nil
            }
            let time = Timestamp(microseconds: time_us)
            if origin == nil { origin = time }
            var e = GestureEvent(
                gesture: g, phase: p, id: UInt64(max(0, id ?? 0)), time: time, device: DeviceID(0),
                fingers: Int(fingers ?? 0), x: x_mm ?? 0, y: y_mm ?? 0, nx: x ?? 0, ny: y ?? 0,
                edge: edge.flatMap(PanelEdge.init))
            e.direction = direction.flatMap(GestureDirection.init)
            e.distance = distance_mm
            e.dx = dx_mm
            e.dy = dy_mm
            e.vx = vx_mm_s
            e.vy = vy_mm_s
            e.scale = scale
            e.rotation = rotation
            e.path = path_mm.map { StrokePath($0.compactMap { $0.count == 2 ? SIMD2($0[0], $0[1]) : nil }) }
            let shaped = shape.map { "  shape \($0)" + (score.map { " (score \($0))" } ?? "") } ?? ""
            return e.textLine(origin: origin!) + shaped + "  " + (device ?? "")
        case "hello":
            return "# connected to \(server ?? "gestured"), protocol \(version?.map(String.init).joined(separator: ".") ?? "?")"
                + (devices ?? []).map { "\n# device: " + $0.deviceText }.joined()
        case "device_added":
            return "# device added: " + deviceText
        case "orientation":
            return "# \(device ?? "?") \(node ?? ""): read turned \(transform ?? "?") (\(source ?? "?")) from its next touch"
        case "device_removed":
            return "# device removed: \(device ?? "?") \(node ?? "")"
        case "config_reloaded":
            return "# configuration reloaded (\((files ?? []).joined(separator: ", ")))"
        case "goodbye":
            return "# the daemon says goodbye: \(reason ?? "")"
        case "paused":
            return "# paused: \(reason ?? "you are not at the screen"): no gesture comes until your session is the active one"
        case "resumed":
            return "# resumed: your session is the one at the screen: gestures come"
        case "context":
            return "# context: \(locked == true ? "locked" : "unlocked"), tablet mode \(tablet_mode == true ? "on" : "off")"
        default:
            return nil
        }
    }
}
