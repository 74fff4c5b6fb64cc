import GestureCore
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The programs of `pipe` bindings: each started once, at its first line,
/// and fed on its standard input one JSON line per event of its bindings,
/// the event as the daemon sent it, as the events come (no throttle).
///
/// act never waits for one. Its standard input is non-blocking, and what
/// it has not taken waits in act, where a newer `changed` line of a
/// gesture takes the place of its older one still waiting: a slow reader
/// loses intermediate values, never a `began`, a `recognized` or an end. A
/// program that lets more than `backlogLimit` bytes of those wait, or
/// closes its standard input, is stopped. A program that ends is started
/// again `restartDelay` later (with what came meanwhile), at most
/// `restartLimit` times a minute; after that, not until the actions files
/// are read again. Its standard output and error are act's.
///
/// A program stopped (no longer bound, or act stops) is stopped whole, as
/// a command at its timeout is (`Runner.stop`): its process group, its
/// descendants, and every process that carries its mark, left by an
/// earlier start of it too.
///
/// A source of act's loop: it waits to write to the programs whose lines
/// wait, and its deadline is the next restart or kill.
final class Pipes: ActSource {
    struct Line {
        var bytes: [UInt8]
        var gesture: Int
        var changed: Bool
    }

    struct Program {
        let argv: [String]
        /// The first binding that names it ("FILE:LINE"), for the log.
        var label: String
        /// `GESTURED_RUN` of every start of it and what they start.
        var mark: String
        var pid: pid_t = 0
        /// The write end of its standard input (-1: none).
        var input: Int32 = -1
        /// Lines not written yet, from `head` on; `written` bytes of the first are.
        var waiting: [Line] = []
        var head = 0
        var written = 0
        /// Bytes waiting that may not be dropped.
        var keptBytes = 0
        /// When it was started, within the last minute.
        var starts: [Timestamp] = []
        var restartAt = Timestamp.never
        /// When a program asked to stop is killed.
        var killAt = Timestamp.never
        /// Why act stopped it, said when it has ended.
        var stopping: String?
        var givenUp = false
        var dropped = 0
        var saidDroppedAt = Timestamp.zero

        var running: Bool { pid != 0 }
        var pending: Int { waiting.count - head }

        /// Queues `line`; a `changed` line takes the place of its gesture's
        /// newest one still waiting and not begun. True when it did.
        mutating func enqueue(_ line: Line) -> Bool {
            if line.changed, let k = waiting[head...].lastIndex(where: { $0.gesture == line.gesture }),
                waiting[k].changed, k > head || written == 0
            {
                waiting[k] = line
                return true
            }
            if !line.changed { keptBytes += line.bytes.count }
            if head > 64 && head * 2 > waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            waiting.append(line)
            return false
        }

        /// Forgets every line waiting.
        mutating func clearWaiting() {
            waiting.removeAll(keepingCapacity: true)
            head = 0
            written = 0
            keptBytes = 0
        }
    }

    private(set) var programs: [Program] = []
    private let log: (String) -> Void
    private var serial = 0

    /// The most bytes of `began`, `recognized` and end lines a program may leave unread.
    static let backlogLimit = 1 << 20
    /// The most starts of one program in a minute.
    static let restartLimit = 5
    static let restartDelay = Timestamp.Duration.milliseconds(250)
    /// How long a program asked to stop (SIGTERM) has before SIGKILL.
    static let stopGrace = Timestamp.Duration.milliseconds(1000)

    init(log: @escaping (String) -> Void) { self.log = log }

    /// The programs the bindings name now: those still named keep running
    /// (and may be started again, the count of restarts forgotten), the
    /// others are stopped.
    func follow(_ bindings: [Binding]) {
        let named = bindings.compactMap(\.pipe)
        for i in programs.indices.reversed() where !named.contains(programs[i].argv) {
            stop(i, why: nil, now: .zero)
            programs.remove(at: i)
        }
        for b in bindings {
            guard let argv = b.pipe, !programs.contains(where: { $0.argv == argv }) else { continue }
            serial += 1
            programs.append(Program(argv: argv, label: b.origin, mark: "\(getpid()).pipe\(serial)"))
        }
        for i in programs.indices {
            programs[i].givenUp = false
            programs[i].starts.removeAll()
        }
    }

    /// Hands `line`, an event of gesture `gesture`, to the program `argv`
    /// (started if it is not running), and writes what it can now.
    func send(_ line: [UInt8], gesture: Int, phase: GesturePhase, to argv: [String], now: Timestamp) {
        guard let i = programs.firstIndex(where: { $0.argv == argv }), !programs[i].givenUp else { return }
        if !programs[i].running && programs[i].restartAt == .never && programs[i].stopping == nil { start(i, now: now) }
        guard !programs[i].givenUp else { return }
        if programs[i].enqueue(Line(bytes: line + [10], gesture: gesture, changed: phase == .changed)) {
            programs[i].dropped += 1
            if now - programs[i].saidDroppedAt >= .milliseconds(10_000) {
                let p = programs[i]
                log("\(p.label) pipe (\(p.argv[0])): reads slower than the events come: \(p.dropped) changed line(s) dropped")
                programs[i].saidDroppedAt = now
                programs[i].dropped = 0
            }
        }
        if programs[i].keptBytes > Self.backlogLimit {
            let kept = programs[i].keptBytes
            stop(i, why: "it left \(kept) bytes of lines unread (it must read its standard input)", now: now)
            programs[i].clearWaiting()
            return
        }
        flush(i, now: now)
    }

