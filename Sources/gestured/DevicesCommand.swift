import ArgumentParser
import CLinux
import GestureConfiguration
import GestureCore
import GestureDaemon
import GestureProtocol
import Logging
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the touchscreens gestured would use, with their size and where it came from.",
        discussion: """
            Opens the seat's touchscreens through libinput as the daemon does (other devices are \
            refused), prints one line per touchscreen and exits: name, node, vendor:product, size in \
            screen orientation and its source (configuration, resolution, display, fallback), \
            rotation as mounted, the orientation its touches are read in now and where that came from \
            (configuration, sensor, session: asked of the daemon at --socket when it runs), slots, and \
            "claimed" when its [[device]] section says claim = true. Needs read access to /dev/input \
            (root or group 'input').
            """
    )

    @Option(help: ArgumentHelp("Configuration file (default: the system one).", valueName: "FILE"))
    var config: String?

    @Option(help: "The udev seat (default: seat0, or `seat` in [daemon]).")
    var seat: String?

    @Option(name: .customLong("device"), help: ArgumentHelp("Look at this device only; repeatable.", valueName: "PATH"))
    var devices: [String] = []

    @Option(help: ArgumentHelp("The daemon's socket, asked for the orientation in force.", valueName: "PATH"))
    var socket: String?

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
        var found: [DeviceInfo]
        do {
            found = try LibinputSource.touchscreens(backend, configuration: configuration, logger: logger)
        } catch {
            printError("gestured: \(error.description)")
            throw ExitCode(1)
        }
        let path = socket ?? clientSocketPath()
        if let served = Self.served(at: path) {
            for i in found.indices {
                guard let d = served.first(where: { $0.node == found[i].node }) else { continue }
                found[i].orientation = d.orientation.flatMap(ScreenTransform.init(name:)) ?? .normal
                found[i].orientationSource = d.orientation_source.flatMap(OrientationSource.init(rawValue:)) ?? .configuration
                if let w = d.width_mm, let h = d.height_mm { (found[i].width, found[i].height) = (w, h) }
            }
        } else if !json && !found.isEmpty {
            printError("gestured: no daemon answered at \(path): orientations are the configuration's")
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

    /// The devices the daemon at `path` serves, from its `hello`; nil when
    /// none answers within a second.
    static func served(at path: String) -> [WireMessage]? {
        guard let addr = UnixAddress(path) else { return nil }
        let fd = clinux_unix_socket(Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard addr.connect(fd) == 0 else { return nil }
        var reader = LineReader(fd: fd)
        while let lines = reader.read() {
            if let first = lines.first { return WireMessage.decode(first).devices }
        }
        return nil
    }
}
