#if Tools
import ArgumentParser
import Foundation
import StubKit
import StubKitGraphQL
import StubKitOpenAPI

extension Traffic {
    /// The GraphQL checks' schema; exit 2 when it cannot be used, as `stublint lint --graphql-schema`.
    static func graphQLValidator(schemaPath: String, cwd: URL) throws -> GraphQLRequestValidator {
        do {
            return GraphQLRequestValidator(schema: try GraphQLSchemaDocument.load([URL(fileURLWithPath: schemaPath, relativeTo: cwd)], displayBase: cwd))
        } catch {
            for problem in error.problems {
                FileHandle.standardError.write(Data("stublint: error: \(problem) [\(DiagnosticCode.unreadableGraphQLSchema.rawValue)]\n".utf8))
            }
            throw ExitCode.badInput
        }
    }

    /// One entry's findings. A GraphQL request is the schema's to judge: the OpenAPI document still
    /// checks it where it documents the path, but its lack of one is no finding, since REST specs
    /// commonly leave the GraphQL endpoint out.
    static func check(_ entry: TrafficEntry, openAPI: TrafficValidator?, graphQL: GraphQLRequestValidator?) -> [Diagnostic] {
        let fromGraphQL = graphQL.flatMap { validator in
            validator.validate(request(of: entry), bodyTruncated: entry.bodyTruncated,
                               at: .init(file: entry.source.file, position: entry.source.position, keyPath: entry.source.keyPath, label: entry.label))
        }
        var found = openAPI?.validate(entry) ?? []
        if let fromGraphQL {
            found.removeAll { $0.code == .trafficOperationNotFound }
            found += fromGraphQL
        }
        return found
    }

    /// The request as the engine reads it (the first value of a repeated header).
    private static func request(of entry: TrafficEntry) -> StubRequest {
        var headers: [String: String] = [:]
        for header in entry.headers where headers[header.name] == nil { headers[header.name] = header.value }
        return StubRequest(method: entry.method, url: entry.url, headers: headers, body: entry.bodyIsKnown ? entry.body : nil)
    }
}
#endif
