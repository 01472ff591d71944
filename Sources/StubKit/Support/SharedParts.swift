/// The parts of a value type kept in one shared, unchanging box: copying the value is one reference
/// count, and changing it puts the changed parts in a new box, so copies never see the change.
///
/// For values copied often on the serving path (`StubRule`, `StubRequest`): copying their strings,
/// arrays and dictionaries field by field would cost about 10k and 2.5k instructions per stubbed request
/// (callgrind, docs/benchmarks.md). Read the parts through `_read` accessors, so reading one borrows it.
struct SharedParts<Parts: Sendable>: Sendable {
    private final class Box: Sendable {
        let parts: Parts

        init(_ parts: Parts) {
            self.parts = parts
        }
    }

    private var storageBox: Box

    init(_ parts: Parts) {
        storageBox = Box(parts)
    }

    var parts: Parts {
        _read { yield storageBox.parts }
    }

    /// The box itself, for tests that check what keeps a value's parts alive.
    var box: AnyObject { storageBox }

    /// Changes the parts: they are copied once and put in a new box.
    mutating func change(_ body: (inout Parts) -> Void) {
        var parts = storageBox.parts
        body(&parts)
        storageBox = Box(parts)
    }
}
