import CHarness
public import Foundation
import Glibc

/// A process a test starts: in a process group of its own, inheriting no
/// descriptor but 0, 1 and 2, and never waited for without a deadline.
///
/// Foundation's `Process` is not used for this. It learns that a child ended
/// when a socket it leaves open in the child reaches end of file, so a
/// grandchild that keeps that socket (any background job of a script) makes
/// `waitUntilExit()` wait for the grandchild too; its pipes are not
/// close-on-exec, so a child that another test starts in the same instant can
/// inherit them and hold `readDataToEndOfFile()` open; and neither call has a
/// time limit. A CI run hung for over an hour in two tests that waited on
/// children that way (docs/testing.md, "Child processes, and when a test hangs").
public final class Child {
    /// Where one of the child's descriptors 0, 1 and 2 goes.
    public enum Stream {
        /// /dev/null.
        case null
        /// A pipe this object holds the other end of.
        case pipe
        /// A file, created or truncated.
        case file(String)
        /// Descriptor 1's destination (for 2 only).
        case output
        /// The test process's own descriptor of that number.
        case inherit
    }

    /// Writing to a child that has exited fails with EPIPE instead of
    /// killing the test process (children get the default action back).
    private static let ignoreSIGPIPE: Void = { _ = Glibc.signal(SIGPIPE, SIG_IGN) }()

    public let pid: Int32
    /// The command line, for messages.
    public let command: String
    /// Our end of the child's standard input, output and error, when they are pipes (else -1).
    public private(set) var input: Int32 = -1
    public let output: Int32
    public let error: Int32
    private var exit: Int32?

    /// Starts `arguments[0]` (a path, or a name looked up in PATH).
    public init(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        directory: String? = nil, stdin: Stream = .null, stdout: Stream = .pipe, stderr: Stream = .output
    ) throws {
        command = arguments.joined(separator: " ")
        Self.ignoreSIGPIPE
        var ours: [Int32] = []  // parent's ends, closed on failure
        var theirs: [Int32] = []  // child's ends, closed after the spawn
        defer { theirs.forEach { close($0) } }
        func open(_ stream: Stream, reading: Bool, number: Int32) throws -> (child: Int32, parent: Int32) {
            switch stream {
            case .inherit:
                return (number, -1)
            case .null, .output:
                let fd = Glibc.open("/dev/null", (reading ? O_RDONLY : O_WRONLY) | O_CLOEXEC)
                guard fd >= 0 else { throw ChannelError("/dev/null: \(String(cString: strerror(errno)))") }
                theirs.append(fd)
                return (fd, -1)
            case .file(let path):
                let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                guard fd >= 0 else { throw ChannelError("\(path): \(String(cString: strerror(errno)))") }
                theirs.append(fd)
                return (fd, -1)
            case .pipe:
                var fds: [Int32] = [-1, -1]
                guard charness_pipe(&fds) == 0 else { throw ChannelError("pipe: \(String(cString: strerror(errno)))") }
                let (child, parent) = reading ? (fds[0], fds[1]) : (fds[1], fds[0])
                theirs.append(child)
                ours.append(parent)
                return (child, parent)
            }
        }
        do {
            let i = try open(stdin, reading: true, number: 0)
            let o = try open(stdout, reading: false, number: 1)
            let e: (child: Int32, parent: Int32)
            if case .output = stderr { e = (o.child, -1) } else { e = try open(stderr, reading: false, number: 2) }
            let argv = arguments.map { strdup($0) } + [nil]
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { (argv + envp).forEach { free($0) } }
            let spawned = charness_spawn(arguments[0], argv, envp, i.child, o.child, e.child, directory)
            guard spawned > 0 else { throw ChannelError("cannot start \(arguments[0]): \(String(cString: strerror(errno)))") }
            pid = spawned
            (input, output, error) = (i.parent, o.parent, e.parent)
        } catch {
            ours.forEach { close($0) }
            throw error
        }
    }

