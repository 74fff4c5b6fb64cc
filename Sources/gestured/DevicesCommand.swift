import ArgumentParser
import GestureCore
import GestureDaemon
import Logging

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the touchscreens gestured would use, with their size and where it came from.",
        discussion: """
            Opens the seat's touchscreens through libinput as the daemon does (other devices are \
            refused), prints one line per touchscreen and exits: name, node, vendor:product, size in \
            screen orientation and its source (configuration, resolution, display, fallback), \
            rotation, slots, and "claimed" when its [[device]] section says claim = true. Needs read access to /dev/input (root or group 'input').
            """
    )

    @Option(help: ArgumentHelp("Configuration file (default: the system one).", valueName: "FILE"))
    var config: String?

    @Option(help: "The udev seat (default: seat0, or `seat` in [daemon]).")
    var seat: String?

    @Option(name: .customLong("device"), help: ArgumentHelp("Look at this device only; repeatable.", valueName: "PATH"))
    var devices: [String] = []

    @Flag(help: "One JSON object per device, as the socket's hello carries them.")
    var json = false

    @Flag(name: .shortAndLong, help: "Also show libinput's messages and refused devices.")
    var verbose = false

    func run() throws {
        let journal = StderrLogHandler.stderrIsJournal
        let verbose = self.verbose
        LoggingSystem.bootstrap { _ in StderrLogHandler(level: verbose ? .debug : .warning, journal: journal) }
        var logger = Logger(label: "gestured")
        logger.logLevel = verbose ? .debug : .warning
        let configuration: Configuration
        do {
            configuration = try loadConfiguration(config)
        } catch {
            printError("gestured: \(error)")
            throw ExitCode(1)
        }
        let backend: LibinputSource.Backend =
            devices.isEmpty ? .seat(seat ?? configuration.daemon.seat) : .paths(devices)
        let found: [DeviceInfo]
        do {
            found = try LibinputSource.touchscreens(backend, configuration: configuration, logger: logger)
        } catch {
            printError("gestured: \(error.description)")
            throw ExitCode(1)
        }
        var out = OutputBuffer()
        if found.isEmpty && !json {
            printError(
                "gestured: no touchscreen found on \(devices.isEmpty ? "seat \(seat ?? configuration.daemon.seat)" : devices.joined(separator: ", ")) (run as root or in group 'input'; -v shows what was refused)"
            )
        }
        for d in found { out.write((json ? d.jsonObject : d.summary) + "\n") }
        out.flush()
        if found.isEmpty { throw ExitCode(1) }
    }
}
