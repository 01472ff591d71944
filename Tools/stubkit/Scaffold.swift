#if Tools
import ArgumentParser
import Foundation
import StubKitImport
import StubKitOpenAPI

struct Scaffold: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a starting bundle from an OpenAPI document, or from a GraphQL schema and an app's operations.",
        discussion: """
        With --openapi: one rule per operation and documented status. Bodies come from the documented \
        examples (else from the schema's examples and types) and are written only when they validate \
        against their schema, so the bundle lints clean against the spec (`stublint lint BUNDLE \
        --openapi SPEC`). The main (lowest 2xx) status answers every request; others answer requests \
        sending `Prefer: code=NNN`.

        With --graphql-schema and --operations: one rule per named query and mutation of the .graphql \
        files under the folder, matched by operation name and answered by an example `{"data": …}` that \
        fits the operation's selection set, plus a rule for Apollo's persisted-query handshake. \
        Operations the schema rejects are reported and left out; subscriptions are left out with a note.

        Exit status: 0 written, 1 written with OpenAPI responses or GraphQL operations left out for \
        a problem (a subscription's note alone is not one), 2 unreadable input or unusable destination.
        """
    )

    @Option(help: "The OpenAPI 3.0, 3.1 or 3.2 document, YAML or JSON.")
    var openapi: String?

    @Option(name: .customLong("graphql-schema"), help: "The GraphQL schema (SDL): a file, or a folder of .graphqls/.graphql files; repeat for a schema split across files.")
    var graphQLSchemas: [String] = []

    @Option(help: "With --graphql-schema: the folder of the app's .graphql operation documents (searched recursively).")
    var operations: String?

    @Option(help: "With --graphql-schema: the rules' host (default: any host).")
    var host: String?

    @Option(help: "With --graphql-schema: the endpoint's path.")
    var path = "/graphql"

    @Option(name: .customLong("to"), help: "The bundle folder to write (new or empty), or with --template the folder that holds it.")
    var destination: String

    @Option(help: "The bundle's template name: the bundle is written to <to>/<template>.")
    var template: String?

    @Flag(name: [.customLong("force"), .customLong("replace")], help: "Replace the bundle at --to.")
    var force = false

    func validate() throws {
        switch (openapi != nil, !graphQLSchemas.isEmpty) {
        case (true, true):
            throw ValidationError("give --openapi or --graphql-schema, not both: a bundle is scaffolded from one kind of API description")
        case (false, false):
            throw ValidationError("give --openapi SPEC, or --graphql-schema SCHEMA with --operations DIR")
        case (true, false):
            if operations != nil || host != nil || path != "/graphql" {
                throw ValidationError("--operations, --host and --path go with --graphql-schema; with --openapi, the spec's servers give the host and paths")
            }
        case (false, true):
            if operations == nil {
                throw ValidationError("--graphql-schema needs --operations DIR: the folder of the app's .graphql operations to write a rule for each")
            }
            guard path.hasPrefix("/") else { throw ValidationError("--path '\(path)' must start with '/'") }
        }
    }

    func run() throws {
        if let openapi { try scaffoldOpenAPI(openapi) } else { try scaffoldGraphQL() }
    }

    private func scaffoldOpenAPI(_ openapi: String) throws {
        let spec: OpenAPISpec
        do { spec = try OpenAPISpec.load(URL(fileURLWithPath: openapi), display: openapi) } catch {
            printError(error.description)
            throw ExitCode.badInput
        }
        let bundle = try checkedBundle(inputs: [URL(fileURLWithPath: openapi)])
        let report: BundleScaffolder.Report
        do { report = try BundleScaffolder(spec: spec).write(to: bundle, replacing: force) } catch {
            printError(error.description)
            throw ExitCode.badInput
        }
        print(report.summary, terminator: "")
        if !report.notes.isEmpty { throw ExitCode.somethingReported }
    }

    /// The bundle folder, once it is known not to hold or lie inside an input, and to be new, empty,
    /// or (with --force) a bundle: as `import` refuses.
    func checkedBundle(inputs: [URL]) throws -> URL {
        let bundle = try bundleFolder(destination, template: template)
        do { try BundleImporter.checkDestination(bundle, replacing: force, inputs: inputs) } catch {
            printError(error.description)
            throw ExitCode.badInput
        }
        return bundle
    }
}
#endif
