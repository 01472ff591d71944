#if Tools
// stublint: lint stub bundles like a compiler, and explain which rule answers a request.
import ArgumentParser
import Foundation
import StubKit
import StubKitGraphQL
import StubKitOpenAPI

@main
struct StubLint: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stublint",
        abstract: "Check StubKit stub bundles and explain which rule answers a request.",
        version: StubKitVersion.current,
        subcommands: [Lint.self, Explain.self, Traffic.self],
        defaultSubcommand: Lint.self
    )
}

/// Exit status 2: bad usage or unreadable input.
struct InputError: Error, CustomStringConvertible {
    var description: String
}

extension ExitCode {
    static let diagnosticsFound = ExitCode(1)
    static let badInput = ExitCode(2)
}

struct Lint: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Lint bundle folders, or folders of bundles.")

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, github, junit
    }

    @Argument(help: "Bundle folders, or folders holding bundles.")
    var paths: [String]

    @Option(help: "Output format: text, json, github or junit.")
    var format: Format = .text

    @Flag(help: "Exit with status 1 on warnings too.")
    var strict = false

    @Flag(help: "Print only the summary line.")
    var quiet = false

    @Option(help: "An OpenAPI 3.0, 3.1 or 3.2 document (YAML or JSON) to check every rule against: operation, status, content type, JSON body.")
    var openapi: String?

    @Option(help: "A GraphQL schema (SDL: a .graphqls file, or a folder of them) to check every 'graphql' rule against: operation, variables, response.")
    var graphqlSchema: String?

    @Option(help: "With --graphql-schema: the folder of the app's operation documents (*.graphql, searched recursively).")
    var operations: String?

    @Flag(help: "With --openapi or --graphql-schema --operations: a note for each operation no rule stubs, and a line 'N of M operations stubbed'.")
    var coverage = false

    @Flag(help: "Print file paths absolute, not relative to the current folder (for build steps and IDEs).")
    var absolutePaths = false

    /// For the build-tool plugin, whose build command needs an output: written when the lint passes,
    /// removed when it fails, so a failed lint never looks up to date. Its text never changes and an
    /// existing stamp is left untouched, so editing a bundle does not make the target recompile.
    @Option(help: ArgumentHelp(visibility: .hidden))
    var stamp: String?

    func run() throws {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        var options = BundleLoader.Options.lint
        options.displayBase = absolutePaths ? nil : cwd
        let linter = BundleLinter(options: options)
        var reports: [(path: String, report: BundleLinter.Report)] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                FileHandle.standardError.write(Data("stublint: error: no such file or folder '\(path)'\n".utf8))
                throw ExitCode.badInput
            }
            guard isDirectory.boolValue else {
                FileHandle.standardError.write(Data("stublint: error: '\(path)' is a file; pass the bundle folder that holds it\n".utf8))
                throw ExitCode.badInput
            }
            guard FileManager.default.isReadableFile(atPath: path) else {
                FileHandle.standardError.write(Data("stublint: error: cannot read '\(path)'\n".utf8))
                throw ExitCode.badInput
            }
            reports.append((path, linter.lint(URL(fileURLWithPath: path, relativeTo: cwd))))
        }
        var diagnostics = reports.flatMap(\.report.diagnostics)
        var coverageLine: String? = nil
        if let openapi {
            let spec: OpenAPISpec
            do {
                spec = try OpenAPISpec.load(URL(fileURLWithPath: openapi, relativeTo: cwd), display: openapi)
            } catch {
                FileHandle.standardError.write(Data("stublint: error: \(error.description) [\(DiagnosticCode.unreadableSpec.rawValue)]\n".utf8))
                throw ExitCode.badInput
            }
            let report = OpenAPILinter(spec: spec, displayBase: options.displayBase).lint(folders: reports.flatMap(\.report.bundles), coverage: coverage)
            diagnostics = (diagnostics + report.diagnostics).sortedForDisplay()
            if coverage { coverageLine = report.coverageLine }
        }
        if let graphqlSchema {
            let report = try lintGraphQL(schemaPath: graphqlSchema, folders: reports.flatMap(\.report.bundles), cwd: cwd, displayBase: options.displayBase)
            diagnostics = (diagnostics + report.diagnostics).sortedForDisplay()
            if coverage, let line = report.coverageLine { coverageLine = [coverageLine, line].compactMap { $0 }.joined(separator: "\n") }
        } else if operations != nil {
            throw ValidationError("--operations needs --graphql-schema SCHEMA")
        }
        if coverage && openapi == nil && (graphqlSchema == nil || operations == nil) {
            throw ValidationError("--coverage needs --openapi SPEC, or --graphql-schema SCHEMA with --operations DIR")
        }
        let summary = LintSummary(diagnostics: diagnostics, bundles: reports.reduce(0) { $0 + $1.report.bundles.count },
                                  rules: reports.reduce(0) { $0 + $1.report.ruleCount })
        let output: String
        switch format {
        case .text: output = LintOutput.text(diagnostics, summary: summary, quiet: quiet)
        case .json: output = LintOutput.json(diagnostics, summary: summary, quiet: quiet)
        case .github: output = LintOutput.github(diagnostics, summary: summary, quiet: quiet)
        case .junit: output = LintOutput.junit(reports.map { ($0.path, $0.report) }, diagnostics: diagnostics, summary: summary)
        }
        print(output, terminator: "")
        if let coverageLine, format == .text || format == .github { print(coverageLine) }
        let failed = summary.errors > 0 || (strict && summary.warnings > 0)
        if let stamp { try writeStamp(stamp, passed: !failed) }
        if failed { throw ExitCode.diagnosticsFound }
    }

    /// The GraphQL checks: the schema (exit 2 when it cannot be used), the operation documents, the rules.
    private func lintGraphQL(schemaPath: String, folders: [URL], cwd: URL, displayBase: URL?) throws -> GraphQLLinter.Report {
        let schema: GraphQLSchemaDocument
        do {
            schema = try GraphQLSchemaDocument.load([URL(fileURLWithPath: schemaPath, relativeTo: cwd)], displayBase: displayBase)
        } catch {
            for problem in error.problems {
                FileHandle.standardError.write(Data("stublint: error: \(problem) [\(DiagnosticCode.unreadableGraphQLSchema.rawValue)]\n".utf8))
            }
            throw ExitCode.badInput
        }
        var documents: GraphQLOperationDocuments? = nil
        if let operations {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: operations, isDirectory: &isDirectory), isDirectory.boolValue else {
                FileHandle.standardError.write(Data("stublint: error: no such folder of operation documents '\(operations)'\n".utf8))
                throw ExitCode.badInput
            }
            documents = GraphQLOperationDocuments.load(folder: URL(fileURLWithPath: operations, relativeTo: cwd), schema: schema, displayBase: displayBase)
        }
        return GraphQLLinter(schema: schema, documents: documents, displayBase: displayBase).lint(folders: folders, coverage: coverage)
    }

    /// The stamp's whole text: a Swift comment, as the plugin hands it to the compiler.
    static let stampText = Data("// stublint: this target's stub bundles lint without errors.\n".utf8)

    private func writeStamp(_ path: String, passed: Bool) throws {
        let url = URL(fileURLWithPath: path)
        guard passed else {
            try? FileManager.default.removeItem(at: url)
            return
        }
        if FileManager.default.contents(atPath: path) == Self.stampText { return }
        do {
            try Self.stampText.write(to: url, options: .atomic)
        } catch {
            FileHandle.standardError.write(Data("stublint: error: cannot write '\(path)': \(error.localizedDescription)\n".utf8))
            throw ExitCode.badInput
        }
    }
}

