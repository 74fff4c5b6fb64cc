import ArgumentParser
import GestureCore
import GestureDaemon

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
            TuneCommand.self,
            CheckConfigCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )
}

/// `--size WxH`: a panel's size in mm, checked as the option is parsed.
func panelSize(_ text: String) throws -> (width: Double, height: Double) {
    guard let size = parseSize(text) else {
        throw ValidationError("--size must be WIDTHxHEIGHT in mm, e.g. 277x156 (got '\(text)')")
    }
    return size
}