    /// Ends what is left of the process group and reaps the child: SIGTERM
    /// first, and up to three seconds for it to end (a command run through
    /// sudo as another user is not the test's to kill: sudo passes SIGTERM
    /// on to it, and ends with it, but dies of SIGKILL alone and leaves it
    /// running), then SIGKILL.
    deinit {
        if exit == nil {
            kill(-pid, SIGTERM)
            kill(pid, SIGTERM)
            for _ in 0..<300 where charness_exited(pid) == 0 { usleep(10_000) }
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        for fd in [input, output, error] where fd >= 0 { close(fd) }
    }

    /// The exit status when it has ended (128 + N after signal N), else nil.
    /// When it has ended, whatever is left of its process group (a
    /// background job of a script) is killed before it is reaped: a test
    /// leaves nothing running behind it.
    public var status: Int32? {
        guard exit == nil else { return exit }
        switch charness_exited(pid) {
        case 1:
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let signal = status & 0x7f
            exit = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        case -1 where errno == ECHILD:
            // Reaped by someone else: ended, status unknown; its ids may be reused, so nothing is killed.
            exit = -1
        default:
            break
        }
        return exit
    }

    public var isRunning: Bool { status == nil }

    public func signal(_ signo: Int32) {
        if isRunning { kill(pid, signo) }
    }

    /// Writes `text` to the child's standard input (a pipe).
    public func write(_ text: String) throws {
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.write(input, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw ChannelError("writing to \(command): \(String(cString: strerror(errno)))") }
            done += n
        }
    }

    /// Closes our end of its standard input: it reads end of file.
    public func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    /// Waits at most `timeout` seconds (times `Timing.scale`) for the child
    /// to exit and returns its status. When it does not, its process group is
    /// killed and the error says so.
    @discardableResult
    public func wait(timeout: Double) throws -> Int32 {
        let limit = timeout * Timing.scale
        let deadline = Date().addingTimeInterval(limit)
        while true {
            if let status { return status }
            if Date() >= deadline { break }
            usleep(5_000)
        }
        kill(-pid, SIGKILL)
        _ = try? wait(timeout: 5)
        throw ChannelError("`\(command)` did not exit within \(limit) s; killed it and its process group")
    }

    /// Reads its standard output and error (pipes) to their end and waits for
    /// it to exit, all within `timeout` seconds (times `Timing.scale`). Output
    /// still open 2 s after the exit (held by a process that left the group)
    /// is not waited for. On the deadline the process group is killed and the
    /// error holds what it printed.
    public func finish(timeout: Double) throws -> (status: Int32, out: String, err: String) {
        let limit = timeout * Timing.scale
        let deadline = Date().addingTimeInterval(limit)
        var streams = [(fd: output, data: [UInt8]()), (fd: error, data: [UInt8]())]
        var open = streams.map { $0.fd >= 0 }
        var exitedAt: Date?
        while open.contains(true) {
            if exitedAt == nil, status != nil { exitedAt = Date() }
            if let exitedAt, Date().timeIntervalSince(exitedAt) > 2 { break }
            if Date() >= deadline {
                kill(-pid, SIGKILL)
                _ = try? wait(timeout: 5)
                let out = String(decoding: streams[0].data + streams[1].data, as: UTF8.self)
                throw ChannelError("`\(command)` did not finish within \(limit) s; killed it. It printed:\n\(out)")
            }
            var fds = streams.indices.map { pollfd(fd: open[$0] ? streams[$0].fd : -1, events: Int16(POLLIN), revents: 0) }
            let r = poll(&fds, nfds_t(fds.count), 50)
            if r < 0 && errno != EINTR { throw ChannelError("poll: \(String(cString: strerror(errno)))") }
            guard r > 0 else { continue }
            for i in streams.indices where open[i] && fds[i].revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 65536)
                let n = chunk.withUnsafeMutableBytes { read(streams[i].fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { open[i] = false } else { streams[i].data += chunk[0..<n] }
            }
        }
        let status = try wait(timeout: max(1, deadline.timeIntervalSinceNow / Timing.scale))
        return (status, String(decoding: streams[0].data, as: UTF8.self), String(decoding: streams[1].data, as: UTF8.self))
    }

    /// Runs `arguments` to the end within `timeout` seconds: its status, standard output and standard error.
    public static func run(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        directory: String? = nil, timeout: Double = 60
    ) throws -> (status: Int32, out: String, err: String) {
        try Child(arguments, environment: environment, directory: directory, stderr: .pipe).finish(timeout: timeout)
    }
}
