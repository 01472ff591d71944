#if Tools
import ArgumentParser
import Foundation
import StubKitImport

extension Import {
    /// One bundle per `mappings` folder of a WireMock project, in `--to`, and one more for the project's
    /// other files that read as stub inputs (a HAR beside the suites), so no importable file is left
    /// out; the rest of the project tree is named as skipped. Everything is read, and every destination
    /// checked, before anything is written: unreadable input or a refused folder writes nothing.
    func importProject(_ project: WireMockProject, with importer: BundleImporter) throws {
        var reads: [(suite: WireMockProject.Suite, batches: [ImportBatch])] = [], errors: [ImportError] = []
        for suite in project.suites {
            let read = importer.read([suite.mappings])
            reads.append((suite, read.batches))
            errors += read.errors
        }
        let others = project.readOtherFiles(with: importer)
        errors += others.errors
        let otherFiles = others.batches.map { project.relativePath(of: URL(fileURLWithPath: $0.file)) }
        if let template, project.suites.count + (otherFiles.isEmpty ? 0 : 1) > 1 {
            let suites = "\(project.suites.count) WireMock mappings folder\(otherFiles.isEmpty ? "s" : "(s)") (\(project.suites.map(\.relativePath).joined(separator: ", ")))"
            let rest = otherFiles.isEmpty ? "" : " and other files (\(Self.listed(otherFiles)))"
            printError("--template '\(template)' names one bundle, but \(project.root.path) holds \(suites)\(rest); leave --template out to write one bundle per folder\(rest.isEmpty ? "" : " and one for the other files") into --to")
            throw ExitCode.badInput
        }
        guard errors.isEmpty else {
            for error in errors { printError(error.description) }
            printError("nothing written: \(errors.count) input(s) cannot be read")
            throw ExitCode.badInput
        }
        let inputs = project.suites.flatMap { [$0.mappings, $0.files] } + project.otherFiles
        var jobs = try reads.map { (label: $0.suite.relativePath, batches: $0.batches, bundle: try bundleFolder(destination, template: template ?? $0.suite.name)) }
        if !otherFiles.isEmpty {
            jobs.append((label: "other files (\(otherFiles.count): \(Self.listed(otherFiles)))", batches: others.batches,
                         bundle: try bundleFolder(destination, template: template ?? project.otherName)))
        }
        do {
            for job in jobs { try BundleImporter.checkDestination(job.bundle, replacing: force, inputs: inputs) }
        } catch {
            printError(error.description)
            throw ExitCode.badInput
        }
        let rest = otherFiles.isEmpty ? "" : ", and \(otherFiles.count) other file(s) to import into one more bundle"
        print("\(project.root.path): \(project.suites.count) WireMock mappings folder(s), one bundle each\(rest)")
        for empty in project.emptyMappings { print("  \(empty) holds no mapping; no bundle") }
        for skipped in others.skipped { print("  skipped \(skipped.path): \(skipped.reason)") }
        if !others.unknown.isEmpty { print("  skipped \(others.unknown.count) file(s) in no format stubkit imports: \(Self.listed(others.unknown))") }
        var exitCode: Int32 = 0
        for job in jobs {
            print("  \(job.label) → \(job.bundle.path)")
            let report: ImportReport
            do {
                report = try importer.write(job.batches, to: job.bundle, replacing: force, inputs: inputs)
            } catch {
                printError(error.description)
                throw ExitCode.badInput
            }
            print(report.summary.split(separator: "\n").map { "    \($0)" }.joined(separator: "\n"))
            exitCode = max(exitCode, report.exitCode)
        }
        if exitCode != 0 { throw ExitCode.somethingReported }
    }

    /// Up to five paths, then how many more.
    static func listed(_ paths: [String]) -> String {
        paths.count <= 5 ? paths.joined(separator: ", ") : paths.prefix(5).joined(separator: ", ") + ", and \(paths.count - 5) more"
    }
}
#endif
