#if Tools
import Foundation
import StubKit

/// Something wrong with a GraphQL file (a schema or an operation document), where it is.
package struct GraphQLProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file as diagnostics name it.
    package var file: String
    package var position: SourcePosition?
    package var message: String

    package init(file: String, position: SourcePosition?, message: String) {
        self.file = file
        self.position = position
        self.message = message
    }

    /// `file:line:column: message`.
    package var description: String {
        "\(file)\(position.map { ":\($0.line):\($0.column)" } ?? ""): \(message)"
    }
}

/// The problems that stop a schema from loading (each with its place); at least one.
package struct GraphQLLoadError: Error, Sendable, CustomStringConvertible {
    package var problems: [GraphQLProblem]

    package init(_ problems: [GraphQLProblem]) {
        self.problems = problems
    }

    package var description: String { problems.map(\.description).joined(separator: "\n") }
}
#endif
