/// SplitMix64 seeded from the engine seed, the rule and the hit: the same bundles, seed and request
/// order per rule give the same values, whatever the thread timing between rules.
struct SeededRandom {
    private var generator: SeededRandomNumberGenerator

    init(seed: UInt64, salt: String, hit: Int) {
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in salt.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100000001b3
        }
        generator = SeededRandomNumberGenerator(seed: seed ^ hash ^ (UInt64(bitPattern: Int64(hit)) &* 0x9E3779B97F4A7C15))
    }

    mutating func next() -> UInt64 {
        generator.next()
    }

    /// A value in 0...1.
    mutating func nextUnit() -> Double {
        Double(next() >> 11) / Double(UInt64(1) << 53)
    }
}
