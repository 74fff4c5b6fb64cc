import CEvdev
import GestureCore
package import GestureProtocol
import Logging
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's keyboard, made through uinput, which types the chords of
/// the clients at the screen (`keys` requests): every key, no button, so
/// that it is a keyboard to udev and the compositor and nothing else.
package final class VirtualKeyboard: UinputMade {
    private let device: UinputDevice

    package static let made = "the keyboard that types clients' keys (gestured virtual keyboard)"

    /// Creates the keyboard; the error says how the daemon gets write access
    /// to /dev/uinput.
    package init() throws(UinputError) {
        device = try UinputDevice(name: "gestured virtual keyboard", what: "keyboard") { dev in
            libevdev_enable_event_type(dev, UInt32(EV_KEY))
            for code in UInt32(1)..<0x2c0 where Chord.typeable(code) {
                libevdev_enable_event_code(dev, UInt32(EV_KEY), code, nil)
            }
        }
    }

    /// Types `chord`; false if the kernel refused an event.
    @discardableResult
    package func type(_ chord: Chord) -> Bool {
        chord.events.allSatisfy { device.write($0.type, $0.code, $0.value) }
    }
}

/// The chords the clients at the screen ask for (`keys`), typed on the
/// daemon's keyboard, which is made for the first client that will type.
struct Typist {
    private var keyboard: OnDemand<VirtualKeyboard>

    init(logger: Logger) { keyboard = OnDemand(logger: logger) }

    /// Makes the keyboard if there is none; why it cannot, if so.
    @discardableResult
    mutating func prepare(now: Timestamp) -> String? { keyboard.prepare(now: now) }

    /// Types `chord` for `client` if its user is at the screen (else `why`
    /// says who is) and its `bucket` has a chord left this second: the answer.
    mutating func type(
        _ chord: Chord, for client: String, atScreen: Bool, why: String, bucket: inout RateBucket, now: Timestamp
    ) -> String {
        if let refused = keyboard.refusal(
            atScreen: atScreen, why: why, bucket: &bucket, now: now, done: "typed", units: "chords", noDevice: "no-keyboard")
        {
            return refused
        }
        guard keyboard.device!.type(chord) else {
            return ServerMessage.error(code: "no-keyboard", message: "the kernel refused the keys of \(chord.text)", fatal: false)
        }
        keyboard.logger.debug("\(client) typed \(chord.text)")
        return ServerMessage.typed(chord)
    }
}
