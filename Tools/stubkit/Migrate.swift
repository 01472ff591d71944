#if Tools
import ArgumentParser
import Foundation
import StubKitImport

struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rewrite a bundle's legacy Just Eat-style keys as the current ones, in stubsRules.json.",
        discussion: "In place after copying the bundle to <bundle>.pre-migrate, or into a new folder with --to. Exit status: 0 migrated, 1 something reported, 2 unreadable or refused."
    )

    @Argument(help: "The bundle folder.")
    var bundle: String

    @Option(name: .customLong("to"), help: "Write the migrated bundle to this new folder instead, leaving the original untouched.")
    var destination: String?

    func run() throws {
        let result: LegacyMigrator.Result
        do {
            result = try LegacyMigrator().migrate(URL(fileURLWithPath: bundle, isDirectory: true), to: destination.map { URL(fileURLWithPath: $0, isDirectory: true) })
        } catch {
            printError(error.description)
            throw ExitCode.badInput
        }
        for note in result.notes { print("note: \(note)") }
        print("migrated \(result.migratedRules) rule(s) into \(result.rulesFile.path)" + (result.backup.map { "; the bundle as it was is in \($0.path)" } ?? ""))
        if !result.notes.isEmpty { throw ExitCode.somethingReported }
    }
}
#endif
