import BusSupport
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
/// every call asynchronous, one question under way at a time, and only the
/// proxy's own messages taken (`BusWatcher`); nothing wakes the daemon
/// while the device stays as it is.
///
/// The claim is released when the watcher is let go (`release`), and by
/// the proxy itself when the daemon's connection closes. When the proxy
/// leaves the bus the watcher says so; when it comes back (a restart, an
/// upgrade) it is claimed again.
package final class SensorWatcher: BusWatcher<SensorState> {
    package typealias State = SensorState

    private var matchSlot: OpaquePointer?
    private var claimQuestion = BusQuestion()
    private var question = BusQuestion()

    static let service = "net.hadess.SensorProxy"
    static let path = "/net/hadess/SensorProxy"

    package init() {
        super.init(service: Self.service, .waiting, unavailable: { .unavailable($0) })
        guard bus != nil else { return }
        match(Self.path, "org.freedesktop.DBus.Properties", "PropertiesChanged", Self.onChanged, slot: &matchSlot)
        follow()
    }

    deinit { close() }

    /// Gives the accelerometer back and closes the connection.
    package func release() {
        if case .orientation = state, let m = call(Self.path, Self.service, "ReleaseAccelerometer") {
            _ = sd_bus_message_set_expect_reply(m, 0)
            _ = sd_bus_send(bus, m, nil)
            sd_bus_message_unref(m)
        }
        close()
    }

    override func close() {
        claimQuestion.drop()
        question.drop()
        sd_bus_slot_unref(matchSlot)
        matchSlot = nil
        super.close()
    }

    /// The proxy came (or came back: a new proxy knows no claims): claim the accelerometer.
    override func serviceCame() {
        question.drop()
        claimQuestion.drop()
        let m = call(Self.path, Self.service, "ClaimAccelerometer")
        BusMessage.send(
            bus, m, Self.onClaimed, Unmanaged.passUnretained(self).toOpaque(), slot: &claimQuestion.slot, timeout: 5_000_000)
    }

    override func serviceLeft(_ how: String) {
        claimQuestion.drop()
        question.drop()
        set(.unavailable("iio-sensor-proxy \(how)"))
    }

    private func askOrientation() {
        if question.underWay {
            question.again = true
            return
        }
        let m = call(
            Self.path, "org.freedesktop.DBus.Properties", "Get", [Self.service, "AccelerometerOrientation"])
        BusMessage.send(bus, m, Self.onOrientation, Unmanaged.passUnretained(self).toOpaque(), slot: &question.slot)
    }

    private static func watcher(_ userdata: UnsafeMutableRawPointer?) -> SensorWatcher {
        Unmanaged<SensorWatcher>.fromOpaque(userdata!).takeUnretainedValue()
    }

    private static let onClaimed: sd_bus_message_handler_t = { m, userdata, _ in
        let me = watcher(userdata)
        _ = me.claimQuestion.answered()
        guard let m else { return 0 }
        if let error = BusMessage.error(of: m) {
            me.set(.unavailable("iio-sensor-proxy did not give the accelerometer: \(error)"))
        } else if me.fromService(m) {
            me.askOrientation()
        }
        return 0
    }

    private static let onChanged: sd_bus_message_handler_t = { m, userdata, _ in
        let me = watcher(userdata)
        guard let m, me.fromService(m), !me.claimQuestion.underWay else { return 0 }
        if case .unavailable = me.state { return 0 }
        me.askOrientation()
        return 0
    }

    /// `AccelerometerOrientation` is a string in a variant.
    private static let onOrientation: sd_bus_message_handler_t = { m, userdata, _ in
        let me = watcher(userdata)
        let again = me.question.answered()
        defer { if again { me.askOrientation() } }
        guard let m else { return 0 }
        if let error = BusMessage.error(of: m) {
            me.set(.unavailable("iio-sensor-proxy did not say the orientation: \(error)"))
            return 0
        }
        guard me.fromService(m) else { return 0 }
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
