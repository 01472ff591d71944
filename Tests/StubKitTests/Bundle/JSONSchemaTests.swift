import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// The JSON Schema in `schema/` checked with a real validator (python-jsonschema, which `.ci/run` installs).
struct JSONSchemaTests {
    static let schema = PackagePaths.root.appendingPathComponent("schema/stubsRules.schema.json")

    /// Codes for problems a schema can see in the file alone (not response files, regex syntax or overlaps).
    static let structuralCodes: Set<DiagnosticCode> = [
        .invalidTopLevel, .unknownKey, .wrongType, .missingKey, .invalidStatus, .unknownMethod,
        .negativeDelay, .unknownError, .conflictingKeys, .invalidValue, .invalidPathPattern,
        .invalidHeader, .delayTooLong,
    ]

    /// Fixtures whose only problem JSON Schema cannot express.
    static let beyondSchema: Set<String> = ["random_delay_reversed"]

    func validate(_ files: [URL]) throws -> [String: [String]] {
        let out = try ChildProcessRunner.python(["Tests/schema_check.py", Self.schema.path] + files.map(\.path))
        let object = try JSONSerialization.jsonObject(with: Data(out.utf8))
        return try #require(object as? [String: [String]])
    }

    @Test("every example bundle's rules file validates against the schema")
    func examplesValidate() throws {
        let files = BundleLocator.bundleFolders(in: PackagePaths.stubBundles)
            .map { $0.appendingPathComponent("stubsRules.json") }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        #expect(files.count >= 3)
        for (file, errors) in try validate(files) {
            #expect(errors.isEmpty, "\(file): \(errors)")
        }
    }

    @Test("schema and linter agree on a corpus of good and broken rules files")
    func schemaAgreesWithLinter() throws {
        var corpus: [(file: URL, structural: Bool)] = []
        let broken = PackagePaths.fixtures.appendingPathComponent("broken")
        for name in try FileManager.default.contentsOfDirectory(atPath: broken.path).sorted() {
            for bundle in BundleLocator.bundleFolders(in: broken.appendingPathComponent(name)) {
                let file = bundle.appendingPathComponent("stubsRules.json")
                guard FileManager.default.fileExists(atPath: file.path) else { continue }
                let codes = Set(BundleLoader(options: .lint).load(folder: bundle).diagnostics.map(\.code))
                if codes.contains(.malformedFile) { continue }
                // Relations between two values (min <= max) are beyond what JSON Schema can say.
                if Self.beyondSchema.contains(name) { continue }
                corpus.append((file, !codes.isDisjoint(with: Self.structuralCodes)))
            }
        }
        for bundle in BundleLocator.bundleFolders(in: PackagePaths.stubBundles) {
            let file = bundle.appendingPathComponent("stubsRules.json")
            if FileManager.default.fileExists(atPath: file.path) { corpus.append((file, false)) }
        }
        #expect(corpus.filter(\.structural).count >= 10)
        #expect(corpus.filter { !$0.structural }.count >= 5)
        let verdicts = try validate(corpus.map(\.file))
        for entry in corpus {
            let errors = verdicts[entry.file.path] ?? ["missing verdict"]
            #expect(!errors.isEmpty == entry.structural,
                    "\(entry.file.path): linter says \(entry.structural ? "invalid" : "valid"), schema says \(errors)")
        }
    }

    @Test("the schema knows every rule key the decoder knows, and no other")
    func schemaKeysMatchDecoder() throws {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.schema)) as? [String: Any]
        let defs = object?["$defs"] as? [String: Any]
        let rule = defs?["rule"] as? [String: Any]
        let keys = Set((rule?["properties"] as? [String: Any])?.keys.map { $0 } ?? [])
        #expect(keys == Set(RuleKeys.rule).union(RuleKeys.legacy.keys))
    }
}
