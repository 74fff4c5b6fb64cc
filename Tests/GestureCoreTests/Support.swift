import Foundation
import GestureCore

/// Paths and helpers shared by the tests.
enum Fixtures {
    /// The package root, found from this file's path.
    static let root: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    static let recordings = root + "/Recordings"
    /// `../shared/traces` beside the checkout: real recordings, never copied into the repository.
    static let sharedTraces = root + "/../shared/traces"
    static var sharedTracesPresent: Bool { FileManager.default.fileExists(atPath: sharedTraces + "/MANIFEST.md") }
    static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    /// The bundled recordings' base names (without `.evemu`).
    static func recordingNames() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: recordings)) ?? []
        return files.filter { $0.hasSuffix(".evemu") }.map { String($0.dropLast(6)) }.sorted()
    }

    /// Replays evemu text and returns the summary lines, the events and the outcome.
    static func replay(
        _ text: String, file: String, desc: DeviceDescription? = nil, size: (Double, Double)? = nil,
        thresholds: GestureThresholds = .defaults, wanted: GestureKindSet = .standard
    ) throws -> (summary: [String], events: [GestureEvent], outcome: TraceReplay.Outcome) {
        let trace = try EvemuReader.parse(text, file: file, device: desc)
        let geometry = TouchAssembler.geometry(
            for: trace.device, size: size.map { (width: $0.0, height: $0.1) }, source: .commandLine)!
        var r = TraceReplay(geometry: geometry, thresholds: thresholds, wanted: wanted)
        r.tracing = true
        let (events, outcome) = try r.events(trace)
        return (events.compactMap(\.summary), events, outcome)
    }
}

extension Fixtures {
    /// A bundled recording, parsed.
    static func recording(_ name: String) throws -> Trace {
        try EvemuReader.parse(read(recordings + "/" + name), file: name, device: nil)
    }

    /// The events of a trace replayed with `wanted` and, optionally, taps at the lift as well.
    static func replayEvents(_ trace: Trace, wanted: GestureKindSet, immediateTaps: Bool) throws -> [GestureEvent] {
        let geometry = TouchAssembler.geometry(for: trace.device, size: nil, source: .commandLine)!
        var r = TraceReplay(geometry: geometry, wanted: wanted)
        r.immediateTaps = immediateTaps
        return try r.events(trace).events
    }
}

/// Builds touch frames by hand for state machine tests: one device, 100 x 60 mm.
struct Hand {
    var pipeline: GesturePipeline
    var events: [GestureEvent] = []
    let device = DeviceID(1)

    /// A panel of `width` x `height` mm (1000 x 600 units).
    init(
        wanted: GestureKindSet = .standard, thresholds: GestureThresholds = .defaults, width: Double = 100, height: Double = 60
    ) {
        pipeline = GesturePipeline(wanted: wanted)
        pipeline.addDevice(
            device,
            geometry: PanelGeometry(minX: 0, maxX: 1000, minY: 0, maxY: 600, width: width, height: height, source: .commandLine),
            thresholds: thresholds)
        pipeline.setTracing(true)
    }

    /// One frame at `ms` with the given contacts: (slot, phase, x, y).
    mutating func frame(_ ms: Double, _ contacts: (Int, ContactPhase, Double, Double)...) {
        var f = TouchFrame(
            device: device, time: Timestamp(microseconds: Int64(ms * 1000)),
            contacts: contacts.map { Contact(slot: $0.0, phase: $0.1, x: $0.2, y: $0.3) })
        run { $0.process(&f, into: &$1) }
    }

    /// One frame at `ms` whose contacts report their size: (slot, phase, x, y, size in mm).
    mutating func sized(_ ms: Double, _ contacts: (Int, ContactPhase, Double, Double, Double)...) {
        var f = TouchFrame(
            device: device, time: Timestamp(microseconds: Int64(ms * 1000)),
            contacts: contacts.map { Contact(slot: $0.0, phase: $0.1, x: $0.2, y: $0.3, size: $0.4) })
        run { $0.process(&f, into: &$1) }
    }

    mutating func advance(_ ms: Double) { run { $0.advance(to: Timestamp(microseconds: Int64(ms * 1000)), into: &$1) } }
    mutating func finish() { run { $0.finish(into: &$1) } }
    /// The device goes at `ms`.
    mutating func removeDevice(_ ms: Double) {
        run { [device] in $0.removeDevice(device, at: Timestamp(microseconds: Int64(ms * 1000)), into: &$1) }
    }

    /// One call of the pipeline; what it made is added to `events`.
    private mutating func run(_ call: (inout GesturePipeline, inout GestureEvents) -> Void) {
        var made = GestureEvents()
        call(&pipeline, &made)
        events.receive(contentsOf: made)
    }

    /// A straight one-finger stroke from (x0, y0) by (dx, dy) over `duration` ms at 100 Hz, lifting at the end.
    mutating func stroke(
        slot: Int = 0, at start: Double, x x0: Double, y y0: Double, dx: Double, dy: Double, duration: Double, lift: Bool = true
    ) {
        frame(start, (slot, .down, x0, y0))
        let steps = Int(duration / 10)
        for i in 1...steps {
            let f = Double(i) / Double(steps)
            frame(start + Double(i) * 10, (slot, .move, x0 + dx * f, y0 + dy * f))
        }
        if lift { frame(start + duration + 10, (slot, .up, x0 + dx, y0 + dy)) }
    }

    var summary: [String] { events.compactMap(\.summary) }
    /// "machine: from → event → to" for every transition.
    var transitions: [String] { pipeline.transitions.map { "\($0.machine.rawValue): \($0.from) → \($0.event) → \($0.to)" } }
    var anomalies: [Transition] { pipeline.anomalies }
}
