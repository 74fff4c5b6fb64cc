public import CSystemd
public import GestureCore
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Reading and writing sd-bus messages, for the daemon's watchers and
/// act's desktop sources.
public enum BusMessage {
    /// The bus driver's name: the sender of its signals (`NameOwnerChanged`)
    /// and of its replies, which no client can take.
    public static let driver = "org.freedesktop.DBus"

    /// A new method call of `member` on `destination`'s `path`, with string
    /// arguments; nil if sd-bus cannot make it.
    public static func call(
        _ bus: OpaquePointer?, _ destination: String, _ path: String, _ interface: String, _ member: String,
        _ arguments: [String] = []
    ) -> OpaquePointer? {
        guard let bus else { return nil }
        var m: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &m, destination, path, interface, member) >= 0, let m else { return nil }
        for a in arguments { _ = a.withCString { sd_bus_message_append_basic(m, CChar(UInt8(ascii: "s")), $0) } }
        return m
    }

    /// Sends `m` (and lets it go); its reply goes to `handler` with
    /// `userdata`, within `timeout` µs, under `slot`.
    public static func send(
        _ bus: OpaquePointer?, _ m: OpaquePointer?, _ handler: sd_bus_message_handler_t, _ userdata: UnsafeMutableRawPointer,
        slot: inout OpaquePointer?, timeout: UInt64 = 1_000_000
    ) {
        guard let bus, let m else { return }
        defer { sd_bus_message_unref(m) }
        _ = sd_bus_call_async(bus, &slot, m, handler, userdata, timeout)
    }

    /// The unique name of whoever sent `m` (the bus driver sets it: nobody can forge it).
    public static func sender(_ m: OpaquePointer) -> String? { sd_bus_message_get_sender(m).map { String(cString: $0) } }

    /// The error of a reply, as text; nil when it is not one.
    public static func error(of m: OpaquePointer) -> String? {
        guard sd_bus_message_is_method_error(m, nil) != 0 else { return nil }
        guard let e = sd_bus_message_get_error(m) else { return "an error" }
        let name = e.pointee.name.map { String(cString: $0) } ?? "an error"
        let message = e.pointee.message.map { String(cString: $0) } ?? ""
        return message.isEmpty ? name : "\(name): \(message)"
    }

    /// Whether the error of `m` is `name`.
    public static func isError(_ m: OpaquePointer, _ name: String) -> Bool { sd_bus_message_is_method_error(m, name) != 0 }

    /// Reads a string-like basic value (`s`, `o`) at the message's position.
    public static func readString(_ m: OpaquePointer, _ type: UInt8) -> String? {
        var p: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(m, CChar(type), &p) > 0, let p else { return nil }
        return String(cString: p)
    }

    /// Answers the call `m` with nothing (if it wants an answer).
    public static func replyEmpty(_ m: OpaquePointer) {
        guard sd_bus_message_get_expect_reply(m) != 0 else { return }
        var reply: OpaquePointer?
        guard sd_bus_message_new_method_return(m, &reply) >= 0, let reply else { return }
        _ = sd_bus_send(nil, reply, nil)
        sd_bus_message_unref(reply)
    }

    /// Answers the call `m` with the error `name` saying `message` (if it wants an answer).
    public static func replyError(_ m: OpaquePointer, _ name: String, _ message: String) {
        guard sd_bus_message_get_expect_reply(m) != 0 else { return }
        name.withCString { n in
            message.withCString { text in
                var error = sd_bus_error(name: n, message: text, _need_free: 0)
                _ = sd_bus_reply_method_error(m, &error)
            }
        }
    }

    public static func enter(_ m: OpaquePointer, _ type: UInt8, _ contents: String) -> Bool {
        sd_bus_message_enter_container(m, CChar(type), contents) > 0
    }
}

/// One question a watcher asks a service again and again: at most one is
/// under way; asked again meanwhile, it is asked once more when the answer
/// comes. However many signals say "ask again", the service gets one
/// question at a time.
public struct BusQuestion {
    public var slot: OpaquePointer?
    public var again = false

