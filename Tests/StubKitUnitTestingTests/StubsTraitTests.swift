#if canImport(Testing)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import StubKit
import StubKitTestSupport
import StubKitUnitTesting
import Testing

/// Lets the cases of a parameterized test wait for each other, so their engines are alive and their
/// requests in flight at the same time; after `limit` it lets them go anyway, so a run that is not
/// parallel fails the test's check instead of hanging.
actor Gate {
    private let needed: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    /// Whether the gate opened because everyone arrived, not because the time ran out.
    private(set) var everyoneArrived = false

    init(needed: Int) { self.needed = needed }

    func arrive() {
        arrived += 1
        if arrived >= needed {
            everyoneArrived = true
            open()
        }
    }

    func open() {
        for continuation in waiting { continuation.resume() }
        waiting = []
        arrived = max(arrived, needed)
    }

    func wait() async {
        guard arrived < needed else { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Arrives, and waits until everyone has, or `limit` seconds have passed; whether everyone arrived.
    nonisolated func arriveAndWait(limit seconds: Double) async -> Bool {
        await arrive()
        // The limit is a deadline on the event, not a wait for it: the gate opens at the last arrival.
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { Task { await self.open() } }
        await wait()
        return await everyoneArrived
    }
}

/// The `.stubs(…)` trait: each test (and each case of a parameterized one) gets its own engine.
/// No `.serialized`: these run beside each other and beside every other suite.
struct StubsTraitTests {
    static let gate = Gate(needed: 10)

    @Test("10 parallel cases, each with its own stubs: every answer is its own, every journal holds its own requests only",
          .stubs("unit_echo", killSwitch: true, bundle: .module), arguments: 0..<10)
    func parallelCasesHaveTheirOwnEngines(_ n: Int) async throws {
        let stubs = try #require(TestStubs.current)
        // Swift Testing runs the cases of a parameterized test in parallel (unless `--no-parallel`): all
        // ten are under way, each with its engine alive, before any sends a request.
        let overlapped = await Self.gate.arriveAndWait(limit: 10)
        #expect(overlapped, "case \(n) waited 10 s for the other cases: they did not run at the same time")
        let results = await withTaskGroup(of: (Int, TaskResult).self) { group in
            for i in 0..<20 { group.addTask { (i, await stubs.session.result("GET", "https://unit.test/echo/\(n)-\(i)")) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        for (i, result) in results { #expect(result.text == "echo \(n)-\(i)") }
        let paths = stubs.journal.entries.map(\.request.url.path)
        #expect(paths.count == 20, "case \(n) journalled \(paths.count) requests: \(paths)")
        #expect(paths.allSatisfy { $0.hasPrefix("/echo/\(n)-") }, "case \(n)'s journal holds another case's request: \(paths)")
    }

    @Test("a test without the trait has no stubs")
    func noTraitNoStubs() {
        #expect(TestStubs.current == nil)
    }

    @Test("a miss under the kill switch records an issue naming the request and the closest rule")
    func killSwitchMissIsAnIssue() async throws {
        let trait = StubsTrait.stubs("unit_echo", killSwitch: true, bundle: .module)
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                let result = await TestStubs.current?.session.result("GET", "https://unit.test/order")
                #expect(result?.status == nil, "the kill switch refuses it")
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("GET https://unit.test/order") && $0.rawValue.contains("/orders") }
        }
    }

    @Test("reportsMisses: false: a test that expects a miss checks it in the body, and nothing is recorded after the body",
          .stubs("unit_echo", killSwitch: true, bundle: .module, reportsMisses: false))
    func expectedMissIsNotReported() async throws {
        let stubs = try #require(TestStubs.current)
        let result = await stubs.session.result("GET", "https://unit.test/order")
        #expect(result.status == nil, "the kill switch refuses it")
        #expect(stubs.misses.count == 1)
        #expect(stubs.misses.first?.contains("GET https://unit.test/order") == true, "\(stubs.misses)")
    }

    @Test("more stubbed tests at once than slots: the next one's stubs fail to start naming the limit [SK061], the body does not run; a slot comes back when a test's stubs go")
    func tooManyEnginesFailTheTest() async throws {
        let table = SmallPoolSlot0.table
        var first: TestStubs? = try TestStubs(templates: ["unit_echo"], resources: Bundle.module.resourceURL, slots: table)
        let second = try TestStubs(templates: ["unit_echo"], resources: Bundle.module.resourceURL, slots: table)
        #expect(await first?.session.result("GET", "https://unit.test/echo/1").text == "echo 1")
        #expect(await second.session.result("GET", "https://unit.test/echo/2").text == "echo 2")

        #expect {
            try TestStubs(templates: ["unit_echo"], resources: Bundle.module.resourceURL, slots: table)
        } throws: { error in
            let text = "\(error)"
            return text.contains("2 StubEngines that have sessions of their own are alive") && text.contains("[SK061]")
        }
        var trait = StubsTrait.stubs("unit_echo", bundle: .module)
        trait.slots = table
        let test = try #require(Test.current)
        let ran = Locked(false)
        try await withKnownIssue {
            try await trait.provideScope(for: test, testCase: Test.Case.current) { ran.withLock { $0 = true } }
        } matching: { issue in
            String(describing: issue).contains("[SK061]")
        }
        #expect(!ran.withLock { $0 })

        first = nil
        let third = try TestStubs(templates: ["unit_echo"], resources: Bundle.module.resourceURL, slots: table)
        #expect(await third.session.result("GET", "https://unit.test/echo/3").text == "echo 3")
        withExtendedLifetime((first, second, third)) {}
    }

    @Test("an unknown template fails the test with StubKit's error and its did-you-mean; the body does not run")
    func unknownTemplateFailsTheTest() async throws {
        let trait = StubsTrait.stubs("unit_ecko", bundle: .module)
        let test = try #require(Test.current)
        let ran = Locked(false)
        try await withKnownIssue {
            try await trait.provideScope(for: test, testCase: Test.Case.current) { ran.withLock { $0 = true } }
        } matching: { issue in
            String(describing: issue).contains("did you mean 'unit_echo'")
        }
        #expect(!ran.withLock { $0 })
    }

    @Test("the options reach the engine: now, seed, kill switch, lenient mode",
          .stubs("unit_echo", now: Date(timeIntervalSince1970: 1_000), seed: 7, lenient: true, bundle: .module))
    func optionsReachTheEngine() throws {
        let engine = try #require(TestStubs.current?.engine)
        #expect(engine.fixedNow == Date(timeIntervalSince1970: 1_000))
        #expect(engine.seed == 7)
        #expect(engine.mode == .lenient)
        #expect(TestStubs.current?.folders.map(\.lastPathComponent) == ["unit_echo"])
    }
}

/// On a suite the trait is recursive: each test gets a fresh engine (serialized here only so the
/// second test would see the first one's request if the engine were shared).
@Suite(.stubs("unit_echo", bundle: .module), .serialized)
struct SuiteStubsTraitTests {
    @Test("first test: its journal holds its own request only")
    func first() async throws {
        let stubs = try #require(TestStubs.current)
        #expect(await stubs.session.result("GET", "https://unit.test/orders").text == "orders")
        #expect(stubs.journal.entries.count == 1)
    }

    @Test("second test: a new engine, not the first test's")
    func second() async throws {
        let stubs = try #require(TestStubs.current)
        #expect(await stubs.session.result("GET", "https://unit.test/echo/2").text == "echo 2")
        #expect(stubs.journal.entries.count == 1)
    }
}

/// The classes of a pool of two slots, of these tests' own: they route to it, so no other test's engine
/// takes their slots and the pool fills up when this test wants it to.
final class SmallPoolSlot0: StubURLProtocol {
    static let table = Locked(EngineSlots(classes: [SmallPoolSlot0.self, SmallPoolSlot1.self]))
    override class var route: Route { .slot(0) }
    override class var slotTable: Locked<EngineSlots> { table }
}

final class SmallPoolSlot1: StubURLProtocol {
    override class var route: Route { .slot(1) }
    override class var slotTable: Locked<EngineSlots> { SmallPoolSlot0.table }
}
#endif
