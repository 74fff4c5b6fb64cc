import ArgumentParser
import GestureConfiguration
import GestureCore
import GestureDaemon
import ToolSupport

struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a configuration file and print the effective configuration.",
        discussion: """
            Without FILE, reads \(ConfigPaths.main) and then \(ConfigPaths.dropInDirectory)/*.toml in \
            name order, each over the last. Errors are printed as file:line: message; the exit \
            status is 1 when the configuration cannot be used, also when a user or group it names \
            does not exist on this system.
            """
    )

    @Argument(help: "The configuration file to check.")
    var file: String?

    func run() throws {
        do {
            let config = try loadConfiguration(file)
            // The users and groups named must exist, as `serve` requires.
            _ = try AccessPolicy(config.daemon)
            var out = OutputBuffer()
            let read = config.sources.isEmpty ? "none (defaults)" : config.sources.joined(separator: ", ")
            out.write("# files read: \(read)\n" + config.rendered)
            out.flush()
        } catch {
            printFailure(error)
            throw ExitCode(1)
        }
    }
}
