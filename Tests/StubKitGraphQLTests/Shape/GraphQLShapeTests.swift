#if Tools
import Foundation
@testable import StubKitGraphQL
import StubKitTestSupport
import Testing

/// Response shapes: keys by alias, fragments from other files, type conditions per possible type, bounds.
struct GraphQLShapeTests {
    /// `key: Type {…}` lines, per possible type where the selection is abstract.
    static func render(_ shape: GraphQLSelectionShape, indent: String = "") -> String {
        var out = ""
        for (typeName, fields) in shape.fieldsByType {
            if shape.fieldsByType.count > 1 || shape.parentType != typeName { out += "\(indent)on \(typeName):\n" }
            for field in fields {
                out += "\(indent)  \(field.key)\(field.key == field.fieldName ? "" : " (\(field.fieldName))"): \(field.type)\(field.isConditional ? " ?" : "")\n"
                if let nested = field.selection { out += render(nested, indent: indent + "    ") }
            }
        }
        return out
    }

    @Test("a union's inline fragments give each possible type its keys; aliases are the keys")
    func unionAndAlias() throws {
        let (schema, documents) = try GraphQLFixtures.takeaway()
        let shape = try GraphQLShapeBuilder(schema: schema, documents: documents).shape(ofOperation: "Search")
        #expect(shape.rootType == "Query")
        #expect(Self.render(shape.data) == """
              search: [SearchResult!]!
                on Restaurant:
                  __typename: String!
                  id: ID!
                  name: String!
                on MenuItem:
                  __typename: String!
                  id: ID!
                  dish (name): String!
                  price: Money!

            """)
        let search = try #require(shape.data.fields(for: "Query")?.first?.selection)
        #expect(!search.isUniform)
        #expect(search.fields(for: "MenuItem")?.last?.leaf == .customScalar("Money"))
    }

    @Test("a fragment from another file adds its keys before the operation's own, with enum values")
    func fragmentSpread() throws {
        let (schema, documents) = try GraphQLFixtures.takeaway()
        let shape = try GraphQLShapeBuilder(schema: schema, documents: documents).shape(ofOperation: "RestaurantList")
        let restaurant = try #require(shape.data.fields(for: "Query")?.first?.selection?.fields(for: "Restaurant"))
        #expect(restaurant.map(\.key) == ["__typename", "id", "name", "cuisines", "rating", "isOpen", "deliveryFee", "opensAt"])
        #expect(restaurant[3].leaf == .enumeration(name: "Cuisine", values: ["PIZZA", "SUSHI", "BURGERS", "INDIAN", "VEGAN"]))
        #expect(restaurant[3].type.description == "[Cuisine!]!")
        #expect(restaurant[1].file == "Tests/Fixtures/graphql/operations/RestaurantSummary.graphql")
    }

    @Test("a fragment that spreads itself stops the walk with its place, even without validation")
    func fragmentCycle() throws {
        let (schema, _) = try GraphQLFixtures.takeaway()
        let folder = try GraphQLFixtures.folder(["Q.graphql": "query Q { restaurant(id: 1) { ...A } }\nfragment A on Restaurant { id ...B }\nfragment B on Restaurant { name ...A }\n"])
        let documents = GraphQLOperationDocuments.load(folder: folder.url, schema: schema, displayBase: folder.url)
        #expect(documents.problems.contains { $0.message.contains("Cannot spread fragment") })
        #expect { try GraphQLShapeBuilder(schema: schema, documents: documents).shape(ofOperation: "Q") } throws: { error in
            "\(error)" == "Q.graphql:3:33: fragment 'A' spreads itself (A → B → A)"
        }
    }

    @Test("fragments that multiply keys stop at the size budget; nesting stops at the depth budget")
    func budgets() throws {
        let (schema, _) = try GraphQLFixtures.takeaway()
        // Each fragment spreads the next twice under different aliases: 2^20 keys if followed blindly.
        var text = "query Q { restaurant(id: 1) { ...F0 } }\n"
        for i in 0..<20 { text += "fragment F\(i) on Restaurant { a\(i): menu { categories { items { id } } } x\(i): id ...F\(i + 1) }\n" }
        text += "fragment F20 on Restaurant { id }\n"
        let folder = try GraphQLFixtures.folder(["Q.graphql": text])
        var builder = GraphQLShapeBuilder(schema: schema, documents: GraphQLOperationDocuments.load(folder: folder.url, schema: schema))
        builder.maximumFields = 30
        #expect { try builder.shape(ofOperation: "Q") } throws: { "\($0)".contains("more than 30 keys") }

        let deep = try GraphQLFixtures.folder(["D.graphql": "query D { search(text: \"x\") { ... on Restaurant { menu { categories { items { id } } } } } }\n"])
        var shallow = GraphQLShapeBuilder(schema: schema, documents: GraphQLOperationDocuments.load(folder: deep.url, schema: schema, displayBase: deep.url))
        shallow.maximumDepth = 2
        #expect { try shallow.shape(ofOperation: "D") } throws: { "\($0)" == "D.graphql:1:69: the response nests deeper than 2 objects" }
    }

    /// `query Boom { ...F<n> }` where each fragment spreads the one below twice: 2^n spreads if each is followed every time it appears.
    static func doubling(_ n: Int) -> String {
        var text = "query Boom { ...F\(n) }\nfragment F0 on Query { a }\n"
        for i in 1...n { text += "fragment F\(i) on Query { ...F\(i - 1) ...F\(i - 1) }\n" }
        return text
    }

    static let doublingSchema = "type Query { a: String  me: User }\ntype User { id: ID! name: String }\n"

    static func doublingDocuments(_ text: String) throws -> (GraphQLSchemaDocument, GraphQLOperationDocuments, TemporaryFolder) {
        let folder = try GraphQLFixtures.folder(["schema.graphqls": doublingSchema, "ops/Boom.graphql": text])
        let schema = try GraphQLSchemaDocument.load([folder.url.appendingPathComponent("schema.graphqls")], displayBase: folder.url)
        let documents = GraphQLOperationDocuments.load(folder: folder.url.appendingPathComponent("ops"), schema: schema, displayBase: folder.url)
        return (schema, documents, folder)
    }

    @Test("fragments that spread another twice, 30 deep, are followed once per object (a small work budget holds), and the example is built")
    func repeatedFragments() throws {
        let (schema, documents, _) = try Self.doublingDocuments(Self.doubling(30))
        #expect(documents.problems.isEmpty, "\(documents.problems)")
        var builder = GraphQLShapeBuilder(schema: schema, documents: documents)
        // 2 selections per fragment and a few more: 2^30 if each spread were walked each time it appears.
        builder.maximumWork = 100
        let shape = try builder.shape(ofOperation: "Boom")
        #expect(Self.render(shape.data) == "  a: String\n")
        let example = try GraphQLExampleBuilder().response(for: shape)
        #expect(example["data"]?.dictionaryValue?.map(\.key) == ["a"])
    }

    @Test("a fragment spread under @include and again without gives keys that are always present; only under @skip/@include, keys that may be absent")
    func repeatedConditionalFragments() throws {
        let schemaText = Self.doublingSchema
        let cases: [(String, String)] = [
            ("query Q($x: Boolean!) { ...F @include(if: $x) ...F }\nfragment F on Query { a ...G }\nfragment G on Query { me { id } }\n", "  a: String\n  me: User\n      id: ID!\n"),
            ("query Q($x: Boolean!) { ...F ...F @skip(if: $x) }\nfragment F on Query { a ...G }\nfragment G on Query { me { id } }\n", "  a: String\n  me: User\n      id: ID!\n"),
            ("query Q($x: Boolean!) { ...F @include(if: $x) ...F @skip(if: $x) }\nfragment F on Query { a ...G }\nfragment G on Query { me { id } }\n", "  a: String ?\n  me: User ?\n      id: ID! ?\n"),
            ("query Q($x: Boolean!) { ...G @include(if: $x) ...F }\nfragment F on Query { a ...G }\nfragment G on Query { me { id } }\n", "  me: User\n      id: ID!\n  a: String\n"),
        ]
        for (text, expected) in cases {
            let folder = try GraphQLFixtures.folder(["schema.graphqls": schemaText, "ops/Q.graphql": text])
            let schema = try GraphQLSchemaDocument.load([folder.url.appendingPathComponent("schema.graphqls")], displayBase: folder.url)
            let documents = GraphQLOperationDocuments.load(folder: folder.url.appendingPathComponent("ops"), schema: schema, displayBase: folder.url)
            #expect(documents.problems.isEmpty, "\(documents.problems)")
            let shape = try GraphQLShapeBuilder(schema: schema, documents: documents).shape(ofOperation: "Q")
            #expect(Self.render(shape.data) == expected, "\(text)")
        }
    }

    @Test("every selection visited counts against the work budget, which names the operation's place")
    func workBudget() throws {
        let (schema, documents, _) = try Self.doublingDocuments(Self.doubling(12))
        var builder = GraphQLShapeBuilder(schema: schema, documents: documents)
        builder.maximumWork = 20
        #expect { try builder.shape(ofOperation: "Boom") } throws: {
            "\($0)" == "ops/Boom.graphql:1:1: operation 'Boom' takes more than 20 steps to resolve against the schema (fragments spread in many places multiply them)"
        }
    }

    @Test("an unknown operation suggests the closest name")
    func unknownOperation() throws {
        let (schema, documents) = try GraphQLFixtures.takeaway()
        #expect { try GraphQLShapeBuilder(schema: schema, documents: documents).shape(ofOperation: "GetMenus") } throws: {
            "\($0)" == "no operation named 'GetMenus' in the operation documents; did you mean 'GetMenu'?"
        }
    }
}
#endif
