/// The keys of one dictionary seen so far, for the duplicate-key check.
///
/// Rules files hold dictionaries of a handful of keys, where a scan beats hashing; a hostile or
/// generated file can hold 100,000 keys in one dictionary, where a scan per key is quadratic. So it
/// scans while small and switches to a hash set past ``scanLimit`` keys: linear either way.
struct SeenKeys: ExpressibleByArrayLiteral {
    static let scanLimit = 16
    private var few: [String] = []
    private var many: Set<String>? = nil

    /// Room for `capacity` keys: a dictionary known to be large starts with a hash set of that size, so
    /// it never grows (and rehashes) on the way.
    init(capacity: Int) {
        if capacity > Self.scanLimit { many = Set(minimumCapacity: capacity) } else { few.reserveCapacity(capacity) }
    }

    init(arrayLiteral elements: String...) {
        for element in elements { _ = insert(element) }
    }

    /// Adds `key`; false when it was already there.
    mutating func insert(_ key: String) -> Bool {
        if many != nil { return many!.insert(key).inserted }
        if few.contains(key) { return false }
        few.append(key)
        if few.count > Self.scanLimit {
            many = Set(few)
            few = []
        }
        return true
    }
}
