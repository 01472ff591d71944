#if Tools
import Foundation
import Testing
@testable import StubKitOpenAPI
import StubKit
import StubKitTestSupport

/// The body validator against python-jsonschema (Draft 2020-12 with format checking), a real JSON
/// Schema validator, on a hand-written corpus that uses every keyword the OpenAPI checks read.
struct SchemaAgreementTests {
    static let corpus = PackagePaths.fixtures.appendingPathComponent("openapi/schema-corpus.json")

    /// In CI the oracle must be there (`.ci/test-deps` installs it); elsewhere the test says it skipped.
    static var oracleAvailable: Bool {
        ChildProcessRunner.pythonJSONSchemaAvailable || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    @Test("the validator's verdict equals python-jsonschema's on every schema and instance of the corpus",
          .enabled(if: oracleAvailable, "python3 with jsonschema and rfc3339-validator is not installed (.ci/test-deps installs them)"))
    func agreesWithPythonJSONSchema() throws {
        let data = try Data(contentsOf: Self.corpus)
        let cases = try #require(try JSONSourceParser().parse(data).arrayValue)
        let output = try ChildProcessRunner.python(["Tests/openapi_schema_check.py", Self.corpus.path])
        let verdicts = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[Bool]])
        #expect(verdicts.count == cases.count)
        var instances = 0, invalid = 0
        for (c, expected) in zip(cases, verdicts) {
            let name = c["name"]?.stringValue ?? "?"
            let schema = try #require(c["schema"])
            let validator = SchemaValidator(root: schema, dialect: .jsonSchema2020)
            for (instance, pythonSays) in zip(c["instances"]?.arrayValue ?? [], expected) {
                instances += 1
                if !pythonSays { invalid += 1 }
                let violations = validator.validate(instance, against: schema)
                #expect(!violations.contains(where: \.isViolation) == pythonSays, "\(name): \(JSONValue(instance)) python says \(pythonSays ? "valid" : "invalid"); StubKit says \(violations)")
            }
        }
        // The corpus must keep both kinds in number, or agreement says little.
        #expect(instances >= 150)
        #expect(invalid >= 60)
        #expect(instances - invalid >= 60)
    }

    @Test("every keyword the checks read appears in the corpus")
    func corpusCoversTheKeywords() throws {
        let text = try String(contentsOf: Self.corpus, encoding: .utf8)
        for keyword in ["$ref", "\"type\"", "\"enum\"", "\"const\"", "date-time", "uuid", "\"null\"", "oneOf", "anyOf", "allOf", "additionalProperties", "patternProperties", "required", "prefixItems", "\"not\""] {
            #expect(text.contains(keyword), "the corpus does not use \(keyword)")
        }
    }

    @Test("OpenAPI 3.0 reads 'nullable' and boolean exclusive bounds; 3.1 reads neither")
    func openAPI30Dialect() throws {
        let schema = try JSONSourceParser().parse(Data(#"{"type": "integer", "nullable": true, "minimum": 1, "exclusiveMinimum": true}"#.utf8))
        let v30 = SchemaValidator(root: schema, dialect: .openAPI30)
        let v31 = SchemaValidator(root: schema, dialect: .jsonSchema2020)
        let null = SourceValue(.null), one = SourceValue(.integer(1)), two = SourceValue(.integer(2))
        #expect(v30.isValid(null, against: schema))
        #expect(!v31.isValid(null, against: schema))
        #expect(!v30.isValid(one, against: schema))
        #expect(v30.isValid(two, against: schema))
        #expect(v30.validate(SourceValue(.string("x")), against: schema).map(\.message) == ["expected integer or null, got string"])
        // A 3.0 $ref replaces its object: the sibling minimum is ignored.
        let ref = try JSONSourceParser().parse(Data(##"{"$ref": "#/d", "minimum": 5, "d": {"type": "integer"}}"##.utf8))
        #expect(SchemaValidator(root: ref, dialect: .openAPI30).isValid(SourceValue(.integer(3)), against: ref))
        #expect(!SchemaValidator(root: ref, dialect: .jsonSchema2020).isValid(SourceValue(.integer(3)), against: ref))
    }

    @Test("a $ref to another file is a note that it was not checked, never a violation")
    func externalRef() throws {
        let schema = try JSONSourceParser().parse(Data(##"{"type": "object", "properties": {"pet": {"$ref": "pets.yaml#/Pet"}}}"##.utf8))
        let instance = try JSONSourceParser().parse(Data(##"{"pet": 1}"##.utf8))
        let violations = SchemaValidator(root: schema, dialect: .jsonSchema2020).validate(instance, against: schema)
        #expect(violations.map(\.description) == ["/pet: the schema's $ref 'pets.yaml#/Pet' is not in this document (only local '#/...' references are followed); not checked"])
        #expect(violations.allSatisfy { $0.isUncheckedNote })
    }

    @Test("a $ref cycle that consumes no input stops with a message instead of recursing forever")
    func refCycle() throws {
        let schema = try JSONSourceParser().parse(Data(##"{"$ref": "#/a", "a": {"$ref": "#/b"}, "b": {"$ref": "#/a"}}"##.utf8))
        let violations = SchemaValidator(root: schema, dialect: .jsonSchema2020).validate(SourceValue(.integer(1)), against: schema)
        #expect(violations.count == 1)
        #expect(violations.first?.message.contains("nest deeper than") == true)
        #expect(violations.first?.isUncheckedNote == true)
    }
}
#endif
