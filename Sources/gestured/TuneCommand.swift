import ArgumentParser
import GestureConfiguration
import GestureCore
import GestureTools
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

struct TuneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tune",
        abstract: "Replay your own recordings, labelled with the gesture you meant, and suggest thresholds for your hands.",
        discussion: """
            DIR holds recordings (evemu or libinput record) named after the gesture you meant: \
            tap-1.evemu, double-tap-2.evemu, hold-3.evemu, drag-up.evemu, flick-left.evemu, \
            swipe-3f.evemu, pinch-open.evemu, rotate-1.evemu; or put them in folders named after it (DIR/tap/1.evemu). \
            "hold" and "touch-and-hold" both mean a touch-and-hold. A file may hold several \
            performances of the same gesture, one after another (for double taps: pairs of taps).

            Prints a confusion matrix (what you meant against what was recognized), then for every \
            threshold how close your gestures came to it, and a [thresholds] snippet: a threshold \
            your gestures come within 25 % of is moved to the middle of the gap between the gestures \
            on either side (the widest margin for both), or given a 25 % margin when only one side \
            was recorded. Each suggestion is kept only as far as every bundled recording still gives \
            its expected gestures (--reference). Finally the matrix again with the suggestion.

            A gesture counts for a threshold that separates it from another only when that \
            threshold is what kept it from being the other: a drag says something about \
            swipe.maxDuration only if, quicker, it would have been a swipe (a curved drag would not), \
            about flick.minVelocity only if, faster, it would have been a flick.
            """
    )

    @Argument(help: "The folder of your recordings.")
    var directory: String

    @Option(
        help: ArgumentHelp(
            "The configuration to start from (default: the installed one, \(ConfigPaths.main) and its drop-ins, or the built-in thresholds where there is none).",
            valueName: "FILE"))
    var config: String?

    @Option(
        help: ArgumentHelp("The panel's size in mm, for panels that report no resolution.", valueName: "WxH"),
        transform: panelSize)
    var size: (width: Double, height: Double)?

    @Option(
        help: ArgumentHelp(
            "Recordings with .expect files a suggestion must not break (default: the installed bundled ones, or ./Recordings).",
            valueName: "DIR"))
    var reference: String?

    @Option(help: ArgumentHelp("Also draw the margins of every threshold as SVG.", valueName: "FILE"))
    var svg: String?

    func run() throws {
        do {
            try tune()
        } catch let e as ExitCode {
            throw e
        } catch {
            printFailure(error)
            throw ExitCode(1)
        }
    }

    func tune() throws {
        let configuration = try loadConfiguration(config)
        let thresholds = configuration.thresholds
        var recordings: [Tuning.Recording] = []
        var skipped: [String] = []
        for (path, intent) in try Self.labelledFiles(directory) {
            guard let intent else {
                skipped.append(path)
                continue
            }
            for loaded in try TraceLoader.load(path, desc: nil, size: size, configuration: configuration) {
                if loaded.geometry.source == .fallback {
                    printError("gestured: \(path): warning: the panel reports no size; pass --size WxH for distances in real mm")
                }
                recordings.append(Tuning.Recording(file: path, intent: intent, trace: loaded.trace, geometry: loaded.geometry))
            }
        }
        for path in skipped {
            printError(
                "gestured: \(path): skipped: its name does not say which gesture it is (name it tap-1.evemu, or put it in a folder named tap/)"
            )
        }
        guard !recordings.isEmpty else {
            printError("gestured: no labelled recordings in \(directory) (see `gestured tune --help` for the naming)")
            throw ExitCode(1)
        }
        var performances: [Tuning.Performance] = []
        for r in recordings { performances += try Tuning.performances(r, thresholds: thresholds) }

        var out = OutputBuffer()
        let counts = Dictionary(grouping: recordings, by: \.intent).map { "\($0.key.rawValue) \($0.value.count)" }.sorted()
        out.write(
            "gestured tune: \(recordings.count) recordings in \(directory) (\(counts.joined(separator: ", "))), \(performances.count) performances\n"
        )
        let from = configuration.sources.isEmpty ? "the built-in thresholds" : configuration.sources.joined(separator: ", ")
        out.write("Starting from: \(from)\n\n")
        out.write("With the current thresholds (rows: what you meant; columns: what was recognized)\n")
        out.write(Tuning.matrixText(performances) + "\n")
        let misses = performances.filter { $0.outcome != $0.intent }
        for p in misses {
            let got = p.recognized.isEmpty ? "nothing" : p.recognized.map(\.rawValue).sorted().joined(separator: ", ")
            out.write("  \(p.origin): meant \(p.intent.rawValue), got \(got)\n")
        }
        if !misses.isEmpty { out.write("\n") }

        let references = try loadReferences()
        let (tuned, findings) = Tuning.suggest(
            Tuning.findings(performances, thresholds: thresholds), from: thresholds, references: references.list)
        out.write("How close your gestures came to each threshold\n")
        out.write(Tuning.findingsText(findings) + "\n")
        let snippet = Tuning.snippet(findings)
        if snippet.isEmpty && misses.isEmpty {
            out.write("Suggested configuration: none; the current thresholds fit your gestures.\n")
        } else if snippet.isEmpty {
            out.write(
                "Suggested configuration: none. \(misses.count) of your \(performances.count) performances were recognized otherwise "
                    + "(listed at the top), and no threshold can be moved to change that without breaking another of yours "
                    + "or a bundled recording: where your gestures overlap (above), make them more distinct, or check their labels.\n"
            )
        } else {
            out.write(
                "Suggested configuration (put it in /etc/gestured/gestured.toml, or a [device.thresholds] section; "
                    + (references.list.isEmpty
                        ? "not checked: no bundled recordings found, see --reference"
                        : "all \(references.list.count) recordings in \(references.directory) still give their expected gestures")
                    + ")\n\n")
            out.write(snippet + "\n")
            var after: [Tuning.Performance] = []
            for r in recordings { after += try Tuning.performances(r, thresholds: tuned) }
            out.write("With the suggestion\n" + Tuning.matrixText(after))
            // What the suggestion does for the misses listed at the top: a
            // change can widen margins and still fix none of them.
            let missesAfter = after.filter { $0.outcome != $0.intent }
            let fixed = misses.filter { m in !missesAfter.contains { $0.origin == m.origin } }.count
            let broken = missesAfter.filter { a in !misses.contains { $0.origin == a.origin } }.count
            if !misses.isEmpty && fixed == 0 {
                out.write(
                    "\nThe suggestion fixes none of the \(misses.count) misses listed at the top: it only widens the margins above. "
                        + "Where your gestures overlap, make them more distinct, or check their labels.\n")
            } else if fixed == misses.count {
                out.write("\nThe suggestion fixes every miss listed at the top (\(fixed)).\n")
            } else if !misses.isEmpty {
                out.write("\nThe suggestion fixes \(fixed) of the \(misses.count) misses listed at the top.\n")
            }
            if broken > 0 {
                out.write("It makes \(broken) of your performances recognized otherwise that were recognized as meant.\n")
            }
        }
        out.flush()
        if let svg {
            try writeTextFile(svg, Tuning.marginsSVG(findings, title: "gestured tune: \(directory)"))
            printError("gestured: drew the margins to \(svg)")
        }
    }

    /// Every trace file under `dir` (and its folders), with the gesture its folder or name says.
    static func labelledFiles(_ dir: String) throws -> [(String, GestureKind?)] {
        var out: [(String, GestureKind?)] = []
        func isTrace(_ name: String) -> Bool {
            name.hasSuffix(".evemu") || name.hasSuffix(".yml") || name.hasSuffix(".yaml") || name.hasSuffix(".events")
        }
        for entry in try directoryEntries(dir) {
            let path = dir + "/" + entry.name
            if entry.isDirectory {
                let folder = Tuning.intent(of: entry.name)
                for inner in try directoryEntries(path) where !inner.isDirectory && isTrace(inner.name) {
                    out.append((path + "/" + inner.name, folder ?? Tuning.intent(of: inner.name)))
                }
            } else if isTrace(entry.name) {
                out.append((path, Tuning.intent(of: entry.name)))
            }
        }
        return out
    }

    /// The bundled recordings and their .expect files.
    func loadReferences() throws -> (directory: String, list: [Tuning.Reference]) {
        var candidates: [String] = []
        if let reference {
            candidates = [reference]
        } else {
            if let env = getenv("GESTURED_RECORDINGS") { candidates.append(String(cString: env)) }
            let exe = readLink("/proc/self/exe") ?? ""
            let prefix = exe.split(separator: "/").dropLast(2).joined(separator: "/")
            candidates += ["/" + prefix + "/share/gestured/recordings", "Recordings"]
        }
        guard let dir = candidates.first(where: { fileExists($0) }) else {
            if reference != nil { throw FileError(path: reference!, reason: "no such directory") }
            return ("", [])
        }
        var list: [Tuning.Reference] = []
        for entry in try directoryEntries(dir) where entry.name.hasSuffix(".evemu") {
            let path = dir + "/" + entry.name
            let expectPath = String(path.dropLast(6)) + ".expect"
            guard fileExists(expectPath) else { continue }
            let expect = ExpectFile(try readTextFile(expectPath))
            for loaded in try TraceLoader.load(path, desc: nil, size: expect.size, configuration: Configuration()) {
                list.append(Tuning.Reference(trace: loaded.trace, geometry: loaded.geometry, expected: expect.gestures))
            }
        }
        return (dir, list)
    }
}
