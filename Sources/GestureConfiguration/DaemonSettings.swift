import GestureCore
import TOML

/// The `[daemon]` section: where and to whom the daemon serves gestures.
///
/// ```toml
/// [daemon]
/// socket = "/run/gestured/gestured.sock"
/// socket-mode = "0660"
/// socket-group = "gesture"
/// allow-users = ["alice", 1000]
/// allow-groups = ["gesture"]
/// deliver = "active-session"
/// any-session-users = ["kiosk"]
/// seat = "seat0"
/// log-level = "info"
/// client-buffer-kib = 256
/// max-clients = 128
/// max-clients-per-user = 64
/// subscribe-timeout = 10
/// ```
public struct DaemonSettings: Sendable, Hashable {
    /// The listening socket's path; nil: `$RUNTIME_DIRECTORY`, `/run/gestured` as root, else `$XDG_RUNTIME_DIR`.
    public var socket: String?
    /// Permission bits of a socket the daemon binds itself (default 0660).
    public var socketMode: UInt32 = 0o660
    /// Group that owns a socket the daemon binds itself (nil: `gesture` where
    /// there is such a group and the daemon may give the socket to it, else
    /// the daemon's own; "": the daemon's own).
    public var socketGroup: String?
    /// Users (names or uids) allowed to subscribe. Empty with `allowGroups` empty: anyone who can open the socket.
    public var allowUsers: [String] = []
    /// Groups (names or gids) whose members may subscribe (primary or supplementary group).
    public var allowGroups: [String] = []
    /// Who receives gestures: `active-session` (the default), only clients
    /// of the user whose login session is active on the seat (logind), and
    /// of `anySessionUsers`, root and the daemon's user; `everyone`, every
    /// allowed client.
    public var deliver = "active-session"
    /// Users (names or uids) whose clients receive gestures whichever
    /// session is active: a kiosk's service, which has no login session.
    public var anySessionUsers: [String] = []
    /// The udev seat whose touchscreens are used (default `seat0`).
    public var seat = "seat0"
    /// Least important messages logged: error, warning, notice, info or debug (default info).
    public var logLevel = "info"
    /// Bytes queued for a client that does not read before it gets `overflow` and is closed (default 256 KiB).
    public var clientBuffer = 256 * 1024
    /// Most clients served at once; more are told `busy` and closed (default 128).
    public var maxClients = 128
    /// Most clients of one user (uid) at once, so that one user cannot hold
    /// every slot; nil: half of `maxClients` (64 by default).
    public var maxClientsPerUser: Int?

    /// Seconds a connection may go without subscribing (after connecting or
    /// unsubscribing) before it is closed with `timeout` (default 10).
    public var subscribeTimeout = 10.0

    /// `maxClientsPerUser`, or its default.
    public var clientsPerUser: Int { maxClientsPerUser ?? max(1, maxClients / 2) }

    public init() {}

    /// The values `deliver` accepts.
    public static let deliveries = ["active-session", "everyone"]

    /// The log levels `log-level` accepts, most severe first.
    public static let logLevels = ["error", "warning", "notice", "info", "debug"]

    /// The keys of the section, for messages.
    static let keys = [
        "socket", "socket-mode", "socket-group", "allow-users", "allow-groups", "deliver", "any-session-users", "seat",
        "log-level",
        "client-buffer-kib", "max-clients", "max-clients-per-user", "subscribe-timeout",
    ]

    /// The section as TOML (part of `check-config`'s output).
    var rendered: String {
        func list(_ l: [String]) -> String {
            "[" + l.map { UInt32($0) != nil ? $0 : TOMLText.quoted($0) }.joined(separator: ", ") + "]"
        }
        var s = "[daemon]\n"
        s +=
            "socket = "
            + (socket.map(TOMLText.quoted) ?? "\"\"  # default: $RUNTIME_DIRECTORY, /run/gestured as root, else $XDG_RUNTIME_DIR")
            + "\n"
        s += "socket-mode = \"0" + String(socketMode, radix: 8) + "\"\n"
        s +=
            socketGroup.map { "socket-group = \(TOMLText.quoted($0))\n" }
            ?? "# socket-group: unset, the group gesture where there is one, else the daemon's own\n"
        s += "allow-users = \(list(allowUsers))\n"
        s += "allow-groups = \(list(allowGroups))\n"
        s += "deliver = \"\(deliver)\"\n"
        s += "any-session-users = \(list(anySessionUsers))\n"
        s += "seat = \(TOMLText.quoted(seat))\n"
        s += "log-level = \"\(logLevel)\"\n"
        s += "client-buffer-kib = \(clientBuffer / 1024)\n"
        s += "max-clients = \(maxClients)\n"
        s += "max-clients-per-user = \(clientsPerUser)\n"
        s += "subscribe-timeout = \(NumberText.exact(subscribeTimeout))\n"
        return s
    }
}
