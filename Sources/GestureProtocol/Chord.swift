import CEvdev

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
    package static func typeable(_ code: UInt32) -> Bool { (1..<0x100).contains(code) || (0x160..<0x2c0).contains(code) }

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
