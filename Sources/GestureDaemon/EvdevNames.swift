internal import CEvdev
package import GestureCore

/// libevdev's names of evdev types, codes and properties, for the comments
/// `gestured record` writes beside each event (as evemu-record does).
extension Evdev {
    /// The kernel's name of an event type ("EV_ABS"), from libevdev; "type N" when it has none.
    package static func typeName(_ type: UInt16) -> String {
        libevdev_event_type_get_name(UInt32(type)).map { String(cString: $0) } ?? "type \(type)"
    }

    /// The kernel's name of an event code ("ABS_MT_SLOT"), from libevdev; "code N" when it has none.
    package static func codeName(type: UInt16, code: UInt16) -> String {
        libevdev_event_code_get_name(UInt32(type), UInt32(code)).map { String(cString: $0) } ?? "code \(code)"
    }

    /// The kernel's name of an input property ("INPUT_PROP_DIRECT"), from libevdev.
    package static func propertyName(_ property: Int) -> String {
        libevdev_property_get_name(UInt32(property)).map { String(cString: $0) } ?? "property \(property)"
    }

    /// "EV_ABS / ABS_MT_SLOT", as evemu-record and libevdev's tools show an event.
    package static func name(type: UInt16, code: UInt16) -> String {
        "\(typeName(type)) / \(codeName(type: type, code: code))"
    }
}
