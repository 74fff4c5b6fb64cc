import Foundation
public import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Something a test needs of the machine beyond the build: root, a tool, the
/// umockdev harness, a virtual machine. A test names what it needs with
/// `.requires(...)`. Where something is missing the test is reported as
/// skipped, with what is missing and how to get it; in CI (`CI=true`) it
/// runs anyway and fails, because CI must run every test (and
/// `scripts/test-run.sh` fails a CI run that skipped one).
public struct Requirement: Sendable {
    /// Whether this machine has it.
    public let met: Bool
    /// What is missing and what to do about it, for the skip's message.
    public let missing: String

    public init(met: Bool, missing: String) {
        self.met = met
        self.missing = missing
    }

    /// `CI=true`: every test must run.
    public static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// The tests run as root.
    public static let isRoot = geteuid() == 0

    /// A uid with no account: not the tests' user, not root, and not what a
    /// daemon started as root becomes (`gestured`, or `nobody`), for a
    /// client of someone else.
    public static let strangerUID: UInt32 = 4321

    /// `sudo -n` runs a command as root without asking for a password.
    public static let sudoWorks: Bool = {
        guard !isRoot, FileManager.default.isExecutableFile(atPath: "/usr/bin/sudo") else { return false }
        guard let r = try? Child.run(["/usr/bin/sudo", "-n", "/bin/true"], timeout: 10) else { return false }
        return r.status == 0
    }()

    /// Root for some commands: the tests run as root, or `sudo -n` works;
    /// such a test runs its privileged commands through `asRoot`.
    public static let root = Requirement(
        met: isRoot || sudoWorks,
        missing:
            "needs root: run the tests as root, or let `sudo -n` work (run `sudo -v` in this terminal first, or give yourself a NOPASSWD rule)"
    )

    /// The test process itself is root (it makes files owned by others, or
    /// reads what only root may read, all through), not only some commands.
    public static let runningAsRoot = Requirement(
        met: isRoot,
        missing:
            "runs only when the tests run as root (CI does): it makes files owned by other users and reads a root daemon's descriptors"
    )

    /// An executable at an absolute path, from a Debian package.
    public static func tool(_ path: String, package debian: String) -> Requirement {
        Requirement(
            met: FileManager.default.isExecutableFile(atPath: path),
            missing: "\(path) is missing: `make setup` installs it (Debian package \(debian))")
    }

    /// The umockdev harness, built by `make harness` (`make test` builds it).
    public static let umockdev = Requirement(
        met: UmockdevSession.unavailable == nil, missing: UmockdevSession.unavailable ?? "")

    /// A kernel to boot, virtme-ng (`vng`) and the uinput player, for the
    /// real-kernel harness.
    public static let virtualMachine: Requirement = {
        let fm = FileManager.default
        let kernels = (try? fm.contentsOfDirectory(atPath: "/boot"))?.filter { $0.hasPrefix("vmlinuz-") } ?? []
        var missing: [String] = []
        if BuildProducts.vng == nil { missing.append("vng (virtme-ng: `make setup` installs it under .build/tools)") }
        if kernels.isEmpty { missing.append("a kernel in /boot (Debian package linux-image-amd64)") }
        if !fm.isExecutableFile(atPath: BuildProducts.harnessDirectory + "/uinput-touch") {
            missing.append("the uinput player (`make harness`)")
        }
        return Requirement(
            met: missing.isEmpty, missing: "no virtual machine can be booted here: missing " + missing.joined(separator: ", "))
    }()

    /// `command` as root: unchanged when the tests run as root, else through
    /// `sudo -n` (which `.requires(.root)` checked works), saying so.
    /// Through sudo, the command is killed when sudo is: a test's SIGKILL
    /// reaches sudo, which cannot pass it on, so the command itself asks
    /// for SIGKILL when its parent, sudo, ends (setpriv --pdeathsig).
    public static func asRoot(_ command: [String]) -> [String] {
        if isRoot { return command }
        print("as root through sudo -n: \(command.joined(separator: " ").prefix(160))")
        return ["/usr/bin/sudo", "-n", "--"] + diesWithSudo(command)
    }

    /// `command` as `uid` (its own group, no others), through setpriv as root.
    public static func asUser(_ uid: UInt32, _ command: [String]) -> [String] {
        asRoot(["/usr/bin/setpriv", "--reuid", "\(uid)", "--regid", "\(uid)", "--clear-groups", "--"] + command)
    }

    /// `command` with SIGKILL asked for when its parent ends, placed after
    /// a leading `setpriv --reuid … --` (a change of user clears the
    /// request). Only for commands run through sudo: without it the parent
    /// is a thread of the test process, whose end is no reason to stop.
    static func diesWithSudo(_ command: [String]) -> [String] {
        let kill = ["/usr/bin/setpriv", "--pdeathsig", "KILL", "--"]
        if command.first == "/usr/bin/setpriv", command.contains("--reuid"), let end = command.firstIndex(of: "--") {
            return Array(command[...end]) + kill + command[(end + 1)...]
        }
        return kill + command
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where every requirement is met, or in CI (where a
    /// missing one fails the test instead of skipping it).
    public static func requires(_ requirements: Requirement...) -> Self {
        let missing = requirements.filter { !$0.met }.map(\.missing).joined(separator: "; ")
        return .enabled(if: missing.isEmpty || Requirement.inCI, Comment(rawValue: missing))
    }
}