    public init() {}

    public var underWay: Bool { slot != nil }

    /// The answer came (or the question was dropped): whether to ask again.
    public mutating func answered() -> Bool {
        sd_bus_slot_unref(slot)
        slot = nil
        defer { again = false }
        return again
    }

    /// Drops the question under way (its answer is not taken).
    public mutating func drop() {
        sd_bus_slot_unref(slot)
        slot = nil
        again = false
    }
}

/// Which bus a connection is to.
public enum BusKind: Sendable {
    /// The system bus (`$DBUS_SYSTEM_BUS_ADDRESS` points it elsewhere): logind, iio-sensor-proxy.
    case system
    /// The user's session bus (`$DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus`): KWin, GNOME Shell, squeekboard.
    case session

    /// Its name in messages.
    public var name: String { self == .system ? "the system bus" : "the session bus" }
}

/// What the daemon's watchers and act's desktop sources share: a
/// connection to one bus, followed inside the owner's loop (its descriptor
/// in the loop's set, its timeout among the deadlines), and one service
/// watched on it.
///
/// Only the service's own messages count: the connection learns the
/// unique name that owns the service's name from the bus driver
/// (`GetNameOwner`, then each `NameOwnerChanged` the driver sends), calls
/// that name, and takes a signal, a reply or a call only from it
/// (`fromService`). Anyone on the bus can send anyone a message that looks
/// like the service's; only the bus sets a message's sender.
///
/// A subclass asks its questions in `serviceCame`, forgets in
/// `serviceLeft`, and closes its slots before `close`.
open class BusConnection {
    public var bus: OpaquePointer?
    public let kind: BusKind
    /// The service watched, and the unique name that owns it (nil: none now, or not known yet).
    public let service: String
    public private(set) var owner: String?
    private var ownerQuestion = BusQuestion()
    private var ownerMatch: OpaquePointer?

    /// Connects to `kind` (without it, `failed` says why and `bus` is nil).
    public init(service: String, on kind: BusKind = .system) {
        self.service = service
        self.kind = kind
        var b: OpaquePointer?
        let r = kind == .system ? sd_bus_open_system(&b) : sd_bus_open_user(&b)
        if r >= 0, let b {
            bus = b
        } else {
            failed("no \(kind.name.dropFirst(4)) (\(Errno(rawValue: -r)))")
        }
    }

    /// Starts following the service's owner (the subclass calls it once
    /// its own setup is done).
    public func follow() {
        guard bus != nil else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let match =
            "type='signal',sender='\(BusMessage.driver)',path='/org/freedesktop/DBus',interface='\(BusMessage.driver)',member='NameOwnerChanged',arg0='\(service)'"
        _ = sd_bus_add_match_async(bus, &ownerMatch, match, BusConnection.onOwnerChanged, nil, me)
        let m = BusMessage.call(bus, BusMessage.driver, "/org/freedesktop/DBus", BusMessage.driver, "GetNameOwner", [service])
        BusMessage.send(bus, m, BusConnection.onOwner, me, slot: &ownerQuestion.slot)
    }

    private static func connection(_ userdata: UnsafeMutableRawPointer?) -> BusConnection {
        Unmanaged<BusConnection>.fromOpaque(userdata!).takeUnretainedValue()
    }

    private static let onOwner: sd_bus_message_handler_t = { m, userdata, _ in
        let me = connection(userdata)
        _ = me.ownerQuestion.answered()
        guard let m, BusMessage.sender(m) == BusMessage.driver else { return 0 }
        if BusMessage.isError(m, "org.freedesktop.DBus.Error.NameHasNoOwner") {
            me.owned(by: nil)
        } else if let error = BusMessage.error(of: m) {
            me.failed("the bus did not say who serves \(me.service): \(error)")
        } else if let name = BusMessage.readString(m, UInt8(ascii: "s")) {
            me.owned(by: name)
        }
        return 0
    }

