import BusSupport
import CSystemd
import GestureCore
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Whether an on-screen keyboard is shown, for `when.keyboard`: followed
/// on the session bus, from whichever keyboard is there:
///
/// - squeekboard (Phosh): `sm.puri.OSK0` at `/sm/puri/OSK0`, its `Visible`;
/// - KWin's virtual keyboard (Plasma, Plasma Mobile): `org.kde.KWin` at
///   `/VirtualKeyboard`, `org.kde.kwin.VirtualKeyboard`'s `visible`;
/// - GNOME Shell's own keyboard, through the package's Shell extension
///   (`GNOMEShellFocus`): its `KeyboardVisible`.
///
/// A keyboard is shown while any of them says so; while none is on the
/// bus, whether one is shown is not known, and `when.keyboard = true`
/// bindings do not act. act connects only while a binding names
/// `keyboard`, or while `act --context` watches.
final class KeyboardFollower: ActSource {
    /// Where each keyboard says whether it is shown.
    struct Service: Sendable {
        let name: String
        let service: String
        let path: String
        let interface: String
        let property: String
        /// A signal of its own that says the property changed, besides `PropertiesChanged`.
        let signal: String?
    }

    static let services = [
        Service(
            name: "squeekboard", service: "sm.puri.OSK0", path: "/sm/puri/OSK0", interface: "sm.puri.OSK0",
            property: "Visible", signal: nil),
        Service(
            name: "KWin's virtual keyboard", service: "org.kde.KWin", path: "/VirtualKeyboard",
            interface: "org.kde.kwin.VirtualKeyboard", property: "visible", signal: "visibleChanged"),
        Service(
            name: "GNOME Shell's keyboard", service: GNOMEShellFocus.service, path: GNOMEShellFocus.path,
            interface: GNOMEShellFocus.interface, property: "KeyboardVisible", signal: nil),
    ]

    private let log: (String) -> Void
    private var watches: [KeyboardWatch] = []
    private var slots: [Poller.Slot] = []

    init(log: @escaping (String) -> Void) { self.log = log }

    /// Whether a binding needs it: connects, or lets go.
    var wanted = false {
        didSet {
            guard wanted != oldValue else { return }
            if wanted {
                watches = Self.services.map { KeyboardWatch($0) }
            } else {
                close()
            }
        }
    }

    var shown: Bool { watches.contains { $0.known && $0.shown } }
    var known: Bool { watches.contains { $0.known } }

    /// What `act --context` says of where it comes from.
    static let origin =
        "squeekboard (sm.puri.OSK0), KWin's virtual keyboard (org.kde.KWin /VirtualKeyboard) or GNOME Shell's (through the gestured-context@gestured extension), on the session bus"

    var deadline: Timestamp { watches.map(\.busDeadline).min() ?? .never }

    func prepare(_ poller: inout Poller, now: Timestamp, into news: inout [ActNews]) {
        slots = watches.map { poller.add($0.fd, $0.pollEvents) }
        if take() { news.append(.keyboardChanged) }
    }

    func serve(_ poller: Poller, now: Timestamp, into news: inout [ActNews]) {
        for (w, slot) in zip(watches, slots) where poller.readable(slot) || poller.hungUp(slot) || now >= w.busDeadline {
            w.process(budget: 64)
        }
        if take() { news.append(.keyboardChanged) }
    }

    /// Says what the watches saw; whether what is known changed.
    private func take() -> Bool {
        var changed = false
        for w in watches {
            for line in w.said { log(line) }
            w.said.removeAll()
            changed = changed || w.changed
            w.changed = false
        }
        return changed
    }

    func close() {
        for w in watches { w.close() }
        watches = []
        slots = []
    }
}

/// One keyboard's flag on the session bus: asked when the keyboard comes,
/// asked again at each change it signals; its own messages only.
final class KeyboardWatch: BusConnection {
    let keyboard: KeyboardFollower.Service
    private(set) var shown = false
    private(set) var known = false
    var changed = false
    var said: [String] = []
    private var question = BusQuestion()
    private var matchSlots: [OpaquePointer?] = [nil, nil]

    init(_ keyboard: KeyboardFollower.Service) {
        self.keyboard = keyboard
        super.init(service: keyboard.service, on: .session)
        guard bus != nil else { return }
        match(keyboard.path, "org.freedesktop.DBus.Properties", "PropertiesChanged", Self.onChanged, slot: &matchSlots[0])
        if let signal = keyboard.signal {
            match(keyboard.path, keyboard.interface, signal, Self.onChanged, slot: &matchSlots[1])
        }
        follow()
    }

    deinit { close() }

    override func serviceCame() { ask() }

    override func serviceLeft(_ how: String) {
        question.drop()
        if known { said.append("\(keyboard.name) \(how): whether it is shown is not known") }
        update(known: false, shown: false)
    }

    override func failed(_ why: String) {
        if known { said.append("whether \(keyboard.name) is shown is not known: \(why)") }
        update(known: false, shown: false)
    }

    private func update(known: Bool, shown: Bool) {
        if known != self.known || shown != self.shown { changed = true }
        if known && !self.known { said.append("following the on-screen keyboard through \(keyboard.name)") }
        self.known = known
        self.shown = shown
    }

    private func ask() {
        if question.underWay {
            question.again = true
            return
        }
        let m = call(keyboard.path, "org.freedesktop.DBus.Properties", "Get", [keyboard.interface, keyboard.property])
        BusMessage.send(bus, m, Self.onAnswer, Unmanaged.passUnretained(self).toOpaque(), slot: &question.slot)
    }

    private static func watch(_ userdata: UnsafeMutableRawPointer?) -> KeyboardWatch {
        Unmanaged<KeyboardWatch>.fromOpaque(userdata!).takeUnretainedValue()
    }

    private static let onChanged: sd_bus_message_handler_t = { m, userdata, _ in
        let me = watch(userdata)
        guard let m, me.fromService(m) else { return 0 }
        me.ask()
        return 0
    }

    /// The property is a boolean in a variant.
    private static let onAnswer: sd_bus_message_handler_t = { m, userdata, _ in
        let me = watch(userdata)
        let again = me.question.answered()
        defer { if again { me.ask() } }
        guard let m, me.fromService(m) else { return 0 }
        var value: Int32 = 0
        if let error = BusMessage.error(of: m) {
            // A KWin without a virtual keyboard answers so: it is not a keyboard here.
            if me.known { me.said.append("\(me.keyboard.name) did not say whether it is shown: \(error)") }
            me.update(known: false, shown: false)
        } else if BusMessage.enter(m, UInt8(ascii: "v"), "b"), sd_bus_message_read_basic(m, CChar(UInt8(ascii: "b")), &value) > 0
        {
            me.update(known: true, shown: value != 0)
        } else {
            me.said.append("\(me.keyboard.name)'s \(me.keyboard.property) is not a boolean: whether it is shown is not known")
            me.update(known: false, shown: false)
        }
        return 0
    }

    override func close() {
        question.drop()
        for i in matchSlots.indices {
            sd_bus_slot_unref(matchSlots[i])
            matchSlots[i] = nil
        }
        super.close()
    }
}