    /// Writes what waits until the program's pipe is full.
    private func flush(_ i: Int, now: Timestamp) {
        while programs[i].input >= 0 && programs[i].pending > 0 {
            let p = programs[i]
            let line = p.waiting[p.head]
            let n: Int
            do {
                n = try line.bytes[p.written...].withUnsafeBytes { try FileDescriptor(rawValue: p.input).write($0) }
            } catch Errno.resourceTemporarilyUnavailable {
                return
            } catch {
                stop(i, why: "it closed its standard input", now: now)
                return
            }
            programs[i].written += n
            if programs[i].written == line.bytes.count {
                programs[i].written = 0
                programs[i].head += 1
                if !line.changed { programs[i].keptBytes -= line.bytes.count }
            }
        }
        if programs[i].pending == 0 { programs[i].clearWaiting() }
    }

    private func start(_ i: Int, now: Timestamp) {
        programs[i].restartAt = .never
        programs[i].starts = programs[i].starts.filter { now - $0 < .milliseconds(60_000) }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            log("\(programs[i].label) pipe (\(programs[i].argv[0])): not started: pipe: \(Errno.last)")
            return
        }
        // One thread: nothing can start another program between pipe and these.
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        let spawned = spawnProcess(
            programs[i].argv,
            environment: ["GESTURED_BINDING=\(programs[i].label)", "GESTURED_RUN=\(programs[i].mark)"],
            stdin: fds[0], stderr: nil)
        Glibc.close(fds[0])
        switch spawned {
        case .success(let pid):
            programs[i].pid = pid
            programs[i].input = fds[1]
            programs[i].starts.append(now)
        case .failure(let e):
            Glibc.close(fds[1])
            programs[i].givenUp = true
            log(
                "\(programs[i].label) pipe: cannot run \(programs[i].argv[0]): \(e); not tried again until the actions files are read again"
            )
        }
    }

    /// Asks a program to stop: its input closed, SIGTERM to it and all it
    /// started (`Runner.stop`), SIGKILL `stopGrace` later if it is still there.
    private func stop(_ i: Int, why: String?, now: Timestamp) {
        if programs[i].input >= 0 { Glibc.close(programs[i].input) }
        programs[i].input = -1
        Runner.stop(pid: programs[i].pid, mark: programs[i].mark, SIGTERM)
        guard programs[i].running else { return }
        programs[i].stopping = why ?? "act no longer needs it"
        programs[i].killAt = now + Self.stopGrace
    }

    /// A child act reaped: if it was a program's, it is started again
    /// after `restartDelay`, unless it ended too often.
    func ended(_ pid: Int32, status: Int32, now: Timestamp) {
        guard let i = programs.firstIndex(where: { $0.pid == pid }) else { return }
        var p = programs[i]
        if p.input >= 0 { Glibc.close(p.input) }
        p.input = -1
        p.pid = 0
        p.killAt = .never
        // What it had not taken went with it.
        p.clearWaiting()
        let how = status & 0x7f == 0 ? "exited with status \((status >> 8) & 0xff)" : "ended by signal \(status & 0x7f)"
        let why = p.stopping.map { "stopped: \($0)" } ?? how
        p.stopping = nil
        p.starts = p.starts.filter { now - $0 < .milliseconds(60_000) }
        if p.starts.count >= Self.restartLimit {
            p.givenUp = true
            log(
                "\(p.label) pipe (\(p.argv[0])): \(why); it started \(p.starts.count) times in a minute: not started again until the actions files are read again"
            )
        } else {
            p.restartAt = now + Self.restartDelay
            log("\(p.label) pipe (\(p.argv[0])): \(why); starting it again")
        }
        programs[i] = p
    }

    /// The next restart or kill.
    var deadline: Timestamp { programs.map { min($0.restartAt, $0.killAt) }.min() ?? .never }

    /// Waits to write to the programs whose lines wait.
    func prepare(_ poller: inout Poller, now: Timestamp, into news: inout [ActNews]) {
        for p in programs where p.input >= 0 && p.pending > 0 { _ = poller.add(p.input, Int32(POLLOUT)) }
    }

    /// Writes what waits, starts what is due, kills what did not stop.
    func serve(_ poller: Poller, now: Timestamp, into news: inout [ActNews]) {
        for i in programs.indices {
            if programs[i].pending > 0 { flush(i, now: now) }
            if now >= programs[i].restartAt && !programs[i].givenUp { start(i, now: now) }
            if now >= programs[i].killAt && programs[i].running {
                Runner.stop(pid: programs[i].pid, mark: programs[i].mark, SIGKILL)
                programs[i].killAt = .never
            }
        }
    }

    /// Stops every program and all they started (act is stopping).
    func close() {
        for i in programs.indices { stop(i, why: nil, now: .zero) }
    }
}
