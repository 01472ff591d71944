#if Tools
import ArgumentParser
import Foundation
import StubKitImport
import StubKitOpenAPI

struct Scaffold: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a starting bundle from an OpenAPI document: one rule per operation and documented status.",
        discussion: """
        Bodies come from the documented examples (else from the schema's examples and types) and are \
        written only when they validate against their schema, so the bundle lints clean against the \
        spec (`stublint lint BUNDLE --openapi SPEC`). The main (lowest 2xx) status answers every \
        request; others answer requests sending `Prefer: code=NNN`. Exit status: 0 written, 1 written \
        with notes (responses left out), 2 unreadable spec or unusable destination.
        """
    )

    @Option(help: "The OpenAPI 3.0, 3.1 or 3.2 document, YAML or JSON.")
    var openapi: String

    @Option(name: .customLong("to"), help: "The bundle folder to write (new or empty), or with --template the folder that holds it.")
    var destination: String

    @Option(help: "The bundle's template name: the bundle is written to <to>/<template>.")
    var template: String?

    @Flag(name: [.customLong("force"), .customLong("replace")], help: "Replace the bundle at --to.")
    var force = false

    func run() throws {
        let spec: OpenAPISpec
        do { spec = try OpenAPISpec.load(URL(fileURLWithPath: openapi), display: openapi) } catch {
            printError(error.description)
            throw ExitCode.badInput
        }
        let bundle = try bundleFolder(destination, template: template)
        do {
            // As `import` refuses: a file, a non-empty folder (--force: only a bundle), a folder holding the spec.
            try BundleImporter.checkDestination(bundle, replacing: force, inputs: [URL(fileURLWithPath: openapi)])
        } catch {
            printError(error.description)
            throw ExitCode.badInput
        }
        let report: BundleScaffolder.Report
        do { report = try BundleScaffolder(spec: spec).write(to: bundle, replacing: force) } catch {
            printError(error.description)
            throw ExitCode.badInput
        }
        print(report.summary, terminator: "")
        if !report.notes.isEmpty { throw ExitCode.somethingReported }
    }
}
#endif
