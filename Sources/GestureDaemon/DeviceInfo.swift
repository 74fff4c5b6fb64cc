package import GestureCore
import GestureProtocol

/// Who set the orientation a device's touches are read in.
package enum OrientationSource: String, Sendable, Hashable {
    /// Nothing turned it: the mounting of the configuration only.
    case configuration
    /// iio-sensor-proxy's accelerometer (`rotation = "auto"`).
    case sensor
    /// A client in the active session, from its compositor (`gestured act`).
    case session
}

/// A touchscreen the daemon serves gestures from, as clients and `gestured devices` see it.
package struct DeviceInfo: Sendable, Hashable {
    package var id: DeviceID
    package var name: String
    /// `/dev/input/eventN`, or `replay:FILE` for a replayed trace.
    package var node: String
    /// "vvvv:pppp", lower-case hex.
    package var vendorProduct: String
    /// Panel size in the picture's orientation in force, mm.
    package var width: Double
    package var height: Double
    package var sizeSource: SizeSource
    /// Clockwise rotation of the panel as mounted, degrees (the configuration's `rotation`).
    package var rotation: Int
    /// The output it is mapped to (its `WL_OUTPUT` udev property), if it says.
    package var output: String?
    /// How the picture is turned now, and who said so.
    package var orientation = ScreenTransform.normal
    package var orientationSource = OrientationSource.configuration
    /// How many touches the device tracks at once (0: unknown).
    package var slots: Int
    /// Claimed (docs/claiming.md): read raw, what no client claims passed
    /// on to the compositor through a clone.
    package var claimed = false

    /// The longest name a device is given, bytes: the kernel's are at most
    /// 80 (uinput) or 255; a trace's `N:` line can be anything.
    package static let nameLimit = 255

    /// `name` cut to `nameLimit` bytes at a character's boundary.
    package static func boundedName(_ name: String) -> String {
        guard name.utf8.count > nameLimit else { return name }
        var out = ""
        for c in name {
            guard out.utf8.count + String(c).utf8.count <= nameLimit else { break }
            out.append(c)
        }
        return out
    }

    /// The device as a JSON object (in `hello` and `device_added`).
    package var jsonObject: String {
        var s = #"{"device":"# + jsonString(name) + #","node":"# + jsonString(node)
        s += #","vendor_product":"# + jsonString(vendorProduct)
        s += #","width_mm":"#
        GestureEvent.appendJSONNumber(width, scale: 10, to: &s)
        s += #","height_mm":"#
        GestureEvent.appendJSONNumber(height, scale: 10, to: &s)
        s += #","size_source":"# + jsonString(sizeSource.rawValue)
        if let output { s += #","output":"# + jsonString(output) }
        s += #","rotation":\#(rotation),"orientation":"# + jsonString(orientation.name)
        s += #","orientation_source":"# + jsonString(orientationSource.rawValue)
        s += #","slots":\#(slots),"claimed":\#(claimed)}"#
        return s
    }

    /// One readable line (`gestured devices`, the log).
    package var summary: String {
        let size = NumberText.fixed(width, 1) + " x " + NumberText.fixed(height, 1) + " mm"
        return "\(name)  \(node)  \(vendorProduct)  \(size) (\(sizeSource.rawValue))  rotation \(rotation)"
            + "  orientation \(orientation.name) (\(orientationSource.rawValue))  slots \(slots)" + (claimed ? "  claimed" : "")
    }
}
