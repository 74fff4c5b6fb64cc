import BusSupport
import CSystemd
import GestureCore
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The focus on GNOME Shell under Wayland, from the package's Shell
/// extension (`gestured-context@gestured` in
/// `/usr/share/gnome-shell/extensions`, made from `gnome-shell/` by
/// scripts/gnome-extension.sh): the extension exports read-only
/// properties on the Shell's own session-bus connection
/// (`/org/gestured/Context`, `org.gestured.Context1`: the focused window's
/// app, title and fullscreen state, and whether the Shell's on-screen
/// keyboard is shown) and says each change with `PropertiesChanged`. It
/// has no method: it can only report.
///
/// act takes the properties and their changes only from the unique name
/// that owns `org.gnome.Shell` (`BusConnection.fromService`): another
/// client can neither answer for the Shell nor signal for it. While the
/// extension is not enabled the Shell answers that it has no such object;
/// act says once how to enable it, and asks again when the extension says
/// it came.
final class GNOMEShellFocus: BusConnection, FocusSource {
    let name = "GNOME Shell (the gestured-context@gestured extension)"

    static let service = "org.gnome.Shell"
    static let path = "/org/gestured/Context"
    static let interface = "org.gestured.Context1"
    static let uuid = "gestured-context@gestured"
    static let enableHint =
        "the GNOME Shell extension \(uuid) is not enabled, so the focused app is not known: run `gnome-extensions enable \(uuid)` (on Wayland, log out and in first if it was installed while you were logged in)"

    private(set) var focus: FocusedWindow?
    private(set) var known = false
    private var matchSlot: OpaquePointer?
    private var question = BusQuestion()
    private var changed = false
    private var said: [String] = []
    /// The hint to enable the extension was given for this Shell.
    private var hinted = false

    init() {
        super.init(service: Self.service, on: .session)
        guard bus != nil else { return }
        match(Self.path, "org.freedesktop.DBus.Properties", "PropertiesChanged", Self.onChanged, slot: &matchSlot)
        follow()
    }

    deinit { close() }

    var deadline: Timestamp { busDeadline }
    var events: Int32 { pollEvents }

    func beforeWait(now: Timestamp, log: (String) -> Void) -> Bool { takeNews(log) }

    func read(now: Timestamp, log: (String) -> Void) -> Bool {
        process(budget: 64)
        return takeNews(log)
    }

    private func takeNews(_ log: (String) -> Void) -> Bool {
        for line in said { log(line) }
        said.removeAll()
        defer { changed = false }
        return changed
    }

    override func serviceCame() {
        hinted = false
        ask()
    }

    override func serviceLeft(_ how: String) {
        question.drop()
        if known { said.append("GNOME Shell (\(Self.service)) \(how): the focused app is not known until it is back") }
        set(known: false, focus: nil)
    }

    override func failed(_ why: String) {
        said.append("the focus through GNOME Shell is not known: \(why)")
        set(known: false, focus: nil)
    }

    private func set(known: Bool, focus: FocusedWindow?) {
        if known && !self.known { said.append("following the focused window through \(name)") }
        if known != self.known || focus != self.focus { changed = true }
        self.known = known
        self.focus = focus
    }

    private func ask() {
        if question.underWay {
            question.again = true
            return
        }
        let m = call(Self.path, "org.freedesktop.DBus.Properties", "GetAll", [Self.interface])
        BusMessage.send(bus, m, Self.onAnswer, Unmanaged.passUnretained(self).toOpaque(), slot: &question.slot)
    }

    private static func source(_ userdata: UnsafeMutableRawPointer?) -> GNOMEShellFocus {
        Unmanaged<GNOMEShellFocus>.fromOpaque(userdata!).takeUnretainedValue()
    }

    private static let onChanged: sd_bus_message_handler_t = { m, userdata, _ in
        let me = source(userdata)
        guard let m, me.fromService(m) else { return 0 }
        me.ask()
        return 0
    }

    private static let onAnswer: sd_bus_message_handler_t = { m, userdata, _ in
        let me = source(userdata)
        let again = me.question.answered()
        defer { if again { me.ask() } }
        guard let m, me.fromService(m) else { return 0 }
        if let error = BusMessage.error(of: m) {
            if !me.hinted {
                me.hinted = true
                me.said.append(
                    BusMessage.isError(m, "org.freedesktop.DBus.Error.UnknownObject")
                        || BusMessage.isError(m, "org.freedesktop.DBus.Error.UnknownMethod")
                        || BusMessage.isError(m, "org.freedesktop.DBus.Error.UnknownInterface")
                        ? enableHint : "GNOME Shell did not say the focus (\(error)): the focused app is not known")
            }
            me.set(known: false, focus: nil)
            return 0
        }
        guard let p = Properties(m) else {
            me.said.append("GNOME Shell's extension answered what act does not read: the focused app is not known")
            me.set(known: false, focus: nil)
            return 0
        }
        if !p.known && me.known {
            me.said.append(
                "the GNOME Shell extension \(uuid) stopped (disabled): the focused app is not known until it is enabled again")
        }
        me.set(
            known: p.known,
            focus: p.known && !p.app.isEmpty ? FocusedWindow(app: p.app, title: p.title, fullscreen: p.fullscreen) : nil)
        return 0
    }

    /// The extension's properties (`a{sv}`); others are skipped.
    struct Properties {
        var known = false
        var app = ""
        var title = ""
        var fullscreen = false

        init?(_ m: OpaquePointer) {
            guard sd_bus_message_enter_container(m, CChar(UInt8(ascii: "a")), "{sv}") > 0 else { return nil }
            while sd_bus_message_enter_container(m, CChar(UInt8(ascii: "e")), "sv") > 0 {
                guard let key = BusMessage.readString(m, UInt8(ascii: "s")) else { return nil }
                switch key {
                case "Known", "Fullscreen":
                    guard BusMessage.enter(m, UInt8(ascii: "v"), "b") else { return nil }
                    var b: Int32 = 0
                    guard sd_bus_message_read_basic(m, CChar(UInt8(ascii: "b")), &b) > 0 else { return nil }
                    if key == "Known" { known = b != 0 } else { fullscreen = b != 0 }
                    _ = sd_bus_message_exit_container(m)
                case "App", "Title":
                    guard BusMessage.enter(m, UInt8(ascii: "v"), "s"), let s = BusMessage.readString(m, UInt8(ascii: "s"))
                    else { return nil }
                    if key == "App" { app = s } else { title = s }
                    _ = sd_bus_message_exit_container(m)
                default:
                    guard sd_bus_message_skip(m, "v") >= 0 else { return nil }
                }
                guard sd_bus_message_exit_container(m) >= 0 else { return nil }
            }
            _ = sd_bus_message_exit_container(m)
        }
    }

    override func close() {
        question.drop()
        sd_bus_slot_unref(matchSlot)
        matchSlot = nil
        super.close()
    }
}
