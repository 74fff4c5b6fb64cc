/// Where a panel's physical size came from, in the order gestured tries them.
public enum SizeSource: String, Sendable, Hashable {
    /// `--size` on the command line.
    case commandLine = "command line"
    /// A `[[device]]` section of the configuration.
    case configuration
    /// The device's own axis resolution (units per mm).
    case resolution
    /// The connected display's physical size (EDID).
    case display
    /// Nothing better was known: a 12.5-inch diagonal with the axes' aspect ratio.
    case fallback
}

/// How to turn a device's raw axis values into millimetres in screen orientation.
public struct PanelGeometry: Sendable, Hashable {
    /// The raw axis ranges (inclusive) of the device.
    public var minX: Int32, maxX: Int32, minY: Int32, maxY: Int32
    /// Physical size of the device's axes (before rotation), mm.
    public var width: Double, height: Double
    public var source: SizeSource
    /// Clockwise rotation of the panel in degrees: 0, 90, 180 or 270.
    public var rotation: Int = 0
    /// Mirror the device's x axis and/or y axis before rotating.
    public var flipX = false
    public var flipY = false

    public init(minX: Int32, maxX: Int32, minY: Int32, maxY: Int32, width: Double, height: Double, source: SizeSource) {
        self.minX = minX
        self.maxX = maxX
        self.minY = minY
        self.maxY = maxY
        self.width = width
        self.height = height
        self.source = source
    }

    /// The sides a panel can have, mm: a size outside them (a typo, a
    /// resolution of 1 unit per mm on a 32-bit axis) is not taken, so that
    /// no measure built on it can overflow or run away.
    public static let physical: ClosedRange<Double> = 1...10_000

    /// The diagonal of the fallback panel size, mm (12.5 inches, a common
    /// touchscreen laptop and tablet size).
    public static let fallbackDiagonal = 317.5

    /// Size from the axis resolutions (units/mm), if both are known and
    /// give a `physical` panel.
    public static func fromResolution(
        minX: Int32, maxX: Int32, resX: Int32, minY: Int32, maxY: Int32, resY: Int32
    ) -> PanelGeometry? {
        guard resX > 0, resY > 0 else { return nil }
        let width = Double(Int64(maxX) - Int64(minX)) / Double(resX)
        let height = Double(Int64(maxY) - Int64(minY)) / Double(resY)
        guard physical.contains(width), physical.contains(height) else { return nil }
        return PanelGeometry(minX: minX, maxX: maxX, minY: minY, maxY: maxY, width: width, height: height, source: .resolution)
    }

    /// The documented fallback: a 12.5-inch diagonal with the axes' aspect ratio.
    public static func fallback(minX: Int32, maxX: Int32, minY: Int32, maxY: Int32) -> PanelGeometry {
        let w = Double(max(1, Int64(maxX) - Int64(minX)))
        let h = Double(max(1, Int64(maxY) - Int64(minY)))
        let d = (w * w + h * h).squareRoot()
        return PanelGeometry(
            minX: minX, maxX: maxX, minY: minY, maxY: maxY,
            width: fallbackDiagonal * w / d, height: fallbackDiagonal * h / d, source: .fallback)
    }

    /// The panel's size in screen orientation, mm.
    public var screenWidth: Double { rotation % 180 == 0 ? width : height }
    public var screenHeight: Double { rotation % 180 == 0 ? height : width }

    /// Maps a raw position to mm from the screen's top-left corner. An
    /// axis of `minX...maxX` has `maxX - minX + 1` values, each the same
    /// share of the side: libinput scales so (`absinfo_range`, for
    /// `libinput_event_touch_get_x_transformed`), and so a touchscreen read
    /// through libinput and the same events replayed or claimed give the
    /// same millimetres.
    @inline(__always)
    public func millimetres(rawX: Int32, rawY: Int32) -> (x: Double, y: Double) {
        let spanX = Double(max(1, Int64(maxX) - Int64(minX) + 1))
        let spanY = Double(max(1, Int64(maxY) - Int64(minY) + 1))
        var u = Double(Int64(rawX) - Int64(minX)) / spanX
        var v = Double(Int64(rawY) - Int64(minY)) / spanY
        if flipX { u = 1 - u }
        if flipY { v = 1 - v }
        switch rotation {
        case 90: return ((1 - v) * height, u * width)
        case 180: return ((1 - u) * width, (1 - v) * height)
        case 270: return (v * height, (1 - u) * width)
        default: return (u * width, v * height)
        }
    }
}
