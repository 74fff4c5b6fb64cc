import CEvdev
import GestureCore
package import GestureProtocol

/// The daemon's keyboard, made through uinput, which types the chords of
/// the clients at the screen (`keys` requests, `InputForClients`): every
/// key, no button, so that it is a keyboard to udev and the compositor
/// and nothing else.
package final class VirtualKeyboard {
    private let device: any UinputOutput

    static let made = "the keyboard that types clients' keys (gestured virtual keyboard)"

    /// Writes through `device` (uinput, or in tests a pipe).
    init(_ device: any UinputOutput) { self.device = device }

    /// Makes it through uinput; the error says how the daemon gets write access to /dev/uinput.
    static func make() throws(UinputError) -> VirtualKeyboard {
        let made = UinputDevice.make(name: "gestured virtual keyboard", phys: "gestured-keyboard") { dev in
            libevdev_enable_event_type(dev, UInt32(EV_KEY))
            for code in UInt32(1)..<0x2c0 where Chord.typeable(code) {
                libevdev_enable_event_code(dev, UInt32(EV_KEY), code, nil)
            }
        }
        switch made {
        case .success(let d): return VirtualKeyboard(d)
        case .failure(let e): throw UinputError(message: UinputDevice.cannotMake("its keyboard", e))
        }
    }

    /// Types `chord`; false if the kernel refused it.
    package func type(_ chord: Chord) -> Bool {
        var frame: [RawEvent] = []
        for e in chord.events {
            if e.type == UInt32(EV_SYN) && e.code == UInt32(SYN_REPORT) {
                frame.append(.report)
                guard device.write(frame) == nil else { return false }
                frame.removeAll(keepingCapacity: true)
            } else {
                frame.append(RawEvent(UInt16(e.type), UInt16(e.code), e.value))
            }
        }
        return frame.isEmpty || device.write(frame) == nil
    }
}
