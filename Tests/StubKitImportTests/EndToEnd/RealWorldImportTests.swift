#if Tools
import Foundation
import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

/// One file of `../shared/realworld`, named by its path there.
struct RealWorldFile: CustomTestStringConvertible, Sendable {
    var relativePath: String
    var format: ImportFormat
    var testDescription: String { relativePath }

    var url: URL { PackagePaths.realworld!.appendingPathComponent(relativePath) }

    /// The one file that must fail to import (33 bytes of broken JSON).
    var isCorrupted: Bool { relativePath.hasSuffix("corrupted_har/brokenfile.har") }

    /// Every HAR, WireMock mapping, Mocktail and cassette file there (WireMock `__files` are bodies, not sources).
    static func all(_ format: ImportFormat? = nil) -> [RealWorldFile] {
        guard let root = PackagePaths.realworld else { return [] }
        let folders: [(String, ImportFormat)] = [("har", .har), ("wiremock", .wiremock), ("mocktail", .mocktail), ("vcr", .vcr)]
        var files: [RealWorldFile] = []
        for (folder, kind) in folders where format == nil || format == kind {
            let base = root.appendingPathComponent(folder)
            let urls = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? []
            for url in urls where ["har", "json", "yaml", "yml", "tail"].contains(url.pathExtension) && !url.pathComponents.contains("__files") {
                files.append(RealWorldFile(relativePath: folder + "/" + String(url.standardizedFileURL.path.dropFirst(base.standardizedFileURL.path.count + 1)), format: kind))
            }
        }
        return files.sorted { $0.relativePath < $1.relativePath }
    }
}

/// `stubkit import` on every real-world file, then the real stand-in app replaying each imported
/// entry with the network killed: the recorded status, body (byte for byte after decoding) and
/// content type must come back.
@Suite("real-world imports")
struct RealWorldImportTests {
    static let enabled = PackagePaths.realworldTestsEnabled

    @Test("the shared real-world files are there (required in CI)", .enabled(if: enabled, "../shared/realworld is absent (CI requires it)"))
    func realWorldPresent() throws {
        _ = try #require(PackagePaths.realworld, "../shared/realworld is required in CI")
        for format in ImportFormat.allCases {
            #expect(!RealWorldFile.all(format).isEmpty, "no \(format) files in ../shared/realworld")
        }
    }

    /// Folders of `../shared/realworld/wiremock` that hold a `mappings` folder: imported whole, as users do.
    static var wireMockRoots: [String] {
        RealWorldFile.all(.wiremock).compactMap { file -> String? in
            guard let range = file.relativePath.range(of: "/mappings/") else { return nil }
            return String(file.relativePath[..<range.lowerBound])
        }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
    }

    @Test("a whole WireMock folder (mappings/ and __files/) imports into one bundle that lints with no error",
          .enabled(if: enabled, "../shared/realworld is absent (CI requires it)"), arguments: wireMockRoots)
    func wireMockFolder(_ root: String) throws {
        let folder = try TemporaryFolder()
        let bundle = folder.url.appendingPathComponent("imported")
        let run = try ChildProcess.run("stubkit", arguments: ["import", PackagePaths.realworld!.appendingPathComponent(root).path, "--to", bundle.path])
        #expect(run.status == 0 || run.status == 1, "\(run.stderr)")
        let mappings = RealWorldFile.all(.wiremock).filter { $0.relativePath.hasPrefix(root + "/mappings/") }
        let expected = try mappings.reduce(0) { $0 + (try ExpectedExchanges.read($1.url, format: .wiremock).count) }
        let lint = BundleLinter().lint(bundle)
        #expect(lint.ruleCount == expected, "one rule per mapping")
        #expect(lint.diagnostics.filter { $0.severity == .error }.isEmpty, "\(lint.diagnostics)")
    }

