import CLinux
import GestureCore
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Starts the bindings' commands and watches them: none is waited for, each
/// is stopped after its timeout (SIGTERM, SIGKILL a second later), at most
/// `limit` run at once, and each one's exit status and standard error go to
/// the log.
///
/// Stopping a command stops what it started too: its process group, every
/// process descended from it, and every process that still carries its mark
/// in the environment (`GESTURED_RUN`), which finds the ones that left its
/// group and were orphaned (`setsid`, a double fork). act is their
/// subreaper, so those orphans are its children and it reaps them. Only a
/// process that both clears its environment and leaves the tree escapes.
/// `pipe` programs are stopped the same way (`Runner.stop(pid:mark:_:)`).
///
/// A source of act's loop: its descriptors are the commands' standard
/// error pipes, its deadline the next timeout; each turn it reaps, and
/// hands on the children that are not its commands (`childEnded`).
final class Runner: ActSource {
    struct Running {
        var pid: Int32
        /// `GESTURED_RUN`'s value for it and everything it starts.
        var mark: String
        var label: String
        /// The read end of its standard error; -1 once at its end.
        var stderr: Int32
        /// What it wrote there and was not logged yet.
        var errors = LineBuffer(limit: 2 * Runner.lineLength)
        var deadline: Timestamp
        var terminated = false
    }

    private(set) var running: [Running] = []
    /// The longest line of a command's standard error logged as one.
    static let lineLength = 4096
    /// Where standard error is read into, kept from one read to the next.
    private var scratch = [UInt8](repeating: 0, count: Runner.lineLength)
    let limit: Int
    private let log: (String) -> Void
    private var serial = 0

    init(limit: Int = 8, log: @escaping (String) -> Void) {
        self.limit = limit
        self.log = log
        _ = clinux_set_child_subreaper()
    }

    /// Starts `argv` with the environment plus `environment`; false (and a
    /// log line) when it could not start or `limit` commands run already.
    @discardableResult
    func start(
        _ argv: [String], environment: [String], label: String, timeout: Timestamp.Duration, now: Timestamp
    ) -> Bool {
        guard running.count < limit else {
            log("\(label): not run: \(limit) commands are still running (each stops after its timeout-ms)")
            return false
        }
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else {
            log("\(label): not run: pipe: \(Errno.last)")
            return false
        }
        // One thread: nothing can start another program between pipe and these.
        for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(pipeFDs[0], F_SETFL, O_NONBLOCK)
        serial += 1
        let mark = "\(getpid()).\(serial)"
        let spawned = spawnProcess(argv, environment: environment + ["GESTURED_RUN=" + mark], stdin: nil, stderr: pipeFDs[1])
        Glibc.close(pipeFDs[1])
        guard case .success(let pid) = spawned else {
            Glibc.close(pipeFDs[0])
            if case .failure(let e) = spawned { log("\(label): cannot run \(argv[0]): \(e)") }
            return false
        }
        running.append(Running(pid: pid, mark: mark, label: label, stderr: pipeFDs[0], deadline: now + timeout))
        return true
    }

    /// The earliest timeout (or the SIGKILL after it).
    var deadline: Timestamp { running.map(\.deadline).min() ?? .never }

    func prepare(_ poller: inout Poller, now: Timestamp, into news: inout [ActNews]) {
        for r in running where r.stderr >= 0 { _ = poller.add(r.stderr, Int32(POLLIN)) }
    }

    /// Every turn: the commands' standard error read, the ended reaped, the
    /// late stopped (the SIGCHLD that woke the loop needs nothing more).
    func serve(_ poller: Poller, now: Timestamp, into news: inout [ActNews]) {
        for child in service(now: now) { news.append(.childEnded(pid: child.pid, status: child.status)) }
    }

    func close() { stopAll() }

    /// Reads what the commands wrote to standard error, logs whole lines;
    /// reaps the ones that ended; stops the ones past their deadline.
    /// Returns the other children reaped (act is the subreaper of what its
    /// commands leave behind, and the parent of `pipe` programs), with
    /// their wait statuses.
    @discardableResult
    func service(now: Timestamp) -> [(pid: Int32, status: Int32)] {
        for i in running.indices where running[i].stderr >= 0 { drain(i) }
        var others: [(pid: Int32, status: Int32)] = []
        while true {
            var status: Int32 = 0
            let pid = waitpid(-1, &status, WNOHANG)
            guard pid > 0 else { break }
            guard let i = running.firstIndex(where: { $0.pid == pid }) else {
                others.append((pid, status))
                continue
            }
            if running[i].stderr >= 0 { drain(i) }
            let r = running.remove(at: i)
            if r.stderr >= 0 { Glibc.close(r.stderr) }
            var errors = r.errors
            if errors.buffered > 0 { log("\(r.label): \(String(decoding: errors.takeRest(), as: UTF8.self))") }
            let code = status & 0x7f == 0 ? (status >> 8) & 0xff : -1
            if status & 0x7f != 0 {
                log("\(r.label): ended by signal \(status & 0x7f)\(r.terminated ? " after its timeout" : "")")
            } else if code != 0 {
                log("\(r.label): exited with status \(code)")
            }
        }
        for i in running.indices where now >= running[i].deadline {
            if running[i].terminated {
                Self.stop(running[i], SIGKILL)
                running[i].deadline = .never
            } else {
                log("\(running[i].label): still running after its timeout: stopping it and what it started (SIGTERM)")
                Self.stop(running[i], SIGTERM)
                running[i].terminated = true
                running[i].deadline = now + .milliseconds(1000)
            }
        }
        return others
    }

