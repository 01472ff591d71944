#if Tools
import Foundation
import Testing
@testable import StubKitOpenAPI
import StubKit
import StubKitTestSupport

/// Spec shapes real documents have that the first version of the checks got wrong: each case is a
/// spec and a bundle a user would write, and what `stublint --openapi` or `scaffold` must make of it.
struct RealWorldShapeTests {
    func spec(_ yaml: String) throws -> OpenAPISpec {
        try OpenAPISpec.load(Data(yaml.utf8), fileName: "spec.yaml", display: "spec.yaml")
    }

    func lint(_ yaml: String, rules: String) throws -> [Diagnostic] {
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("b", ["stubsRules.json": rules])
        return OpenAPILinter(spec: try spec(yaml)).lint(folders: [bundle], coverage: false).diagnostics
    }

    static let pets = """
        openapi: 3.0.3
        info: {title: Pets, version: '1'}
        servers:
          - url: https://{region}.api.example.com/v2
            variables:
              region: {default: us, enum: [us, eu]}
        paths:
          /users/me:
            get:
              responses:
                '200':
                  description: me
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/User'}
          /animals/{id}:
            get:
              parameters: [{name: id, in: path, required: true, schema: {type: string}}]
              responses:
                '200':
                  description: an animal
                  content:
                    application/json:
                      schema:
                        oneOf: [{$ref: '#/components/schemas/Cat'}, {$ref: '#/components/schemas/Dog'}]
                        discriminator: {propertyName: petType}
        components:
          schemas:
            User:
              type: object
              required: [id, password]
              properties:
                id: {type: integer}
                password: {type: string, writeOnly: true}
            Animal:
              type: object
              required: [petType, name]
              properties: {petType: {type: string}, name: {type: string}}
            Cat:
              allOf: [{$ref: '#/components/schemas/Animal'}, {type: object, properties: {huntingSkill: {type: string}}}]
            Dog:
              allOf: [{$ref: '#/components/schemas/Animal'}, {type: object, required: [packSize], properties: {packSize: {type: integer}}}]
        """

