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
        guard case .engine(let engine) = StubURLProtocol.answerer(for: installed.route) else {
            Issue.record("the installed class names no engine")
            return
        }
        #expect(engine === second)
        // Installing the same engine again keeps its class.
        second.install(into: configuration)
        #expect(configuration.protocolClasses?.first.map(ObjectIdentifier.init) == ObjectIdentifier(installed))
    }

    @Test("a session whose engine was released fails its requests with an error saying so, never the network")
    func releasedEngineFailsClearly() async throws {
        let folder = try TemporaryFolder()
        weak var released: StubEngine?
        let session: URLSession = try {
            let engine = try Self.engine(named: "gone", in: folder)
            released = engine
            return URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        }()
        #expect(released == nil)
        // A loopback port nothing listens on: had the request reached the network it would fail otherwise.
        let result = await session.result("GET", "http://127.0.0.1:9/who")
        #expect(result.error?.code == .cannotLoadFromNetwork)
        #expect(result.error?.localizedDescription.contains("has been released") == true, "\(String(describing: result.error))")
    }

    @Test("more engines with sessions of their own than slots: the extra engine's sessions fail naming the limit; the others keep their slots")
    func moreEnginesThanSlots() async throws {
        #expect(StubURLProtocol.slotClasses.count == EngineSlots.capacity)
        #expect(Set(StubURLProtocol.slotClasses.map(ObjectIdentifier.init)).count == EngineSlots.capacity)
        // A table of its own, so the slots of tests running beside this one are not taken.
        let slots = Locked(EngineSlots())
        let folder = try TemporaryFolder()
        let held = try (0..<EngineSlots.capacity).map { try Self.engine(named: "held\($0)", in: folder) }
        let classes = held.map { StubURLProtocol.protocolClass(for: $0, in: slots) }
        #expect(classes.map { $0.route } == (0..<EngineSlots.capacity).map { .slot($0) })
        let extra = StubEngine()
        let overflow = StubURLProtocol.protocolClass(for: extra, in: slots)
        #expect(overflow == StubURLProtocolOverflow.self)
        #expect(StubURLProtocol.protocolClass(for: held[5], in: slots) == classes[5], "an engine keeps its slot")

        let configuration = URLSessionConfiguration.ephemeral
        StubURLProtocol.put(overflow, firstIn: configuration)
        let result = await URLSession(configuration: configuration).result("GET", "http://127.0.0.1:9/who")
        #expect(result.error?.code == .cannotLoadFromNetwork)
        #expect(result.error?.localizedDescription.contains("\(EngineSlots.capacity) other StubEngines") == true, "\(String(describing: result.error))")
    }

    @Test("a released slot is reused last: first freed, first reused, after the never-used ones")
    func releasedSlotsAreReusedLast() throws {
        var slots = EngineSlots()
        var engines: [StubEngine?] = (0..<3).map { _ in StubEngine() }
        #expect(engines.compactMap { $0.flatMap { slots.slot(for: $0) } } == [0, 1, 2])
        engines[1] = nil
        engines[0] = nil
        let next = StubEngine()
        #expect(slots.slot(for: next) == 3, "never-used slots come before released ones")
        let rest = (4..<EngineSlots.capacity).map { _ in StubEngine() }
        #expect(rest.compactMap { slots.slot(for: $0) } == Array(4..<EngineSlots.capacity))
        let late = StubEngine()
        #expect(slots.slot(for: late) == 0, "the released slots, in slot order as found")
        withExtendedLifetime((engines, next, rest)) {}
    }
}
