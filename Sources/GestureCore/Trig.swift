#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few libm functions the geometry needs, behind one name so the rest of
/// GestureCore imports neither Foundation nor the platform's C module.
enum Trig {
    @inline(__always) static func sin(_ x: Double) -> Double { libmSin(x) }
    @inline(__always) static func cos(_ x: Double) -> Double { libmCos(x) }
    @inline(__always) static func atan2(_ y: Double, _ x: Double) -> Double { libmAtan2(y, x) }
    @inline(__always) static func hypot(_ x: Double, _ y: Double) -> Double { (x * x + y * y).squareRoot() }
    @inline(__always) static func log(_ x: Double) -> Double { libmLog(x) }
}

@inline(__always) private func libmSin(_ x: Double) -> Double { sin(x) }
@inline(__always) private func libmCos(_ x: Double) -> Double { cos(x) }
@inline(__always) private func libmAtan2(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
@inline(__always) private func libmLog(_ x: Double) -> Double { log(x) }
