#if Tools
import Foundation
@testable import StubKitGraphQL
import StubKitTestSupport
import Testing

/// Schemas from SDL and operation documents from a folder: what loads, and each problem with its place.
struct GraphQLLoadingTests {
    @Test("the food-ordering schema and its operations load, and every operation is valid")
    func takeawayLoads() throws {
        let (schema, documents) = try GraphQLFixtures.takeaway()
        #expect(schema.schema.queryType?.name == "Query")
        #expect(documents.operations.keys.sorted() == ["GetMenu", "PlaceOrder", "RestaurantList", "Search", "TrackOrder"])
        #expect(documents.problems.map(\.description) == [])
        let getMenu = try #require(documents.operations["GetMenu"])
        #expect(getMenu.definition.file == "Tests/Fixtures/graphql/operations/GetMenu.graphql")
        #expect(getMenu.definition.position.line == 1)
        #expect(getMenu.fragments == ["RestaurantSummary"])
        let list = try #require(documents.operations["RestaurantList"])
        #expect(list.definition.position.line == 2, "the comment line comes first")
    }

    @Test("a schema split across files loads as one; a syntax error names its own file, line and column")
    func schemaAcrossFiles() throws {
        let folder = try GraphQLFixtures.folder([
            "a.graphqls": "type Query {\n  dish: Dish\n}\n",
            "b.graphqls": "type Dish {\n  name: String!\n}\n",
        ])
        let schema = try GraphQLSchemaDocument.load([folder.url.appendingPathComponent("a.graphqls"), folder.url.appendingPathComponent("b.graphqls")], displayBase: folder.url)
        #expect(schema.location(ofField: "name", in: "Dish").map { "\($0.file):\($0.position.line):\($0.position.column)" } == "b.graphqls:2:3")

        let broken = try GraphQLFixtures.folder(["a.graphqls": "type Query { dish: Dish }\n", "b.graphqls": "type Dish {\n  name String!\n}\n"])
        #expect { try GraphQLSchemaDocument.load([broken.url], displayBase: broken.url) } throws: { error in
            (error as? GraphQLLoadError)?.description == "b.graphqls:2:8: syntax error: Expected :, found Name \"String\""
        }
    }

    @Test("a schema that parses but does not build names the offending type's place")
    func schemaBuildError() throws {
        let folder = try GraphQLFixtures.folder(["s.graphqls": "type Query {\n  dish: Dish\n}\n"])
        #expect { try GraphQLSchemaDocument.load([folder.url], displayBase: folder.url) } throws: { error in
            let text = (error as? GraphQLLoadError)?.description ?? ""
            return text.hasPrefix("s.graphqls:2:9: ") && text.contains("Dish")
        }
    }

    @Test("fragments in other files resolve; a validation error points at its .graphql file, line and column")
    func operationsAcrossFiles() throws {
        let (schema, _) = try GraphQLFixtures.takeaway()
        let folder = try GraphQLFixtures.folder([
            "ops/Menu.graphql": "query Menu {\n  restaurant(id: \"r1\") {\n    ...Bits\n    nmae\n  }\n}\n",
            "fragments/Bits.graphql": "fragment Bits on Restaurant {\n  id\n}\n",
            "ops/Broken.graphql": "query Broken {\n  restaurants(postcode: \"x\") {\n",
        ])
        let documents = GraphQLOperationDocuments.load(folder: folder.url, schema: schema, displayBase: folder.url)
        #expect(documents.operations.keys.sorted() == ["Menu"])
        #expect(documents.problems.map(\.description).sorted() == [
            "ops/Broken.graphql:3:1: syntax error: Expected Name, found <EOF>",
            "ops/Menu.graphql:4:5: Cannot query field \"nmae\" on type \"Restaurant\". Did you mean \"name\"?",
        ])
        #expect(documents.validationProblems(of: "Menu").count == 1)
    }

    @Test("nesting past the pre-scan's limit is refused with its place before the recursive parser sees it", arguments: [200, 10_000])
    func deepNesting(_ depth: Int) throws {
        let (schema, _) = try GraphQLFixtures.takeaway()
        let deep = "query Deep " + String(repeating: "{ a ", count: depth) + String(repeating: "}", count: depth) + "\n"
        let folder = try GraphQLFixtures.folder(["Deep.graphql": deep])
        let documents = GraphQLOperationDocuments.load(folder: folder.url, schema: schema, displayBase: folder.url)
        #expect(documents.problems.map(\.description) == ["Deep.graphql:1:\(12 + 4 * 128): nesting deeper than 128 levels; not parsed"])

        let schemaFolder = try GraphQLFixtures.folder(["s.graphqls": "type Query { a(x: " + String(repeating: "[", count: depth) + "Int" + String(repeating: "]", count: depth) + "): Int }\n"])
        #expect { try GraphQLSchemaDocument.load([schemaFolder.url], displayBase: schemaFolder.url) } throws: { error in
            (error as? GraphQLLoadError)?.description.contains("s.graphqls:1:") == true && "\(error)".contains("nesting deeper than 128")
        }
    }

    @Test("braces inside strings, block strings and comments do not count as nesting")
    func scanSkipsStringsAndComments() {
        let text = "# {{{{\nquery { a(s: \"{{{{\\\"{{\", b: \"\"\"{{{ \\\"\"\" {{\"\"\") }\n"
        #expect(GraphQLNestingScan.firstTooDeep(in: text, maximumDepth: 2) == nil)
        #expect(GraphQLNestingScan.firstTooDeep(in: "{ { {", maximumDepth: 2) == 4)
    }
}
#endif
