import ArgumentParser
import GestureActions
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

    @Option(
        help: "Output: jsonl (one JSON event per line, the default), text (readable), or summary (what .expect files list).")
    var format: Format?

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
            "Only recognize these kinds (comma-separated; default: all but triple-tap). Without double-tap, taps come at the lift with no delay; with triple-tap, double taps wait for a third.",
            valueName: "LIST"),
        completion: .list(gestureNames))
    var gestures: String?

    @Option(
        help: ArgumentHelp(
            "Only print these phases (comma-separated), e.g. recognized,began,ended: a long hold or drag is otherwise a changed line per frame.",
            valueName: "LIST"),
        completion: .list(phaseNames))
    var phases: String?

    @Option(
        name: .customLong("hold-ms"),
        help: ArgumentHelp(
            "Times a still touch-and-hold reports as it lasts them (held_ms), as a subscriber's hold_ms asks (comma-separated ms, 0 to 10000).",
            valueName: "LIST"))
    var holdMs: String?

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

    @Option(
        help: ArgumentHelp(
            "Replay each trace as a claimed touchscreen whose apps lose what this actions file's bindings claim, and print what each touch sequence would become on the way to the compositor (passed on, held back at an edge, claimed and cancelled) instead of the gestures.",
            valueName: "ACTIONS"))
    var claim: String?

    @Flag(
        help:
            "With --claim: as on a compositor that drops touch cancels (touch-cancel = \"dropped\"): first touches held back while a claimed count may land, and ended by a lift where they would be cancelled."
    )
    var cancelDropped = false

    @Argument(help: "Trace files (evemu or libinput record).")
    var traces: [String]

    /// `--hold-ms`, read.
    var holdMarks: [Int] {
        (holdMs ?? "").split(separator: ",").compactMap { Int($0.filter { $0 != " " }) }
    }

    func validate() throws {
        if let holdMs {
            let parts = holdMs.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count <= 16,
                parts.allSatisfy({ Int($0.filter { $0 != " " }).map { (0...10_000).contains($0) } ?? false })
            else {
                throw ValidationError("--hold-ms is at most 16 whole numbers of milliseconds, 0 to 10000, e.g. 800 or 500,800")
            }
        }
        if traces.isEmpty { throw ValidationError("name at least one trace file") }
        if svg != nil && traces.count > 1 { throw ValidationError("--svg draws one trace; name only one") }
        if zoom && svg == nil { throw ValidationError("--zoom is for the picture: add --svg FILE") }
        if claim != nil && svg != nil { throw ValidationError("--claim prints what would be claimed; leave out --svg") }
        if cancelDropped && claim == nil {
            throw ValidationError("--cancel-dropped is for --claim ACTIONS: add it, or leave out --cancel-dropped")
        }
        if claim != nil, let format {
            throw ValidationError(
                "--claim prints one readable line per touch sequence, in no other format; leave out --format \(format.rawValue)")
        }
        _ = try wantedKinds()
        _ = try namedOption(phases, "--phases", "phase") as Set<GesturePhase>?
    }

    func wantedKinds() throws -> GestureKindSet {
        guard let kinds = try namedOption(gestures, "--gestures", "gesture") as Set<GestureKind>? else { return .standard }
        var set = GestureKindSet()
        for kind in kinds { set.insert(GestureKindSet(kind)) }
        return set
    }

    func run() throws {
        let configuration: Configuration
        do {
            configuration = try config.map { try loadConfiguration($0) } ?? Configuration()
        } catch {
            printFailure(error)
            throw ExitCode(1)
        }
        if let claim { return try replayClaimed(claim, configuration: configuration) }
        let wanted = try wantedKinds()
        let format = self.format ?? .jsonl
        var printer = EventPrinter(format: format)
        printer.phases = try namedOption(phases, "--phases", "phase")
        printer.headers = format == .text || traces.count > 1
        let failed = !eachTrace(configuration, flush: { printer.flush() }) { path, loaded in
            if verbose || loaded.geometry.source == .fallback {
                let g = loaded.geometry
                let note = g.source == .fallback ? "warning: no size known; assuming" : "panel"
                printError(
                    "gestured: \(path): \(note) \(NumberText.fixed(g.screenWidth, 1)) x \(NumberText.fixed(g.screenHeight, 1)) mm (\(g.source.rawValue))"
                        + (g.source == .fallback ? "; pass --size WxH or set size in the configuration" : ""))
            }
            var replay = TraceReplay(geometry: loaded.geometry, thresholds: loaded.thresholds, wanted: wanted)
            replay.tracing = transitions
            replay.holdMarks = holdMarks
            printer.begin(
                trace: path, device: loaded.trace.device.name, origin: loaded.trace.events.first?.time ?? .zero)
            printer.kept = svg == nil ? nil : []
            let outcome = try replay.run(loaded.trace, firstID: 1, into: &printer)
            if verbose { printError("gestured: \(path): \(outcome.frames) frames") }
            if let svg { try draw(loaded, events: printer.kept ?? [], with: replay, to: svg) }
            for w in outcome.warnings { printError("gestured: \(w)") }
            for t in outcome.transitions { printError("transition: \(t)") }
            for a in outcome.anomalies { printError("gestured: bug: unhandled \(a); please report it with this trace") }
        }
        printer.flush()
        if failed { throw ExitCode(1) }
    }

    /// Hands each device of each trace file in turn to `body`. A file that
    /// fails is reported (after `flush`, so that its error follows what it
    /// printed) and the next is still replayed; false if any failed, for
    /// the exit status.
    func eachTrace(
        _ configuration: Configuration, flush: () -> Void, _ body: (String, LoadedTrace) throws -> Void
    ) -> Bool {
        var allWell = true
        for path in traces {
            do {
                for loaded in try TraceLoader.load(path, desc: desc, size: size, configuration: configuration) {
                    try body(path, loaded)
                }
            } catch {
                flush()
                printFailure(error)
                allWell = false
            }
        }
        return allWell
    }
}

