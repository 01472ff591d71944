/// Which engine answers the sessions of each slot class of ``StubURLProtocol``.
///
/// The URL loading system creates protocol instances itself and tells them nothing about the session
/// they serve, so a configuration names its engine through the class it holds: each engine installed
/// into a configuration takes one of a fixed pool of slot classes (classes cannot be made at run time
/// on Linux, and request headers added by the configuration do not reach `canInit` on Apple
/// platforms). The table holds engines weakly: a released engine's slot is free again, found on the
/// next take. Free slots are reused first-freed-first, so a slot goes to a new engine as late as
/// possible: until then a session that outlived its engine is refused with the reason, never answered
/// by another engine.
struct EngineSlots {
    /// How many engines can have sessions of their own at once.
    static let capacity = 64

    private struct Slot {
        weak var engine: StubEngine?
        var taken = false
    }

    private var slots = [Slot](repeating: Slot(), count: capacity)
    /// Free slots, the next to take first.
    private var free = Array(0..<capacity)

    /// The engine in `slot`, or `nil` when it has been released (or never taken).
    func engine(in slot: Int) -> StubEngine? {
        slots[slot].engine
    }

    /// The slot `engine` holds, taking a free one the first time; `nil` when every slot is held by a live engine.
    mutating func slot(for engine: StubEngine) -> Int? {
        if let held = slots.firstIndex(where: { $0.taken && $0.engine === engine }) { return held }
        for index in slots.indices where slots[index].taken && slots[index].engine == nil {
            slots[index].taken = false
            free.append(index)
        }
        guard !free.isEmpty else { return nil }
        let index = free.removeFirst()
        slots[index] = Slot(engine: engine, taken: true)
        return index
    }
}
