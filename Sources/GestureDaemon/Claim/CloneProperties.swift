import CInput

#if canImport(Glibc)
    import Glibc
#endif

/// What a claimed touchscreen's clone must have of the device's udev
/// properties for the compositor to treat it as the device: its
/// calibration, the output it is mapped to, its device group (pen and
/// touch together), its seat, its size and its path (sway maps a built-in
/// touchscreen by its path). udev runs `gestured clone-properties` for a
/// clone (81-gestured-clone.rules), which names the device in its `phys`
/// (`gestured-clone:eventN`), and imports what it prints.
package enum CloneProperties {
    package static let names = [
        "LIBINPUT_CALIBRATION_MATRIX", "WL_OUTPUT", "LIBINPUT_DEVICE_GROUP", "ID_SEAT", "ID_INPUT_WIDTH_MM",
        "ID_INPUT_HEIGHT_MM", "ID_PATH", "ID_PATH_TAG",
    ]

    /// `KEY=VALUE` lines for the clone whose `phys` is `phys`; nil (with why)
    /// when it names no device.
    package static func lines(phys: String) -> Result<[String], SetupError> {
        let prefix = "gestured-clone:"
        guard phys.hasPrefix(prefix) else { return .failure(SetupError("\(phys) is not a clone's phys (\(prefix)eventN)")) }
        let sysname = String(phys.dropFirst(prefix.count))
        guard sysname.hasPrefix("event"), sysname.dropFirst(5).allSatisfy(\.isNumber), !sysname.dropFirst(5).isEmpty else {
            return .failure(SetupError("\(phys) names no input event device"))
        }
        guard let udev = udev_new() else { return .failure(SetupError("udev_new() failed")) }
        defer { udev_unref(udev) }
        guard let device = udev_device_new_from_subsystem_sysname(udev, "input", sysname) else {
            return .failure(SetupError("no input device \(sysname)"))
        }
        defer { udev_device_unref(device) }
        var out: [String] = []
        for name in names {
            guard let v = udev_device_get_property_value(device, name).map({ String(cString: $0) }),
                !v.isEmpty, !v.contains("\n")
            else { continue }
            out.append("\(name)=\(v)")
        }
        return .success(out)
    }
}
