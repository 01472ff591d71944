#if Tools
import Foundation
import StubKitGraphQL
import StubKitTestSupport
import Testing

/// The food-ordering schema and operations (Tests/Fixtures/graphql), and small helpers to write others.
enum GraphQLFixtures {
    static var folder: URL { PackagePaths.fixtures.appendingPathComponent("graphql") }
    static var schemaURL: URL { folder.appendingPathComponent("takeaway.graphqls") }
    static var operationsURL: URL { folder.appendingPathComponent("operations") }

    static func takeaway() throws -> (schema: GraphQLSchemaDocument, documents: GraphQLOperationDocuments) {
        let schema = try GraphQLSchemaDocument.load([schemaURL], displayBase: PackagePaths.root)
        return (schema, GraphQLOperationDocuments.load(folder: operationsURL, schema: schema, displayBase: PackagePaths.root))
    }

    /// A folder holding the given files (name → text).
    static func folder(_ files: [String: String]) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        for (name, text) in files {
            let url = folder.url.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return folder
    }
}
#endif
