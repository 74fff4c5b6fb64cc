public import GestureCore
import TOML

/// gestured's configuration: thresholds for every device, and per-device
/// sections (size, rotation, threshold overrides) matched by name or
/// vendor:product. Read from TOML by `ConfigurationReader`.
public struct Configuration: Sendable {
    public var thresholds = GestureThresholds.defaults
    public var devices: [DeviceSection] = []
    /// Socket, permissions, seat, logging.
    public var daemon = DaemonSettings()
    /// Files read, in order (for messages and `check-config`).
    public var sources: [String] = []

    public init() {}

    /// One `[[device]]` section.
    public struct DeviceSection: Sendable {
        /// The device's name exactly, or "vvvv:pppp" (hex vendor and product ids).
        public var match: String
        public var size: (width: Double, height: Double)?
        /// Clockwise rotation of touch coordinates: 0, 90, 180 or 270 (nil: not set here).
        public var rotation: Int?
        /// `rotation = "auto"`: follow the accelerometer (iio-sensor-proxy)
        /// while no session client says how the screen is turned.
        public var followsSensor: Bool?
        public var flipX: Bool?
        public var flipY: Bool?
        /// Claim the touchscreen (docs/claiming.md): read it raw and pass the
        /// compositor what no client claims, through a clone (nil: not set here).
        public var claim: Bool?
        /// Thresholds set in this section, applied over the global ones.
        public var overrides: [(key: String, value: Double)] = []
        /// Where the section starts, "file:line".
        public var origin: String

        public init(match: String, origin: String) {
            self.match = match
            self.origin = origin
        }

        public func matches(name: String, vendorProduct: String) -> Bool {
            match == name || match.lowercased() == vendorProduct
        }
    }

    /// Whether a device is claimed: the last matching section that says.
    public func claims(name: String, vendorProduct: String) -> Bool {
        sections(forName: name, vendorProduct: vendorProduct).compactMap(\.claim).last ?? false
    }

    /// Whether a device follows the accelerometer: the last matching section that gives a rotation.
    public func followsSensor(name: String, vendorProduct: String) -> Bool {
        sections(forName: name, vendorProduct: vendorProduct).compactMap(\.followsSensor).last ?? false
    }

    /// Whether any section follows the accelerometer.
    public var anyFollowsSensor: Bool { devices.contains { $0.followsSensor == true } }

    /// The sections matching a device, in file order (later ones win).
    public func sections(forName name: String, vendorProduct: String) -> [DeviceSection] {
        devices.filter { $0.matches(name: name, vendorProduct: vendorProduct) }
    }

    /// The thresholds for a device: the global ones, then each matching section's overrides.
    public func thresholds(forName name: String, vendorProduct: String) -> GestureThresholds {
        var t = thresholds
        for section in sections(forName: name, vendorProduct: vendorProduct) {
            for (key, value) in section.overrides {
                if let k = GestureThresholds.keys.first(where: { $0.name == key }) { t[keyPath: k.keyPath] = value }
            }
        }
        return t
    }

    /// Applies the matching sections' size and calibration to a geometry.
    /// A size from the command line (`source == .commandLine`) is kept.
    public func apply(to geometry: inout PanelGeometry, name: String, vendorProduct: String) {
        for section in sections(forName: name, vendorProduct: vendorProduct) {
            if let size = section.size, geometry.source != .commandLine {
                geometry.width = size.width
                geometry.height = size.height
                geometry.source = .configuration
            }
            if let r = section.rotation { geometry.rotation = r }
            if let f = section.flipX { geometry.flipX = f }
            if let f = section.flipY { geometry.flipY = f }
        }
    }

    /// The effective configuration as TOML (what `check-config` prints).
    public var rendered: String {
        var s = daemon.rendered + "\n[thresholds]\n"
        for k in GestureThresholds.keys {
            s += "\(k.name) = \(NumberText.exact(thresholds[keyPath: k.keyPath]))  # \(k.unit): \(k.summary)\n"
        }
        for d in devices {
            s += "\n[[device]]  # \(TOMLText.comment(d.origin))\nmatch = \(TOMLText.quoted(d.match))\n"
            if let size = d.size { s += "size = \"\(NumberText.exact(size.width))x\(NumberText.exact(size.height))\"\n" }
            if d.followsSensor == true { s += "rotation = \"auto\"\n" } else if let r = d.rotation { s += "rotation = \(r)\n" }
            if let f = d.flipX { s += "flip-x = \(f)\n" }
            if let f = d.flipY { s += "flip-y = \(f)\n" }
            if let c = d.claim { s += "claim = \(c)\n" }
            if !d.overrides.isEmpty {
                s += "[device.thresholds]\n"
                for (k, v) in d.overrides { s += "\(k) = \(NumberText.exact(v))\n" }
            }
        }
        return s
    }
}
