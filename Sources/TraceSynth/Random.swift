import Foundation

/// SplitMix64: a small, fast, seedable generator, so every synthetic trace
/// can be made again byte for byte from its seed.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in a..<b.
    public mutating func uniform(_ a: Double, _ b: Double) -> Double { Double.random(in: a..<b, using: &self) }

    /// Normal with mean 0 and standard deviation `sigma` (Box–Muller).
    public mutating func gaussian(_ sigma: Double) -> Double {
        let u1 = max(uniform(0, 1), 1e-12)
        let u2 = uniform(0, 1)
        return sigma * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