extension ReplayCommand {
    /// `--claim`: each trace through the claimer with the claims of the
    /// bindings of `actions`, one line per touch sequence.
    func replayClaimed(_ actions: String, configuration: Configuration) throws {
        var claims: ClaimSet
        do {
            let bindings = try BindingsReader.read(bytes: try readFileBytes(actions, limit: 1 << 20), file: actions)
            claims = bindings.reduce(into: ClaimSet()) { $0.formUnion($1.claims) }
            claims.cancelDropped = cancelDropped
        } catch {
            printFailure(error)
            throw ExitCode(1)
        }
        var out = OutputBuffer()
        out.write("# claimed by \(actions): \(claims.isEmpty ? "nothing (every touch passes on whole)" : claims.summary)\n")
        if cancelDropped {
            out.write("# the compositor drops touch cancels: first touches held back, touches ended by a lift\n")
        }
        let failed = !eachTrace(configuration, flush: { out.flush() }) { path, loaded in
            out.write("# \(path)\n")
            guard
                let r = try ClaimReplay.run(
                    loaded.trace, geometry: loaded.geometry, thresholds: loaded.thresholds, claims: claims)
            else {
                out.write("never claimed: the device reports no touches in slots (multitouch protocol B)\n")
                return
            }
            let origin = loaded.trace.events.first?.time ?? .zero
            for s in r.sequences { out.write(Self.describe(s, origin: origin, lifts: cancelDropped) + "\n") }
            for a in r.anomalies { printError("gestured: bug: unhandled \(a); please report it with this trace") }
        }
        out.flush()
        if failed { throw ExitCode(1) }
    }

