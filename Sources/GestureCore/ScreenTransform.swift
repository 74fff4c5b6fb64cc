/// How the picture on a panel is turned while the device is in use: the
/// output transform a Wayland compositor announces (`wl_output.transform`,
/// same numbering), or the one iio-sensor-proxy's accelerometer implies.
///
/// As in the Wayland protocol, the picture is first mirrored about a
/// vertical axis (the `flipped` values), then turned counter-clockwise by
/// the angle; a touch is brought back into the picture's orientation by the
/// inverse. `rot90` is what `[[device]] rotation = 90` does for a panel
/// mounted that way, so a rotation in the configuration and one at run time
/// agree.
///
/// It applies on top of the panel's mounting (`PanelGeometry`), to
/// positions already in millimetres.
public enum ScreenTransform: Int, CaseIterable, Sendable, Hashable {
    case normal = 0
    case rot90 = 1
    case rot180 = 2
    case rot270 = 3
    case flipped = 4
    case flipped90 = 5
    case flipped180 = 6
    case flipped270 = 7

    /// The names of the protocol and the configuration.
    public var name: String {
        switch self {
        case .normal: "normal"
        case .rot90: "90"
        case .rot180: "180"
        case .rot270: "270"
        case .flipped: "flipped"
        case .flipped90: "flipped-90"
        case .flipped180: "flipped-180"
        case .flipped270: "flipped-270"
        }
    }

    public init?(name: String) {
        guard let t = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = t
    }

    /// iio-sensor-proxy's `AccelerometerOrientation`: which side of the
    /// device is up. `undefined` (lying flat) and anything unknown are nil:
    /// the orientation in force stays.
    public init?(accelerometer: String) {
        switch accelerometer {
        case "normal": self = .normal
        case "left-up": self = .rot90
        case "bottom-up": self = .rot180
        case "right-up": self = .rot270
        default: return nil
        }
    }

    /// The counter-clockwise quarter turns, 0 to 3.
    public var quarterTurns: Int { rawValue & 3 }
    public var isFlipped: Bool { rawValue >= 4 }

    /// The picture's size for a panel of `width` × `height` (mm).
    public func size(width: Double, height: Double) -> (width: Double, height: Double) {
        quarterTurns & 1 == 0 ? (width, height) : (height, width)
    }

    /// A position on a panel of `width` × `height` (mm, from its top-left
    /// corner) as a position in the picture (mm, from the picture's top-left).
    public func apply(x: Double, y: Double, width: Double, height: Double) -> (x: Double, y: Double) {
        var p: (x: Double, y: Double)
        switch quarterTurns {
        case 1: p = (height - y, x)
        case 2: p = (width - x, height - y)
        case 3: p = (y, width - x)
        default: p = (x, y)
        }
        if isFlipped { p.x = size(width: width, height: height).width - p.x }
        return p
    }
}
