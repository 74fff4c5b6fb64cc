import GestureCore
package import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Where the bindings are read from, and what they say together.
package enum ActionsFiles {
    /// `$XDG_CONFIG_HOME/gestured`, else `~/.config/gestured`.
    package static func defaultFolder() -> String {
        if let x = getenv("XDG_CONFIG_HOME").map({ String(cString: $0) }), !x.isEmpty { return x + "/gestured" }
        let home = getenv("HOME").map { String(cString: $0) } ?? ""
        return home + "/.config/gestured"
    }

    /// `actions.toml` of the default folder, then its `actions.d/*.toml` in name order.
    package static func defaultPaths() -> [String] {
        let base = defaultFolder()
        let main = fileExists(base + "/actions.toml") ? [base + "/actions.toml"] : []
        return main + listDirectory(base + "/actions.d", suffix: ".toml").map { base + "/actions.d/" + $0 }
    }

    /// What the actions files say together.
    package struct Loaded: Equatable {
        /// The files read, in order.
        package var files: [String] = []
        /// Every binding, in the files' order.
        package var bindings: [Binding] = []
        /// Why each file left out was (`problem`).
        package var skipped: [String] = []
        /// The last file's `[screen]` and `[context]` that has one.
        package var screen = ScreenSettings()
        package var context = ContextSettings()
        /// Every file's `[[shape]]`s, each name once.
        package var shapes: [ShapeDefinition] = []
        package init() {}
    }

    /// Reads `explicit` (or the default files) in order.
    package static func load(_ explicit: [String]) throws(ConfigurationError) -> Loaded {
        let candidates = explicit.isEmpty ? defaultPaths() : explicit
        var loaded = Loaded()
        for file in candidates {
            if let why = problem(file) {
                loaded.skipped.append("\(logSafe(file)): skipped: \(why)")
                continue
            }
            let bytes: [UInt8]
            do {
                bytes = try readFileBytes(file, limit: configurationFileLimit)
            } catch {
                throw ConfigurationError(file: file, line: 0, message: error.reason)
            }
            let read = try BindingsReader.readFile(bytes: bytes, file: file)
            loaded.bindings += read.bindings
            loaded.shapes += read.shapes
            if let s = read.screen { loaded.screen = s }
            if let c = read.context { loaded.context = c }
            loaded.files.append(file)
        }
        if !loaded.files.isEmpty { try checkShapes(loaded) }
        guard !loaded.files.isEmpty else {
            // A file the user named is theirs to fix; the default one may be
            // written, or another named. The error names the first file, so
            // its own reason is not prefixed with its path again.
            let advice =
                explicit.isEmpty
                ? "no bindings: write this file (README, \"Binding gestures\"), or pass --config FILE"
                : "no bindings: fix \(candidates.count == 1 ? "it" : "them"), or name another file"
            let first = candidates.first ?? defaultFolder() + "/actions.toml"
            var reasons = loaded.skipped
            if let why = problem(first), !reasons.isEmpty { reasons[0] = "skipped: \(why)" }
            throw ConfigurationError(
                file: first, line: 0, message: (reasons.isEmpty ? "" : reasons.joined(separator: "; ") + "; ") + advice)
        }
        return loaded
    }

    /// Each shape is named once, at most `ShapesReader.limits.shapes` of
    /// them, and each stroke binding's shape is one of them.
    static func checkShapes(_ loaded: Loaded) throws(ConfigurationError) {
        var errors: [ConfigurationError] = []
        func at(_ origin: String, _ message: String) -> ConfigurationError {
            let (file, line) = split(origin)
            return ConfigurationError(file: file, line: line, message: message)
        }
        var seen: [String: String] = [:]
        for d in loaded.shapes {
            if let first = seen[d.name] {
                errors.append(at(d.origin, "shape \"\(d.name)\" is defined at \(first) already: give one of them another name"))
            } else {
                seen[d.name] = d.origin
            }
        }
        if seen.count > ShapesReader.limits.shapes, let extra = loaded.shapes.dropFirst(ShapesReader.limits.shapes).first {
            errors.append(at(extra.origin, "at most \(ShapesReader.limits.shapes) shapes, as the daemon takes; remove some"))
        }
        for b in loaded.bindings {
            guard let shape = b.shape, seen[shape] == nil else { continue }
            let known = seen.keys.sorted()
            let hint = Suggestion.closest(to: shape, among: known).map { "; did you mean \"\($0)\"?" } ?? ""
            errors.append(
                at(b.origin, "shape \"\(shape)\" is no [[shape]]\(hint) (record it: gestured stroke record \(shape))"))
        }
        if let all = ConfigurationError(errors) { throw all.sortedByLine }
    }

    /// "FILE:LINE" as its file and line.
    private static func split(_ origin: String) -> (String, Int) {
        guard let colon = origin.lastIndex(of: ":"), let line = Int(origin[origin.index(after: colon)...]) else {
            return (origin, 0)
        }
        return (String(origin[..<colon]), line)
    }

    /// Why an actions file is not read: it runs commands as the user, so
    /// it must be a regular file that belongs to the user (or root) and
    /// that nobody else may write, in a folder nobody else may write (or
    /// with the sticky bit). nil when it is fine; a missing file is for
    /// the reader to report.
    static func problem(_ path: String, owner: uid_t = geteuid()) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        guard st.st_mode & S_IFMT == S_IFREG else {
            return st.st_mode & S_IFMT == S_IFDIR
                ? "it is a directory" : "it is not a regular file (a pipe, a device or a socket)"
        }
        guard st.st_uid == owner || st.st_uid == 0 else {
            return "it belongs to uid \(st.st_uid), not to you or root: someone else's commands would run as you"
        }
        guard st.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            return "others may write it (mode 0\(String(st.st_mode & 0o777, radix: 8))); chmod go-w it"
        }
        var folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if folder.isEmpty { folder = path.hasPrefix("/") ? "/" : "." }
        guard stat(folder, &st) == 0 else { return nil }
        if st.st_mode & (S_IWGRP | S_IWOTH) != 0 && st.st_mode & S_ISVTX == 0 {
            return "others may write its folder \(folder) (mode 0\(String(st.st_mode & 0o7777, radix: 8))) and could replace it"
        }
        return nil
    }
}

