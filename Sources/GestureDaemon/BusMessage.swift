import CSystemd
package import GestureCore
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// What the daemon's two sd-bus watchers (`SeatWatcher`, `SensorWatcher`)
/// do alike: ask for a property without waiting, and read the answers.
enum BusMessage {
    /// Calls `org.freedesktop.DBus.Properties.Get(interface, property)` on
    /// `service`'s `path`, within a second; the reply goes to `handler`
    /// with `userdata`. `slot` is the question's: the one pending there is
    /// dropped first, which cancels it, so no late answer to an older
    /// question is taken.
    static func getProperty(
        _ bus: OpaquePointer?, _ service: String, _ path: String, _ interface: String, _ property: String,
        _ handler: sd_bus_message_handler_t, _ userdata: UnsafeMutableRawPointer, slot: inout OpaquePointer?
    ) {
        sd_bus_slot_unref(slot)
        slot = nil
        guard let bus else { return }
        var m: OpaquePointer?
        guard
            sd_bus_message_new_method_call(bus, &m, service, path, "org.freedesktop.DBus.Properties", "Get") >= 0,
            let m
        else { return }
        defer { sd_bus_message_unref(m) }
        _ = interface.withCString { sd_bus_message_append_basic(m, CChar(UInt8(ascii: "s")), $0) }
        _ = property.withCString { sd_bus_message_append_basic(m, CChar(UInt8(ascii: "s")), $0) }
        // A second at most: a service answers in microseconds, or is not there.
        _ = sd_bus_call_async(bus, &slot, m, handler, userdata, 1_000_000)
    }

    /// The error of a reply, as text; nil when it is not one.
    static func error(of m: OpaquePointer) -> String? {
        guard sd_bus_message_is_method_error(m, nil) != 0 else { return nil }
        guard let e = sd_bus_message_get_error(m) else { return "an error" }
        let name = e.pointee.name.map { String(cString: $0) } ?? "an error"
        let message = e.pointee.message.map { String(cString: $0) } ?? ""
        return message.isEmpty ? name : "\(name): \(message)"
    }

    /// Reads a string-like basic value (`s`, `o`) at the message's position.
    static func readString(_ m: OpaquePointer, _ type: UInt8) -> String? {
        var p: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(m, CChar(type), &p) > 0, let p else { return nil }
        return String(cString: p)
    }

    static func enter(_ m: OpaquePointer, _ type: UInt8, _ contents: String) -> Bool {
        sd_bus_message_enter_container(m, CChar(type), contents) > 0
    }
}

/// What the daemon's sd-bus watchers share: a connection to the system bus
/// followed inside the daemon's loop (its descriptor in the loop's set, its
/// timeout among the deadlines), and a state whose changes the loop takes.
/// A subclass adds its matches and calls, and closes its slots before
/// `close`.
package class BusWatcher<State: Equatable & Sendable> {
    package private(set) var state: State
    /// The state changed since the last `takeChange`.
    var changed = false
    var bus: OpaquePointer?
    /// The state that says the bus failed, and why.
    private let unavailable: (String) -> State

    /// Connects to the system bus; without one the state is `unavailable`.
    init(_ initial: State, unavailable: @escaping (String) -> State) {
        state = initial
        self.unavailable = unavailable
        var b: OpaquePointer?
        let r = sd_bus_open_system(&b)
        if r >= 0, let b {
            bus = b
        } else {
            state = unavailable("no system bus (\(Errno(rawValue: -r)))")
        }
    }

    /// Closes the connection (flushed first: a message written last goes out).
    func close() {
        if let bus { sd_bus_flush_close_unref(bus) }
        bus = nil
    }

    /// The bus's descriptor, for the loop's set (-1 without a bus).
    package var fd: Int32 { bus.map { sd_bus_get_fd($0) } ?? -1 }

    /// Whether the bus has something to write (watch the descriptor for output too).
    package var wantsOutput: Bool { bus.map { sd_bus_get_events($0) & Int32(POLLOUT) != 0 } ?? false }

    /// When the bus must be processed even if nothing arrives (a call's timeout).
    package var deadline: Timestamp {
        guard let bus else { return .never }
        var usec: UInt64 = 0
        guard sd_bus_get_timeout(bus, &usec) >= 0, usec != UInt64.max else { return .never }
        return Timestamp(microseconds: Int64(clamping: usec))
    }

    /// Handles what the bus has (replies, signals) and writes what waits.
    package func process() {
        guard let bus else { return }
        while true {
            let r = sd_bus_process(bus, nil)
            if r < 0 {
                set(unavailable("the system bus connection failed (\(Errno(rawValue: -r)))"))
                close()
                return
            }
            if r == 0 { return }
        }
    }

    /// The state, if it changed since the last call.
    package func takeChange() -> State? {
        guard changed else { return nil }
        changed = false
        return state
    }

    func set(_ new: State) {
        if new != state {
            state = new
            changed = true
        }
    }
}
