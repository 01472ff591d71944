#if Tools
import ArgumentParser
import Foundation
import StubKit
import StubKitGraphQL
import StubKitOpenAPI

/// `stublint traffic`: the app's recorded traffic checked against the OpenAPI document and the GraphQL schema.
struct Traffic: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check recorded traffic (a HAR file, a live journal, a recorded bundle) against an OpenAPI document or a GraphQL schema.",
        discussion: """
        Each request is checked for its operation (method, path, server), parameters and body; each response \
        a real backend sent (a pass-through, a recording, a browser's HAR) for its status and body. Exit status: \
        0 conforming, 1 findings (errors, or warnings with --strict), 2 an input or the spec cannot be read, 64 bad usage. \
        A live journal line that cannot be read is a finding at its line (SK216), and reading goes on. \
        With --graphql-schema, each GraphQL request (on any path) is checked for its document and variables; \
        with --openapi too, a GraphQL request is not reported as an undocumented operation (SK210).
        """
    )

    @Argument(help: "HAR files, live journal files (STUB_JOURNAL_LIVE) or bundle folders written by record mode; told apart by content. '-' reads standard input.")
    var inputs: [String]

    @Option(help: "The OpenAPI 3.0, 3.1 or 3.2 document (YAML or JSON) the traffic should conform to.")
    var openapi: String?

    @Option(help: "A GraphQL schema (SDL: a .graphqls file, or a folder of them) the GraphQL requests should conform to.")
    var graphqlSchema: String?

    @Option(help: "Output format: text, json, github or junit.")
    var format: Lint.Format = .text

    @Flag(help: "Exit with status 1 on warnings too.")
    var strict = false

    @Flag(help: "Print only the summary line.")
    var quiet = false

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one input: a HAR file, a live journal file, a recorded bundle folder, or '-' for standard input") }
        guard inputs.filter({ $0 == "-" }).count <= 1 else { throw ValidationError("'-' (standard input) can be given once") }
        if openapi == nil && graphqlSchema == nil { throw ValidationError("give --openapi SPEC, --graphql-schema SCHEMA, or both") }
    }

    func run() throws {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        var validator: TrafficValidator? = nil
        if let openapi {
            do {
                validator = TrafficValidator(spec: try OpenAPISpec.load(URL(fileURLWithPath: openapi, relativeTo: cwd), display: openapi))
            } catch {
                FileHandle.standardError.write(Data("stublint: error: \(error.description) [\(DiagnosticCode.unreadableSpec.rawValue)]\n".utf8))
                throw ExitCode.badInput
            }
        }
        let graphQL = try graphqlSchema.map { try Self.graphQLValidator(schemaPath: $0, cwd: cwd) }
        var cases: [(name: String, failures: [Diagnostic])] = []
        var all: [Diagnostic] = []
        var entries = 0
        var unreadable = false
        for input in inputs {
            var diagnostics: [Diagnostic] = []
            do {
                let summary = try TrafficReader.read(URL(fileURLWithPath: input, relativeTo: cwd), display: input) { entry in
                    diagnostics += Self.check(entry, openAPI: validator, graphQL: graphQL)
                }
                diagnostics += summary.problems
                entries += summary.entries
            } catch {
                FileHandle.standardError.write(Data("stublint: error: \(error.description)\n".utf8))
                unreadable = true
                continue
            }
            // In the input's order: by line where entries have lines, else as read.
            diagnostics = diagnostics.enumerated().sorted { a, b in
                let (l, r) = (a.element.position?.line ?? 0, b.element.position?.line ?? 0)
                return l != r ? l < r : a.offset < b.offset
            }.map(\.element)
            cases.append((input, diagnostics.filter { $0.severity != .note }))
            all += diagnostics
        }
        var summary = LintSummary(diagnostics: all, bundles: cases.count, rules: entries)
        summary.nouns = (("input", "inputs"), ("entry", "entries"))
        let output: String
        switch format {
        case .text: output = LintOutput.text(all, summary: summary, quiet: quiet)
        case .json: output = LintOutput.json(all, summary: summary, quiet: quiet)
        case .github: output = LintOutput.github(all, summary: summary, quiet: quiet)
        case .junit: output = LintOutput.junit(cases: cases)
        }
        print(output, terminator: "")
        if unreadable { throw ExitCode.badInput }
        if summary.errors > 0 || (strict && summary.warnings > 0) { throw ExitCode.diagnosticsFound }
    }
}
#endif