    /// One touch sequence of `--claim`: when, how many fingers, what became of it.
    /// `lifts`: touches passed on are ended by a lift, not cancelled.
    static func describe(_ s: ClaimReplay.Sequence, origin: Timestamp, lifts: Bool = false) -> String {
        let at = NumberText.fixed((s.start - origin).seconds, 3) + " s"
        let ended = lifts ? "lifted" : "cancelled"
        let fingers = s.fingers == 1 ? "1 finger " : "\(s.fingers) fingers"
        let what: String
        switch s.outcome {
        case .passed:
            what = "passed on whole (\(s.passed) frames)"
        case .held(let edge, let us):
            what = "held back \(us / 1000) ms at the \(edge.rawValue) edge, then passed on (\(s.passed) frames)"
        case .claimedAtEdge(let edge):
            what = "claimed at the \(edge.rawValue) edge: never passed on (\(s.withheld) frames withheld)"
        case .claimedAtOnce:
            what = "claimed as its fingers landed together: never passed on (\(s.withheld) frames withheld)"
        case .heldBack(let us):
            what = "held back \(us / 1000) ms while a claimed count could land, then passed on (\(s.passed) frames)"
        case .claimedWhileHeld:
            what =
                "claimed as its fingers reached a claimed count while held back: never passed on (\(s.withheld) frames withheld)"
        case .claimed(let cancelled):
            what =
                "claimed as its fingers reached a claimed count: \(cancelled) touch\(cancelled == 1 ? "" : "es") passed on, then \(ended) (\(s.withheld) frames withheld)"
        case .claimedHeld(let cancelled, let us):
            what =
                "claimed as its fingers had held still \(us / 1000) ms: \(cancelled) touch\(cancelled == 1 ? "" : "es") passed on, then \(ended) (\(s.withheld) frames withheld)"
        case .resynchronized(let cancelled):
            what = "the device dropped events: \(cancelled) touch\(cancelled == 1 ? "" : "es") \(ended), the rest withheld"
        }
        return "\(at)  \(fingers)  \(what)"
    }

    /// Writes the picture of one replayed trace.
    func draw(_ loaded: LoadedTrace, events: [GestureEvent], with replay: TraceReplay, to file: String) throws {
        let frames = try replay.frames(loaded.trace)
        let name = loaded.trace.file.split(separator: "/").last.map(String.init) ?? loaded.trace.file
        let picture = TracePicture(
            title: "\(name) — \(loaded.trace.device.name)", geometry: loaded.geometry, frames: frames, events: events,
            zoom: zoom, origin: loaded.trace.events.first?.time)
        try writeTextFile(file, picture.svg())
        printError("gestured: drew \(loaded.trace.file) to \(file)")
    }
}

/// Prints events as they come, in the chosen format.
struct EventPrinter: GestureSink {
    let format: ReplayCommand.Format
    var out = OutputBuffer()
    /// Text times count from the trace's first event, as its picture's do.
    var origin = Timestamp.zero
    /// The events printed, kept for a picture (nil: not kept).
    var kept: [GestureEvent]?
    /// Only these phases are printed (nil: all).
    var phases: Set<GesturePhase>?
    /// A "# FILE" line before each file's gestures (text, and summary with several files).
    var headers = false
    /// The name of the trace's device, as its JSON lines give it.
    var deviceName = ""

    init(format: ReplayCommand.Format) { self.format = format }

    mutating func begin(trace: String, device: String, origin: Timestamp) {
        self.origin = origin
        deviceName = device
        if headers && format != .jsonl { out.write("# \(trace)\n") }
    }

    mutating func receive(_ event: GestureEvent) {
        kept?.append(event)
        if let phases, !phases.contains(event.phase) { return }
        switch format {
        case .jsonl:
            out.write(event.jsonLine(deviceName: deviceName))
            out.write("\n")
        case .text:
            out.write(event.textLine(origin: origin))
            out.write("\n")
        case .summary:
            if let s = event.summary { out.write(s + "\n") }
        }
    }

    mutating func flush() { out.flush() }
}
