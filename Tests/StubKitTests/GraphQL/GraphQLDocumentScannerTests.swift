import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// The scanner finds what matching needs of a document (each operation's type and name), agrees with
/// graphql-core on the fixture documents, and refuses what is not GraphQL with a location, in time
/// proportional to the document however it is nested.
struct GraphQLDocumentScannerTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var document: String
        var operations: [String]
        var fragments: [String] = []
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a named query", document: "query GetMenu { menu { id } }", operations: ["query GetMenu"]),
        Case(name: "the query shorthand", document: "{ restaurants { id } }", operations: ["query -"]),
        Case(name: "an anonymous mutation", document: "mutation { placeOrder { id } }", operations: ["mutation -"]),
        Case(name: "variables, directives and a default object value with braces",
             document: #"query Q($input: In = {a: {b: 1}}, $list: [Int] = [1, 2]) @cached(ttl: 5) { f(x: {y: "}"}) }"#,
             operations: ["query Q"]),
        Case(name: "several operations and fragments in any order",
             document: "fragment A on T { id }\nmutation M { m }\nsubscription S { s }\nquery Q { ...A }\nfragment B on T { x }",
             operations: ["mutation M", "subscription S", "query Q"], fragments: ["A", "B"]),
        Case(name: "braces, quotes and # inside strings, block strings and comments",
             document: "# query Fake { x }\nquery Real { a(s: \"{ # not a comment }\") b(t: \"\"\"\n } \\\"\"\" query X {\n\"\"\") }",
             operations: ["query Real"]),
        Case(name: "commas are white space; a byte order mark is skipped", document: "\u{FEFF}query,A,{,a,}", operations: ["query A"]),
        Case(name: "a keyword as a field name is not an operation", document: "query Q { query mutation fragment { subscription } }", operations: ["query Q"]),
        Case(name: "no operations", document: "fragment Only on T { id }", operations: [], fragments: ["Only"]),
    ]

    @Test("operations and fragments of a document", arguments: cases)
    func operations(_ c: Case) throws {
        let summary = try GraphQLDocumentScanner.scan(c.document).get()
        #expect(summary.operations.map { "\($0.type.rawValue) \($0.name ?? "-")" } == c.operations)
        #expect(summary.fragments == c.fragments)
    }

    struct BadCase: CustomTestStringConvertible, Sendable {
        var name: String
        var document: String
        var message: String
        var line: Int
        var column: Int
        var testDescription: String { name }
    }

    static let badCases: [BadCase] = [
        BadCase(name: "an unclosed selection set", document: "query Q {\n  a {\n    b\n", message: "'{' is never closed", line: 2, column: 5),
        BadCase(name: "an unmatched bracket", document: "query Q { a(x: 1] }", message: "an unmatched ']'", line: 1, column: 17),
        BadCase(name: "an unclosed string", document: "query Q { a(x: \"oops) }\n", message: "a string that is never closed", line: 1, column: 16),
        BadCase(name: "an unclosed block string", document: "query Q { a(x: \"\"\"oops) }", message: "a block string that is never closed", line: 1, column: 16),
        BadCase(name: "a schema definition", document: "type Query { a: Int }", message: "'type' does not start an operation or a fragment", line: 1, column: 1),
        BadCase(name: "a character GraphQL does not have", document: "query Q { a % b }", message: "an unexpected character '%'", line: 1, column: 13),
        BadCase(name: "an operation without a selection set", document: "query Q", message: "a definition without a selection set", line: 1, column: 6),
        BadCase(name: "a JSON array instead of a document", document: "[{\"query\": 1}]", message: "expected an operation or a fragment", line: 1, column: 1),
    ]

    @Test("what is not a GraphQL document gives a message and a location", arguments: badCases)
    func problems(_ c: BadCase) {
        guard case .failure(let problem) = GraphQLDocumentScanner.scan(c.document) else {
            Issue.record("\(c.document) was read as a document")
            return
        }
        #expect(problem.message.hasPrefix(c.message), "\(problem)")
        if c.column > 0 { #expect((problem.line, problem.column) == (c.line, c.column), "\(problem)") }
    }

    @Test("100,000 levels of nesting are read without recursion: the stack stays flat")
    func deepNesting() throws {
        let depth = 100_000
        let deep = "query Deep " + String(repeating: "{ a ", count: depth) + String(repeating: "}", count: depth)
        let summary = try GraphQLDocumentScanner.scan(deep).get()
        #expect(summary.operations.map(\.name) == ["Deep"])
        let unclosed = "query Deep " + String(repeating: "{ a ", count: depth)
        guard case .failure(let problem) = GraphQLDocumentScanner.scan(unclosed) else {
            Issue.record("an unclosed document was read")
            return
        }
        #expect(problem.message == "'{' is never closed", "\(problem)")
        #expect(problem.column == 11 + 4 * (depth - 1) + 1)
    }

    /// graphql-core is installed by `.ci/test-deps`; a machine without it skips, CI never does.
    static let graphQLCoreAvailable = ProcessInfo.processInfo.environment["CI"] == "true"
        || (try? ChildProcessRunner.python(["-c", "import graphql"])) != nil

    @Test("the fixture documents give the operations graphql-core finds in them",
          .enabled(if: graphQLCoreAvailable, "python3 cannot import graphql (graphql-core); .ci/test-deps installs it"))
    func agreesWithGraphQLCore() throws {
        let folder = PackagePaths.fixtures.appendingPathComponent("graphql/operations")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".graphql") }.sorted()
        #expect(files.count >= 5)
        var ours: [String] = []
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let summary = try GraphQLDocumentScanner.scan(text).get()
            ours += summary.operations.map { "\($0.type.rawValue) \($0.name ?? "-")" } + summary.fragments.map { "fragment \($0)" }
        }
        let script = """
        import glob, graphql, os, sys
        for f in sorted(glob.glob(os.path.join(sys.argv[1], '*.graphql'))):
            for d in graphql.parse(open(f).read()).definitions:
                kind = d.operation.value if hasattr(d, 'operation') else 'fragment'
                print(kind, d.name.value if d.name else '-')
        """
        let theirs = try ChildProcessRunner.python(["-c", script, folder.path])
        #expect(ours == theirs.split(separator: "\n").map(String.init))
    }
}
