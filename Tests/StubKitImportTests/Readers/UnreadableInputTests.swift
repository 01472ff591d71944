#if Tools
import Foundation
import StubKitImport
import StubKitTestSupport
import Testing

/// Input that cannot be imported at all gives one error naming the file and where in it.
@Suite("unreadable input")
struct UnreadableInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var fileName: String
        var content: String
        /// What the error says after the file's path.
        var expected: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "HAR with a syntax error: line and column", fileName: "a.har", content: "{\n  \"log\": {\n    \"entries\": [}\n",
             expected: ":3:17: error: not valid JSON"),
        Case(name: "HAR of the wrong shape: the key path", fileName: "b.har", content: #"{"log": {"entries": {"a": 1}}}"#,
             expected: ":log.entries: error: expected a list here"),
        Case(name: "YAML cassette with a syntax error: line and column", fileName: "c.yaml", content: "interactions:\n- request: {method: GET\n  response: [\n",
             expected: ":3:11: error: not valid YAML"),
        Case(name: "Mocktail with a bad status line: the line", fileName: "d.tail", content: "GET\n.*/x\nabc\ntext/plain\n\nbody",
             expected: ":3: error: the status line 'abc' is not a status code 100...599"),
        Case(name: "Mocktail declaring base64 with a body that is not", fileName: "e.tail", content: "GET\n.*/x\n200\nimage/png;base64\n\n%%%",
             expected: ": error: the content type says ';base64' but the body is not base64"),
        Case(name: "an unknown format", fileName: "f.json", content: #"{"hello": "world"}"#,
             expected: ": error: not a format stubkit imports"),
        Case(name: "a YAML alias bomb (a million nodes from 300 bytes) is refused, not expanded", fileName: "g.yaml", content: aliasBomb,
             expected: ": error: the YAML document's aliases (*name) expand it to more than"),
    ]

    /// Six levels make 10^6 scalars, in a cassette that would otherwise import (no interactions).
    static let aliasBomb = YAMLAliasBomb.text(levels: 6, key: "a", after: "interactions: []\n")

    @Test("the error names the file and the place", arguments: cases)
    func names(_ testCase: Case) throws {
        let folder = try TemporaryFolder()
        let file = try folder.file(testCase.fileName, data: Data(testCase.content.utf8))
        let (batches, errors) = BundleImporter().read([file])
        #expect(batches.isEmpty)
        let error = try #require(errors.first)
        #expect(error.description.hasPrefix(file.path + testCase.expected), "\(error.description)")
    }
}
#endif
