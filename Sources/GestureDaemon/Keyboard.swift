import CEvdev
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A key chord such as `alt+Left` or `ctrl+shift+t`: modifiers, then one key,
/// named as the kernel names keys (`KEY_LEFT` may be written `Left`).
package struct Chord: Sendable, Equatable {
    package var text: String
    /// Key codes in the order they are pressed (modifiers first).
    package var codes: [UInt32]

    static let aliases: [String: String] = [
        "CTRL": "KEY_LEFTCTRL", "CONTROL": "KEY_LEFTCTRL", "ALT": "KEY_LEFTALT", "SHIFT": "KEY_LEFTSHIFT",
        "SUPER": "KEY_LEFTMETA", "META": "KEY_LEFTMETA", "LOGO": "KEY_LEFTMETA", "WIN": "KEY_LEFTMETA",
        "ALTGR": "KEY_RIGHTALT", "RETURN": "KEY_ENTER", "ESCAPE": "KEY_ESC", "DEL": "KEY_DELETE",
        "PRINT": "KEY_SYSRQ", "PGUP": "KEY_PAGEUP", "PGDN": "KEY_PAGEDOWN",
    ]

    /// Parses `text`; the error names the part that is no key.
    package init(_ text: String) throws(ChordError) {
        self.text = text
        let parts: [String] = text.split(separator: "+", omittingEmptySubsequences: false).map {
            String($0).trimmed(" ")
        }
        guard !parts.isEmpty, !parts.contains(where: \.isEmpty) else {
            throw ChordError(message: "'\(text)' is not a key chord: write keys joined by '+', e.g. \"alt+Left\"")
        }
        codes = []
        for part in parts {
            let upper = part.uppercased()
            let name = Self.aliases[upper] ?? (upper.hasPrefix("KEY_") || upper.hasPrefix("BTN_") ? upper : "KEY_" + upper)
            let code = libevdev_event_code_from_name(UInt32(EV_KEY), name)
            guard code >= 0 else {
                throw ChordError(
                    message:
                        "'\(part)' in '\(text)' is not a key; use the kernel's names without KEY_ (Left, PageUp, F5, volumeup, a) or ctrl, alt, shift, super"
                )
            }
            guard Chord.typeable(UInt32(code)) else {
                throw ChordError(message: "'\(part)' in '\(text)' is a button, not a key")
            }
            guard !codes.contains(UInt32(code)) else {
                throw ChordError(message: "'\(part)' appears twice in '\(text)'")
            }
            codes.append(UInt32(code))
        }
    }

    /// Whether `code` is a key (not a mouse, joystick or pad button): the
    /// codes the daemon's keyboard has.
    static func typeable(_ code: UInt32) -> Bool { (1..<0x100).contains(code) || (0x160..<0x2c0).contains(code) }

    /// The events that type the chord: each key pressed in order, a report,
    /// then released in reverse order, a report. (type, code, value).
    package var events: [(type: UInt32, code: UInt32, value: Int32)] {
        var out: [(UInt32, UInt32, Int32)] = []
        for c in codes { out.append((UInt32(EV_KEY), c, 1)) }
        out.append((UInt32(EV_SYN), UInt32(SYN_REPORT), 0))
        for c in codes.reversed() { out.append((UInt32(EV_KEY), c, 0)) }
        out.append((UInt32(EV_SYN), UInt32(SYN_REPORT), 0))
        return out
    }

    package static func == (a: Chord, b: Chord) -> Bool { a.codes == b.codes }
}

package struct ChordError: Error, Sendable {
    package var message: String
}

extension String {
    fileprivate func trimmed(_ c: Character) -> String {
        var s = Substring(self)
        while s.first == c { s.removeFirst() }
        while s.last == c { s.removeLast() }
        return String(s)
    }
}

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