    static func stop(_ r: Running, _ signo: Int32) { stop(pid: r.pid, mark: r.mark, signo) }

    /// Sends `signo` to the process group of `pid` (0: none running now)
    /// and to every process that is its descendant or carries `mark`.
    static func stop(pid: pid_t, mark: String, _ signo: Int32) {
        if pid > 0 { kill(-pid, signo) }
        for p in processes(of: pid, mark: mark) { kill(p, signo) }
    }

    /// The processes (of this user: others' environments cannot be read)
    /// descended from `root`, or carrying `mark` in `GESTURED_RUN`.
    static func processes(of root: pid_t, mark: String) -> [pid_t] {
        let mark = Array("GESTURED_RUN=\(mark)".utf8)
        var parents: [pid_t: pid_t] = [:]
        var marked: Set<pid_t> = []
        for entry in (try? directoryEntries("/proc")) ?? [] {
            guard let pid = pid_t(entry.name), pid != getpid() else { continue }
            // "PID (NAME) STATE PPID ...": the name may hold spaces and parentheses.
            if let stat = try? readUntilEnd("/proc/\(pid)/stat", limit: 4096),
                let close = stat.lastIndex(of: UInt8(ascii: ")")),
                let field = stat[(close + 1)...].split(separator: 32).dropFirst().first,
                let ppid = pid_t(String(decoding: field, as: UTF8.self))
            {
                parents[pid] = ppid
            }
            if let environ = try? readUntilEnd("/proc/\(pid)/environ", limit: 1 << 20),
                environ.split(separator: 0).contains(where: { $0.elementsEqual(mark) })
            {
                marked.insert(pid)
            }
        }
        var found = marked
        for pid in parents.keys where !found.contains(pid) {
            var ancestor = parents[pid]
            var hops = 0
            while let a = ancestor, a > 1, hops < 64 {
                if (root > 0 && a == root) || marked.contains(a) {
                    found.insert(pid)
                    break
                }
                ancestor = parents[a]
                hops += 1
            }
        }
        found.remove(root)
        return Array(found)
    }

    private func drain(_ i: Int) {
        while true {
            switch running[i].errors.fill(from: running[i].stderr, budget: Self.lineLength, scratch: &scratch) {
            case .read(0):
                return
            case .read:
                while let line = running[i].errors.nextText() { log("\(running[i].label): \(line)") }
                // A command that writes without newlines is logged in pieces.
                if running[i].errors.buffered > Self.lineLength {
                    log("\(running[i].label): \(String(decoding: running[i].errors.takeRest(), as: UTF8.self))")
                }
            case .endOfFile, .failed:
                Glibc.close(running[i].stderr)
                running[i].stderr = -1
                return
            }
        }
    }

    /// Stops every command still running, and what each started (SIGTERM).
    func stopAll() {
        for r in running { Self.stop(r, SIGTERM) }
    }
}

/// Starts `argv` (found on `PATH`) in a process group of its own, with
/// act's environment less act's own `GESTURED_` variables (but
/// `GESTURED_SOCKET`) plus `environment`; its standard input from `stdin`
/// (else /dev/null), its standard error to `stderr` (else act's); the
/// signals act blocks unblocked and their handlers at their defaults.
func spawnProcess(_ argv: [String], environment: [String], stdin: Int32?, stderr: Int32?) -> Result<pid_t, Errno> {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let stdin {
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
    } else {
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    }
    if let stderr { posix_spawn_file_actions_adddup2(&actions, stderr, 2) }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // Allocated, not `sigset_t()`: which C module that initializer belongs
    // to depends on the order the build loads them.
    let sets = UnsafeMutablePointer<sigset_t>.allocate(capacity: 2)
    defer { sets.deallocate() }
    sigemptyset(sets)
    sigfillset(sets + 1)
    posix_spawnattr_setsigmask(&attributes, sets)
    posix_spawnattr_setsigdefault(&attributes, sets + 1)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    var env: [String] = []
    var i = 0
    while let p = environ[i] {
        let entry = String(cString: p)
        if !entry.hasPrefix("GESTURED_") || entry.hasPrefix("GESTURED_SOCKET=") { env.append(entry) }
        i += 1
    }
    env += environment
    var pid: pid_t = 0
    let r = withCStrings(argv) { cArgs in
        withCStrings(env) { cEnv in posix_spawnp(&pid, argv[0], &actions, &attributes, cArgs, cEnv) }
    }
    return r == 0 ? .success(pid) : .failure(Errno(rawValue: r))
}

/// Calls `body` with `strings` as a NULL-terminated array of C strings.
func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for p in pointers { free(p) } }
    return body(pointers)
}
