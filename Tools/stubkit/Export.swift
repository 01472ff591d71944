#if Tools
import ArgumentParser
import Foundation
import StubKitImport

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write bundles' rules as HAR entries: a request each rule answers, with its response.",
        discussion: "Exit status: 0 everything exported, 1 something reported (printed), 2 a bundle that does not load."
    )

    @Argument(help: "Bundle folders.")
    var bundles: [String]

    @Option(help: "The HAR file to write.")
    var har: String

    func run() throws {
        let result: (data: Data, notes: [ImportNote])
        do {
            result = try HARExporter().export(bundles.map { URL(fileURLWithPath: $0, isDirectory: true) })
        } catch {
            printError(error.description)
            throw ExitCode.badInput
        }
        do {
            try result.data.write(to: URL(fileURLWithPath: har), options: .atomic)
        } catch {
            printError("\(har): cannot be written: \(error.localizedDescription)")
            throw ExitCode.badInput
        }
        for note in result.notes { print("note: \(note)") }
        print("exported \(bundles.count) bundle(s) to \(har)" + (result.notes.isEmpty ? "" : "; \(result.notes.count) note(s)"))
        if !result.notes.isEmpty { throw ExitCode.somethingReported }
    }
}
#endif
