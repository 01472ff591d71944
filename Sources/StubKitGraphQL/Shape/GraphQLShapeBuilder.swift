#if Tools
import Foundation
import GraphQL
import StubKit

/// Resolves an operation's selection set against the schema into a ``GraphQLResponseShape``.
///
/// Bounded: nesting deeper than ``maximumDepth`` response levels, more than ``maximumFields`` keys in
/// all, more than ``maximumWork`` selections visited, or a fragment that spreads itself, stops with a
/// ``GraphQLShapeError`` naming the place (the validator rejects cycles too, but the walk does not rely
/// on it). The same selection on the same type is built once and shared, so an interface with hundreds
/// of implementations stays cheap. As the spec's CollectFields does, one object's field collection
/// follows each fragment once (twice when it is first spread under `@skip`/`@include` and then
/// without), so fragments that spread others twice, thirty deep, are thirty visits and not a billion.
package struct GraphQLShapeBuilder {
    package static let maximumDepth = 64
    package static let maximumFields = 100_000
    /// Selections visited in all (every field, inline fragment and spread, each time it is reached).
    package static let maximumWork = 1_000_000

    package let schema: GraphQLSchemaDocument
    package let documents: GraphQLOperationDocuments
    package var maximumDepth = GraphQLShapeBuilder.maximumDepth
    package var maximumFields = GraphQLShapeBuilder.maximumFields
    package var maximumWork = GraphQLShapeBuilder.maximumWork

    package init(schema: GraphQLSchemaDocument, documents: GraphQLOperationDocuments) {
        self.schema = schema
        self.documents = documents
    }

    /// The shape of the named operation's `data`.
    package func shape(ofOperation name: String) throws(GraphQLShapeError) -> GraphQLResponseShape {
        guard let operation = documents.operations[name] else {
            throw GraphQLShapeError(message: "no operation named '\(name)' in the operation documents", file: nil, position: nil,
                                    suggestion: Suggestion.closest(to: name, in: documents.operations.keys))
        }
        guard let root = schema.rootType(operation.type) else {
            throw GraphQLShapeError(message: "the schema has no \(operation.type.rawValue) type", file: operation.definition.file, position: operation.definition.position)
        }
        let walk = Walk(builder: self, operation: name, file: operation.definition.file, position: operation.definition.position)
        let data = try walk.selection(on: root.name, sets: [(operation.node.selectionSet, false)], depth: 0)
        return GraphQLResponseShape(operationName: name, operationType: operation.type, rootType: root.name, data: data)
    }

    /// One build: the memo of shared shapes and the running count of keys.
    private final class Walk {
        let builder: GraphQLShapeBuilder
        var memo: [String: GraphQLSelectionShape] = [:]
        var fieldCount = 0
        /// Selections visited, charged each time one is reached, so repeated fragments count as often as they are walked.
        var work = 0
        let operation: String
        let file: String
        let position: SourcePosition?

        init(builder: GraphQLShapeBuilder, operation: String, file: String, position: SourcePosition?) {
            self.builder = builder
            self.operation = operation
            self.file = file
            self.position = position
        }

        var schema: GraphQLSchemaDocument { builder.schema }

        /// A key being gathered: every selection of it, whose sub-selections merge.
        struct Gathered {
            var fieldName: String
            var node: Field
            var subSets: [(SelectionSet, Bool)]
            var isConditional: Bool
        }

        func selection(on parentType: String, sets: [(SelectionSet, Bool)], depth: Int) throws(GraphQLShapeError) -> GraphQLSelectionShape {
            let memoKey = parentType + "|" + sets.map { "\(UInt(bitPattern: ObjectIdentifier($0.0)))\($0.1 ? "?" : "")" }.joined(separator: ",")
            if let known = memo[memoKey] { return known }
            guard depth <= builder.maximumDepth else {
                throw error("the response nests deeper than \(builder.maximumDepth) objects", at: sets.first?.0.loc)
            }
            var fieldsByType: [(typeName: String, fields: [GraphQLResponseField])] = []
            for concrete in schema.possibleTypes(of: parentType) {
                var order: [String] = []
                var gathered: [String: Gathered] = [:]
                // Shared by all the sets: they merge into one object, so a fragment they both spread adds nothing the second time.
                var visited: [String: Bool] = [:]
                for (set, conditional) in sets {
                    try gather(set, on: concrete, conditional: conditional, fragmentPath: [], visited: &visited, into: &gathered, order: &order)
                }
                let fieldMap = schema.fields(of: concrete)
                var fields: [GraphQLResponseField] = []
                for key in order {
                    guard let item = gathered[key] else { continue }
                    fieldCount += 1
                    guard fieldCount <= builder.maximumFields else {
                        throw error("the response has more than \(builder.maximumFields) keys to check (fragments multiply them)", at: item.node.loc)
                    }
                    let location = GraphQLFileReader.location(of: item.node, in: builder.documents.text)
                    if item.fieldName == "__typename" {
                        fields.append(GraphQLResponseField(key: key, fieldName: "__typename", definedOn: concrete, type: .nonNull(.named("String")), leaf: .string,
                                                           selection: nil, isConditional: item.isConditional, file: location?.file ?? "", position: location?.position))
                        continue
                    }
                    // A field the type lacks: the validator reports it; the shape leaves it out.
                    guard let definition = fieldMap?[item.fieldName] else { continue }
                    let type = GraphQLTypeReference(definition.type)
                    let named = type.namedType
                    var nested: GraphQLSelectionShape? = nil
                    var leaf: GraphQLLeafType? = nil
                    if schema.possibleTypes(of: named).isEmpty && !(schema.schema.getType(name: named) is any GraphQLAbstractType) {
                        leaf = Self.leaf(named, in: schema)
                    } else {
                        nested = try selection(on: named, sets: item.subSets, depth: depth + 1)
                    }
                    fields.append(GraphQLResponseField(key: key, fieldName: item.fieldName, definedOn: concrete, type: type, leaf: leaf, selection: nested,
                                                       isConditional: item.isConditional, file: location?.file ?? "", position: location?.position))
                }
                fieldsByType.append((concrete, fields))
            }
            let shape = GraphQLSelectionShape(parentType: parentType, fieldsByType: fieldsByType)
            memo[memoKey] = shape
            return shape
        }

        /// Collects the fields a selection set gives an object of type `concrete`, following fragments
        /// whose type condition it meets.
        ///
        /// `visited` holds the fragments already followed for this object and whether that was under
        /// `@skip`/`@include`: a fragment followed unconditionally adds nothing when spread again; one
        /// followed only conditionally is followed once more when spread without, since its keys are then
        /// always present.
        func gather(_ set: SelectionSet, on concrete: String, conditional: Bool, fragmentPath: [String], visited: inout [String: Bool],
                    into gathered: inout [String: Gathered], order: inout [String]) throws(GraphQLShapeError) {
            for selection in set.selections {
                work += 1
                guard work <= builder.maximumWork else {
                    throw GraphQLShapeError(message: "operation '\(operation)' takes more than \(builder.maximumWork) steps to resolve against the schema (fragments spread in many places multiply them)",
                                            file: file, position: position)
                }
                if let field = selection as? Field {
                    let key = field.alias?.value ?? field.name.value
                    let isConditional = conditional || Self.isConditional(field.directives)
                    if var known = gathered[key] {
                        if let nested = field.selectionSet {
                            // The same node again (a fragment followed a second time): keep one entry, the unconditional one.
                            if let same = known.subSets.firstIndex(where: { $0.0 === nested }) {
                                known.subSets[same].1 = known.subSets[same].1 && isConditional
                            } else {
                                known.subSets.append((nested, isConditional))
                            }
                        }
                        known.isConditional = known.isConditional && isConditional
                        gathered[key] = known
                    } else {
                        gathered[key] = Gathered(fieldName: field.name.value, node: field,
                                                 subSets: field.selectionSet.map { [($0, isConditional)] } ?? [], isConditional: isConditional)
                        order.append(key)
                    }
                } else if let inline = selection as? InlineFragment {
                    guard inline.typeCondition.map({ applies($0.name.value, to: concrete) }) ?? true else { continue }
                    try gather(inline.selectionSet, on: concrete, conditional: conditional || Self.isConditional(inline.directives),
                               fragmentPath: fragmentPath, visited: &visited, into: &gathered, order: &order)
                } else if let spread = selection as? FragmentSpread {
                    let name = spread.name.value
                    guard !fragmentPath.contains(name) else {
                        throw error("fragment '\(name)' spreads itself (\((fragmentPath + [name]).joined(separator: " → ")))", at: spread.loc)
                    }
                    // An unknown fragment: the validator reports it.
                    guard let fragment = builder.documents.fragments[name], applies(fragment.typeCondition.name.value, to: concrete) else { continue }
                    let isConditional = conditional || Self.isConditional(spread.directives)
                    if let wasConditional = visited[name], !wasConditional || isConditional { continue }
                    visited[name] = isConditional
                    try gather(fragment.selectionSet, on: concrete, conditional: isConditional,
                               fragmentPath: fragmentPath + [name], visited: &visited, into: &gathered, order: &order)
                }
            }
        }

        /// Whether a type condition holds for an object type: the same type, or an interface or union it belongs to.
        func applies(_ condition: String, to concrete: String) -> Bool {
            condition == concrete || schema.possibleTypes(of: condition).contains(concrete)
        }

        static func isConditional(_ directives: [Directive]) -> Bool {
            directives.contains { $0.name.value == "skip" || $0.name.value == "include" }
        }

        static func leaf(_ name: String, in schema: GraphQLSchemaDocument) -> GraphQLLeafType {
            switch name {
            case "String": return .string
            case "ID": return .id
            case "Int": return .int
            case "Float": return .float
            case "Boolean": return .boolean
            default:
                if let enumeration = schema.schema.getType(name: name) as? GraphQLEnumType {
                    return .enumeration(name: name, values: enumeration.values.map(\.name))
                }
                return .customScalar(name)
            }
        }

        func error(_ message: String, at loc: Location?) -> GraphQLShapeError {
            let location = loc.flatMap { builder.documents.text.location(of: $0.start) }
            return GraphQLShapeError(message: message, file: location?.file, position: location?.position)
        }
    }
}

/// Why an operation's response shape could not be built, and where.
package struct GraphQLShapeError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var file: String?
    package var position: SourcePosition?
    /// For an unknown operation: the closest name.
    package var suggestion: String?

    package init(message: String, file: String?, position: SourcePosition?, suggestion: String? = nil) {
        self.message = message
        self.file = file
        self.position = position
        self.suggestion = suggestion
    }

    package var description: String {
        "\(file.map { "\($0)\(position.map { ":\($0.line):\($0.column)" } ?? ""): " } ?? "")\(message)\(suggestion.map { "; did you mean '\($0)'?" } ?? "")"
    }
}
#endif
