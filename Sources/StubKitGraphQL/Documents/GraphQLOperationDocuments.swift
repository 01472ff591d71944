#if Tools
import Foundation
import GraphQL
import StubKit

/// The operation documents an app keeps (the `.graphql` files of Apollo iOS, say): every operation and
/// fragment under a folder, read as one document so that an operation may spread a fragment defined in
/// another file, and validated against a schema with GraphQLSwift's `validate` (the spec's rules).
package struct GraphQLOperationDocuments: @unchecked Sendable {
    // @unchecked: the parsed AST is immutable once built.

    /// One named operation or fragment, and where it is written.
    package struct Definition: @unchecked Sendable {
        package var name: String
        package var isFragment: Bool
        package var file: String
        package var position: SourcePosition
        /// Its UTF-8 range in ``GraphQLOperationDocuments/text`` (to the next definition), to attribute validation errors.
        package var range: Range<Int>
    }

    /// A named operation.
    package struct Operation: @unchecked Sendable {
        package var definition: Definition
        package var type: GraphQLOperationType
        package var node: OperationDefinition
        /// The fragments it spreads, directly or through other fragments.
        package var fragments: Set<String>
    }

    package let text: GraphQLSourceText
    /// Named operations by name (an anonymous operation cannot be stubbed by name, and is reported).
    package let operations: [String: Operation]
    package let fragments: [String: FragmentDefinition]
    package let fragmentDefinitions: [String: Definition]
    /// Files that do not parse, and operations or fragments the validator rejects, each with its place.
    package let problems: [GraphQLProblem]
    /// The validation problems, each with the operations and fragments its place falls in.
    package let validationProblems: [(problem: GraphQLProblem, owner: Definition?)]

    /// The `.graphql` files under a folder, recursively, sorted by path.
    package static func graphQLFiles(in folder: URL, extensions: Set<String> = ["graphql"]) -> [URL] {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        var files: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if extensions.contains(url.pathExtension.lowercased()) { files.append(url) }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Reads every `.graphql` file under `folder` and validates the operations against `schema`.
    ///
    /// Never throws: a file that does not parse is a problem, and the other files are still read.
    package static func load(folder: URL, schema: GraphQLSchemaDocument, displayBase: URL? = nil) -> GraphQLOperationDocuments {
        var problems: [GraphQLProblem] = []
        var text = GraphQLSourceText()
        let files = graphQLFiles(in: folder)
        if files.isEmpty {
            problems.append(GraphQLProblem(file: folder.displayPath(relativeTo: displayBase), position: nil, message: "no .graphql file under this folder"))
        }
        for url in files {
            let display = url.displayPath(relativeTo: displayBase)
            switch GraphQLFileReader.read(url, display: display) {
            case .success(let contents):
                var single = GraphQLSourceText()
                single.append(contents, file: display, url: url)
                switch GraphQLFileReader.parse(single, name: display) {
                case .success: text.append(contents, file: display, url: url)
                case .failure(let problem): problems.append(problem)
                }
            case .failure(let problem):
                problems.append(problem)
            }
        }
        var operations: [String: Operation] = [:]
        var fragments: [String: FragmentDefinition] = [:]
        var fragmentDefinitions: [String: Definition] = [:]
        var validation: [(GraphQLProblem, Definition?)] = []
        var definitions: [Definition] = []
        if !text.parts.isEmpty, case .success(let document) = GraphQLFileReader.parse(text, name: "operations") {
            var spreads: [String: Set<String>] = [:]
            for node in document.definitions {
                guard let loc = node.loc, let location = text.location(of: loc.start) else { continue }
                if let operation = node as? OperationDefinition {
                    guard let name = operation.name?.value else {
                        problems.append(GraphQLProblem(file: location.file, position: location.position,
                                                       message: "an operation without a name; a rule's 'graphql.operationName' cannot name it"))
                        continue
                    }
                    let definition = Definition(name: name, isFragment: false, file: location.file, position: location.position, range: loc.start..<loc.end)
                    definitions.append(definition)
                    spreads[name] = Self.spreads(in: operation.selectionSet)
                    let type: GraphQLOperationType
                    switch operation.operation {
                    case .query: type = .query
                    case .mutation: type = .mutation
                    case .subscription: type = .subscription
                    }
                    // Two operations with one name: the validator reports it; the first one counts here.
                    if operations[name] == nil {
                        operations[name] = Operation(definition: definition, type: type, node: operation, fragments: [])
                    }
                } else if let fragment = node as? FragmentDefinition {
                    let definition = Definition(name: fragment.name.value, isFragment: true, file: location.file, position: location.position, range: loc.start..<loc.end)
                    definitions.append(definition)
                    spreads["fragment " + fragment.name.value] = Self.spreads(in: fragment.selectionSet)
                    if fragments[fragment.name.value] == nil {
                        fragments[fragment.name.value] = fragment
                        fragmentDefinitions[fragment.name.value] = definition
                    }
                }
            }
            for name in operations.keys {
                operations[name]?.fragments = Self.closure(of: spreads[name] ?? [], spreads: spreads)
            }
            // A definition runs to the next one (GraphQLSwift's `loc.end` stops early for operations).
            for i in definitions.indices {
                let end = i + 1 < definitions.count ? definitions[i + 1].range.lowerBound : Int.max
                definitions[i].range = definitions[i].range.lowerBound..<end
            }
            for (problem, offset) in validate(document, in: text, schema: schema) {
                let owner = definitions.first { $0.range.contains(offset) }
                validation.append((problem, owner))
            }
        }
        return GraphQLOperationDocuments(text: text, operations: operations, fragments: fragments, fragmentDefinitions: fragmentDefinitions,
                                         problems: problems + validation.map(\.0), validationProblems: validation)
    }

    /// GraphQLSwift's validation of a parsed document against the schema (the spec's rules): each problem
    /// at its place in `text`, with its UTF-8 offset there (-1 when it has none).
    package static func validate(_ document: Document, in text: GraphQLSourceText, schema: GraphQLSchemaDocument) -> [(problem: GraphQLProblem, offset: Int)] {
        GraphQL.validate(schema: schema.schema, ast: document).map { error in
            (GraphQLFileReader.problem(error, in: text), error.positions.first ?? -1)
        }
    }

    /// The validation problems of an operation: in its own text or in a fragment it spreads.
    package func validationProblems(of name: String) -> [GraphQLProblem] {
        guard let operation = operations[name] else { return [] }
        return validationProblems.filter { item in
            guard let owner = item.owner else { return false }
            return owner.isFragment ? operation.fragments.contains(owner.name) : owner.name == name
        }.map(\.problem)
    }

    /// The fragment names a selection set spreads directly (nested selections included).
    private static func spreads(in selectionSet: SelectionSet) -> Set<String> {
        var names = Set<String>()
        var pending = [selectionSet]
        while let set = pending.popLast() {
            for selection in set.selections {
                if let spread = selection as? FragmentSpread { names.insert(spread.name.value) }
                if let field = selection as? Field, let nested = field.selectionSet { pending.append(nested) }
                if let inline = selection as? InlineFragment { pending.append(inline.selectionSet) }
            }
        }
        return names
    }

    /// Fragments reached from `start`, through fragments' own spreads (cycles end the walk).
    private static func closure(of start: Set<String>, spreads: [String: Set<String>]) -> Set<String> {
        var seen = Set<String>()
        var pending = Array(start)
        while let name = pending.popLast() {
            guard seen.insert(name).inserted else { continue }
            pending += spreads["fragment " + name] ?? []
        }
        return seen
    }
}
#endif
