import Foundation
import StubKit
import Testing

extension TemporaryFolder {
    /// Writes the bundle folder `name` with `rules` as its `stubsRules.json` (and `files` beside it),
    /// activates it on `engine` and returns the engine.
    ///
    /// An activation that fails is recorded at the calling test's line, then rethrown.
    @discardableResult
    public func activate(_ engine: StubEngine, bundle name: String, rules: String, files: [String: String] = [:],
                         sourceLocation: SourceLocation = #_sourceLocation) throws -> StubEngine {
        let folder = try bundle(name, files.merging(["stubsRules.json": rules]) { _, rules in rules })
        do {
            try engine.activate(folder: folder)
        } catch {
            Issue.record(error, "the bundle \(name) did not activate", sourceLocation: sourceLocation)
            throw error
        }
        return engine
    }
}
