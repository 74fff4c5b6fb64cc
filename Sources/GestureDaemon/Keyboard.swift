import CEvdev
package import GestureProtocol
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
                    "the daemon cannot make its keyboard through /dev/uinput: \(Errno(rawValue: -r)). The system service gets write access to it from 75-gestured-uinput.rules (sudo make install, then sudo udevadm trigger --sysname-match=uinput); a daemon you run yourself needs it too"
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
