import ArgumentParser
import CLinux
import GestureConfiguration
import GestureCore
import GestureDaemon
import GestureProtocol
import Logging
import SystemPackage
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

    @Flag(
        help:
            "One JSON object per line and device, as the socket's hello carries them; nothing when none is found (exit status 1)."
    )
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
            printFailure(error)
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
        if found.isEmpty {
            // On stderr, so that --json's output stays empty: no device, no line.
            // Root reads every node: then only what libinput refused can say more.
            let access = geteuid() == 0 ? "" : "run as root or in group 'input'; "
            printError(
                "gestured: no touchscreen found on \(devices.isEmpty ? "seat \(seat ?? configuration.daemon.seat)" : devices.joined(separator: ", ")) (\(access)-v shows what was refused)"
            )
            if verbose && devices.isEmpty { printError("gestured: \(Self.inputNodes())") }
        }
        for d in found { out.write((json ? d.jsonObject : d.summary) + "\n") }
        out.flush()
        if found.isEmpty { throw ExitCode(1) }
    }

    /// What /dev/input holds, for when nothing was found: no event node at
    /// all (no input device, or a container without /dev/input), or how
    /// many of them this user cannot read.
    static func inputNodes(_ directory: String = "/dev/input") -> String {
        guard let d = opendir(directory) else {
            return "\(directory) cannot be read (\(Errno.last)): no input devices here (a container without /dev/input?)"
        }
        defer { closedir(d) }
        var nodes = 0
        var unreadable = 0
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix("event") else { continue }
            nodes += 1
            if access(directory + "/" + name, R_OK) != 0 { unreadable += 1 }
        }
        if nodes == 0 { return "\(directory) has no event nodes: no input device is plugged in (or a container without them)" }
        if unreadable > 0 {
            return
                "\(unreadable) of the \(nodes) event nodes in \(directory) cannot be read by you: run as root or join group 'input'"
        }
        return "\(nodes) event nodes in \(directory), all readable: none is a touchscreen to udev (ID_INPUT_TOUCHSCREEN)"
    }

    /// The devices the daemon at `path` serves, from its `hello`; nil when
    /// none answers within a second.
    static func served(at path: String) -> [DaemonMessage]? {
        guard case .success(let fd) = connectToDaemon(path) else { return nil }
        defer { close(fd) }
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var reader = LineReader(fd: fd)
        while let lines = reader.read() {
            if let first = lines.first { return DaemonMessage.decode(first).devices }
        }
        return nil
    }
}
