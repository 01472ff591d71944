/// The slots an engine holds, freed when the engine goes: the engine holds its lease, so the lease's
/// `deinit` runs as the engine's does, and the slot joins the free queue in the order engines really
/// went (see ``EngineSlots``).
final class SlotLease: Sendable {
    /// Each table the engine took a slot in (one, but for tests with tables of their own), and the slot.
    private let held = Locked<[(table: Locked<EngineSlots>, slot: Int)]>([])

    /// The slot `engine` (the lease's owner) holds in `table`, taking one the first time; `nil` when
    /// every slot is held by a live engine.
    func slot(of engine: StubEngine, in table: Locked<EngineSlots>) -> Int? {
        // Under the lease's lock, so that two installs of one engine at once record its slot once.
        held.withLock { held in
            guard let taken = table.withLock({ $0.slot(for: engine) }) else { return nil }
            if taken.isNew { held.append((table, taken.slot)) }
            return taken.slot
        }
    }

    deinit {
        // By now the table's weak references to the engine are nil: its sessions are refused as
        // released until the slot is taken again.
        for (table, slot) in held.withLock({ $0 }) {
            table.withLock { $0.release(slot) }
        }
    }
}
