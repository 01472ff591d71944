#if Tools
import Foundation
import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

/// `--to` never deletes what the user did not ask to replace: files, folders that are not bundles,
/// and the inputs themselves.
@Suite("import destination")
struct ImportDestinationTests {
    let har = harDocument([["request": ["method": "GET", "url": "https://api.test/a"], "response": ["status": 204]]])

    @Test("--to naming an existing file exits 2 naming it, and the file is kept, even with --force")
    func existingFile() throws {
        let folder = try TemporaryFolder()
        let input = try folder.file("in.har", data: har)
        let precious = try folder.file("notes.txt", data: Data("keep me".utf8))
        for extra in [[], ["--force"]] {
            let run = try ChildProcess.run("stubkit", arguments: ["import", input.path, "--to", precious.path] + extra)
            #expect(run.status == 2, "\(extra): \(run.stderr)")
            #expect(run.stderr.contains(precious.path) && run.stderr.contains("is a file"), "\(run.stderr)")
            #expect(FileManager.default.contents(atPath: precious.path) == Data("keep me".utf8))
        }
    }

    @Test("an existing bundle is refused without --force (README kept); replaced with it")
    func existingBundle() throws {
        let folder = try TemporaryFolder()
        let input = try folder.file("in.har", data: har)
        let bundle = folder.url.appendingPathComponent("bundle")
        let readme = try folder.file("bundle/README.md", data: Data("hand-written".utf8))
        _ = try folder.file("bundle/stubsRules.json", data: Data(#"{"rules": []}"#.utf8))
        let refused = try ChildProcess.run("stubkit", arguments: ["import", input.path, "--to", bundle.path])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("\(bundle.path): error: already exists and is not empty"), "\(refused.stderr)")
        #expect(FileManager.default.fileExists(atPath: readme.path))
        let replaced = try ChildProcess.run("stubkit", arguments: ["import", input.path, "--to", bundle.path, "--force"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(loadedRules(bundle).count == 1)
    }

    @Test("a non-empty folder that is not a bundle is refused even with --force")
    func notABundle() throws {
        let folder = try TemporaryFolder()
        let input = try folder.file("in.har", data: har)
        let other = try folder.file("project/main.swift", data: Data("print(1)".utf8))
        let bundle = other.deletingLastPathComponent()
        let importer = BundleImporter()
        let batches = importer.read([input]).batches
        for replacing in [false, true] {
            #expect(throws: ImportError.self) { try importer.write(batches, to: bundle, replacing: replacing, inputs: [input]) }
        }
        #expect(FileManager.default.fileExists(atPath: other.path))
    }

    @Test("a bundle folder holding the input is refused even with --force: the input survives")
    func inputInsideBundle() throws {
        let folder = try TemporaryFolder()
        _ = try folder.file("bundle/stubsRules.json", data: Data(#"{"rules": []}"#.utf8))
        let input = try folder.file("bundle/capture.har", data: har)
        let bundle = input.deletingLastPathComponent()
        let run = try ChildProcess.run("stubkit", arguments: ["import", input.path, "--to", bundle.path, "--force"])
        #expect(run.status == 2)
        #expect(run.stderr.contains(bundle.path) && run.stderr.contains("input"), "\(run.stderr)")
        #expect(FileManager.default.contents(atPath: input.path) == har)
    }
}
#endif
