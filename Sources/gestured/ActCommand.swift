import ArgumentParser
import GestureActions
import GestureProtocol
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

struct ActCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "act",
        abstract: "Run commands and type keys when gestures happen, as an actions file binds them.",
        discussion: """
            Reads $XDG_CONFIG_HOME/gestured/actions.toml (else ~/.config/gestured/actions.toml) and \
            then actions.d/*.toml beside it, in name order, or the --config files; subscribes to the \
            daemon (--socket, else $GESTURED_SOCKET, else $XDG_RUNTIME_DIR/gestured.sock if it \
            exists, else /run/gestured/gestured.sock) and carries out every [[bind]] that matches \
            each gesture. It waits for the daemon and reconnects when it restarts, and reads the \
            files again when they change or on SIGHUP, keeping the previous bindings when they \
            have an error. In a Wayland session ($WAYLAND_DISPLAY) it also tells the daemon how \
            the compositor turns the output each touchscreen shows on, so that directions follow \
            the screen ([screen] in an actions file: output, follow-rotation). The format: README.md, "Binding gestures", in gestured's documentation (/usr/local/share/doc/gestured when installed from source); examples for six desktops in its examples/actions.
            """
    )

    @Option(name: .customLong("config"), help: ArgumentHelp("An actions file (repeat for several).", valueName: "FILE"))
    var files: [String] = []

    @Option(help: ArgumentHelp("The daemon's socket.", valueName: "PATH"))
    var socket: String?

    @Flag(help: "Check the files, print what each binding matches and does, and exit.")
    var check = false

    @Flag(
        help: ArgumentHelp(
            "Print where act learns the context, then the context (the focused app, its title and fullscreen state, the lock, tablet mode) and what the bindings do in it, a line each time it changes. Runs nothing and claims nothing; stop it with Ctrl-C.",
            valueName: "context"))
    var context = false

    @Option(help: ArgumentHelp("At most this many commands run at once.", valueName: "N"))
    var maxRunning = 8

    func validate() throws {
        guard (1...256).contains(maxRunning) else { throw ValidationError("--max-running must be 1 to 256") }
        guard !(check && context) else { throw ValidationError("--check and --context are two things to do: give one") }
    }

    func run() throws {
        if check {
            do {
                let loaded = try ActionsFiles.load(files)
                for message in loaded.skipped { printError("gestured act: \(message)") }
                print("\(loaded.bindings.count) binding(s) in \(loaded.files.joined(separator: ", ")):")
                for b in loaded.bindings { print("  \(b.origin): \(b.summary)") }
                if !loaded.context.leaveToApps.isEmpty {
                    print("  touches left to: \(loaded.context.leaveToApps.map { "\"\($0)\"" }.joined(separator: ", "))")
                }
                let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
                for w in BindingsCheck.warnings(loaded.bindings, searchPath: path) {
                    printError("gestured act: warning: \(w)")
                }
            } catch {
                printError("gestured act: \(error)")
                throw ExitCode(1)
            }
            return
        }
        let path = socket ?? clientSocketPath()
        guard path.hasPrefix("/"), UnixAddress(path) != nil else {
            printError(
                "gestured act: \(path) cannot be the daemon's socket: give its absolute path, of at most 107 bytes (the daemon never uses the abstract namespace)"
            )
            throw ExitCode(1)
        }
        var options = Actor.Options(socketPath: path)
        options.files = files
        options.maxRunning = maxRunning
        if context {
            options.watchContext = { line in
                var bytes = Array((line + "\n").utf8)
                _ = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress, $0.count) }
            }
        }
        var actor: Actor
        do {
            actor = try Actor(options: options) { message in
                var line = Array("gestured act: \(message)\n".utf8)
                _ = line.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
            }
        } catch {
            printError("gestured act: \(error)")
            throw ExitCode(1)
        }
        throw ExitCode(actor.run())
    }
}
