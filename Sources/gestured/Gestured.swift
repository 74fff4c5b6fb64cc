import ArgumentParser
import GestureCore
import GestureDaemon
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

@main
struct Gestured: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gestured",
        abstract: "Touchscreen gesture recognition: tap, double tap, drag, flick, swipe, pinch, rotate, touch-and-hold.",
        discussion: """
            Gestures follow Apple's Human Interface Guidelines; thresholds are in millimetres and \
            milliseconds and can be tuned in /etc/gestured/gestured.toml (see `gestured check-config`).
            """,
        version: gesturedVersion,
        subcommands: [
            ServeCommand.self, ActCommand.self, MonitorCommand.self, DevicesCommand.self, RecordCommand.self, ReplayCommand.self,
            TuneCommand.self, StrokeCommand.self,
            CheckConfigCommand.self, ClonePropertiesCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )

    /// A word that names no command is a mistyped command, not arguments for
    /// the default one: `gestured moniter` says there is no such command.
    static func main() {
        Daemon.givePagesBackBeforeArguments()
        let arguments = Array(CommandLine.arguments.dropFirst())
        let known = configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        let word = arguments.first == "help" && arguments.count > 1 ? arguments[1] : arguments.first
        if let word, !word.hasPrefix("-"), !known.contains(word) {
            let close = known.filter { editDistance($0, word) <= 2 }
            printError(
                "gestured: no command '\(word)'"
                    + (close.isEmpty ? "" : "; did you mean \(close.map { "'\($0)'" }.joined(separator: " or "))?")
                    + " Commands: \(known.filter { $0 != "help" }.joined(separator: ", ")) (gestured --help)")
            Glibc.exit(64)
        }
        main(arguments)
    }
}

/// Levenshtein distance, for suggesting a command.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    var row = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
        var previous = row[0]
        row[0] = i
        for j in stride(from: 1, through: b.count, by: 1) {
            let saved = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
            previous = saved
        }
    }
    return a.isEmpty ? b.count : row[b.count]
}

/// `--size WxH`: a panel's size in mm, checked as the option is parsed.
func panelSize(_ text: String) throws -> (width: Double, height: Double) {
    guard let size = parseSize(text) else {
        throw ValidationError("--size must be WIDTHxHEIGHT in mm, each 1 to 10000, e.g. 277x156 (got '\(text)')")
    }
    return size
}