    @Test("a host that a server variable's enum allows is a host of that server, not only the default")
    func serverVariableEnum() throws {
        let found = try lint(Self.pets, rules: #"[{ "method": "GET", "host": "eu.api.example.com", "path": "/v2/users/me", "json": {"id": 1} }]"#)
        #expect(found.isEmpty, "\(found)")
        let other = try lint(Self.pets, rules: #"[{ "method": "GET", "host": "asia.api.example.com", "path": "/v2/users/me", "json": {"id": 1} }]"#)
        #expect(other.map(\.code) == [.operationNotFound], "\(other)")
    }

    @Test("OpenAPI 3.0: a required writeOnly property (a password) is not required in a response")
    func writeOnlyRequired() throws {
        let found = try lint(Self.pets, rules: #"[{ "method": "GET", "host": "us.api.example.com", "path": "/v2/users/me", "json": {"id": 1} }]"#)
        #expect(found.isEmpty, "\(found)")
        let missingID = try lint(Self.pets, rules: #"[{ "method": "GET", "host": "us.api.example.com", "path": "/v2/users/me", "json": {} }]"#)
        #expect(missingID.map(\.message) == ["(body): missing required property 'id'"], "\(missingID)")
    }

    @Test("oneOf with a discriminator checks the branch the object names (a cat is also a valid dog shape)")
    func discriminator() throws {
        let cat = try lint(Self.pets, rules: #"[{ "method": "GET", "host": "us.api.example.com", "path": "/v2/animals/1", "json": {"petType": "Cat", "name": "Tom", "huntingSkill": "lazy", "packSize": 2} }]"#)
        #expect(cat.isEmpty, "\(cat)")
        let dog = try lint(Self.pets, rules: #"[{ "method": "GET", "host": "us.api.example.com", "path": "/v2/animals/1", "json": {"petType": "Dog", "name": "Rex"} }]"#)
        #expect(dog.map(\.message) == ["(body): missing required property 'packSize'"], "\(dog)")
    }

    static let recursive = """
        openapi: 3.1.0
        info: {title: R, version: '1'}
        paths:
          /a:
            get:
              responses:
                '200':
                  description: x
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/A'}
          /people/{id}:
            get:
              parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
              responses:
                '200':
                  description: x
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/Person'}
        components:
          schemas:
            A:
              anyOf: [{$ref: '#/components/schemas/A'}, {$ref: '#/components/schemas/A'}]
            Person:
              type: object
              required: [name]
              properties:
                name: {type: string}
                mother: {$ref: '#/components/schemas/Person'}
                father: {$ref: '#/components/schemas/Person'}
                spouse: {$ref: '#/components/schemas/Person'}
                manager: {$ref: '#/components/schemas/Person'}
                children: {type: array, items: {$ref: '#/components/schemas/Person'}}
        """

    @Test("a schema whose anyOf doubles at every level is a note that it was not checked, not a hang")
    func exponentialCombinators() throws {
        let found = try lint(Self.recursive, rules: #"[{ "method": "GET", "path": "/a", "json": 1 }]"#)
        #expect(found.map(\.code) == [.ruleNotChecked], "\(found)")
        #expect(found.first?.message.contains("not checked further") == true)
    }

    @Test("scaffold stops a recursive schema's optional properties at the first repetition (no hang, a small body)")
    func scaffoldRecursiveSchema() throws {
        let folder = try TemporaryFolder()
        let bundle = folder.url.appendingPathComponent("people")
        let report = try BundleScaffolder(spec: try spec(Self.recursive)).write(to: bundle)
        #expect(report.rules == 1, "\(report.summary)")
        let body = try String(contentsOf: bundle.appendingPathComponent("GET_people_id.json"), encoding: .utf8)
        #expect(body == "{\n  \"name\": \"x\",\n  \"children\": []\n}\n")
    }
}

extension RealWorldShapeTests {
    static let shapes = """
        openapi: 3.1.0
        info: {title: M, version: '1'}
        paths:
          /reports/{id}.pdf:
            get:
              parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
              responses:
                '200': {description: x, content: {application/pdf: {}}}
          /anchor:
            get:
              responses:
                '200':
                  description: x
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/Wrap'}
        components:
          schemas:
            Wrap:
              $defs:
                s: {$anchor: str, type: string}
              $ref: '#str'
        """

    @Test("a path segment that mixes a parameter and text ({id}.pdf) is matched, not reported as unknown")
    func mixedSegment() throws {
        let found = try lint(Self.shapes, rules: #"[{ "method": "GET", "path": "/reports/7.pdf", "contentType": "application/pdf", "body": "%PDF" }]"#)
        #expect(found.isEmpty, "\(found)")
        let other = try lint(Self.shapes, rules: #"[{ "method": "GET", "path": "/reports/7.txt", "contentType": "application/pdf", "body": "%PDF" }]"#)
        #expect(other.map(\.code) == [.operationNotFound], "\(other)")
    }

    @Test("a $ref to a $anchor ('#str') is a note that it was not followed, never the whole document taken as the schema")
    func anchorReference() throws {
        let found = try lint(Self.shapes, rules: #"[{ "method": "GET", "path": "/anchor", "json": 5 }]"#)
        #expect(found.map(\.code) == [.ruleNotChecked], "\(found)")
    }
}

extension RealWorldShapeTests {
    @Test("scaffold: /pets/{id} before /pets/mine in the spec, and a discriminated oneOf, still give a bundle that lints clean")
    func scaffoldLiteralBeforeParameter() throws {
        // Dog without a required property: a made-up Cat fits Dog too, and only the discriminator tells them apart.
        let yaml = Self.pets.replacingOccurrences(of: "required: [packSize], ", with: "").replacingOccurrences(of: "paths:\n", with: """
            paths:
              /pets/{id}:
                get:
                  parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
                  responses:
                    '200': {description: x, content: {application/json: {schema: {$ref: '#/components/schemas/Animal'}}}}
              /pets/mine:
                get:
                  responses:
                    '200': {description: x, content: {application/json: {schema: {$ref: '#/components/schemas/Animal'}}}}

            """)
        let spec = try spec(yaml)
        let folder = try TemporaryFolder()
        let bundle = folder.url.appendingPathComponent("pets")
        let report = try BundleScaffolder(spec: spec).write(to: bundle)
        #expect(report.notes.isEmpty, "\(report.summary)")
        #expect(report.rules == 4)
        let lint = BundleLinter(options: .lint).lint(bundle).diagnostics
        #expect(lint.isEmpty, "\(lint)")
        let contract = OpenAPILinter(spec: spec).lint(folders: [bundle], coverage: true).diagnostics
        #expect(contract.isEmpty, "\(contract)")
    }
}

extension RealWorldShapeTests {
    @Test("a response or schema $ref that names nothing is a note about the spec, not an error blamed on the rule")
    func danglingReferences() throws {
        let yaml = """
            openapi: 3.0.3
            info: {title: E, version: '1'}
            paths:
              /items/{id}:
                get:
                  parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
                  responses:
                    '200': {$ref: '#/components/responses/Missing'}
              /x:
                get:
                  responses:
                    '200': {description: x, content: {application/json: {schema: {$ref: '#/components/schemas/Nope'}}}}
            """
        let found = try lint(yaml, rules: #"[{ "method": "GET", "path": "/items/1", "json": {"a": 1} }, { "method": "GET", "path": "/x", "json": {"a": 1} }]"#)
        #expect(found.map(\.code) == [.ruleNotChecked, .ruleNotChecked], "\(found)")
        #expect(found.map(\.message) == [
            "GET /items/{id} 200 is a $ref '#/components/responses/Missing' that names nothing in the OpenAPI document; the response is not checked",
            "(body): the schema's $ref '#/components/schemas/Nope' names nothing in this document; not checked",
        ])
    }
}

extension RealWorldShapeTests {
    @Test("a .txt response file served as JSON that is not JSON is a note that it was not checked, not silence")
    func textFileServedAsJSON() throws {
        let yaml = """
            openapi: 3.0.3
            info: {title: T, version: '1'}
            paths:
              /x:
                get:
                  responses:
                    '200': {description: x, content: {application/json: {schema: {type: object, required: [id]}}}}
            """
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("b", [
            "stubsRules.json": #"[{ "method": "GET", "path": "/x", "contentType": "application/json", "response": "x.txt" }]"#,
            "x.txt": ")]}'\n{\"name\": 1}",
        ])
        let found = OpenAPILinter(spec: try spec(yaml)).lint(folders: [bundle], coverage: false).diagnostics
        #expect(found.map(\.code) == [.ruleNotChecked], "\(found)")
    }
}
#endif
