#if Tools
import Foundation
import GraphQL
import StubKit

/// What a server's `data` for one operation looks like: the operation's selection set resolved
/// against the schema, with fragments, aliases and type conditions applied.
package struct GraphQLResponseShape: Sendable {
    package var operationName: String
    package var operationType: GraphQLOperationType
    /// The root type's name (`Query`, `Mutation`, `Subscription`).
    package var rootType: String
    /// The keys of `data`.
    package var data: GraphQLSelectionShape
}

/// The keys of one JSON object in the response, for each object type its value may have.
///
/// On an object type there is one entry; on an interface or union, one per possible type, each with
/// the keys its fragments and type conditions select (so `__typename` tells which entry applies).
/// Shapes are shared: the same selection on the same type is built once.
package final class GraphQLSelectionShape: Sendable {
    /// The named type the selection is made on (`Restaurant`, `SearchResult`).
    package let parentType: String
    /// Per possible object type, in the schema's order, the response keys in the order selected.
    package let fieldsByType: [(typeName: String, fields: [GraphQLResponseField])]

    init(parentType: String, fieldsByType: [(typeName: String, fields: [GraphQLResponseField])]) {
        self.parentType = parentType
        self.fieldsByType = fieldsByType
    }

    /// The object types a value here may have.
    package var possibleTypes: [String] { fieldsByType.map(\.typeName) }

    /// The keys selected for one object type, or nil when the type is not a possible type here.
    package func fields(for typeName: String) -> [GraphQLResponseField]? {
        fieldsByType.first { $0.typeName == typeName }?.fields
    }

    /// Whether every possible type gets the same keys (an object type, or fields selected outside
    /// any type condition), so a value needs no `__typename` to be checked.
    package var isUniform: Bool {
        guard let first = fieldsByType.first else { return true }
        let keys = first.fields.map(\.key)
        return fieldsByType.allSatisfy { $0.fields.map(\.key) == keys }
    }
}

/// One key of a response object.
package struct GraphQLResponseField: Sendable {
    /// The response key: the alias, or the field's name.
    package var key: String
    /// The schema field (`__typename` for the type's name).
    package var fieldName: String
    /// The object or interface type that defines the field (for the schema's location).
    package var definedOn: String
    package var type: GraphQLTypeReference
    /// What a leaf value must be; nil for an object, interface or union.
    package var leaf: GraphQLLeafType?
    /// The keys of the nested object(s), for a composite type.
    package var selection: GraphQLSelectionShape?
    /// Selected only under `@skip`/`@include`, so the key may be absent.
    package var isConditional: Bool
    /// Where it is selected in the operation documents (first occurrence).
    package var file: String
    package var position: SourcePosition?
}

/// A field's type as written in the schema: a named type with list and non-null wrappers.
package indirect enum GraphQLTypeReference: Sendable, Hashable, CustomStringConvertible {
    case named(String)
    case list(GraphQLTypeReference)
    case nonNull(GraphQLTypeReference)

    init(_ type: any GraphQLType) {
        if let nonNull = type as? GraphQLNonNull {
            self = .nonNull(GraphQLTypeReference(nonNull.ofType))
        } else if let list = type as? GraphQLList {
            self = .list(GraphQLTypeReference(list.ofType))
        } else if let named = type as? any GraphQLNamedType {
            self = .named(named.name)
        } else {
            self = .named("\(type)")
        }
    }

    /// `[Restaurant!]!`.
    package var description: String {
        switch self {
        case .named(let name): return name
        case .list(let item): return "[\(item)]"
        case .nonNull(let inner): return "\(inner)!"
        }
    }

    /// The named type under the wrappers.
    package var namedType: String {
        switch self {
        case .named(let name): return name
        case .list(let item), .nonNull(let item): return item.namedType
        }
    }
}

/// What a leaf (scalar or enum) value must be in a response.
package enum GraphQLLeafType: Sendable, Hashable {
    case string, id, int, float, boolean
    case enumeration(name: String, values: [String])
    /// A custom scalar: its serialization is the server's, so any JSON value is accepted.
    case customScalar(String)
}
#endif
