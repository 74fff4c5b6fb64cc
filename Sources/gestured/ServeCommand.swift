import ArgumentParser
import GestureConfiguration
import GestureCore
import GestureDaemon
import Logging

#if canImport(Glibc)
    import Glibc
#endif

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Recognize gestures on touchscreens and publish them on a Unix socket (the default).",
        discussion: """
            Opens the touchscreens of a seat through libinput (the udev backend, with hotplug), or the \
            devices named with --device (the path backend), and serves gesture events as JSON lines to \
            the clients that subscribe (protocol.md in gestured's documentation, /usr/local/share/doc/gestured when installed from source). Only touchscreens are opened: udev must mark \
            them ID_INPUT_TOUCHSCREEN=1.

            With --replay, a recorded trace is served as a virtual touchscreen instead, on the daemon's \
            clock, so the daemon can be tried with no touchscreen at all.

            The socket is --socket, else $GESTURED_SOCKET (where every client looks first), else \
            `socket` in [daemon], else $RUNTIME_DIRECTORY/gestured.sock \
            (systemd's RuntimeDirectory=), /run/gestured/gestured.sock for root, or \
            $XDG_RUNTIME_DIR/gestured.sock for a user. A socket passed by systemd (LISTEN_FDS) is \
            used as it is. SIGHUP reloads the configuration; SIGTERM tells clients and stops.
            """
    )

    @Option(
        help: ArgumentHelp("Configuration file (default: /etc/gestured/gestured.toml and gestured.d/*.toml).", valueName: "FILE"))
    var config: String?

    @Option(help: ArgumentHelp("Where to listen.", valueName: "PATH"))
    var socket: String?

    @Option(help: "The udev seat whose touchscreens to use (default: seat0, or `seat` in [daemon]).")
    var seat: String?

    @Option(
        name: .customLong("device"),
        help: ArgumentHelp("Use this touchscreen only (libinput's path backend); repeatable.", valueName: "PATH"))
    var devices: [String] = []

    @Option(help: ArgumentHelp("Serve this recorded trace as a virtual touchscreen.", valueName: "TRACE"))
    var replay: String?

    @Flag(help: "With --replay: start the trace again after it ends, for ever.")
    var loop = false

    @Option(
        help: ArgumentHelp(
            "With --replay: play this many times faster (0.1 to 100). Timing is part of a gesture: faster, a drag may become a flick or a swipe, a hold a tap; `replay` gives what the trace means at its own speed.",
            valueName: "X"))
    var speed: Double = 1

    @Option(
        help: ArgumentHelp("With --replay: the panel's size in mm, for traces with no resolution.", valueName: "WxH"),
        transform: panelSize)
    var size: (width: Double, height: Double)?

    @Option(help: ArgumentHelp("With --replay: hold the trace back until N clients have subscribed.", valueName: "N"))
    var waitSubscribers = 0

    @Option(
        help: ArgumentHelp("Least important messages logged: error, warning, notice, info, debug.", valueName: "LEVEL"),
        completion: .list(DaemonSettings.logLevels))
    var logLevel: String?

    @Flag(name: .shortAndLong, help: "Log at debug level.")
    var verbose = false

    @Option(
        help: ArgumentHelp(
            "Started as root: once its devices and socket are open, run as this user (default: gestured if there is one, else nobody; root keeps root, without capabilities, where only root may open touchscreens plugged in later).",
            valueName: "NAME"))
    var user: String?

    func validate() throws {
        guard speed >= 0.1 && speed <= 100 else { throw ValidationError("--speed must be from 0.1 to 100") }
        if replay == nil && (loop || size != nil || waitSubscribers != 0 || speed != 1) {
            throw ValidationError("--loop, --speed, --size and --wait-subscribers go with --replay TRACE")
        }
        if let logLevel, !DaemonSettings.logLevels.contains(logLevel) {
            throw ValidationError("--log-level must be one of \(DaemonSettings.logLevels.joined(separator: ", "))")
        }
        guard waitSubscribers >= 0 else { throw ValidationError("--wait-subscribers must be 0 or more") }
    }

    func run() throws {
        SignalSource.hold()
        Privileges.closeInheritedDescriptors()
        let journal = StderrLogHandler.stderrIsJournal
        LoggingSystem.bootstrap { _ in StderrLogHandler(level: .info, journal: journal) }
        let logger = Logger(label: "gestured")
        var options = Daemon.Options()
        options.configPath = config
        options.socketPath = socket ?? getenv("GESTURED_SOCKET").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        options.seat = seat
        options.devicePaths = devices
        options.replayPath = replay
        options.replaySize = size
        options.speed = speed
        options.loop = loop
        options.waitSubscribers = waitSubscribers
        options.runAs = user
        if verbose {
            options.logLevel = .debug
        } else if let logLevel {
            options.logLevel = StderrLogHandler.level(named: logLevel)
        }
        var daemon: Daemon
        do {
            daemon = try Daemon(options: options, logger: logger)
        } catch {
            logger.error("\(error.description)")
            throw ExitCode(1)
        }
        let status = daemon.run()
        if status != 0 { throw ExitCode(status) }
    }
}
