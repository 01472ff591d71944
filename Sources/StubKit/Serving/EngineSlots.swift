/// Which engine answers the sessions of each slot class of ``StubURLProtocol``.
///
/// The URL loading system creates protocol instances itself and tells them nothing about the session
/// they serve, so a configuration names its engine through the class it holds: each engine installed
/// into a configuration takes one of a fixed pool of slot classes (classes cannot be made at run time
/// on Linux, and request headers added by the configuration do not reach `canInit` on Apple
/// platforms).
///
/// An engine takes a slot on its first install and holds it until it is deinitialized; its
/// ``SlotLease`` then puts the slot at the back of the free queue. A new engine takes the slot at the
/// front, so a released slot is reused only after every never-used slot and every slot released
/// before it have been taken. Until then a session that outlived its engine fails its requests saying
/// so; after that, it is answered by the slot's new engine, as nothing tells the two sessions apart.
package struct EngineSlots {
    /// How many slot classes there are (`Tools/scripts/generate-slot-classes` writes them).
    static let classCount = 256

    private struct Held {
        weak var engine: StubEngine?
    }

    /// The class of each slot, in slot order.
    private let classes: [StubURLProtocol.Type]
    private var held: [Held]
    /// Free slots, the next to take first: never-used ones in slot order, then released ones in the
    /// order their engines went.
    private var free: [Int]

    /// A table over `classes`, each of which routes to its slot of this table.
    init(classes: [StubURLProtocol.Type]) {
        self.classes = classes
        held = [Held](repeating: Held(), count: classes.count)
        free = Array(classes.indices)
    }

    /// How many engines can have sessions of their own at once.
    var capacity: Int { classes.count }

    /// The engine in `slot`, or `nil` when it has been released (or the slot never taken).
    func engine(in slot: Int) -> StubEngine? {
        held[slot].engine
    }

    /// The class of `slot`.
    func protocolClass(of slot: Int) -> StubURLProtocol.Type {
        classes[slot]
    }

    /// The slot `engine` holds, taking the next free one the first time (then `isNew`); `nil` when
    /// every slot is held by a live engine.
    mutating func slot(for engine: StubEngine) -> (slot: Int, isNew: Bool)? {
        if let slot = held.firstIndex(where: { $0.engine === engine }) { return (slot, false) }
        guard !free.isEmpty else { return nil }
        let slot = free.removeFirst()
        held[slot] = Held(engine: engine)
        return (slot, true)
    }

    /// Frees `slot`, whose engine has gone: it is taken again after every slot free before it.
    mutating func release(_ slot: Int) {
        held[slot] = Held()
        free.append(slot)
    }
}