    /// `NameOwnerChanged(name, old, new)` from the bus driver: the service
    /// left (`new` empty) or came (again).
    private static let onOwnerChanged: sd_bus_message_handler_t = { m, userdata, _ in
        let me = connection(userdata)
        guard let m, BusMessage.sender(m) == BusMessage.driver,
            BusMessage.readString(m, UInt8(ascii: "s")) == me.service,
            BusMessage.readString(m, UInt8(ascii: "s")) != nil,
            let new = BusMessage.readString(m, UInt8(ascii: "s"))
        else { return 0 }
        me.ownerQuestion.drop()
        me.owned(by: new.isEmpty ? nil : new)
        return 0
    }

    private func owned(by name: String?) {
        guard name != owner || name == nil else { return }
        let had = owner != nil
        owner = name
        if name == nil {
            serviceLeft(had ? "left \(kind.name)" : "is not on \(kind.name)")
        } else {
            serviceCame()
        }
    }

    /// The service has an owner now (`owner`): ask it what is needed.
    open func serviceCame() {}
    /// Nobody owns the service now: it `left` the bus, or was never on it (`how` says which).
    open func serviceLeft(_ how: String) {}
    /// The bus or the service failed, and why.
    open func failed(_ why: String) {}

    /// Whether `m` was sent by the service's owner.
    public func fromService(_ m: OpaquePointer) -> Bool { owner != nil && BusMessage.sender(m) == owner }

    /// A call of `member` on the service's owner.
    public func call(_ path: String, _ interface: String, _ member: String, _ arguments: [String] = []) -> OpaquePointer? {
        guard let owner else { return nil }
        return BusMessage.call(bus, owner, path, interface, member, arguments)
    }

    /// A signal match on the service's object `path`.
    public func match(
        _ path: String, _ interface: String, _ member: String, _ handler: sd_bus_message_handler_t, slot: inout OpaquePointer?
    ) {
        let match = "type='signal',sender='\(service)',path='\(path)',interface='\(interface)',member='\(member)'"
        _ = sd_bus_add_match_async(bus, &slot, match, handler, nil, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Closes the connection (flushed first: a message written last goes out).
    open func close() {
        ownerQuestion.drop()
        sd_bus_slot_unref(ownerMatch)
        ownerMatch = nil
        if let bus { sd_bus_flush_close_unref(bus) }
        bus = nil
    }

    /// The bus's descriptor, for the loop's set (-1 without a bus).
    public var fd: Int32 { bus.map { sd_bus_get_fd($0) } ?? -1 }

    /// Whether the bus has something to write (watch the descriptor for output too).
    public var wantsOutput: Bool { bus.map { sd_bus_get_events($0) & Int32(POLLOUT) != 0 } ?? false }

    /// What to wait for on `fd` with poll: input, and output while something waits to be written.
    public var pollEvents: Int32 { Int32(POLLIN) | (wantsOutput ? Int32(POLLOUT) : 0) }

    /// When the bus must be processed even if nothing arrives (a call's
    /// timeout; at once when messages wait to be handled).
    public var busDeadline: Timestamp {
        guard let bus else { return .never }
        var usec: UInt64 = 0
        guard sd_bus_get_timeout(bus, &usec) >= 0, usec != UInt64.max else { return .never }
        return Timestamp(microseconds: Int64(clamping: usec))
    }

    /// Handles what the bus has (replies, signals, calls) and writes what
    /// waits; at most `budget` messages, so that a flood of them leaves the
    /// loop its other work (the rest waits, and the deadline is at once).
    /// Whether it stopped at the budget with more waiting.
    @discardableResult
    public func process(budget: Int = 256) -> Bool {
        guard let bus else { return false }
        for _ in 0..<budget {
            let r = sd_bus_process(bus, nil)
            if r < 0 {
                failed("the connection to \(kind.name) failed (\(Errno(rawValue: -r)))")
                close()
                return false
            }
            if r == 0 { return false }
        }
        return true
    }
}
