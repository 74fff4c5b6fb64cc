import CSystemd
package import GestureCore

#if canImport(Glibc)
    import Glibc
#endif

/// Which side of the device is up, from iio-sensor-proxy's accelerometer
/// (`net.hadess.SensorProxy` on the system bus): the daemon claims the
/// accelerometer (`ClaimAccelerometer`; the proxy sends its changes only to
/// those who claim), asks `AccelerometerOrientation`, and asks again at
/// each `PropertiesChanged`. Like `SeatWatcher`, inside the daemon's loop,
/// every call asynchronous; nothing wakes the daemon while the device
/// stays as it is.
///
/// The claim is released when the watcher is let go (`release`), and by
/// the proxy itself when the daemon's connection closes. When the proxy
/// leaves the bus the watcher says so; when it comes back (a restart, an
/// upgrade) it is claimed again.
package final class SensorWatcher: BusWatcher<SensorState> {
    package typealias State = SensorState

    private var matchSlot: OpaquePointer?
    private var ownerSlot: OpaquePointer?
    private var claimSlot: OpaquePointer?
    private var getSlot: OpaquePointer?

    static let service = "net.hadess.SensorProxy"
    static let path = "/net/hadess/SensorProxy"

    package init() {
        super.init(.waiting, unavailable: { .unavailable($0) })
        guard bus != nil else {
            // Said once by the daemon, which takes it as a change.
            changed = true
            return
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let match =
            "type='signal',sender='\(Self.service)',path='\(Self.path)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'"
        _ = sd_bus_add_match_async(bus, &matchSlot, match, Self.onChanged, nil, me)
        let owner =
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.service)'"
        _ = sd_bus_add_match_async(bus, &ownerSlot, owner, Self.onOwnerChanged, nil, me)
        claim()
    }

    /// Asks for the accelerometer; the answer goes to `onClaimed`.
    private func claim() {
        sd_bus_slot_unref(claimSlot)
        claimSlot = nil
        var m: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &m, Self.service, Self.path, Self.service, "ClaimAccelerometer") >= 0,
            let m
        else { return }
        defer { sd_bus_message_unref(m) }
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = sd_bus_call_async(bus, &claimSlot, m, Self.onClaimed, me, 5_000_000)
    }

    deinit { close() }

    /// Gives the accelerometer back and closes the connection.
    package func release() {
        if let bus, case .orientation = state {
            var m: OpaquePointer?
            if sd_bus_message_new_method_call(bus, &m, Self.service, Self.path, Self.service, "ReleaseAccelerometer") >= 0,
                let m
            {
                _ = sd_bus_message_set_expect_reply(m, 0)
                _ = sd_bus_send(bus, m, nil)
                sd_bus_message_unref(m)
            }
        }
        close()
    }

    override func close() {
        for slot in [matchSlot, ownerSlot, claimSlot, getSlot] { sd_bus_slot_unref(slot) }
        (matchSlot, ownerSlot, claimSlot, getSlot) = (nil, nil, nil, nil)
        super.close()
    }

    private func askOrientation() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        BusMessage.getProperty(
            bus, Self.service, Self.path, Self.service, "AccelerometerOrientation", Self.onOrientation, me, slot: &getSlot)
    }

    private static func watcher(_ userdata: UnsafeMutableRawPointer?) -> SensorWatcher {
        Unmanaged<SensorWatcher>.fromOpaque(userdata!).takeUnretainedValue()
    }

    private static let onClaimed: sd_bus_message_handler_t = { m, userdata, _ in
        let me = watcher(userdata)
        guard let m else { return 0 }
        if let error = BusMessage.error(of: m) {
            me.set(.unavailable("iio-sensor-proxy did not give the accelerometer: \(error)"))
            return 0
        }
        me.askOrientation()
        return 0
    }

    /// `NameOwnerChanged(name, old, new)` of the proxy's name: gone when
    /// `new` is empty, else back (claimed again: a new proxy knows no claims).
    private static let onOwnerChanged: sd_bus_message_handler_t = { m, userdata, _ in
        let me = watcher(userdata)
        guard let m, BusMessage.readString(m, UInt8(ascii: "s")) != nil, BusMessage.readString(m, UInt8(ascii: "s")) != nil,
            let new = BusMessage.readString(m, UInt8(ascii: "s"))
        else { return 0 }
        if new.isEmpty {
            sd_bus_slot_unref(me.getSlot)
            me.getSlot = nil
            me.set(.unavailable("iio-sensor-proxy left the system bus"))
        } else {
            me.claim()
        }
        return 0
    }

    private static let onChanged: sd_bus_message_handler_t = { _, userdata, _ in
        let me = watcher(userdata)
        if case .unavailable = me.state { return 0 }
        me.askOrientation()
        return 0
    }

    /// `AccelerometerOrientation` is a string in a variant.
    private static let onOrientation: sd_bus_message_handler_t = { m, userdata, _ in
        let me = watcher(userdata)
        guard let m else { return 0 }
        if let error = BusMessage.error(of: m) {
            me.set(.unavailable("iio-sensor-proxy did not say the orientation: \(error)"))
            return 0
        }
        guard BusMessage.enter(m, UInt8(ascii: "v"), "s"), let text = BusMessage.readString(m, UInt8(ascii: "s")) else {
            me.set(.unavailable("iio-sensor-proxy's AccelerometerOrientation is not a string"))
            return 0
        }
        me.set(.orientation(ScreenTransform(accelerometer: text)))
        return 0
    }
}

/// Which side of the device is up, as iio-sensor-proxy says.
package enum SensorState: Equatable, Sendable {
    case waiting
    /// No system bus, no iio-sensor-proxy, or no accelerometer.
    case unavailable(String)
    /// The proxy's orientation; nil while it is `undefined` (lying flat).
    case orientation(ScreenTransform?)
}
