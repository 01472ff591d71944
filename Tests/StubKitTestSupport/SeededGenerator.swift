/// A random number generator with a fixed seed (SplitMix64), so random test inputs repeat exactly.
///
/// Tests print the seed in their failure messages; setting `STUBKIT_SEED` reruns with another one.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    public let seed: UInt64
    private var state: UInt64

    public init(seed: UInt64) {
        self.seed = seed
        self.state = seed
    }

    /// The seed from `STUBKIT_SEED` if set, else `fallback`.
    public static func fromEnvironment(default fallback: UInt64) -> SeededGenerator {
        let text = ProcessInfoEnvironment.value("STUBKIT_SEED")
        return SeededGenerator(seed: text.flatMap { UInt64($0) } ?? fallback)
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound`.
    public mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}

import Foundation

enum ProcessInfoEnvironment {
    static func value(_ name: String) -> String? { ProcessInfo.processInfo.environment[name] }
}
