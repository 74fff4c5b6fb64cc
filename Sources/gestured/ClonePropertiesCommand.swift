import ArgumentParser
import GestureDaemon
import ToolSupport

/// For udev (81-gestured-clone.rules): the properties a claimed
/// touchscreen's clone takes from the device.
struct ClonePropertiesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clone-properties",
        abstract: "Print the udev properties a claimed touchscreen's clone takes from it (run by udev).",
        discussion: """
            udev runs it for the clone gestured makes of a claimed touchscreen (81-gestured-clone.rules), \
            with the clone's phys, gestured-clone:eventN, and imports the KEY=VALUE lines it prints: the \
            device's calibration, output, device group, seat, size and path.
            """,
        shouldDisplay: false
    )

    @Argument(help: ArgumentHelp("The clone's phys: gestured-clone:eventN.", valueName: "PHYS"))
    var phys: String

    func run() throws {
        switch CloneProperties.lines(phys: phys) {
        case .success(let lines):
            for line in lines { print(line) }
        case .failure(let error):
            printError("gestured clone-properties: \(error.description)")
            throw ExitCode(1)
        }
    }
}
