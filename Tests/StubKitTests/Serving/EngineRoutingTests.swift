import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

/// Each engine answers the sessions it was installed into, whatever other engines exist. Not in
/// `URLProtocolSuites`: these tests touch no process-wide state, so they run beside everything else,
/// as users' parallel tests do.
@Suite struct EngineRoutingTests {
    /// An engine whose one rule answers `GET https://api.test/who` with its own name.
    static func engine(named name: String, in folder: TemporaryFolder, killSwitch: Bool = false) throws -> StubEngine {
        let rules = #"{ "host": "api.test", "rules": [ { "method": "GET", "path": "/who", "body": "\#(name)" } ] }"#
        let engine = StubEngine(killSwitch: killSwitch)
        try engine.activate(folder: try folder.bundle(name, ["stubsRules.json": rules]))
        return engine
    }

    @Test("8 engines, each with its own session, 800 requests at once: each is answered by its own engine and journalled there only")
    func enginesAnswerTheirOwnSessions() async throws {
        let folder = try TemporaryFolder()
        let names = (0..<8).map { "engine\($0)" }
        let engines = try names.map { try Self.engine(named: $0, in: folder) }
        let sessions = engines.map { URLSession(configuration: .stubbed(by: $0, base: .ephemeral)) }
        let perEngine = 100
        let answers = await withTaskGroup(of: (Int, Int, TaskResult).self) { group in
            for request in 0..<perEngine {
                for (n, session) in sessions.enumerated() {
                    group.addTask { (n, request, await session.result("GET", "https://api.test/who?engine=\(n)&request=\(request)")) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == names.count * perEngine)
        for (n, request, result) in answers {
            #expect(result.text == names[n], "request \(request) of \(names[n])'s session: \(String(describing: result.text ?? result.error?.localizedDescription))")
        }
        for (n, engine) in engines.enumerated() {
            let entries = engine.journal.entries
            #expect(entries.count == perEngine, "\(names[n]) journalled \(entries.count) requests")
            #expect(entries.allSatisfy { $0.request.url.query?.hasPrefix("engine=\(n)&") == true && $0.bundle == names[n] },
                    "\(names[n])'s journal holds another session's request")
        }
    }

    @Test("a stubbed session is answered by its engine, not by the engine stubbed last, and the kill switch is its engine's")
    func sessionEngineIsNotTheProcessWideOne() async throws {
        let folder = try TemporaryFolder()
        let mine = try Self.engine(named: "mine", in: folder, killSwitch: true)
        let other = try Self.engine(named: "other", in: folder)
        let session = URLSession(configuration: .stubbed(by: mine, base: .ephemeral))
        _ = URLSessionConfiguration.stubbed(by: other)
        #expect(await session.result("GET", "https://api.test/who").text == "mine")
        let refused = await session.result("GET", "https://api.test/elsewhere")
        #expect(refused.status != 200 && refused.text != "other", "the kill switch of the session's engine refuses what no rule answers")
        #expect(mine.journal.entries.count == 2)
        #expect(other.journal.entries.isEmpty)
    }

    @Test("install(into:) puts the engine's own class first and takes every other StubKit class out (a copy of a covered configuration)")
    func installReplacesOtherStubKitClasses() throws {
        let folder = try TemporaryFolder()
        let first = try Self.engine(named: "first", in: folder)
        let second = try Self.engine(named: "second", in: folder)
        let configuration = URLSessionConfiguration.ephemeral
        // What `.default` and `.ephemeral` carry on Apple platforms while an engine is registered.
        StubURLProtocol.prepend(to: configuration)
        first.install(into: configuration)
        second.install(into: configuration)
        let stubKitClasses = (configuration.protocolClasses ?? []).filter { $0 is StubURLProtocol.Type }
        #expect(stubKitClasses.count == 1)
        let installed = try #require(configuration.protocolClasses?.first as? StubURLProtocol.Type)
        #expect(installed != StubURLProtocol.self)
        guard case .engine(let engine) = StubURLProtocol.answerer(for: installed) else {
            Issue.record("the installed class names no engine")
            return
        }
        #expect(engine === second)
        // Installing the same engine again keeps its class.
        second.install(into: configuration)
        #expect(configuration.protocolClasses?.first.map(ObjectIdentifier.init) == ObjectIdentifier(installed))
    }

    @Test("a session that outlived its engine fails saying so, until a later engine takes the slot: after every never-used slot and every slot released before")
    func releasedEngineFailsUntilItsSlotIsTaken() async throws {
        // A table of its own (with classes that route to it), so no engine of another test takes its slots.
        let table = OwnTableSlot0.table
        let folder = try TemporaryFolder()
        weak var released: StubEngine?
        let session: URLSession = try {
            let engine = try Self.engine(named: "gone", in: folder)
            released = engine
            #expect(StubURLProtocol.protocolClass(for: engine, in: table) == OwnTableSlot0.self)
            return URLSession(configuration: .stubbed(answeredBy: OwnTableSlot0.self, base: .ephemeral))
        }()
        #expect(released == nil)
        // A loopback port nothing listens on: had the request reached the network it would fail otherwise.
        func expectReleased(_ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) async {
            let result = await session.result("GET", "http://127.0.0.1:9/who")
            #expect(result.error?.code == .cannotLoadFromNetwork, comment, sourceLocation: sourceLocation)
            #expect(result.error?.localizedDescription.contains("has been released") == true,
                    "\(comment): \(String(describing: result.error))", sourceLocation: sourceLocation)
        }
        await expectReleased("right after the engine went")
        let next = try Self.engine(named: "next", in: folder)
        #expect(StubURLProtocol.protocolClass(for: next, in: table) == OwnTableSlot1.self, "the never-used slot first")
        await expectReleased("while a never-used slot was left")
        // Documented, not wanted: once a later engine takes the slot, nothing tells the old session apart.
        let later = try Self.engine(named: "later", in: folder)
        #expect(StubURLProtocol.protocolClass(for: later, in: table) == OwnTableSlot0.self)
        #expect(await session.result("GET", "https://api.test/who").text == "later")
        withExtendedLifetime((next, later)) {}
    }

    @Test("more engines with sessions of their own than slots: the extra engine's sessions fail naming the limit; the others keep their slots")
    func moreEnginesThanSlots() async throws {
        #expect(StubURLProtocol.slotClasses.count == EngineSlots.classCount)
        #expect(Set(StubURLProtocol.slotClasses.map(ObjectIdentifier.init)).count == EngineSlots.classCount)
        #expect(StubURLProtocol.slotClasses.enumerated().allSatisfy { $1.route == .slot($0) })
        // A table of its own, so the slots of tests running beside this one are not taken.
        let slots = Locked(EngineSlots(classes: StubURLProtocol.slotClasses))
        let folder = try TemporaryFolder()
        let held = try (0..<EngineSlots.classCount).map { try Self.engine(named: "held\($0)", in: folder) }
        let classes = held.map { StubURLProtocol.protocolClass(for: $0, in: slots) }
        #expect(classes.map { $0.route } == (0..<EngineSlots.classCount).map { .slot($0) })
        let extra = StubEngine()
        let overflow = StubURLProtocol.protocolClass(for: extra, in: slots)
        #expect(overflow == StubURLProtocolOverflow.self)
        #expect(StubURLProtocol.protocolClass(for: held[5], in: slots) == classes[5], "an engine keeps its slot")

        let configuration = URLSessionConfiguration.ephemeral
        StubURLProtocol.put(overflow, firstIn: configuration)
        let result = await URLSession(configuration: configuration).result("GET", "http://127.0.0.1:9/who")
        #expect(result.error?.code == .cannotLoadFromNetwork)
        #expect(result.error?.localizedDescription.contains("\(EngineSlots.classCount) other StubEngines") == true, "\(String(describing: result.error))")
    }

    @Test("slots are taken never-used first, then in the order their engines were released, freed as each engine goes")
    func releasedSlotsAreReusedInReleaseOrder() throws {
        let table = Locked(EngineSlots(classes: Array(StubURLProtocol.slotClasses.prefix(5))))
        func slot(_ engine: StubEngine) -> Int? {
            StubURLProtocol.slotClasses.firstIndex { $0 == StubURLProtocol.protocolClass(for: engine, in: table) }
        }
        var engines: [StubEngine?] = (0..<3).map { _ in StubEngine() }
        #expect(engines.map { $0.flatMap(slot) } == [0, 1, 2])
        // Released 2, then 0, then 1: reused in that order, after the never-used 3 and 4.
        engines[2] = nil
        engines[0] = nil
        engines[1] = nil
        let later = (0..<5).map { _ in StubEngine() }
        #expect(later.map(slot) == [3, 4, 2, 0, 1])
        withExtendedLifetime(later) {}
    }
}

/// The classes of a table of the tests' own: they route to it, so no other test's engine takes their slots.
final class OwnTableSlot0: StubURLProtocol {
    static let table = Locked(EngineSlots(classes: [OwnTableSlot0.self, OwnTableSlot1.self]))
    override class var route: Route { .slot(0) }
    override class var slotTable: Locked<EngineSlots> { table }
}

final class OwnTableSlot1: StubURLProtocol {
    override class var route: Route { .slot(1) }
    override class var slotTable: Locked<EngineSlots> { OwnTableSlot0.table }
}