struct Explain: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Say which rule answers a request, or why none does.",
        discussion: "Bundles are layered in the order given, as STUB_API_CALLS_ launch arguments are."
    )

    @Argument(help: "Bundle folders, in activation order, then the request URL.")
    var arguments: [String]

    @Option(name: .shortAndLong, help: "The request method.")
    var method: String = "GET"

    @Option(name: .customLong("header"), help: "A request header, 'Name: value' (repeatable).")
    var headers: [String] = []

    @Option(name: .shortAndLong, help: "The request body.")
    var data: String?

    func run() throws {
        guard arguments.count >= 2, let urlText = arguments.last, let url = URL(string: urlText), url.scheme != nil else {
            throw ValidationError("give one or more bundle folders, then an absolute request URL")
        }
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        var options = BundleLoader.Options.engine
        options.displayBase = cwd
        let engine = StubEngine(mode: .lenient, killSwitch: true, loaderOptions: options)
        for path in arguments.dropLast() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                FileHandle.standardError.write(Data("stublint: error: no such bundle folder '\(path)'\n".utf8))
                throw ExitCode.badInput
            }
            do {
                let diagnostics = try engine.activate(folder: URL(fileURLWithPath: path, relativeTo: cwd))
                for diagnostic in diagnostics.errors {
                    FileHandle.standardError.write(Data("\(diagnostic) (rule left out)\n".utf8))
                }
            } catch {
                FileHandle.standardError.write(Data("stublint: error: \(error.description)\n".utf8))
                throw ExitCode.badInput
            }
        }
        var headerFields: [String: String] = [:]
        for header in headers {
            guard let colon = header.firstIndex(of: ":") else { throw ValidationError("--header takes 'Name: value'") }
            headerFields[header[..<colon].trimmingCharacters(in: .whitespaces)] = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let request = StubRequest(method: method, url: url, headers: headerFields, body: data.map { Data($0.utf8) })
        print(RequestExplanation(engine: engine, request: request).text, terminator: "")
        if case .refuse = engine.decision(for: request) { throw ExitCode.diagnosticsFound }
    }
}
#endif
