#if Tools
import ArgumentParser
import Foundation
import StubKitImport

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write files from other tools as one bundle.",
        discussion: """
        The format is detected per file from its content unless --format says it. Whatever cannot be \
        carried over is printed and written to IMPORT-NOTES.md in the bundle. A project folder with \
        WireMock mappings/ folders deeper inside (one per test suite) becomes one bundle per mappings/ \
        folder, in --to, named after the suite's path; its other importable files (HAR, cassettes, \
        .tail, ...) go into one more bundle named after the folder. Exit status: 0 everything carried over, \
        1 something reported, 2 unreadable input (nothing is written then).
        """
    )

    @Argument(help: "Files, or folders read recursively (WireMock: the folder holding mappings/ and __files/, or a project folder: one bundle per mappings/ folder found at any depth, and one for its other importable files, written into --to).")
    var inputs: [String]

    @Option(name: .customLong("to"), help: "The bundle folder to write (new or empty; --force replaces a bundle there), or with --template the folder that holds it.")
    var destination: String

    @Flag(name: [.customLong("force"), .customLong("replace")], help: "Replace the bundle at --to (only a folder with a rules file that holds none of the inputs).")
    var force = false

    @Option(help: "The bundle's template name: the bundle is written to <to>/<template>.")
    var template: String?

    @Option(help: "The input format: \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")) (default: detected).")
    var format: ImportFormat?

    @Option(help: "More header, query-item and JSON-field names to redact, comma-separated (as STUB_RECORD_REDACT).")
    var redact: String?

    @Option(help: "Default names not to redact, comma-separated (as STUB_RECORD_KEEP).")
    var keep: String?

    func run() throws {
        func names(_ list: String?) -> [String] {
            (list ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let importer = BundleImporter(format: format, redact: names(redact), keep: names(keep))
        if inputs.count == 1, format == nil || format == .wiremock, let project = WireMockProject.find(in: URL(fileURLWithPath: inputs[0])) {
            return try importProject(project, with: importer)
        }
        let (batches, errors) = importer.read(inputs.map { URL(fileURLWithPath: $0) })
        guard errors.isEmpty else {
            for error in errors { printError(error.description) }
            printError("nothing written: \(errors.count) input(s) cannot be read")
            throw ExitCode.badInput
        }
        let bundle = try bundleFolder(destination, template: template)
        let report: ImportReport
        do {
            report = try importer.write(batches, to: bundle, replacing: force, inputs: inputs.map { URL(fileURLWithPath: $0) })
        } catch {
            printError(error.description)
            throw ExitCode.badInput
        }
        print(report.summary)
        if report.exitCode != 0 { throw ExitCode.somethingReported }
    }
}
#endif
