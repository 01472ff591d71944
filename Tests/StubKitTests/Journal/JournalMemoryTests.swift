import Foundation
import Testing
@testable import StubKit

/// What the journal keeps of a request is what its limits count: the body, not the JSON tree matching
/// decoded from it (a 1 MB JSON body's tree is many times its size).
struct JournalMemoryTests {
    @Test("a journalled request does not keep the body that matching decoded")
    func decodedBodyDropped() throws {
        var request = StubRequest(method: "POST", url: URL(string: "https://h/graphql")!,
                                  body: Data(#"{"operationName": "Menu", "variables": {"id": 1}}"#.utf8))
        #expect(request.bodyJSON != nil)
        #expect(request.holdsDecodedBody, "matching decoded the body")
        let journal = StubJournal()
        journal.record { id in
            JournalEntry(id: id, startedAt: Date(), duration: 0, request: request, bundle: nil, rule: nil, status: 200,
                         responseHeaders: [:], responseBody: nil, responseBodySize: 0, error: nil, nearMisses: [])
        }
        let kept = try #require(journal.entries.first)
        #expect(!kept.request.holdsDecodedBody, "the journal's copy should not hold the decoded tree")
        #expect(kept.request.body == request.body)
        // Decoded again on demand, with the same answer.
        #expect(kept.request.bodyJSON == request.bodyJSON)
        request.dropDecodedBody()
        #expect(!request.holdsDecodedBody)
    }

    /// Found by review: a journal entry that kept its whole rule kept a deactivated bundle's response
    /// bodies alive, counted by none of the journal's limits.
    @Test("a journal entry names its rule without keeping the rule (and its 8 MB body) alive")
    func ruleNotKept() throws {
        let journal = StubJournal()
        weak var box: AnyObject?
        do {
            let rule = StubRule(source: RuleSource(file: "f.json", position: SourcePosition(line: 2, column: 3), index: 0, keyPath: "[0]"),
                                request: RequestConditions(methods: ["GET"], path: try PathPattern(parsing: "/a/{id}")),
                                response: StubResponse(body: .inline(Data(count: 8 << 20))))
            box = rule.sharedBox
            journal.record { id in
                JournalEntry(id: id, startedAt: Date(), duration: 0, request: StubRequest(url: URL(string: "https://h/a/1")!),
                             bundle: "b", rule: .init(rule), status: 200, responseHeaders: [:], responseBody: nil,
                             responseBodySize: 0, error: nil, nearMisses: [])
            }
        }
        #expect(box == nil, "the journal keeps the rule, and its body, alive")
        let reference = try #require(journal.entries.first?.rule)
        #expect(reference.name == "GET /a/{id}" && reference.location == "f.json:2:3" && reference.keyPath == "[0]")
    }
}
