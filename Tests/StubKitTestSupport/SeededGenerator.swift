import StubKit

/// A random number generator with a fixed seed (StubKit's SplitMix64), so random test inputs repeat exactly.
///
/// Tests print the seed in their failure messages; setting `STUBKIT_SEED` reruns with another one.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    public let seed: UInt64
    private var generator: SeededRandomNumberGenerator

    public init(seed: UInt64) {
        self.seed = seed
        self.generator = SeededRandomNumberGenerator(seed: seed)
    }

    /// The seed from `STUBKIT_SEED` if set, else `fallback`.
    public static func fromEnvironment(default fallback: UInt64) -> SeededGenerator {
        let text = ProcessInfoEnvironment.value("STUBKIT_SEED")
        return SeededGenerator(seed: text.flatMap { UInt64($0) } ?? fallback)
    }

    public mutating func next() -> UInt64 {
        generator.next()
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
