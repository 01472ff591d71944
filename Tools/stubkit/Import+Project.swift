import ArgumentParser
import Foundation
import StubKitImport

extension Import {
    /// One bundle per `mappings` folder of a WireMock project, in `--to`. Every suite is read, and every
    /// destination checked, before anything is written: unreadable input or a refused folder writes nothing.
    func importProject(_ project: WireMockProject, with importer: BundleImporter) throws {
        if let template, project.suites.count > 1 {
            printError("--template '\(template)' names one bundle, but \(project.root.path) holds \(project.suites.count) WireMock mappings folders (\(project.suites.map(\.relativePath).joined(separator: ", "))); leave --template out to write one bundle per folder into --to")
            throw ExitCode.badInput
        }
        var reads: [(suite: WireMockProject.Suite, batches: [ImportBatch])] = [], errors: [ImportError] = []
        for suite in project.suites {
            let read = importer.read([suite.mappings])
            reads.append((suite, read.batches))
            errors += read.errors
        }
        guard errors.isEmpty else {
            for error in errors { printError(error.description) }
            printError("nothing written: \(errors.count) input(s) cannot be read")
            throw ExitCode.badInput
        }
        let inputs = project.suites.flatMap { [$0.mappings, $0.files] }
        let bundles = try project.suites.map { try bundleFolder(destination, template: template ?? $0.name) }
        do {
            for bundle in bundles { try BundleImporter.checkDestination(bundle, replacing: force, inputs: inputs) }
        } catch {
            printError(error.description)
            throw ExitCode.badInput
        }
        print("\(project.root.path): \(project.suites.count) WireMock mappings folder(s), one bundle each")
        for empty in project.emptyMappings { print("  \(empty) holds no mapping; no bundle") }
        var exitCode: Int32 = 0
        for ((suite, batches), bundle) in zip(reads, bundles) {
            print("  \(suite.relativePath) → \(bundle.path)")
            let report: ImportReport
            do {
                report = try importer.write(batches, to: bundle, replacing: force, inputs: inputs)
            } catch {
                printError(error.description)
                throw ExitCode.badInput
            }
            print(report.summary.split(separator: "\n").map { "    \($0)" }.joined(separator: "\n"))
            exitCode = max(exitCode, report.exitCode)
        }
        if exitCode != 0 { throw ExitCode.somethingReported }
    }
}
