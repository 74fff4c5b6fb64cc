import ArgumentParser

@main
struct Gestured: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gestured",
        abstract: "Touchscreen gesture recognition: tap, double tap, drag, flick, swipe, pinch, touch-and-hold.",
        discussion: """
            Gestures follow Apple's Human Interface Guidelines; thresholds are in millimetres and
            milliseconds and can be tuned in /etc/gestured/gestured.toml (see `gestured check-config`).
            """,
        version: "0.1.0",
        subcommands: [ReplayCommand.self, CheckConfigCommand.self]
    )
}
