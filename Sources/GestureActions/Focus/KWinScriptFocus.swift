import BusSupport
import CSystemd
import GestureCore
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The focus on KWin (Plasma 5 and 6), from a script act loads into KWin
/// over the session bus (`org.kde.KWin`'s `/Scripting`): the script follows
/// the active window (Plasma 5's `clientActivated`, Plasma 6's
/// `windowActivated`), its caption and its fullscreen state, and calls
/// act's own unique name with each change (`Focused`). The script can only
/// report: it runs in KWin, and what it calls is act.
///
/// Anyone on the session bus can call act, so act takes `Focused` only from
/// the unique name that owns `org.kde.KWin` (the bus sets a message's
/// sender; `BusConnection.fromService`) and answers everyone else
/// `AccessDenied`. When KWin leaves the bus the focus is not known; when it
/// comes back (a restart) the script is loaded again. act unloads it when
/// it stops; a script left by an act that was killed (SIGKILL) stays in
/// KWin until KWin restarts, calling a unique name that the bus never gives
/// anyone again, so it feeds nobody.
///
/// Why a script and not `org_kde_plasma_window_management`: KWin offers
/// that protocol only to a binary whose desktop file lists it, and the grant
/// also lets the client activate, move and close every window; the script
/// needs nothing installed and can do nothing but report (docs/security.md).
final class KWinScriptFocus: BusConnection, FocusSource {
    let name = "KWin's scripting (a script act loads into KWin)"

    static let service = "org.kde.KWin"
    /// The object and interface the script calls on act.
    static let path = "/org/gestured/act/Focus"
    static let interface = "org.gestured.act.Focus"
    /// The script's name in KWin: one per act, so that `act --context`
    /// runs beside the service.
    let plugin = "gestured-act-focus-\(getpid())"

    private(set) var focus: FocusedWindow?
    private(set) var known = false
    /// Where the script is written for KWin to read (the runtime directory, act's own).
    private let scriptPath: String
    private var objectSlot: OpaquePointer?
    private var question = BusQuestion()
    /// What is known changed since the last `read`.
    private var changed = false
    /// Lines to log at the next turn (said from sd-bus callbacks).
    private var said: [String] = []
    /// Calls refused from others than KWin, counted; said once a minute at most.
    private var refused = 0
    private var refusedSaidAt = Timestamp.never

    init(runtimeDirectory: String) {
        scriptPath = runtimeDirectory + "/gestured-act-kwin-\(getpid()).js"
        super.init(service: Self.service, on: .session)
        guard let bus else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let r = sd_bus_add_object(bus, &objectSlot, Self.path, Self.onCall, me)
        guard r >= 0 else {
            failed("act cannot serve \(Self.path) on the session bus (\(Errno(rawValue: -r)))")
            return
        }
        follow()
    }

    deinit { close() }

    var deadline: Timestamp { busDeadline }
    var events: Int32 { pollEvents }

    func beforeWait(now: Timestamp, log: (String) -> Void) -> Bool { takeNews(now: now, log: log) }

    func read(now: Timestamp, log: (String) -> Void) -> Bool {
        process(budget: 64)
        return takeNews(now: now, log: log)
    }

    private func takeNews(now: Timestamp, log: (String) -> Void) -> Bool {
        for line in said { log(line) }
        said.removeAll()
        if refused > 0, refusedSaidAt == .never || now >= refusedSaidAt + .milliseconds(60_000) {
            log(
                "refused \(refused) focus call\(refused == 1 ? "" : "s") on the session bus from others than KWin (\(owner ?? "not on the bus"))"
            )
            refused = 0
            refusedSaidAt = now
        }
        defer { changed = false }
        return changed
    }

    // MARK: The script

    /// The script, calling `receiver` (act's unique name). It reports the
    /// active window's desktop file name (its app id on Wayland), else its
    /// resource class; its caption; whether it is fullscreen; and "" when
    /// no window is active.
    static func script(receiver: String) -> String {
        """
        // Loaded by gestured act: reports the active window to it, nothing else.
        var receiver = "\(receiver)";
        var followed = null;
        function tell() {
            var w = followed;
            if (!w) {
                callDBus(receiver, "\(path)", "\(interface)", "Focused", "", "", false, false);
                return;
            }
            var app = String(w.desktopFileName || "") || String(w.resourceClass || "");
            callDBus(receiver, "\(path)", "\(interface)", "Focused", app, String(w.caption || ""), !!w.fullScreen, true);
        }
        function follow(w) {
            if (followed) {
                followed.captionChanged.disconnect(tell);
                followed.fullScreenChanged.disconnect(tell);
            }
            followed = w || null;
            if (followed) {
                followed.captionChanged.connect(tell);
                followed.fullScreenChanged.connect(tell);
            }
            tell();
        }
        if (workspace.windowActivated !== undefined) {
            workspace.windowActivated.connect(follow);
            follow(workspace.activeWindow);
        } else {
            workspace.clientActivated.connect(follow);
            follow(workspace.activeClient);
        }
        """
    }

    /// KWin came (or came back): unload a script of the same name (a pid
    /// used again in KWin's lifetime), then load act's and run it.
    override func serviceCame() {
        known = false
        question.drop()
        let m = call("/Scripting", "org.kde.kwin.Scripting", "unloadScript", [plugin])
        BusMessage.send(bus, m, Self.onUnloaded, Unmanaged.passUnretained(self).toOpaque(), slot: &question.slot)
    }

    override func serviceLeft(_ how: String) {
        question.drop()
        if known || focus != nil { changed = true }
        known = false
        focus = nil
        said.append("KWin (\(Self.service)) \(how): the focused app is not known until it is back")
    }