/// The actions files as a source of act's loop: inotify on their folders
/// (an editor's save is read once it is done, `settle` later), and the
/// files read again on SIGHUP. A reading that fails keeps the bindings
/// there were, and says why once per new mistake.
final class ActionsWatcher: ActSource {
    /// The files named on the command line (empty: the default ones).
    private let explicit: [String]
    private let log: (String) -> Void
    private var inotify: Int32
    private var slot = Poller.Slot.none
    private var reloadAt = Timestamp.never
    /// What the last reading that failed said (nil: the last one worked).
    private var lastError: String?
    /// What was read last.
    private(set) var loaded: ActionsFiles.Loaded

    /// How long after a change the files are read: editors write a file in several steps.
    static let settle = Timestamp.Duration.milliseconds(150)

    init(explicit: [String], loaded: ActionsFiles.Loaded, log: @escaping (String) -> Void) {
        self.explicit = explicit
        self.loaded = loaded
        self.log = log
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        watchFolders()
    }

    var deadline: Timestamp { reloadAt }

    func prepare(_ poller: inout Poller, now: Timestamp, into news: inout [ActNews]) {
        slot = poller.add(inotify, Int32(POLLIN))
    }

    func serve(_ poller: Poller, now: Timestamp, into news: inout [ActNews]) {
        if poller.readable(slot) {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while buffer.withUnsafeMutableBytes({ read(inotify, $0.baseAddress, $0.count) }) > 0 {}
            reloadAt = min(reloadAt, now + Self.settle)
        }
        if now >= reloadAt { reload(into: &news) }
    }

    /// Reads the files now; their bindings go out as news if they changed.
    func reload(into news: inout [ActNews]) {
        reloadAt = .never
        do {
            let new = try ActionsFiles.load(explicit)
            lastError = nil
            for message in new.skipped { log(message) }
            guard new.bindings != loaded.bindings || new.context != loaded.context || new.screen != loaded.screen else {
                return
            }
            loaded = new
            watchFolders()
            news.append(.bindings(new))
        } catch {
            // An editor's one save can touch the folder several times: the
            // same mistakes are said once.
            let said = "\(error)"
            guard said != lastError else { return }
            lastError = said
            log("\(said); keeping the previous bindings")
        }
    }

    private func watchFolders() {
        guard inotify >= 0 else { return }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE)
        var folders = Set(
            loaded.files.map { path -> String in
                guard let slash = path.lastIndex(of: "/") else { return "." }
                return slash == path.startIndex ? "/" : String(path[..<slash])
            })
        if explicit.isEmpty {
            let base = ActionsFiles.defaultFolder()
            folders.insert(base)
            folders.insert(base + "/actions.d")
        }
        for folder in folders { _ = inotify_add_watch(inotify, folder, mask) }
    }

    func close() {
        if inotify >= 0 { Glibc.close(inotify) }
        inotify = -1
    }
}
