import ArgumentParser
import GestureConfiguration
import GestureCore
import GestureDaemon
import Logging
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a touchscreen's raw events into an evemu file that `gestured replay` reads.",
        discussion: """
            Reads the device through libevdev without grabbing it (everything else keeps receiving its \
            events) and writes the evemu format: the device's own description as the header, then one \
            `E:` line per event, named in a comment the way libevdev names it. Each frame is written as \
            soon as it is complete, so the file is whole however the recording stops: Ctrl-C (SIGINT), \
            SIGTERM, --duration, or the device going away. If the kernel drops events (SYN_DROPPED), \
            libevdev's resynchronised state is written in their place under a comment.

            Without --device, records the seat's only touchscreen (see `gestured devices`). Devices \
            that are not touchscreens are refused. Needs read access to /dev/input (root or the \
            group 'input'). Exit status: 0 when stopped by a signal or --duration, 1 on an error or \
            when the device went away (the file is still complete).
            """
    )

    @Option(help: ArgumentHelp("The touchscreen's event node (default: the seat's only touchscreen).", valueName: "PATH"))
    var device: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the recording here (default: standard output).", valueName: "FILE"))
    var output: String?

    @Option(help: ArgumentHelp("Stop after this many seconds (default: at Ctrl-C).", valueName: "S"))
    var duration: Double?

    @Option(help: "The udev seat to look for a touchscreen on, without --device.")
    var seat: String = "seat0"

    func validate() throws {
        if let duration, !(duration > 0 && duration.isFinite) {
            throw ValidationError("--duration must be a positive number of seconds (got \(duration))")
        }
        if let output, output.isEmpty { throw ValidationError("--output needs a file name") }
    }

    func run() throws {
        let path = try device ?? onlyTouchscreen()
        let evdev: EvdevDevice
        do {
            evdev = try EvdevDevice(path: path)
        } catch {
            printFailure(error)
            throw ExitCode(1)
        }
        if let why = evdev.notTouchscreen {
            printError(
                "gestured: refusing \(path) (\(evdev.name)): not a touchscreen: \(why). `gestured devices` lists the touchscreens."
            )
            throw ExitCode(1)
        }
        var fd: Int32 = 1
        if let output {
            fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                printError("gestured: cannot write \(output): \(Errno.last)")
                throw ExitCode(1)
            }
        }
        defer { if fd != 1 { close(fd) } }
        let target = output ?? "standard output"
        let description = evdev.description
        let geometry = TouchAssembler.geometry(for: description, size: nil, source: .commandLine)
        let size = geometry.flatMap { g in
            g.source == .resolution ? "\(NumberText.fixed(g.screenWidth, 1)) x \(NumberText.fixed(g.screenHeight, 1)) mm" : nil
        }
        let slots = description.slotCount > 0 ? "\(description.slotCount) slots" : "single touch"
        let recorder = EvdevRecorder(device: evdev, output: fd, outputName: target)
        let summary: RecordSummary
        do {
            try recorder.header(version: gesturedVersion)
            printError(
                "gestured: recording \(path) (\(evdev.name), \(slots)\(size.map { ", " + $0 } ?? "")) to \(target); "
                    + (duration.map { "stopping after \($0) s or at Ctrl-C" } ?? "Ctrl-C stops"))
            summary = try recorder.run(duration: duration)
        } catch {
            printFailure(error)
            throw ExitCode(1)
        }
        let why: String
        switch summary.end {
        case .signal(let n): why = n == SIGINT ? "stopped (Ctrl-C)" : "stopped (signal \(n))"
        case .duration: why = "stopped after \(duration ?? 0) s"
        case .deviceGone: why = "\(path) went away; the recording up to then is complete"
        }
        var line =
            "gestured: \(why): \(summary.events) events, \(summary.frames) frames, \(summary.touches) touches in \(NumberText.fixed(summary.seconds, 1)) s written to \(target)"
        if summary.drops > 0 {
            line += "; the kernel dropped events \(summary.drops) time(s) (resynchronised, marked in the file)"
        }
        printError(line)
        if summary.events == 0 { printError("gestured: nothing was recorded: was the screen touched?") }
        if summary.end == .deviceGone { throw ExitCode(1) }
    }

    /// The seat's touchscreen when there is exactly one.
    func onlyTouchscreen() throws -> String {
        var logger = Logger(label: "gestured")
        logger.logLevel = .critical
        let found: [DeviceInfo]
        do {
            found = try LibinputSource.touchscreens(.seat(seat), configuration: Configuration(), logger: logger)
        } catch {
            printError("gestured: \(error.description); name the device with --device PATH")
            throw ExitCode(1)
        }
        switch found.count {
        case 1:
            return found[0].node
        case 0:
            printError(
                "gestured: no touchscreen found on \(seat) (reading /dev/input needs root or the group 'input'); name one with --device PATH"
            )
        default:
            printError("gestured: \(found.count) touchscreens on \(seat); choose one with --device:")
            for d in found { printError("  --device \(d.node)    \(d.name)") }
        }
        throw ExitCode(1)
    }
}
