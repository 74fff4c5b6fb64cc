import CEvdev
import GestureCore
package import GestureProtocol
import Logging
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's keyboard, made through uinput, which types the chords of
/// the clients at the screen (`keys` requests): every key, no button, so
/// that it is a keyboard to udev and the compositor and nothing else.
package final class VirtualKeyboard {
    private let device: OpaquePointer
    private let uinput: OpaquePointer

    /// Creates the keyboard; the error says how the daemon gets write access
    /// to /dev/uinput.
    package init(name: String = "gestured virtual keyboard") throws(KeyboardError) {
        guard let dev = libevdev_new() else { throw KeyboardError(message: "libevdev_new failed") }
        libevdev_set_name(dev, name)
        libevdev_enable_event_type(dev, UInt32(EV_KEY))
        for code in UInt32(1)..<0x2c0 where Chord.typeable(code) { libevdev_enable_event_code(dev, UInt32(EV_KEY), code, nil) }
        var ui: OpaquePointer?
        let r = libevdev_uinput_create_from_device(dev, Int32(LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue), &ui)
        guard r == 0, let ui else {
            libevdev_free(dev)
            throw KeyboardError(
                message:
                    "the daemon cannot make its keyboard through /dev/uinput: \(Errno(rawValue: -r)). The service's user gets write access to it from the udev rule 75-gestured-uinput.rules, which the package and sudo make install put in place (after sudo make install: sudo udevadm trigger --sysname-match=uinput); a daemon you run yourself needs write access too"
            )
        }
        device = dev
        uinput = ui
    }

    deinit {
        libevdev_uinput_destroy(uinput)
        libevdev_free(device)
    }

    /// Types `chord`; false if the kernel refused an event.
    @discardableResult
    package func type(_ chord: Chord) -> Bool {
        for e in chord.events where libevdev_uinput_write_event(uinput, e.type, e.code, e.value) != 0 {
            return false
        }
        return true
    }
}

package struct KeyboardError: Error, Sendable {
    package var message: String
}

/// The chords the clients at the screen ask for (`keys`), typed on the
/// daemon's keyboard, which is made for the first client that will type
/// (and tried again 10 s after it could not be).
struct Typist {
    private var keyboard: VirtualKeyboard?
    /// Why the keyboard could not be made, and when that was tried.
    private var failure: (message: String, at: Timestamp)?
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// Makes the keyboard if there is none; why it cannot, if so.
    @discardableResult
    mutating func prepare(now: Timestamp) -> String? {
        if keyboard != nil { return nil }
        if let f = failure, now - f.at < .milliseconds(10_000) { return f.message }
        do {
            keyboard = try VirtualKeyboard()
            failure = nil
            logger.info("made the keyboard that types clients' keys (gestured virtual keyboard)")
            return nil
        } catch {
            failure = (error.message, now)
            logger.warning("\(error.message)")
            return error.message
        }
    }

    /// Types `chord` for `client` if its user is at the screen (else `why`
    /// says who is) and its `bucket` has a chord left this second: the answer.
    mutating func type(
        _ chord: Chord, for client: String, atScreen: Bool, why: String, bucket: inout RateBucket, now: Timestamp
    ) -> String {
        guard atScreen else {
            return ServerMessage.error(code: "not-at-screen", message: "not typed: \(why)", fatal: false)
        }
        guard bucket.take(now: now) else {
            return ServerMessage.error(
                code: "rate-limited", message: "not typed: more than \(bucket.perSecond) chords in a second", fatal: false)
        }
        if let failure = prepare(now: now) {
            return ServerMessage.error(code: "no-keyboard", message: failure, fatal: false)
        }
        guard keyboard!.type(chord) else {
            return ServerMessage.error(code: "no-keyboard", message: "the kernel refused the keys of \(chord.text)", fatal: false)
        }
        logger.debug("\(client) typed \(chord.text)")
        return ServerMessage.typed(chord)
    }
}
