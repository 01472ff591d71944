#if Tools
// stubkit: bring stubs and traffic from other tools into StubKit bundles, bundles out as HAR, serve them over HTTP, and start one from an OpenAPI document or a GraphQL schema.
// Subcommands are separate types, so `serve`, `scaffold` and `migrate` can join `import` and `export`.
import ArgumentParser
import Foundation
import StubKit
import StubKitImport

@main
struct StubKitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stubkit",
        abstract: "Import HAR, WireMock, Mocktail and cassette files into StubKit bundles; export bundles as HAR; migrate legacy bundles; serve bundles over HTTP; scaffold a bundle from an OpenAPI document or a GraphQL schema and operations.",
        version: StubKitVersion.current,
        subcommands: [Import.self, Export.self, Migrate.self, Serve.self, Scaffold.self]
    )
}

extension ImportFormat: ExpressibleByArgument {}

extension ExitCode {
    /// Something could not be carried over; the report lists it.
    static let somethingReported = ExitCode(1)
    /// Unreadable input or an unusable destination.
    static let badInput = ExitCode(2)
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data("stubkit: \(text)\n".utf8))
}

/// The bundle folder `--to` and `--template` name: `<to>/<template>`, or `<to>` itself.
func bundleFolder(_ destination: String, template: String?) throws -> URL {
    var bundle = URL(fileURLWithPath: destination, isDirectory: true)
    if let template {
        guard !template.isEmpty, !template.contains("/"), !template.contains("\\"), template != "..", template != "." else {
            printError("--template '\(template)' is not a folder name")
            throw ExitCode.badInput
        }
        bundle.appendPathComponent(template, isDirectory: true)
    }
    return bundle
}
#endif
