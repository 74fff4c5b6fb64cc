import CLinux
package import GestureCore
package import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

// What every client of the package (`monitor`, `devices`, `act`) says to
// the daemon first, and how it reaches it: one subscribe line, one
// connect, one explanation when that fails.

/// A `subscribe` request: the filters a client wants, each left out when nil.
package struct SubscribeRequest: Equatable, Sendable {
    package var gestures: [String]?
    package var fingers: [Int]?
    package var devices: [String]?
    package var phases: [String]?
    package var region: [Double]?
    package var directions: [String]?
    package var edges: [String]?
    /// The client will ask for keys to be typed.
    package var keys = false
    /// The client will ask for clicks (1.8).
    package var pointer = false
    /// What it claims on every claimed touchscreen, and on some only.
    package var claims = ClaimSet()
    package var deviceClaims: [DeviceClaim] = []
    /// Tracked gestures (protocol 1.6).
    package var tracks: [TrackRule] = []
    /// How long the client waits for still holds to last, ms (protocol 1.9).
    package var holdMarks: [Int] = []
    /// The shapes its strokes are matched against (protocol 1.11).
    package var shapes: [Shape] = []

    /// A shape as the protocol sends it: its examples as "x,y" text.
    package struct Shape: Equatable, Sendable {
        /// What a subscription may send (docs/protocol.md, `shapes`): the
        /// daemon refuses more, and act and `gestured stroke` say so first.
        package static let limits = (shapes: 16, examples: 8, points: 64, nameBytes: 64)

        package var name: String
        package var examples: [String]
        package var rotates = false
        package var tolerance: Double?

        package init(name: String, examples: [String], rotates: Bool = false, tolerance: Double? = nil) {
            self.name = name
            self.examples = examples
            self.rotates = rotates
            self.tolerance = tolerance
        }

        var json: String {
            var s = #"{"name":"# + jsonString(name) + #","examples":["# + examples.map(jsonString).joined(separator: ",") + "]"
            if rotates { s += #","rotates":true"# }
            if let tolerance { s += #","tolerance":\#(tolerance)"# }
            return s + "}"
        }
    }

    package init() {}

    /// The request as one line (without its newline): names sorted and once
    /// each, numbers as numbers.
    package var line: String {
        func names(_ items: [String]) -> String { "[" + Set(items).sorted().map(jsonString).joined(separator: ",") + "]" }
        func numbers(_ items: [Int]) -> String { "[" + Set(items).sorted().map(String.init).joined(separator: ",") + "]" }
        var fields = [#""type":"subscribe""#]
        if let gestures { fields.append(#""gestures":"# + names(gestures)) }
        if let fingers { fields.append(#""fingers":"# + numbers(fingers)) }
        if let devices { fields.append(#""devices":["# + devices.map(jsonString).joined(separator: ",") + "]") }
        if let phases { fields.append(#""phases":"# + names(phases)) }
        if let region { fields.append(#""region":["# + region.map { "\($0)" }.joined(separator: ",") + "]") }
        if let directions { fields.append(#""directions":"# + names(directions)) }
        if let edges { fields.append(#""edges":"# + names(edges)) }
        if keys { fields.append(#""keys":true"#) }
        if pointer { fields.append(#""pointer":true"#) }
        // A claim's touchpad counts go in an entry of their own, with
        // `touchpad` (1.7), and those also claimed for their own sake in
        // the plain one too, so that the daemon, when it has no touchpad,
        // still claims them; its holds in one of their own (1.8).
        func claim(_ c: ClaimSet, devices: [String]?) -> [String] {
            let on = devices.map { #","devices":["# + $0.map(jsonString).joined(separator: ",") + "]" } ?? ""
            let plain = c.fingers.subtracting(c.padOnly)
            var entries: [String] = []
            if !plain.isEmpty || !c.edges.isEmpty {
                entries.append(
                    #"{"fingers":"# + numbers(Array(plain)) + #","edges":"# + names(c.edges.map(\.rawValue)) + on + "}")
            }
            if !c.touchpad.isEmpty {
                entries.append(#"{"fingers":"# + numbers(Array(c.touchpad)) + #","touchpad":true"# + on + "}")
            }
            if !c.holds.isEmpty {
                let holds = c.holds.sorted { $0.key < $1.key }.map { #"{"fingers":\#($0.key),"ms":\#($0.value)}"# }
                entries.append(#"{"hold":["# + holds.joined(separator: ",") + "]" + on + "}")
            }
            return entries
        }
        let parts =
            (claims.isEmpty ? [] : claim(claims, devices: nil))
            + deviceClaims.filter { !$0.set.isEmpty }.flatMap { claim($0.set, devices: $0.devices) }
        if !parts.isEmpty {
            fields.append(
                #""claim":"# + (parts.count == 1 && deviceClaims.isEmpty ? parts[0] : "[" + parts.joined(separator: ",") + "]"))
        }
        if !tracks.isEmpty {
            var entries: [String] = []
            for e in tracks {
                let t = e.track
                var entry = #"{"toward":"\#(t.toward.rawValue)","distance":\#(t.distance),"commit":\#(t.commit)"#
                if let fingers = e.fingers { entry += #","fingers":"# + numbers(fingers) }
                entries.append(entry + "}")
            }
            fields.append(#""track":["# + entries.joined(separator: ",") + "]")
        }
        if !holdMarks.isEmpty { fields.append(#""hold_ms":"# + numbers(holdMarks)) }
        if !parts.isEmpty && (claims.cancelDropped || deviceClaims.contains(where: \.set.cancelDropped)) {
            fields.append(#""cancel_dropped":true"#)
        }
        if !shapes.isEmpty { fields.append(#""shapes":["# + shapes.map(\.json).joined(separator: ",") + "]") }
        return "{" + fields.joined(separator: ",") + "}"
    }
}

/// Why a client could not connect to the daemon's socket, said for people:
/// no socket there, a socket left by a daemon that stopped, or one this
/// user may not open (with its owner, group and mode, and what to do).
package struct ConnectFailure: Error, CustomStringConvertible, Sendable {
    package var path: String
    package var error: Errno

    package var description: String {
        switch error {
        case .noSuchFileOrDirectory:
            return
                "no socket at \(path): gestured is not running there (`systemctl status gestured.socket`, or start `gestured serve`); --socket chooses another path"
        case .connectionRefused:
            return
                "\(path) is a socket nobody listens on, left by a gestured that stopped: start it again (it replaces the file), or remove the file"
        case .permissionDenied, .notPermitted:
            return "cannot open \(path): \(Self.whyNot(path))"
        case .resourceTemporarilyUnavailable:
            return
                "\(path) takes no more connections now (its backlog is full: the daemon is busy, or a client connects in a loop)"
        default:
            return "cannot connect to \(path): \(error)"
        }
    }

    /// The socket's (or its folder's) owner, group and mode, and who this
    /// user is. It never suggests joining root's group: a socket of group
    /// root is a daemon started by hand that gave it to no group of users.
    static func whyNot(_ path: String) -> String {
        var st = stat()
        let me = "you are uid \(getuid())\(groupNames().map { " (groups \($0))" } ?? "")"
        guard stat(path, &st) == 0 else {
            let folder = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
            return "its folder \(folder) is closed to you (\(ownership(folder))); \(me)"
        }
        let group = name(ofGroup: st.st_gid)
        guard st.st_gid != 0 else {
            return
                "it is \(ownership(path)) and \(me): the daemon gave its socket to no group of its users; install the package (which makes the group gesture for them, then sudo usermod -aG gesture $USER), or name one in socket-group in [daemon] of /etc/gestured/gestured.toml"
        }
        return
            "it is \(ownership(path)) and \(me): join its group (sudo usermod -aG \(group) $USER, then log in again), or have the daemon give it to a group of yours (socket-group in [daemon] of /etc/gestured/gestured.toml)"
    }

    /// "owner root, group gesture, mode 0660" of `path`.
    private static func ownership(_ path: String) -> String {
        var st = stat()
        guard stat(path, &st) == 0 else { return "\(Errno.last)" }
        let owner = getpwuid(st.st_uid).map { String(cString: $0.pointee.pw_name) } ?? "\(st.st_uid)"
        return "owner \(owner), group \(name(ofGroup: st.st_gid)), mode 0\(String(st.st_mode & 0o777, radix: 8))"
    }

    private static func name(ofGroup gid: gid_t) -> String {
        getgrgid(gid).map { String(cString: $0.pointee.gr_name) } ?? "\(gid)"
    }

    private static func groupNames() -> String? {
        var groups = [gid_t](repeating: 0, count: 256)
        let n = getgroups(Int32(groups.count), &groups)
        guard n > 0 else { return nil }
        return groups[0..<Int(n)].map { name(ofGroup: $0) }.joined(separator: ", ")
    }
}

/// Connects a stream socket to the daemon at `path`: the descriptor, or
/// why not. Blocking by default; `nonBlocking`, the socket is, and a
/// connect finding the daemon's backlog full fails at once
/// (`EAGAIN`: try again later) instead of waiting for room.
package func connectToDaemon(_ path: String, nonBlocking: Bool = false) -> Result<Int32, ConnectFailure> {
    guard let address = UnixAddress(path) else {
        return .failure(ConnectFailure(path: path, error: .fileNameTooLong))
    }
    let fd = clinux_unix_socket(Int32(SOCK_STREAM.rawValue), nonBlocking ? 1 : 0)
    guard fd >= 0 else { return .failure(ConnectFailure(path: path, error: Errno.last)) }
    guard address.connect(fd) == 0 else {
        let e = Errno.last
        close(fd)
        return .failure(ConnectFailure(path: path, error: e))
    }
    return .success(fd)
}
