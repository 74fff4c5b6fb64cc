import CSystemd

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