    override func failed(_ why: String) {
        if known { changed = true }
        known = false
        focus = nil
        said.append("the focus through KWin is not known: \(why)")
    }

    private func load() {
        guard let bus, let unique = uniqueName else { return }
        do {
            try writeTextFile(scriptPath, Self.script(receiver: unique))
        } catch {
            said.append("cannot write KWin's script to \(scriptPath): \(error): the focused app is not known")
            return
        }
        let m = call("/Scripting", "org.kde.kwin.Scripting", "loadScript", [scriptPath, plugin])
        BusMessage.send(bus, m, Self.onLoaded, Unmanaged.passUnretained(self).toOpaque(), slot: &question.slot)
    }

    /// Plasma 5 names a loaded script `/<id>`, Plasma 6 `/Scripting/Script<id>`.
    private func run(id: Int32, plasma6: Bool) {
        let path = plasma6 ? "/Scripting/Script\(id)" : "/\(id)"
        let m = call(path, "org.kde.kwin.Script", "run")
        BusMessage.send(bus, m, Self.onRun, Unmanaged.passUnretained(self).toOpaque(), slot: &question.slot)
        scriptID = id
        runAsPlasma6 = plasma6
    }

    private var scriptID: Int32 = -1
    /// The `run` under way went to Plasma 6's path.
    private var runAsPlasma6 = false

    private var uniqueName: String? {
        guard let bus else { return nil }
        var p: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(bus, &p) >= 0, let p else { return nil }
        return String(cString: p)
    }

    private static func source(_ userdata: UnsafeMutableRawPointer?) -> KWinScriptFocus {
        Unmanaged<KWinScriptFocus>.fromOpaque(userdata!).takeUnretainedValue()
    }

    private static let onUnloaded: sd_bus_message_handler_t = { m, userdata, _ in
        let me = source(userdata)
        _ = me.question.answered()
        guard let m, me.fromService(m) else { return 0 }
        if let error = BusMessage.error(of: m) {
            me.said.append("KWin has no scripting on the session bus (\(error)): the focused app is not known")
            return 0
        }
        me.load()
        return 0
    }

    private static let onLoaded: sd_bus_message_handler_t = { m, userdata, _ in
        let me = source(userdata)
        _ = me.question.answered()
        guard let m, me.fromService(m) else { return 0 }
        var id: Int32 = -1
        if let error = BusMessage.error(of: m) {
            me.said.append("KWin did not load act's script (\(error)): the focused app is not known")
        } else if sd_bus_message_read_basic(m, CChar(UInt8(ascii: "i")), &id) > 0, id >= 0 {
            me.run(id: id, plasma6: false)
        } else {
            me.said.append("KWin did not load act's script (it answered \(id)): the focused app is not known")
        }
        return 0
    }

    /// Plasma 5's path unknown: Plasma 6's next; else the script runs, or says why not.
    private static let onRun: sd_bus_message_handler_t = { m, userdata, _ in
        let me = source(userdata)
        _ = me.question.answered()
        guard let m, me.fromService(m) else { return 0 }
        if !me.runAsPlasma6
            && (BusMessage.isError(m, "org.freedesktop.DBus.Error.UnknownObject")
                || BusMessage.isError(m, "org.freedesktop.DBus.Error.UnknownMethod"))
        {
            me.run(id: me.scriptID, plasma6: true)
            return 0
        }
        if let error = BusMessage.error(of: m) {
            me.said.append("KWin did not run act's script (\(error)): the focused app is not known")
        }
        me.removeScriptFile()
        return 0
    }

    /// KWin reads the file when the script runs; after that it is not needed.
    private func removeScriptFile() { unlink(scriptPath) }

    /// Every message to act's object: `Focused(app, title, fullscreen, any)` from KWin alone.
    private static let onCall: sd_bus_message_handler_t = { m, userdata, _ in
        let me = source(userdata)
        guard let m, sd_bus_message_is_method_call(m, KWinScriptFocus.interface, "Focused") != 0 else { return 0 }
        guard me.fromService(m) else {
            me.refused += 1
            BusMessage.replyError(m, "org.freedesktop.DBus.Error.AccessDenied", "only KWin may call this")
            return 1
        }
        var fullscreen: Int32 = 0
        var any: Int32 = 0
        guard let app = BusMessage.readString(m, UInt8(ascii: "s")),
            let title = BusMessage.readString(m, UInt8(ascii: "s")),
            sd_bus_message_read_basic(m, CChar(UInt8(ascii: "b")), &fullscreen) > 0,
            sd_bus_message_read_basic(m, CChar(UInt8(ascii: "b")), &any) > 0
        else {
            BusMessage.replyError(m, "org.freedesktop.DBus.Error.InvalidArgs", "Focused takes (s, s, b, b)")
            return 1
        }
        let new = any != 0 && !app.isEmpty ? FocusedWindow(app: app, title: title, fullscreen: fullscreen != 0) : nil
        if !me.known || new != me.focus {
            if !me.known { me.said.append("following the focused window through \(me.name)") }
            me.known = true
            me.focus = new
            me.changed = true
        }
        BusMessage.replyEmpty(m)
        return 1
    }

    /// Unloads the script (sent as act closes its connection, not waited for).
    override func close() {
        if bus != nil, owner != nil, let m = call("/Scripting", "org.kde.kwin.Scripting", "unloadScript", [plugin]) {
            _ = sd_bus_message_set_expect_reply(m, 0)
            _ = sd_bus_send(bus, m, nil)
            sd_bus_message_unref(m)
        }
        removeScriptFile()
        question.drop()
        sd_bus_slot_unref(objectSlot)
        objectSlot = nil
        super.close()
    }
}
