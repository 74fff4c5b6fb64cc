import ArgumentParser
import GestureActions
import GestureConfiguration
import GestureCore
import GestureProtocol
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `gestured stroke`: the shapes strokes are matched against, recorded,
/// listed and tried (docs/gestures.md, "Strokes").
struct StrokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stroke",
        abstract: "Record the shapes your strokes are matched against, see how distinct they are, try them on a trace.",
        discussion: """
            A shape is a [[shape]] of an actions file (gestured.actions(5)): a name and a few examples \
            of your own drawing. A binding with gesture = "stroke" and shape = "NAME" runs when a drag \
            draws it; act sends its shapes to the daemon, which names the nearest within its tolerance.
            """,
        subcommands: [Record.self, List.self, Test.self]
    )

    /// `$XDG_CONFIG_HOME/gestured/actions.d/shapes.toml`: act reads it after `actions.toml`.
    static var defaultFile: String { ActionsFiles.defaultFolder() + "/actions.d/shapes.toml" }

    struct Record: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw a shape a few times and keep it as a [[shape]].",
            discussion: """
                Live: draw the shape --examples times on the touchscreen (a drag of at least \
                stroke.minLength, with as many fingers as the binding will have); each is printed as it \
                comes. From a trace (--from): every stroke in it is an example. The shape is added to \
                FILE (default: $XDG_CONFIG_HOME/gestured/actions.d/shapes.toml, or ~/.config/gestured/… without it), which act reads with the actions files; a \
                name already there is refused. Then bind it: gesture = "stroke", shape = "NAME".
                """)

        @Argument(help: "The shape's name (1 to 64 bytes), as a binding's shape names it.")
        var name: String

        @Option(help: ArgumentHelp("How many examples to draw live (1 to 8).", valueName: "N"))
        var examples = 3

        @Option(help: ArgumentHelp("Take the examples from this trace's strokes instead.", valueName: "TRACE"))
        var from: String?

        @Option(
            help: ArgumentHelp("The panel's size in mm, for a trace whose panel reports none.", valueName: "WxH"),
            transform: panelSize)
        var size: (width: Double, height: Double)?

        @Flag(help: "Match it at any rotation (a circle); otherwise as drawn.")
        var rotates = false

        @Option(
            help: ArgumentHelp("The largest distance that still matches, above 0 and at most 1 (default 0.1).", valueName: "D"))
        var tolerance: Double?

        @Option(name: .customLong("file"), help: ArgumentHelp("Add it to this file.", valueName: "FILE"))
        var file: String?

        @Option(help: ArgumentHelp("The daemon's socket (default: as gestured monitor).", valueName: "PATH"))
        var socket: String?

        func run() throws {
            do {
                try record()
            } catch let e as ExitCode {
                throw e
            } catch {
                printFailure(error)
                throw ExitCode(1)
            }
        }

        func record() throws {
            let limits = SubscribeRequest.Shape.limits
            guard (1...limits.nameBytes).contains(name.utf8.count), !name.contains("\""), !name.contains("\\") else {
                throw ValidationError("a shape's name is 1 to 64 bytes, without quotes or backslashes")
            }
            guard (1...limits.examples).contains(examples) else {
                throw ValidationError("--examples is 1 to \(limits.examples)")
            }
            if let tolerance, !(tolerance > 0 && tolerance <= 1) {
                throw ValidationError("--tolerance is above 0 and at most 1")
            }
            let target = file ?? StrokeCommand.defaultFile
            let existing = fileExists(target) ? try readTextFile(target, limit: configurationFileLimit) : ""
            if !existing.isEmpty {
                let shapes = try BindingsReader.readFile(bytes: Array(existing.utf8), file: target).shapes
                if let there = shapes.first(where: { $0.name == name }) {
                    printError(
                        "gestured stroke: shape \"\(name)\" is at \(there.origin) already: remove it there, or choose another name"
                    )
                    throw ExitCode(1)
                }
            }
            let paths = try from.map { try StrokeCommand.strokes(in: $0, size: size) } ?? live(socket ?? clientSocketPath())
            guard !paths.isEmpty else {
                printError("gestured stroke: \(from ?? "the touchscreen") gave no stroke (a drag of at least stroke.minLength)")
                throw ExitCode(1)
            }
            let kept = Array(paths.prefix(limits.examples))
            var d = ShapeDefinition(
                origin: target, name: name, examples: kept.map { StrokeShapes.text($0.points) }, rotates: rotates)
            d.tolerance = tolerance
            guard let shape = d.shape else {
                printError("gestured stroke: no stroke of \(from ?? "the touchscreen") is a path")
                throw ExitCode(1)
            }
            var text = existing
            if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
            if !text.isEmpty { text += "\n" }
            text += StrokeCommand.toml(d)
            try makeFolders(for: target)
            try writeTextFile(target, text)
            let spread = StrokeCommand.spread(of: shape)
            print(
                "gestured stroke: \"\(name)\" kept in \(target), \(kept.count) example(s)"
                    + (spread.map { "; its examples are at most \(StrokeCommand.number($0)) from each other" } ?? "")
                    + (paths.count > limits.examples ? " (the first \(limits.examples) of \(paths.count) strokes)" : ""))
            print(
                "Bind it: [[bind]] gesture = \"stroke\", shape = \"\(name)\", fingers = …, run = […] (gestured stroke list compares it with the others)"
            )
        }

        /// Strokes drawn on the touchscreen, through the daemon.
        func live(_ path: String) throws -> [StrokePath] {
            let fd = try connectTo(path)
            defer { close(fd) }
            var reader = LineReader(fd: fd)
            var paths: [StrokePath] = []
            var subscribed = false
            printError("gestured stroke: draw \"\(name)\" \(examples) time(s) (Ctrl-C stops)")
            while paths.count < examples, let lines = reader.read() {
                for line in lines {
                    let message = DaemonMessage.decode(Array(line.utf8))
                    switch message?.type {
                    case "hello" where !subscribed:
                        subscribed = true
                        try writeAll(fd, #"{"type":"subscribe","gestures":["stroke"]}"# + "\n")
                    case "error":
                        printError("gestured stroke: \(message?.code ?? "error"): \(message?.message ?? "")")
                        throw ExitCode(1)
                    case "paused":
                        printError("gestured stroke: the daemon sends nothing: \(message?.reason ?? "you are not at the screen")")
                    case "gesture":
                        guard let points = message?.path_mm, paths.count < examples else { continue }
                        let path = StrokePath(points.compactMap { $0.count == 2 ? SIMD2($0[0], $0[1]) : nil })
                        paths.append(path)
                        printError(
                            "gestured stroke: \(paths.count) of \(examples): \(path.count) points, \(StrokeCommand.number(path.length)) mm"
                        )
                    default: continue
                    }
                }
            }
            guard paths.count == examples else {
                printError("gestured stroke: the daemon closed the connection after \(paths.count) of \(examples) strokes")
                throw ExitCode(1)
            }
            return paths
        }

        private func makeFolders(for file: String) throws {
            var folder = ""
            for part in file.split(separator: "/", omittingEmptySubsequences: false).dropLast() {
                folder += (folder.isEmpty && part.isEmpty ? "" : "/") + part
                if folder.isEmpty || fileExists(folder) { continue }
                guard mkdir(folder, 0o755) == 0 || errno == EEXIST else {
                    throw FileError(path: folder, reason: "cannot make the folder: \(String(cString: strerror(errno)))")
                }
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The shapes of the actions files, and how far each is from the nearest other.",
            discussion: """
                For each shape: its examples, whether it rotates, its tolerance, how far its examples are \
                from each other (the most), and the nearest other shape with its distance. A shape nearer \
                another than twice its tolerance may be taken for it: draw the two more unlike, or drop one.
                """)

        @Option(name: .customLong("config"), help: ArgumentHelp("The actions files (default: as act).", valueName: "FILE"))
        var config: [String] = []

        func run() throws {
            let loaded: ActionsFiles.Loaded
            do {
                loaded = try ActionsFiles.load(config)
            } catch {
                printFailure(error)
                throw ExitCode(1)
            }
            guard !loaded.shapes.isEmpty else {
                print("no shapes in \(loaded.files.joined(separator: ", ")): gestured stroke record NAME draws one")
                return
            }
            let shapes = loaded.shapes.compactMap { d in d.shape.map { (d, $0) } }
            for (d, shape) in shapes {
                var line = "\(d.name): \(d.examples.count) example(s)" + (d.rotates ? ", rotates" : "")
                line += ", tolerance \(StrokeCommand.number(shape.tolerance))"
                if let spread = StrokeCommand.spread(of: shape) { line += ", examples within \(StrokeCommand.number(spread))" }
                let others = shapes.filter { $0.0.name != d.name }.map { other in
                    (other.0.name, shape.examples.map { StrokeShapes.distance($0, to: other.1) }.min() ?? .infinity)
                }
                if let nearest = others.min(by: { $0.1 < $1.1 }) {
                    line +=
                        "; nearest \"\(nearest.0)\" at \(nearest.1.isFinite ? StrokeCommand.number(nearest.1) : "∞ (another form)")"
                    if nearest.1 < 2 * shape.tolerance { line += ": a stroke between them may be taken for either" }
                }
                print(line + " (\(d.origin))")
            }
        }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay a trace and say, for each of its strokes, which shape it is.",
            discussion: """
                Each stroke of the trace (a drag of at least stroke.minLength) with the shape it matches \
                and its distance, or the nearest shape and how far it was: what act would run.
                """)

        @Argument(help: "An evemu or libinput record trace.")
        var trace: String

        @Option(name: .customLong("config"), help: ArgumentHelp("The actions files (default: as act).", valueName: "FILE"))
        var config: [String] = []

        @Option(
            help: ArgumentHelp("The panel's size in mm, for a trace whose panel reports none.", valueName: "WxH"),
            transform: panelSize)
        var size: (width: Double, height: Double)?

        func run() throws {
            do {
                let loaded = try ActionsFiles.load(config)
                let shapes = StrokeShapes(loaded.shapes.compactMap(\.shape))
                let paths = try StrokeCommand.strokes(in: trace, size: size)
                if paths.isEmpty { print("\(trace): no stroke (a drag of at least stroke.minLength)") }
                for (i, path) in paths.enumerated() {
                    var line = "stroke \(i + 1) (\(StrokeCommand.number(path.length)) mm): "
                    if let m = shapes.match(path.points) {
                        line += "\"\(m.name)\" at \(StrokeCommand.number(m.distance)), score \(StrokeCommand.number(m.score))"
                    } else {
                        let near = shapes.shapes.map { ($0.name, StrokeShapes.distance(path.points, to: $0)) }.min { $0.1 < $1.1 }
                        line +=
                            "no shape"
                            + (near.map { n in
                                n.1.isFinite
                                    ? "; nearest \"\(n.0)\" at \(StrokeCommand.number(n.1))"
                                    : " (a line, or thinner than every shape)"
                            } ?? "")
                    }
                    print(line)
                }
            } catch let e as ExitCode {
                throw e
            } catch {
                printFailure(error)
                throw ExitCode(1)
            }
        }
    }

    /// The strokes of a trace, replayed with the installed thresholds.
    static func strokes(in trace: String, size: (width: Double, height: Double)?) throws -> [StrokePath] {
        let configuration = try loadConfiguration(nil)
        var out: [StrokePath] = []
        for loaded in try TraceLoader.load(trace, desc: nil, size: size, configuration: configuration) {
            let r = TraceReplay(
                geometry: loaded.geometry, thresholds: loaded.thresholds, wanted: GestureKindSet([.drag, .stroke]))
            out += try r.events(loaded.trace).events.compactMap(\.path)
        }
        return out
    }

    /// The most two examples of a shape are apart (nil for one example).
    static func spread(of shape: StrokeShapes.Shape) -> Double? {
        guard shape.examples.count > 1 else { return nil }
        var most = 0.0
        for (i, a) in shape.examples.enumerated() {
            for b in shape.examples[(i + 1)...] { most = max(most, StrokeShapes.distance(a, b)) }
        }
        return most
    }

    /// A `[[shape]]` table as an actions file writes it.
    static func toml(_ d: ShapeDefinition) -> String {
        var s = "[[shape]]\nname = \"\(d.name)\"\nexamples = [\n"
        for e in d.examples { s += "    \"\(e)\",\n" }
        s += "]\n"
        if d.rotates { s += "rotates = true\n" }
        if let t = d.tolerance { s += "tolerance = \(t)\n" }
        return s
    }

    static func number(_ v: Double) -> String {
        var s = ""
        GestureEvent.appendJSONNumber(v, scale: 1000, to: &s)
        return s
    }
}
