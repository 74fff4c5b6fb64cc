import ArgumentParser
import GestureConfiguration
import GestureCore
import GestureTools
import ToolSupport

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay recorded touch traces through the recognizers and print the gestures.",
        discussion: """
            Reads evemu-record files and `libinput record` YAML. An evemu file with only events takes \
            its device from --desc or from a NAME.desc beside it (for A.B.events: A.B.desc, then A.desc). \
            The panel's size comes from --size, the configuration, the device's resolution, or else a \
            12.5-inch fallback (with a warning). Timers still pending at the end fire, as if time went on.

            With several files, each is replayed on its own (gesture ids start at 1 in each); text \
            and summary output put a "# FILE" line before each file's gestures. A file that cannot \
            be read is reported and the others are still replayed; the exit status is then 1.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case jsonl, text, summary
    }

    @Option(help: "Output: jsonl (one JSON event per line), text (readable), or summary (what .expect files list).")
    var format: Format = .jsonl

    @Option(help: "Configuration file (TOML) with thresholds and device sections.")
    var config: String?

    @Option(
        help: ArgumentHelp("The panel's size in mm, for panels that report no resolution.", valueName: "WxH"),
        transform: panelSize)
    var size: (width: Double, height: Double)?

    @Option(help: ArgumentHelp("Device description (evemu) for events-only files.", valueName: "FILE"))
    var desc: String?

    @Option(
        help: ArgumentHelp(
            "Only recognize these kinds (comma-separated). Without double-tap, taps come at the lift with no delay.",
            valueName: "LIST"),
        completion: .list(gestureNames))
    var gestures: String?

    @Option(
        help: ArgumentHelp(
            "Only print these phases (comma-separated), e.g. recognized,began,ended: a long hold or drag is otherwise a changed line per frame.",
            valueName: "LIST"),
        completion: .list(phaseNames))
    var phases: String?

    @Flag(help: "Print every state machine transition to standard error.")
    var transitions = false

    @Flag(name: .shortAndLong, help: "Say on standard error where each panel's size came from.")
    var verbose = false

    @Option(
        help: ArgumentHelp(
            "Also draw the trace as SVG: finger paths to scale, gestures where and when, a timeline.",
            valueName: "FILE"))
    var svg: String?

    @Flag(help: "With --svg: draw only the touched part of the panel, enlarged (small gestures on a big panel).")
    var zoom = false

    @Argument(help: "Trace files (evemu or libinput record).")
    var traces: [String]

    func validate() throws {
        if traces.isEmpty { throw ValidationError("name at least one trace file") }
        if svg != nil && traces.count > 1 { throw ValidationError("--svg draws one trace; name only one") }
        if zoom && svg == nil { throw ValidationError("--zoom is for the picture: add --svg FILE") }
        _ = try wantedKinds()
        _ = try namedOption(phases, "--phases", "phase") as Set<GesturePhase>?
    }

    func wantedKinds() throws -> GestureKindSet {
        guard let kinds = try namedOption(gestures, "--gestures", "gesture") as Set<GestureKind>? else { return .all }
        var set = GestureKindSet()
        for kind in kinds { set.insert(GestureKindSet(kind)) }
        return set
    }

    func run() throws {
        let configuration: Configuration
        do {
            configuration = try config.map { try loadConfiguration($0) } ?? Configuration()
        } catch {
            printError("gestured: \(error)")
            throw ExitCode(1)
        }
        let wanted = try wantedKinds()
        var printer = EventPrinter(format: format)
        printer.phases = try namedOption(phases, "--phases", "phase")
        printer.headers = format == .text || traces.count > 1
        var failed = false
        for path in traces {
            do {
                for loaded in try TraceLoader.load(path, desc: desc, size: size, configuration: configuration) {
                    if verbose || loaded.geometry.source == .fallback {
                        let g = loaded.geometry
                        let note = g.source == .fallback ? "warning: no size known; assuming" : "panel"
                        printError(
                            "gestured: \(path): \(note) \(NumberText.fixed(g.screenWidth, 1)) x \(NumberText.fixed(g.screenHeight, 1)) mm (\(g.source.rawValue))"
                                + (g.source == .fallback ? "; pass --size WxH or set size in the configuration" : ""))
                    }
                    var replay = TraceReplay(geometry: loaded.geometry, thresholds: loaded.thresholds, wanted: wanted)
                    replay.tracing = transitions
                    printer.begin(trace: path, device: loaded.trace.device.name)
                    printer.kept = svg == nil ? nil : []
                    let outcome = try replay.run(loaded.trace, firstID: 1, into: &printer)
                    if verbose { printError("gestured: \(path): \(outcome.frames) frames") }
                    if let svg { try draw(loaded, events: printer.kept ?? [], with: replay, to: svg) }
                    for w in outcome.warnings { printError("gestured: \(w)") }
                    for t in outcome.transitions { printError("transition: \(t)") }
                    for a in outcome.anomalies { printError("gestured: bug: unhandled \(a); please report it with this trace") }
                }
            } catch {
                // The next file is still replayed; the exit status says one failed.
                printer.flush()
                printError("gestured: \(error)")
                failed = true
            }
        }
        printer.flush()
        if failed { throw ExitCode(1) }
    }
}

extension ReplayCommand {
    /// Writes the picture of one replayed trace.
    func draw(_ loaded: LoadedTrace, events: [GestureEvent], with replay: TraceReplay, to file: String) throws {
        let frames = try replay.frames(loaded.trace)
        let name = loaded.trace.file.split(separator: "/").last.map(String.init) ?? loaded.trace.file
        let picture = TracePicture(
            title: "\(name) — \(loaded.trace.device.name)", geometry: loaded.geometry, frames: frames, events: events,
            zoom: zoom)
        try writeTextFile(file, picture.svg())
        printError("gestured: drew \(loaded.trace.file) to \(file)")
    }
}

/// Prints events as they come, in the chosen format.
struct EventPrinter: GestureSink {
    let format: ReplayCommand.Format
    var out = OutputBuffer()
    var origin: Timestamp?
    /// The events printed, kept for a picture (nil: not kept).
    var kept: [GestureEvent]?
    /// Only these phases are printed (nil: all).
    var phases: Set<GesturePhase>?
    /// A "# FILE" line before each file's gestures (text, and summary with several files).
    var headers = false
    /// The name of the trace's device, as its JSON lines give it.
    var deviceName = ""

    init(format: ReplayCommand.Format) { self.format = format }

    mutating func begin(trace: String, device: String) {
        origin = nil
        deviceName = device
        if headers && format != .jsonl { out.write("# \(trace)\n") }
    }

    mutating func receive(_ event: GestureEvent) {
        kept?.append(event)
        // Text times count from the first event, printed or not.
        if origin == nil { origin = event.time }
        if let phases, !phases.contains(event.phase) { return }
        switch format {
        case .jsonl:
            out.write(event.jsonLine(deviceName: deviceName))
            out.write("\n")
        case .text:
            out.write(event.textLine(origin: origin!))
            out.write("\n")
        case .summary:
            if let s = event.summary { out.write(s + "\n") }
        }
    }

    mutating func flush() { out.flush() }
}
