internal import CEvdev
import GestureCore

/// A claimed touchscreen's clone (docs/claiming.md), made by the one
/// uinput maker (`UinputDevice`) from the touchscreen's own description.
extension EvdevClaimedInput {
    /// Makes the clone: the device's bus, ids, properties, every axis with
    /// its range and resolution, its keys, and `ABS_MT_TOOL_TYPE` (which
    /// the cancel needs); its name with `ClaimedDevice.cloneSuffix`; its
    /// `phys` names the device, so that udev rules can give it the
    /// device's properties (81-gestured-clone.rules).
    package func makeClone(path: String) throws(SetupError) -> UinputDevice {
        let dev = device.device
        let name = device.name
        let hadTool = libevdev_has_event_code(dev, UInt32(EV_ABS), UInt32(ABS_MT_TOOL_TYPE)) != 0
        if !hadTool {
            var tool = input_absinfo(value: 0, minimum: 0, maximum: 2, fuzz: 0, flat: 0, resolution: 0)
            libevdev_enable_event_code(dev, UInt32(EV_ABS), UInt32(ABS_MT_TOOL_TYPE), &tool)
        }
        let sysname = String(path.split(separator: "/").last ?? "")
        libevdev_set_name(dev, name + ClaimedDevice.cloneSuffix)
        let made = UinputDevice.make(from: dev, phys: "gestured-clone:" + sysname)
        libevdev_set_name(dev, name)
        if !hadTool { libevdev_disable_event_code(dev, UInt32(EV_ABS), UInt32(ABS_MT_TOOL_TYPE)) }
        switch made {
        case .success(let clone):
            return clone
        case .failure(let e):
            throw SetupError("\(path) (\(name)) is not claimed: \(UinputDevice.cannotMake("its clone", e))")
        }
    }
}