    @Test("imports, lints with no error, and replays through stubdemo", .enabled(if: enabled, "../shared/realworld is absent (CI requires it)"),
          arguments: RealWorldFile.all())
    func importsAndReplays(_ file: RealWorldFile) throws {
        let folder = try TemporaryFolder()
        let bundle = folder.url.appendingPathComponent("imported")
        let run = try ChildProcess.run("stubkit", arguments: ["import", file.url.path, "--to", bundle.path])
        if file.isCorrupted {
            #expect(run.status == 2)
            #expect(run.stderr.contains("\(file.url.path):5:1: error: not valid JSON"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: bundle.path), "nothing is written for unreadable input")
            return
        }
        #expect(run.status == 0 || run.status == 1, "stdout: \(run.stdout)\nstderr: \(run.stderr)")
        #expect((run.status == 1) == run.stdout.contains("note: "), "exit 1 exactly when something is reported")
        #expect(FileManager.default.fileExists(atPath: bundle.appendingPathComponent("IMPORT-NOTES.md").path))
        let lint = BundleLinter().lint(bundle)
        let errors = lint.diagnostics.filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors.map(\.description).joined(separator: "\n"))")

        let expected = try ExpectedExchanges.read(file.url, format: file.format)
        guard !expected.isEmpty else {
            #expect(run.status == 1, "a file with nothing to replay must say why")
            return
        }
        try Replay.check(expected, bundle: bundle)
    }
}

/// Runs the stand-in app over an imported bundle and compares each answer with the source's.
enum Replay {
    static func check(_ expected: [ExpectedExchange], bundle: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var arguments = ["STUB_API_CALLS_\(bundle.lastPathComponent)", "STUB_KILL_NETWORK"]
        for exchange in expected {
            arguments += [exchange.method, exchange.url]
            if let body = exchange.body { arguments += ["--data", String(decoding: body, as: UTF8.self)] }
            for (name, value) in exchange.headers { arguments += ["--header", "\(name): \(value)"] }
        }
        let out = try ChildProcess.run("stubdemo", arguments: arguments, environment: ["STUB_BUNDLES_PATH": bundle.deletingLastPathComponent().path])
        let lines = out.jsonLines
        #expect(lines.count == expected.count, "stderr: \(out.stderr)", sourceLocation: sourceLocation)
        for (exchange, line) in zip(expected, lines) where !exchange.followsRedirect {
            #expect(line["error"] == nil, "\(exchange): \(line["error"] ?? "")", sourceLocation: sourceLocation)
            #expect(line["status"] as? Int == exchange.status, "\(exchange): status", sourceLocation: sourceLocation)
            if exchange.statusOnly { continue }
            let text = line["body"] as? String ?? ""
            let body = line["bodyEncoding"] as? String == "base64" ? Data(base64Encoded: text)! : Data(text.utf8)
            #expect(sameBody(body, exchange.responseBody), "\(exchange): body (\(body.count) bytes, expected \(exchange.responseBody.count))", sourceLocation: sourceLocation)
            if let type = exchange.contentType {
                let headers = line["headers"] as? [String: String] ?? [:]
                let served = headers.first { $0.key.lowercased() == "content-type" }?.value
                #expect(served == type, "\(exchange): content type", sourceLocation: sourceLocation)
            }
        }
    }

    /// Byte for byte; or, for JSON, the same value (WireMock's `jsonBody` has no byte form), or the
    /// same once the source has had the default redaction applied (recorded traffic is redacted,
    /// and only a redacted body is re-serialized).
    static func sameBody(_ served: Data, _ source: Data) -> Bool {
        if served == source { return true }
        guard let sourceValue = try? JSONSerialization.jsonObject(with: source, options: [.fragmentsAllowed]),
              let servedValue = try? JSONSerialization.jsonObject(with: served, options: [.fragmentsAllowed]) else { return false }
        let served = NSDictionary(dictionary: ["v": servedValue])
        return served.isEqual(to: ["v": sourceValue]) || served.isEqual(to: ["v": Redactor().json(sourceValue).value])
    }
}
#endif
